#!/usr/bin/env python3
"""Committed patches (patching.h): pnpm-workspace.yaml's
patchedDependencies, written by pnpm itself (`pnpm patch` then `pnpm
patch-commit`), applied by nub in both layouts, from a cold store and
offline, recorded in the lockfile as pnpm records them. Differential: the
patched package's files are pnpm's, byte for byte; nub.lock equals pnpm's
pnpm-lock.yaml; pnpm fails where nub fails (a patch that does not apply,
one that patches nothing, a lockfile whose patch hash is stale).

`a@1.0.0` depends on `b@^1.0.0`; the patch is for b@1.0.0.
"""
import os
import re
import shutil

import nubtest
from nubtest import NubTestCase, read, write


def files(root):
    """{relative path: (bytes, executable)} of the package folder root."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = (f.read(), bool(os.stat(p).st_mode & 0o111))
    return out


def b_of(proj):
    """b's folder as a's code finds it: beside a in the isolated layout,
    at the top in the hoisted one."""
    beside = os.path.join(os.path.realpath(os.path.join(proj, "node_modules", "a")), "..", "b")
    if os.path.isdir(beside):
        return os.path.realpath(beside)
    return os.path.join(proj, "node_modules", "b")


PROJECT_FILES = ("package.json", ".npmrc", "pnpm-workspace.yaml", "patches", "pnpm-lock.yaml",
                 "bun.lock", "bunfig.toml")


def bun_files(root):
    """files(), without bun's bookkeeping (its .bun-tag-* files)."""
    return {k: v for k, v in files(root).items() if not k.startswith(".bun-tag")}


