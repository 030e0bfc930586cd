# Build approvals from every home, against pnpm and npm.
nub_e2e_test(approvals test_approvals.py)
