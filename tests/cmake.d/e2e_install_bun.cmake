nub_e2e_test(install_bun test_install_bun.py)
