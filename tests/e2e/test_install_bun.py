"""bun.lock: the hoisted tree bun lays out, from the local test registry."""
import json
import os
import shutil
import unittest

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
