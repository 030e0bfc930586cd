nub_unit_test(config unit/test_config.c)
