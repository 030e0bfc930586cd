#!/usr/bin/env python3
"""yarn.lock (yarn 1) against the local test registry: the tree yarn 1
builds from it, path by path (bins included: every package's dependencies'
bins in its own node_modules/.bin, the top's from every package, as yarn
links them), the frozen-lockfile rule, and the isolated layout from it.
The differential tests against yarn itself on real packages are in
test_differential.py.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_install_yarn.py
     (or ctest -R e2e.install_yarn)
"""

import os
import shutil

import nubtest

# what yarn 1.22.22 built from basic/yarn.lock.template (its own output, on
# this test registry), on Linux x64: opt-darwin and opt-win left out
YARN_TREE = ['node_modules/', 'node_modules/.bin/', 'node_modules/.bin/c-cli -> ../c/bin/cli.js', 'node_modules/.bin/d -> ../@scope/d/bin/d.js', 'node_modules/@scope/', 'node_modules/@scope/d/', 'node_modules/@scope/d/bin/', 'node_modules/@scope/d/bin/d.js', 'node_modules/@scope/d/index.js', 'node_modules/@scope/d/package.json', 'node_modules/a/', 'node_modules/a/index.js', 'node_modules/a/package.json', 'node_modules/b/', 'node_modules/b/index.js', 'node_modules/b/package.json', 'node_modules/c/', 'node_modules/c/bin/', 'node_modules/c/bin/cli.js', 'node_modules/c/index.js', 'node_modules/c/node_modules/', 'node_modules/c/node_modules/b/', 'node_modules/c/node_modules/b/index.js', 'node_modules/c/node_modules/b/package.json', 'node_modules/c/package.json', 'node_modules/dev-only/', 'node_modules/dev-only/index.js', 'node_modules/dev-only/package.json', 'node_modules/e/', 'node_modules/e/empty.txt', 'node_modules/e/file with space.txt', 'node_modules/e/index.js', 'node_modules/e/lib/', 'node_modules/e/lib/x/', 'node_modules/e/lib/x/y.js', 'node_modules/e/package.json', 'node_modules/e/scripts/', 'node_modules/e/scripts/run.sh', 'node_modules/opt-linux/', 'node_modules/opt-linux/index.js', 'node_modules/opt-linux/package.json']


