#!/usr/bin/env python3
"""Trust: nub never finishes with exit 0 while node_modules differs from what
was asked for, never crashes on a damaged file, and sends credentials only
where they belong.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_trust.py
     (or ctest -R e2e.trust)
"""

import json
import os
import re
import unicodedata

import nubtest


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


if __name__ == "__main__":
    nubtest.main()
