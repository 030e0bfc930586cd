#!/usr/bin/env python3
"""Trust: nub never finishes with exit 0 while node_modules differs from what
was asked for, never crashes on a damaged file, and sends credentials only
where they belong.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_trust.py
     (or ctest -R e2e.trust)
"""

import base64
import json
import os
import shutil
import re
import socket
import unicodedata

import nubtest
from registry import Registry


class TrustTestCase(nubtest.NubTestCase):

    def basic(self, lockfile="package-lock.v3.json"):
        return self.make_project("basic", lockfile=lockfile)

    def nm(self, *parts):
        return os.path.join(self.proj, "node_modules", *parts)

    def write(self, rel, text, mode="w"):
        path = os.path.join(self.proj, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as f:
            f.write(text)
        return path

    def read(self, rel, mode="r"):
        with open(os.path.join(self.proj, rel), mode) as f:
            return f.read()


    def make_cert(self):
        """A self-signed certificate for 127.0.0.1: (cert, key) paths."""
        import subprocess
        cert, key = os.path.join(self.tmp, "cert.pem"), os.path.join(self.tmp, "key.pem")
        made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                               "-keyout", key, "-out", cert, "-days", "2", "-subj",
                               "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if made.returncode != 0:
            self.skipTest("openssl cannot make a certificate here")
        return cert, key


class RequiredFailureTest(TrustTestCase):
    """Item 1: resolving without a lockfile, a package that fails to
    download is an error unless it is optional in the final graph; the next
    install is not 'Already up to date'."""

    def setUp(self):
        super().setUp()
        self.env.update({"npm_config_fetch_retries": "0"})
        # c is picked (and its download begins) at the first level; the
        # resolver then waits a second for a's packument (needed by
        # @scope/d), so c's failure arrives while resolution goes on
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"@scope/d": "^1.0.0", "c": "^1.0.0"},
                           "optionalDependencies": {"e": "^1.0.0"}})
        self.registry.add_fault(r"^/a$", "delay", count=None, seconds=1)

    def assert_fails_then_recovers(self, proc, code):
        self.assertEqual(proc.returncode, code, proc.stderr)
        self.assertIn("c@1.0.0", proc.stderr)
        self.assertNotIn("skipping optional dependency c", proc.stderr)
        self.registry.clear_faults()
        again = self.nub("install")
        self.assertNotIn("Already up to date", again.stdout)
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})

    def test_a_404_of_a_required_package(self):
        self.registry.add_fault(r"^/c/-/", "status", count=None, code=404)
        self.assert_fails_then_recovers(self.nub_fails("install"), 40)

    def test_a_redirect_loop(self):
        self.registry.add_fault(r"^/c/-/", "status", count=None, code=302,
                                headers={"Location": self.registry.tarball_url("c", "1.0.0")})
        self.assert_fails_then_recovers(self.nub_fails("install"), 41)

    def test_a_failed_install_writes_no_lockfile(self):
        # the metadata's integrity does not match the tarball: the install
        # fails, and no nub.lock pins the wrong integrity (one was written
        # before the fetch, so that the next install failed the same way
        # after the registry was fixed)
        self.registry.clear_faults()
        self.registry.add_fault(r"^/c$", "wrong_integrity", count=None)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 30, proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.registry.clear_faults()
        self.nub("install")
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})

    def test_an_optional_package_that_fails_is_left_out(self):
        self.registry.add_fault(r"^/e/-/", "status", count=None, code=404)
        proc = self.nub("install")
        warn = [l for l in proc.stderr.splitlines() if "skipping optional dependency e@1.0.0" in l]
        self.assertEqual(len(warn), 1, proc.stderr)
        self.assertFalse(os.path.exists(self.nm("e")))
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})


class MissingIntegrityTest(TrustTestCase):
    """A registry version with neither dist.integrity nor dist.shasum is
    refused unless allowed (installed silently before, nub.lock recording
    `{}` for it); a shasum alone is checked (sha1) and recorded."""

    def test_refused_by_default(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"unsigned": "^1.0.0"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 30, proc.stderr)
        self.assertIn("unsigned@1.0.0", proc.stderr)
        self.assertIn("allow-missing-integrity", proc.stderr)
        self.assertFalse(os.path.exists(self.nm("unsigned")))
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))

    def test_allowed_by_the_setting(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"unsigned": "^1.0.0"}})
        self.write(".npmrc", "allow-missing-integrity=true\n")
        self.nub("install")
        self.assertEqual(self.node_require(self.proj, "unsigned"), "unsigned")

    def test_a_shasum_alone_is_checked_and_recorded(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"legacy": "0.0.1"}})
        self.nub("install")
        self.assertIn("integrity: sha1-", self.read("nub.lock"))
        self.registry.add_fault(r"^/legacy$", "wrong_integrity", count=None)
        shutil.rmtree(self.nm())
        os.remove(os.path.join(self.proj, "nub.lock"))
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store2")
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 30, proc.stderr)


