nub_unit_test(record unit/test_record.c unit/store_fixture.c)
