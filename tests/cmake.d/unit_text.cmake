nub_unit_test(text unit/test_text.c)
