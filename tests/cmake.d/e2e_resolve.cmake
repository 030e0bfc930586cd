# Resolution without a lockfile: nub.lock contents and reproducibility,
# dist-tags, prereleases, aliases, peers, file:/link:, overrides, errors.
nub_e2e_test(resolve test_resolve.py)
