#!/usr/bin/env python3
"""pnpm's hooks file (.pnpmfile.cjs, .pnpmfile.mjs, pnpm-workspace.yaml's
`pnpmfile`): readPackage runs on the projects' manifests and on every
version resolved, in one Node process, as pnpm 12 runs it; the lockfile
records pnpmfileChecksum, so an edited hooks file outdates it. Differential:
pnpm 12 given the same project writes the same lockfile, and each accepts
the other's frozen.
"""
import os
import shutil

from nubtest import NubTestCase, read, tool, write

HOOKS = """module.exports = { hooks: { readPackage(pkg, ctx) {
  if (pkg.name === 'a') {
    pkg.dependencies.b = '^2.0.0';
    pkg.dependencies.e = '1.0.0';
    ctx.log('a takes b 2 and e');
  }
  if (pkg.name === 'proj') pkg.dependencies.tagged = '^1.0.0';
  return pkg;
} } };
"""


class PnpmfileTest(NubTestCase):

    def project(self, name, hooks=HOOKS, hooks_file=".pnpmfile.cjs", yaml=None):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        self.write_json(os.path.join(d, "package.json"),
                        {"name": "proj", "version": "1.0.0",
                         "dependencies": {"a": "1.0.0", "c": "1.0.0"}})
        write(os.path.join(d, ".npmrc"), "registry=%s\n" % self.registry.url)
        if hooks is not None:
            write(os.path.join(d, hooks_file), hooks)
        if yaml is not None:
            write(os.path.join(d, "pnpm-workspace.yaml"), yaml)
        return d

    def a_deps(self, d):
        """a's dependencies as the installed tree links them: the
        packages beside it in its node_modules (the isolated layout)."""
        here = os.path.dirname(os.path.realpath(os.path.join(d, "node_modules", "a")))
        return {n: self.read_json(os.path.join(here, n, "package.json"))["version"]
                for n in sorted(os.listdir(here)) if n != "a"}

    def test_read_package_as_pnpm_runs_it(self):
        mine = self.project("nub")
        proc = self.nub("install", cwd=mine)
        self.assertIn(".pnpmfile.cjs readPackage: a takes b 2 and e", proc.stderr)
        # the hook's changes, to a registry package and to the project
        self.assertEqual(self.a_deps(mine), {"b": "2.0.0", "e": "1.0.0"})
        self.assertTrue(os.path.isdir(os.path.join(mine, "node_modules", "tagged")))
        lock = read(os.path.join(mine, "nub.lock"))
        self.assertIn("pnpmfileChecksum: sha256-", lock)
        if not tool("pnpm"):
            self.skipTest("SKIP: pnpm is not installed")
        theirs = self.project("pnpm")
        self.pnpm(theirs, "install")
        self.assertEqual(lock, read(os.path.join(theirs, "pnpm-lock.yaml")))

    def test_frozen_takes_pnpm_lockfile_and_an_edit_outdates_it(self):
        theirs = self.project("pnpm")
        self.pnpm(theirs, "install")
        mine = os.path.join(self.tmp, "nub")
        shutil.copytree(theirs, mine, ignore=shutil.ignore_patterns("node_modules"))
        # the project's manifest as the hook leaves it (tagged) answers the
        # lockfile: frozen passes
        self.nub("install", "--frozen-lockfile", cwd=mine)
        self.assertEqual(self.a_deps(mine), {"b": "2.0.0", "e": "1.0.0"})
        for d in (mine, theirs):
            with open(os.path.join(d, ".pnpmfile.cjs"), "a") as f:
                f.write("// edited\n")
        proc = self.nub("install", "--frozen-lockfile", cwd=mine, check=False)
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("pnpmfile", proc.stderr)
        self.assertNotEqual(self.pnpm(theirs, "install", "--frozen-lockfile",
                                      check=False).returncode, 0)
        self.nub("install", cwd=mine)
        self.pnpm(theirs, "install")
        self.assertEqual(read(os.path.join(mine, "pnpm-lock.yaml")),
                         read(os.path.join(theirs, "pnpm-lock.yaml")))

    def test_which_file(self):
        # .pnpmfile.mjs before .pnpmfile.cjs, as pnpm 12 looks
        d = self.project("mjs", hooks="export const hooks = { readPackage(pkg) {\n"
                         "  if (pkg.name === 'a') pkg.dependencies.e = '1.0.0';\n"
                         "  return pkg; } };\n", hooks_file=".pnpmfile.mjs")
        write(os.path.join(d, ".pnpmfile.cjs"), HOOKS)
        self.nub("install", cwd=d)
        self.assertEqual(self.a_deps(d), {"b": "1.0.0", "e": "1.0.0"})
        # pnpm-workspace.yaml's pnpmfile names another
        d = self.project("setting", hooks=None, yaml="pnpmfile: hooks/mine.cjs\n")
        write(os.path.join(d, "hooks", "mine.cjs"), HOOKS)
        self.nub("install", cwd=d)
        self.assertEqual(self.a_deps(d), {"b": "2.0.0", "e": "1.0.0"})
        # --ignore-pnpmfile, ignorePnpmfile: not run, not recorded
        d = self.project("flag")
        self.nub("install", "--ignore-pnpmfile", cwd=d)
        self.assertEqual(self.a_deps(d), {"b": "1.0.0"})
        self.assertNotIn("pnpmfileChecksum", read(os.path.join(d, "nub.lock")))
        d = self.project("ignored", yaml="ignorePnpmfile: true\n")
        self.nub("install", cwd=d)
        self.assertEqual(self.a_deps(d), {"b": "1.0.0"})

    def test_other_projects_tools_do_not_read_it(self):
        # an npm project: npm reads no .pnpmfile.cjs, nor does nub there
        d = self.project("npm")
        self.write_json(os.path.join(d, "package-lock.json"),
                        {"name": "proj", "version": "1.0.0", "lockfileVersion": 3,
                         "requires": True, "packages": {"": {
                             "name": "proj", "version": "1.0.0"}}})
        proc = self.nub("install", cwd=d)
        self.assertNotIn("pnpmfile", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "node_modules", "e")))
        self.assertFalse(os.path.exists(os.path.join(d, "node_modules", "tagged")))

    def test_a_failing_hook_stops_the_install(self):
        throws = ("module.exports = { hooks: { readPackage(pkg) {\n"
                  "  if (pkg.name === 'c') throw new Error('c is not allowed here');\n"
                  "  return pkg; } } };\n")
        d = self.project("throws", hooks=throws)
        proc = self.nub("install", cwd=d, check=False)
        self.assertEqual(proc.returncode, 52, proc.stderr)
        self.assertIn(".pnpmfile.cjs: readPackage on c failed: Error: c is not allowed here",
                      proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "nub.lock")))
        if tool("pnpm"):
            self.assertNotEqual(self.pnpm(self.project("pnpm-throws", hooks=throws),
                                          "install", check=False).returncode, 0)
        d = self.project("broken", hooks="module.exports = {{;\n")
        proc = self.nub("install", cwd=d, check=False)
        self.assertEqual(proc.returncode, 52, proc.stderr)
        self.assertIn(".pnpmfile.cjs: loading it failed: SyntaxError", proc.stderr)
        d = self.project("not-an-object", hooks="module.exports = { hooks: {\n"
                         "  readPackage(pkg) { return pkg.name === 'a' ? 'a' : pkg; } } };\n")
        proc = self.nub("install", cwd=d, check=False)
        self.assertEqual(proc.returncode, 52, proc.stderr)
        self.assertIn("readPackage on a failed", proc.stderr)
        # no node: one line naming the file and the way out
        d = self.project("no-node")
        proc = self.nub("install", cwd=d, check=False, env={"PATH": "/nonexistent"})
        self.assertEqual(proc.returncode, 52, proc.stderr)
        self.assertIn(".pnpmfile.cjs needs Node to run its hooks, and no `node` is on PATH",
                      proc.stderr)
        self.nub("install", "--ignore-pnpmfile", cwd=d, env={"PATH": "/nonexistent"})

    def test_after_all_resolved_as_pnpm_runs_it(self):
        hooks = ("module.exports = { hooks: { afterAllResolved(lockfile, ctx) {\n"
                 "  lockfile.packages['a@1.0.0'].deprecated = 'use b instead';\n"
                 "  ctx.log('packages: ' + Object.keys(lockfile.packages).length);\n"
                 "  return lockfile; } } };\n")
        mine = self.project("nub", hooks=hooks)
        proc = self.nub("install", cwd=mine)
        self.assertIn(".pnpmfile.cjs afterAllResolved: packages: 4", proc.stderr)
        lock = read(os.path.join(mine, "nub.lock"))
        self.assertIn("deprecated: use b instead", lock)
        if not tool("pnpm"):
            self.skipTest("SKIP: pnpm is not installed")
        theirs = self.project("pnpm", hooks=hooks)
        self.pnpm(theirs, "install")
        self.assertEqual(lock, read(os.path.join(theirs, "pnpm-lock.yaml")))
        # a hook that returns nothing fails the install, as pnpm's does
        bad = self.project("bad", hooks="module.exports = { hooks: { afterAllResolved() {} } };\n")
        proc = self.nub("install", cwd=bad, check=False)
        self.assertEqual(proc.returncode, 52, proc.stderr)
        self.assertIn("afterAllResolved did not return a lockfile object", proc.stderr)

    def test_hooks_nub_does_not_run_are_named(self):
        d = self.project("pre", hooks=HOOKS.replace(
            "} } };", "}, preResolution(ctx) { } } };"))
        proc = self.nub("install", cwd=d)
        self.assertIn(".pnpmfile.cjs's preResolution hook is not run by nub", proc.stderr)
        self.assertEqual(self.a_deps(d), {"b": "2.0.0", "e": "1.0.0"})
        # a change readPackage makes beyond the dependency maps: one line
        d = self.project("other-field", hooks="module.exports = { hooks: { readPackage(pkg) {\n"
                         "  if (pkg.name === 'a') pkg.os = ['darwin'];\n"
                         "  return pkg; } } };\n")
        proc = self.nub("install", cwd=d)
        self.assertIn("readPackage changed a's os: nub applies only", proc.stderr)


if __name__ == "__main__":
    import unittest
    unittest.main()
