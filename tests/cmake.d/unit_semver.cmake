# core/semver.c against node-semver's own expectations (tests/unit/test_semver.c).
nub_unit_test(semver unit/test_semver.c)
