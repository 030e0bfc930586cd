# yarn berry's yarn.lock reader.
nub_unit_test(lockfile_berry unit/test_lockfile_berry.c)
