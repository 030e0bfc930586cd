nub_e2e_test(faults test_faults.py)
