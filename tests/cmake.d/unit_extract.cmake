# The extraction path: tar reader and nub_extract into a store import.
nub_unit_test(extract unit/test_extract.c unit/store_fixture.c unit/tarball.c)
target_link_libraries(test_extract PRIVATE PkgConfig::DEFLATE)