class YarnLockTest(nubtest.NubTestCase):

    def project(self):
        self.make_project("basic")
        self.write_lock_template("basic/yarn.lock.template", "yarn.lock")

    def against_yarn(self, package_json):
        """package_json installed by yarn 1 in a copy of the project, then
        by nub from the yarn.lock yarn wrote: the tree of each, nub's
        first (skipped when yarn 1 is not installed)."""
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("SKIP: yarn 1 is not installed")
        self.write_json(os.path.join(self.proj, "package.json"), package_json)
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.run_cmd([yarn, "install", "--ignore-scripts", "--non-interactive",
                      "--registry", self.registry.url, "--cache-folder",
                      os.path.join(self.tmp, "yarn-cache")], cwd=theirs)
        shutil.copy(os.path.join(theirs, "yarn.lock"), self.proj)
        self.nub("install", "--frozen-lockfile")
        return (self.installed(),
                [p for p in self.installed(theirs) if ".yarn-integrity" not in p])

    def test_same_tree_as_yarn(self):
        self.project()
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(), YARN_TREE)
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})
        self.assertIn("Already up to date", self.nub("install").stdout)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.nub("ci")
        self.assertEqual(self.installed(), YARN_TREE)

    def test_out_of_date(self):
        self.project()
        with open(os.path.join(self.proj, "yarn.lock")) as f:
            before = f.read()
        pj = os.path.join(self.proj, "package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["tagged"] = "^1.0.0"
        self.write_json(pj, doc)
        # frozen: refused, nothing written
        for args in (("install", "--frozen-lockfile"), ("ci",)):
            proc = self.nub_fails(*args)
            self.assertEqual(proc.returncode, 16, proc.stderr)
            self.assertIn("tagged@^1.0.0", proc.stderr)
            self.assertIn("yarn install", proc.stderr)
            with open(os.path.join(self.proj, "yarn.lock")) as f:
                self.assertEqual(f.read(), before)
            self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
        # `nub install`, as `yarn install`: resolved again, yarn.lock written
        # back; the entries that did not change keep their bytes
        self.nub("install")
        with open(os.path.join(self.proj, "yarn.lock")) as f:
            after = f.read()
        self.assertIn('\ntagged@^1.0.0:\n  version "1.0.0"\n', after)
        for entry in before.split("\n\n")[1:]:
            self.assertIn(entry.strip("\n"), after)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.nub("install", "--frozen-lockfile", "--force")
        self.assertEqual(self.node_require(self.proj, "tagged")["version"], "1.0.0")

    def test_add_and_yarn_accepts_it(self):
        self.project()
        self.nub("add", "tagged", "b@2")
        self.nub("remove", "e")
        with open(os.path.join(self.proj, "yarn.lock")) as f:
            lock = f.read()
        self.assertIn("\nb@^2.0.0:\n", lock)
        self.assertNotIn("\ne@", lock)
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("SKIP: yarn 1 is not installed: its frozen check is left out")
        theirs = os.path.join(self.tmp, "theirs")
        os.makedirs(theirs)
        for f in ("package.json", "yarn.lock"):
            shutil.copy(os.path.join(self.proj, f), theirs)
        self.run_cmd([yarn, "install", "--frozen-lockfile", "--ignore-scripts", "--non-interactive",
                      "--registry", self.registry.url, "--cache-folder",
                      os.path.join(self.tmp, "yarn-cache")], cwd=theirs)
        with open(os.path.join(theirs, "yarn.lock")) as f:
            self.assertEqual(f.read(), lock)  # yarn took it as it is
        self.assertEqual(self.installed(),
                         [p for p in self.installed(theirs) if ".yarn-integrity" not in p])

    def test_a_missing_peer_is_not_installed(self):
        # yarn 1 installs no missing peer dependency (it warns): plugin's
        # react-like is neither written to yarn.lock nor installed
        self.project()
        self.nub("add", "plugin@1.0.0")
        with open(os.path.join(self.proj, "yarn.lock")) as f:
            lock = f.read()
        self.assertIn("\nplugin@", lock)
        self.assertNotIn("react-like", lock)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "react-like")))
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("SKIP: yarn 1 is not installed: its frozen check is left out")
        theirs = os.path.join(self.tmp, "theirs")
        os.makedirs(theirs)
        for f in ("package.json", "yarn.lock"):
            shutil.copy(os.path.join(self.proj, f), theirs)
        self.run_cmd([yarn, "install", "--frozen-lockfile", "--ignore-scripts", "--non-interactive",
                      "--registry", self.registry.url, "--cache-folder",
                      os.path.join(self.tmp, "yarn-cache")], cwd=theirs)
        with open(os.path.join(theirs, "yarn.lock")) as f:
            self.assertEqual(f.read(), lock)

    def test_a_link_dependency(self):
        # "link:<folder>": yarn links the folder and records an entry with
        # version 0.0.0 and nothing to fetch
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("SKIP: yarn 1 is not installed")
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "p", "version": "1.0.0",
                         "dependencies": {"a": "^1.0.0", "local-rules": "link:rules"}})
        os.makedirs(os.path.join(self.proj, "rules"))
        self.write_json(os.path.join(self.proj, "rules", "package.json"),
                        {"name": "local-rules", "version": "0.0.0"})
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.run_cmd([yarn, "install", "--ignore-scripts", "--non-interactive",
                      "--registry", self.registry.url, "--cache-folder",
                      os.path.join(self.tmp, "yarn-cache")], cwd=theirs)
        with open(os.path.join(theirs, "yarn.lock")) as f:
            self.assertIn('"local-rules@link:rules":', f.read())
        shutil.copy(os.path.join(theirs, "yarn.lock"), self.proj)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(),
                         [p for p in self.installed(theirs) if ".yarn-integrity" not in p])

    def test_bins_from_directories_bin(self):
        # a package with no "bin" but "directories": {"bin": "./bin"}
        # (sshpk 1.x): yarn 1 makes each file of that folder a bin
        ours, theirs = self.against_yarn({"name": "p", "version": "1.0.0",
                                          "dependencies": {"a": "^1.0.0", "dir-bins": "1.0.0"}})
        self.assertIn("node_modules/.bin/dir-bins-conv -> ../dir-bins/bin/dir-bins-conv", theirs)
        self.assertEqual(ours, theirs)

    def test_a_bin_whose_file_is_missing(self):
        # yarn 1 links no bin whose file the package lacks, but makes the
        # .bin folder for it all the same (package-linker's
        # linkSelfDependencies: mkdirp, then each bin that exists)
        ours, theirs = self.against_yarn({"name": "p", "version": "1.0.0",
                                          "dependencies": {"a": "^1.0.0", "bin-missing": "1.0.0"}})
        self.assertIn("node_modules/.bin/", theirs)
        self.assertEqual(ours, theirs)

    def test_an_alias_is_a_parent_of_its_own(self):
        # yarn 1's prepass puts first at the top the version of a name that
        # the most packages depend on, counting an alias ("c-cjs", the
        # excalidraw lockfile's string-width-cjs) as a package of its own:
        # b@2 (c and c-cjs) over b@1 (a alone)
        ours, theirs = self.against_yarn({"name": "p", "version": "1.0.0",
                                          "dependencies": {"a": "^1.0.0", "c": "^1.0.0",
                                                           "c-cjs": "npm:c@^1.0.0"}})
        self.assertEqual(ours, theirs)

    def test_isolated_and_ls(self):
        self.project()
        self.nub("install", "--node-linker", "isolated")
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})
        self.assertEqual(self.node_require(self.proj, "a")["deps"], {"b": "1.0.0"})
        self.assertIn("├── a@1.0.0", self.nub("ls").stdout)

    def test_integrity_is_checked(self):
        self.project()
        path = os.path.join(self.proj, "yarn.lock")
        with open(path) as f:
            text = f.read()
        # a's integrity replaced by b's: the tarball does not match
        good = self.registry.integrity("a", "1.0.0")
        text = text.replace(good, self.registry.integrity("b", "1.0.0"))
        with open(path, "w") as f:
            f.write(text)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 30, proc.stderr)


