# Differential tests on real public packages against npm ci and pnpm
# (tests/fixtures/real); they skip without npm or its registry.
nub_e2e_test(differential test_differential.py)