class StoreTamperTest(TrustTestCase):
    """A store file edited through a hard-linked node_modules does not reach
    another project, nor `nub install --force` or `nub ci` of the same one:
    the package is fetched again and the change is said in one line (the
    second project printed TAMPERED before)."""

    TAMPER = "\nmodule.exports.tampered = 'TAMPERED';\n"

    def setUp(self):
        super().setUp()
        self.env["npm_config_package_import_method"] = "hardlink"

    def second(self):
        other = os.path.join(self.tmp, "other")
        os.makedirs(other, exist_ok=True)
        for f in ("package.json", "package-lock.json", "nub.lock"):
            if os.path.exists(os.path.join(self.proj, f)):
                shutil.copy(os.path.join(self.proj, f), other)
        return other

    def tamper(self, rel, shared=False):
        # shared: the file is the store's own (isolated: a symlink into the
        # global virtual store), not a hard link of it
        path = self.nm(*rel.split("/"))
        if not shared and os.stat(path).st_nlink < 2:
            self.skipTest("the store is not hard-linked here")
        with open(path, "a") as f:
            f.write(self.TAMPER)
        return path

    def clean(self, proj, rel):
        with open(os.path.join(proj, "node_modules", *rel.split("/"))) as f:
            return "TAMPERED" not in f.read()

    def check_recovery(self, rel):
        other = self.second()
        proc = self.nub("install", cwd=other)
        self.assertTrue(self.clean(other, rel), "the edit reached another project")
        warn = [l for l in proc.stderr.splitlines() if "is damaged" in l]
        self.assertEqual(len(warn), 1, proc.stderr)
        self.assertIn("a@1.0.0", warn[0])
        # the store is whole again: a third project is quiet
        third = os.path.join(self.tmp, "third")
        shutil.copytree(other, third, ignore=shutil.ignore_patterns("node_modules"))
        proc = self.nub("install", cwd=third)
        self.assertNotIn("is damaged", proc.stderr)
        self.assertTrue(self.clean(third, rel))

    def test_hoisted_another_project(self):
        self.basic()
        self.nub("install")
        self.tamper("a/index.js")
        self.check_recovery("a/index.js")

    def test_hoisted_force_and_ci(self):
        self.basic()
        self.nub("install")
        for argv in (("install", "--force"), ("ci",)):
            with self.subTest(argv=argv):
                self.tamper("a/index.js")
                self.nub(*argv)
                self.assertTrue(self.clean(self.proj, "a/index.js"), argv)

    def test_store_verify_finds_it(self):
        for layout in ("hoisted", "isolated"):
            with self.subTest(layout=layout):
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-" + layout)
                for f in ("node_modules", "nub.lock"):
                    p = os.path.join(self.proj, f)
                    if os.path.isdir(p):
                        shutil.rmtree(p)
                    elif os.path.exists(p):
                        os.remove(p)
                self.make_project({"name": "p", "version": "1.0.0",
                                   "dependencies": {"a": "^1.0.0"}})
                self.nub("install", "--node-linker", layout)
                # same size: only the mtime tells (a tree's files have no hashes)
                path = self.nm("a", "index.js")
                with open(path, "r+") as f:
                    text = f.read()
                    f.seek(0)
                    f.write(text.replace("module", "MODULE", 1))
                proc = self.nub("store", "verify", check=False)
                self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
                self.assertIn("a@1.0.0", proc.stdout + proc.stderr)
                other = self.second()
                proc = self.nub("install", "--node-linker", layout, cwd=other)
                with open(os.path.join(other, "node_modules", "a", "index.js")) as f:
                    self.assertNotIn("MODULE", f.read())

    def test_isolated_without_the_global_virtual_store(self):
        # each project's own .nub tree, hard-linked from the store: as hoisted
        self.env["npm_config_enable_global_virtual_store"] = "false"
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.nub("install", "--node-linker", "isolated")
        self.tamper("a/index.js")
        self.check_recovery("a/index.js")

    def test_global_virtual_store_force_repairs_every_project(self):
        # With the global virtual store every project reads the store's
        # tree through symlinks, so an edit reaches all of them at once and
        # no install can stop it; `nub install --force` (and `nub ci`,
        # `nub store verify`) check every stored file and repair it for all.
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.nub("install", "--node-linker", "isolated")
        other = self.second()
        self.nub("install", "--node-linker", "isolated", cwd=other)
        self.tamper("a/index.js", shared=True)
        proc = self.nub("install", "--force", cwd=other)
        warn = [l for l in proc.stderr.splitlines() if "is damaged" in l]
        self.assertEqual(len(warn), 1, proc.stderr)
        self.assertTrue(self.clean(other, "a/index.js"))
        self.assertTrue(self.clean(self.proj, "a/index.js"))


class OnDiskCheckTest(TrustTestCase):
    """Item 4: the up-to-date check sees node_modules as it is on disk: a
    package directory deleted, added or replaced at any depth is mended by
    the next plain `nub install`, which leaves the tree it had built."""

    def damage_and_mend(self, damage, layout_args=()):
        self.nub("install", *layout_args)
        want = self.tree()
        damage()
        proc = self.nub("install", *layout_args)
        self.assertNotIn("Already up to date", proc.stdout)
        self.assertEqual(self.tree(), want)
        self.assertEqual(self.nub("install", *layout_args).stdout.strip(), "Already up to date")

    def rm(self, *parts):
        path = self.nm(*parts)
        if os.path.islink(path):
            os.unlink(path)
        else:
            nubtest._rmtree(path)

    def junk(self, *parts):
        os.makedirs(self.nm(*parts))
        with open(self.nm(*parts, "package.json"), "w") as f:
            f.write('{"name": "junkpkg", "version": "6.6.6"}\n')

    def test_hoisted(self):
        cases = {
            "a deleted package": lambda: self.rm("a"),
            "a deleted directory inside a package": lambda: self.rm("e", "lib"),
            "a deleted scoped package": lambda: self.rm("@scope", "d"),
            "a deleted nested package": lambda: self.rm("c", "node_modules", "b"),
            "a package added by hand": lambda: self.junk("junkpkg"),
            "a scoped package added by hand": lambda: self.junk("@junk", "pkg"),
            "a nested package added by hand": lambda: self.junk("c", "node_modules", "junkpkg"),
            "a package replaced": lambda: (self.rm("b"), shutil.copytree(
                self.nm("c", "node_modules", "b"), self.nm("b"))),
            "a file added at a package's top": lambda: open(self.nm("a", "extra.js"), "w").close(),
        }
        for what, damage in cases.items():
            with self.subTest(what):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                self.basic()
                self.damage_and_mend(damage)
                self.assertEqual(self.read_json(self.nm("b", "package.json"))["version"], "1.0.0")

    def test_dot_entries_are_left_alone(self):
        self.basic()
        self.nub("install")
        os.makedirs(self.nm(".cache", "babel"))
        proc = self.nub("install")
        self.assertTrue(os.path.isdir(self.nm(".cache", "babel")))
        self.assertNotIn("removed", proc.stdout)

    def isolated_project(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"a": "^1.0.0", "@scope/d": "^1.0.0", "e": "^1.0.0"}})

    def nub_dir(self, name):
        return [d for d in os.listdir(self.nm(".nub")) if d.startswith(name + "@")][0]

    def test_isolated(self):
        cases = {
            "a deleted top-level link": lambda: os.unlink(self.nm("a")),
            "a deleted scoped link": lambda: os.unlink(self.nm("@scope", "d")),
            "a deleted entry": lambda: self.rm(".nub", self.nub_dir("b")),
            "a package added by hand": lambda: self.junk("junkpkg"),
            "an entry added by hand": lambda: self.junk(".nub", "junk@1.0.0"),
            # what an older nub kept for every package, here by a package's name
            "a link per package": lambda: os.symlink(os.path.realpath(self.nm("a")),
                                                     self.nm(".nub", "b@1.0.0")),
        }
        for gvs in ((), ("--no-global-virtual-store",)):
            for what, damage in cases.items():
                if what == "a deleted entry" and not gvs:
                    continue  # with the global virtual store no entry is in the project
                if what == "a link per package" and gvs:
                    continue  # (there b@1.0.0 is a directory of the project's)
                with self.subTest(what, gvs=gvs):
                    nubtest._rmtree(self.proj)
                    os.makedirs(self.proj)
                    self.isolated_project()
                    self.damage_and_mend(damage, gvs)
                    self.assertEqual(self.node_require(self.proj, "a")["deps"], {"b": "1.0.0"})

    def test_isolated_entry_in_the_project(self):
        self.isolated_project()
        args = ("--no-global-virtual-store",)
        self.damage_and_mend(lambda: self.rm(".nub", self.nub_dir("e"), "node_modules", "e",
                                             "lib"), args)
        self.assertTrue(os.path.isfile(self.nm(".nub", self.nub_dir("e"), "node_modules", "e",
                                               "lib", "x", "y.js")))


