nub_unit_test(json unit/test_json.c)
