nub_unit_test(workspace unit/test_workspace.c)
