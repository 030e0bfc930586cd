nub_unit_test(agegate unit/test_agegate.c)
