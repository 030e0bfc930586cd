nub_unit_test(store unit/test_store.c unit/store_fixture.c)
