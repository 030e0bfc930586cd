# pnpm's hooks file: finding it, its checksum, readPackage through Node.
nub_unit_test(pnpmfile unit/test_pnpmfile.c)
