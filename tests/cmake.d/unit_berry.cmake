# The tree yarn berry's node_modules linker builds (berry.c, hoist_berry.c).
nub_unit_test(berry unit/test_berry.c)
target_compile_definitions(test_berry PRIVATE NUB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
