# yarn berry's yarn.lock (nodeLinker: node-modules): the tree berry builds.
nub_e2e_test(install_berry test_install_berry.py)