class LocalDependencyTest(TrustTestCase):
    """Item 6: a file: directory is a link (edits are seen at once), a
    file: tarball installs, in both layouts, as npm installs them."""

    def tarball(self, rel="vendor/x-1.0.0.tgz"):
        import io, tarfile, gzip
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as t:
            for name, data in (("package/package.json",
                                b'{"name": "x", "version": "1.0.0", "dependencies": {"b": "^2.0.0"}}'),
                               ("package/index.js",
                                b"module.exports = {name: 'x', b: require('b/package.json').version};")):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        path = os.path.join(self.proj, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(gzip.compress(buf.getvalue(), mtime=0))
        return path

    def test_file_tarball_without_a_lockfile(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"x": "file:vendor/x-1.0.0.tgz", "a": "^1.0.0"}})
        self.tarball()
        self.nub("install")
        self.assertEqual(self.node_require(self.proj, "x"), {"name": "x", "b": "2.0.0"})
        lock = self.read("nub.lock")
        self.assertIn("file:vendor/x-1.0.0.tgz", lock)
        self.assertIn("integrity: sha512-", lock)
        self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")
        nubtest._rmtree(self.nm())
        self.nub("install", "--frozen-lockfile", "--offline")
        self.assertEqual(self.node_require(self.proj, "x"), {"name": "x", "b": "2.0.0"})
        # hoisted, from the same nub.lock
        nubtest._rmtree(self.nm())
        self.nub("install", "--node-linker", "hoisted")
        self.assertFalse(os.path.islink(self.nm("x")))
        self.assertEqual(self.node_require(self.proj, "x"), {"name": "x", "b": "2.0.0"})

    def test_file_tarball_by_absolute_path(self):
        path = self.tarball(os.path.join(self.tmp, "elsewhere", "x-1.0.0.tgz"))
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"x": "file:" + path}})
        self.nub("install")
        self.assertEqual(self.node_require(self.proj, "x"), {"name": "x", "b": "2.0.0"})
        nubtest._rmtree(self.nm())
        self.nub("install", "--node-linker", "hoisted", "--frozen-lockfile", "--offline")
        self.assertEqual(self.node_require(self.proj, "x"), {"name": "x", "b": "2.0.0"})

    @nubtest.requires_npm
    def test_file_tarball_and_directory_from_an_npm_lockfile(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"x": "file:vendor/x-1.0.0.tgz",
                                            "lib": "file:lib", "a": "^1.0.0"}})
        self.tarball()
        self.write("lib/package.json", '{"name": "lib", "version": "0.1.0"}\n')
        self.write("lib/index.js", "module.exports = 'v1';\n")
        self.npm("install", "--package-lock-only", "--ignore-scripts", cwd=self.proj)
        lock = self.read_json(os.path.join(self.proj, "package-lock.json"))
        self.assertTrue(lock["packages"]["node_modules/lib"].get("link"))
        npm_dir = os.path.join(self.tmp, "npm")
        shutil.copytree(self.proj, npm_dir, symlinks=True)
        self.npm("ci", "--ignore-scripts", cwd=npm_dir)
        self.nub("ci")
        self.assertEqual(self.installed(), self.installed(npm_dir))
        self.assertTrue(os.path.islink(self.nm("lib")))
        self.assertEqual(self.node_require(self.proj, "x"), {"name": "x", "b": "2.0.0"})
        self.write("lib/index.js", "module.exports = 'v2';\n")
        out = self.run_cmd(["node", "-e", "console.log(require('lib'))"]).stdout.strip()
        self.assertEqual(out, "v2")


