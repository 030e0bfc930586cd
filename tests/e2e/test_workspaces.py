#!/usr/bin/env python3
"""Workspaces (monorepos) against the local test registry: discovery from
package.json "workspaces" (array and object forms, globs, '!' exclusions)
and pnpm-workspace.yaml, installing from inside a member, the workspace:
protocols, a member winning over the registry package of its name, catalogs,
one nub.lock importer per member, each member's node_modules and .bin,
members' own build scripts in dependency order, --filter, and the one-line
errors for bad workspaces.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_workspaces.py
     (or ctest -R e2e.workspaces)
"""

import json
import os
import re
import shutil

import nubtest
from nubtest import write


class WorkspaceTestCase(nubtest.NubTestCase):

    def member(self, rel, doc, index=None):
        d = os.path.join(self.proj, rel)
        os.makedirs(d, exist_ok=True)
        self.write_json(os.path.join(d, "package.json"), doc)
        if index is None:
            index = "module.exports = {name: %s, version: %s, local: true};\n" % (
                json.dumps(doc.get("name")), json.dumps(doc.get("version")))
        write(os.path.join(d, "index.js"), index)
        return d

    def monorepo(self, workspaces=("packages/*",), root_deps=None):
        root = {"name": "mono", "version": "1.0.0", "private": True,
                "workspaces": list(workspaces)}
        if root_deps:
            root["dependencies"] = root_deps
        self.make_project(root)
        self.member("packages/lib", {"name": "@mono/lib", "version": "1.2.0",
                                     "dependencies": {"a": "^1.0.0"}},
                    index="module.exports = {name: '@mono/lib', a: require('a').version};\n")
        self.member("packages/app", {"name": "app", "version": "0.1.0",
                                     "dependencies": {"@mono/lib": "workspace:*",
                                                      "b": "^2.0.0"}})
        return self.proj

    def lock(self):
        with open(os.path.join(self.proj, "nub.lock")) as f:
            return f.read()


class DiscoveryTest(WorkspaceTestCase):

    def test_members_get_their_dependencies(self):
        self.monorepo()
        self.nub("install")
        app = os.path.join(self.proj, "packages/app")
        lib = os.path.join(self.proj, "packages/lib")
        self.assertEqual(os.readlink(os.path.join(app, "node_modules/@mono/lib")),
                         "../../../lib")
        self.assertEqual(self.node_require(app, "b")["version"], "2.0.0")
        self.assertEqual(self.node_require(app, "@mono/lib"), {"name": "@mono/lib",
                                                              "a": "1.0.0"})
        self.assertEqual(self.node_require(lib, "a")["version"], "1.0.0")
        # a member's dependency is not the root's
        self.assertFalse(os.path.lexists(os.path.join(self.proj, "node_modules/b")))
        lock = self.lock()
        self.assertIn("\n  packages/app:\n", lock)
        self.assertIn("\n  packages/lib:\n", lock)
        self.assertIn("specifier: workspace:*\n        version: link:../lib\n", lock)

    def test_no_op_then_member_change(self):
        self.monorepo()
        self.nub("install")
        self.assertIn("Already up to date", self.nub("install").stdout)
        pj = os.path.join(self.proj, "packages/lib/package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["e"] = "^1.0.0"
        self.write_json(pj, doc)
        out = self.nub("install")
        self.assertNotIn("Already up to date", out.stdout)
        lib = os.path.join(self.proj, "packages/lib")
        self.assertEqual(self.node_require(lib, "e")["version"], "1.0.0")
        self.assertIn("Already up to date", self.nub("install").stdout)

    def test_new_member_is_noticed(self):
        self.monorepo()
        self.nub("install")
        self.member("packages/extra", {"name": "extra", "version": "1.0.0",
                                       "dependencies": {"e": "^1.0.0"}})
        self.nub("install")
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/extra"),
                                           "e")["version"], "1.0.0")
        self.assertIn("packages/extra:", self.lock())

    def test_install_inside_a_member_installs_the_workspace(self):
        self.monorepo()
        app = os.path.join(self.proj, "packages/app")
        self.nub("install", cwd=app)
        self.assertTrue(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.assertFalse(os.path.exists(os.path.join(app, "nub.lock")))
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/lib"),
                                           "a")["version"], "1.0.0")
        self.assertIn("Already up to date", self.nub("install", cwd=app).stdout)

    def test_object_form_globstar_and_exclusion(self):
        self.make_project({"name": "mono", "version": "1.0.0",
                           "workspaces": {"packages": ["libs/**", "!libs/skip"]}})
        self.member("libs/x", {"name": "x", "version": "1.0.0",
                               "dependencies": {"a": "^1.0.0"}})
        self.member("libs/deep/y", {"name": "y", "version": "1.0.0",
                                    "dependencies": {"x": "workspace:^"}})
        self.member("libs/skip", {"name": "skip", "version": "1.0.0",
                                  "dependencies": {"e": "^1.0.0"}})
        self.nub("install")
        lock = self.lock()
        self.assertIn("libs/x:", lock)
        self.assertIn("libs/deep/y:", lock)
        self.assertNotIn("libs/skip", lock)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "libs/skip/node_modules")))
        y = os.path.join(self.proj, "libs/deep/y")
        self.assertEqual(self.node_require(y, "x")["local"], True)

    def test_pnpm_workspace_yaml(self):
        self.make_project({"name": "mono", "version": "1.0.0"})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - 'packages/*'\n  - '!packages/ignored'\n")
        self.member("packages/one", {"name": "one", "version": "1.0.0",
                                     "dependencies": {"a": "^1.0.0", "two": "workspace:~"}})
        self.member("packages/two", {"name": "two", "version": "2.0.0"})
        self.member("packages/ignored", {"name": "ignored", "version": "1.0.0"})
        self.nub("install")
        one = os.path.join(self.proj, "packages/one")
        self.assertEqual(self.node_require(one, "two")["version"], "2.0.0")
        self.assertNotIn("packages/ignored", self.lock())
        # the yaml is an input: editing it is not "up to date"
        write(os.path.join(self.proj, "pnpm-workspace.yaml"), "packages:\n  - 'packages/*'\n")
        self.nub("install")
        self.assertIn("packages/ignored:", self.lock())

    def test_empty_glob_warns(self):
        self.make_project({"name": "mono", "version": "1.0.0",
                           "workspaces": ["packages/*", "nothing-here/*"]})
        self.member("packages/one", {"name": "one", "version": "1.0.0"})
        out = self.nub("install")
        self.assertIn("nothing-here/*", out.stderr)
        self.assertIn("matches no package", out.stderr)


