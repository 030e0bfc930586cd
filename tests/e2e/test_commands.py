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
import re
import os
import shutil
import subprocess
import sys
import tempfile
import time


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read_text(path):
    with open(path) as f:
        return f.read()

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

    def test_no_credential_reaches_a_script(self):
        # npm's credential settings in any case and spelling, and the token
        # variables CI tools set: never in a script's environment (run, exec,
        # and an install's lifecycle scripts)
        secrets = {"npm_config__password": "sec-1", "NPM_CONFIG__PASSWORD": "sec-2",
                   "npm_config_password": "sec-3", "NPM_CONFIG__AUTH": "sec-4",
                   "npm_config__authToken": "sec-5", "Npm_Config_AuthToken": "sec-6",
                   "npm_config_otp": "sec-7", "npm_config_//h.invalid/:_password": "sec-8",
                   "npm_config_//h.invalid/:username": "sec-9", "NODE_AUTH_TOKEN": "sec-10",
                   "npm_config_keyfile": "sec-11", "npm_config_key": "sec-12"}
        self.scripts({"env": "env", "postinstall": "env > post.env"})
        self.env.update(secrets)
        self.env["npm_config_loglevel"] = "kept-setting"  # not a credential: kept
        outs = {"run": self.nub("run", "env").stdout,
                "exec": self.nub("exec", "env").stdout}
        self.nub("install")
        with open(os.path.join(self.proj, "post.env")) as f:
            outs["postinstall"] = f.read()
        for how, out in outs.items():
            with self.subTest(how):
                for name, value in secrets.items():
                    self.assertNotIn(value, out, name)
                self.assertIn("kept-setting", out)

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


class RunWorkspaceTest(nubtest.NubTestCase):

    def mono(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"],
                           "scripts": {"build": "echo root"}})
        pk = lambda d, doc: write(os.path.join(self.proj, "packages", d, "package.json"),
                                  json.dumps(doc))
        pk("lib", {"name": "lib", "version": "1.0.0",
                   "scripts": {"build": "sleep 0.3; touch built; echo lib done"}})
        pk("app", {"name": "app", "version": "1.0.0", "dependencies": {"lib": "workspace:*"},
                   "scripts": {"build": "test -f ../lib/built && echo app after lib"}})
        pk("other", {"name": "other", "version": "1.0.0",
                     "scripts": {"build": "echo other \"$@\"", "fail": "exit 5"}})
        pk("none", {"name": "none", "version": "1.0.0"})

    def test_recursive_in_order_with_prefixes(self):
        self.mono()
        proc = self.nub("run", "-r", "build", "--", "x y")
        lines = proc.stdout.splitlines()
        # arguments go to every package's script, quoted for sh
        self.assertIn("packages/lib build: lib done x y", lines)
        self.assertIn("packages/app build: app after lib x y", lines)
        self.assertIn("packages/other build: other x y", lines)
        self.assertIn("packages/app build: $ test -f ../lib/built && echo app after lib 'x y'",
                      lines)
        self.assertNotIn("root", proc.stdout)  # the root only with -w
        self.assertLess(lines.index("packages/lib build: lib done x y"),
                        lines.index("packages/app build: app after lib x y"))
        self.assertIn(". build: root", self.nub("run", "-r", "-w", "build").stdout)

    def test_filter_failure_and_missing(self):
        self.mono()
        out = self.nub("run", "--filter", "app...", "build").stdout
        self.assertIn("packages/lib build: lib done", out)
        self.assertNotIn("other", out)
        proc = self.nub("run", "-r", "fail", check=False)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertIn("packages/other", proc.stderr)
        proc = self.nub_fails("run", "-r", "nothing")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("none of the selected packages has a script 'nothing'", proc.stderr)
        self.assertEqual(self.nub("run", "-r", "--if-present", "nothing").returncode, 0)


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


