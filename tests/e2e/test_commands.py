#!/usr/bin/env python3
"""The everyday commands against the local test registry: run (and
`nub <script>`, test/start aliases, pre/post, environment, exit codes,
--if-present, listing), exec and nubx, add and remove (package.json byte
round trips, lockfiles written back, failures leaving both files as they
were), why and ls.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_commands.py
     (or ctest -R e2e.commands)
"""

import json
import os
import shutil

import nubtest


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode:
        os.chmod(path, mode)


class RunTest(nubtest.NubTestCase):

    def scripts(self, scripts, name="proj"):
        self.make_project({"name": name, "version": "1.2.3", "scripts": scripts})

    def test_script_args_pre_post_and_exit_code(self):
        log = os.path.join(self.tmp, "log")
        self.scripts({"prebuild": "echo pre >> %s" % log,
                      "build": "echo build \"$@\" >> %s" % log,
                      "postbuild": "echo post >> %s; exit 4" % log})
        proc = self.nub("run", "build", "a", "b c", "--", "--flag", check=False)
        self.assertEqual(proc.returncode, 4)
        with open(log) as f:
            self.assertEqual(f.read(), "pre\nbuild a b c --flag\npost\n")

    def test_exit_code_and_signal_propagate(self):
        self.scripts({"seven": "exit 7", "ok": "true"})
        self.assertEqual(self.nub("run", "seven", check=False).returncode, 7)
        self.assertEqual(self.nub("seven", check=False).returncode, 7)
        self.assertEqual(self.nub("ok").returncode, 0)

    def test_aliases_and_script_by_name(self):
        out = os.path.join(self.tmp, "out")
        self.scripts({"test": "echo t >> %s" % out, "start": "echo s >> %s" % out,
                      "lint": "echo l >> %s" % out})
        self.nub("test")
        self.nub("t")
        self.nub("start")
        self.nub("lint")
        with open(out) as f:
            self.assertEqual(f.read(), "t\nt\ns\nl\n")

    def test_environment(self):
        self.scripts({"env": "env"})
        sub = os.path.join(self.proj, "sub", "deeper")
        os.makedirs(sub)
        self.env["NPM_TOKEN"] = "secret-token-value"
        self.env["npm_config__authToken"] = "secret-too"
        env = dict(line.split("=", 1) for line in
                   self.nub("run", "env", cwd=sub).stdout.splitlines() if "=" in line)
        self.assertEqual(env["npm_lifecycle_event"], "env")
        self.assertEqual(env["npm_lifecycle_script"], "env")
        self.assertEqual(env["npm_package_name"], "proj")
        self.assertEqual(env["npm_package_version"], "1.2.3")
        self.assertEqual(env["npm_package_json"], os.path.join(self.proj, "package.json"))
        self.assertEqual(env["npm_command"], "run-script")
        self.assertEqual(env["INIT_CWD"], sub)
        self.assertTrue(env["npm_config_user_agent"].startswith("nub/"))
        self.assertEqual(os.path.realpath(env["npm_execpath"]), os.path.realpath(self.nub_bin))
        path = env["PATH"].split(":")
        self.assertEqual(path[0], os.path.join(self.proj, "node_modules/.bin"))
        self.assertIn(os.path.join(os.path.dirname(self.proj), "node_modules/.bin"), path)
        self.assertNotIn("NPM_TOKEN", env)
        self.assertNotIn("npm_config__authToken", env)

    def test_runs_in_the_project_directory(self):
        self.scripts({"where": "pwd"})
        sub = os.path.join(self.proj, "a")
        os.makedirs(sub)
        self.assertEqual(self.nub("run", "where", cwd=sub).stdout.strip(), self.proj)

    def test_bins_of_the_project(self):
        self.make_project({"name": "proj", "version": "1.0.0",
                           "dependencies": {"c": "^1.0.0"},
                           "scripts": {"cli": "c-cli"}})
        self.nub("install")
        proc = self.nub("run", "cli")
        self.assertIn("c", proc.stdout)

    def test_list_unknown_and_if_present(self):
        self.scripts({"build": "make", "test": "jest"})
        out = self.nub("run").stdout
        self.assertIn("build\n    make", out)
        self.assertIn("test\n    jest", out)
        proc = self.nub_fails("run", "nope")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no script 'nope'", proc.stderr)
        self.assertIn("build", proc.stderr)
        self.assertEqual(self.nub("run", "--if-present", "nope").returncode, 0)
        self.assertEqual(self.nub("run", "nope", "--if-present").returncode, 0)
        proc = self.nub_fails("nope")
        self.assertEqual(proc.returncode, 2)  # not a command, not a script

    def test_no_package_json(self):
        proc = self.nub_fails("run", "x", cwd=self.tmp)
        self.assertEqual(proc.returncode, 71)


class ExecTest(nubtest.NubTestCase):

    def test_exec_and_nubx(self):
        self.make_project({"name": "proj", "version": "1.0.0",
                           "dependencies": {"c": "^1.0.0"}})
        self.nub("install")
        self.assertIn("c", self.nub("exec", "c-cli").stdout)
        nubx = os.path.join(self.tmp, "nubx")
        os.symlink(self.nub_bin, nubx)
        self.assertIn("c", self.run_cmd([nubx, "c-cli"]).stdout)
        sub = os.path.join(self.proj, "x")
        os.makedirs(sub)
        self.assertEqual(self.nub("exec", "pwd", cwd=sub).stdout.strip(), sub)
        proc = self.nub_fails("exec", "no-such-command-here")
        self.assertEqual(proc.returncode, 127)


if __name__ == "__main__":
    nubtest.main()
