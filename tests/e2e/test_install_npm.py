#!/usr/bin/env python3
"""`nub install` / `nub ci` from npm lockfiles (v1, v2, v3): the exact hoisted
tree, file contents, bins, omit flags, the no-op check, frozen lockfiles,
reconciling an existing node_modules, odd and hostile tarballs, registry URL
handling, and a differential check against `npm ci` when npm is installed.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_install_npm.py
     (or ctest -R e2e.install_npm)
"""

import io
import json
import os
import platform
import re
import shutil
import stat
import subprocess
import tarfile
import unittest

import nubtest
from nubtest import PROJECTS_DIR

LOCKFILES = ("package-lock.v1.json", "package-lock.v2.json", "package-lock.v3.json")
FAST_RETRIES = {
    "npm_config_fetch_retries": "1",
    "npm_config_fetch_retry_mintimeout": "10",
    "npm_config_fetch_retry_maxtimeout": "50",
}
# Any attempt to leave the machine goes to a closed local port instead.
DEAD_PROXY = "http://127.0.0.1:9"





def folder_of(path):
    """'node_modules/c/node_modules/b' -> 'b'; scoped names keep the scope."""
    tail = path.rsplit("node_modules/", 1)[-1]
    return tail


def tar_files(tgz):
    """{relpath: (bytes, mode)} for the regular files of a package tarball,
    with the leading folder (whatever its name) stripped."""
    out = {}
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
        for m in tar.getmembers():
            if not m.isreg():
                continue
            parts = m.name.split("/", 1)
            if len(parts) < 2 or not parts[1]:
                continue
            out[os.path.normpath(parts[1]).replace(os.sep, "/")] = (
                tar.extractfile(m).read(), m.mode)
    return out


def tar_bins(files):
    """Bin targets of a package, from the package.json inside its tarball."""
    pj = files.get("package.json")
    if not pj:
        return {}
    doc = json.loads(pj[0].decode("utf-8"))
    name = doc.get("name", "")
    b = doc.get("bin")
    if isinstance(b, str):
        return {name.rsplit("/", 1)[-1]: os.path.normpath(b)}
    if isinstance(b, dict):
        return {k: os.path.normpath(v) for k, v in b.items()}
    return {}