class ProtocolTest(WorkspaceTestCase):

    def test_local_package_wins_over_the_registry(self):
        # "b" is on the registry (1.0.0 and 2.0.0); the workspace has its own
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"],
                           "dependencies": {"b": "^1.0.0"}})
        self.member("packages/b", {"name": "b", "version": "1.5.0"})
        self.member("packages/app", {"name": "app", "version": "1.0.0",
                                     "dependencies": {"b": "^1.0.0"}})
        self.nub("install")
        self.assertEqual(self.node_require(self.proj, "b"), {"name": "b", "version": "1.5.0",
                                                            "local": True})
        app = os.path.join(self.proj, "packages/app")
        self.assertEqual(self.node_require(app, "b")["local"], True)
        self.assertEqual(os.readlink(os.path.join(self.proj, "node_modules/b")), "../packages/b")
        # a range the member does not satisfy comes from the registry
        doc = self.read_json(os.path.join(app, "package.json"))
        doc["dependencies"]["b"] = "^2.0.0"
        self.write_json(os.path.join(app, "package.json"), doc)
        self.nub("install")
        self.assertEqual(self.node_require(app, "b"), {"name": "b", "version": "2.0.0",
                                                      "deps": {}})

    def test_workspace_range_alias_and_path(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        self.member("packages/core", {"name": "core", "version": "3.1.0"})
        self.member("packages/app", {"name": "app", "version": "1.0.0",
                                     "dependencies": {"core": "workspace:^3.0.0",
                                                      "kernel": "workspace:core@*",
                                                      "viapath": "workspace:../core"}})
        self.nub("install")
        app = os.path.join(self.proj, "packages/app")
        for alias in ("core", "kernel", "viapath"):
            self.assertEqual(self.node_require(app, alias)["version"], "3.1.0")
        self.assertIn("specifier: workspace:^3.0.0\n        version: link:../core", self.lock())

    def test_workspace_version_not_satisfied(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        self.member("packages/core", {"name": "core", "version": "1.0.0"})
        self.member("packages/app", {"name": "app", "version": "1.0.0",
                                     "dependencies": {"core": "workspace:^2.0.0"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 72, proc.stderr)
        self.assertIn("packages/app/package.json depends on core@workspace:^2.0.0", proc.stderr)
        self.assertIn("packages/core is 1.0.0", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))

    def test_workspace_names_no_member(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        self.member("packages/app", {"name": "app", "version": "1.0.0",
                                     "dependencies": {"ghost": "workspace:*"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 72, proc.stderr)
        self.assertIn("no package of the workspace is named ghost", proc.stderr)
        self.assertEqual(self.registry.requests_for("ghost") if hasattr(
            self.registry, "requests_for") else [], [])

    def test_workspace_outside_a_workspace(self):
        self.make_project({"name": "solo", "version": "1.0.0",
                           "dependencies": {"x": "workspace:*"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 72, proc.stderr)
        self.assertIn("not in a workspace", proc.stderr)

    def test_two_members_one_name(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        self.member("packages/one", {"name": "same", "version": "1.0.0"})
        self.member("packages/two", {"name": "same", "version": "2.0.0"})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 72, proc.stderr)
        self.assertIn("two workspace packages are named same: packages/one and packages/two",
                      proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))

    def test_catalogs(self):
        self.make_project({"name": "mono", "version": "1.0.0"})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - packages/*\ncatalog:\n  b: ^1.0.0\ncatalogs:\n  next:\n"
              "    b: ^2.0.0\n")
        self.member("packages/old", {"name": "old", "version": "1.0.0",
                                     "dependencies": {"b": "catalog:"}})
        self.member("packages/new", {"name": "new", "version": "1.0.0",
                                     "dependencies": {"b": "catalog:next"}})
        self.nub("install")
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/old"),
                                           "b")["version"], "1.0.0")
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/new"),
                                           "b")["version"], "2.0.0")
        self.assertIn("specifier: 'catalog:'", self.lock())

    def test_catalog_change_re_resolves(self):
        self.make_project({"name": "mono", "version": "1.0.0"})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - packages/*\ncatalog:\n  b: ^1.0.0\n")
        one = self.member("packages/one", {"name": "one", "version": "1.0.0",
                                           "dependencies": {"b": "catalog:"}})
        self.nub("install")
        self.assertEqual(self.node_require(one, "b")["version"], "1.0.0")
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - packages/*\ncatalog:\n  b: ^2.0.0\n")
        self.nub("install")
        self.assertEqual(self.node_require(one, "b")["version"], "2.0.0")
        self.assertIn("catalogs:\n  default:\n    b:\n      specifier: ^2.0.0\n"
                      "      version: 2.0.0\n", self.lock())
        # with the lockfile in sync, --frozen-lockfile accepts it
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.node_require(one, "b")["version"], "2.0.0")

    def test_bun_catalog_in_package_json(self):
        self.make_project({"name": "mono", "version": "1.0.0",
                           "workspaces": {"packages": ["packages/*"],
                                          "catalog": {"b": "^2.0.0"}}})
        self.member("packages/one", {"name": "one", "version": "1.0.0",
                                     "dependencies": {"b": "catalog:"}})
        self.nub("install")
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/one"),
                                           "b")["version"], "2.0.0")

    def test_missing_catalog_entry(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        self.member("packages/one", {"name": "one", "version": "1.0.0",
                                     "dependencies": {"b": "catalog:"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 72, proc.stderr)
        self.assertIn("default catalog has no entry", proc.stderr)


class PnpmLockfileTest(WorkspaceTestCase):
    """nub.lock of a workspace is the pnpm-lock.yaml pnpm 12 writes for the
    same input, byte for byte (pnpm from PATH: ci/test.sh installs it)."""

    def pnpm_lockfile_only(self, pnpm, ignore=None):
        """pnpm install --lockfile-only in a copy of the project, against
        the test registry: the copy's path."""
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=ignore)
        write(os.path.join(theirs, ".npmrc"), "registry=%s\n" % self.registry.url)
        self.run_cmd([pnpm, "install", "--lockfile-only", "--ignore-scripts"], cwd=theirs,
                     env={"npm_config_registry": None, "PNPM_HOME": None,
                          "npm_config_store_dir": os.path.join(self.tmp, "pnpm-store")})
        return theirs

    def pnpm_bytes_then_frozen(self, pnpm):
        """nub.lock is pnpm's lockfile byte for byte, and pnpm's lockfile
        installs frozen: pnpm's lockfile's text."""
        theirs = self.pnpm_lockfile_only(pnpm)
        with open(os.path.join(theirs, "pnpm-lock.yaml")) as f:
            want = f.read()
        self.nub("install", "--lockfile-only")
        self.assertEqual(self.lock(), want)
        os.remove(os.path.join(self.proj, "nub.lock"))
        shutil.copy(os.path.join(theirs, "pnpm-lock.yaml"), self.proj)
        self.nub("install", "--frozen-lockfile")
        return want

    def test_same_bytes_as_pnpm(self):
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "dependencies": {"e": "^1.0.0"}})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - packages/*\ncatalog:\n  b: ^2.0.0\n")
        self.member("packages/lib", {"name": "@mono/lib", "version": "1.2.0",
                                     "dependencies": {"a": "^1.0.0"}})
        self.member("packages/app", {"name": "app", "version": "0.1.0",
                                     "dependencies": {"@mono/lib": "workspace:*", "b": "catalog:",
                                                      "peer-host": "^1.0.0"},
                                     "devDependencies": {"c": "^1.0.0", "react-like": "^2.0.0"}})
        theirs = self.pnpm_lockfile_only(pnpm)
        self.nub("install", "--lockfile-only")
        with open(os.path.join(theirs, "pnpm-lock.yaml")) as f:
            self.assertEqual(self.lock(), f.read())


    def test_a_plain_range_takes_the_registry_as_pnpm_does(self):
        # pnpm links a member for workspace: specs only (linkWorkspacePackages
        # is false by default): app's "b": "^1.0.0" is the registry's b, not
        # the member named b; with linkWorkspacePackages: true it is the member
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        for link in (False, True):
            with self.subTest(linkWorkspacePackages=link):
                shutil.rmtree(self.proj, ignore_errors=True)
                os.makedirs(self.proj)
                self.make_project({"name": "mono", "version": "1.0.0", "private": True})
                write(os.path.join(self.proj, "pnpm-workspace.yaml"),
                      "packages:\n  - packages/*\n" +
                      ("linkWorkspacePackages: true\n" if link else ""))
                self.member("packages/b", {"name": "b", "version": "1.0.0"})
                self.member("packages/app", {"name": "app", "version": "0.1.0",
                                             "dependencies": {"a": "^1.0.0"}})
                theirs = os.path.join(self.tmp, "theirs")
                shutil.rmtree(theirs, ignore_errors=True)
                shutil.copytree(self.proj, theirs)
                write(os.path.join(theirs, ".npmrc"), "registry=%s\n" % self.registry.url)
                env = {"npm_config_registry": None, "PNPM_HOME": None,
                       "npm_config_store_dir": os.path.join(self.tmp, "pnpm-store")}
                self.run_cmd([pnpm, "install", "--lockfile-only", "--ignore-scripts"],
                             cwd=theirs, env=env)
                shutil.copy(os.path.join(theirs, "pnpm-lock.yaml"), self.proj)
                # the lockfile falls behind package.json: both resolve again
                for where in (self.proj, theirs):
                    app = os.path.join(where, "packages", "app", "package.json")
                    doc = self.read_json(app)
                    doc["dependencies"]["b"] = "^1.0.0"
                    self.write_json(app, doc)
                self.run_cmd([pnpm, "install", "--lockfile-only", "--ignore-scripts"],
                             cwd=theirs, env=env)
                self.nub("install", "--lockfile-only")
                with open(os.path.join(theirs, "pnpm-lock.yaml")) as f:
                    want = f.read()
                with open(os.path.join(self.proj, "pnpm-lock.yaml")) as f:
                    self.assertEqual(f.read(), want)
                self.assertEqual("link:../b" in want, link)


    def test_a_member_without_a_name(self):
        # pnpm takes a workspace package without a "name" (vite's test
        # fixtures): an importer known by its folder
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n")
        self.member("packages/fixture", {"dependencies": {"a": "^1.0.0"}})
        self.member("packages/app", {"name": "app", "version": "1.0.0",
                                     "dependencies": {"b": "^2.0.0"}})
        self.pnpm_bytes_then_frozen(pnpm)
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/fixture"),
                                           "a")["version"], "1.0.0")

    def test_overrides_of_pnpm_workspace_yaml(self):
        # pnpm 10+ keeps overrides in pnpm-workspace.yaml: a's b@^1 becomes
        # b@2.0.0, in the resolve and in the lockfile's check (vite's
        # "rolldown: $rolldown", a reference to the root's own spec)
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "dependencies": {"a": "^1.0.0"},
                           "devDependencies": {"b": "2.0.0"}})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - packages/*\noverrides:\n  b: $b\n")
        self.member("packages/app", {"name": "app", "version": "1.0.0"})
        self.nub("install")
        self.assertEqual(self.node_require(os.path.join(self.proj, "node_modules", "a"),
                                           "b")["version"], "2.0.0")
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed: its lockfile is left out")
        theirs = self.pnpm_lockfile_only(
            pnpm, ignore=shutil.ignore_patterns("node_modules", "nub.lock"))
        os.remove(os.path.join(self.proj, "nub.lock"))
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        shutil.copy(os.path.join(theirs, "pnpm-lock.yaml"), self.proj)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.node_require(os.path.join(self.proj, "node_modules", "a"),
                                           "b")["version"], "2.0.0")

    def test_settings_nub_does_not_apply_are_named(self):
        # a team's settings are applied or named: each one nub does not
        # apply gets its line, and the install goes on
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "dependencies": {"a": "^1.0.0"},
                           "pnpm": {"peerDependencyRules": {"allowedVersions": {"b": "*"}}}})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - packages/*\nminimumReleaseAge: 1440\ntrustPolicy: no-downgrade\n"
              "configDependencies:\n  my-config: '1.0.0+sha512-AAAA'\n"
              "strictPeerDependencies: true\nallowBuilds:\n  esbuild: true\n"
              "packageExtensions:\n  a:\n    dependencies:\n      e: ^1.0.0\n")
        write(os.path.join(self.proj, ".pnpmfile.cjs"),
              "module.exports = {hooks: {preResolution() {}}};\n")
        self.member("packages/app", {"name": "app", "version": "1.0.0"})
        proc = self.nub("install")
        # (minimumReleaseAge, allowBuilds, strictPeerDependencies,
        # packageExtensions and readPackage are applied: test_age_gate.py,
        # test_approvals.py, test_peer_rules.py, test_package_extensions_as_pnpm,
        # test_pnpmfile.py)
        self.assertNotIn("minimumReleaseAge", proc.stderr)
        self.assertNotIn("allowBuilds", proc.stderr)
        self.assertNotIn("strictPeerDependencies", proc.stderr)
        self.assertNotIn("packageExtensions", proc.stderr)
        self.assertNotIn("trustPolicy", proc.stderr)  # (applied: test_trust_policy.py)
        for line in ("pnpm-workspace.yaml's configDependencies is not applied by nub",
                     "package.json's pnpm.peerDependencyRules is not applied by nub",
                     ".pnpmfile.cjs's preResolution hook is not run by nub"):
            self.assertEqual(proc.stderr.count(line), 1, proc.stderr)

    def test_package_extensions_as_pnpm(self):
        # pnpm-workspace.yaml's packageExtensions add to the manifests they
        # select (the manifest's own entries win): nub.lock is pnpm's
        # lockfile byte for byte (its packageExtensionsChecksum too), pnpm's
        # installs frozen, and a change of them is a change of the lockfile
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "dependencies": {"a": "^1.0.0", "peer-host": "1.0.0"}})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - packages/*\npackageExtensions:\n  a@1:\n    dependencies:\n"
              "      c: ^1.0.0\n      b: 2.0.0\n  a@2:\n    dependencies:\n      e: ^1.0.0\n"
              "  peer-host:\n    peerDependencies:\n      react-like: '*'\n"
              "    peerDependenciesMeta:\n      react-like:\n        optional: true\n")
        self.member("packages/app", {"name": "app", "version": "1.0.0",
                                     "dependencies": {"a": "^1.0.0"}})
        want = self.pnpm_bytes_then_frozen(pnpm)
        self.assertIn("packageExtensionsChecksum: sha256-", want)
        a = os.path.realpath(os.path.join(self.proj, "node_modules", "a"))
        self.assertEqual(self.node_require(a, "c")["version"][:2], "1.")
        # the manifest's own b wins over the extension's 2.0.0
        self.assertEqual(self.node_require(a, "b")["version"], "1.0.0")
        # changed: the frozen install refuses the lockfile, as pnpm's does
        write(os.path.join(self.proj, "pnpm-workspace.yaml"),
              "packages:\n  - packages/*\npackageExtensions:\n  a@1:\n    dependencies:\n"
              "      c: ^1.0.0\n")
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertIn("packageExtensions changed", proc.stderr)

    def test_unknown_settings_are_named_as_pnpm_names_them(self):
        # a misspelt key would drop its policy without a word: pnpm 12 names
        # the keys it does not know (with the nearest it does), and fails
        # when the project pins a pnpm version; nub names the same keys, and
        # fails when the project pins pnpm or nub
        pnpm = nubtest.tool("pnpm")
        yaml = ("packages:\n  - packages/*\nminimumReleaseAgee: 100\n"
                "linkWorkspacePackages: true\nautoInstalPeers: false\nsaveExact: true\n"
                "strictPeerDependencies: false\nnodeLinker: isolated\n")
        said = ['"minimumReleaseAgee" (did you mean "minimumReleaseAge"?)',
                '"autoInstalPeers" (did you mean "autoInstallPeers"?)']
        for pin in (None, "pnpm@12.23.0", "nub@1.0.0"):
            with self.subTest(pin=pin):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                pj = {"name": "mono", "version": "1.0.0", "private": True,
                      "dependencies": {"a": "^1.0.0"}}
                if pin:
                    pj["packageManager"] = pin
                self.make_project(pj)
                write(os.path.join(self.proj, "pnpm-workspace.yaml"), yaml)
                self.member("packages/app", {"name": "app", "version": "1.0.0"})
                theirs = os.path.join(self.tmp, "theirs-%s" % pin)
                shutil.copytree(self.proj, theirs)
                proc = self.nub("install", check=False)
                self.assertEqual(proc.returncode, 78 if pin else 0, proc.stderr)
                for text in said:
                    self.assertEqual(proc.stderr.count(text), 1, proc.stderr)
                for known in ("linkWorkspacePackages", "saveExact", "nodeLinker"):
                    self.assertNotIn(known, proc.stderr)
                if pin:
                    self.assertIn("packageManager", proc.stderr)
                    self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
                if not pnpm or (pin or "").startswith("nub@"):
                    continue
                write(os.path.join(theirs, ".npmrc"), "registry=%s\n" % self.registry.url)
                them = self.run_cmd([pnpm, "install"], cwd=theirs, check=False,
                                    env={"npm_config_registry": None, "PNPM_HOME": None,
                                         "npm_config_store_dir":
                                         os.path.join(self.tmp, "pnpm-store")})
                out = them.stdout + them.stderr
                self.assertEqual(them.returncode != 0, bool(pin), out)
                for text in said:
                    self.assertIn(text, out)
                named = re.findall(r'"([A-Za-z]+)"(?: \(did you mean)?',
                                   out.split("not recognized", 1)[1].split("\n", 1)[0])
                mine = proc.stderr.split("does not know", 1)[1].split("\n", 1)[0]
                self.assertEqual(sorted(set(named) - {"minimumReleaseAge", "autoInstallPeers"}),
                                 sorted(set(re.findall(r'"([A-Za-z]+)"', mine))
                                        - {"minimumReleaseAge", "autoInstallPeers"}))

    def test_missing_patch_file(self):
        # a committed patch is applied (test_patches.py); one whose file is
        # not there stops the install (exit 24) naming it, in either home,
        # rather than install the package unpatched
        for where in ("pnpm-workspace.yaml", "package.json"):
            with self.subTest(where=where):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                pj = {"name": "mono", "version": "1.0.0", "private": True,
                      "dependencies": {"a": "^1.0.0"}}
                yaml = "packages:\n  - packages/*\n"
                if where == "package.json":
                    pj["patchedDependencies"] = {"a@1.0.0": "patches/a@1.0.0.patch"}
                else:
                    yaml += "patchedDependencies:\n  a@1.0.0: patches/a@1.0.0.patch\n"
                self.make_project(pj)
                write(os.path.join(self.proj, "pnpm-workspace.yaml"), yaml)
                self.member("packages/app", {"name": "app", "version": "1.0.0"})
                proc = self.nub_fails("install")
                self.assertEqual(proc.returncode, 24, proc.stderr)
                self.assertIn("%s's patchedDependencies: the patch for a@1.0.0, "
                              "patches/a@1.0.0.patch, cannot be read" % where, proc.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "a")))

    def test_two_members_of_one_name(self):
        # pnpm takes two workspace packages of one name (vite's fixtures
        # "mylib"): importers are known by their folders; npm and yarn
        # refuse such a workspace
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n")
        self.member("packages/one", {"name": "mylib", "version": "1.0.0",
                                     "dependencies": {"a": "^1.0.0"}})
        self.member("packages/two", {"name": "mylib", "version": "1.0.0",
                                     "dependencies": {"b": "^2.0.0"}})
        self.pnpm_bytes_then_frozen(pnpm)
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/one"),
                                           "a")["version"], "1.0.0")
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/two"),
                                           "b")["version"], "2.0.0")

    def test_a_peer_met_by_a_workspace_package(self):
        # pnpm meets plugin's peer react-like with the workspace's own
        # react-like (its snapshot: "react-like: link:packages/react-like");
        # from plugin's folder, require finds that member
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "dependencies": {"plugin": "1.0.0",
                                            "react-like": "workspace:*"}})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n")
        self.member("packages/react-like", {"name": "react-like", "version": "2.0.0"})
        # nub's resolver from package.json alone: pnpm's bytes
        want = self.pnpm_bytes_then_frozen(pnpm)
        self.assertIn("react-like: link:packages/react-like", want)
        plugin = os.path.realpath(os.path.join(self.proj, "node_modules", "plugin"))
        got = self.node_require(plugin, "react-like")
        self.assertEqual((got["version"], got.get("local")), ("2.0.0", True))

    def test_importers_own_peers_as_pnpm(self):
        # pnpm installs a project's and each member's own peerDependencies,
        # the optional ones too, and records them among its dependencies:
        # its lockfile installs frozen, and nub writes the same bytes
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "dependencies": {"a": "^1.0.0"},
                           "peerDependencies": {"b": "^1.0.0", "react-like": "^1.0.0"},
                           "peerDependenciesMeta": {"react-like": {"optional": True}}})
        write(os.path.join(self.proj, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n")
        self.member("packages/m", {"name": "m", "version": "1.0.0",
                                   "peerDependencies": {"c": "^1.0.0"}})
        # nub's own lockfile from package.json alone: pnpm's bytes; pnpm's
        # lockfile, frozen: accepted, every peer installed
        want = self.pnpm_bytes_then_frozen(pnpm)
        self.assertIn("react-like:", want)
        self.assertEqual(self.node_require(self.proj, "react-like")["version"], "1.0.0")
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/m"),
                                           "c")["version"], "1.0.0")


class FilterTest(WorkspaceTestCase):

    def three(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"],
                           "dependencies": {"e": "^1.0.0"}})
        self.member("packages/lib", {"name": "@mono/lib", "version": "1.0.0",
                                     "dependencies": {"a": "^1.0.0"}})
        self.member("packages/app", {"name": "app", "version": "1.0.0",
                                     "dependencies": {"@mono/lib": "workspace:*",
                                                      "b": "^2.0.0"}})
        self.member("packages/other", {"name": "other", "version": "1.0.0",
                                       "dependencies": {"c": "^1.0.0"}})

    def linked(self):
        out = []
        for rel in ("", "packages/lib", "packages/app", "packages/other"):
            nm = os.path.join(self.proj, rel, "node_modules")
            names = sorted(n for n in os.listdir(nm) if not n.startswith(".")) \
                if os.path.isdir(nm) else []
            out.append((rel or ".", names))
        return out

    def test_by_name(self):
        self.three()
        self.nub("install", "--filter", "app")
        self.assertEqual(self.linked(), [(".", []), ("packages/lib", []),
                                         ("packages/app", ["@mono", "b"]),
                                         ("packages/other", [])])
        # the lockfile still covers the whole workspace
        self.assertIn("packages/other:", self.lock())

    def test_with_dependencies_and_glob(self):
        self.three()
        self.nub("install", "--filter", "app...")
        self.assertEqual(self.linked()[1:3], [("packages/lib", ["a"]),
                                              ("packages/app", ["@mono", "b"])])
        self.nub("install", "--filter", "@mono/*")
        self.assertEqual(self.linked(), [(".", []), ("packages/lib", ["a"]),
                                         ("packages/app", []), ("packages/other", [])])

    def test_dependents_path_exclusion_and_root(self):
        self.three()
        self.nub("install", "--filter", "...@mono/lib", "--filter", "!app")
        self.assertEqual(self.linked()[1:3], [("packages/lib", ["a"]), ("packages/app", [])])
        self.nub("install", "--filter", "./packages/other")
        self.assertEqual(self.linked()[3], ("packages/other", ["c"]))
        self.nub("install", "-w")
        self.assertEqual(self.linked(), [(".", ["e"]), ("packages/lib", []),
                                         ("packages/app", []), ("packages/other", [])])
        # npm's --workspace, and a path from inside a member
        self.nub("install", "--workspace", "other")
        self.assertEqual(self.linked()[3], ("packages/other", ["c"]))
        self.nub("install", "--filter", ".", cwd=os.path.join(self.proj, "packages/lib"))
        self.assertEqual(self.linked()[1], ("packages/lib", ["a"]))
        # and the whole workspace again
        self.nub("install")
        self.assertEqual([n for _, n in self.linked()], [["e"], ["a"], ["@mono", "b"], ["c"]])
        self.assertIn("Already up to date", self.nub("install").stdout)

    def test_no_match(self):
        self.three()
        proc = self.nub_fails("install", "--filter", "nope")
        self.assertEqual(proc.returncode, 72, proc.stderr)
        self.assertIn("--filter nope matches no package", proc.stderr)

    def test_filter_outside_a_workspace(self):
        self.make_project({"name": "solo", "version": "1.0.0"})
        proc = self.nub_fails("install", "--filter", "x")
        self.assertEqual(proc.returncode, 2, proc.stderr)


class IncumbentLockfileTest(WorkspaceTestCase):
    """npm's and bun's lockfiles of a workspace: the tree their own tool
    builds, and a member's package.json that no longer matches is refused."""

    # what bun 1.4.5 (linker = "hoisted") built from the fixture's bun.lock
    BUN_TREE = [
        "node_modules/", "node_modules/.bin/", "node_modules/.bin/c-cli -> ../c/bin/cli.js",
        "node_modules/.bin/mono-lib -> ../@mono/lib/cli.js", "node_modules/@mono/",
        "node_modules/@mono/lib -> ../../packages/lib", "node_modules/a/",
        "node_modules/a/index.js", "node_modules/a/package.json",
        "node_modules/app -> ../packages/app", "node_modules/b/", "node_modules/b/index.js",
        "node_modules/b/package.json", "node_modules/c/", "node_modules/c/bin/",
        "node_modules/c/bin/cli.js", "node_modules/c/index.js", "node_modules/c/node_modules/",
        "node_modules/c/node_modules/b/", "node_modules/c/node_modules/b/index.js",
        "node_modules/c/node_modules/b/package.json", "node_modules/c/package.json",
        "node_modules/e/", "node_modules/e/empty.txt", "node_modules/e/file with space.txt",
        "node_modules/e/index.js", "node_modules/e/lib/", "node_modules/e/lib/x/",
        "node_modules/e/lib/x/y.js", "node_modules/e/package.json", "node_modules/e/scripts/",
        "node_modules/e/scripts/run.sh", "packages/app/node_modules/",
        "packages/app/node_modules/b/", "packages/app/node_modules/b/index.js",
        "packages/app/node_modules/b/package.json"]

    def test_npm_lock_a_members_dev_tools_optional_dependency(self):
        # an optional dependency of a member's dev tool, on no platform in
        # particular: "dev": true, "optional": true in package-lock.json;
        # npm ci installs it and links its bin
        if not nubtest.have_npm():
            self.skipTest("SKIP: npm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "workspaces": ["packages/*"]})
        self.member("packages/m", {"name": "m", "version": "1.0.0",
                                   "devDependencies": {"opt-tool": "1.0.0"}})
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=theirs)
        entry = self.read_json(os.path.join(theirs, "package-lock.json"))["packages"][
            "node_modules/opt-helper"]
        self.assertTrue(entry.get("dev") and entry.get("optional"), entry)
        shutil.copy(os.path.join(theirs, "package-lock.json"), self.proj)
        self.npm("ci", "--ignore-scripts", cwd=theirs)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(modes=True), self.installed(theirs, modes=True))
        self.assertTrue(os.path.isfile(os.path.join(self.proj, "node_modules/opt-helper/index.js")))

    def test_npm_lock_a_members_range_its_member_still_answers(self):
        # a member's range for another member changed in package.json but
        # not in package-lock.json: npm ci takes it when the member's
        # version satisfies the new range
        if not nubtest.have_npm():
            self.skipTest("SKIP: npm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "workspaces": ["packages/*"]})
        self.member("packages/lib", {"name": "@mono/lib", "version": "1.2.0"})
        self.member("packages/app", {"name": "app", "version": "0.1.0",
                                     "dependencies": {"@mono/lib": "^1.0.0", "a": "^1.0.0"}})
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
        app = os.path.join(self.proj, "packages/app/package.json")
        doc = self.read_json(app)
        doc["dependencies"]["@mono/lib"] = "^1.1.0"
        self.write_json(app, doc)
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.npm("ci", "--ignore-scripts", cwd=theirs)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(modes=True), self.installed(theirs, modes=True))

    def test_bun_lock_workspace(self):
        self.make_project("bun-workspace")
        self.write_lock_template("bun-workspace/bun.lock.template", "bun.lock")
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(), self.BUN_TREE)
        self.assertExecutable(os.path.join(self.proj, "node_modules/.bin/mono-lib"))
        app = os.path.join(self.proj, "packages/app")
        self.assertEqual(self.node_require(app, "b")["version"], "2.0.0")
        self.assertIn("Already up to date", self.nub("install").stdout)
        # a member's change that bun.lock does not answer
        pj = os.path.join(app, "package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["e"] = "^1.0.0"
        self.write_json(pj, doc)
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("packages/app/package.json", proc.stderr)
        self.assertIn("e@^1.0.0", proc.stderr)
        # without --frozen-lockfile: resolved again and written back, as bun
        # install does, the member's new dependency recorded for it
        self.nub("install")
        with open(os.path.join(self.proj, "bun.lock")) as f:
            self.assertIn('"e": "^1.0.0"', f.read())
        self.assertEqual(self.node_require(app, "e")["version"], "1.0.0")
        self.assertIn("Already up to date", self.nub("install", "--frozen-lockfile").stdout)

    def test_bun_lock_workspace_isolated(self):
        self.make_project("bun-workspace")
        self.write_lock_template("bun-workspace/bun.lock.template", "bun.lock")
        self.nub("install", "--frozen-lockfile", "--node-linker", "isolated")
        app = os.path.join(self.proj, "packages/app")
        self.assertEqual(self.node_require(app, "b")["version"], "2.0.0")
        self.assertEqual(self.node_require(self.proj, "b")["version"], "1.0.0")
        self.assertEqual(os.readlink(os.path.join(app, "node_modules/@mono/lib")), "../../../lib")

    def npm_workspace(self):
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "workspaces": ["packages/*"], "dependencies": {"b": "^1.0.0"}})
        self.member("packages/lib", {"name": "@mono/lib", "version": "1.2.0",
                                     "dependencies": {"a": "^1.0.0"}})
        self.member("packages/app", {"name": "app", "version": "0.1.0",
                                     "dependencies": {"@mono/lib": "^1.0.0", "b": "^2.0.0"}})
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)

    def test_npm_lock_member_out_of_date(self):
        self.npm_workspace()
        self.nub("ci")
        app = os.path.join(self.proj, "packages/app")
        self.assertEqual(self.node_require(app, "b")["version"], "2.0.0")
        with open(os.path.join(self.proj, "package-lock.json")) as f:
            lock = f.read()
        pj = os.path.join(app, "package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["b"] = "^1.0.0"  # the lockfile has 2.0.0 for app
        self.write_json(pj, doc)
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("packages/app/package.json", proc.stderr)
        with open(os.path.join(self.proj, "package-lock.json")) as f:
            self.assertEqual(f.read(), lock)
        # a new member the lockfile does not know
        doc["dependencies"]["b"] = "^2.0.0"
        self.write_json(pj, doc)
        self.member("packages/new", {"name": "new", "version": "1.0.0"})
        proc = self.nub_fails("ci")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("packages/new is not in it", proc.stderr)


class HoistedTest(WorkspaceTestCase):
    """--node-linker hoisted without a lockfile: npm's placement (members
    linked at the top, conflicts nested under the member), compared with
    what npm itself builds from the same registry."""

    def test_same_tree_as_npm(self):
        if not nubtest.have_npm():
            self.skipTest("SKIP: npm is not installed")
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "workspaces": ["packages/*"], "dependencies": {"b": "^1.0.0"}})
        self.member("packages/lib", {"name": "@mono/lib", "version": "1.2.0",
                                     "dependencies": {"a": "^1.0.0"}})
        self.member("packages/app", {"name": "app", "version": "0.1.0",
                                     "dependencies": {"@mono/lib": "^1.0.0", "b": "^2.0.0",
                                                      "c": "^1.0.0"}})
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.npm("install", "--ignore-scripts", cwd=theirs)
        self.nub("install", "--node-linker", "hoisted")
        self.assertEqual(self.installed(modes=True), self.installed(theirs, modes=True))
        self.assertTrue(os.path.isdir(os.path.join(self.proj, "packages/app/node_modules/b")))
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/app"),
                                           "b")["version"], "2.0.0")
        self.assertIn("Already up to date",
                      self.nub("install", "--node-linker", "hoisted").stdout)


class ScriptsTest(WorkspaceTestCase):

    def scripted_monorepo(self):
        log = os.path.join(self.tmp, "order.log")
        step = "echo %s >> " + log
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"],
                           "scripts": {"postinstall": step % "root"}})
        self.member("packages/base", {"name": "base", "version": "1.0.0",
                                      "scripts": {"install": step % "base-install",
                                                  "postinstall": step % "base"}})
        self.member("packages/mid", {"name": "mid", "version": "1.0.0",
                                     "dependencies": {"base": "workspace:*"},
                                     "scripts": {"postinstall": step % "mid"}})
        self.member("packages/top", {"name": "top", "version": "1.0.0",
                                     "devDependencies": {"mid": "workspace:*"},
                                     "scripts": {"prepare": step % "top"}})
        self.member("packages/plain", {"name": "plain", "version": "1.0.0"})
        return log

    def test_members_scripts_run_in_dependency_order(self):
        log = self.scripted_monorepo()
        self.nub("install")
        with open(log) as f:
            self.assertEqual(f.read().split(), ["base-install", "base", "mid", "top", "root"])

    def test_ignore_scripts(self):
        log = self.scripted_monorepo()
        self.nub("install", "--ignore-scripts")
        self.assertFalse(os.path.exists(log))

    def test_failing_member_script(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        self.member("packages/bad", {"name": "bad", "version": "1.0.0",
                                     "scripts": {"postinstall": "exit 3"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 50, proc.stderr)
        self.assertIn("postinstall", proc.stderr)

    def test_cycle_of_build_scripts(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        self.member("packages/x", {"name": "x", "version": "1.0.0",
                                   "dependencies": {"y": "workspace:*"},
                                   "scripts": {"postinstall": "true"}})
        self.member("packages/y", {"name": "y", "version": "1.0.0",
                                   "dependencies": {"x": "workspace:*"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 72, proc.stderr)
        self.assertIn("cycle", proc.stderr)
        self.assertIn("packages/x -> packages/y -> packages/x", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))

    def test_cycle_without_scripts_installs(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        self.member("packages/x", {"name": "x", "version": "1.0.0",
                                   "dependencies": {"y": "workspace:*"}})
        self.member("packages/y", {"name": "y", "version": "1.0.0",
                                   "dependencies": {"x": "workspace:*"}})
        self.nub("install")
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/x"),
                                           "y")["name"], "y")


class BinsTest(WorkspaceTestCase):

    def test_member_bins_and_dependency_bins(self):
        self.make_project({"name": "mono", "version": "1.0.0", "workspaces": ["packages/*"]})
        tool = self.member("packages/tool", {"name": "tool", "version": "1.0.0",
                                             "bin": {"tool": "cli.js"}})
        write(os.path.join(tool, "cli.js"), "#!/usr/bin/env node\nconsole.log('tool')\n")
        self.member("packages/app", {"name": "app", "version": "1.0.0",
                                     "dependencies": {"tool": "workspace:*", "c": "^1.0.0"}})
        self.nub("install")
        bindir = os.path.join(self.proj, "packages/app/node_modules/.bin")
        self.assertEqual(sorted(os.listdir(bindir)), ["c-cli", "tool"])
        self.assertExecutable(os.path.join(bindir, "tool"))
        self.assertTrue(os.path.exists(os.path.join(bindir, "c-cli")))


if __name__ == "__main__":
    nubtest.main()
