# pnpm's hooks file (.pnpmfile.cjs readPackage), against pnpm.
nub_e2e_test(pnpmfile test_pnpmfile.py)
