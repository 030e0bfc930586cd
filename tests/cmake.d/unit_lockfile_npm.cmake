# npm and bun lockfile readers, and the tree <-> graph conversion.
nub_unit_test(lockfile_npm unit/test_lockfile_npm.c)
target_compile_definitions(test_lockfile_npm PRIVATE NUB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
