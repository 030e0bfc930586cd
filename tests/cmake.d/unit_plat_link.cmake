# The linker (tests/unit/test_link.c), run twice:
#   unit.link             against the native platform (fault-injected ladder)
#   unit.link_macos_shim  (Linux) core + diag compiled against the macOS
#                         backend over the Darwin shim: whole-directory
#                         clones, the small-file copy threshold, fallbacks
nub_unit_test(link unit/test_link.c)

if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND TARGET nub_platform_macos_shim)
  get_property(_core_srcs GLOBAL PROPERTY NUB_CORE_SOURCES)
  get_property(_core_incs GLOBAL PROPERTY NUB_CORE_INCLUDES)
  get_target_property(_diag_srcs nub_diag SOURCES)
  list(TRANSFORM _diag_srcs PREPEND ${PROJECT_SOURCE_DIR}/diag/)
  add_executable(test_link_macos_shim unit/test_link.c
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/nub_test.c ${_core_srcs} ${_diag_srcs})
  target_include_directories(test_link_macos_shim PRIVATE
    ${_core_incs} ${PROJECT_SOURCE_DIR}/diag
    ${CMAKE_CURRENT_SOURCE_DIR}/unit)
  target_compile_definitions(test_link_macos_shim PRIVATE ${NUB_CORE_DEFINES})
  target_include_directories(test_link_macos_shim SYSTEM PRIVATE ${CURL_INCLUDE_DIRS}
    ${CRYPTO_INCLUDE_DIRS})
  target_link_libraries(test_link_macos_shim PRIVATE nub_platform_macos_shim
    PkgConfig::CMOCKA PkgConfig::CJSON PkgConfig::YAML PkgConfig::DEFLATE ZLIB::ZLIB
    ${CMAKE_DL_LIBS})
  add_test(NAME unit.link_macos_shim COMMAND test_link_macos_shim)
  set_tests_properties(unit.link_macos_shim PROPERTIES LABELS unit TIMEOUT 300
    ENVIRONMENT "NUB_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp")
endif()