class NpmLockMixin:
    """Helpers shared by the tests of this file."""

    def setUp(self):
        super().setUp()
        self.env.update(FAST_RETRIES)

    def npm_ci_same_tree(self):
        npm_dir = os.path.join(self.tmp, "npm-copy")
        os.makedirs(npm_dir)
        for f in ("package.json", "package-lock.json"):
            shutil.copy(os.path.join(self.proj, f), npm_dir)
        for d in ("packages",):
            if os.path.isdir(os.path.join(self.proj, d)):
                shutil.copytree(os.path.join(self.proj, d), os.path.join(npm_dir, d),
                                ignore=shutil.ignore_patterns("node_modules"))
        with open(os.path.join(self.proj, "package-lock.json")) as f:
            written = f.read()
        self.npm("ci", "--ignore-scripts", cwd=npm_dir)
        self.assertEqual(self.installed(modes=True), self.installed(npm_dir, modes=True))
        with open(os.path.join(npm_dir, "package-lock.json")) as f:
            self.assertEqual(f.read(), written, "npm ci changed the lockfile nub wrote")

    # -- lockfiles

    lockfile_name = "package-lock.json"

    def assert_tree_from(self, name):
        self.lockfile_name = name
        try:
            return self.assert_tree()
        finally:
            self.lockfile_name = "package-lock.json"

    def lock_entries(self):
        """The project's package-lock.json as {path: entry}, where entry has
        name, version, dev, optional, bundled, os, cpu (os/cpu from the
        lockfile, or the package's packument for v1, which does not record
        them)."""
        doc = self.read_json(os.path.join(self.proj, self.lockfile_name))
        out = {}
        if doc.get("lockfileVersion", 1) >= 2:
            for path, e in doc["packages"].items():
                if not path:
                    continue
                out[path] = {
                    "name": e.get("name") or folder_of(path),
                    "version": e["version"],
                    "dev": bool(e.get("dev")),
                    "optional": bool(e.get("optional")),
                    "bundled": bool(e.get("inBundle")),
                    "os": e.get("os"), "cpu": e.get("cpu"),
                }
        else:
            def walk(deps, prefix):
                for name, e in deps.items():
                    path = (prefix + "/node_modules/" if prefix else "node_modules/") + name
                    out[path] = {"name": name, "version": e["version"],
                                 "dev": bool(e.get("dev")),
                                 "optional": bool(e.get("optional")),
                                 "bundled": bool(e.get("bundled")),
                                 "os": None, "cpu": None}
                    walk(e.get("dependencies", {}), path)
            walk(doc.get("dependencies", {}), "")
        for e in out.values():
            if e["os"] is None and e["cpu"] is None and not e["bundled"]:
                vdoc = self.registry.packument(e["name"])["versions"].get(e["version"], {})
                e["os"], e["cpu"] = vdoc.get("os"), vdoc.get("cpu")
        return out

    def expected_paths(self, omit_dev=False, omit_optional=False):
        """Lockfile paths an install must create (bundled ones included: they
        come inside their parent's tarball)."""
        entries = self.lock_entries()
        skipped = []
        want = {}
        for path in sorted(entries):
            e = entries[path]
            if any(path.startswith(s + "/") for s in skipped):
                continue
            if ((e["dev"] and omit_dev) or (e["optional"] and omit_optional) or
                    (e["optional"] and not nubtest.platform_ok(e["os"], e["cpu"]))):
                skipped.append(path)
                continue
            want[path] = e
        return want

    def write_lock(self, deps, dev=None, name="proj", extra=None):
        """package.json plus a lockfileVersion 3 package-lock.json for
        top-level `deps` {name: version} (and `dev`), resolved against the
        test registry. `extra` is merged into the lockfile's packages."""
        dev = dev or {}
        pj = {"name": name, "version": "1.0.0", "private": True,
              "dependencies": {n: v for n, v in deps.items()}}
        if dev:
            pj["devDependencies"] = dict(dev)
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        root = {"name": name, "version": "1.0.0", "dependencies": dict(deps)}
        if dev:
            root["devDependencies"] = dict(dev)
        packages = {"": root}
        for n, v in list(deps.items()) + list(dev.items()):
            packages["node_modules/" + n] = {
                "version": v,
                "resolved": self.registry.tarball_url(n, v),
                "integrity": self.registry.integrity(n, v),
            }
            if n in dev:
                packages["node_modules/" + n]["dev"] = True
        for k, v in (extra or {}).items():
            packages[k] = v
        self.write_json(os.path.join(self.proj, "package-lock.json"),
                        {"name": name, "version": "1.0.0", "lockfileVersion": 3,
                         "requires": True, "packages": packages})

    # -- looking at node_modules

    def installed_packages(self, root=None):
        """Every package directory (…/node_modules/<name> holding a
        package.json) under root's node_modules, relative to root."""
        root = root or self.proj
        found = set()
        nm = os.path.join(root, "node_modules")
        for dirpath, dirnames, filenames in os.walk(nm):
            rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
            if re.search(r"(^|/)node_modules/(@[^/]+/)?[^/@.][^/]*$", rel) and \
                    "package.json" in filenames:
                found.add(rel)
            dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
        return found

    def pkg_version(self, path):
        return self.read_json(os.path.join(self.proj, path, "package.json"))["version"]

    def assert_package_files(self, path, name, version, nested=()):
        """The directory at `path` holds exactly the files of name@version's
        tarball with the same bytes; executables stay executable, and bin
        targets are executable. `nested`: paths under `path` that belong to
        other lockfile entries (not compared)."""
        files = tar_files(self.registry.tarball(name, version))
        bins = set(tar_bins(files).values())
        base = os.path.join(self.proj, path)
        actual = {}
        for dirpath, dirnames, filenames in os.walk(base):
            rel_dir = os.path.relpath(dirpath, base).replace(os.sep, "/")
            keep = []
            for d in dirnames:
                rel = d if rel_dir == "." else rel_dir + "/" + d
                full = path + "/" + rel
                if full in nested or rel.endswith("node_modules/.bin") or rel == "node_modules/.bin":
                    continue
                keep.append(d)
            dirnames[:] = keep
            for f in filenames:
                rel = f if rel_dir == "." else rel_dir + "/" + f
                actual[rel] = os.path.join(dirpath, f)
        self.assertEqual(sorted(files), sorted(actual),
                         "%s (%s@%s): files differ from the tarball's" % (path, name, version))
        for rel, (data, mode) in files.items():
            p = actual[rel]
            st = os.lstat(p)
            self.assertTrue(stat.S_ISREG(st.st_mode), "%s/%s is not a regular file" % (path, rel))
            with open(p, "rb") as f:
                self.assertEqual(f.read(), data, "%s/%s: content differs from the tarball" % (path, rel))
            want_exec = bool(mode & 0o111) or rel in bins
            self.assertEqual(bool(st.st_mode & 0o111), want_exec,
                             "%s/%s: mode %o (tarball %o, bin target: %s)" % (
                                 path, rel, st.st_mode & 0o777, mode, rel in bins))

    def assert_tree(self, omit_dev=False, omit_optional=False):
        """node_modules holds exactly the lockfile's (filtered) packages, each
        at its path with its version and its tarball's files."""
        want = self.expected_paths(omit_dev, omit_optional)
        self.assertEqual(sorted(self.installed_packages()), sorted(want))
        for path, e in want.items():
            self.assertEqual(self.pkg_version(path), e["version"], path)
            if e["bundled"]:
                continue
            nested = {p for p in want if p.startswith(path + "/") and not want[p]["bundled"]}
            self.assert_package_files(path, e["name"], e["version"], nested)
        return want

    def assert_summary(self, proc, added):
        m = re.search(r"^added (\d+) packages?(, removed \d+ packages?)? in \d+\.\d\ds$",
                      proc.stdout, re.M)
        self.assertIsNotNone(m, "no summary line on stdout:\n" + proc.stdout)
        self.assertEqual(int(m.group(1)), added, proc.stdout)

    def assert_bin(self, name, target_rel):
        link = os.path.join(self.proj, "node_modules", ".bin", name)
        self.assertTrue(os.path.islink(link), "%s is not a symlink" % link)
        target = os.readlink(link)
        self.assertFalse(os.path.isabs(target), "%s -> %s is absolute" % (link, target))
        self.assertTrue(os.path.exists(link), "%s -> %s does not resolve" % (link, target))
        self.assertEqual(os.path.realpath(link),
                         os.path.realpath(os.path.join(self.proj, target_rel)))
        self.assertExecutable(os.path.realpath(link))

    def store_index_files(self):
        idx = os.path.join(self.store, "v1", "index")
        out = set()
        for dirpath, _, filenames in os.walk(idx):
            for f in filenames:
                if not f.startswith("."):  # the shard marker
                    out.add(os.path.relpath(os.path.join(dirpath, f), idx))
        return out

    def store_tmp_entries(self):
        tmp = os.path.join(self.store, "v1", "tmp")
        return sorted(os.listdir(tmp)) if os.path.isdir(tmp) else []


