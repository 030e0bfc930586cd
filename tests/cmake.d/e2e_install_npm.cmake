nub_e2e_test(install_npm test_install_npm.py)
