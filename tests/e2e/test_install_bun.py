"""bun.lock: the hoisted tree bun lays out, from the local test registry."""
import json
import os
import shutil
import unittest
import urllib.request

import nubtest



class BunLockTest(nubtest.NubTestCase):

    def setUp(self):
        super().setUp()
        self.make_project("basic")
        self.write_lock_template("basic/bun.lock.template", "bun.lock")
        self.nm = os.path.join(self.proj, "node_modules")

    def version(self, rel):
        with open(os.path.join(self.nm, rel, "package.json")) as f:
            return json.load(f)["version"]

    def test_installs_the_hoisted_tree(self):
        proc = self.nub("install", "--frozen-lockfile")
        self.assertIn("added", proc.stdout)
        want = {"a": "1.0.0", "b": "1.0.0", "c": "1.0.0", "c/node_modules/b": "2.0.0",
                "@scope/d": "1.0.0", "e": "1.0.0", "dev-only": "1.0.0"}
        for rel, v in want.items():
            self.assertEqual(self.version(rel), v, rel)
        # another platform's optional package stays out
        self.assertEqual(os.path.isdir(os.path.join(self.nm, "opt-linux")), nubtest.npm_os() == "linux")
        self.assertEqual(os.path.isdir(os.path.join(self.nm, "opt-darwin")), nubtest.npm_os() == "darwin")
        self.assertFalse(os.path.isdir(os.path.join(self.nm, ".nub")), "hoisted, not isolated")
        self.assertEqual(sorted(os.listdir(os.path.join(self.nm, ".bin"))), ["c-cli", "d"])
        for dep in ("a", "c", "@scope/d", "e"):
            self.assertEqual(self.node_require(self.proj, dep)["name"], dep)
        self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")

    def test_omit_dev(self):
        self.nub("install", "--omit=dev")
        self.assertFalse(os.path.exists(os.path.join(self.nm, "dev-only")))
        self.assertTrue(os.path.isdir(os.path.join(self.nm, "a")))

    def test_frozen_lockfile_rejects_new_dependency(self):
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["dependencies"]["pre"] = "^1.0.0"
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("pre", proc.stderr)
        self.assertFalse(os.path.exists(self.nm))

    def test_isolated_from_bun_lock(self):
        self.nub("install", "--node-linker", "isolated")
        self.assertTrue(os.path.isdir(os.path.join(self.nm, ".nub")))
        self.assertEqual(self.node_require(self.proj, "c")["name"], "c")
        # another platform's optional package is left out, as in the
        # hoisted layout: not linked, not fetched
        other = "opt-win" if nubtest.npm_os() != "win32" else "opt-darwin"
        self.assertFalse(os.path.lexists(os.path.join(self.nm, other)))
        self.assertTrue(os.path.isdir(os.path.join(self.nm, "opt-linux"))
                        == (nubtest.npm_os() == "linux"))

    def test_malformed(self):
        with open(os.path.join(self.proj, "bun.lock"), "w") as f:
            f.write('{\n  "lockfileVersion": 1,\n  "workspaces": {\n    "": {},\n  },\n'
                    '  "packages": {\n    "a": ["a@1.0.0", "", {}, "sha512-x"]\n    "b": []\n  }\n}\n')
        proc = self.nub_fails("install")
        self.assertRegex(proc.stderr, r"bun\.lock is not valid JSON: .* line 8 column")
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)

    def test_unsupported_entries_are_named(self):
        for spec, where, words in (
                ('"w@workspace:packages/w"', '""', "w@workspace:packages/w"),
                ('"g@github:o/r#abc"', '""', "g@github:o/r#abc"),
                ('"t@1.0.0"', '"ftp://example.invalid/"', "not a registry URL")):
            with self.subTest(spec=spec):
                with open(os.path.join(self.proj, "bun.lock"), "w") as f:
                    f.write('{"lockfileVersion": 1, "workspaces": {"": {}}, '
                            '"packages": {"x": [%s, %s, {}, ""]}}' % (spec, where))
                proc = self.nub_fails("install")
                self.assertIn(words, proc.stderr)
                self.assertIn("'x'", proc.stderr)

    def test_binary_lockfile_alone_is_refused(self):
        os.unlink(os.path.join(self.proj, "bun.lock"))
        with open(os.path.join(self.proj, "bun.lockb"), "wb") as f:
            f.write(b"#!/usr/bin/env bun\nbun-lockfile-format-v0\n\x00\x01")
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 12, proc.stderr)
        self.assertIn("bun.lockb", proc.stderr)
        self.assertFalse(os.path.exists(self.nm))
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))

    def test_text_lockfile_wins_over_binary(self):
        with open(os.path.join(self.proj, "bun.lockb"), "wb") as f:
            f.write(b"\x00binary")
        self.nub("install")
        self.assertEqual(self.version("c/node_modules/b"), "2.0.0")

    def test_newer_version_is_refused(self):
        with open(os.path.join(self.proj, "bun.lock"), "w") as f:
            f.write('{"lockfileVersion": 9, "workspaces": {"": {}}, "packages": {}}')
        proc = self.nub_fails("install")
        self.assertIn("lockfileVersion", proc.stderr)

    def test_commas_in_strings_are_kept(self):
        # the trailing-comma rule must not touch a string that looks like one
        text = open(os.path.join(self.proj, "bun.lock")).read()
        text = text.replace('"name": "basic",', '"name": "basic", "note": "a, } b,]",', 1)
        with open(os.path.join(self.proj, "bun.lock"), "w") as f:
            f.write(text)
        self.nub("install")
        self.assertEqual(self.version("a"), "1.0.0")