class AddRemoveTest(nubtest.NubTestCase):

    def pj(self, text):
        with open(os.path.join(self.proj, "package.json"), "w", newline="") as f:
            f.write(text)

    def pj_text(self):
        with open(os.path.join(self.proj, "package.json"), newline="") as f:
            return f.read()

    def test_saved_ranges_and_sections(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"e": "^1.0.0"}})
        self.nub("add", "a", "c@1", "b@~1.0.0", "tagged@latest")
        deps = self.read_json(os.path.join(self.proj, "package.json"))["dependencies"]
        # "latest" is 1.0.0 although 1.1.0 exists: the tag, not the highest
        self.assertEqual(deps, {"a": "^1.0.0", "b": "~1.0.0", "c": "^1.0.0", "e": "^1.0.0",
                                "tagged": "^1.0.0"})
        self.assertEqual(self.node_require(self.proj, "a")["version"], "1.0.0")
        self.nub("add", "-E", "-D", "pre@next")
        doc = self.read_json(os.path.join(self.proj, "package.json"))
        self.assertEqual(doc["devDependencies"], {"pre": "2.0.0-beta.1"})
        # moving a dependency between sections
        self.nub("add", "-D", "a")
        doc = self.read_json(os.path.join(self.proj, "package.json"))
        self.assertNotIn("a", doc["dependencies"])
        self.assertEqual(doc["devDependencies"]["a"], "^1.0.0")
        self.nub("add", "-O", "opt-linux")
        self.nub("add", "--save-peer", "react-like@^1.0.0")
        doc = self.read_json(os.path.join(self.proj, "package.json"))
        self.assertEqual(doc["peerDependencies"], {"react-like": "^1.0.0"})
        self.assertEqual(doc["devDependencies"]["react-like"], "^1.0.0")
        self.assertEqual(doc["optionalDependencies"], {"opt-linux": "^1.0.0"})
        # the lockfile answers package.json: a frozen install accepts it
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--frozen-lockfile")

    def test_alias_and_file(self):
        self.make_project({"name": "p", "version": "1.0.0"})
        lib = os.path.join(self.tmp, "lib")
        write(os.path.join(lib, "package.json"), '{"name": "my-lib", "version": "0.1.0"}')
        write(os.path.join(lib, "index.js"), "module.exports = {name: 'my-lib'};")
        self.nub("add", "bee@npm:b@^2.0.0", "../lib")
        deps = self.read_json(os.path.join(self.proj, "package.json"))["dependencies"]
        self.assertEqual(deps, {"bee": "npm:b@^2.0.0", "my-lib": "file:../lib"})
        self.assertEqual(self.node_require(self.proj, "bee")["version"], "2.0.0")
        self.assertEqual(self.node_require(self.proj, "my-lib")["name"], "my-lib")

    def test_bytes_kept(self):
        cases = {
            "4-space": '{\n    "name": "p",\n    "dependencies": {\n        "e": "^1.0.0"\n    }\n}\n',
            "tab": '{\n\t"name": "p",\n\t"dependencies": {\n\t\t"e": "^1.0.0"\n\t}\n}\n',
            "crlf": '{\r\n  "name": "p",\r\n  "dependencies": {\r\n    "e": "^1.0.0"\r\n  }\r\n}\r\n',
            "no-newline": '{\n  "name": "p",\n  "dependencies": {\n    "e": "^1.0.0"\n  }\n}',
        }
        for label, text in cases.items():
            with self.subTest(style=label):
                shutil.rmtree(self.proj)
                os.makedirs(self.proj)
                self.pj(text)
                self.nub("add", "a")
                nl = "\r\n" if "\r\n" in text else "\n"
                ind = "\t" if label == "tab" else "    " if label == "4-space" else "  "
                want = text.replace('"e": "^1.0.0"', '"a": "^1.0.0",' + nl + ind * 2 + '"e": "^1.0.0"')
                self.assertEqual(self.pj_text(), want)
                self.nub("remove", "a")
                self.assertEqual(self.pj_text(), text)

    def test_bytes_kept_on_one_line(self):
        # a package.json on one line stays on one line, its own separators
        # kept (before, the new member came on a line of its own)
        cases = {
            '{"name":"p","dependencies":{"e":"^1.0.0"}}\n':
                '{"name":"p","dependencies":{"a":"^1.0.0","e":"^1.0.0"}}\n',
            '{ "name": "p", "dependencies": { "e": "^1.0.0" } }':
                '{ "name": "p", "dependencies": { "a": "^1.0.0", "e": "^1.0.0" } }',
            '{"name":"p"}\n': '{"name":"p","dependencies":{"a":"^1.0.0"}}\n',
            '{"name":"p","dependencies":{}}\n': '{"name":"p","dependencies":{"a":"^1.0.0"}}\n',
        }
        for text, want in cases.items():
            with self.subTest(text=text):
                shutil.rmtree(self.proj)
                os.makedirs(self.proj)
                self.pj(text)
                self.nub("add", "a")
                self.assertEqual(self.pj_text(), want)

    def test_failed_add_leaves_both_files(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.nub("install")
        before = {f: read_bytes(os.path.join(self.proj, f))
                  for f in ("package.json", "nub.lock")}
        for args in (("no-such-package-here",), ("a@^9.0.0",), ("b@2", "no-such-package-here")):
            with self.subTest(args=args):
                proc = self.nub_fails("add", *args)
                self.assertIn(proc.returncode, (20, 40), proc.stderr)
                for f, data in before.items():
                    self.assertEqual(read_bytes(os.path.join(self.proj, f)), data, f)
        proc = self.nub_fails("remove", "zzz")
        self.assertEqual(proc.returncode, 2)
        for f, data in before.items():
            self.assertEqual(read_bytes(os.path.join(self.proj, f)), data, f)

    def test_failed_install_restores(self):
        # the package resolves (package.json and bun.lock are rewritten) but
        # its tarball is refused when it is unpacked: the install fails after
        # the edit
        self.make_project("basic")
        self.write_lock_template("basic/bun.lock.template", "bun.lock")
        before = {f: read_bytes(os.path.join(self.proj, f))
                  for f in ("package.json", "bun.lock")}
        proc = self.nub_fails("add", "hostile-traverse")
        self.assertNotEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("hostile-traverse", proc.stderr)
        for f, data in before.items():
            self.assertEqual(read_bytes(os.path.join(self.proj, f)), data, f)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))

    def test_remove(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"a": "^1.0.0", "e": "^1.0.0"},
                           "devDependencies": {"c": "^1.0.0"}})
        self.nub("install")
        self.nub("rm", "a")
        self.nub("uninstall", "c")
        doc = self.read_json(os.path.join(self.proj, "package.json"))
        self.assertEqual(doc["dependencies"], {"e": "^1.0.0"})
        # a section the removal empties goes, as pnpm, npm and bun take it
        self.assertNotIn("devDependencies", doc)
        self.assertFalse(os.path.lexists(os.path.join(self.proj, "node_modules/a")))
        self.assertNotIn("a@1.0.0", read_text(os.path.join(self.proj, "nub.lock")))

    def test_install_with_names_is_add(self):
        self.make_project({"name": "p", "version": "1.0.0"})
        self.nub("i", "a")
        self.assertEqual(self.read_json(os.path.join(self.proj, "package.json"))["dependencies"],
                         {"a": "^1.0.0"})

    def test_pnpm_lockfile_written_back(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.nub("install")
        os.rename(os.path.join(self.proj, "nub.lock"), os.path.join(self.proj, "pnpm-lock.yaml"))
        self.nub("add", "e")
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.assertIn("e@1.0.0", read_text(os.path.join(self.proj, "pnpm-lock.yaml")))

    @nubtest.requires_npm
    def test_npm_lockfile_npm_ci_accepts(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install", "--ignore-scripts")
        self.nub("add", "tagged", "--ignore-scripts")
        self.nub("remove", "e", "--ignore-scripts")
        lock = self.read_json(os.path.join(self.proj, "package-lock.json"))
        self.assertIn("node_modules/tagged", lock["packages"])
        self.assertNotIn("node_modules/e", lock["packages"])
        theirs = os.path.join(self.tmp, "theirs")
        os.makedirs(theirs)
        for f in ("package.json", "package-lock.json"):
            shutil.copy(os.path.join(self.proj, f), theirs)
        self.npm("ci", "--ignore-scripts", cwd=theirs)
        self.assertEqual(self.installed(modes=True), self.installed(theirs, modes=True))

    def test_workspace_member_and_root(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        for d, n in (("packages/app", "app"), ("packages/lib", "lib")):
            write(os.path.join(self.proj, d, "package.json"),
                  json.dumps({"name": n, "version": "1.0.0"}, indent=2) + "\n")
        app = os.path.join(self.proj, "packages/app")
        self.nub("add", "a", "lib", cwd=app)
        self.assertEqual(self.read_json(os.path.join(app, "package.json"))["dependencies"],
                         {"a": "^1.0.0", "lib": "^1.0.0"})
        self.assertEqual(os.readlink(os.path.join(app, "node_modules/lib")), "../../lib")
        self.nub("add", "-w", "e")
        self.assertEqual(self.read_json(os.path.join(self.proj, "package.json"))["dependencies"],
                         {"e": "^1.0.0"})
        self.nub("add", "--filter", "lib", "b@^2.0.0")
        self.assertEqual(self.read_json(os.path.join(self.proj, "packages/lib/package.json"))
                         ["dependencies"], {"b": "^2.0.0"})


class ConcurrentEditTest(nubtest.NubTestCase):
    """Two commands that edit one project never lose an edit; an edit cut
    short by kill -9 leaves package.json and the lockfile both old (the
    next command puts them back) or both new."""

    def start(self, *args, env=None):
        full = dict(self.env)
        full.update(env or {})
        return subprocess.Popen([self.nub_bin] + list(args), cwd=self.proj, env=full,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True)

    def test_two_adds_at_once_keep_both(self):
        # the registry answers slowly, so both commands are inside their
        # read-modify-write at once
        for attempt in range(5):
            with self.subTest(attempt=attempt):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                self.make_project({"name": "p", "version": "1.0.0"})
                self.registry.clear_faults()
                self.registry.add_fault(r"^/(a|e|b)$", "delay", count=None, seconds=0.3)
                one, two = self.start("add", "a"), self.start("add", "e")
                outs = [p.communicate(timeout=120) for p in (one, two)]
                self.assertEqual([one.returncode, two.returncode], [0, 0], outs)
                deps = self.read_json(os.path.join(self.proj, "package.json"))["dependencies"]
                self.assertEqual(sorted(deps), ["a", "e"])
                self.registry.clear_faults()
                shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.nub("install", "--frozen-lockfile")
                self.assertEqual(self.node_require(self.proj, "e")["version"], "1.0.0")

    def test_kill_9_leaves_both_files_old_or_both_new(self):
        for layout_files in (("nub.lock",), ("package-lock.json",)):
            with self.subTest(lockfile=layout_files[0]):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                self.make_project({"name": "p", "version": "1.0.0",
                                   "dependencies": {"a": "^1.0.0"}})
                if layout_files[0] == "package-lock.json":
                    self.write_json(os.path.join(self.proj, "package-lock.json"), self.lock_v3(
                        {"a": "^1.0.0"}, {"node_modules/a": {"version": "1.0.0",
                                                            "dependencies": {"b": "^1.0.0"}},
                                          "node_modules/b": {"version": "1.0.0"}}))
                self.nub("install")
                before = {f: open(os.path.join(self.proj, f)).read()
                          for f in ("package.json",) + layout_files}
                # c's tarball hangs: the add has written package.json and is
                # installing when it is killed
                self.registry.add_fault(r"/c/-/", "delay", count=None, seconds=30)
                proc = self.start("add", "c")
                deadline = time.time() + 60
                while time.time() < deadline:
                    if '"c"' in open(os.path.join(self.proj, "package.json")).read():
                        break
                    time.sleep(0.05)
                time.sleep(0.3)
                proc.kill()
                proc.communicate()
                self.registry.clear_faults()
                # the next command finishes what the killed one left
                again = self.nub("install", "--frozen-lockfile")
                self.assertIn("interrupted", again.stderr)
                after = {f: open(os.path.join(self.proj, f)).read() for f in before}
                self.assertEqual(after, before)
                self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")


class NewcomerTest(nubtest.NubTestCase):
    """Issue 27: the CLI's conventions (help everywhere, flags that mean what
    pnpm, npm and bun users type, the nearest name for a typo), output that
    is true (what changed, singulars, where a package was saved), progress
    without a terminal, `nub init`."""

    def commands(self):
        """(name, aliases) of every command `nub --help` lists."""
        out = self.nub("--help").stdout
        rows = []
        for line in out.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines():
            name = line.split()[0]
            m = re.search(r"\(([a-z, -]+)\)$", line)
            aliases = [a.strip() for a in m.group(1).split(",")] if m else []
            rows.append((name, aliases))
        return rows

    def test_every_command_and_alias_takes_help(self):
        rows = self.commands()
        names = [n for n, _ in rows]
        self.assertEqual(len(names), len(set(names)))  # each listed once
        for want in ("test", "start", "init", "remove"):
            self.assertIn(want, names)
        self.assertNotIn("uninstall", names)  # remove's alias, not a row of its own
        self.registry.reset_log()
        for name, aliases in rows:
            for word in [name] + aliases:
                for how in ((word, "--help"), (word, "-h"), ("help", word)):
                    with self.subTest(how=how):
                        proc = self.nub(*how, cwd=self.tmp)
                        self.assertRegex(proc.stdout, r"^usage: nub %s\b" % re.escape(name))
        # dlx and exec take it as theirs, not as a package or a command
        self.assertEqual(self.registry.requests, [])

    def test_the_guide_says_what_help_says(self):
        # docs/guide.md's command pages are `nub help`'s, byte for byte
        root = os.path.dirname(nubtest.TESTS_DIR)
        proc = self.run_cmd([sys.executable, os.path.join(root, "ci", "gen-guide.py"),
                             self.nub_bin, "--check"], cwd=root, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_help_after_a_script_or_command_is_the_script_s(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "scripts": {"echo": "echo got \"$@\""}})
        self.assertEqual(self.nub("run", "echo", "--help").stdout.strip(), "got --help")

    def test_typos_get_the_nearest_name(self):
        for args, near in ((("instal",), "install"), (("ad", "x"), "add"),
                           (("install", "--frozen-lockfle"), "--frozen-lockfile"),
                           (("add", "--save-dv", "x"), "--save-dev"),
                           (("ls", "--jsn"), "--json"), (("run", "--if-presnt", "x"), "--if-present"),
                           (("help", "updat"), "update")):
            with self.subTest(args=args):
                proc = self.nub(*args, check=False, cwd=self.tmp)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("did you mean '%s'?" % near, proc.stderr)

    def test_add_saves_where_pnpm_npm_and_bun_users_say(self):
        for flag, section in (("-D", "devDependencies"), ("--dev", "devDependencies"),
                              ("--save-dev", "devDependencies"),
                              ("-O", "optionalDependencies"), ("--optional", "optionalDependencies"),
                              ("--peer", "peerDependencies"), ("-E", "dependencies")):
            with self.subTest(flag=flag):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                self.make_project({"name": "p", "version": "1.0.0"})
                proc = self.nub("add", flag, "e")
                doc = self.read_json(os.path.join(self.proj, "package.json"))
                self.assertIn("e", doc[section])
                self.assertIn("saved e@%s1.0.0 to %s" % ("" if flag == "-E" else "^", section),
                              proc.stdout)
                if section != "peerDependencies":
                    self.assertEqual(self.node_require(self.proj, "e")["name"], "e")

    def test_a_move_leaves_no_empty_section(self):
        self.make_project({"name": "p", "version": "1.0.0", "devDependencies": {"e": "^1.0.0"}})
        self.nub("add", "e")
        doc = self.read_json(os.path.join(self.proj, "package.json"))
        self.assertEqual(doc["dependencies"], {"e": "^1.0.0"})
        self.assertNotIn("devDependencies", doc)

    def summary(self, proc):
        return [l for l in proc.stdout.splitlines() if not l.startswith(("saved ", "Progress:"))][0]

    def pnpm_counts(self, *steps):
        """pnpm's "Packages: +n -m" for the same steps in a project of its own."""
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            return None
        theirs = os.path.join(self.tmp, "theirs")
        os.makedirs(theirs, exist_ok=True)
        self.write_json(os.path.join(theirs, "package.json"), {"name": "p", "version": "1.0.0"})
        got = []
        for step in steps:
            # (pnpm 12 reads no npm_config_* variable: flags)
            out = self.run_cmd([pnpm] + list(step) + [
                "--reporter", "append-only", "--registry", self.registry.url,
                "--store-dir", os.path.join(self.tmp, "pnpm-store")], cwd=theirs).stdout
            m = re.search(r"Packages: ([+-]\d+)(?: ([+-]\d+))?", out)
            got.append(m.groups() if m else None)
        return got

    def test_the_summary_counts_what_changed(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.assertEqual(self.summary(self.nub("install")).split(" in ")[0], "added 2 packages")
        proc = self.nub("add", "e")
        self.assertEqual(self.summary(proc).split(" in ")[0], "added 1 package")
        self.assertIn("+ e 1.0.0", proc.stdout)
        proc = self.nub("remove", "e")
        self.assertEqual(self.summary(proc).split(" in ")[0], "removed 1 package")
        self.assertIn("- e 1.0.0", proc.stdout)
        self.assertEqual(self.summary(self.nub("update")), "Already up to date")
        proc = self.nub("update", "notadep")
        self.assertIn("notadep is not a dependency", proc.stderr)
        # pnpm counts the same
        theirs = self.pnpm_counts(("add", "a@^1.0.0"), ("add", "e"), ("remove", "e"))
        if theirs is not None:
            self.assertEqual(theirs, [("+2", None), ("+1", None), ("-1", None)])

    def test_add_without_package_json_says_how(self):
        proc = self.nub_fails("add", "e")
        self.assertEqual(proc.returncode, 71)
        self.assertIn("run `nub init`", proc.stderr)

    def test_init_writes_what_npm_init_y_writes(self):
        proj = os.path.join(self.tmp, "My-App.js")
        os.makedirs(proj)
        self.assertIn("wrote", self.nub("init", cwd=proj).stdout)
        mine = self.read_json(os.path.join(proj, "package.json"))
        self.assertEqual(mine["name"], "my-app")
        if nubtest.have_npm():
            theirs = os.path.join(self.tmp, "theirs", "My-App.js")
            os.makedirs(theirs)
            self.npm("init", "-y", cwd=theirs)
            self.assertEqual(mine, self.read_json(os.path.join(theirs, "package.json")))
        self.assertEqual(self.nub_fails("init", cwd=proj).returncode, 1)  # it exists
        # a workspace package, and the root lists it
        self.nub("init", "-w", "packages/a", cwd=proj)
        self.assertEqual(self.read_json(os.path.join(proj, "package.json"))["workspaces"],
                         ["packages/a"])
        self.assertEqual(self.read_json(os.path.join(proj, "packages/a/package.json"))["name"], "a")
        self.nub("install", cwd=proj)

    def test_progress_lines_without_a_terminal(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.registry.add_fault(r"^/b$", "delay", count=None, seconds=2.5)
        proc = self.nub("install")
        lines = [l for l in proc.stdout.splitlines() if l.startswith("Progress: ")]
        self.assertTrue(lines, proc.stdout)
        self.assertRegex(lines[0], r"^Progress: resolved \d+, fetched \d+/\d+")
        nubtest._rmtree(os.path.join(self.proj, "node_modules"))
        os.unlink(os.path.join(self.proj, "nub.lock"))
        proc = self.nub("install", "--silent")
        self.assertEqual(proc.stdout, "")


class InterruptTest(nubtest.NubTestCase):

    def test_ctrl_c_says_one_line(self):
        # an install interrupted in the middle of a slow download: exit 130,
        # one line on stderr, and no progress line once it was told to stop
        import signal
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.registry.add_fault(r"/b/-/", "delay", count=None, seconds=20)
        proc = subprocess.Popen([self.nub_bin, "install"], cwd=self.proj, env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True)
        time.sleep(2.5)  # past the first progress line
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.assertLess(time.time() - sent, 10)
        self.assertEqual(proc.returncode, 130, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("interrupted", err)


class TerminalProgressTest(nubtest.NubTestCase):
    """On a terminal (driven through tmux), the progress line names a big
    download and its bytes while it comes, and goes when the install ends."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.registry.stop()
        cls.fixtures = tempfile.mkdtemp(prefix="nub-big-",
                                        dir=os.environ.get("NUB_TEST_TMP") or None)
        d = os.path.join(cls.fixtures, "bigpkg@1.0.0")
        os.makedirs(d)
        with open(os.path.join(d, "package.json"), "w") as f:
            json.dump({"name": "bigpkg", "version": "1.0.0"}, f)
        with open(os.path.join(d, "blob.bin"), "wb") as f:
            f.write(os.urandom(8 << 20))  # incompressible: 8 MB on the wire
        cls.registry = nubtest.Registry(cls.fixtures).start()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.fixtures)

    def test_a_big_download_shows_its_bytes(self):
        tmux = shutil.which("tmux")
        if not tmux:
            self.skipTest("SKIP: tmux is not installed (ci/bootstrap.sh --test installs it)")
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"bigpkg": "1.0.0"}})
        self.registry.add_fault(r"/bigpkg/-/", "throttle", rate=2 << 20)  # 4 s
        sock = os.path.join(self.tmp, "tmux.sock")
        env_args = []
        for k, v in self.env.items():
            env_args += ["-e", "%s=%s" % (k, v)]
        done = os.path.join(self.tmp, "done")
        cmd = "%s install; echo $? > %s" % (self.nub_bin, done)
        self.run_cmd([tmux, "-S", sock, "new-session", "-d", "-x", "160", "-y", "20"] + env_args +
                     ["-c", self.proj, "sh", "-c", cmd + "; sleep 30"])
        self.addCleanup(lambda: self.run_cmd([tmux, "-S", sock, "kill-server"], check=False))
        seen = None
        deadline = time.time() + 60
        while time.time() < deadline and not os.path.exists(done):
            screen = self.run_cmd([tmux, "-S", sock, "capture-pane", "-p"], check=False).stdout
            m = re.search(r"downloading bigpkg@1\.0\.0: (\d+\.\d) MB", screen)
            if m:
                seen = seen or m.group(0)
            time.sleep(0.2)
        self.assertIsNotNone(seen, "the line never named the download")
        self.assertTrue(os.path.exists(done))
        with open(done) as f:
            self.assertEqual(f.read().strip(), "0")
        screen = self.run_cmd([tmux, "-S", sock, "capture-pane", "-p"]).stdout
        self.assertIn("added 1 package", screen)
        self.assertNotIn("downloading", screen)  # the line went


class UpdateTest(nubtest.NubTestCase):

    def locked_old(self):
        # b@1.0.0 in the lockfile under a range that also takes 2.0.0
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"b": "1.0.0", "react-like": "^1.0.0"}})
        self.nub("install")
        pj = os.path.join(self.proj, "package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["b"] = ">=1.0.0"
        self.write_json(pj, doc)
        self.nub("install")
        self.assertEqual(self.node_require(self.proj, "b")["version"], "1.0.0")

    def test_within_ranges(self):
        self.locked_old()
        before = read_bytes(os.path.join(self.proj, "package.json"))
        self.nub("update", "b")
        self.assertEqual(self.node_require(self.proj, "b")["version"], "2.0.0")
        self.assertEqual(read_bytes(os.path.join(self.proj, "package.json")), before)
        self.assertIn("b@2.0.0", read_text(os.path.join(self.proj, "nub.lock")))
        self.assertEqual(self.node_require(self.proj, "react-like")["version"], "1.0.0")

    def test_everything_and_latest(self):
        self.locked_old()
        self.nub("up")
        self.assertEqual(self.node_require(self.proj, "b")["version"], "2.0.0")
        proc = self.nub("update", "--latest", "react-like")
        self.assertIn("react-like ^1.0.0 -> ^2.0.0", proc.stdout)
        deps = self.read_json(os.path.join(self.proj, "package.json"))["dependencies"]
        self.assertEqual(deps, {"b": ">=1.0.0", "react-like": "^2.0.0"})
        self.assertEqual(self.node_require(self.proj, "react-like")["version"], "2.0.0")

    @nubtest.requires_npm
    def test_npm_lockfile(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"b": "1.0.0"}})
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
        pj = os.path.join(self.proj, "package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["b"] = "*"
        self.write_json(pj, doc)
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
        self.nub("ci")
        self.assertEqual(self.node_require(self.proj, "b")["version"], "1.0.0")
        self.nub("update", "b")
        self.assertEqual(self.node_require(self.proj, "b")["version"], "2.0.0")
        lock = self.read_json(os.path.join(self.proj, "package-lock.json"))
        self.assertEqual(lock["packages"]["node_modules/b"]["version"], "2.0.0")


class LsWhyTest(nubtest.NubTestCase):

    def test_ls_and_why_isolated_and_hoisted(self):
        for layout in ("isolated", "hoisted"):
            with self.subTest(layout=layout):
                shutil.rmtree(self.proj)
                os.makedirs(self.proj)
                self.make_project({"name": "p", "version": "1.0.0",
                                   "dependencies": {"a": "^1.0.0", "c": "^1.0.0"},
                                   "devDependencies": {"dev-only": "^1.0.0"}})
                self.nub("install", "--node-linker", layout)
                out = self.nub("ls").stdout
                self.assertEqual(out, "p@1.0.0 %s\n├── a@1.0.0\n├── c@1.0.0\n"
                                      "└── dev-only@1.0.0 (dev)\n" % self.proj)
                deep = self.nub("ls", "--depth", "1").stdout
                self.assertIn("├── a@1.0.0\n│   └── b@1.0.0\n", deep)
                self.assertIn("├── c@1.0.0\n│   └── b@2.0.0\n", deep)
                doc = json.loads(self.nub("ls", "--json", "--depth", "1").stdout)
                a = doc[0]["dependencies"]["a"]
                self.assertEqual(a["version"], "1.0.0")
                self.assertTrue(os.path.isfile(os.path.join(a["path"], "package.json")))
                b = a["dependencies"]["b"]
                with open(os.path.join(b["path"], "package.json")) as f:
                    self.assertEqual(json.load(f)["version"], "1.0.0")
                why = self.nub("why", "b").stdout.splitlines()
                self.assertEqual(sorted(why), ["p (dependencies) > a@1.0.0 > b@1.0.0",
                                               "p (dependencies) > c@1.0.0 > b@2.0.0"])
                self.assertEqual(self.nub("why", "nothing-here", check=False).returncode, 1)
                self.assertIn("b@2.0.0", self.nub("ls", "b").stdout)

    def test_ls_workspace_and_no_lockfile(self):
        proc = self.nub_fails("ls")
        self.assertEqual(proc.returncode, 71)
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        write(os.path.join(self.proj, "packages/app/package.json"),
              json.dumps({"name": "app", "version": "1.0.0", "dependencies": {"e": "^1.0.0"}}))
        proc = self.nub_fails("ls")
        self.assertEqual(proc.returncode, 10)
        self.nub("install")
        out = self.nub("ls").stdout
        self.assertIn("app@1.0.0 %s/packages/app\n└── e@1.0.0\n" % self.proj, out)
        self.assertIn("app (dependencies) > e@1.0.0", self.nub("why", "e").stdout)


class OutdatedTest(nubtest.NubTestCase):

    def test_exit_codes_and_columns(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.nub("install")
        proc = self.nub("outdated")
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(proc.stdout, "")
        pj = os.path.join(self.proj, "package.json")
        doc = self.read_json(pj)
        doc["devDependencies"] = {"b": "^1.0.0", "react-like": "1.0.0"}
        self.write_json(pj, doc)
        self.nub("install")
        proc = self.nub("outdated", check=False)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        rows = [line.split() for line in proc.stdout.splitlines()[1:]]
        self.assertEqual(rows, [["b", "1.0.0", "1.0.0", "2.0.0", "p", "(dev)"],
                                ["react-like", "1.0.0", "1.0.0", "2.0.0", "p", "(dev)"]])
        doc = json.loads(self.nub("outdated", "--json", "b", check=False).stdout)
        self.assertEqual(doc, {"b": {"current": "1.0.0", "wanted": "1.0.0", "latest": "2.0.0",
                                     "dependent": "p", "type": "devDependencies"}})


class MiscCommandsTest(nubtest.NubTestCase):

    def test_dlx_reuses_its_cache(self):
        out = self.nub("dlx", "c", "one", "two", cwd=self.tmp).stdout
        self.assertEqual(out.strip(), "c-cli 1.0.0 b@2.0.0 one two")
        self.registry.reset_log()
        self.assertIn("c-cli 1.0.0", self.nub("x", "c", cwd=self.tmp).stdout)
        self.assertEqual(self.registry.requests, [])  # from the cache
        self.assertIn("c-cli 1.0.0", self.nub("x", "c@^1.0.0", cwd=self.tmp).stdout)
        proc = self.nub_fails("dlx", "a", cwd=self.tmp)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no command to run", proc.stderr)

    def test_dlx_reads_the_projects_npmrc(self):
        # a project whose .npmrc names its own registry (with a token) and a
        # scoped one: dlx asks those, as npx does, never the user's default
        other = nubtest.Registry(token="dlx-secret").start()
        self.addCleanup(other.stop)
        host = other.url.split("//", 1)[1]
        write(os.path.join(self.home, ".npmrc"), "registry=%s\n" % self.registry.url)
        self.make_project({"name": "p", "version": "1.0.0"})
        write(os.path.join(self.proj, ".npmrc"),
              "registry=%s\n@scope:registry=%s\n//%s:_authToken=dlx-secret\n"
              % (other.url, other.url, host))
        sub = os.path.join(self.proj, "src", "deep")
        os.makedirs(sub)
        env = {"npm_config_registry": None}
        for spec, want in (("c", "c-cli 1.0.0"), ("@scope/d", "d 1.0.0")):
            with self.subTest(spec):
                self.registry.reset_log()
                other.reset_log()
                out = self.nub("dlx", spec, cwd=sub, env=env).stdout
                self.assertIn(want.split()[0], out)
                self.assertEqual(self.registry.requests, [])
                self.assertTrue(other.requests)
                self.assertTrue(all(r["status"] == 200 for r in other.requests), other.requests)
        # the same spec from a project without that .npmrc is not served
        # from the first project's cache entry: it asks its own registry
        self.registry.reset_log()
        self.nub("dlx", "c", cwd=self.tmp, env=env)
        self.assertTrue(self.registry.requests)

    def test_store_and_cache(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.nub("install")
        self.assertEqual(self.nub("store", "path").stdout.strip(), self.store + "/v1")
        cache = self.nub("cache", "path").stdout.strip()
        self.assertTrue(os.path.isdir(os.path.join(cache, "packuments")))
        self.nub("cache", "clean")
        self.assertFalse(os.path.exists(os.path.join(cache, "packuments")))
        self.assertTrue(os.path.isdir(self.store + "/v1"))

    def test_completion_and_help(self):
        for shell in ("bash", "zsh", "fish"):
            out = self.nub("completion", shell).stdout
            self.assertIn("install", out)
            self.assertIn("run", out)
        for cmd in ("install", "add", "remove", "update", "run", "exec", "dlx", "ls", "why",
                    "outdated", "store", "cache", "completion", "ci", "config"):
            self.assertTrue(self.nub("help", cmd).stdout.strip(), cmd)


class RebuildLinkTest(nubtest.NubTestCase):

    def test_rebuild(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"scripted": "^1.0.0"},
                           "trustedDependencies": ["scripted"],
                           "scripts": {"postinstall": "echo root >> root.log"}})
        self.nub("install")
        marker = self.installed_marker()
        self.assertEqual(len(marker), 1)
        t0 = os.stat(marker[0]).st_mtime_ns
        time.sleep(0.05)
        self.assertIn("Already up to date", self.nub("install").stdout)
        self.assertEqual(os.stat(marker[0]).st_mtime_ns, t0)
        self.nub("rebuild")
        t1 = os.stat(marker[0]).st_mtime_ns
        self.assertGreater(t1, t0)  # ran again, with nothing changed
        with open(os.path.join(self.proj, "root.log")) as f:
            self.assertEqual(f.read(), "root\n")  # a rebuild runs no project script
        time.sleep(0.05)
        self.nub("rebuild", "scripted")
        self.assertGreater(os.stat(marker[0]).st_mtime_ns, t1)
        t2 = os.stat(marker[0]).st_mtime_ns
        self.nub("rebuild", "other-name")
        self.assertEqual(os.stat(marker[0]).st_mtime_ns, t2)

    def installed_marker(self):
        found = []
        for base, _, files in os.walk(os.path.join(self.proj, "node_modules")):
            found += [os.path.join(base, f) for f in files if f == "postinstall-ran"]
        return found

    def test_link(self):
        lib = os.path.join(self.tmp, "mylib")
        write(os.path.join(lib, "package.json"),
              json.dumps({"name": "@me/lib", "version": "0.1.0", "bin": {"mylib": "cli.js"}}))
        write(os.path.join(lib, "cli.js"), "#!/bin/sh\necho mylib-cli\n")
        write(os.path.join(lib, "index.js"), "module.exports = {name: 'mylib'};")
        self.env["NUB_HOME"] = os.path.join(self.tmp, "global")
        out = self.nub("link", cwd=lib).stdout
        self.assertIn("linked @me/lib", out)
        self.assertEqual(os.readlink(os.path.join(self.tmp, "global/node_modules/@me/lib")), lib)
        self.assertEqual(self.run_cmd([os.path.join(self.tmp, "global/bin/mylib")]).stdout,
                         "mylib-cli\n")
        self.make_project({"name": "p", "version": "1.0.0"})
        self.nub("link", "@me/lib")
        self.assertEqual(self.node_require(self.proj, "@me/lib"), {"name": "mylib"})
        self.assertIn("mylib-cli", self.nub("exec", "mylib").stdout)
        os.unlink(os.path.join(self.proj, "node_modules/@me/lib"))
        self.nub("link", "../mylib")
        self.assertEqual(os.readlink(os.path.join(self.proj, "node_modules/@me/lib")), lib)
        proc = self.nub_fails("link", "not-linked")
        self.assertEqual(proc.returncode, 40)

    def test_unlink_undoes_link(self):
        lib = os.path.join(self.tmp, "mylib")
        write(os.path.join(lib, "package.json"),
              json.dumps({"name": "@me/lib", "version": "0.1.0", "bin": {"mylib": "cli.js"}}))
        write(os.path.join(lib, "cli.js"), "#!/bin/sh\necho mylib-cli\n")
        self.env["NUB_HOME"] = os.path.join(self.tmp, "global")
        self.nub("link", cwd=lib)
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.nub("install")
        self.nub("link", "@me/lib")
        self.assertTrue(os.path.islink(os.path.join(self.proj, "node_modules/.bin/mylib")))
        # in the project: the link and its commands go, the rest installed again
        self.assertIn("unlinked @me/lib", self.nub("unlink", "@me/lib").stdout)
        self.assertFalse(os.path.lexists(os.path.join(self.proj, "node_modules/@me/lib")))
        self.assertFalse(os.path.lexists(os.path.join(self.proj, "node_modules/.bin/mylib")))
        self.assertEqual(self.node_require(self.proj, "a")["version"], "1.0.0")
        self.assertEqual(self.nub_fails("unlink", "@me/lib").returncode, 40)
        # in the package: the global link and its commands go
        self.assertIn("unlinked @me/lib", self.nub("unlink", cwd=lib).stdout)
        self.assertFalse(os.path.lexists(os.path.join(self.tmp, "global/node_modules/@me/lib")))
        self.assertFalse(os.path.lexists(os.path.join(self.tmp, "global/bin/mylib")))
        self.assertEqual(self.nub_fails("unlink", cwd=lib).returncode, 40)


class StoreTest(nubtest.NubTestCase):

    def project(self, name, deps, layout="hoisted"):
        d = os.path.join(self.tmp, name)
        write(os.path.join(d, "package.json"),
              json.dumps({"name": name, "version": "1.0.0", "dependencies": deps}))
        self.nub("install", "--node-linker", layout, cwd=d)
        return d

    def test_verify_finds_and_repairs(self):
        one = self.project("one", {"a": "^1.0.0", "e": "^1.0.0"})
        self.assertEqual(self.nub("store", "verify").returncode, 0)
        # the hoisted layout's files are the store's (hard links): an edit
        # through node_modules changes the store's copy
        with open(os.path.join(one, "node_modules/a/index.js"), "a") as f:
            f.write("console.log('TAMPERED')\n")
        proc = self.nub("store", "verify", check=False)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        # (the size tells here; test_verify_reads_tree_files_back has an edit
        # of the same size)
        self.assertIn("a@1.0.0: index.js", proc.stdout)
        self.assertIn("1 bad", proc.stdout)
        self.assertEqual(self.nub("store", "verify").returncode, 0)  # repaired
        # the next project gets a copy fetched again, not the edited one
        two = self.project("two", {"a": "^1.0.0"})
        with open(os.path.join(two, "node_modules/a/index.js")) as f:
            self.assertNotIn("TAMPERED", f.read())
        # a package tree (isolated layout) with a file gone
        three = self.project("three", {"c": "^1.0.0"}, layout="isolated")
        real = os.path.realpath(os.path.join(three, "node_modules/c"))
        os.unlink(os.path.join(real, "index.js"))
        proc = self.nub("store", "verify", check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("c@1.0.0: index.js is missing", proc.stdout)
        self.assertFalse(os.path.exists(real))
        # content-addressed files (no global virtual store): an edit of the
        # same size is found by the hash
        four = os.path.join(self.tmp, "four")
        write(os.path.join(four, "package.json"),
              json.dumps({"name": "four", "version": "1.0.0",
                          "dependencies": {"tagged": "^1.0.0"}}))
        self.nub("install", "--no-global-virtual-store", cwd=four)
        f = os.path.realpath(os.path.join(four, "node_modules/tagged/index.js"))
        with open(f, "r+b") as fh:
            data = fh.read()
            fh.seek(0)
            fh.write(bytes([data[0] ^ 1]) + data[1:])
        proc = self.nub("store", "verify", check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("tagged@1.0.0: index.js was changed", proc.stdout)
        self.assertEqual(self.nub("store", "verify").returncode, 0)

    def test_verify_reads_tree_files_back(self):
        # a package kept as a tree (what both layouts unpack new packages
        # into, but on macOS): an edit of the same size, its mtime put back,
        # passes the install's check (sizes, times) but not verify, which
        # reads each file against the CRC-32 taken as it was unpacked
        if nubtest.store_kind() != "packages":
            self.skipTest("new packages are content files here")
        one = self.project("one", {"tagged": "^1.0.0"})
        f = os.path.join(one, "node_modules/tagged/index.js")
        st = os.stat(f)
        with open(f, "r+b") as fh:
            data = fh.read()
            fh.seek(0)
            fh.write(bytes([data[0] ^ 1]) + data[1:])
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
        self.assertEqual(self.nub("store", "status").returncode, 0)
        proc = self.nub("store", "verify", check=False)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("tagged@1.0.0: index.js was changed (its content is not what was "
                      "unpacked)", proc.stdout)
        self.assertEqual(self.nub("store", "verify").returncode, 0)  # dropped
        two = self.project("two", {"tagged": "^1.0.0"})
        with open(os.path.join(two, "node_modules/tagged/index.js"), "rb") as fh:
            self.assertEqual(fh.read(), data)

    def test_verify_does_not_wait_on_a_fifo(self):
        # a content file replaced by a FIFO: verify hung for good opening it
        # to re-hash it (it waited for a writer); now the package is bad
        # content-addressed files: without the global virtual store
        one = os.path.join(self.tmp, "one")
        write(os.path.join(one, "package.json"),
              json.dumps({"name": "one", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}))
        self.nub("install", "--no-global-virtual-store", cwd=one)
        store = self.env["NUB_STORE_DIR"]
        files = [os.path.join(d, f) for d, _, fs in os.walk(store) for f in fs
                 if os.sep + "files" + os.sep in os.path.join(d, f)]
        victim = next(p for p in files if os.path.getsize(p) > 0)
        os.unlink(victim)
        os.mkfifo(victim)
        proc = self.nub("store", "verify", check=False, timeout=30)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("1 bad", proc.stdout)
        self.assertEqual(self.nub("store", "verify", timeout=30).returncode, 0)

    def test_status_reports_and_changes_nothing(self):
        # pnpm's `store status`: the packages whose store copy changed, exit 1;
        # nothing is dropped (that is verify's); it failed before as an
        # unknown subcommand (exit 2)
        one = self.project("one", {"a": "^1.0.0", "e": "^1.0.0"})
        proc = self.nub("store", "status")
        self.assertIn("0 changed", proc.stdout)
        time.sleep(0.02)
        with open(os.path.join(one, "node_modules/a/index.js"), "a") as f:
            f.write("console.log('TAMPERED')\n")
        for _ in range(2):  # reported, and still there: nothing was dropped
            proc = self.nub("store", "status", check=False)
            self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
            self.assertIn("a@1.0.0:", proc.stdout)
            self.assertIn("1 changed", proc.stdout)
        self.assertEqual(self.nub("store", "verify", check=False).returncode, 1)
        self.assertEqual(self.nub("store", "status").returncode, 0)

    def test_prune_keeps_what_projects_use(self):
        keep = self.project("keep", {"a": "^1.0.0"})
        gone = self.project("gone", {"c": "^1.0.0", "e": "^1.0.0"}, layout="isolated")
        # two peer variants of plugin: one is a package tree (kept by its key
        # too), the other an entry in links/, kept only by following the
        # project's links into the store
        iso = self.project("iso", {"@scope/d": "^1.0.0", "host-a": "1.0.0", "host-b": "1.0.0"},
                           layout="isolated")
        shutil.rmtree(gone)
        out = self.nub("store", "prune").stdout
        self.assertIn("kept what 2 of 3 projects use", out)
        for d, layout in ((keep, "hoisted"), (iso, "isolated")):
            self.assertIn("Already up to date",
                          self.nub("install", "--node-linker", layout, cwd=d).stdout)
        self.assertEqual(self.node_require(iso, "@scope/d")["name"], "@scope/d")
        for host, react in (("host-a", "1.0.0"), ("host-b", "2.0.0")):
            self.assertEqual(self.node_require(iso, host)["deps"],
                             {"plugin": "1.0.0", "react-like": react})
        self.assertEqual(self.node_require(keep, "a")["version"], "1.0.0")
        self.assertEqual(self.nub("store", "verify").returncode, 0)
        # c and e are gone from the store: installing them fetches again
        self.registry.reset_log()
        self.project("again", {"c": "^1.0.0"})
        self.assertTrue(any("/c/-/" in r["path"] for r in self.registry.requests))

    def test_prune_keeps_what_a_file_dependency_uses(self):
        # its dependencies are linked from the directory's own node_modules
        # into the store: the peer variant in links/ is kept by following them
        local = os.path.join(self.tmp, "local")
        write(os.path.join(local, "lib", "package.json"),
              json.dumps({"name": "lib", "version": "1.0.0",
                          "dependencies": {"host-a": "1.0.0", "host-b": "1.0.0"}}))
        write(os.path.join(local, "lib", "index.js"),
              "module.exports = {a: require('host-a').deps, b: require('host-b').deps};\n")
        local = self.project("local", {"lib": "file:./lib"}, layout="isolated")
        self.assertIn("kept what 1 of 1 projects use", self.nub("store", "prune").stdout)
        self.assertIn("Already up to date",
                      self.nub("install", "--node-linker", "isolated", cwd=local).stdout)
        self.assertEqual(self.node_require(local, "lib"),
                         {"a": {"plugin": "1.0.0", "react-like": "1.0.0"},
                          "b": {"plugin": "1.0.0", "react-like": "2.0.0"}})
        self.assertEqual(self.nub("store", "verify").returncode, 0)

    def test_prune_waits_for_a_running_install(self):
        import subprocess
        d = os.path.join(self.tmp, "slow")
        write(os.path.join(d, "package.json"),
              json.dumps({"name": "slow", "version": "1.0.0", "dependencies": {"c": "^1.0.0"}}))
        self.registry.add_fault(r"/c/-/", "delay", seconds=1.5)
        env = dict(self.env)
        inst = subprocess.Popen([self.nub_bin, "install"], cwd=d, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.5)
        proc = self.nub("store", "prune")
        self.assertEqual(inst.wait(timeout=60), 0)
        self.assertIn("waiting", proc.stderr)
        # what the install made is kept: it finished before prune looked
        self.assertIn("Already up to date", self.nub("install", cwd=d).stdout)
        self.assertEqual(self.node_require(d, "c")["version"], "1.0.0")
        inst.stdout.close()
        inst.stderr.close()


class LicensesTest(nubtest.NubTestCase):
    """nub licenses [ls] [--json], as pnpm licenses list prints them: the
    same table and the same JSON from the same installed project, and from
    nub's own install the same but for the folders."""

    def test_as_pnpm_lists_them(self):
        if not nubtest.tool("pnpm"):
            self.skipTest("SKIP: pnpm is not installed")
        d = os.path.join(self.tmp, "pnpm")
        write(os.path.join(d, "package.json"), json.dumps(
            {"name": "p", "version": "1.0.0", "dependencies": {"a": "1.0.0", "c": "1.0.0"},
             "devDependencies": {"dev-only": "1.0.0", "b": "1.0.0"}}))
        write(os.path.join(d, ".npmrc"), "registry=%s\n" % self.registry.url)
        self.pnpm(d, "install")
        pnpm = nubtest.tool("pnpm")
        # (b: 1.0.0 a devDependency, 2.0.0 under c; dev-only is pnpm's "(dev)")
        for args in ([], ["--json"], ["--json", "--prod"], ["--dev"], ["--json", "--dev"],
                     ["--prod"]):
            theirs = self.run_cmd([pnpm, "licenses", "list"] + args, cwd=d).stdout
            self.assertEqual(self.nub("licenses", "ls", *args, cwd=d).stdout, theirs, args)
        mine = os.path.join(self.tmp, "nub")
        shutil.copytree(d, mine, ignore=shutil.ignore_patterns("node_modules"))
        self.nub("install", "--frozen-lockfile", cwd=mine)
        ours = json.loads(self.nub("licenses", "--json", cwd=mine).stdout)
        theirs = json.loads(self.run_cmd([pnpm, "licenses", "list", "--json"], cwd=d).stdout)
        for doc in (ours, theirs):
            for group in doc.values():
                for e in group:
                    e.pop("paths")
        self.assertEqual(ours, theirs)
        self.assertEqual(sorted(e["name"] for e in ours["MIT"]), ["a", "b", "c", "dev-only"])


class ConfigEditTest(nubtest.NubTestCase):
    """nub config set / delete change one .npmrc as npm config set / delete
    do (the user's by default, the project's with --location project), and
    npm reads back what nub wrote; comments and other lines are kept
    (npm's own rewrite drops comments); a key npm does not know is refused,
    as npm refuses it; a credential's value is never printed."""

    def test_set_and_delete_as_npm_reads_them(self):
        if not nubtest.tool("npm"):
            self.skipTest("SKIP: npm is not installed")
        npmrc = os.path.join(self.home, ".npmrc")
        write(npmrc, "# the team's registry\nregistry=%s\n" % self.registry.url)
        self.write_json(os.path.join(self.proj, "package.json"), {"name": "p", "version": "1.0.0"})
        env = {"npm_config_registry": None}
        for args in (("set", "save-exact", "true"), ("set", "init-author-name=A B;c"),
                     ("set", "//127.0.0.1:9/:_authToken", "s3cr3t-token"),
                     ("set", "--location", "project", "init-license=ISC-x")):
            proc = self.nub("config", *args, env=env)
            self.assertNotIn("s3cr3t", proc.stdout + proc.stderr)
        text = read_text(npmrc)
        self.assertTrue(text.startswith("# the team's registry\nregistry="), text)
        npm = nubtest.tool("npm")
        for key, want in (("save-exact", "true"), ("init-author-name", "A B;c"),
                          ("init-license", "ISC-x")):
            got = self.run_cmd([npm, "config", "get", key], env=env).stdout.strip()
            self.assertEqual(got, want, key)
            self.assertEqual(self.nub("config", "get", key, env=env).stdout.strip(), want)
        self.assertNotIn("s3cr3t", self.nub("config", "list", env=env).stdout)
        self.assertEqual(os.stat(os.path.join(self.proj, ".npmrc")).st_mode & 0o777, 0o644)
        self.nub("config", "delete", "save-exact", env=env)
        self.assertEqual(self.run_cmd([npm, "config", "get", "save-exact"], env=env)
                         .stdout.strip(), "false")
        self.assertNotIn("save-exact", read_text(npmrc))
        # a new user file is the user's alone, as npm makes it
        os.remove(npmrc)
        self.nub("config", "set", "save-exact=true", env=env)
        self.assertEqual(os.stat(npmrc).st_mode & 0o777, 0o600)
        # a key npm does not know: refused, nothing written, as npm
        proc = self.nub_fails("config", "set", "save-exactt", "true", env=env)
        self.assertIn("`save-exactt` is not a valid npm option (did you mean save-exact?)",
                      proc.stderr)
        self.assertNotIn("save-exactt", read_text(npmrc))
        self.assertNotEqual(self.run_cmd([npm, "config", "set", "save-exactt", "true"],
                                         env=env, check=False).returncode, 0)


if __name__ == "__main__":
    nubtest.main()
