# The data-driven cases (tests/cases/**/*.t): a registry, a project and what
# the resolver and each hoister must make of them (tests/unit/test_cases.c
# reads the format). NUB_CASE=<part of a file name> runs one.
nub_unit_test(cases unit/test_cases.c)
target_compile_definitions(test_cases PRIVATE NUB_CASES_DIR="${CMAKE_CURRENT_SOURCE_DIR}/cases")