# what yarn 1.22.22 built from yarn-workspace/yarn.lock.template (its own
# output on this test registry), on Linux x64: the members linked at the
# top, app's b@2 in app's folder, lib's opt-win left out
YARN_WS_TREE = ['node_modules/', 'node_modules/.bin/', 'node_modules/.bin/app -> ../../packages/app/cli.js', 'node_modules/.bin/c-cli -> ../c/bin/cli.js', 'node_modules/a/', 'node_modules/a/index.js', 'node_modules/a/package.json', 'node_modules/app -> ../packages/app', 'node_modules/b/', 'node_modules/b/index.js', 'node_modules/b/package.json', 'node_modules/c/', 'node_modules/c/bin/', 'node_modules/c/bin/cli.js', 'node_modules/c/index.js', 'node_modules/c/node_modules/', 'node_modules/c/node_modules/b/', 'node_modules/c/node_modules/b/index.js', 'node_modules/c/node_modules/b/package.json', 'node_modules/c/package.json', 'node_modules/dev-only/', 'node_modules/dev-only/index.js', 'node_modules/dev-only/package.json', 'node_modules/e/', 'node_modules/e/empty.txt', 'node_modules/e/file with space.txt', 'node_modules/e/index.js', 'node_modules/e/lib/', 'node_modules/e/lib/x/', 'node_modules/e/lib/x/y.js', 'node_modules/e/package.json', 'node_modules/e/scripts/', 'node_modules/e/scripts/run.sh', 'node_modules/lib -> ../packages/lib', 'node_modules/tagged/', 'node_modules/tagged/index.js', 'node_modules/tagged/package.json', 'packages/app/node_modules/', 'packages/app/node_modules/.bin/', 'packages/app/node_modules/.bin/c-cli -> ../../../../node_modules/c/bin/cli.js', 'packages/app/node_modules/b/', 'packages/app/node_modules/b/index.js', 'packages/app/node_modules/b/package.json']


