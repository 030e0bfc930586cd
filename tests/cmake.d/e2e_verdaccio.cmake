# A real registry server: Verdaccio (build/tools/verdaccio, from ci/test.sh)
# with publish, a scoped token, 401 and 403; skipped without node or it.
nub_e2e_test(verdaccio test_verdaccio.py)
set_tests_properties(e2e.verdaccio PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: ")