class BunSourcesTest(nubtest.NubTestCase):
    """bun.lock entries that are not registry packages, as bun 1.4 writes
    and installs them: a `file:` directory (copied: every file but its
    node_modules, its own dependencies in its own node_modules), `link:`
    (a symlink), a `file:` tarball, a tarball URL (on a second server) and a
    git repository (the whole checkout at the commit: bun does not pack).
    Each was refused before ("not a registry package"). With bun on PATH
    the tree is compared with the one bun builds from the same files."""

    def git(self, *args):
        env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
               "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z",
               "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z",
               "GIT_CONFIG_NOSYSTEM": "1", "HOME": self.home}
        return self.run_cmd(["git"] + list(args), cwd=self.repo, env=env).stdout.strip()

    def node_json(self, cwd, expr):
        script = "console.log(JSON.stringify(%s))" % expr
        return json.loads(self.run_cmd(["node", "-e", script], cwd=cwd).stdout)

    def put(self, rel, text):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def setUp(self):
        super().setUp()
        if not shutil.which("git"):
            self.skipTest("git is not installed")
        self.other = nubtest.Registry().start()
        self.addCleanup(self.other.stop)
        self.url = self.other.tarball_url("c", "1.0.0")
        # a directory with its own dependency, files a packer would leave out
        # and a node_modules of its own that is never copied
        self.put("local-lib/package.json", json.dumps(
            {"name": "local-lib", "version": "1.2.0", "files": ["index.js"],
             "dependencies": {"b": "^1.0.0"}}))
        self.put("local-lib/index.js", "module.exports = {name: 'local-lib', "
                 "b: require('b/package.json').version};\n")
        self.put("local-lib/notes.txt", "kept\n")
        self.put("local-lib/.npmignore", "notes.txt\n")
        self.put("local-lib/node_modules/junk/index.js", "no\n")
        self.put("linked-dir/package.json", json.dumps({"name": "linked", "version": "0.0.1"}))
        self.put("linked-dir/index.js", "module.exports = 'linked';\n")
        self.repo = os.path.join(self.tmp, "gitdep")
        self.put("gitdep/package.json", json.dumps(
            {"name": "gitdep", "version": "3.0.0", "files": ["index.js"],
             "dependencies": {"a": "^1.0.0"}}))
        self.put("gitdep/index.js", "module.exports = 'git';\n")
        self.put("gitdep/extra.txt", "not packed, but bun installs the checkout\n")
        self.put("gitdep/sub/s.js", "1\n")
        self.git("init", "-q", "-b", "main")
        self.git("add", "-A")
        self.git("commit", "-qm", "one")
        self.git("tag", "v3.0.0")
        self.commit = self.git("rev-parse", "HEAD")
        self.git_url = "git+file://" + self.repo
        with urllib.request.urlopen(self.registry.tarball_url("e", "1.0.0")) as r:
            tgz = r.read()
        with open(os.path.join(self.tmp, "e-1.0.0.tgz"), "wb") as f:
            f.write(tgz)
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {
            "local-lib": "file:../local-lib", "linked": "link:../linked-dir",
            "gitdep": self.git_url + "#v3.0.0", "c": self.url,
            "e": "file:../e-1.0.0.tgz", "a": "^1.0.0"}})

    def lockfile(self):
        reg = self.registry
        integ = reg.integrity
        lock = {
            "lockfileVersion": 1,
            "workspaces": {"": {"name": "p", "dependencies": {
                "a": "^1.0.0", "c": self.url, "e": "file:../e-1.0.0.tgz",
                "gitdep": self.git_url + "#v3.0.0", "linked": "link:../linked-dir",
                "local-lib": "file:../local-lib"}}},
            "packages": {
                "a": ["a@1.0.0", "", {"dependencies": {"b": "^1.0.0"}}, integ("a", "1.0.0")],
                "b": ["b@1.0.0", "", {}, integ("b", "1.0.0")],
                "c": ["c@" + self.url, {"dependencies": {"b": "^2.0.0"},
                                        "bin": {"c-cli": "bin/cli.js"}},
                      self.other.integrity("c", "1.0.0")],
                "e": ["e@../e-1.0.0.tgz", {}, integ("e", "1.0.0")],
                "gitdep": ["gitdep@%s#%s" % (self.git_url, self.commit),
                           {"dependencies": {"a": "^1.0.0"}}, self.commit],
                "linked": ["linked@link:../linked-dir", {}],
                "local-lib": ["local-lib@file:../local-lib", {"dependencies": {"b": "^1.0.0"}}],
                "c/b": ["b@2.0.0", "", {}, integ("b", "2.0.0")],
            }}
        with open(os.path.join(self.proj, "bun.lock"), "w") as f:
            json.dump(lock, f, indent=2)

    def files(self, root):
        """Every path under node_modules, without the tools' own files
        (bun's .bun-tag, nub's state), symlinks with their targets."""
        return [p for p in self.tree(root)
                if p.startswith("node_modules/") and ".bun-tag" not in p
                and not p.startswith("node_modules/.nub-state")]

    EXPECTED = [
        "node_modules/.bin/", "node_modules/.bin/c-cli -> ../c/bin/cli.js",
        "node_modules/a/", "node_modules/a/index.js", "node_modules/a/package.json",
        "node_modules/b/", "node_modules/b/index.js", "node_modules/b/package.json",
        "node_modules/c/", "node_modules/c/bin/cli.js", "node_modules/c/node_modules/b/",
        "node_modules/c/node_modules/b/package.json",
        "node_modules/gitdep/", "node_modules/gitdep/extra.txt",
        "node_modules/gitdep/index.js", "node_modules/gitdep/package.json",
        "node_modules/gitdep/sub/", "node_modules/gitdep/sub/s.js",
        "node_modules/linked -> ../../linked-dir",
        "node_modules/local-lib/", "node_modules/local-lib/.npmignore",
        "node_modules/local-lib/index.js",
        "node_modules/local-lib/notes.txt", "node_modules/local-lib/package.json",
    ]

    def check(self):
        got = self.files(self.proj)
        for p in self.EXPECTED:
            self.assertIn(p, got)
        self.assertFalse([p for p in got if "junk" in p or "local-lib/node_modules" in p], got)
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})
        self.assertEqual(self.node_require(self.proj, "e")["name"], "e")
        for mod, want in (("local-lib", {"name": "local-lib", "b": "1.0.0"}),
                          ("linked", "linked"), ("gitdep", "git")):
            self.assertEqual(self.node_json(self.proj, "require(%s)" % json.dumps(mod)),
                             want, mod)

    def test_installs_every_source(self):
        self.lockfile()
        with open(os.path.join(self.proj, "bun.lock")) as f:
            before = f.read()
        self.nub("install", "--frozen-lockfile")
        self.check()
        with open(os.path.join(self.proj, "bun.lock")) as f:
            self.assertEqual(f.read(), before)
        # a cold store, then offline from the store (the directory and the
        # file: tarball are on this machine; the rest comes from the store)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-again")
        self.nub("install", "--frozen-lockfile")
        self.check()
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.other.stop()
        self.nub("install", "--frozen-lockfile", "--offline")
        self.check()

    def test_a_changed_directory_is_copied_again(self):
        self.lockfile()
        self.nub("install", "--frozen-lockfile")
        self.put("local-lib/index.js", "module.exports = 'edited';\n")
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.node_json(self.proj, "require('local-lib')"), "edited")

    def test_isolated_layout(self):
        self.lockfile()
        self.nub("install", "--node-linker", "isolated")
        for mod in ("local-lib", "linked", "gitdep", "c", "e", "a"):
            self.assertTrue(self.node_json(self.proj, "require(%s) && 1" % json.dumps(mod)))

    def test_a_git_entry_without_its_commit_is_named(self):
        self.lockfile()
        path = os.path.join(self.proj, "bun.lock")
        lock = self.read_json(path)
        lock["packages"]["gitdep"] = ["gitdep@" + self.git_url + "#v3.0.0", {}, "x"]
        self.write_json(path, lock)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("'gitdep'", proc.stderr)
        self.assertIn("without its commit", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))

    def test_written_back_with_every_source(self):
        # a changed package.json: bun.lock written again, each source as bun
        # writes it (it failed before: such entries were refused, and so was
        # the out-of-date file)
        self.lockfile()
        self.nub("add", "tagged")
        with open(os.path.join(self.proj, "bun.lock")) as f:
            text = f.read()
        for line in ('"local-lib": ["local-lib@file:../local-lib", { "dependencies": '
                     '{ "b": "^1.0.0" } }]',
                     '"linked": ["linked@link:../linked-dir", {}]',
                     '"gitdep": ["gitdep@%s#%s", { "dependencies": { "a": "^1.0.0" } }, "%s"]'
                     % (self.git_url, self.commit, self.commit),
                     '"e": ["e@../e-1.0.0.tgz", {}, "%s"]' % self.registry.integrity("e", "1.0.0"),
                     '"c": ["c@%s", { "dependencies": { "b": "^2.0.0" }, "bin": '
                     '{ "c-cli": "bin/cli.js" } }, "%s"]' % (self.url, self.other.integrity("c", "1.0.0")),
                     '"tagged": ["tagged@1.0.0", '):
            self.assertIn(line, text)
        self.check()
        bun = nubtest.tool("bun")
        if not bun:
            return
        # bun's own answer to the same package.json, from the same lockfile
        theirs = os.path.join(self.tmp, "theirs")
        os.makedirs(theirs)
        shutil.copy(os.path.join(self.proj, "package.json"), theirs)
        self.lockfile()
        shutil.copy(os.path.join(self.proj, "bun.lock"), theirs)
        with open(os.path.join(self.proj, "bun.lock"), "w") as f:
            f.write(text)
        with open(os.path.join(theirs, "bunfig.toml"), "w") as f:
            f.write('[install]\nregistry = "%s"\n' % self.registry.url)
        env = {"BUN_INSTALL_CACHE_DIR": os.path.join(self.tmp, "bun-cache"),
               "npm_config_registry": None}
        self.run_cmd([bun, "install", "--ignore-scripts"], cwd=theirs, env=env)
        with open(os.path.join(theirs, "bun.lock")) as f:
            self.assertEqual(text, f.read())
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        shutil.copy(os.path.join(theirs, "bunfig.toml"), self.proj)
        self.run_cmd([bun, "install", "--frozen-lockfile", "--ignore-scripts"], cwd=self.proj,
                     env=env)

    def test_the_tree_bun_builds(self):
        bun = nubtest.tool("bun")
        if not bun:
            self.skipTest("SKIP: bun is not installed")
        theirs = os.path.join(self.tmp, "theirs")
        os.makedirs(theirs)
        shutil.copy(os.path.join(self.proj, "package.json"), theirs)
        with open(os.path.join(theirs, "bunfig.toml"), "w") as f:
            f.write('[install]\nregistry = "%s"\n' % self.registry.url)
        self.run_cmd([bun, "install", "--ignore-scripts"], cwd=theirs,
                     env={"BUN_INSTALL_CACHE_DIR": os.path.join(self.tmp, "bun-cache"),
                          "npm_config_registry": None})
        shutil.copy(os.path.join(theirs, "bun.lock"), self.proj)
        with open(os.path.join(theirs, "bun.lock")) as f:
            lock = f.read()
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.files(self.proj), self.files(theirs))
        with open(os.path.join(self.proj, "bun.lock")) as f:
            self.assertEqual(f.read(), lock)
        self.check()


