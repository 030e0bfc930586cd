#!/usr/bin/env python3
"""yarn berry's yarn.lock (nodeLinker: node-modules) against the local test
registry: the tree berry's linker builds from it, path by path (bins and
modes included), from the lockfile alone: peers made into one instance per
parent (plugin under host-a and host-b), a bin two packages want given to
the first one berry placed (bin-z, hoisted first, not bin-a), berry's own
package extensions
(debug@<4.2.0 takes an optional peer on supports-color, which keeps it
under uses-debug), the project's packageExtensions (.yarnrc.yml: e gets
tagged), resolutions (twin's b), an alias, optional packages for another
platform left out, typescript through berry's compat patch; and a
workspace (members, a member's peer, workspace:^, link:, the root's and a
member's own bins). Then the rules around it: a lockfile that no longer
answers package.json, a malformed one, nodeLinker pnp, the registry's
integrity checking the downloads, offline from the store, the isolated
layout.

With NUB_BERRY naming yarn berry's executable (ci/test.sh installs 4.18.1),
berry itself installs the same projects and the trees are compared live;
the recorded trees are berry 4.18.1's output on Linux x64.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_install_berry.py
     (or ctest -R e2e.install_berry)
"""

import hashlib
import os
import shutil

import nubtest

# berry 4.18.1's node_modules from tests/fixtures/projects/berry
BERRY_TREE = ['node_modules/', 'node_modules/.bin/', 'node_modules/.bin/c-cli -> ../c/bin/cli.js', 'node_modules/.bin/d -> ../@scope/d/bin/d.js', 'node_modules/.bin/shared -> ../bin-z/z.js', 'node_modules/@scope/', 'node_modules/@scope/d/', 'node_modules/@scope/d/bin/', 'node_modules/@scope/d/bin/d.js x', 'node_modules/@scope/d/index.js -', 'node_modules/@scope/d/package.json -', 'node_modules/a/', 'node_modules/a/index.js -', 'node_modules/a/package.json -', 'node_modules/aa-uses-z/', 'node_modules/aa-uses-z/index.js -', 'node_modules/aa-uses-z/package.json -', 'node_modules/b-two/', 'node_modules/b-two/index.js -', 'node_modules/b-two/package.json -', 'node_modules/b/', 'node_modules/b/index.js -', 'node_modules/b/package.json -', 'node_modules/bin-a/', 'node_modules/bin-a/a.js x', 'node_modules/bin-a/index.js -', 'node_modules/bin-a/package.json -', 'node_modules/bin-z/', 'node_modules/bin-z/index.js -', 'node_modules/bin-z/package.json -', 'node_modules/bin-z/z.js x', 'node_modules/c/', 'node_modules/c/bin/', 'node_modules/c/bin/cli.js x', 'node_modules/c/index.js -', 'node_modules/c/node_modules/', 'node_modules/c/node_modules/b/', 'node_modules/c/node_modules/b/index.js -', 'node_modules/c/node_modules/b/package.json -', 'node_modules/c/package.json -', 'node_modules/e/', 'node_modules/e/empty.txt -', 'node_modules/e/file with space.txt -', 'node_modules/e/index.js -', 'node_modules/e/lib/', 'node_modules/e/lib/x/', 'node_modules/e/lib/x/y.js -', 'node_modules/e/package.json -', 'node_modules/e/scripts/', 'node_modules/e/scripts/run.sh x', 'node_modules/host-a/', 'node_modules/host-a/index.js -', 'node_modules/host-a/package.json -', 'node_modules/host-b/', 'node_modules/host-b/index.js -', 'node_modules/host-b/node_modules/', 'node_modules/host-b/node_modules/plugin/', 'node_modules/host-b/node_modules/plugin/index.js -', 'node_modules/host-b/node_modules/plugin/package.json -', 'node_modules/host-b/node_modules/react-like/', 'node_modules/host-b/node_modules/react-like/index.js -', 'node_modules/host-b/node_modules/react-like/package.json -', 'node_modules/host-b/package.json -', 'node_modules/opt-linux/', 'node_modules/opt-linux/index.js -', 'node_modules/opt-linux/package.json -', 'node_modules/peer-host/', 'node_modules/peer-host/index.js -', 'node_modules/peer-host/package.json -', 'node_modules/plugin/', 'node_modules/plugin/index.js -', 'node_modules/plugin/package.json -', 'node_modules/react-like/', 'node_modules/react-like/index.js -', 'node_modules/react-like/package.json -', 'node_modules/supports-color/', 'node_modules/supports-color/index.js -', 'node_modules/supports-color/package.json -', 'node_modules/tagged/', 'node_modules/tagged/index.js -', 'node_modules/tagged/package.json -', 'node_modules/twin/', 'node_modules/twin/index.js -', 'node_modules/twin/node_modules/', 'node_modules/twin/node_modules/b/', 'node_modules/twin/node_modules/b/index.js -', 'node_modules/twin/node_modules/b/package.json -', 'node_modules/twin/package.json -', 'node_modules/typescript/', 'node_modules/typescript/index.js -', 'node_modules/typescript/package.json -', 'node_modules/uses-debug/', 'node_modules/uses-debug/index.js -', 'node_modules/uses-debug/node_modules/', 'node_modules/uses-debug/node_modules/debug/', 'node_modules/uses-debug/node_modules/debug/index.js -', 'node_modules/uses-debug/node_modules/debug/package.json -', 'node_modules/uses-debug/node_modules/supports-color/', 'node_modules/uses-debug/node_modules/supports-color/index.js -', 'node_modules/uses-debug/node_modules/supports-color/package.json -', 'node_modules/uses-debug/package.json -', 'node_modules/zz-uses-a/', 'node_modules/zz-uses-a/index.js -', 'node_modules/zz-uses-a/package.json -']

