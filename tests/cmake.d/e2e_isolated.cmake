# The isolated layout and the global virtual store, frozen-lockfile modes,
# reinstalls, pnpm-lock.yaml projects, two lockfiles, --offline.
nub_e2e_test(isolated test_isolated.py)