class BunGitPrepareTest(nubtest.NubTestCase):
    """A git package with a prepare script: bun installs its checkout as it
    is and, when the project trusts it, runs its prepare there (as it runs
    the project's own); untrusted, the script is named in the warning."""

    def setUp(self):
        super().setUp()
        if not shutil.which("git"):
            self.skipTest("git is not installed")
        self.repo = os.path.join(self.tmp, "gp")
        os.makedirs(self.repo)
        with open(os.path.join(self.repo, "package.json"), "w") as f:
            json.dump({"name": "gp", "version": "1.0.0", "files": ["index.js"],
                       "scripts": {"prepare": "node -e \"require('fs').writeFileSync("
                                              "'built.txt', 'made')\""}}, f)
        with open(os.path.join(self.repo, "index.js"), "w") as f:
            f.write("module.exports = 1;\n")
        BunSourcesTest.git(self, "init", "-q", "-b", "main")
        BunSourcesTest.git(self, "add", "-A")
        BunSourcesTest.git(self, "commit", "-qm", "one")
        self.commit = BunSourcesTest.git(self, "rev-parse", "HEAD")
        self.url = "git+file://" + self.repo

    def project(self, trusted):
        pj = {"name": "p", "version": "1.0.0", "dependencies": {"gp": self.url}}
        if trusted:
            pj["trustedDependencies"] = ["gp"]
        self.make_project(pj)
        lock = {"lockfileVersion": 1,
                "workspaces": {"": {"name": "p", "dependencies": {"gp": self.url}}},
                "packages": {"gp": ["gp@%s#%s" % (self.url, self.commit),
                                    {"hasInstallScript": True}, self.commit]}}
        if trusted:
            lock["trustedDependencies"] = ["gp"]
        with open(os.path.join(self.proj, "bun.lock"), "w") as f:
            json.dump(lock, f, indent=2)

    def listing(self, root):
        pkg = os.path.join(root, "node_modules", "gp")
        return sorted(f for f in os.listdir(pkg) if f != ".bun-tag")

    def test_trusted_prepared_in_place(self):
        self.project(trusted=True)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.listing(self.proj), ["built.txt", "index.js", "package.json"])
        with open(os.path.join(self.proj, "node_modules", "gp", "built.txt")) as f:
            self.assertEqual(f.read(), "made")
        # the store keeps the checkout: another project gets it unbuilt
        # until its own prepare runs
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--frozen-lockfile", "--offline")
        self.assertEqual(self.listing(self.proj), ["built.txt", "index.js", "package.json"])

    def test_trusted_prepared_in_place_isolated(self):
        # prepared in the project's own copy, never in the shared store
        self.project(trusted=True)
        self.nub("install", "--frozen-lockfile", "--node-linker", "isolated")
        self.assertEqual(self.listing(self.proj), ["built.txt", "index.js", "package.json"])
        pkg = os.path.realpath(os.path.join(self.proj, "node_modules", "gp"))
        self.assertTrue(pkg.startswith(os.path.realpath(self.proj) + os.sep), pkg)
        store = self.env["NUB_STORE_DIR"]
        self.assertEqual([f for d, _, fs in os.walk(store) for f in fs if f == "built.txt"], [])

    def test_untrusted_not_run_and_named(self):
        self.project(trusted=False)
        proc = self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.listing(self.proj), ["index.js", "package.json"])
        self.assertIn("gp@", proc.stderr)
        self.assertIn("trustedDependencies", proc.stderr)

    def test_the_tree_bun_builds(self):
        bun = nubtest.tool("bun")
        if not bun:
            self.skipTest("SKIP: bun is not installed")
        self.project(trusted=True)
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.run_cmd([bun, "install", "--frozen-lockfile"], cwd=theirs,
                     env={"BUN_INSTALL_CACHE_DIR": os.path.join(self.tmp, "bun-cache")})
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.listing(self.proj), self.listing(theirs))