class YarnWorkspaceTest(nubtest.NubTestCase):
    """A yarn 1 workspace from its yarn.lock: yarn's tree, members linked,
    what cannot be hoisted in the member's folder, member bins at the top
    and members' dependencies' bins in their own .bin. Before, nub installed
    the root's dependencies alone and exited 0."""

    def setUp(self):
        super().setUp()
        self.make_project("yarn-workspace")
        self.write_lock_template("yarn-workspace/yarn.lock.template", "yarn.lock")

    def yarn_install(self, yarn, where):
        self.run_cmd([yarn, "install", "--frozen-lockfile", "--ignore-scripts", "--non-interactive",
                      "--registry", self.registry.url, "--cache-folder",
                      os.path.join(self.tmp, "yarn-cache")], cwd=where)

    def test_the_tree_yarn_builds(self):
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(), YARN_WS_TREE)
        app = os.path.join(self.proj, "packages", "app")
        self.assertEqual(self.node_require(app, "b")["version"], "2.0.0")
        self.assertEqual(self.node_require(self.proj, "b")["version"], "1.0.0")
        self.assertIn("Already up to date", self.nub("install").stdout)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))

    def test_a_member_change_is_written_back_as_yarn_writes_it(self):
        pj = os.path.join(self.proj, "packages", "lib", "package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["pre"] = "^1.0.0"
        self.write_json(pj, doc)
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("pre@^1.0.0", proc.stderr)
        self.nub("install")
        with open(os.path.join(self.proj, "yarn.lock")) as f:
            lock = f.read()
        want = '\npre@^1.0.0:\n  version "1.0.0"\n  resolved "{}pre/-/pre-1.0.0.tgz#{}"\n'.format(
            self.registry.url, self.registry.shasum("pre", "1.0.0"))
        self.assertIn(want, lock)
        self.assertEqual(self.node_require(os.path.join(self.proj, "packages", "lib"),
                                           "pre")["version"], "1.0.0")
        yarn = nubtest.tool("yarn")
        if not yarn:
            return
        # yarn, frozen, from what nub wrote: accepted as it is, the same tree
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.yarn_install(yarn, theirs)
        with open(os.path.join(theirs, "yarn.lock")) as f:
            self.assertEqual(f.read(), lock)
        self.assertEqual(self.installed(),
                         [p for p in self.installed(theirs) if ".yarn-integrity" not in p])

    def test_an_entry_without_integrity_says_so(self):
        # yarn installs it; so does nub, saying once that nothing checked it
        # (before, it was installed silently)
        path = os.path.join(self.proj, "yarn.lock")
        with open(path) as f:
            text = f.read()
        entry = text[text.index("\na@^1.0.0:"):text.index("\n\n", text.index("\na@^1.0.0:") + 1)]
        bare = "\n".join(l if not l.startswith("  resolved") else l.split("#")[0] + '"'
                         for l in entry.split("\n") if not l.startswith("  integrity"))
        with open(path, "w") as f:
            f.write(text.replace(entry, bare))
        proc = self.nub("install", "--frozen-lockfile")
        self.assertIn("a@1.0.0 came with no integrity", proc.stderr)
        self.assertEqual(self.installed(), YARN_WS_TREE)

    def test_against_yarn(self):
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("SKIP: yarn 1 is not installed")
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.yarn_install(yarn, theirs)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(),
                         [p for p in self.installed(theirs) if ".yarn-integrity" not in p])


class YarnWorkspaceBinsTest(nubtest.NubTestCase):
    """Bins where a member's dependencies meet the root's (excalidraw's two
    differences), by yarn 1's package-linker:
    - the top's .bin takes, of several copies of a name none of which the
      root asks for itself, the first in yarn's flat tree, which names what
      is under a member hoisted to the top through its link: @fx/app's
      binver 1.0.0 ("node_modules/@fx/app/node_modules/binver") before the
      top's 2.0.0 (nub took the top's, sorting by the real folder);
    - a member's dependency's peer is found among the root's own
      dependencies too (resolvePeerModules: a request whose parent names
      begin the dependent's path; the root's have none), so peer-of-c
      gets c's bin in its own .bin (nub looked at the member's alone)."""

    def test_the_bins_yarn_links(self):
        self.make_project("yarn-ws-bins")
        self.write_lock_template("yarn-ws-bins/yarn.lock.template", "yarn.lock")
        self.nub("install", "--frozen-lockfile")
        nm = os.path.join(self.proj, "node_modules")
        self.assertEqual(os.readlink(os.path.join(nm, ".bin", "binver")),
                         "../../packages/app/node_modules/binver/cli.js")
        self.assertEqual(os.readlink(os.path.join(nm, "peer-of-c", "node_modules", ".bin",
                                                  "c-cli")), "../../../c/bin/cli.js")
        yarn = nubtest.tool("yarn")
        if not yarn:
            return
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.run_cmd([yarn, "install", "--frozen-lockfile", "--ignore-scripts",
                      "--non-interactive", "--registry", self.registry.url, "--cache-folder",
                      os.path.join(self.tmp, "yarn-cache")], cwd=theirs)
        self.assertEqual(self.installed(),
                         [p for p in self.installed(theirs) if ".yarn-integrity" not in p])


