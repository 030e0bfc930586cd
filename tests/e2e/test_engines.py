#!/usr/bin/env python3
"""engines.node, judged as the project's tool judges it, against the node on
PATH: npm (checkEngine) and pnpm (packageIsInstallable) leave out an
optional package the node does not run, warn of another, and fail under
engine-strict (npm's .npmrc, pnpm-workspace.yaml's engineStrict); bun
checks none. Differential: the same lockfile installed by the tool and by
nub gives the same tree.

future-node@1.0.0 wants node >=99; opt-future@1.0.0 has it as an optional
dependency.
"""
import os
import shutil

from nubtest import NubTestCase, tool, write


class EnginesTest(NubTestCase):

    def project(self, name, deps, extra=None):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        self.write_json(os.path.join(d, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": deps})
        write(os.path.join(d, ".npmrc"), "registry=%s\n" % self.registry.url)
        for rel, text in (extra or {}).items():
            write(os.path.join(d, rel), text)
        return d

    def copy(self, src, name):
        dst = os.path.join(self.tmp, name)
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("node_modules"))
        return dst

    def test_npm(self):
        theirs = self.project("npm", {"opt-future": "1.0.0", "a": "1.0.0"})
        self.npm("install", "--ignore-scripts", cwd=theirs)
        mine = self.copy(theirs, "nub")
        proc = self.nub("ci", cwd=mine)
        self.assertNotIn("wants node", proc.stderr)
        # the optional package the node does not run is left out, as npm ci
        self.npm("ci", "--ignore-scripts", cwd=theirs)
        self.assertFalse(os.path.exists(os.path.join(mine, "node_modules", "future-node")))
        self.assertEqual(self.installed(mine), self.installed(theirs))
        # one that is not optional: warned of, installed; an error under
        # engine-strict, for both
        theirs = self.project("npm-direct", {"future-node": "1.0.0"})
        self.npm("install", "--ignore-scripts", cwd=theirs)
        mine = self.copy(theirs, "nub-direct")
        proc = self.nub("ci", cwd=mine)
        self.assertIn("node_modules/future-node (future-node@1.0.0) wants node >=99.0.0; "
                      "the node on PATH is", proc.stderr)
        self.assertTrue(os.path.exists(os.path.join(mine, "node_modules", "future-node")))
        for d in (mine, theirs):
            with open(os.path.join(d, ".npmrc"), "a") as f:
                f.write("engine-strict=true\n")
            shutil.rmtree(os.path.join(d, "node_modules"), ignore_errors=True)
        proc = self.nub("ci", cwd=mine, check=False)
        self.assertEqual(proc.returncode, 80, proc.stderr)
        self.assertIn("engine-strict is set", proc.stderr)
        self.assertNotEqual(self.npm("ci", "--ignore-scripts", cwd=theirs,
                                     check=False).returncode, 0)
        self.nub("ci", "--force", cwd=mine)

    def test_pnpm(self):
        theirs = self.project("pnpm", {"opt-future": "1.0.0", "a": "1.0.0"})
        self.pnpm(theirs, "install")
        mine = self.copy(theirs, "nub")
        self.nub("install", "--frozen-lockfile", cwd=mine)
        self.assertFalse(os.path.exists(os.path.join(theirs, "node_modules", ".pnpm",
                                                     "future-node@1.0.0")))
        # (opt-future's dependencies sit beside it in the isolated layout)
        here = os.path.dirname(os.path.realpath(os.path.join(mine, "node_modules", "opt-future")))
        self.assertNotIn("future-node", os.listdir(here))
        # not optional: a warning; engineStrict: an error, for both
        theirs = self.project("pnpm-direct", {"future-node": "1.0.0"})
        self.pnpm(theirs, "install")
        mine = self.copy(theirs, "nub-direct")
        proc = self.nub("install", "--frozen-lockfile", cwd=mine)
        self.assertIn("future-node@1.0.0 wants node >=99.0.0", proc.stderr)
        for d in (mine, theirs):
            write(os.path.join(d, "pnpm-workspace.yaml"), "engineStrict: true\n")
            shutil.rmtree(os.path.join(d, "node_modules"), ignore_errors=True)
        proc = self.nub("install", "--frozen-lockfile", cwd=mine, check=False)
        self.assertEqual(proc.returncode, 80, proc.stderr)
        self.assertNotEqual(self.pnpm(theirs, "install", "--frozen-lockfile",
                                      check=False).returncode, 0)

    def yarn(self, cwd, *args, check=True):
        exe = tool("yarn")
        if not exe:
            self.skipTest("SKIP: yarn 1 is not installed")
        return self.run_cmd([exe] + list(args) + [
            "--ignore-scripts", "--non-interactive", "--registry", self.registry.url,
            "--cache-folder", os.path.join(self.tmp, "yarn-cache")], cwd=cwd, check=check)

    def test_yarn1_reads_engines_from_the_packages(self):
        # yarn 1 leaves out an optional package the node does not run and
        # fails on another (its package.json says engines; yarn.lock does not)
        theirs = self.project("yarn", {"opt-future": "1.0.0", "a": "1.0.0"})
        self.yarn(theirs, "install")
        mine = self.copy(theirs, "nub")
        self.nub("install", "--frozen-lockfile", cwd=mine)
        self.assertFalse(os.path.exists(os.path.join(theirs, "node_modules", "future-node")))
        self.assertEqual(self.installed(mine), [p for p in self.installed(theirs)
                                                if ".yarn-integrity" not in p])
        theirs = self.project("yarn-direct", {"future-node": "1.0.0"})
        self.assertNotEqual(self.yarn(theirs, "install", check=False).returncode, 0)
        self.yarn(theirs, "install", "--ignore-engines")
        mine = self.copy(theirs, "nub-direct")
        proc = self.nub("install", "--frozen-lockfile", cwd=mine, check=False)
        self.assertEqual(proc.returncode, 80, proc.stderr)
        self.assertIn('future-node@1.0.0: the engine "node" is incompatible', proc.stderr)
        self.nub("install", "--frozen-lockfile", "--force", cwd=mine)

    def test_bun_checks_none(self):
        theirs = self.project("bun", {"opt-future": "1.0.0", "future-node": "1.0.0"})
        self.bun(theirs, "install", "--ignore-scripts")
        mine = self.copy(theirs, "nub")
        proc = self.nub("install", "--frozen-lockfile", cwd=mine)
        self.assertNotIn("wants node", proc.stderr)
        self.assertEqual(self.installed(mine), self.installed(theirs))

    def test_dev_engines_as_npm(self):
        # npm checks the project's devEngines before it installs: the same
        # verdicts from nub (exit 80 where npm fails)
        here = "linux" if os.uname().sysname == "Linux" else "darwin"
        cases = [
            # (devEngines, npm and nub install)
            ({"runtime": {"name": "node", "version": ">=99"}}, False),
            ({"runtime": {"name": "node", "version": ">=99", "onFail": "warn"}}, True),
            ({"runtime": {"name": "node", "version": ">=99", "onFail": "ignore"}}, True),
            ({"runtime": {"name": "node", "version": ">=10"}}, True),
            ({"runtime": {"name": "deno"}}, False),
            ({"os": {"name": "win32"}}, False),
            ({"os": [{"name": "win32"}, {"name": here}]}, True),
            ({"cpu": [{"name": "mips"}, {"name": "s390x", "onFail": "warn"}]}, True),
            ({"runtime": {"name": "node", "version": ">=99", "onFail": "download"}}, False),
            ({"runtime": {"name": "node", "bogus": "x"}}, False),
            ({"engine": {"name": "node"}}, False),
        ]
        for i, (dev, ok) in enumerate(cases):
            with self.subTest(devEngines=dev):
                out = []
                for who in ("nub", "npm"):
                    d = os.path.join(self.tmp, "dev-%s-%d" % (who, i))
                    os.makedirs(d)
                    self.write_json(os.path.join(d, "package.json"),
                                    {"name": "proj", "version": "1.0.0",
                                     "dependencies": {"a": "1.0.0"}, "devEngines": dev})
                    write(os.path.join(d, ".npmrc"), "registry=%s\n" % self.registry.url)
                    self.write_json(os.path.join(d, "package-lock.json"), {
                        "name": "proj", "version": "1.0.0", "lockfileVersion": 3,
                        "requires": True, "packages": {"": {
                            "name": "proj", "version": "1.0.0",
                            "dependencies": {"a": "1.0.0"}}}})
                    out.append(self.nub("install", cwd=d, check=False) if who == "nub" else
                               self.npm("install", "--ignore-scripts", cwd=d, check=False))
                mine, theirs = out
                self.assertEqual(theirs.returncode == 0, ok, theirs.stderr)
                self.assertEqual(mine.returncode, 0 if ok else
                                 (70 if "bogus" in str(dev) or "engine" in dev else 80),
                                 mine.stderr)
                if "warn" in str(dev) and "s390x" not in str(dev):
                    self.assertIn("devEngines.runtime wants node >=99", mine.stderr)
        # --force: an error becomes a warning, for both
        d = os.path.join(self.tmp, "dev-nub-0")
        self.assertIn("devEngines.runtime", self.nub("install", "--force", cwd=d).stderr)

    def test_no_node_checks_nothing(self):
        # no node on PATH: nothing to judge by (and nothing to run scripts)
        d = self.project("npm", {"opt-future": "1.0.0"})
        self.write_json(os.path.join(d, "package-lock.json"), {
            "name": "proj", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {
                "": {"name": "proj", "version": "1.0.0",
                     "dependencies": {"opt-future": "1.0.0"}},
                "node_modules/opt-future": {
                    "version": "1.0.0",
                    "resolved": self.registry.tarball_url("opt-future", "1.0.0"),
                    "integrity": self.registry.integrity("opt-future", "1.0.0"),
                    "optionalDependencies": {"future-node": "^1.0.0"}},
                "node_modules/future-node": {
                    "version": "1.0.0",
                    "resolved": self.registry.tarball_url("future-node", "1.0.0"),
                    "integrity": self.registry.integrity("future-node", "1.0.0"),
                    "optional": True, "engines": {"node": ">=99.0.0"}}}})
        self.nub("ci", cwd=d, env={"PATH": "/nonexistent"})
        self.assertTrue(os.path.exists(os.path.join(d, "node_modules", "future-node")))


if __name__ == "__main__":
    import unittest
    unittest.main()