class BunLayoutTest(nubtest.NubTestCase):
    """bun reads bun.lock's keys as what each dependency resolves to and lays
    the tree out again on every install (its Tree.zig hoisting), so a file an
    older bun wrote installs as today's bun places it: peer-host (peer
    b@^1) at the top with its own b, as the keys here have it (bun-t3-env's
    zod-to-json-schema), goes under uses-peer-host, whose b@1 it then sees,
    as bun 1.4.5 puts it; the top's b stays 2.0.0. Before, nub followed the
    keys."""

    TREE = ["node_modules/b/", "node_modules/uses-peer-host/",
            "node_modules/uses-peer-host/node_modules/b/",
            "node_modules/uses-peer-host/node_modules/peer-host/"]

    def test_the_tree_bun_lays_out_from_the_keys(self):
        self.make_project("bun-old-keys")
        self.write_lock_template("bun-old-keys/bun.lock.template", "bun.lock")
        lock = os.path.join(self.proj, "bun.lock")
        with open(lock, "rb") as f:
            before = f.read()
        self.nub("install", "--frozen-lockfile")
        dirs = [p for p in self.installed()
                if p.endswith("/") and p.rstrip("/").split("/")[-2:-1] == ["node_modules"]]
        self.assertEqual(dirs, self.TREE)
        self.assertEqual(self.node_require(os.path.join(
            self.proj, "node_modules/uses-peer-host"), "peer-host")["deps"], {"b": "1.0.0"})
        self.assertEqual(self.node_require(self.proj, "b")["version"], "2.0.0")
        with open(lock, "rb") as f:
            self.assertEqual(f.read(), before)  # frozen: the file as it was
        # offline again, and the commands that read the lockfile agree
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--frozen-lockfile", "--offline")
        self.assertIn("uses-peer-host", self.nub("why", "peer-host").stdout)
        bun = nubtest.tool("bun")
        if bun:
            theirs = os.path.join(self.tmp, "theirs")
            shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
            self.run_cmd([bun, "install", "--frozen-lockfile"], cwd=theirs,
                         env={"BUN_INSTALL_CACHE_DIR": os.path.join(self.tmp, "bun-cache")})
            self.assertEqual(self.installed(theirs), self.installed())


