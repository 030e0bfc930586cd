# Release-age gates: every home, against pnpm, npm and bun.
nub_e2e_test(age_gate test_age_gate.py)
