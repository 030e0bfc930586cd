# Workspaces: discovery, protocols, catalogs, members' node_modules and bins.
nub_e2e_test(workspaces test_workspaces.py)
