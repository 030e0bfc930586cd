nub_unit_test(requires unit/test_requires.c)