class StrictInputTest(TrustTestCase):
    """Item 2: invalid JSON is refused with file, line and column, and
    nothing is installed; a lockfile field that is missing is an error, not a
    crash."""

    def assert_refused(self, proc, code, fname, line=None):
        self.assertEqual(proc.returncode, code, proc.stderr)
        self.assertIn(fname, proc.stderr)
        m = re.search(r"line (\d+) column (\d+)", proc.stderr)
        self.assertIsNotNone(m, proc.stderr)
        if line is not None:
            self.assertEqual(int(m.group(1)), line, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertFalse(os.path.exists(self.nm()), "node_modules was made")

    def test_lockfile_with_a_stray_brace(self):
        self.basic()
        text = self.read("package-lock.json")
        # close the "packages" object early: the rest is data after the value
        cut = text.index('    "node_modules/c": {')
        self.write("package-lock.json", text[:cut].rstrip().rstrip(",") + "\n  }\n}\n"
                   + text[cut:])
        proc = self.nub_fails("install")
        self.assert_refused(proc, 11, "package-lock.json")
        self.assertIn("after the end", proc.stderr)
        self.assertEqual(self.registry.requests, [])

    def test_package_json_followed_by_garbage(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.write("package.json", self.read("package.json") + "garbage\n")
        proc = self.nub_fails("install")
        self.assert_refused(proc, 70, "package.json", line=8)

    def test_raw_control_character_in_a_key(self):
        self.basic()
        text = self.read("package-lock.json")
        self.write("package-lock.json", text.replace('"node_modules/e"', '"node_modules/\x01e"'))
        proc = self.nub_fails("install")
        self.assert_refused(proc, 11, "package-lock.json")
        self.assertIn("control character", proc.stderr)

    def test_invalid_utf8_in_a_key(self):
        self.basic()
        data = self.read("package-lock.json", "rb")
        self.write("package-lock.json",
                   data.replace(b'"node_modules/e"', b'"node_modules/\xffe"'), "wb")
        proc = self.nub_fails("install")
        self.assert_refused(proc, 11, "package-lock.json")
        self.assertIn("UTF-8", proc.stderr)

    def test_bun_lock_with_trailing_data(self):
        self.basic(lockfile=None)
        self.write_lock_template("basic/bun.lock.template", "bun.lock")
        self.write("bun.lock", self.read("bun.lock") + "}\n")
        proc = self.nub_fails("install")
        self.assert_refused(proc, 11, "bun.lock")

    def test_a_package_json_that_is_not_a_file(self):
        # a FIFO named package.json: the install waited for a writer for
        # good; now it is refused at once as malformed input
        os.mkfifo(os.path.join(self.proj, "package.json"))
        proc = self.nub_fails("install", timeout=30)
        self.assertEqual(proc.returncode, 70, proc.stderr)
        self.assertIn("package.json is not a regular file", proc.stderr)

    def test_missing_package_json_is_not_malformed(self):
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 71, proc.stderr)
        self.assertIn("no package.json", proc.stderr)

    def lock_without_specifier(self, name):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"b": "^1.0.0"}})
        self.nub("install")
        text = self.read("nub.lock")
        self.assertIn("specifier: ^1.0.0", text)
        text = text.replace("        specifier: ^1.0.0\n", "")
        self.write(name, text)
        if name != "nub.lock":
            os.unlink(os.path.join(self.proj, "nub.lock"))
        return self.nub_fails("install")

    def test_nub_lock_importer_without_specifier(self):
        proc = self.lock_without_specifier("nub.lock")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertRegex(proc.stderr, r"nub\.lock:\d+:\d+: .*has no specifier")

    def test_pnpm_lock_importer_without_specifier(self):
        proc = self.lock_without_specifier("pnpm-lock.yaml")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("has no specifier", proc.stderr)


class StaleLockfileTest(TrustTestCase):
    """Item 5: a lockfile that no longer answers package.json is never
    installed as if it did; --no-frozen-lockfile on a lockfile nub cannot
    write back fails clearly."""

    def add_dep(self, name, spec):
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        pj["dependencies"][name] = spec
        self.write_json(os.path.join(self.proj, "package.json"), pj)

    def test_a_transitive_version_at_the_top_does_not_answer_a_new_range(self):
        # b@1.0.0 is at node_modules/b only as a's dependency
        for lockfile in ("package-lock.v3.json", "package-lock.v1.json"):
            with self.subTest(lockfile=lockfile):
                self.basic(lockfile=lockfile)
                self.add_dep("b", "^2.0.0")
                for cmd in (("ci",), ("install", "--frozen-lockfile")):
                    proc = self.nub_fails(*cmd)
                    self.assertEqual(proc.returncode, 16, proc.stderr)
                    self.assertIn("b@^2.0.0", proc.stderr)
                    self.assertIn("npm install", proc.stderr)
                    self.assertFalse(os.path.exists(self.nm("b")))
                # `nub install` answers as `npm install` does: it resolves
                # again and writes package-lock.json back
                self.nub("install")
                self.assertEqual(self.read_json(self.nm("b", "package.json"))["version"],
                                 "2.0.0")
                lock = self.read_json(os.path.join(self.proj, "package-lock.json"))
                self.assertEqual(lock["lockfileVersion"], 3)
                self.assertEqual(lock["packages"]["node_modules/b"]["version"], "2.0.0")
                self.assertEqual(lock["packages"][""]["dependencies"]["b"], "^2.0.0")
                self.nub("ci")
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)

    @nubtest.requires_npm
    def test_npm_ci_refuses_it_too(self):
        self.basic()
        self.add_dep("b", "^2.0.0")
        self.assertNotEqual(self.npm("ci", "--ignore-scripts", check=False).returncode, 0)
        self.assertEqual(self.nub_fails("ci").returncode, 16)

    def test_an_alias_is_checked_against_its_package(self):
        self.basic()
        self.add_dep("bee", "npm:b@^2.0.0")
        proc = self.nub_fails("ci")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("bee", proc.stderr)

    def test_a_range_the_lock_still_satisfies_is_fine(self):
        self.basic()
        self.add_dep("a", ">=1.0.0")
        self.nub("ci")
        self.assertEqual(self.read_json(self.nm("a", "package.json"))["version"], "1.0.0")

    def test_bun_lock(self):
        # frozen, a stale bun.lock is refused naming bun's command; otherwise
        # it is resolved again and written back, as bun install does
        self.basic(lockfile=None)
        self.write_lock_template("basic/bun.lock.template", "bun.lock")
        self.add_dep("b", "^2.0.0")
        proc = self.nub_fails("ci")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("bun install", proc.stderr)
        self.assertNotIn("npm", proc.stderr)
        self.assertFalse(os.path.exists(self.nm()))
        self.nub("install")
        self.assertEqual(self.read_json(self.nm("b", "package.json"))["version"], "2.0.0")

    def test_no_frozen_lockfile_resolves_bun_lock_again(self):
        self.basic(lockfile=None)
        self.write_lock_template("basic/bun.lock.template", "bun.lock")
        self.nub("install", "--no-frozen-lockfile")
        with open(os.path.join(self.proj, "bun.lock")) as f:
            # written again: the test registry is not bun's default, so each
            # entry names its tarball
            self.assertIn(self.registry.url + "a/-/a-1.0.0.tgz", f.read())
        self.assertEqual(self.read_json(self.nm("c", "package.json"))["version"], "1.0.0")