class BunWriteBackTest(nubtest.NubTestCase):
    """When package.json no longer matches bun.lock (a hand edit, nub add,
    nub remove), nub resolves again, as `bun install` does, and writes
    bun.lock as bun 1.4 writes it: the packages placed by bun's hoisting,
    bun's field order and formatting; then installs the tree that file
    means. Before, an out-of-date bun.lock was refused (exit 16, "run bun
    install") and --no-frozen-lockfile said nub cannot write it back. With
    bun on PATH, bun itself must accept the written file frozen and write
    the same bytes for the same package.json."""

    def setUp(self):
        super().setUp()
        self.make_project("basic")
        self.write_lock_template("basic/bun.lock.template", "bun.lock")
        self.lock = os.path.join(self.proj, "bun.lock")

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def version(self, rel):
        with open(os.path.join(self.proj, "node_modules", rel, "package.json")) as f:
            return json.load(f)["version"]

    def test_add_and_remove_write_bun_lock(self):
        self.nub("add", "tagged", "b@^2.0.0")
        text = self.read(self.lock).decode()
        self.assertIn('"tagged": ["tagged@1.0.0", ', text)
        self.assertIn('"b": "^2.0.0"', text)
        # b@2 is the project's now, a's b@1 nested under a
        self.assertIn('"a/b": ["b@1.0.0", ', text)
        self.assertEqual(self.version("b"), "2.0.0")
        self.assertEqual(self.version("a/node_modules/b"), "1.0.0")
        self.assertEqual(self.version("tagged"), "1.0.0")
        self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")
        self.nub("remove", "e")
        text = self.read(self.lock).decode()
        self.assertNotIn('"e"', text)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "e")))
        # frozen from the written file: the same tree
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("ci")
        self.assertEqual(self.version("tagged"), "1.0.0")
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))

    def test_a_hand_edit_is_resolved_again_and_ci_refuses(self):
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["dependencies"]["b"] = "^2.0.0"
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        before = self.read(self.lock)
        proc = self.nub_fails("ci")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("bun install", proc.stderr)
        self.assertEqual(self.read(self.lock), before)
        self.nub("install")
        self.assertEqual(self.version("b"), "2.0.0")
        self.assertIn('"b": ["b@2.0.0", ', self.read(self.lock).decode())

    def test_unchanged_stays_byte_for_byte(self):
        before = self.read(self.lock)
        mtime = os.stat(self.lock).st_mtime_ns
        self.nub("install")
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.read(self.lock), before)
        self.assertEqual(os.stat(self.lock).st_mtime_ns, mtime)

    def test_a_failed_add_leaves_both_files(self):
        before = {f: self.read(os.path.join(self.proj, f)) for f in ("package.json", "bun.lock")}
        proc = self.nub_fails("add", "no-such-package")
        self.assertNotEqual(proc.returncode, 0)
        for f, data in before.items():
            self.assertEqual(self.read(os.path.join(self.proj, f)), data, f)

    def bun(self):
        bun = nubtest.tool("bun")
        if not bun:
            self.skipTest("SKIP: bun is not installed")
        return bun

    def run_bun(self, cwd, *args):
        with open(os.path.join(cwd, "bunfig.toml"), "w") as f:
            f.write('[install]\nregistry = "%s"\n' % self.registry.url)
        return self.run_cmd([self.bun()] + list(args) + ["--ignore-scripts"], cwd=cwd,
                            env={"BUN_INSTALL_CACHE_DIR": os.path.join(self.tmp, "bun-cache"),
                                 "npm_config_registry": None})

    def test_bun_accepts_what_nub_wrote_and_writes_the_same(self):
        self.bun()
        # the lockfile bun itself writes for the fixture, then an add each way
        os.unlink(self.lock)
        self.run_bun(self.proj, "install")
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.nub("add", "tagged", "plugin", "react-like@^1.0.0")
        self.run_bun(theirs, "add", "tagged", "plugin", "react-like@^1.0.0")
        self.assertEqual(self.read(self.lock).decode(),
                         self.read(os.path.join(theirs, "bun.lock")).decode())
        # bun, frozen, from nub's file: accepted, and left as it is
        written = self.read(self.lock)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.run_bun(self.proj, "install", "--frozen-lockfile")
        self.assertEqual(self.read(self.lock), written)


    def test_a_merge_conflict_keeps_both_sides(self):
        # bun 1.4 drops a bun.lock with git's markers ("failed to parse
        # lockfile ... Ignoring lockfile") and resolves afresh; nub merges
        # both sides (npm's rule) and brings the result in line: here the
        # registry has nothing newer, so the bytes are bun's, and bun
        # accepts nub's file frozen. CI refuses the file.
        self.bun()
        os.unlink(self.lock)
        theirs = self.merge_conflict("bun.lock", lambda d: self.run_bun(d, "install"))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("merge-conflict", proc.stderr)
        proc = self.nub("install", "--ignore-scripts")
        self.assertIn("bun.lock has merge-conflict markers: both sides merged", proc.stderr)
        self.run_bun(theirs, "install")
        written = self.read(self.lock)
        self.assertEqual(written.decode(), self.read(os.path.join(theirs, "bun.lock")).decode())
        self.assertEqual(self.installed(), self.installed(theirs))
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.run_bun(self.proj, "install", "--frozen-lockfile")
        self.assertEqual(self.read(self.lock), written)

    def test_a_merge_conflict_keeps_a_pin(self):
        # our side pins fresh@1.0.0 for fresh-user's ^1.0.0 while 1.1.0 is
        # out, theirs has 1.1.0 (bun itself, dropping the file, takes
        # 1.1.0): ours is kept, npm's rule
        self.bun()
        os.unlink(self.lock)
        pj = os.path.join(self.proj, "package.json")
        self.write_json(pj, {"name": "proj", "version": "1.0.0",
                             "dependencies": {"fresh": "1.0.0", "fresh-user": "^1.0.0"}})
        self.run_bun(self.proj, "install")
        with open(self.lock) as f:
            pinned = f.read().replace('"fresh": "1.0.0",\n', "")
        self.write_json(pj, {"name": "proj", "version": "1.0.0",
                             "dependencies": {"fresh-user": "^1.0.0", "tagged": "^1.0.0"}})
        os.unlink(self.lock)  # the other branch locked afresh
        self.run_bun(self.proj, "install")
        with open(self.lock) as f:
            added = f.read()
        self.assertIn('"fresh": ["fresh@1.1.0"', added)
        with open(self.lock, "w") as f:
            f.write("<<<<<<< HEAD\n%s=======\n%s>>>>>>> other\n" % (pinned, added))
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--ignore-scripts")
        self.assertIn('"fresh": ["fresh@1.0.0"', self.read(self.lock).decode())
        self.assertEqual(self.version("fresh"), "1.0.0")
        self.assertEqual(self.version("tagged"), "1.0.0")
        written = self.read(self.lock)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.run_bun(self.proj, "install", "--frozen-lockfile")
        self.assertEqual(self.read(self.lock), written)

    def test_adding_a_package_already_in_the_tree(self):
        # b@1 is a's: adding it to the project is a new entry of the
        # project's own (workspaces[""]), and nothing else moves
        self.bun()
        os.unlink(self.lock)
        self.run_bun(self.proj, "install")
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        before = self.read(self.lock).decode()
        self.nub("add", "b@^1.0.0")
        self.run_bun(theirs, "add", "b@^1.0.0")
        self.assertNotEqual(self.read(self.lock).decode(), before)
        self.assertEqual(self.read(self.lock).decode(),
                         self.read(os.path.join(theirs, "bun.lock")).decode())

    def test_an_add_keeps_the_projects_optional_peers(self):
        # the project's own optional peers: workspaces[""]'s "optionalPeers"
        # list, which bun writes back with the rest of the section
        self.bun()
        os.unlink(self.lock)
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["peerDependencies"] = {"fresh": "^1.0.0", "react-like": "*"}
        pj["peerDependenciesMeta"] = {"react-like": {"optional": True},
                                      "fresh": {"optional": True}}
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        self.run_bun(self.proj, "install")
        self.assertIn('"optionalPeers": [', self.read(self.lock).decode())
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.nub("add", "tagged")
        self.run_bun(theirs, "add", "tagged")
        self.assertEqual(self.read(self.lock).decode(),
                         self.read(os.path.join(theirs, "bun.lock")).decode())

    def old_fresh_pin(self):
        """bun.lock (written by bun) pins fresh@1.0.0 for the project's
        ^1.0.0 while 1.1.0 is out."""
        self.bun()
        os.unlink(self.lock)
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["dependencies"]["fresh"] = "1.0.0"
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        self.run_bun(self.proj, "install")
        for name in ("package.json", "bun.lock"):
            path = os.path.join(self.proj, name)
            text = self.read(path).decode().replace('"fresh": "1.0.0"', '"fresh": "^1.0.0"')
            with open(path, "w") as f:
                f.write(text)

    def test_an_add_keeps_the_other_pins(self):
        # bun.lock pins fresh@1.0.0 where ^1.0.0 now also takes 1.1.0: an add
        # of another package keeps that pin, as bun add keeps it
        self.old_fresh_pin()
        self.assertIn('"fresh": ["fresh@1.0.0"', self.read(self.lock).decode())
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.nub("add", "tagged")
        self.run_bun(theirs, "add", "tagged")
        self.assertIn('"fresh": ["fresh@1.0.0"', self.read(self.lock).decode())
        self.assertEqual(self.read(self.lock).decode(),
                         self.read(os.path.join(theirs, "bun.lock")).decode())

    def test_update_moves_the_range_as_bun_does(self):
        # fresh ^1.0.0 locked at 1.0.0 while 1.1.0 is out: `bun update
        # fresh` installs 1.1.0 and writes ^1.1.0 into package.json
        self.old_fresh_pin()
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.nub("update", "fresh", "--ignore-scripts")
        self.run_bun(theirs, "update", "fresh")
        for name in ("package.json", "bun.lock"):
            self.assertEqual(self.read(os.path.join(self.proj, name)).decode(),
                             self.read(os.path.join(theirs, name)).decode(), name)
        self.assertEqual(self.read_json(os.path.join(self.proj, "package.json"))
                         ["dependencies"]["fresh"], "^1.1.0")
        self.assertEqual(self.version("fresh"), "1.1.0")

    def test_an_add_keeps_a_pin_only_another_platform_needs(self):
        # fresh@1.0.0 is in bun.lock only for opt-win-fresh (win32's):
        # not installed here, its pin is kept all the same, as bun add
        # keeps it (a real project's wasm32 bindings' runtime moved before)
        self.bun()
        os.unlink(self.lock)
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["optionalDependencies"] = {"opt-win-fresh": "1.0.0"}
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        self.run_bun(self.proj, "install")
        text = self.read(self.lock).decode()
        self.assertIn('"fresh": ["fresh@1.1.0"', text)
        text = text.replace("fresh@1.1.0", "fresh@1.0.0").replace(
            "fresh-1.1.0.tgz", "fresh-1.0.0.tgz").replace(
            self.registry.integrity("fresh", "1.1.0"), self.registry.integrity("fresh", "1.0.0"))
        self.assertIn('"fresh": ["fresh@1.0.0"', text)
        with open(self.lock, "w") as f:
            f.write(text)
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.nub("add", "tagged")
        self.run_bun(theirs, "add", "tagged")
        self.assertIn('"fresh": ["fresh@1.0.0"', self.read(self.lock).decode())
        self.assertEqual(self.read(self.lock).decode(),
                         self.read(os.path.join(theirs, "bun.lock")).decode())

    def test_an_add_keeps_the_entries_as_the_file_has_them(self):
        # an older bun wrote c's bin without "./" and no peer of b's that a
        # newer document has: bun add writes unchanged entries back as they
        # are (it does not read their documents again), and so does nub
        self.bun()
        os.unlink(self.lock)
        self.run_bun(self.proj, "install")
        text = self.read(self.lock).decode()
        old = '"bin": { "c-cli": "bin/cli.js" }'
        self.assertIn(old, text)
        with open(self.lock, "w") as f:
            f.write(text.replace(old, '"bin": { "c-cli": "./bin/cli.js" }, "libc": "glibc"'))
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.nub("add", "tagged")
        self.run_bun(theirs, "add", "tagged")
        # (its values as the file has them, in bun's order of fields)
        self.assertIn('"libc": "glibc", "bin": { "c-cli": "./bin/cli.js" }',
                      self.read(self.lock).decode())
        self.assertEqual(self.read(self.lock).decode(),
                         self.read(os.path.join(theirs, "bun.lock")).decode())

    def test_an_add_keeps_a_dist_tags_pin(self):
        # "tagged": "latest" locked to 1.1.0 (latest was that when it was
        # locked; it is 1.0.0 now): an add of another package keeps it, as
        # bun add keeps it (a real project's "@types/bun": "latest" moved)
        self.bun()
        os.unlink(self.lock)
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["dependencies"]["tagged"] = "latest"
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        self.run_bun(self.proj, "install")
        text = self.read(self.lock).decode()
        self.assertIn('"tagged": ["tagged@1.0.0"', text)
        text = text.replace("tagged@1.0.0", "tagged@1.1.0").replace(
            "tagged-1.0.0.tgz", "tagged-1.1.0.tgz").replace(
            self.registry.integrity("tagged", "1.0.0"), self.registry.integrity("tagged", "1.1.0"))
        with open(self.lock, "w") as f:
            f.write(text)
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.nub("add", "plugin")
        self.run_bun(theirs, "add", "plugin")
        self.assertEqual(self.read(self.lock).decode(),
                         self.read(os.path.join(theirs, "bun.lock")).decode())
        self.assertIn('"tagged": ["tagged@1.1.0"', self.read(self.lock).decode())

    def test_a_native_bin_links_to_the_platform_build(self):
        # bun links the bin of a package of "nativeDependencies" (esbuild's
        # by default) straight to its platform package's binary
        self.bun()
        for f in ("bun.lock", "package.json"):
            os.unlink(os.path.join(self.proj, f))
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "p", "version": "1.0.0",
                         "dependencies": {"nativetool": "1.0.0"},
                         "nativeDependencies": ["nativetool"]})
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.run_bun(theirs, "install")
        shutil.copy(os.path.join(theirs, "bun.lock"), self.proj)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(modes=True),
                         [p for p in self.installed(theirs, modes=True)])
        link = os.readlink(os.path.join(self.proj, "node_modules", ".bin", "nativetool"))
        if nubtest.npm_os() in ("linux", "darwin") and nubtest.npm_cpu() in ("x64", "arm64"):
            self.assertEqual(link, "../@nt/%s-%s/bin/nativetool" % (nubtest.npm_os(),
                                                                  nubtest.npm_cpu()))

    def test_a_members_dependencys_optional_dependency(self):
        # a member's dependency (opt-tool) with an optional dependency of
        # its own (opt-helper, any platform): bun installs both
        self.bun()
        for f in ("bun.lock", "package.json"):
            os.unlink(os.path.join(self.proj, f))
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "p", "version": "1.0.0", "workspaces": ["app"]})
        os.makedirs(os.path.join(self.proj, "app"))
        self.write_json(os.path.join(self.proj, "app", "package.json"),
                        {"name": "app", "version": "1.0.0",
                         "dependencies": {"opt-tool": "1.0.0"}})
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        # bun's hoisted tree (a new workspace gets the isolated one)
        with open(os.path.join(self.proj, "bunfig.toml"), "w") as f:
            f.write('[install]\nlinker = "hoisted"\n')
        with open(os.path.join(theirs, "bunfig.toml"), "w") as f:
            f.write('[install]\nlinker = "hoisted"\nregistry = "%s"\n' % self.registry.url)
        self.run_cmd([self.bun(), "install", "--ignore-scripts"], cwd=theirs,
                     env={"BUN_INSTALL_CACHE_DIR": os.path.join(self.tmp, "bun-cache"),
                          "npm_config_registry": None})
        shutil.copy(os.path.join(theirs, "bun.lock"), self.proj)
        self.nub("install", "--frozen-lockfile")
        self.assertIn("node_modules/opt-helper/package.json", self.installed(theirs))
        self.assertEqual(self.installed(modes=True), self.installed(theirs, modes=True))

    def test_scoped_overrides_as_bun_writes_them(self):
        # npm's nested form, which bun 1.4 follows one level deep and
        # records as an object (lockfileVersion 3); before, nub refused
        # to write it (exit 21)
        pj = {"name": "basic", "version": "1.0.0",
              "dependencies": {"a": "^1.0.0", "twin": "^1.0.0"},
              "overrides": {"a": {"b": "2.0.0"}, "e": "1.0.0"}}
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        stale = self.read(self.lock)
        self.nub("install")
        self.assertEqual(self.version("b"), "2.0.0")  # a's, hoisted
        self.assertEqual(self.version("twin/node_modules/b"), "1.0.0")
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "a", "node_modules")))
        text = self.read(self.lock).decode()
        self.assertIn('"lockfileVersion": 3,', text)
        self.assertIn('  "overrides": {\n    "a": {\n      "b": "2.0.0",\n    },\n'
                      '    "e": "1.0.0",\n  },\n', text)
        # frozen from what was written: the same tree
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("ci")
        self.assertEqual(self.version("b"), "2.0.0")
        self.assertEqual(self.version("twin/node_modules/b"), "1.0.0")
        if not nubtest.tool("bun"):
            return
        theirs = os.path.join(self.tmp, "theirs")
        os.makedirs(theirs)
        shutil.copy(os.path.join(self.proj, "package.json"), theirs)
        with open(os.path.join(theirs, "bun.lock"), "wb") as f:
            f.write(stale)  # bun updates the same out-of-date file
        self.run_bun(theirs, "install")
        self.assertEqual(text, self.read(os.path.join(theirs, "bun.lock")).decode())
        written = self.read(self.lock)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.run_bun(self.proj, "install", "--frozen-lockfile")
        self.assertEqual(self.read(self.lock), written)

    def test_a_changed_override_resolves_again(self):
        # bun.lock records the overrides; one added to package.json alone
        # was ignored before (a's b stayed 1.0.0, exit 0)
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["overrides"] = {"b": "2.0.0"}
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        before = self.read(self.lock)
        proc = self.nub_fails("ci")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("overrides", proc.stderr)
        self.assertEqual(self.read(self.lock), before)
        self.nub("install")
        self.assertEqual(self.version("b"), "2.0.0")
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "a", "node_modules")))
        self.assertIn('  "overrides": {\n    "b": "2.0.0",\n  },\n', self.read(self.lock).decode())
        self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")

    def test_overrides_nested_deeper_are_refused(self):
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["overrides"] = {"a": {"b": {"c": "1.0.0"}}}
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        before = self.read(self.lock)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 21, proc.stderr)
        self.assertIn("one level", proc.stderr)
        self.assertEqual(self.read(self.lock), before)