class BasicTreeTest(NpmLockMixin, nubtest.NubTestCase):
    """The `basic` project from each lockfile version."""

    def test_tree_matches_lockfile(self):
        for lockfile in LOCKFILES:
            with self.subTest(lockfile=lockfile):
                if os.path.exists(os.path.join(self.proj, "node_modules")):
                    shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.make_project("basic", lockfile=lockfile)
                proc = self.nub("install")
                want = self.assert_tree()
                self.assert_summary(proc, len([e for e in want.values() if not e["bundled"]]))
                self.assertEqual(self.pkg_version("node_modules/b"), "1.0.0")
                self.assertEqual(self.pkg_version("node_modules/c/node_modules/b"), "2.0.0")
                nm = os.path.join(self.proj, "node_modules")
                self.assertEqual(os.path.isdir(os.path.join(nm, "opt-linux")),
                                 nubtest.npm_os() == "linux")
                self.assertEqual(os.path.isdir(os.path.join(nm, "opt-darwin")),
                                 nubtest.npm_os() == "darwin")
                self.assertEqual(os.path.isdir(os.path.join(nm, "opt-win")),
                                 nubtest.npm_os() == "win32" and nubtest.npm_cpu() == "x64")
                self.assertTrue(os.path.isdir(os.path.join(nm, "dev-only")))
                self.assert_bin("c-cli", "node_modules/c/bin/cli.js")
                self.assert_bin("d", "node_modules/@scope/d/bin/d.js")
                self.assertEqual(sorted(os.listdir(os.path.join(nm, ".bin"))), ["c-cli", "d"])

    @unittest.skipUnless(platform.system() == "Linux", "hardlinks are the Linux default")
    def test_files_are_hardlinks_into_the_store(self):
        # new packages are unpacked as trees (v1/packages)
        self.files_are_hardlinks_into_the_store(nubtest.store_kind())

    def test_files_are_hardlinks_of_content_files(self):
        # or, with NUB_STORE_TREES=0, as content files (v1/files)
        self.env["NUB_STORE_TREES"] = "0"
        self.files_are_hardlinks_into_the_store("files")

    def files_are_hardlinks_into_the_store(self, kind):
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install")
        store_inodes = set()
        for dirpath, _, filenames in os.walk(os.path.join(self.store, "v1", kind)):
            for f in filenames:
                st = os.lstat(os.path.join(dirpath, f))
                if not stat.S_ISLNK(st.st_mode):
                    store_inodes.add((st.st_dev, st.st_ino))
        nm = os.path.join(self.proj, "node_modules")
        checked = 0
        for dirpath, dirnames, filenames in os.walk(nm):
            dirnames[:] = [d for d in dirnames if d != ".nub-state"]
            for f in filenames:
                p = os.path.join(dirpath, f)
                if os.path.islink(p):
                    continue
                st = os.lstat(p)
                self.assertIn((st.st_dev, st.st_ino), store_inodes,
                              "%s is not a hard link of a store file" % p)
                checked += 1
        self.assertGreater(checked, 10)

    @nubtest.requires_node
    def test_node_requires_every_top_level_dep(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install")
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        deps = dict(pj["dependencies"])
        deps.update(pj["devDependencies"])
        deps.update({k: v for k, v in pj["optionalDependencies"].items()
                     if os.path.isdir(os.path.join(self.proj, "node_modules", k))})
        for dep in sorted(deps):
            with self.subTest(dep=dep):
                got = self.node_require(self.proj, dep)
                self.assertEqual(got["name"], dep)
        self.assertEqual(self.node_require(self.proj, "a")["deps"], {"b": "1.0.0"})
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})
        self.assertEqual(self.node_require(self.proj, "@scope/d")["deps"], {"a": "1.0.0"})

    @nubtest.requires_node
    def test_bins_run(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install")
        for name in ("c-cli", "d"):
            with self.subTest(bin=name):
                proc = self.run_cmd([os.path.join(self.proj, "node_modules", ".bin", name)])
                self.assertTrue(proc.stdout.strip(), "%s printed nothing" % name)

    def test_shrinkwrap(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        os.rename(os.path.join(self.proj, "package-lock.json"),
                  os.path.join(self.proj, "npm-shrinkwrap.json"))
        self.nub("install")
        self.assert_tree_from("npm-shrinkwrap.json")

    def test_shrinkwrap_wins_over_package_lock(self):
        # npm reads npm-shrinkwrap.json and ignores package-lock.json
        self.make_project("basic", lockfile="package-lock.v2.json")
        os.rename(os.path.join(self.proj, "package-lock.json"),
                  os.path.join(self.proj, "npm-shrinkwrap.json"))
        with open(os.path.join(self.proj, "package-lock.json"), "w") as f:
            f.write("{ this is not the lockfile npm would read\n")
        self.nub("install")
        self.assert_tree_from("npm-shrinkwrap.json")

    def test_omit_dev(self):
        for flags in (["--omit=dev"], ["--prod"], ["--omit", "dev"]):
            with self.subTest(flags=flags):
                if os.path.exists(os.path.join(self.proj, "node_modules")):
                    shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.make_project("basic", lockfile="package-lock.v3.json")
                self.nub("install", *flags)
                self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "dev-only")))
                self.assert_tree(omit_dev=True)

    def test_no_optional(self):
        for flags in (["--no-optional"], ["--omit=optional"]):
            with self.subTest(flags=flags):
                if os.path.exists(os.path.join(self.proj, "node_modules")):
                    shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.make_project("basic", lockfile="package-lock.v2.json")
                self.nub("install", *flags)
                for opt in ("opt-linux", "opt-darwin", "opt-win"):
                    self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", opt)), opt)
                self.assert_tree(omit_optional=True)

    def test_omit_dev_then_full_install_adds_dev(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install", "--omit=dev")
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "dev-only")))
        proc = self.nub("install")
        self.assertNotIn("Already up to date", proc.stdout)
        self.assert_tree()

    def test_second_install_is_a_no_op(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install")
        self.registry.reset_log()
        proc = self.nub("install")
        self.assertEqual(proc.stdout.strip(), "Already up to date")
        self.assertEqual(self.registry.requests, [])
        self.assert_tree()

    def test_frozen_lockfile_rejects_new_dependency(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        pj_path = os.path.join(self.proj, "package.json")
        pj = self.read_json(pj_path)
        pj["dependencies"]["pre"] = "^1.0.0"
        self.write_json(pj_path, pj)
        for cmd in (["install", "--frozen-lockfile"], ["ci"]):
            with self.subTest(cmd=cmd):
                proc = self.nub_fails(*cmd)
                self.assertEqual(proc.returncode, 16, proc.stderr)
                self.assertIn("pre", proc.stderr)
                self.assertIn("ERR_NUB_OUTDATED", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "pre")))

    def test_frozen_lockfile_rejects_removed_dependency(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        pj_path = os.path.join(self.proj, "package.json")
        pj = self.read_json(pj_path)
        del pj["dependencies"]["e"]
        self.write_json(pj_path, pj)
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertRegex(proc.stderr, r"\be\b")

    def test_frozen_lockfile_rejects_unsatisfied_range(self):
        for lockfile in ("package-lock.v3.json", "package-lock.v1.json"):
            with self.subTest(lockfile=lockfile):
                self.make_project("basic", lockfile=lockfile)
                pj_path = os.path.join(self.proj, "package.json")
                pj = self.read_json(pj_path)
                pj["dependencies"]["a"] = "^2.0.0"
                self.write_json(pj_path, pj)
                proc = self.nub_fails("install", "--frozen-lockfile")
                self.assertEqual(proc.returncode, 16, proc.stderr)
                self.assertIn("a@^2.0.0", proc.stderr)

    def test_ci_without_lockfile(self):
        self.make_project("basic")
        proc = self.nub_fails("ci")
        self.assertEqual(proc.returncode, 10, proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))

    def test_ci_removes_foreign_files(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install")
        stray = os.path.join(self.proj, "node_modules", "stray", "index.js")
        os.makedirs(os.path.dirname(stray))
        with open(stray, "w") as f:
            f.write("stray\n")
        self.nub("ci")
        self.assertFalse(os.path.exists(stray))
        self.assert_tree()

    def test_reinstall_after_lockfile_change_keeps_unchanged_packages(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install")
        kept = os.path.join(self.proj, "node_modules", "a", "index.js")
        nested = os.path.join(self.proj, "node_modules", "c", "node_modules", "b", "index.js")
        ino_a, ino_nested = os.stat(kept).st_ino, os.stat(nested).st_ino
        # drop `e` from both files, as `npm uninstall e` would
        pj_path = os.path.join(self.proj, "package.json")
        pj = self.read_json(pj_path)
        del pj["dependencies"]["e"]
        self.write_json(pj_path, pj)
        lock_path = os.path.join(self.proj, "package-lock.json")
        lock = self.read_json(lock_path)
        del lock["packages"]["node_modules/e"]
        del lock["packages"][""]["dependencies"]["e"]
        self.write_json(lock_path, lock)

        proc = self.nub("install", "--frozen-lockfile")
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "e")))
        self.assertRegex(proc.stdout, r"removed 1 package")
        self.assertEqual(os.stat(kept).st_ino, ino_a, "node_modules/a was relinked")
        self.assertEqual(os.stat(nested).st_ino, ino_nested, "c/node_modules/b was relinked")
        self.assert_tree()
        self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")

    def test_reinstall_after_version_change_replaces_package(self):
        # c/node_modules/b@2 hoisted to the top, b@1 nested under a instead
        self.make_project("basic", lockfile="package-lock.v3.json")
        self.nub("install")
        lock_path = os.path.join(self.proj, "package-lock.json")
        lock = self.read_json(lock_path)
        pk = lock["packages"]
        pk["node_modules/a/node_modules/b"] = pk.pop("node_modules/b")
        pk["node_modules/b"] = pk.pop("node_modules/c/node_modules/b")
        self.write_json(lock_path, lock)
        self.nub("install")
        self.assertEqual(self.pkg_version("node_modules/b"), "2.0.0")
        self.assertEqual(self.pkg_version("node_modules/a/node_modules/b"), "1.0.0")
        self.assertEqual(self.installed_packages(), set(self.expected_paths()))
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "c", "node_modules", "b")))
        self.assert_tree()