INTL_NAMES = ["caf\u00e9.js", unicodedata.normalize("NFD", "caf\u00e9") + "-nfd.js",
              "\U0001F600.js", "d\u00edr"]


class NonAsciiNamesTest(TrustTestCase):
    """Item 3: file names that are not ASCII install byte for byte, in every
    locale, in both layouts, as npm installs them."""

    def project(self, lockfile):
        self.make_project({"name": "proj", "version": "1.0.0",
                           "dependencies": {"intl": "^1.0.0"}})
        if lockfile:
            self.write_json(os.path.join(self.proj, "package-lock.json"),
                            self.lock_v3({"intl": "^1.0.0"},
                                         {"node_modules/intl": {"version": "1.0.0"}}))

    def assert_names(self, pkgdir):
        got = set(os.listdir(os.fsencode(pkgdir)))
        for name in INTL_NAMES:
            self.assertIn(name.encode("utf-8"), got, sorted(got))
        self.assertIn("\u00fc.js".encode(), os.listdir(os.path.join(os.fsencode(pkgdir),
                                                                   "d\u00edr".encode())))
        if nubtest.have_node():
            out = self.node_require(self.proj, "intl")
            self.assertEqual([out["nfc"], out["nfd"], out["emoji"], out["nested"]],
                             ["nfc", "nfd", "emoji", "nested"])

    def test_every_locale_both_layouts(self):
        for lockfile in (True, False):
            for env in ({"LANG": "C", "LC_ALL": "C"}, {"LANG": "C.UTF-8", "LC_ALL": None},
                        {"LANG": None, "LC_ALL": "en_US.ISO-8859-1"}):
                with self.subTest(lockfile=lockfile, env=env):
                    nubtest._rmtree(self.proj)
                    os.makedirs(self.proj)
                    self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-%d-%s" % (
                        lockfile, env.get("LANG")))
                    self.project(lockfile)
                    self.nub("install", env=env)
                    self.assert_names(self.nm("intl"))

    @nubtest.requires_npm
    def test_same_names_as_npm(self):
        self.project(True)
        npm_dir = os.path.join(self.tmp, "npm")
        os.makedirs(npm_dir)
        for f in ("package.json", "package-lock.json"):
            with open(os.path.join(self.proj, f)) as src, open(os.path.join(npm_dir, f), "w") as dst:
                dst.write(src.read())
        self.npm("ci", "--ignore-scripts", cwd=npm_dir)
        self.nub("install")
        def names(root):
            out = []
            for dirpath, dirs, files in os.walk(os.fsencode(os.path.join(root, "node_modules",
                                                                         "intl"))):
                out += [os.path.relpath(os.path.join(dirpath, f), os.fsencode(root))
                        for f in dirs + files]
            return sorted(out)
        self.assertEqual(names(self.proj), names(npm_dir))


def free_port_pair():
    """Ports p and q = p*10 + d, both free: "//127.0.0.1:p" is then a bare
    string prefix of "//127.0.0.1:q/", the shape of the credential-scope bug
    ("//reg.example.com" vs "//reg.example.com.evil.net")."""
    def free(port):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return True
            except OSError:
                return False
    for p in range(2000 + os.getpid() % 4000, 6553):
        for d in range(10):
            q = p * 10 + d
            if q <= 65535 and free(p) and free(q):
                return p, q
    raise RuntimeError("no free port pair")


