# The everyday commands: run, exec, add, remove, why, ls.
nub_e2e_test(commands test_commands.py)