class PatchesTest(NubTestCase):

    def pnpm_project(self, edit=None):
        """A project patched by pnpm itself: installed, `pnpm patch
        b@1.0.0`, b's index.js edited and a file added, `pnpm
        patch-commit`. Returns its directory."""
        d = os.path.join(self.tmp, "by-pnpm")
        os.makedirs(d)
        self.write_json(os.path.join(d, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"}})
        write(os.path.join(d, ".npmrc"), "registry=%s\n" % self.registry.url)
        self.pnpm(d, "install")
        edit_dir = os.path.join(self.tmp, "b-edit")
        self.pnpm(d, "patch", "b@1.0.0", "--edit-dir", edit_dir)
        index = os.path.join(edit_dir, "index.js")
        write(index, read(index).replace('version: "1.0.0"', 'version: "1.0.0-patched"'))
        write(os.path.join(edit_dir, "lib", "added.js"), "module.exports = 'added';\n")
        if edit:
            edit(edit_dir)
        self.pnpm(d, "patch-commit", edit_dir)
        self.assertIn("b@1.0.0", read(os.path.join(d, "pnpm-workspace.yaml")))
        self.assertIn("patch_hash=", read(os.path.join(d, "pnpm-lock.yaml")))
        return d

    def bun_project(self):
        """A project patched by bun itself: `bun patch b`, b edited in
        node_modules, `bun patch --commit node_modules/b`."""
        d = os.path.join(self.tmp, "by-bun")
        os.makedirs(d)
        self.write_json(os.path.join(d, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"}})
        self.bun(d, "install")
        self.bun(d, "patch", "b")
        index = os.path.join(d, "node_modules", "b", "index.js")
        write(index, read(index).replace('version: "1.0.0"', 'version: "1.0.0-patched"'))
        write(os.path.join(d, "node_modules", "b", "lib", "added.js"), "module.exports = 1;\n")
        self.bun(d, "patch", "--commit", "node_modules/b")
        self.assertIn("patchedDependencies", read(os.path.join(d, "bun.lock")))
        return d

    def test_bun_patch_frozen_cold_and_offline(self):
        """bun's patch: package.json's patchedDependencies, bun.lock's
        record of them; nub's b is bun's, bun.lock is left as it is."""
        src = self.bun_project()
        want = bun_files(os.path.join(src, "node_modules", "b"))
        self.assertIn(b"1.0.0-patched", want["index.js"][0])
        lock = read(os.path.join(src, "bun.lock"))
        d = self.copy(src, "nub")
        self.nub("install", "--frozen-lockfile", cwd=d)
        self.assertEqual(bun_files(os.path.join(d, "node_modules", "b")), want)
        self.assertEqual(read(os.path.join(d, "bun.lock")), lock)
        d2 = self.copy(src, "nub-offline")
        self.nub("install", "--frozen-lockfile", "--offline", cwd=d2,
                 env={"npm_config_registry": "http://127.0.0.1:9/"})
        self.assertEqual(bun_files(os.path.join(d2, "node_modules", "b")), want)

    def test_bun_lock_written_as_bun_writes_it(self):
        """With package.json's patches changed, nub writes bun.lock as bun
        does; a frozen install refuses the change."""
        src = self.bun_project()
        d = self.copy(src, "nub")
        self.nub("install", cwd=d)
        self.assertEqual(read(os.path.join(d, "bun.lock")), read(os.path.join(src, "bun.lock")))
        # a second patch, for a
        patch = ("diff --git a/index.js b/index.js\n--- a/index.js\n+++ b/index.js\n"
                 "@@ -1,1 +1,1 @@\n-'use strict';\n+\"use strict\";\n")
        for where in (src, d):
            write(os.path.join(where, "patches", "a.patch"), patch)
            pj = self.read_json(os.path.join(where, "package.json"))
            pj["patchedDependencies"]["a@1.0.0"] = "patches/a.patch"
            self.write_json(os.path.join(where, "package.json"), pj)
        self.assertNotEqual(self.nub("install", "--frozen-lockfile", cwd=d, check=False).returncode, 0)
        self.bun(src, "install")
        self.nub("install", cwd=d)
        self.assertEqual(read(os.path.join(d, "bun.lock")), read(os.path.join(src, "bun.lock")))
        for name in ("a", "b"):
            self.assertEqual(bun_files(os.path.join(d, "node_modules", name)),
                             bun_files(os.path.join(src, "node_modules", name)))
        # b's patch taken out: b as published again, in both
        for where in (src, d):
            pj = self.read_json(os.path.join(where, "package.json"))
            del pj["patchedDependencies"]["b@1.0.0"]
            self.write_json(os.path.join(where, "package.json"), pj)
        self.bun(src, "install")
        self.nub("install", cwd=d)
        self.assertEqual(read(os.path.join(d, "bun.lock")), read(os.path.join(src, "bun.lock")))
        b = bun_files(os.path.join(d, "node_modules", "b"))
        self.assertNotIn("lib/added.js", b)
        self.assertEqual(b, bun_files(os.path.join(src, "node_modules", "b")))

    def npm12_project(self):
        """A project patched by npm 12 itself: `npm patch add b`, an edit,
        `npm patch commit` (package.json's patchedDependencies, the patch in
        npm's plain unified format, package-lock.json v4 with "patched")."""
        d = os.path.join(self.tmp, "by-npm12")
        os.makedirs(d)
        self.write_json(os.path.join(d, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"}})
        self.npm("install", cwd=d, which="npm12")
        edit = os.path.join(self.tmp, "npm-edit")
        self.npm("patch", "add", "b", "--edit-dir", edit, cwd=d, which="npm12")
        index = os.path.join(edit, "index.js")
        write(index, read(index).replace('version: "1.0.0"', 'version: "1.0.0-npm"'))
        write(os.path.join(edit, "lib", "added.js"), "module.exports = 'added';\n")
        self.npm("patch", "commit", edit, cwd=d, which="npm12")
        lock = self.read_json(os.path.join(d, "package-lock.json"))
        self.assertEqual(lock["lockfileVersion"], 4)
        self.assertIn("patched", lock["packages"]["node_modules/b"])
        return d

    def test_npm12_patch_frozen_cold_and_offline(self):
        """npm 12's patch: nub's b is npm's, package-lock.json (v4) is left
        as it is, from a cold store and offline."""
        src = self.npm12_project()
        want = files(os.path.join(src, "node_modules", "b"))
        self.assertIn(b"1.0.0-npm", want["index.js"][0])
        self.assertIn("lib/added.js", want)
        lock = read(os.path.join(src, "package-lock.json"))
        for name, env in (("nub", {}), ("nub-offline",
                                        {"npm_config_registry": "http://127.0.0.1:9/"})):
            d = self.copy(src, name)
            shutil.copy2(os.path.join(src, "package-lock.json"), d)
            args = ["install", "--frozen-lockfile"] + (["--offline"] if env else [])
            self.nub(*args, cwd=d, env=env)
            self.assertEqual(files(os.path.join(d, "node_modules", "b")), want)
            self.assertEqual(read(os.path.join(d, "package-lock.json")), lock)

    def test_npm12_patch_changed(self):
        """An edited patch: the lockfile's "patched" integrity no longer
        matches, a frozen install refuses it (as npm ci does), an install
        records the new one as npm 12 does."""
        src = self.npm12_project()
        d = self.copy(src, "nub")
        shutil.copy2(os.path.join(src, "package-lock.json"), d)
        for where in (src, d):
            p = os.path.join(where, "patches", "b@1.0.0.patch")
            write(p, read(p).replace("1.0.0-npm", "1.0.0-again"))
        proc = self.nub("install", "--frozen-lockfile", cwd=d, check=False)
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertNotEqual(self.npm("ci", cwd=src, which="npm12", check=False).returncode, 0)
        self.nub("install", cwd=d)
        self.npm("install", cwd=src, which="npm12")
        mine = self.read_json(os.path.join(d, "package-lock.json"))
        theirs = self.read_json(os.path.join(src, "package-lock.json"))
        self.assertEqual(mine["lockfileVersion"], theirs["lockfileVersion"])
        self.assertEqual(mine["packages"]["node_modules/b"]["patched"],
                         theirs["packages"]["node_modules/b"]["patched"])
        self.assertEqual(files(os.path.join(d, "node_modules", "b")),
                         files(os.path.join(src, "node_modules", "b")))
        # npm 12's own clean install takes the lockfile nub wrote
        theirs2 = self.copy(d, "theirs2")
        shutil.copy2(os.path.join(d, "package-lock.json"), theirs2)
        self.npm("ci", cwd=theirs2, which="npm12")
        self.assertEqual(files(os.path.join(theirs2, "node_modules", "b")),
                         files(os.path.join(d, "node_modules", "b")))

    def berry(self, cwd, *args):
        exe = nubtest.tool("berry")
        if not exe:
            self.skipTest("SKIP: yarn berry is not installed")
        return self.run_cmd([exe] + list(args), cwd=cwd, timeout=300,
                            env={"YARN_GLOBAL_FOLDER": os.path.join(self.tmp, "berry-global"),
                                 "YARN_ENABLE_TELEMETRY": "0", "npm_config_registry": None})

    def berry_project(self, add_line=None):
        """A project patched by yarn berry itself: `yarn patch b`, an edit,
        `yarn patch-commit -s` (package.json's resolutions to a patch:
        reference, the patch under .yarn/patches, yarn.lock's patch: entry)."""
        d = os.path.join(self.tmp, "by-berry")
        os.makedirs(d)
        self.write_json(os.path.join(d, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"}})
        write(os.path.join(d, ".yarnrc.yml"),
              'nodeLinker: node-modules\nnpmRegistryServer: "%s"\nunsafeHttpWhitelist:\n'
              '  - 127.0.0.1\nenableTelemetry: false\nenableGlobalCache: false\n'
              % self.registry.url.rstrip("/"))
        write(os.path.join(d, ".npmrc"), "registry=%s\n" % self.registry.url)
        write(os.path.join(d, "yarn.lock"), "")
        self.berry(d, "install")
        out = self.berry(d, "patch", "b").stdout
        edit = re.search(r"yarn patch-commit -s (\S+)", out).group(1)
        index = os.path.join(edit, "index.js")
        text = read(index).replace('version: "1.0.0"', 'version: "1.0.0-berry"')
        write(index, text + (add_line or ""))
        write(os.path.join(edit, "lib", "added.js"), "module.exports = 'added';\n")
        self.berry(d, "patch-commit", "-s", edit)
        self.berry(d, "install")
        self.assertIn("b@patch:", read(os.path.join(d, "yarn.lock")))
        return d

    def test_berry_patch_frozen_cold_and_offline(self):
        """berry's patch: protocol (a resolution to the project's patch
        file): nub's b is berry's, from a cold store and offline; the
        builtin compat patches stay as they were (installed as published)."""
        src = self.berry_project()
        want = files(os.path.join(src, "node_modules", "b"))
        self.assertIn(b"1.0.0-berry", want["index.js"][0])
        for name in ("nub", "nub-offline"):
            d = os.path.join(self.tmp, name)
            shutil.copytree(src, d, ignore=shutil.ignore_patterns("node_modules", ".yarn/cache",
                                                                   "install-state.gz"))
            args = ["install", "--frozen-lockfile"] + (["--offline"] if "offline" in name else [])
            self.registry.reset_log()
            self.nub(*args, cwd=d, env={"NUB_STORE_DIR": os.path.join(self.tmp, "bstore")})
            if "offline" in name:  # (berry's registry must be nub's: the same one, unasked)
                self.assertEqual(self.registry.requests, [])
            self.assertEqual(files(os.path.join(d, "node_modules", "b")), want)
            self.assertEqual(self.node_require(d, "a")["deps"]["b"], "1.0.0-berry")

    def test_berry_patch_found_as_berry_finds_it(self):
        """A hunk whose context is in the file twice: berry's search (from
        the hunk's new line, the line before first) picks the place berry
        picks, which is not the one pnpm's would."""
        # index.js gets two more "deps: {}," lines after its "};" (line 7):
        # then a hunk for "deps: {}," at line 7 matches at line 6 for pnpm
        # (the line above first) and at line 8 for berry
        src = self.berry_project(add_line="  deps: {},\n  deps: {},\n")
        p = os.path.join(src, ".yarn", "patches")
        patch = os.path.join(p, os.listdir(p)[0])
        index_edit = ("@@ -7,1 +7,1 @@\n-  deps: {},\n+  deps: {changed: true},\n")
        body = read(patch)
        body = body.replace("diff --git a/lib/added.js", "diff --git a/index.js b/index.js\n"
                            "--- a/index.js\n+++ b/index.js\n" + index_edit +
                            "diff --git a/lib/added.js", 1)
        write(patch, body)
        self.berry(src, "install")
        d = os.path.join(self.tmp, "nub")
        shutil.copytree(src, d, ignore=shutil.ignore_patterns("node_modules", ".yarn/cache",
                                                               "install-state.gz"))
        proc = self.nub("install", "--frozen-lockfile", cwd=d, check=False)
        theirs = files(os.path.join(src, "node_modules", "b"))
        self.assertEqual(theirs["index.js"][0].decode().splitlines()[5:9],
                         ["  deps: {},", "};", "  deps: {changed: true},", "  deps: {},"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(files(os.path.join(d, "node_modules", "b")), theirs)

    def test_patches_in_the_wrong_home_refused(self):
        """package.json's patchedDependencies in a yarn 1 project (yarn
        reads none): the install stops (exit 21) rather than install b
        unpatched, and says where the project's tool reads patches."""
        self.make_project({"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"},
                           "patchedDependencies": {"b@1.0.0": "patches/b.patch"}})
        write(os.path.join(self.proj, "yarn.lock"),
              "# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n"
              "# yarn lockfile v1\n\n\n")
        proc = self.nub("install", check=False)
        self.assertEqual(proc.returncode, 21, proc.stderr)
        self.assertIn("patchedDependencies", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "b")))

    def nub_patch_and_commit(self, d):
        """`nub patch b`, an edit, `nub patch-commit`: the copy's folder."""
        out = self.nub("patch", "b", cwd=d).stdout
        m = re.search(r"nub patch-commit '([^']+)'", out)
        self.assertIsNotNone(m, out)
        copy = m.group(1)
        self.assertTrue(copy.startswith(os.path.join(os.path.realpath(d), "node_modules")), copy)
        index = os.path.join(copy, "index.js")
        write(index, read(index).replace('version: "1.0.0"', 'version: "1.0.0-nub"'))
        write(os.path.join(copy, "lib", "added.js"), "module.exports = 'added';\n")
        os.remove(os.path.join(copy, "package.json"))
        write(os.path.join(copy, "package.json"), read(os.path.join(self.tmp, "b-package.json")))
        done = self.nub("patch-commit", copy, cwd=d)
        self.assertIn("wrote patches/b@1.0.0.patch", done.stdout)
        self.assertFalse(os.path.exists(copy))
        return copy

    def test_nub_patch_commit_pnpm(self):
        """nub patch-commit in a pnpm project: the patch in patches/, the
        setting in pnpm-workspace.yaml, the lockfile as pnpm writes it for
        them; pnpm's own frozen install accepts it and gives the same b."""
        src = os.path.join(self.tmp, "pnpm-made")
        os.makedirs(src)
        self.write_json(os.path.join(src, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"}})
        write(os.path.join(src, ".npmrc"), "registry=%s\n" % self.registry.url)
        self.pnpm(src, "install")
        d = self.copy(src, "nub")
        self.nub("install", "--frozen-lockfile", cwd=d)
        pj = self.read_json(os.path.join(b_of(d), "package.json"))
        pj["description"] = "patched by nub"
        self.write_json(os.path.join(self.tmp, "b-package.json"), pj)
        self.nub_patch_and_commit(d)
        self.assertEqual(read(os.path.join(d, "pnpm-workspace.yaml")),
                         "patchedDependencies:\n  b@1.0.0: patches/b@1.0.0.patch\n")
        self.assertEqual(self.node_require(d, "a")["deps"]["b"], "1.0.0-nub")
        # pnpm, given what nub wrote: its frozen install takes the lockfile
        theirs = self.copy(d, "theirs")
        self.pnpm(theirs, "install", "--frozen-lockfile")
        self.assertEqual(files(b_of(theirs)), files(b_of(d)))
        # and pnpm, resolving the same patch afresh, writes the same lockfile
        again = self.copy(d, "again", lockfile=False)
        shutil.copy2(os.path.join(src, "pnpm-lock.yaml"), again)
        self.pnpm(again, "install")
        self.assertEqual(read(os.path.join(again, "pnpm-lock.yaml")),
                         read(os.path.join(d, "pnpm-lock.yaml")))
        # the copy starts from the patched package, unless asked otherwise
        out = self.nub("patch", "b", cwd=d).stdout
        copy = re.search(r"nub patch-commit '([^']+)'", out).group(1)
        self.assertIn("1.0.0-nub", read(os.path.join(copy, "index.js")))
        shutil.rmtree(copy)
        self.nub("patch", "b", "--ignore-existing", cwd=d)
        self.assertNotIn("1.0.0-nub", read(os.path.join(copy, "index.js")))
        self.assertFalse(os.path.exists(os.path.join(copy, "lib", "added.js")))

    def test_nub_patch_commit_bun(self):
        """The same in a bun project: package.json's patchedDependencies;
        bun's frozen install takes nub's bun.lock and gives the same b."""
        src = os.path.join(self.tmp, "bun-made")
        os.makedirs(src)
        self.write_json(os.path.join(src, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"}})
        self.bun(src, "install")
        d = self.copy(src, "nub")
        self.nub("install", "--frozen-lockfile", cwd=d)
        pj = self.read_json(os.path.join(d, "node_modules", "b", "package.json"))
        self.write_json(os.path.join(self.tmp, "b-package.json"), pj)
        self.nub_patch_and_commit(d)
        self.assertEqual(self.read_json(os.path.join(d, "package.json"))["patchedDependencies"],
                         {"b@1.0.0": "patches/b@1.0.0.patch"})
        theirs = self.copy(d, "theirs")
        self.bun(theirs, "install", "--frozen-lockfile")
        self.assertEqual(bun_files(os.path.join(theirs, "node_modules", "b")),
                         bun_files(os.path.join(d, "node_modules", "b")))
        self.assertEqual(read(os.path.join(theirs, "bun.lock")), read(os.path.join(d, "bun.lock")))
        self.assertIn(b"1.0.0-nub", files(os.path.join(d, "node_modules", "b"))["index.js"][0])

    def test_nub_patch_refusals(self):
        """A name the lockfile lacks, a folder nub patch did not make, a copy
        with no change: each a usage error (exit 2) that changes nothing."""
        self.make_project({"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"}})
        self.nub("install")
        before = read(os.path.join(self.proj, "package.json"))
        proc = self.nub("patch", "zzz", check=False)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("zzz", proc.stderr)
        other = os.path.join(self.tmp, "elsewhere")
        os.makedirs(other)
        proc = self.nub("patch-commit", other, check=False)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("no copy `nub patch` made", proc.stderr)
        copy = re.search(r"nub patch-commit '([^']+)'",
                         self.nub("patch", "b@1.0.0").stdout).group(1)
        proc = self.nub("patch-commit", copy, check=False)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("nothing in", proc.stderr)
        self.assertEqual(read(os.path.join(self.proj, "package.json")), before)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "patches")))

    def copy(self, src, name, lockfile=True, npmrc_extra=""):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        for f in PROJECT_FILES:
            p = os.path.join(src, f)
            if f in ("pnpm-lock.yaml", "bun.lock") and not lockfile or not os.path.exists(p):
                continue
            if os.path.isdir(p):
                shutil.copytree(p, os.path.join(d, f))
            else:
                shutil.copy2(p, d)
        if npmrc_extra:
            with open(os.path.join(d, ".npmrc"), "a") as f:
                f.write(npmrc_extra)
        return d

    def test_pnpm_patch_both_layouts_cold_and_offline(self):
        src = self.pnpm_project()
        want = files(b_of(src))
        self.assertIn(b'1.0.0-patched', want["index.js"][0])
        self.assertIn("lib/added.js", want)
        lock = read(os.path.join(src, "pnpm-lock.yaml"))
        for layout in ("isolated", "hoisted"):
            with self.subTest(layout=layout):
                store = os.path.join(self.tmp, "store-" + layout)
                env = {"NUB_STORE_DIR": store}
                extra = "node-linker=hoisted\n" if layout == "hoisted" else ""
                d = self.copy(src, "nub-" + layout, npmrc_extra=extra)
                self.nub("install", "--frozen-lockfile", cwd=d, env=env)
                self.assertEqual(files(b_of(d)), want)
                self.assertEqual(self.node_require(d, "a")["deps"]["b"], "1.0.0-patched")
                self.assertEqual(read(os.path.join(d, "pnpm-lock.yaml")), lock)
                # again into a fresh project, the network gone: from the store
                d2 = self.copy(src, "nub-offline-" + layout, npmrc_extra=extra)
                self.nub("install", "--frozen-lockfile", "--offline", cwd=d2,
                         env=dict(env, npm_config_registry="http://127.0.0.1:9/"))
                self.assertEqual(files(b_of(d2)), want)
                # the store's own copy of b is untouched: a project without
                # the patch gets b as published
                plain = os.path.join(self.tmp, "plain-" + layout)
                os.makedirs(plain)
                shutil.copy2(os.path.join(src, "package.json"), plain)
                write(os.path.join(plain, ".npmrc"), "registry=%s\n%s" % (self.registry.url, extra))
                self.nub("install", cwd=plain, env=env)
                self.assertEqual(self.node_require(plain, "a")["deps"]["b"], "1.0.0")
                self.assertNotIn("lib/added.js", files(b_of(plain)))

    def test_lockfile_as_pnpm_writes_it(self):
        """Resolved afresh, nub.lock is pnpm's pnpm-lock.yaml, whatever the
        key: a version, a range, the name alone."""
        src = self.pnpm_project()
        for key in ("b@1.0.0", "b@^1.0.0", "b"):
            with self.subTest(key=key):
                yaml = "patchedDependencies:\n  %s: patches/b@1.0.0.patch\n" % key
                write(os.path.join(src, "pnpm-workspace.yaml"), yaml)
                self.pnpm(src, "install")
                d = self.copy(src, "nub-" + key.replace("^", "c"), lockfile=False)
                self.nub("install", cwd=d)
                self.assertEqual(read(os.path.join(d, "nub.lock")),
                                 read(os.path.join(src, "pnpm-lock.yaml")))
                self.assertEqual(self.node_require(d, "a")["deps"]["b"], "1.0.0-patched")

    def test_changed_patch(self):
        """An edited patch puts the lockfile out of date (frozen fails, as
        pnpm's does); without --frozen-lockfile the new hash is written as
        pnpm writes it and the package patched anew."""
        src = self.pnpm_project()
        d = self.copy(src, "nub")
        self.nub("install", "--frozen-lockfile", cwd=d)
        for where in (src, d):
            p = os.path.join(where, "patches", "b@1.0.0.patch")
            write(p, read(p).replace("1.0.0-patched", "1.0.0-again"))
        proc = self.nub("install", "--frozen-lockfile", cwd=d, check=False)
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("patchedDependencies", proc.stderr)
        self.assertNotEqual(self.pnpm(src, "install", "--frozen-lockfile", check=False).returncode, 0)
        self.nub("install", cwd=d)
        self.pnpm(src, "install")
        self.assertEqual(read(os.path.join(d, "pnpm-lock.yaml")),
                         read(os.path.join(src, "pnpm-lock.yaml")))
        self.assertEqual(self.node_require(d, "a")["deps"]["b"], "1.0.0-again")
        self.assertEqual(files(b_of(d)), files(b_of(src)))

    def test_patch_that_does_not_apply(self):
        """A hunk that matches nowhere: exit 24 naming the package, the
        file and the hunk; nothing installed, the lockfile as it was; pnpm
        fails too."""
        src = self.pnpm_project()
        p = os.path.join(src, "patches", "b@1.0.0.patch")
        write(p, read(p).replace('-  version: "1.0.0",', '-  version: "7.7.7",'))
        self.assertNotEqual(self.pnpm(src, "install", "--force", check=False).returncode, 0)
        d = self.copy(src, "nub", lockfile=False)
        proc = self.nub("install", cwd=d, check=False)
        self.assertEqual(proc.returncode, 24, proc.stderr)
        self.assertIn("b@1.0.0", proc.stderr)
        self.assertIn("index.js: hunk 1", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "nub.lock")))
        self.assertFalse(os.path.exists(os.path.join(d, "node_modules", "a")))

    def test_unused_patch(self):
        """A patch for a package the install does not have fails the
        install, as in pnpm, unless allowUnusedPatches says otherwise."""
        src = self.pnpm_project()
        ws = os.path.join(src, "pnpm-workspace.yaml")
        write(ws, read(ws) + "  c@1.0.0: patches/b@1.0.0.patch\n")
        d = self.copy(src, "nub", lockfile=False)
        self.assertNotEqual(self.pnpm(src, "install", check=False).returncode, 0)
        proc = self.nub("install", cwd=d, check=False)
        self.assertEqual(proc.returncode, 24, proc.stderr)
        self.assertIn("c@1.0.0", proc.stderr)
        self.assertIn("allowUnusedPatches", proc.stderr)
        for where in (src, d):
            write(os.path.join(where, "pnpm-workspace.yaml"),
                  read(ws) + "allowUnusedPatches: true\n")
        self.pnpm(src, "install")
        self.nub("install", cwd=d)
        self.assertEqual(read(os.path.join(d, "nub.lock")),
                         read(os.path.join(src, "pnpm-lock.yaml")))

    def test_hostile_patch_paths(self):
        """A patch whose paths leave the package is refused before anything
        is written (exit 24); nothing appears outside node_modules."""
        self.make_project({"name": "proj", "version": "1.0.0", "dependencies": {"a": "1.0.0"}})
        for i, path in enumerate(("../../../escaped.js", "/tmp/escaped-%d.js" % os.getpid(),
                                  "lib/../../escaped.js")):
            with self.subTest(path=path):
                write(os.path.join(self.proj, "patches", "b.patch"),
                      "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n"
                      "@@ -0,0 +1 @@\n+pwned\n" % (path, path, path))
                write(os.path.join(self.proj, "pnpm-workspace.yaml"),
                      "patchedDependencies:\n  b@1.0.0: patches/b.patch\n")
                before = set(os.listdir(self.tmp))
                proc = self.nub("install", check=False)
                self.assertEqual(proc.returncode, 24, proc.stderr)
                self.assertIn("not one inside the package", proc.stderr)
                self.assertEqual(set(os.listdir(self.tmp)), before)
                self.assertFalse(os.path.exists("/tmp/escaped-%d.js" % os.getpid()))
                self.assertFalse(os.path.exists(os.path.join(self.proj, "escaped.js")))


if __name__ == "__main__":
    nubtest.main()
