# The platform contract test (tests/unit/test_plat.c), run three ways:
#   unit.plat             the native backend, in $NUB_TEST_TMP
#   unit.plat_macos_shim  (Linux) platform/macos/plat_macos.c over the Darwin
#                         shim in tests/darwin_shim, from the same source
#   plat.xfs              (Linux, root) both again on a loop-mounted XFS with
#                         reflink=1, where clones must really share extents
# The extent probe is the only OS-specific piece: CMake picks it, so that
# test_plat.c itself has no OS #ifdef.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(_plat_extents ${CMAKE_CURRENT_SOURCE_DIR}/unit/plat_extents_linux.c)
else()
  set(_plat_extents ${CMAKE_CURRENT_SOURCE_DIR}/unit/plat_extents_other.c)
endif()

nub_unit_test(plat unit/test_plat.c ${_plat_extents})
# the libcrypto nub loads, for the test that moves it (test_load_library)
target_compile_definitions(test_plat PRIVATE NUB_TEST_LIBCRYPTO="${NUB_LIBCRYPTO_FILE}")

if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  # The macOS backend with NUB_DARWIN_SHIM: darwin_sys.h then includes
  # darwin_shim.h instead of the Darwin headers. A library of its own, and a
  # test without nub_core, so that no second set of nub_plat_* symbols meets
  # the native backend at link time.
  set(_pdir ${PROJECT_SOURCE_DIR}/platform)
  add_library(nub_platform_macos_shim STATIC
    ${_pdir}/alloc.c
    ${_pdir}/probe.c
    ${_pdir}/posix/plat_posix.c
    ${_pdir}/macos/plat_macos.c
    ${CMAKE_CURRENT_SOURCE_DIR}/darwin_shim/darwin_shim.c)
  target_compile_definitions(nub_platform_macos_shim PRIVATE NUB_DARWIN_SHIM)
  target_include_directories(nub_platform_macos_shim
    PUBLIC ${_pdir}
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/darwin_shim)
  target_link_libraries(nub_platform_macos_shim PUBLIC ${NUB_MIMALLOC} Threads::Threads)

  add_executable(test_plat_macos_shim unit/test_plat.c ${_plat_extents}
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/nub_test.c)
  target_link_libraries(test_plat_macos_shim PRIVATE nub_platform_macos_shim
    PkgConfig::CMOCKA)
  target_include_directories(test_plat_macos_shim PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/unit)
  add_test(NAME unit.plat_macos_shim COMMAND test_plat_macos_shim)
  set_tests_properties(unit.plat_macos_shim PROPERTIES LABELS unit TIMEOUT 300
    ENVIRONMENT "NUB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp")

  set(_plat_xfs_bins $<TARGET_FILE:test_plat> $<TARGET_FILE:test_plat_macos_shim>)
else()
  set(_plat_xfs_bins $<TARGET_FILE:test_plat>)
endif()

# Skips itself (prints "SKIP: <reason>", exit 0) without root, Linux, XFS
# tools or loop devices; CTest then reports it as skipped, not passed.
add_test(NAME plat.xfs
  COMMAND bash ${PROJECT_SOURCE_DIR}/ci/xfs-test.sh ${_plat_xfs_bins})
set_tests_properties(plat.xfs PROPERTIES LABELS unit TIMEOUT 600
  SKIP_REGULAR_EXPRESSION "SKIP: ")
