# engines.node judged as npm and pnpm judge it, against them.
nub_e2e_test(engines test_engines.py)