class CredentialScopeTest(TrustTestCase):
    """Item 8: every kind of credential reaches only the host it is bound
    to, on every request (packuments, tarballs of other hosts, redirects);
    ${VAR} in a repository's .npmrc only for a registry trusted config chose;
    no secret in any output or trace."""

    SECRETS = ("tok-a-7f3e", "pass-word-91", "s3cret-env-55", "tok-b-c0de", "urlpw-6d1")

    def setUp(self):
        super().setUp()
        pa, pb = free_port_pair()
        self.ra = Registry(nubtest.PACKAGES_DIR, port=pa).start()
        self.rb = Registry(nubtest.PACKAGES_DIR, port=pb).start()
        self.addCleanup(self.ra.stop)
        self.addCleanup(self.rb.stop)
        self.ha = "//127.0.0.1:%d" % pa
        self.hb = "//127.0.0.1:%d" % pb
        self.env.pop("npm_config_registry")
        self.trace = os.path.join(self.tmp, "trace.jsonl")
        self.env.update({"NUB_DIAG_FILE": self.trace, "NUB_LOG": "debug",
                         "npm_config_fetch_retry_mintimeout": "10",
                         "npm_config_fetch_retry_maxtimeout": "20"})
        self.outputs = []

    def userrc(self, text):
        with open(os.path.join(self.home, ".npmrc"), "w") as f:
            f.write(text)

    def projrc(self, text):
        self.write(".npmrc", text)

    def run_nub(self, *args, ok=True, env=None):
        proc = self.nub(*args, check=ok, env=env)
        self.outputs += [proc.stdout, proc.stderr]
        return proc

    def auth_of(self, reg, path_rx):
        """The Authorization headers of every request to reg matching path_rx."""
        return [r["headers"].get("authorization") for r in reg.requests
                if re.search(path_rx, r["path"])]

    def assert_no_secret_anywhere(self):
        text = "\n".join(self.outputs)
        if os.path.exists(self.trace):
            with open(self.trace) as f:
                text += f.read()
        for root, _, files in os.walk(self.proj):
            for f in files:
                if f in (".npmrc",):
                    continue
                try:
                    with open(os.path.join(root, f), errors="replace") as fh:
                        text += fh.read()
                except OSError:
                    pass
        for secret in self.SECRETS:
            for form in (secret, base64.b64encode(secret.encode()).decode()):
                self.assertNotIn(form, text, "a secret leaked")

    def test_username_password_is_bound_to_the_whole_host(self):
        # "//127.0.0.1:<pa>:username" must not match "//127.0.0.1:<pa><d>/"
        pw = base64.b64encode(b"pass-word-91").decode()
        self.userrc("registry=http:%s/\n@scope:registry=http:%s/\n"
                    "%s:username=alice\n%s:_password=%s\n" % (self.ha, self.hb, self.ha,
                                                             self.ha, pw))
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"a": "^1.0.0", "@scope/d": "^1.0.0"}})
        self.run_nub("install")
        basic = "Basic " + base64.b64encode(b"alice:pass-word-91").decode()
        self.assertTrue(self.auth_of(self.ra, r"^/a"))
        self.assertEqual(set(self.auth_of(self.ra, r".")), {basic})
        self.assertTrue(self.auth_of(self.rb, r"scope"))
        self.assertEqual(set(self.auth_of(self.rb, r".")), {None})
        self.assert_no_secret_anywhere()

    def test_tokens_follow_each_url_not_the_registry(self):
        # lockfile tarballs on another host; that host's own token, and a
        # redirect from A to B
        self.userrc("registry=http:%s/\n%s/:_authToken=tok-a-7f3e\n"
                    "%s/:_authToken=tok-b-c0de\n" % (self.ha, self.ha, self.hb))
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"a": "^1.0.0", "c": "^1.0.0"}})
        lock = {"name": "p", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
                "packages": {"": {"name": "p", "version": "1.0.0",
                                  "dependencies": {"a": "^1.0.0", "c": "^1.0.0"}}}}
        for path, reg, name, ver in (("node_modules/a", self.ra, "a", "1.0.0"),
                                     ("node_modules/b", self.rb, "b", "1.0.0"),
                                     ("node_modules/c", self.rb, "c", "1.0.0"),
                                     ("node_modules/c/node_modules/b", self.ra, "b", "2.0.0")):
            lock["packages"][path] = {"version": ver, "resolved": reg.tarball_url(name, ver),
                                      "integrity": reg.integrity(name, ver)}
        self.write_json(os.path.join(self.proj, "package-lock.json"), lock)
        # A sends b@2.0.0's tarball to B
        self.ra.add_fault(r"/b/-/b-2\.0\.0\.tgz$", "status", code=302,
                          headers={"Location": self.rb.tarball_url("b", "2.0.0")})
        self.run_nub("install")
        self.assertEqual(set(self.auth_of(self.ra, r"\.tgz$")), {"Bearer tok-a-7f3e"})
        self.assertEqual(set(self.auth_of(self.rb, r"\.tgz$")), {"Bearer tok-b-c0de"})
        self.assertEqual(self.auth_of(self.rb, r"/b/-/b-2\.0\.0\.tgz$"), ["Bearer tok-b-c0de"])
        self.assertEqual(self.read_json(self.nm("c", "node_modules", "b", "package.json"))
                         ["version"], "2.0.0")
        # without B's own token, the redirected request carries nothing
        self.userrc("registry=http:%s/\n%s/:_authToken=tok-a-7f3e\n" % (self.ha, self.ha))
        self.ra.reset_log()
        self.rb.reset_log()
        self.ra.add_fault(r"/b/-/b-2\.0\.0\.tgz$", "status", code=307,
                          headers={"Location": self.rb.tarball_url("b", "2.0.0")})
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store2")
        self.run_nub("ci")
        self.assertEqual(set(self.auth_of(self.rb, r".")), {None})
        self.assertEqual(set(self.auth_of(self.ra, r".")), {"Bearer tok-a-7f3e"})
        self.assert_no_secret_anywhere()

    def test_no_credential_after_a_redirect_from_https_to_http(self):
        # B's token is bound to B, but a request that reached B because an
        # https registry redirected it to plain http does not carry it
        cert, key = self.make_cert()
        tls = Registry(nubtest.PACKAGES_DIR, tls=(cert, key)).start()
        self.addCleanup(tls.stop)
        self.userrc("registry=%s\ncafile=%s\n%s/:_authToken=tok-b-c0de\n"
                    % (tls.url, cert, self.hb))
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"b": "1.0.0"}})
        lock = {"name": "p", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
                "packages": {"": {"name": "p", "version": "1.0.0",
                                  "dependencies": {"b": "1.0.0"}},
                             "node_modules/b": {"version": "1.0.0",
                                                "resolved": tls.tarball_url("b", "1.0.0"),
                                                "integrity": tls.integrity("b", "1.0.0")}}}
        self.write_json(os.path.join(self.proj, "package-lock.json"), lock)
        tls.add_fault(r"/b/-/b-1\.0\.0\.tgz$", "status", code=302,
                      headers={"Location": self.rb.tarball_url("b", "1.0.0")})
        self.run_nub("install")
        self.assertEqual(self.auth_of(self.rb, r"/b/-/b-1\.0\.0\.tgz$"), [None])
        self.assertEqual(self.read_json(self.nm("b", "package.json"))["version"], "1.0.0")
        self.assert_no_secret_anywhere()

    def test_env_variable_in_the_repository_npmrc(self):
        env = {"NUB_TEST_SECRET": "s3cret-env-55"}
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.projrc("%s/:_authToken=${NUB_TEST_SECRET}\n" % self.ha)
        # the registry comes from the user's own config: expanded
        self.userrc("registry=http:%s/\n" % self.ha)
        proc = self.run_nub("install", env=env)
        self.assertEqual(set(self.auth_of(self.ra, r".")), {"Bearer s3cret-env-55"})
        self.assertNotIn("not used", proc.stderr)
        # the repository alone names the registry: not expanded, not sent
        # as its literal text, one warning naming the setting and the file
        nubtest._rmtree(os.path.join(self.proj, "node_modules"))
        os.unlink(os.path.join(self.proj, "nub.lock"))
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store2")
        self.userrc("")
        self.projrc("registry=http:%s/\n%s/:_authToken=${NUB_TEST_SECRET}\n" % (self.ha, self.ha))
        self.ra.reset_log()
        proc = self.run_nub("install", env=env)
        self.assertEqual(set(self.auth_of(self.ra, r".")), {None})
        warn = [l for l in proc.stderr.splitlines() if "not used" in l]
        self.assertEqual(len(warn), 1, proc.stderr)
        self.assertIn("%s/:_authToken" % self.ha, warn[0])
        self.assertIn(".npmrc", warn[0])
        self.assertTrue(os.path.exists(self.nm("a", "package.json")))
        # an unset variable in the user's own file is not sent either
        self.projrc("")
        self.userrc("registry=http:%s/\n%s/:_authToken=${NUB_TEST_UNSET_VAR}\n" % (self.ha,
                                                                                 self.ha))
        self.ra.reset_log()
        os.unlink(os.path.join(self.proj, "nub.lock"))
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store3")
        proc = self.run_nub("install")
        self.assertEqual(set(self.auth_of(self.ra, r".")), {None})
        self.assertIn("not set", proc.stderr)
        self.assert_no_secret_anywhere()

    def test_password_in_a_registry_url_is_never_printed(self):
        self.userrc("registry=http://bob:urlpw-6d1@%s/\n" % self.ha[2:])
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.ra.add_fault(r"^/a$", "status", code=500, count=1)
        self.ra.add_fault(r"/b/-/", "status", code=503, count=1)
        proc = self.run_nub("install")
        self.assertIn("retrying", proc.stderr)
        self.assertIn("***@", proc.stderr)
        basic = "Basic " + base64.b64encode(b"bob:urlpw-6d1").decode()
        self.assertEqual(set(self.auth_of(self.ra, r".")), {basic})
        # and in errors
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"no-such-package": "^1.0.0"}})
        proc = self.run_nub("install", ok=False)
        self.assertNotEqual(proc.returncode, 0)
        self.run_nub("config", "list")
        self.run_nub("config", "get", "registry")
        self.assertIn("***@", self.outputs[-2])
        self.assert_no_secret_anywhere()


