nub_e2e_test(diag test_diag.py)
# --package-import-method clone on a loop-mounted XFS with reflink=1 (Linux,
# root, xfsprogs; skipped elsewhere, like plat.xfs).
add_test(NAME e2e.diag_xfs
  COMMAND bash ${PROJECT_SOURCE_DIR}/ci/xfs-test.sh ${CMAKE_CURRENT_SOURCE_DIR}/e2e/xfs_diag.sh)
set_tests_properties(e2e.diag_xfs PROPERTIES LABELS e2e TIMEOUT 600
  SKIP_REGULAR_EXPRESSION "SKIP: "
  ENVIRONMENT "NUB_BIN=$<TARGET_FILE:nub>;PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/e2e:${CMAKE_CURRENT_SOURCE_DIR}/registry")
