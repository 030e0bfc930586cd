nub_unit_test(redact unit/test_redact.c)
