# Hostile input (issue 26): alias keys that would be paths outside
# node_modules, through every reader and both layouts.
nub_e2e_test(hostile test_hostile.py)