class GitCredentialTest(TrustTestCase):
    """Issue 26 item 5: a password in a git dependency's URL reaches git,
    and no file nub writes (every lockfile format, node_modules, the store);
    a later install from the lockfile alone gets it from package.json."""

    PASSWORD = "s3cret-git-pw"

    def setUp(self):
        super().setUp()
        import base64 as b64
        import functools
        import http.server
        import subprocess
        import threading
        if not shutil.which("git"):
            self.skipTest("git is not installed")
        src, srv = os.path.join(self.tmp, "src"), os.path.join(self.tmp, "srv")
        os.makedirs(src)
        with open(os.path.join(src, "package.json"), "w") as f:
            json.dump({"name": "gitdep", "version": "1.0.0"}, f)
        with open(os.path.join(src, "index.js"), "w") as f:
            f.write("module.exports = 'gitdep';\n")
        git = lambda *a, cwd=src: subprocess.run(["git"] + list(a), cwd=cwd, check=True,
                                                 stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL)
        git("init", "-q")
        git("add", ".")
        git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one")
        git("clone", "-q", "--bare", src, os.path.join(srv, "r.git"), cwd=self.tmp)
        git("update-server-info", cwd=os.path.join(srv, "r.git"))
        want = "Basic " + b64.b64encode(("user:" + self.PASSWORD).encode()).decode()

        class Handler(http.server.SimpleHTTPRequestHandler):
            def do_GET(self):  # git's dumb protocol, behind basic auth
                if self.headers.get("Authorization") != want:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="r"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                super().do_GET()

            def log_message(self, *a):
                pass
        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=srv))
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.addCleanup(self.httpd.server_close)
        self.addCleanup(self.httpd.shutdown)
        self.url = "git+http://user:%s@127.0.0.1:%d/r.git" % (self.PASSWORD,
                                                             self.httpd.server_address[1])

    def leaks(self):
        hits = []
        for root in (self.proj, self.store):
            for dirpath, dirnames, filenames in os.walk(root):
                for name in dirnames + filenames:
                    p = os.path.join(dirpath, name)
                    if self.PASSWORD in name:
                        hits.append(p)
                    if os.path.isfile(p) and not os.path.islink(p) and p != os.path.join(
                            self.proj, "package.json"):
                        with open(p, "rb") as f:
                            if self.PASSWORD.encode() in f.read():
                                hits.append(p)
        return hits

    def test_no_file_holds_the_password(self):
        seeds = {"nub.lock": None, "yarn.lock": "", "package-lock.json":
                 '{"name": "p", "lockfileVersion": 3, "packages": {"": {"name": "p"}}}\n',
                 "bun.lock": '{"lockfileVersion": 1, "workspaces": {"": {"name": "p"}}, '
                             '"packages": {}}\n'}
        for lock, seed in seeds.items():
            with self.subTest(lockfile=lock):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                shutil.rmtree(self.store, ignore_errors=True)
                self.make_project({"name": "p", "version": "1.0.0",
                                   "dependencies": {"gitdep": self.url}})
                if seed is not None:
                    self.write(lock, seed)
                self.nub("install")
                self.assertTrue(os.path.exists(os.path.join(self.proj, lock)))
                self.assertEqual(self.leaks(), [])
                self.assertEqual(self.node_require(self.proj, "gitdep"), "gitdep")
                # from the lockfile alone, with an empty store: the clone
                # takes the password from package.json again
                nubtest._rmtree(os.path.join(self.proj, "node_modules"))
                shutil.rmtree(self.store)
                self.nub("install", "--frozen-lockfile")
                self.assertEqual(self.leaks(), [])
                self.assertEqual(self.node_require(self.proj, "gitdep"), "gitdep")


