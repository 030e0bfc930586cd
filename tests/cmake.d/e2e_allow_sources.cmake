# npm's allow-git, allow-remote, allow-file, against npm 11 and 12.
nub_e2e_test(allow_sources test_allow_sources.py)