# ... and from tests/fixtures/projects/berry-workspace
WORKSPACE_TREE = ['node_modules/', 'node_modules/.bin/', 'node_modules/.bin/c-cli -> ../c/bin/cli.js', 'node_modules/.bin/fxlib -> ../@fx/lib/cli.js', 'node_modules/.bin/root-cli -> ../../cli.js', 'node_modules/@fx/', 'node_modules/@fx/lib -> ../../packages/lib', 'node_modules/a/', 'node_modules/a/index.js -', 'node_modules/a/package.json -', 'node_modules/app -> ../packages/app', 'node_modules/b/', 'node_modules/b/index.js -', 'node_modules/b/package.json -', 'node_modules/c/', 'node_modules/c/bin/', 'node_modules/c/bin/cli.js x', 'node_modules/c/index.js -', 'node_modules/c/node_modules/', 'node_modules/c/node_modules/b/', 'node_modules/c/node_modules/b/index.js -', 'node_modules/c/node_modules/b/package.json -', 'node_modules/c/package.json -', 'node_modules/host-b/', 'node_modules/host-b/index.js -', 'node_modules/host-b/node_modules/', 'node_modules/host-b/node_modules/plugin/', 'node_modules/host-b/node_modules/plugin/index.js -', 'node_modules/host-b/node_modules/plugin/package.json -', 'node_modules/host-b/node_modules/react-like/', 'node_modules/host-b/node_modules/react-like/index.js -', 'node_modules/host-b/node_modules/react-like/package.json -', 'node_modules/host-b/package.json -', 'node_modules/local -> ../vendor/local', 'node_modules/react-like/', 'node_modules/react-like/index.js -', 'node_modules/react-like/package.json -', 'node_modules/tool -> ../packages/tool', 'node_modules/twin/', 'node_modules/twin/index.js -', 'node_modules/twin/package.json -', 'packages/lib/node_modules/', 'packages/lib/node_modules/.bin/', 'packages/lib/node_modules/.bin/fxlib -> ../../cli.js', 'packages/lib/node_modules/b/', 'packages/lib/node_modules/b/index.js -', 'packages/lib/node_modules/b/package.json -']

# what berry keeps for itself in node_modules
BERRY_BOOKKEEPING = ("node_modules/.yarn-state.yml", "node_modules/.package-map.json")


