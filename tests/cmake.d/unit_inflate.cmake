nub_unit_test(inflate unit/test_inflate.c)