class OddPackagesTest(NpmLockMixin, nubtest.NubTestCase):
    """The `misc` project, hostile and odd tarballs, registry URLs."""

    def test_misc_project(self):
        for lockfile in ("package-lock.v3.json", "package-lock.v1.json"):
            with self.subTest(lockfile=lockfile):
                if os.path.exists(os.path.join(self.proj, "node_modules")):
                    shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.make_project("misc", lockfile=lockfile)
                proc = self.nub("install")
                nm = os.path.join(self.proj, "node_modules")
                self.assertTrue(os.path.isfile(os.path.join(nm, "bundler", "node_modules",
                                                            "bundled-dep", "index.js")))
                self.assertEqual(self.pkg_version("node_modules/bundler/node_modules/bundled-dep"),
                                 "1.0.0")
                self.assertEqual(self.pkg_version("node_modules/b"), "1.0.0")  # the peer
                self.assertEqual(self.pkg_version("node_modules/pre"), "1.0.0")
                self.assertEqual(self.pkg_version("node_modules/legacy"), "0.0.1")
                self.assertTrue(os.path.isdir(os.path.join(nm, "scripted")))
                self.assert_tree()
                # the untrusted postinstall did not run, and nub says so
                self.assertFalse(os.path.exists(os.path.join(nm, "scripted", "postinstall-ran")))
                self.assertIn("scripted@1.0.0", proc.stderr)
                self.assert_summary(proc, 6)

    @nubtest.requires_node
    def test_misc_resolution_with_node(self):
        self.make_project("misc", lockfile="package-lock.v3.json")
        self.nub("install")
        self.assertEqual(self.node_require(self.proj, "bundler")["deps"], {"bundled-dep": "1.0.0"})
        self.assertEqual(self.node_require(self.proj, "peer-host")["deps"], {"b": "1.0.0"})
        self.assertEqual(self.node_require(self.proj, "legacy")["version"], "0.0.1")

    @nubtest.requires_node
    def test_trusted_install_script_runs(self):
        self.make_project("misc", lockfile="package-lock.v3.json")
        pj_path = os.path.join(self.proj, "package.json")
        pj = self.read_json(pj_path)
        pj["trustedDependencies"] = ["scripted"]
        self.write_json(pj_path, pj)
        self.nub("install")
        self.assertTrue(os.path.exists(os.path.join(self.proj, "node_modules", "scripted",
                                                    "postinstall-ran")))

    @nubtest.requires_node
    def test_trusted_install_script_runs_outside_the_store_isolated(self):
        # the isolated layout links packages into the global virtual store,
        # shared by every project; a package that builds runs its script in
        # a copy of its own in the project. From an npm lockfile nub did not
        # know it builds until it was fetched, linked it to the store, and
        # the script wrote into the store's copy, every project's
        self.make_project("misc", lockfile="package-lock.v3.json")
        pj_path = os.path.join(self.proj, "package.json")
        pj = self.read_json(pj_path)
        pj["trustedDependencies"] = ["scripted"]
        self.write_json(pj_path, pj)
        store = os.path.join(self.tmp, "store-iso")
        self.env["NUB_STORE_DIR"] = store
        self.nub("install", "--node-linker", "isolated")
        nm = os.path.join(self.proj, "node_modules")
        self.assertTrue(os.path.exists(os.path.join(nm, "scripted", "postinstall-ran")))
        self.assertTrue(os.path.realpath(os.path.join(nm, "scripted")).startswith(
            os.path.realpath(self.proj) + os.sep))
        ran = [os.path.join(d, f) for d, _, fs in os.walk(store) for f in fs
               if f == "postinstall-ran"]
        self.assertEqual(ran, [])
        # warm, from the store: the same
        shutil.rmtree(nm)
        self.nub("install", "--node-linker", "isolated", "--offline")
        self.assertTrue(os.path.realpath(os.path.join(nm, "scripted")).startswith(
            os.path.realpath(self.proj) + os.sep))
        self.assertTrue(os.path.exists(os.path.join(nm, "scripted", "postinstall-ran")))
        self.assertEqual([f for d, _, fs in os.walk(store) for f in fs
                          if f == "postinstall-ran"], [])

    def test_legacy_sha1_integrity_is_checked(self):
        self.make_project("misc", lockfile="package-lock.v3.json")
        lock_path = os.path.join(self.proj, "package-lock.json")
        lock = self.read_json(lock_path)
        lock["packages"]["node_modules/legacy"]["integrity"] = self.registry.sri_sha1("legacy", "1.0.0")
        self.write_json(lock_path, lock)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 30, proc.stderr)
        self.assertIn("legacy@0.0.1", proc.stderr)

    def test_hostile_paths_are_refused(self):
        evil_abs = "/tmp/nub-abs-evil.txt"
        abs_before = os.path.exists(evil_abs)
        for pkg in ("hostile-traverse", "hostile-abs"):
            with self.subTest(pkg=pkg):
                if os.path.exists(os.path.join(self.proj, "node_modules")):
                    shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.write_lock({pkg: "1.0.0"})
                index_before = self.store_index_files()
                outside_before = set(self.tree(self.tmp))
                proc = self.nub_fails("install")
                self.assertEqual(proc.returncode, 31, proc.stderr)
                self.assertIn(pkg + "@1.0.0", proc.stderr)
                self.assertIn("ERR_NUB_EXTRACT", proc.stderr)
                # exactly one attempt: a refusal is not a transfer error
                self.assertEqual(self.registry.count(r"/%s/-/" % pkg), 1)
                self.assertEqual(self.store_index_files(), index_before)
                self.assertEqual(self.store_tmp_entries(), [])
                new = set(self.tree(self.tmp)) - outside_before
                self.assertEqual(sorted(p for p in new if "escape" in p or "evil" in p), [])
                self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", pkg)))
                self.assertFalse(os.path.exists(os.path.join(self.proj, "escape.txt")))
                self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "escape.txt")))
                self.assertFalse(os.path.exists(os.path.join(self.tmp, "escape.txt")))
                self.assertFalse(os.path.exists(os.path.join(self.store, "v1", "escape.txt")))
                self.assertFalse(os.path.exists(os.path.join(self.store, "v1", "tmp", "escape.txt")))
                self.registry.reset_log()
        if not abs_before:
            self.assertFalse(os.path.exists(evil_abs), "%s was written" % evil_abs)

    def test_link_and_device_entries_are_skipped(self):
        skipped = {"hostile-symlink": "link", "hostile-hardlink": "hl", "hostile-device": "null"}
        self.write_lock({p: "1.0.0" for p in skipped})
        self.nub("install")
        for pkg, entry in sorted(skipped.items()):
            with self.subTest(pkg=pkg):
                d = os.path.join(self.proj, "node_modules", pkg)
                self.assertEqual(sorted(os.listdir(d)), ["index.js", "package.json"])
                self.assertFalse(os.path.lexists(os.path.join(d, entry)))
                self.assert_package_files("node_modules/" + pkg, pkg, "1.0.0")

    def test_repeated_tar_entry_keeps_the_last(self):
        # tar semantics, as npm extracts it: a later entry of a path wins
        self.write_lock({"dup-entry": "1.0.0"})
        diag = os.path.join(self.tmp, "dup.jsonl")
        self.nub("install", env={"NUB_DIAG_FILE": diag})
        with open(diag) as f:
            events = [json.loads(line) for line in f if line.strip()]
        linked = [e for e in events if e["cat"] == "linker" and e["name"].startswith("link_")
                  and e.get("meta", {}).get("pkg") == "dup-entry@1.0.0"]
        self.assertEqual(len(linked), 2, linked)  # index.js once, package.json
        d = os.path.join(self.proj, "node_modules", "dup-entry")
        self.assertEqual(sorted(os.listdir(d)), ["index.js", "package.json"])
        with open(os.path.join(d, "index.js")) as f:
            self.assertEqual(f.read(), "module.exports = 'second';\n")

    def test_other_root_folder(self):
        self.write_lock({"other-root": "1.0.0", "a": "1.0.0", "b": "1.0.0"})
        self.nub("install")
        d = os.path.join(self.proj, "node_modules", "other-root")
        self.assertEqual(sorted(os.listdir(d)), ["index.js", "package.json"])
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules", "node-other")))
        self.assert_package_files("node_modules/other-root", "other-root", "1.0.0")

    def test_entry_without_resolved_uses_configured_registry(self):
        for lockfile in ("package-lock.v3.json", "package-lock.v1.json"):
            with self.subTest(lockfile=lockfile):
                if os.path.exists(os.path.join(self.proj, "node_modules")):
                    shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.registry.reset_log()
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-" + lockfile)
                self.make_project("basic", lockfile=lockfile)
                lock_path = os.path.join(self.proj, "package-lock.json")
                lock = self.read_json(lock_path)
                if lock["lockfileVersion"] >= 2:
                    del lock["packages"]["node_modules/a"]["resolved"]
                    del lock["packages"]["node_modules/@scope/d"]["resolved"]
                else:
                    del lock["dependencies"]["a"]["resolved"]
                    del lock["dependencies"]["@scope/d"]["resolved"]
                self.write_json(lock_path, lock)
                # the registry comes from .npmrc this time
                with open(os.path.join(self.proj, ".npmrc"), "w") as f:
                    f.write("registry=%s\n" % self.registry.url)
                self.nub("install", env={"npm_config_registry": None})
                self.assert_tree()
                self.assertGreaterEqual(self.registry.count(r"^/a/-/a-1\.0\.0\.tgz$"), 1)
                self.assertGreaterEqual(self.registry.count(r"^/@scope/d/-/d-1\.0\.0\.tgz$"), 1)

    def test_multi_hash_integrity(self):
        # ssri (npm) checks the strongest algorithm present and accepts the
        # data if any digest of that algorithm matches
        r = self.registry
        good512, bad512 = r.integrity("b", "1.0.0"), r.integrity("b", "2.0.0")
        good1, bad1 = r.sri_sha1("b", "1.0.0"), r.sri_sha1("b", "2.0.0")
        cases = [
            ("sha512 good, sha1 bad", good512 + " " + bad1, 0),
            ("sha1 bad, sha512 good", bad1 + " " + good512, 0),
            ("sha1 good, sha512 good", good1 + " " + good512, 0),
            ("sha512 good, sha512 bad", good512 + " " + bad512, 0),
            ("sha512 bad, sha512 good", bad512 + " " + good512, 0),
            ("sha1 good, sha512 bad", good1 + " " + bad512, 30),
        ]
        for label, integrity, want in cases:
            with self.subTest(case=label):
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-" + label.replace(" ", "_"))
                if os.path.exists(os.path.join(self.proj, "node_modules")):
                    shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.write_lock({"b": "1.0.0"}, extra={"node_modules/b": {
                    "version": "1.0.0", "resolved": r.tarball_url("b", "1.0.0"),
                    "integrity": integrity}})
                proc = self.nub("install", check=False, env={"npm_config_fetch_retries": "0"})
                self.assertEqual(proc.returncode, want, proc.stderr)
                self.assertEqual(os.path.isdir(os.path.join(self.proj, "node_modules", "b")), want == 0)

    def make_workspace_project(self):
        """A project with one workspace (packages/foo, with a bin) laid out
        and locked the way npm 11 does it."""
        r = self.registry
        foo = os.path.join(self.proj, "packages", "foo")
        os.makedirs(foo)
        self.write_json(os.path.join(foo, "package.json"),
                        {"name": "foo", "version": "0.1.0", "dependencies": {"a": "^1.0.0"},
                         "bin": {"foo": "cli.js"}})
        with open(os.path.join(foo, "cli.js"), "w") as f:
            f.write("#!/usr/bin/env node\nconsole.log('foo');\n")
        root = {"name": "ws", "version": "1.0.0", "workspaces": ["packages/*"]}
        self.write_json(os.path.join(self.proj, "package.json"), root)
        self.write_json(os.path.join(self.proj, "package-lock.json"), {
            "name": "ws", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {
                "": root,
                "node_modules/a": {"version": "1.0.0", "resolved": r.tarball_url("a", "1.0.0"),
                                   "integrity": r.integrity("a", "1.0.0"), "license": "MIT",
                                   "dependencies": {"b": "^1.0.0"}},
                "node_modules/b": {"version": "1.0.0", "resolved": r.tarball_url("b", "1.0.0"),
                                   "integrity": r.integrity("b", "1.0.0"), "license": "MIT"},
                "node_modules/foo": {"resolved": "packages/foo", "link": True},
                "packages/foo": {"version": "0.1.0", "dependencies": {"a": "^1.0.0"},
                                 "bin": {"foo": "cli.js"}},
            }})

    def test_workspace_link_and_bin(self):
        self.make_workspace_project()
        self.nub("install", "--frozen-lockfile")
        link = os.path.join(self.proj, "node_modules", "foo")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.readlink(link), "../packages/foo")
        self.assertEqual(self.pkg_version("node_modules/a"), "1.0.0")
        # npm links a workspace's bins into the root .bin and makes them
        # executable
        bin_link = os.path.join(self.proj, "node_modules", ".bin", "foo")
        self.assertTrue(os.path.islink(bin_link), "node_modules/.bin/foo is missing")
        self.assertEqual(os.readlink(bin_link), "../foo/cli.js")
        self.assertExecutable(os.path.join(self.proj, "packages", "foo", "cli.js"))

    def default_registry(self):
        empty_home = os.path.join(self.tmp, "empty-home")
        os.makedirs(empty_home, exist_ok=True)
        proc = self.nub("config", "get", "default-registry", cwd=empty_home,
                        env={"HOME": empty_home, "npm_config_registry": None,
                             "XDG_CONFIG_HOME": None, "XDG_CACHE_HOME": None})
        value = proc.stdout.strip()
        if value == "undefined" or not value:
            self.skipTest("this nub has no built-in default registry")
        return value if value.endswith("/") else value + "/"

    def test_default_registry_urls_go_to_configured_registry(self):
        default = self.default_registry()
        self.assertNotEqual(default, self.registry.url)
        for lockfile in ("package-lock.v3.json", "package-lock.v1.json"):
            with self.subTest(lockfile=lockfile):
                if os.path.exists(os.path.join(self.proj, "node_modules")):
                    shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.registry.reset_log()
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-" + lockfile)
                self.make_project("basic", lockfile=lockfile)
                lock_path = os.path.join(self.proj, "package-lock.json")
                with open(lock_path) as f:
                    text = f.read()
                self.assertIn(self.registry.url, text)
                with open(lock_path, "w") as f:
                    f.write(text.replace(self.registry.url, default))
                with open(os.path.join(self.proj, ".npmrc"), "w") as f:
                    f.write("registry=%s\n" % self.registry.url)
                self.nub("install", env={
                    "npm_config_registry": None, "npm_config_fetch_retries": "0",
                    "http_proxy": DEAD_PROXY, "https_proxy": DEAD_PROXY,
                    "HTTPS_PROXY": DEAD_PROXY, "ALL_PROXY": DEAD_PROXY, "all_proxy": DEAD_PROXY})
                self.assert_tree()
                want = self.expected_paths()
                self.assertGreaterEqual(
                    self.registry.count(r"\.tgz$"),
                    len({(e["name"], e["version"]) for e in want.values() if not e["bundled"]}))


