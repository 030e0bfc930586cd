nub_unit_test(quickhash unit/test_quickhash.c)
