# yarn.lock (yarn 1): the tree yarn builds.
nub_e2e_test(install_yarn test_install_yarn.py)