class BerryLockTest(nubtest.NubTestCase):

    def berry_tree(self, name, members=()):
        """berry's own install of fixture project `name`, when NUB_BERRY
        names it: its tree, else None."""
        berry = nubtest.tool("berry")
        if not berry or not os.path.exists(berry):
            return None
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(os.path.join(nubtest.PROJECTS_DIR, name), theirs)
        with open(os.path.join(theirs, ".yarnrc.yml"), "a") as f:
            f.write('npmRegistryServer: "%s"\nunsafeHttpWhitelist:\n  - 127.0.0.1\n'
                    'enableTelemetry: false\nenableGlobalCache: false\n'
                    % self.registry.url.rstrip("/"))
        self.run_cmd([berry, "install", "--immutable"], cwd=theirs, timeout=300,
                     env={"YARN_GLOBAL_FOLDER": os.path.join(self.tmp, "berry-global"),
                          "YARN_ENABLE_TELEMETRY": "0"})
        return [p for p in self.installed(theirs, modes=True)
                if not p.startswith(BERRY_BOOKKEEPING)]

    def test_same_tree_as_berry(self):
        self.make_project("berry")
        proc = self.nub("install", "--frozen-lockfile", env={"NUB_LOG": "debug"})
        self.assertEqual(self.installed(modes=True), BERRY_TREE)
        # berry's checksums are not the tarballs': said once
        self.assertEqual(proc.stderr.count("checked against the registry's integrity"), 1)
        # berry's typescript patch edits lib/ files this typescript lacks: as
        # published, said once (berry warns too)
        self.assertEqual(proc.stderr.count("typescript@5.0.0, builtin<compat/typescript>, "
                                           "does not apply"), 1, proc.stderr)
        self.assertEqual(self.node_require(self.proj, "uses-debug")["deps"],
                         {"debug": "4.1.0", "supports-color": "2.0.0"})
        self.assertEqual(self.node_require(self.proj, "twin")["deps"], {"b": "2.0.0"})
        live = self.berry_tree("berry")
        if live is not None:
            self.assertEqual(self.installed(modes=True), live)
        self.assertIn("Already up to date", self.nub("install").stdout)
        self.nub("ci")
        self.assertEqual(self.installed(modes=True), BERRY_TREE)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        # the commands that read the lockfile read berry's
        self.assertIn("b-two@npm:b@2.0.0", self.nub("ls").stdout)
        self.assertEqual(self.nub("why", "debug").stdout.strip(),
                         "berry-project (dependencies) > uses-debug@1.0.0 > debug@4.1.0")
        why = self.nub("why", "plugin").stdout
        self.assertIn("host-a@1.0.0 > plugin@1.0.0", why)
        self.assertIn("host-b@1.0.0 > plugin@1.0.0", why)

    def test_workspace_same_tree_as_berry(self):
        self.make_project("berry-workspace")
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(modes=True), WORKSPACE_TREE)
        # a workspace's own bins are made executable, as berry makes them
        self.assertExecutable(os.path.join(self.proj, "packages/lib/cli.js"))
        self.assertExecutable(os.path.join(self.proj, "cli.js"))
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages/lib"), "b")
                         ["version"], "2.0.0")
        live = self.berry_tree("berry-workspace")
        if live is not None:
            self.assertEqual(self.installed(modes=True), live)

    def test_package_json_changed_is_refused(self):
        self.make_project("berry")
        lock = os.path.join(self.proj, "yarn.lock")
        with open(lock) as f:
            before = f.read()
        pj = os.path.join(self.proj, "package.json")
        orig = self.read_json(pj)
        # a dependency the lockfile has an entry for (e's extension brings
        # tagged@^1.0.0) but does not record for the project, one it has no
        # entry for, a changed range and a dropped dependency
        changes = [("tagged", "^1.0.0", "tagged@npm:^1.0.0"),
                   ("dev-only", "^1.0.0", "dev-only@npm:^1.0.0"),
                   ("a", "^1.0.1", "a@npm:^1.0.1"),
                   ("a", None, "a@npm:^1.0.0")]
        for name, spec, words in changes:
            with self.subTest(change=words):
                doc = self.read_json(pj)
                if spec is None:
                    del doc["dependencies"][name]
                else:
                    doc["dependencies"][name] = spec
                self.write_json(pj, doc)
                # nub does not write berry's lockfile: refused either way
                for args in (("install",), ("install", "--frozen-lockfile"), ("ci",)):
                    proc = self.nub_fails(*args)
                    self.assertEqual(proc.returncode, 16, proc.stderr)
                    self.assertIn(words, proc.stderr)
                    self.assertIn("yarn install", proc.stderr)
                    with open(lock) as f:
                        self.assertEqual(f.read(), before)
                    self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
                self.write_json(pj, orig)
        self.nub("install")
        # nub add would have to write berry's lockfile: it says so, and
        # package.json and yarn.lock stay as they were
        with open(pj) as f:
            pj_before = f.read()
        proc = self.nub_fails("add", "tagged")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("nub does not write yarn berry's lockfile", proc.stderr)
        # and so would nub update, or a resolve asked for: refused, not a
        # silent install of what the lockfile has
        for args in (("update",), ("update", "a"), ("install", "--no-frozen-lockfile")):
            proc = self.nub_fails(*args)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("yarn berry's, which nub installs but does not write", proc.stderr)
            with open(pj) as f:
                self.assertEqual(f.read(), pj_before)
            with open(lock) as f:
                self.assertEqual(f.read(), before)
        with open(pj) as f:
            self.assertEqual(f.read(), pj_before)
        with open(lock) as f:
            self.assertEqual(f.read(), before)

    def test_malformed_lockfile(self):
        self.make_project("berry")
        lock = os.path.join(self.proj, "yarn.lock")
        with open(lock) as f:
            good = f.read()
        cases = [
            # bad YAML: an unclosed quote
            (good.replace('resolution: "a@npm:1.0.0"', 'resolution: "a@npm:1.0.0'), 11,
             "yarn.lock:"),
            (good.replace('"c@npm:^1.0.0":', '<<<<<<< HEAD\n"c@npm:^1.0.0":'), 11,
             "merge-conflict"),
            # an entry's dependency no entry resolves
            (good.replace('    b: "npm:^1.0.0"\n', '    b: "npm:^9.0.0"\n', 1), 11,
             "b@npm:^9.0.0"),
            # an entry without a resolution
            (good.replace('  resolution: "e@npm:1.0.0"\n', ''), 11, "no resolution"),
        ]
        for text, code, words in cases:
            with self.subTest(words=words):
                with open(lock, "w") as f:
                    f.write(text)
                proc = self.nub_fails("install")
                self.assertEqual(proc.returncode, code, proc.stderr)
                self.assertIn(words, proc.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
                with open(lock) as f:
                    self.assertEqual(f.read(), text)

    def test_node_linker_pnp(self):
        self.make_project("berry")
        os.unlink(os.path.join(self.proj, ".yarnrc.yml"))
        # berry's default linker is pnp: no node_modules to build
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 78, proc.stderr)
        self.assertIn("nodeLinker: pnp", proc.stderr)
        self.assertIn("--node-linker hoisted", proc.stderr)
        with open(os.path.join(self.proj, ".yarnrc.yml"), "w") as f:
            f.write("nodeLinker: pnp\n")
        self.assertEqual(self.nub_fails("install").returncode, 78)
        # named on the command line, the tree berry's node-modules linker
        # builds (without the project's packageExtensions, which went with
        # the file: e no longer brings tagged)
        self.nub("install", "--node-linker", "hoisted")
        self.assertIn("node_modules/uses-debug/node_modules/debug/", self.installed())
        self.assertNotIn("node_modules/tagged/", self.installed())

    def test_registries_of_yarnrc_must_be_nubs(self):
        # berry fetches from .yarnrc.yml's registries: where nub's npm
        # configuration names others, one name could be two packages
        self.make_project("berry")
        rc = os.path.join(self.proj, ".yarnrc.yml")
        with open(rc) as f:
            base = f.read()
        other = "http://127.0.0.1:9/"
        for extra, words in (('npmRegistryServer: "%s"\n' % other, "registry=%s" % other),
                             ('npmScopes:\n  scope:\n    npmRegistryServer: "%s"\n' % other,
                              "@scope:registry=%s" % other)):
            with self.subTest(words=words):
                with open(rc, "w") as f:
                    f.write(base + extra)
                proc = self.nub_fails("install")
                self.assertEqual(proc.returncode, 78, proc.stderr)
                self.assertIn(words, proc.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
        # the same registries: installed
        with open(rc, "w") as f:
            f.write(base + 'npmRegistryServer: "%s"\nnpmScopes:\n  scope:\n'
                    '    npmRegistryServer: "%s"\n' % (self.registry.url.rstrip("/"),
                                                      self.registry.url))
        self.nub("install")
        self.assertEqual(self.installed(modes=True), BERRY_TREE)

    def test_unknown_settings_are_refused_as_berry_refuses_them(self):
        # berry refuses a .yarnrc.yml key it does not know (a misspelt
        # npmMinimalAgeGate would drop the gate): nub too, naming it and
        # the nearest; YARN_ENABLE_STRICT_SETTINGS=false lets it be in both
        # (enableStrictSettings: false in the file does not: berry reads it
        # too late)
        self.make_project("berry")
        rc = os.path.join(self.proj, ".yarnrc.yml")
        with open(rc) as f:
            base = f.read()
        berry = nubtest.tool("berry")
        for extra, env, code in (("npmMinimalAgeGatee: 3\n", {}, 78),
                                 ("enableStrictSettings: false\nnpmMinimalAgeGatee: 3\n", {}, 78),
                                 ("npmMinimalAgeGatee: 3\n",
                                  {"YARN_ENABLE_STRICT_SETTINGS": "false"}, 0)):
            with self.subTest(extra=extra, env=env):
                with open(rc, "w") as f:
                    f.write(base + extra)
                proc = self.nub("install", check=False, env=env)
                self.assertEqual(proc.returncode, code, proc.stderr)
                if code:
                    self.assertIn('"npmMinimalAgeGatee" (did you mean "npmMinimalAgeGate"?)',
                                  proc.stderr)
                    self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
                if not berry or not os.path.exists(berry):
                    continue
                them = self.run_cmd([berry, "config", "get", "nodeLinker"], cwd=self.proj,
                                    check=False,
                                    env=dict(env, YARN_ENABLE_TELEMETRY="0",
                                             YARN_GLOBAL_FOLDER=os.path.join(self.tmp,
                                                                             "berry-global")))
                self.assertEqual(them.returncode != 0, bool(code), them.stdout + them.stderr)
                if code:
                    self.assertIn("npmMinimalAgeGatee", them.stdout + them.stderr)

    def test_downloads_are_checked_with_the_registry_integrity(self):
        self.make_project("berry")
        # the registry's documents give a wrong integrity: nothing installs;
        # the version's own document is what nub asks for (not the packument)
        self.registry.add_fault(r"^/c(/1\.0\.0)?$", "wrong_integrity", count=None)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 30, proc.stderr)
        self.assertIn("c@1.0.0", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
        self.assertEqual(self.registry.count(r"^/c$"), 0)
        self.assertEqual(self.registry.count(r"^/c/1\.0\.0$"), 1)
        self.registry.clear_faults()
        # the document that gave the wrong integrity is not kept: the next
        # install asks again and succeeds
        self.nub("install")
        self.assertEqual(self.installed(modes=True), BERRY_TREE)
        self.assertEqual(self.registry.count(r"^/c/1\.0\.0$"), 2)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        # a registry without versions' documents: the packument then, whose
        # integrity is checked the same way
        shutil.rmtree(self.store)
        self.registry.reset_log()
        self.registry.add_fault(r"^/[^/]+(/[^/]+)?/\d+\.\d+\.\d+$", "status", code=404,
                                count=None)
        self.registry.add_fault(r"^/c$", "wrong_integrity", count=None)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 30, proc.stderr)
        self.assertEqual(self.registry.count(r"^/c$"), 1)
        self.registry.clear_faults()
        self.registry.add_fault(r"^/[^/]+(/[^/]+)?/\d+\.\d+\.\d+$", "status", code=404,
                                count=None)
        self.nub("install", "--force")
        self.assertEqual(self.installed(modes=True), BERRY_TREE)
        self.registry.clear_faults()
        # a version the registry does not have
        with open(os.path.join(self.proj, "yarn.lock")) as f:
            text = f.read()
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        shutil.rmtree(self.store)
        with open(os.path.join(self.proj, "yarn.lock"), "w") as f:
            f.write(text.replace('"tagged@npm:1.1.0"', '"tagged@npm:1.9.0"')
                    .replace("version: 1.1.0", "version: 1.9.0"))
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 20, proc.stderr)
        self.assertIn("tagged@1.9.0", proc.stderr)

    def test_offline_from_the_store(self):
        self.make_project("berry")
        proc = self.nub_fails("install", "--offline")
        self.assertEqual(proc.returncode, 43, proc.stderr)
        self.nub("install")
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.registry.reset_log()
        self.nub("install", "--offline")
        self.assertEqual(self.installed(modes=True), BERRY_TREE)
        # a warm install asks the registry nothing: no document, no tarball
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install")
        self.assertEqual(self.registry.requests, [])

    def test_prod_leaves_out_what_only_dev_dependencies_need(self):
        self.make_project("berry")
        self.nub("install", "--prod")
        tree = self.installed(modes=True)
        # e (and the tagged its extension brings), typescript: dev only
        for gone in ("node_modules/e/", "node_modules/tagged/", "node_modules/typescript/"):
            self.assertNotIn(gone, tree)
        self.assertEqual(tree, [p for p in BERRY_TREE
                                if not p.startswith(("node_modules/e/", "node_modules/tagged/",
                                                     "node_modules/typescript/"))])
        # in the workspace react-like is only a devDependency of lib, but app
        # depends on it: it stays
        self.proj = os.path.join(self.tmp, "ws")
        os.makedirs(self.proj)
        self.make_project("berry-workspace")
        self.nub("install", "--prod")
        self.assertEqual(self.installed(modes=True), WORKSPACE_TREE)

    def test_isolated_layout(self):
        self.make_project("berry")
        self.nub("install", "--node-linker", "isolated")
        self.assertEqual(self.node_require(self.proj, "uses-debug")["deps"],
                         {"debug": "4.1.0", "supports-color": "2.0.0"})
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})
        self.assertEqual(self.node_require(self.proj, "a")["deps"], {"b": "1.0.0"})

    def test_a_missing_patch_of_the_project(self):
        # the project's patch: references are applied (test_patches.py); one
        # whose file is not there stops the install (exit 24) naming it
        self.make_project("berry")
        lock = os.path.join(self.proj, "yarn.lock")
        with open(lock) as f:
            text = f.read()
        text = text.replace('resolution: "e@npm:1.0.0"',
                            'resolution: "e@patch:e@npm%3A1.0.0#./e.patch::version=1.0.0&'
                            'hash=abc123&locator=berry-project%40workspace%3A."')
        with open(lock, "w") as f:
            f.write(text)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 24, proc.stderr)
        self.assertIn("e.patch", proc.stderr)
        self.assertIn("cannot be read", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))


    def test_a_patch_by_resolutions(self):
        # jest's package.json: "resolutions": {"lru-cache@^10.0.1":
        # "patch:lru-cache@npm:10.4.3#./.yarn/patches/..."}: the lockfile's
        # patch: entries are found through them and their files read (one
        # taken away here: exit 24 naming it, nothing installed)
        src = os.path.join(nubtest.FIXTURES_DIR, "real-projects", "berry-jest")
        shutil.copytree(src, self.proj, dirs_exist_ok=True)
        lock = os.path.join(self.proj, "yarn.lock")
        with open(lock) as f:
            text = f.read().replace("@@REGISTRY@@", self.registry.url.rstrip("/"))
        with open(lock, "w") as f:
            f.write(text)
        os.remove(os.path.join(self.proj, ".yarn", "patches",
                               "lru-cache-npm-10.4.3-30c10b861a.patch"))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 24, proc.stderr)
        self.assertIn("lru-cache-npm-10.4.3-30c10b861a.patch", proc.stderr)
        self.assertNotIn("repair", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
    def test_builtin_compat_patches(self):
        # berry rewrites resolve's lib/normalize-options.js (its builtin
        # patch, "semver exclusivity >=1.9") in every copy a "patch:...#
        # optional!builtin<compat/resolve>" entry names: 1.22.0 at the top
        # gets berry's file, 1.8.0 under uses-old-resolve is outside the
        # range and stays as published. Bytes as berry 4.18.1 writes them.
        self.make_project("berry-compat")
        self.nub("install", "--frozen-lockfile")
        top = os.path.join(self.proj, "node_modules/resolve/lib/normalize-options.js")
        old = os.path.join(self.proj, "node_modules/uses-old-resolve/node_modules/resolve/"
                           "lib/normalize-options.js")
        with open(top, "rb") as f:
            patched = f.read()
        self.assertEqual(hashlib.sha256(patched).hexdigest(),
                         "41dd29140965d031f7ba60c04a51b6cbbe5d461bdf4fe426cbe912a0fe766c81")
        with open(old, "rb") as f:
            self.assertTrue(f.read().startswith(b"module.exports = function (x, opts) {"))
        self.assertEqual(self.node_require(self.proj, "uses-old-resolve")["deps"],
                         {"resolve": "1.8.0"})
        # dir-bins states its bins by "directories.bin" alone; yarn.lock
        # records them as "bin" (the registry's, where npm turned the one into
        # the other at publish), berry links the bins of the package's own
        # package.json: none
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules/.bin")))
        live = self.berry_tree("berry-compat")
        if live is not None:
            self.assertEqual(self.installed(modes=True), live)
            theirs = os.path.join(self.tmp, "theirs")
            for rel in ("node_modules/resolve/lib/normalize-options.js",
                        "node_modules/uses-old-resolve/node_modules/resolve/lib/"
                        "normalize-options.js"):
                with open(os.path.join(theirs, rel), "rb") as a, \
                        open(os.path.join(self.proj, rel), "rb") as b:
                    self.assertEqual(a.read(), b.read(), rel)
        # offline again from the store: the patched copy is kept there
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--frozen-lockfile", "--offline")
        with open(top, "rb") as f:
            self.assertEqual(f.read(), patched)


if __name__ == "__main__":
    nubtest.main()