class NpmDifferentialTest(NpmLockMixin, nubtest.NubTestCase):
    """nub builds the same node_modules as `npm ci`."""

    def against_npm(self, package_json):
        """package_json locked by npm (--package-lock-only) and installed by
        npm ci in a copy of the project, then by nub from that lockfile:
        (nub's tree, npm's tree, npm's lockfile), modes included; npm's
        copy of the project is self.theirs."""
        self.write_json(os.path.join(self.proj, "package.json"), package_json)
        theirs = self.theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=theirs)
        lock = self.read_json(os.path.join(theirs, "package-lock.json"))
        shutil.copy(os.path.join(theirs, "package-lock.json"), self.proj)
        self.npm("ci", "--ignore-scripts", cwd=theirs)
        self.nub("install", "--frozen-lockfile")
        return self.installed(modes=True), self.installed(theirs, modes=True), lock

    def npm_ci(self, project, lockfile):
        work = os.path.join(self.tmp, "npm-" + project)
        os.makedirs(work)
        shutil.copy(os.path.join(PROJECTS_DIR, project, "package.json"), work)
        with open(os.path.join(PROJECTS_DIR, project, lockfile)) as f:
            text = self.render(f.read())
        with open(os.path.join(work, "package-lock.json"), "w") as f:
            f.write(text)
        self.npm("ci", "--ignore-scripts", cwd=work)
        return work

    @nubtest.requires_npm
    def test_same_tree_as_npm_ci(self):
        for project in ("basic", "misc"):
            for lockfile in LOCKFILES:
                with self.subTest(project=project, lockfile=lockfile):
                    name = "%s-%s" % (project, lockfile.split(".")[1])
                    nub_dir = os.path.join(self.tmp, "nub-" + name)
                    os.makedirs(nub_dir)
                    shutil.copy(os.path.join(PROJECTS_DIR, project, "package.json"), nub_dir)
                    with open(os.path.join(PROJECTS_DIR, project, lockfile)) as f:
                        text = self.render(f.read())
                    with open(os.path.join(nub_dir, "package-lock.json"), "w") as f:
                        f.write(text)
                    self.nub("install", "--ignore-scripts", cwd=nub_dir)
                    npm_dir = self.npm_ci(project, lockfile)
                    try:
                        self.assertEqual(self.installed(nub_dir),
                                         self.installed(npm_dir))
                    finally:
                        shutil.rmtree(npm_dir)


    @nubtest.requires_npm
    def test_a_lockfile_that_records_no_libc(self):
        # npm versions before libc was recorded wrote only os and cpu for a
        # musl build; npm ci then installs it on glibc too: the rule is the
        # lockfile's, not the package.json's
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "proj", "version": "1.0.0",
                         "optionalDependencies": {"opt-musl": "1.0.0"}})
        lock = self.lock_v3({}, {"node_modules/opt-musl": {"version": "1.0.0",
                                                           "optional": True}})
        lock["packages"][""]["optionalDependencies"] = {"opt-musl": "1.0.0"}
        del lock["packages"][""]["dependencies"]
        self.write_json(os.path.join(self.proj, "package-lock.json"), lock)
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.npm("ci", "--ignore-scripts", cwd=theirs)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.installed(modes=True), self.installed(theirs, modes=True))

    @nubtest.requires_npm
    def test_the_projects_own_bundled_dependencies(self):
        # what the project bundles ("inBundle": true at the top) is
        # installed from the registry by npm ci; only a package's bundle
        # comes inside that package's tarball
        ours, theirs, lock = self.against_npm({"name": "proj", "version": "1.0.0",
                                               "dependencies": {"a": "^1.0.0", "c": "^1.0.0"},
                                               "bundleDependencies": ["a"]})
        self.assertTrue(lock["packages"]["node_modules/a"].get("inBundle"))
        self.assertEqual(ours, theirs)

    @nubtest.requires_npm
    def test_nested_in_what_the_project_bundles(self):
        # a dependency of a package the project bundles, nested under it
        # ("node_modules/a/node_modules/b", inBundle too): its bundler is
        # the project (arborist's getBundler asks the parent first), so
        # npm ci installs it; it is no package's tarball's to bring
        ours, theirs, lock = self.against_npm({"name": "proj", "version": "1.0.0",
                                               "dependencies": {"a": "^1.0.0", "b": "^2.0.0"},
                                               "bundleDependencies": ["a"]})
        self.assertTrue(lock["packages"]["node_modules/a/node_modules/b"].get("inBundle"))
        self.assertIn("node_modules/a/node_modules/b/package.json -", ours)
        self.assertEqual(ours, theirs)

    @nubtest.requires_npm
    def test_an_empty_directory_in_a_tarball(self):
        # pacote's unpacking keeps file entries only: a folder exists as a
        # file's parent, and a tarball's empty directory is not made
        ours, theirs, lock = self.against_npm({"name": "proj", "version": "1.0.0",
                                               "dependencies": {"empty-dir": "1.0.0"}})
        self.assertIn("node_modules/empty-dir/src/a.js -", theirs)
        self.assertEqual(ours, theirs)

    @nubtest.requires_npm
    def test_a_bin_with_a_crlf_shebang_line(self):
        # npm's bin-links makes the #! line of a bin target end in LF (the
        # kernel would look for "node\r"); the rest of the file as it was
        ours, theirs, _ = self.against_npm({"name": "proj", "version": "1.0.0",
                                            "dependencies": {"crlf-bin": "1.0.0"}})
        rel = os.path.join("node_modules", "crlf-bin", "bin", "cli.js")
        with open(os.path.join(self.theirs, rel), "rb") as f:
            want = f.read()
        self.assertEqual(want, b'#!/usr/bin/env node\nconsole.log("crlf");\r\n')
        with open(os.path.join(self.proj, rel), "rb") as f:
            self.assertEqual(f.read(), want)
        self.assertEqual(ours, theirs)
        # the store keeps the tarball's bytes: a reinstall makes the same
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--frozen-lockfile", "--offline")
        with open(os.path.join(self.proj, rel), "rb") as f:
            self.assertEqual(f.read(), want)

    @nubtest.requires_npm
    def test_gitignore_files_as_npm_unpacks_them(self):
        # npm's pacote unpacks ".gitignore" as ".npmignore", and drops it
        # where the package has a .npmignore beside it
        ours, theirs, _ = self.against_npm({"name": "proj", "version": "1.0.0",
                                            "dependencies": {"gitignored": "1.0.0"}})
        self.assertEqual(ours, theirs)
        with open(os.path.join(self.proj, "node_modules/gitignored/sub/.npmignore")) as f:
            self.assertEqual(f.read(), "test\n")
        # made again over what is there, and from the store alone
        self.nub("install", "--force")
        self.assertEqual(self.installed(modes=True), theirs)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", "--offline")
        self.assertEqual(self.installed(modes=True), theirs)

    @nubtest.requires_npm
    def test_workspace_same_tree_as_npm_ci(self):
        OddPackagesTest.make_workspace_project(self)
        npm_dir = os.path.join(self.tmp, "npm-ws")
        shutil.copytree(self.proj, npm_dir, symlinks=True)
        self.nub("install", "--ignore-scripts")
        self.npm("ci", "--ignore-scripts", cwd=npm_dir)
        self.assertEqual(self.installed(), self.installed(npm_dir))


