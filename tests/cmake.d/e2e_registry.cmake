# The test registry, the fixtures and the e2e harness (no nub needed).
nub_e2e_test(registry test_registry.py)
