# package-lock.json edited as npm edits it (core/formats/npm_edit.h).
nub_unit_test(npm_edit unit/test_npm_edit.c)
target_compile_definitions(test_npm_edit PRIVATE NUB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
