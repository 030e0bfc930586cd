# pnpm's trustPolicy, against pnpm 12.
nub_e2e_test(trust_policy test_trust_policy.py)
