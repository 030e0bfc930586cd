#!/usr/bin/env python3
"""Build approvals from every home (manifest.h's trusted and denied): pnpm's
allowBuilds map, neverBuiltDependencies and strictDepBuilds (pnpm 12 fails
an install with an unapproved build unless told otherwise), npm 12's
allowScripts and strict-allow-scripts, bun's trustedDependencies.
Differential: the same project installed by pnpm or npm (where installed)
runs the same scripts, and fails where nub fails (exit 51).

`scripted@1.0.0` has a postinstall that writes `postinstall-ran`.
"""
import json
import os
import shutil

import nubtest
from nubtest import NubTestCase, write


def ran(root):
    for d, _, files in os.walk(os.path.join(root, "node_modules")):
        if "postinstall-ran" in files:
            return True
    return False


class ApprovalsTest(NubTestCase):

    def tool(self, name, cwd, args, check=False):
        if name == "npm":
            return self.npm(*args, cwd=cwd, check=check)
        exe = nubtest.tool(name)
        if not exe:
            self.skipTest("SKIP: %s is not installed" % name)
        return self.run_cmd([exe] + list(args), cwd=cwd, check=check,
                            env={"npm_config_registry": None, "PNPM_HOME": None, "CI": None,
                                 "npm_config_store_dir": os.path.join(self.tmp, "pnpm-store")})

    def start(self, name, pj_extra=None):
        """A project depending on scripted with its tool's lockfile (made by
        the tool with scripts off): its folder."""
        where = os.path.join(self.tmp, "start-" + name)
        os.makedirs(where)
        pj = {"name": "proj", "version": "1.0.0", "dependencies": {"scripted": "1.0.0"}}
        self.write_json(os.path.join(where, "package.json"), pj)
        if name == "pnpm":
            write(os.path.join(where, ".npmrc"), "registry=%s\n" % self.registry.url)
            self.tool("pnpm", where, ["install", "--lockfile-only"], check=True)
            self.assertTrue(os.path.exists(os.path.join(where, "pnpm-lock.yaml")))
        else:
            self.tool("npm", where, ["install", "--package-lock-only", "--ignore-scripts"],
                      check=True)
        return where

    def both(self, start, files, pj_extra=None):
        """nub install and the tool's frozen install of copies of start with
        files written (and package.json fields added): (nub's proc, the
        tool's, whether each ran the postinstall)."""
        self.runs = getattr(self, "runs", 0) + 1
        out = []
        for who in ("nub", "tool"):
            d = os.path.join(self.tmp, "%s-%d" % (who, self.runs))
            shutil.copytree(start, d)
            for name, text in files.items():
                write(os.path.join(d, name), text)
            if pj_extra:
                pj = self.read_json(os.path.join(d, "package.json"))
                pj.update(pj_extra)
                self.write_json(os.path.join(d, "package.json"), pj)
            if who == "nub":
                proc = self.nub("install", "--frozen-lockfile", cwd=d, check=False)
            elif os.path.exists(os.path.join(d, "pnpm-lock.yaml")):
                proc = self.tool("pnpm", d, ["install", "--frozen-lockfile"])
            else:
                proc = self.tool("npm", d, ["ci"])
            out.append((proc, ran(d)))
        return out[0][0], out[1][0], out[0][1], out[1][1]

    def test_pnpm(self):
        start = self.start("pnpm")
        reg = ".npmrc"
        base = open(os.path.join(start, reg)).read()
        cases = [
            # (pnpm-workspace.yaml, exits 0, runs)
            ("packages: []\n", False, False),  # pnpm 12: strict by default
            ("allowBuilds:\n  scripted: true\n", True, True),
            ("allowBuilds:\n  scripted@1.0.0: true\n", True, True),
            ("allowBuilds:\n  scripted: false\n", True, False),
            # pnpm 10's lists: pnpm 12 no longer reads them (nub names them)
            ("neverBuiltDependencies:\n  - scripted\n", False, False),
            ("ignoredBuiltDependencies:\n  - scripted\n", False, False),
            ("strictDepBuilds: false\n", True, False),
            ("allowBuilds:\n  scripted@9.9.9: true\nstrictDepBuilds: true\n", False, False),
            # pnpm 12 reads its settings from pnpm-workspace.yaml, not .npmrc
            ("packages: []\n", False, False, "strict-dep-builds=false\n"),
            ("strictDepBuilds: false\n", True, False, "strict-dep-builds=true\n"),
        ]
        for yaml, ok, runs, *npmrc in cases:
            with self.subTest(yaml=yaml, npmrc=npmrc):
                mine, theirs, ran_m, ran_t = self.both(start, {"pnpm-workspace.yaml": yaml,
                                                               reg: base + "".join(npmrc)})
                self.assertEqual(theirs.returncode == 0, ok, theirs.stdout + theirs.stderr)
                self.assertEqual(ran_t, runs)
                self.assertEqual(mine.returncode, 0 if ok else 51, mine.stderr)
                self.assertEqual(ran_m, runs)
                if not ok:
                    self.assertIn("scripted@1.0.0", mine.stderr)
                    self.assertIn('pnpm-workspace.yaml "allowBuilds"', mine.stderr)
                elif not runs and "strictDepBuilds" not in yaml:
                    self.assertNotIn("scripted", mine.stderr)  # a no is not a question

    def test_npm(self):
        start = self.start("npm")
        cases = [
            # (package.json fields, .npmrc, exits 0, runs)
            ({"allowScripts": {"scripted": True}}, "", True, True),
            ({"allowScripts": {"scripted@1.0.0": True}}, "", True, True),
            ({"allowScripts": {"scripted": False}}, "", True, False),
            ({}, "strict-allow-scripts=true\n", False, False),
            ({"allowScripts": {"scripted": False}}, "strict-allow-scripts=true\n", True, False),
        ]
        for extra, npmrc, ok, runs in cases:
            with self.subTest(extra=extra, npmrc=npmrc):
                mine, theirs, ran_m, ran_t = self.both(start, {".npmrc": npmrc}, extra)
                self.assertEqual(theirs.returncode == 0, ok, theirs.stdout + theirs.stderr)
                self.assertEqual(ran_t, runs)
                self.assertEqual(mine.returncode, 0 if ok else 51, mine.stderr)
                self.assertEqual(ran_m, runs)
                if not ok:
                    self.assertIn('package.json "allowScripts"', mine.stderr)

    def test_unapproved_warns_where_the_tool_keeps_approvals(self):
        # npm 12 runs nothing unapproved and says so; nub too, naming npm's home
        start = self.start("npm")
        mine, _, ran_m, _ = self.both(start, {})
        self.assertEqual(mine.returncode, 0, mine.stderr)
        self.assertFalse(ran_m)
        self.assertIn('scripted@1.0.0. Approve it in package.json "allowScripts"', mine.stderr)

    def test_ci_fails_an_unapproved_build(self):
        # a build that silently did not run in CI is a broken deploy found
        # later: with CI set, an unapproved build fails unless the project
        # says to only warn
        start = self.start("npm")
        for npmrc, code in (("", 51), ("strict-allow-scripts=false\n", 0)):
            with self.subTest(npmrc=npmrc):
                d = os.path.join(self.tmp, "ci-%d" % code)
                shutil.copytree(start, d)
                write(os.path.join(d, ".npmrc"), npmrc)
                proc = self.nub("install", cwd=d, env={"CI": "true"}, check=False)
                self.assertEqual(proc.returncode, code, proc.stderr)
                self.assertFalse(ran(d))
                self.assertIn("scripted@1.0.0", proc.stderr)
                if code:
                    self.assertIn("CI is set", proc.stderr.strip().splitlines()[-1])

    def test_yarn_built_false_is_a_denial(self):
        # yarn's dependenciesMeta.<pkg>.built: false: not run, not asked
        # about, not failing CI
        self.make_project({"name": "proj", "version": "1.0.0",
                           "dependencies": {"scripted": "1.0.0"},
                           "dependenciesMeta": {"scripted": {"built": False}}})
        proc = self.nub("install", env={"CI": "true"})
        self.assertFalse(ran(self.proj))
        self.assertNotIn("scripted", proc.stderr)

    def test_yarn_enable_scripts_false(self):
        # berry builds every dependency unless .yarnrc.yml says
        # enableScripts: false; then neither berry nor nub runs one, and
        # nub asks about none (nor fails CI for it)
        berry = nubtest.tool("berry")
        if not berry or not os.path.exists(berry):
            self.skipTest("SKIP: yarn berry is not installed")
        d = os.path.join(self.tmp, "berry")
        os.makedirs(d)
        self.write_json(os.path.join(d, "package.json"),
                        {"name": "proj", "version": "1.0.0",
                         "dependencies": {"scripted": "1.0.0"}})
        write(os.path.join(d, ".yarnrc.yml"),
              'nodeLinker: node-modules\nnpmRegistryServer: "%s"\nunsafeHttpWhitelist:\n'
              '  - 127.0.0.1\nenableTelemetry: false\nenableGlobalCache: false\n'
              'enableScripts: false\n' % self.registry.url.rstrip("/"))
        env = {"YARN_GLOBAL_FOLDER": os.path.join(self.tmp, "berry-global"),
               "YARN_ENABLE_TELEMETRY": "0"}
        self.run_cmd([berry, "install"], cwd=d, env=env, timeout=300)
        self.assertFalse(ran(d))
        shutil.rmtree(os.path.join(d, "node_modules"))
        proc = self.nub("install", "--frozen-lockfile", cwd=d, env={"CI": "true"})
        self.assertFalse(ran(d))
        self.assertNotIn("scripted", proc.stderr)
        # without it, berry builds it; nub waits for an approval (and CI fails)
        write(os.path.join(d, ".yarnrc.yml"),
              open(os.path.join(d, ".yarnrc.yml")).read().replace("enableScripts: false\n", ""))
        shutil.rmtree(os.path.join(d, "node_modules"))
        proc = self.nub("install", "--frozen-lockfile", cwd=d, env={"CI": "true"}, check=False)
        self.assertEqual(proc.returncode, 51, proc.stderr)

    def approve_then_tool(self, name):
        """nub install leaves the build waiting; nub approve-builds lists it,
        then approves it in the tool's home and runs it; the tool's own
        frozen install of the result runs it too. The project's folder."""
        d = os.path.join(self.tmp, "approve-" + name)
        shutil.copytree(self.start(name), d)
        first = self.nub("install", "--frozen-lockfile", cwd=d, check=False)
        self.assertEqual(first.returncode, 51 if name == "pnpm" else 0, first.stderr)
        self.assertIn("nub approve-builds", first.stderr)
        self.assertFalse(ran(d))
        listed = self.nub("approve-builds", cwd=d)
        self.assertIn("  scripted@1.0.0\n", listed.stdout)
        self.assertFalse(ran(d))
        done = self.nub("approve-builds", "--all", cwd=d)
        self.assertIn("approved scripted@1.0.0", done.stdout)
        self.assertTrue(ran(d), done.stdout + done.stderr)
        again = self.nub("approve-builds", cwd=d)
        self.assertIn("no dependency build waits", again.stdout)
        self.assertEqual(self.nub("install", "--frozen-lockfile", cwd=d, check=False).returncode,
                         0)
        theirs = os.path.join(self.tmp, "theirs-" + name)
        shutil.copytree(d, theirs, ignore=shutil.ignore_patterns("node_modules"))
        proc = (self.tool("pnpm", theirs, ["install", "--frozen-lockfile"]) if name == "pnpm"
                else self.tool("npm", theirs, ["ci"]))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertTrue(ran(theirs), "%s did not run the approved build" % name)
        return d

    def test_approve_builds_pnpm(self):
        d = self.approve_then_tool("pnpm")
        with open(os.path.join(d, "pnpm-workspace.yaml")) as f:
            self.assertIn("allowBuilds:\n  scripted: true\n", f.read())

    def test_approve_builds_npm(self):
        d = self.approve_then_tool("npm")
        pj = self.read_json(os.path.join(d, "package.json"))
        self.assertEqual(pj["allowScripts"], {"scripted@1.0.0": True})

    def test_approve_builds_named_and_unknown(self):
        d = os.path.join(self.tmp, "named")
        shutil.copytree(self.start("npm"), d)
        self.nub("install", cwd=d)
        # a name nothing waits for is approved as named (npm's allow-scripts
        # takes any name); the waiting one stays waiting
        out = self.nub("approve-builds", "other-pkg", cwd=d)
        self.assertIn("approved other-pkg", out.stdout)
        self.assertIn("  scripted@1.0.0", out.stdout)
        self.assertFalse(ran(d))
        bad = self.nub("approve-builds", "../x", cwd=d, check=False)
        self.assertEqual(bad.returncode, 2, bad.stderr)
        out = self.nub("approve-builds", "scripted", cwd=d)
        self.assertTrue(ran(d))
        # approved, it no longer waits: nothing is said to wait
        self.assertIn("approved scripted", out.stdout)
        self.assertNotIn("still wait", out.stdout)
        pj = self.read_json(os.path.join(d, "package.json"))
        self.assertEqual(pj["allowScripts"], {"other-pkg": True, "scripted@1.0.0": True})


if __name__ == "__main__":
    nubtest.main()
