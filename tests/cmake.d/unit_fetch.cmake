# Fetching into the store without a network (file: tarballs, --offline).
nub_unit_test(fetch unit/test_fetch.c unit/store_fixture.c unit/tarball.c)
target_link_libraries(test_fetch PRIVATE PkgConfig::DEFLATE)
