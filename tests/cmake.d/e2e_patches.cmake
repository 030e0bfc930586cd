# Committed patches (pnpm-workspace.yaml patchedDependencies), against pnpm.
nub_e2e_test(patches test_patches.py)
