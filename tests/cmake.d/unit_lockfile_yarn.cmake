nub_unit_test(lockfile_yarn unit/test_lockfile_yarn.c)