class BunPackageExtensionsTest(nubtest.NubTestCase):
    """package.json's packageExtensions, as bun 1.4 applies them (every
    matching selector; the manifest's own entries win, peers too) and
    records them (bun.lock's "packageExtensions": what each added, an
    optional dependency among "dependencies"): bun.lock byte for byte as
    bun writes it when they are added or taken away, and a frozen install
    refuses a file they changed, as bun's does."""

    EXTS = {"c@^1": {"optionalDependencies": {"e": "1.0.0"}},
            "peer-host": {"peerDependencies": {"b": "^2.0.0", "tagged": "*"},
                          "peerDependenciesMeta": {"tagged": {"optional": True}}},
            "a": {"dependencies": {"e": "1.0.0"}},
            "a@1": {"dependencies": {"tagged": "1.0.0", "b": "^2.0.0"}}}

    def project(self, name, exts):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        doc = {"name": "proj", "version": "1.0.0",
               "dependencies": {"a": "1.0.0", "peer-host": "1.0.0", "c": "1.0.0", "b": "2.0.0"}}
        if exts:
            doc["packageExtensions"] = exts
        self.write_json(os.path.join(d, "package.json"), doc)
        return d

    @staticmethod
    def lock(d):
        with open(os.path.join(d, "bun.lock")) as f:
            return f.read()

    def test_as_bun_writes_them(self):
        for before, after in ((None, self.EXTS), (self.EXTS, None)):
            with self.subTest(before=bool(before)):
                theirs = self.project("bun-%d" % bool(before), before)
                self.bun(theirs, "install", "--ignore-scripts")
                mine = os.path.join(self.tmp, "nub-%d" % bool(before))
                shutil.copytree(theirs, mine, ignore=shutil.ignore_patterns("node_modules"))
                for d in (theirs, mine):
                    pj = self.read_json(os.path.join(d, "package.json"))
                    pj.pop("packageExtensions", None)
                    if after:
                        pj["packageExtensions"] = after
                    self.write_json(os.path.join(d, "package.json"), pj)
                proc = self.nub("install", "--frozen-lockfile", cwd=mine, check=False)
                self.assertEqual(proc.returncode, 16, proc.stderr)
                self.assertIn("packageExtensions", proc.stderr)
                self.assertNotEqual(self.bun(theirs, "install", "--frozen-lockfile",
                                             check=False).returncode, 0)
                self.bun(theirs, "install", "--ignore-scripts")
                self.nub("install", "--ignore-scripts", cwd=mine)
                self.assertEqual(self.lock(mine), self.lock(theirs))
                if after:
                    self.assertIn('"a@1.0.0": { "dependencies": ["e", "tagged"] }',
                                  self.lock(mine))
                # the file as written installs frozen, the tree bun's
                self.nub("install", "--frozen-lockfile", "--ignore-scripts", cwd=mine)
                self.assertEqual(self.installed(mine), self.installed(theirs))


if __name__ == "__main__":
    unittest.main(verbosity=2)
