nub_unit_test(path unit/test_path.c)
