# Differential tests on real public packages against npm ci and pnpm
# (tests/fixtures/real); without npm or its registry they report "SKIP: "
# and CTest shows them skipped.
nub_e2e_test(differential test_differential.py)
set_tests_properties(e2e.differential PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: ")
