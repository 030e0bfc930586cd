# nub.lock (pnpm-lock.yaml v9) reader and writer. The test reads the
# benchmark lockfiles in ci/bench/fixtures and tests/fixtures/lockfiles.
nub_unit_test(lockfile_pnpm unit/test_lockfile_pnpm.c)
target_compile_definitions(test_lockfile_pnpm PRIVATE NUB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
