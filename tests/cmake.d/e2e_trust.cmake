# Trust (issue: wrong trees with exit 0, crashes on damaged input, credentials
# out of scope): strict input, on-disk checks, stale lockfiles, local deps.
nub_e2e_test(trust test_trust.py)
