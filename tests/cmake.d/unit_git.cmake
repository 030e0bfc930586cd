nub_unit_test(git unit/test_git.c)
