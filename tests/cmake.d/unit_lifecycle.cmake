# Which dependencies have scripts to run once installed.
nub_unit_test(lifecycle unit/test_lifecycle.c)
