nub_unit_test(journal unit/test_journal.c)
