nub_e2e_test(diag test_diag.py)
