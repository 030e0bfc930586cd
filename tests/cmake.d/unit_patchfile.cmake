nub_unit_test(patchfile unit/test_patchfile.c)
