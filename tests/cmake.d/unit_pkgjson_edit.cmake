nub_unit_test(pkgjson_edit unit/test_pkgjson_edit.c)