class WriteBackTest(NpmLockMixin, nubtest.NubTestCase):
    """A package-lock.json that no longer answers package.json: `nub install`
    resolves again and writes it back (v3); `npm ci` accepts what it wrote
    and builds the tree nub built, modes and .bin included."""

    @nubtest.requires_npm
    def test_added_dependency(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        pj = os.path.join(self.proj, "package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["tagged"] = "^1.0.0"
        doc["dependencies"]["b"] = "^2.0.0"
        self.write_json(pj, doc)
        self.nub("install", "--ignore-scripts")
        self.npm_ci_same_tree()
        # written once: the next install is a no-op, the lockfile untouched
        st = os.stat(os.path.join(self.proj, "package-lock.json"))
        self.assertIn("Already up to date", self.nub("install").stdout)
        self.nub("install", "--force", "--ignore-scripts")
        self.assertEqual(os.stat(os.path.join(self.proj, "package-lock.json")).st_mtime_ns,
                         st.st_mtime_ns)

    @nubtest.requires_npm
    def test_workspace_member_changed(self):
        self.make_project({"name": "mono", "version": "1.0.0", "private": True,
                           "workspaces": ["packages/*"], "dependencies": {"b": "^1.0.0"}})
        for rel, doc in (("packages/lib", {"name": "@mono/lib", "version": "1.2.0",
                                           "dependencies": {"a": "^1.0.0"}}),
                         ("packages/app", {"name": "app", "version": "0.1.0",
                                           "dependencies": {"@mono/lib": "^1.0.0",
                                                            "b": "^2.0.0"}})):
            os.makedirs(os.path.join(self.proj, rel))
            self.write_json(os.path.join(self.proj, rel, "package.json"), doc)
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
        app = os.path.join(self.proj, "packages/app/package.json")
        doc = self.read_json(app)
        doc["dependencies"]["c"] = "^1.0.0"
        doc["dependencies"]["b"] = "^1.0.0"
        self.write_json(app, doc)
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("packages/app/package.json", proc.stderr)
        self.nub("install", "--ignore-scripts")
        lock = self.read_json(os.path.join(self.proj, "package-lock.json"))
        self.assertEqual(lock["packages"]["node_modules/app"],
                         {"resolved": "packages/app", "link": True})
        self.assertEqual(lock["packages"]["packages/app"]["dependencies"]["c"], "^1.0.0")
        self.npm_ci_same_tree()


class KeepTheLockTest(NpmLockMixin, nubtest.NubTestCase):
    """A change of package.json (nub add, remove, update, a hand edit)
    changes package-lock.json as npm 11 changes it from the same file, byte
    for byte: the lockfile is the starting tree (arborist), so every other
    pin stays, even where the registry has newer versions."""

    def old_lock(self):
        """A project whose lockfile is older than the registry: fresh-user
        (fresh ^1.0.0) is locked with fresh 1.0.0 while 1.1.0 is out (npm
        wrote it when package.json pinned fresh 1.0.0, then kept the pin
        when the pin went). A copy for npm is returned."""
        self.make_project({"name": "proj", "version": "1.0.0",
                           "dependencies": {"fresh": "1.0.0", "fresh-user": "^1.0.0"}})
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "proj", "version": "1.0.0",
                         "dependencies": {"fresh-user": "^1.0.0"}})
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
        lock = self.read_json(os.path.join(self.proj, "package-lock.json"))
        self.assertEqual(lock["packages"]["node_modules/fresh"]["version"], "1.0.0")
        theirs = os.path.join(self.tmp, "theirs", "proj")
        shutil.copytree(self.proj, theirs)
        return theirs

    def assert_as_npm(self, theirs, nub_args, npm_args):
        self.nub(*nub_args, "--ignore-scripts")
        self.npm(*npm_args, "--package-lock-only", "--ignore-scripts", cwd=theirs)
        for name in ("package.json", "package-lock.json"):
            with open(os.path.join(self.proj, name)) as f:
                ours = f.read()
            with open(os.path.join(theirs, name)) as f:
                self.assertEqual(ours, f.read(), "%s differs from npm's after %s"
                                 % (name, " ".join(nub_args)))
        return self.read_json(os.path.join(self.proj, "package-lock.json"))["packages"]

    @nubtest.requires_npm
    def test_add_a_new_package(self):
        theirs = self.old_lock()
        pk = self.assert_as_npm(theirs, ["add", "a"], ["install", "a"])
        self.assertEqual(pk["node_modules/fresh"]["version"], "1.0.0")  # kept
        self.assertIn("node_modules/b", pk)

    @nubtest.requires_npm
    def test_add_a_package_the_tree_has(self):
        # fresh 2.0.0 at the top; fresh-user gets the newest 1.x beside it
        theirs = self.old_lock()
        pk = self.assert_as_npm(theirs, ["add", "fresh"], ["install", "fresh"])
        self.assertEqual(pk["node_modules/fresh"]["version"], "2.0.0")
        self.assertEqual(pk["node_modules/fresh-user/node_modules/fresh"]["version"], "1.1.0")

    @nubtest.requires_npm
    def test_remove_prunes_only_what_nothing_needs(self):
        theirs = self.old_lock()
        pk = self.assert_as_npm(theirs, ["remove", "fresh-user"], ["uninstall", "fresh-user"])
        self.assertEqual(sorted(pk), [""])

    @nubtest.requires_npm
    def test_update_one_package(self):
        theirs = self.old_lock()
        pk = self.assert_as_npm(theirs, ["update", "fresh"], ["update", "fresh"])
        self.assertEqual(pk["node_modules/fresh"]["version"], "1.1.0")

    @nubtest.requires_npm
    def test_merge_conflict_resolved_as_npm_resolves_it(self):
        # two branches add a dependency each; git leaves markers in the
        # lockfile's root entry, the user merges package.json by hand
        self.make_project({"name": "proj", "version": "1.0.0",
                           "dependencies": {"fresh-user": "^1.0.0"}})
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
        git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
        self.run_cmd(git + ["init", "-q", "-b", "main", "."])
        self.run_cmd(git + ["add", "-A"])
        self.run_cmd(git + ["commit", "-qm", "base"])
        pj = os.path.join(self.proj, "package.json")
        for branch, dep in (("other", "a"), ("main", "tagged")):
            if branch != "main":
                self.run_cmd(git + ["checkout", "-qb", branch])
            else:
                self.run_cmd(git + ["checkout", "-q", "main"])
            doc = self.read_json(pj)
            doc["dependencies"][dep] = "^1.0.0"
            self.write_json(pj, doc)
            self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
            self.run_cmd(git + ["commit", "-qam", dep])
        self.run_cmd(git + ["merge", "other"], check=False)
        lock = os.path.join(self.proj, "package-lock.json")
        with open(lock) as f:
            self.assertIn("<<<<<<< ", f.read())
        self.write_json(pj, {"name": "proj", "version": "1.0.0",
                             "dependencies": {"a": "^1.0.0", "fresh-user": "^1.0.0",
                                              "tagged": "^1.0.0"}})
        theirs = os.path.join(self.tmp, "theirs", "proj")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns(".git"))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("merge-conflict", proc.stderr)
        self.assert_as_npm(theirs, ["install"], ["install"])
        self.npm_ci_same_tree()

    @nubtest.requires_npm
    def test_hand_edit_moves_no_other_pin(self):
        theirs = self.old_lock()
        for d in (self.proj, theirs):
            pj = os.path.join(d, "package.json")
            doc = self.read_json(pj)
            doc["dependencies"]["tagged"] = "^1.0.0"
            doc["devDependencies"] = {"a": "^1.0.0"}
            self.write_json(pj, doc)
        pk = self.assert_as_npm(theirs, ["install"], ["install"])
        self.assertEqual(pk["node_modules/fresh"]["version"], "1.0.0")
        self.assertTrue(pk["node_modules/b"]["dev"])
        self.npm_ci_same_tree()


if __name__ == "__main__":
    nubtest.main()