class MessagesTest(TrustTestCase):
    """Item 9: say what happened, correctly."""

    def test_summary_names_direct_dependencies(self):
        self.basic()
        proc = self.nub("install")
        lines = proc.stdout.splitlines()
        self.assertRegex(lines[0], r"^added 8 packages in ")
        self.assertIn("+ a 1.0.0", lines)
        self.assertIn("+ @scope/d 1.0.0", lines)
        # drop e, move c: removals count as removals, changes show both sides
        pj = self.read_json(os.path.join(self.proj, "package.json"))
        del pj["dependencies"]["e"]
        self.write_json(os.path.join(self.proj, "package.json"), pj)
        lock = self.read_json(os.path.join(self.proj, "package-lock.json"))
        del lock["packages"]["node_modules/e"]
        del lock["packages"][""]["dependencies"]["e"]
        self.write_json(os.path.join(self.proj, "package-lock.json"), lock)
        proc = self.nub("install")
        lines = proc.stdout.splitlines()
        self.assertRegex(lines[0], r"^removed 1 package in ")  # (npm's words, singular)
        self.assertEqual(lines[1:], ["- e 1.0.0"])

    def test_an_unreachable_registry_is_one_line_per_cause(self):
        self.basic()
        dead = "http://127.0.0.1:9/"
        lock = self.read("package-lock.json").replace(self.registry.url, dead)
        self.write("package-lock.json", lock)
        proc = self.nub_fails("install", env={"npm_config_registry": dead,
                                              "npm_config_fetch_retry_mintimeout": "10",
                                              "npm_config_fetch_retry_maxtimeout": "20"})
        self.assertEqual(proc.returncode, 41, proc.stderr)
        self.assertLessEqual(len(proc.stderr.strip().splitlines()), 2, proc.stderr)

    def test_tls_failures_name_the_ca_bundle_and_the_fix(self):
        cert, key = self.make_cert()
        reg = Registry(nubtest.PACKAGES_DIR, tls=(cert, key)).start()
        self.addCleanup(reg.stop)
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        env = {"npm_config_registry": reg.url, "npm_config_fetch_retries": "0"}
        proc = self.nub_fails("install", env=env)
        self.assertIn("cafile", proc.stderr)
        self.assertIn("strict-ssl", proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        env["npm_config_cafile"] = cert
        self.nub("install", env=env)
        self.assertEqual(self.node_require(self.proj, "a")["deps"], {"b": "1.0.0"})

    def test_peer_warnings(self):
        want = "peer-host@1.0.0 wants b@^1.0.0, found 2.0.0"
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"peer-host": "^1.0.0", "b": "^2.0.0"}})
        proc = self.nub("install")
        self.assertEqual([l for l in proc.stderr.splitlines() if "wants" in l],
                         ["nub: warn: " + want], proc.stderr)
        # the same from an npm lockfile
        nubtest._rmtree(self.proj)
        os.makedirs(self.proj)
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"peer-host": "^1.0.0", "b": "^2.0.0"}})
        lock = self.lock_v3({"peer-host": "^1.0.0", "b": "^2.0.0"},
                            {"node_modules/peer-host": {"version": "1.0.0",
                                                        "peerDependencies": {"b": "^1.0.0"}},
                             "node_modules/b": {"version": "2.0.0"}})
        self.write_json(os.path.join(self.proj, "package-lock.json"), lock)
        proc = self.nub("install")
        self.assertIn(want, proc.stderr)

    def test_a_bin_whose_target_was_dropped_gets_no_link(self):
        # bin-dropped's "tool" is a symlink in its tarball, which the
        # unpacking drops (as npm's pacote does); npm's bin-links then links
        # nothing for it, and neither does nub: no dangling .bin entry
        for layout in ("hoisted", "isolated"):
            with self.subTest(layout=layout):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                self.make_project({"name": "p", "version": "1.0.0",
                                   "dependencies": {"bin-dropped": "1.0.0"}})
                self.nub("install", "--node-linker", layout)
                bins = os.path.join(self.proj, "node_modules", ".bin")
                self.assertTrue(os.path.isfile(os.path.join(bins, "real")))
                self.assertFalse(os.path.lexists(os.path.join(bins, "tool")))

    def test_a_scheme_nub_cannot_install_says_so(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"x": "ftp://h.invalid/x.tgz"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 21, proc.stderr)
        self.assertIn("x@ftp://h.invalid/x.tgz", proc.stderr)
        self.assertNotIn("link:", proc.stderr)

    def test_lockfile_only_records_a_dependency_the_tree_has(self):
        # b is in the tree already (under a); adding it to package.json
        # changes the project's entry, as npm install writes it
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        lock = self.lock_v3({"a": "^1.0.0"}, {"node_modules/a": {"version": "1.0.0",
                                                                "dependencies": {"b": "^1.0.0"}},
                                              "node_modules/b": {"version": "1.0.0"}})
        self.write_json(os.path.join(self.proj, "package-lock.json"), lock)
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "p", "version": "1.0.0",
                         "dependencies": {"a": "^1.0.0", "b": "^1.0.0"}})
        self.nub("install", "--lockfile-only")
        root = self.read_json(os.path.join(self.proj, "package-lock.json"))["packages"][""]
        self.assertEqual(root["dependencies"], {"a": "^1.0.0", "b": "^1.0.0"})
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))
        # and a frozen install takes it as it is
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.node_require(self.proj, "b")["version"], "1.0.0")

    def test_resolved_counter_moves(self):
        # the live line is for terminals; the count it shows comes from the
        # resolver as it picks (checked through the diag sample)
        trace = os.path.join(self.tmp, "t.jsonl")
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}})
        self.registry.add_fault(r"^/b$", "delay", count=None, seconds=0.3)
        self.nub("install", env={"NUB_DIAG_FILE": trace})
        events = [json.loads(l) for l in open(trace)]
        samples = [e for e in events if e.get("cat") == "sample"]
        self.assertTrue(samples)
        self.assertTrue(any(e["meta"].get("resolved", 0) > 0 for e in samples), samples[:3])


if __name__ == "__main__":
    nubtest.main()