class YarnKeepTheLockTest(nubtest.NubTestCase):
    """nub add, remove, update and a hand edit change yarn.lock as yarn 1's
    own add, remove, upgrade and install change it from the same file, byte
    for byte: the lockfile's entries are kept as they are (an older pin
    stays), an npm: alias keeps an entry of its own, a package's bundled
    dependencies are recorded as yarn records them."""

    def yarn(self, *args, cwd):
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("SKIP: yarn 1 is not installed")
        self.run_cmd([yarn] + list(args) + ["--ignore-scripts", "--non-interactive", "--registry",
                                            self.registry.url, "--cache-folder",
                                            os.path.join(self.tmp, "yarn-cache")], cwd=cwd)

    def old_lock(self, deps=None):
        """fresh-user locked with fresh 1.0.0 while 1.1.0 is out: the file
        yarn wrote when package.json also pinned fresh 1.0.0, less that
        pattern (as it reads when 1.0.0 was the newest); yarn accepts it
        frozen. A copy for yarn is returned."""
        deps = dict(deps or {})
        self.make_project({"name": "proj", "version": "1.0.0",
                           "dependencies": dict(deps, **{"fresh": "1.0.0",
                                                         "fresh-user": "^1.0.0"})})
        self.yarn("install", cwd=self.proj)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "proj", "version": "1.0.0",
                         "dependencies": dict(deps, **{"fresh-user": "^1.0.0"})})
        lock = os.path.join(self.proj, "yarn.lock")
        with open(lock) as f:
            text = f.read()
        blocks = [b for b in text.split("\n\n") if not b.startswith("fresh@^1.0.0:\n")]
        self.assertIn("fresh@1.0.0:", [b.split("\n")[0] for b in blocks])
        with open(lock, "w") as f:
            f.write("\n\n".join(b.replace("fresh@1.0.0:\n", "fresh@^1.0.0:\n", 1)
                                 for b in blocks))
        self.yarn("install", "--frozen-lockfile", cwd=self.proj)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        theirs = os.path.join(self.tmp, "theirs", "proj")
        shutil.copytree(self.proj, theirs)
        return theirs

    def assert_as_yarn(self, theirs, nub_args, yarn_args):
        self.nub(*nub_args, "--ignore-scripts")
        self.yarn(*yarn_args, cwd=theirs)
        for name in ("package.json", "yarn.lock"):
            with open(os.path.join(self.proj, name)) as f:
                ours = f.read()
            with open(os.path.join(theirs, name)) as f:
                self.assertEqual(ours, f.read(), "%s differs from yarn's after %s"
                                 % (name, " ".join(nub_args)))
        with open(os.path.join(self.proj, "yarn.lock")) as f:
            return f.read()

    def test_add_a_new_package(self):
        theirs = self.old_lock()
        lock = self.assert_as_yarn(theirs, ["add", "a"], ["add", "a"])
        self.assertIn('fresh@^1.0.0:\n  version "1.0.0"', lock)

    def test_add_a_package_the_tree_has(self):
        theirs = self.old_lock()
        lock = self.assert_as_yarn(theirs, ["add", "fresh"], ["add", "fresh"])
        self.assertIn('fresh@^2.0.0:\n  version "2.0.0"', lock)

    def test_remove(self):
        theirs = self.old_lock({"a": "^1.0.0"})
        lock = self.assert_as_yarn(theirs, ["remove", "a"], ["remove", "a"])
        self.assertNotIn("\nb@", lock)

    def test_hand_edit_and_an_alias(self):
        theirs = self.old_lock()
        for d in (self.proj, theirs):
            pj = os.path.join(d, "package.json")
            doc = self.read_json(pj)
            doc["dependencies"]["tagged"] = "^1.0.0"
            doc["dependencies"]["tagged-cjs"] = "npm:tagged@^1.0.0"
            self.write_json(pj, doc)
        lock = self.assert_as_yarn(theirs, ["install"], ["install"])
        self.assertIn('\n"tagged-cjs@npm:tagged@^1.0.0":\n', lock)
        self.assertIn('fresh@^1.0.0:\n  version "1.0.0"', lock)

    def test_remove_takes_the_pattern_off_a_shared_entry(self):
        # "fresh@1.0.0, fresh@^1.0.0" one entry: removing the project's
        # fresh 1.0.0 leaves fresh-user's pattern alone on it
        theirs = self.old_lock()
        for d in (self.proj, theirs):
            lock = os.path.join(d, "yarn.lock")
            with open(lock) as f:
                text = f.read()
            with open(lock, "w") as f:
                f.write(text.replace("\nfresh@^1.0.0:\n", '\nfresh@1.0.0, fresh@^1.0.0:\n'))
            pj = os.path.join(d, "package.json")
            doc = self.read_json(pj)
            doc["dependencies"]["fresh"] = "1.0.0"
            self.write_json(pj, doc)
        lock = self.assert_as_yarn(theirs, ["remove", "fresh"], ["remove", "fresh"])
        self.assertIn('\nfresh@^1.0.0:\n  version "1.0.0"', lock)

    def test_a_resolution_keeps_its_pattern(self):
        # yarn records "fresh@1.0.0" (the resolution's own) beside
        # "fresh@^1.0.0" on the entry the resolution chose
        self.make_project({"name": "proj", "version": "1.0.0",
                           "dependencies": {"fresh-user": "^1.0.0"},
                           "resolutions": {"**/fresh": "1.0.0"}})
        self.yarn("install", cwd=self.proj)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        theirs = os.path.join(self.tmp, "theirs", "proj")
        shutil.copytree(self.proj, theirs)
        lock = self.assert_as_yarn(theirs, ["add", "a"], ["add", "a"])
        self.assertIn("\nfresh@1.0.0, fresh@^1.0.0:\n", lock)

    def test_a_new_pattern_takes_the_registrys_pick(self):
        # fresh@^1.0.0 stays 1.0.0; a new range of it gets the newest, 1.1.0,
        # not the version the other pattern locked
        theirs = self.old_lock()
        for d in (self.proj, theirs):
            pj = os.path.join(d, "package.json")
            doc = self.read_json(pj)
            doc["dependencies"]["fresh"] = ">=1.0.0 <2"
            self.write_json(pj, doc)
        lock = self.assert_as_yarn(theirs, ["install"], ["install"])
        self.assertIn('fresh@^1.0.0:\n  version "1.0.0"', lock)
        self.assertIn('"fresh@>=1.0.0 <2":\n  version "1.1.0"', lock)

    def test_update_unlocks_what_the_package_asked_for(self):
        # yarn upgrade fresh-user unlocks fresh-user@^1.0.0 and the patterns
        # of its package (fresh@^1.0.0: 1.0.0 -> 1.1.0), not the project's
        # own patterns below it
        theirs = self.old_lock()
        lock = self.assert_as_yarn(theirs, ["update", "fresh-user"], ["upgrade", "fresh-user"])
        self.assertIn('fresh@^1.0.0:\n  version "1.1.0"', lock)

    def test_merge_conflict_merged_as_yarn_merges_it(self):
        # yarn 1 reads both sides of git's markers ("Merge conflict
        # detected in yarn.lock and successfully merged") and writes the
        # file back; nub the same, and refuses it frozen
        theirs = self.merge_conflict("yarn.lock", lambda d: self.yarn("install", cwd=d))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("merge-conflict", proc.stderr)
        lock = self.assert_as_yarn(theirs, ["install"], ["install"])
        self.assertNotIn("<<<<<<<", lock)
        self.assertIn("\nc@^1.0.0:\n", lock)
        self.assertIn("\ndev-only@^1.0.0:\n", lock)

    def test_merge_conflict_on_one_pattern_takes_theirs(self):
        # the whole file in conflict: ours after `yarn upgrade fresh-user`
        # (fresh@^1.0.0 at 1.1.0), theirs the older pin (1.0.0); yarn's
        # Object.assign(ours, theirs) keeps theirs
        theirs = self.old_lock()
        upgraded = os.path.join(self.tmp, "upgraded", "proj")
        shutil.copytree(self.proj, upgraded)
        self.yarn("upgrade", "fresh-user", cwd=upgraded)
        texts = []
        for d in (upgraded, self.proj):
            with open(os.path.join(d, "yarn.lock")) as f:
                texts.append(f.read().rstrip("\n") + "\n")
        self.assertIn('fresh@^1.0.0:\n  version "1.1.0"', texts[0])
        conflict = "<<<<<<< HEAD\n%s=======\n%s>>>>>>> other\n" % tuple(texts)
        for d in (self.proj, theirs):
            with open(os.path.join(d, "yarn.lock"), "w") as f:
                f.write(conflict)
        lock = self.assert_as_yarn(theirs, ["install"], ["install"])
        self.assertIn('fresh@^1.0.0:\n  version "1.0.0"', lock)

    def test_bundled_dependencies_are_resolved(self):
        # yarn 1 resolves a package's bundled dependencies like the others:
        # bundler's is on no registry, and both stop naming it
        self.old_lock()
        proc = self.nub_fails("add", "bundler", "--ignore-scripts")
        self.assertEqual(proc.returncode, 40, proc.stderr)
        self.assertIn("bundled-dep", proc.stderr)


if __name__ == "__main__":
    nubtest.main()
