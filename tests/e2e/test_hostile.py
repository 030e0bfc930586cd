#!/usr/bin/env python3
"""Hostile input (issue 26): a name a dependency is known by never becomes
a path outside its node_modules, whichever reader takes it.

The registry here serves `payload` (an executable `pre-commit`, a bin
`jest`) and `carrier-*` packages that depend on it under hostile alias keys
("../.git/hooks", "..", ".bin", ...), in dependencies, optionalDependencies
and peerDependencies. Each entry point (a registry package, the root
package.json, yarn.lock v1, yarn berry's lockfile, pnpm-lock.yaml, nub.lock)
is tried in both layouts; every try must fail with exit 44 naming the key,
and leave everything outside node_modules and the store as it was.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_hostile.py
     (or ctest -R e2e.hostile)
"""

import hashlib
import json
import os
import shutil
import tempfile

import nubtest
from registry import Registry

SECTIONS = ("dependencies", "optionalDependencies", "peerDependencies")
LAYOUTS = (("--node-linker", "hoisted"), ("--node-linker", "isolated"),
           ("--node-linker", "isolated", "--no-global-virtual-store"))
EXIT_UNSAFE = 44


class AliasKeyTest(nubtest.NubTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.registry.stop()
        cls.fixtures = tempfile.mkdtemp(prefix="nub-hostile-",
                                        dir=os.environ.get("NUB_TEST_TMP") or None)
        # an absolute key points here: outside every test's directory
        cls.abs_target = os.path.join(cls.fixtures, "abs-escape")
        cls.keys = ["../.git/hooks", "..", ".bin", "node_modules", cls.abs_target,
                    "a/../../escape", ".nub-state", "x\\y", "@s/../../escape", "@s/..", "."]
        pay = os.path.join(cls.fixtures, "payload@1.0.0")
        os.makedirs(pay)
        cls._write(pay, "package.json", {"name": "payload", "version": "1.0.0",
                                         "bin": {"jest": "pre-commit"}})
        with open(os.path.join(pay, "pre-commit"), "w") as f:
            f.write("#!/bin/sh\necho pwned\n")
        os.chmod(os.path.join(pay, "pre-commit"), 0o755)
        for s in SECTIONS:
            for i, key in enumerate(cls.keys):
                name = cls.carrier(s, i)
                d = os.path.join(cls.fixtures, name + "@1.0.0")
                os.makedirs(d)
                cls._write(d, "package.json", {"name": name, "version": "1.0.0",
                                               s: {key: "npm:payload@1.0.0"}})
        d = os.path.join(cls.fixtures, "carrier-ok@1.0.0")
        os.makedirs(d)
        cls._write(d, "package.json", {"name": "carrier-ok", "version": "1.0.0",
                                       "dependencies": {"hooksalias": "npm:payload@1.0.0"}})
        cls.registry = Registry(cls.fixtures).start()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.fixtures)

    @staticmethod
    def _write(d, name, doc):
        with open(os.path.join(d, name), "w") as f:
            json.dump(doc, f)

    @staticmethod
    def carrier(section, i):
        return "carrier-%s-%d" % ({"dependencies": "dep", "optionalDependencies": "opt",
                                   "peerDependencies": "peer"}[section], i)

    # -- what must not change

    def snapshot(self):
        """Every path under the test's directory (and the absolute key's
        target) but node_modules and the store, with what it holds."""
        out = {}
        nm = os.path.join(self.proj, "node_modules")
        for root in (self.tmp, os.path.dirname(self.abs_target)):
            for dirpath, dirnames, filenames in os.walk(root):
                if dirpath == self.store or dirpath == nm:
                    dirnames[:] = []
                    continue
                if root != self.tmp and dirpath == root:
                    dirnames[:] = [d for d in dirnames if d == "abs-escape"]
                    filenames = [f for f in filenames if f == "abs-escape"]
                for name in dirnames + filenames:
                    p = os.path.join(dirpath, name)
                    if p in (self.store, nm) or p.startswith(self.tmp + "/store/"):
                        continue
                    st = os.lstat(p)
                    if os.path.islink(p):
                        what = "-> " + os.readlink(p)
                    elif os.path.isdir(p):
                        what = "dir"
                    else:
                        with open(p, "rb") as f:
                            what = hashlib.sha256(f.read()).hexdigest()
                    out[p] = (what, st.st_mode, st.st_nlink)
        return out

    def assert_refused(self, *args, key):
        """nub install <args> fails with exit 44 naming key, and nothing
        outside node_modules and the store changed."""
        os.makedirs(os.path.join(self.proj, ".git", "hooks"), exist_ok=True)
        before = self.snapshot()
        proc = self.nub("install", *args, check=False)
        self.assertEqual(proc.returncode, EXIT_UNSAFE, proc.stdout + proc.stderr)
        self.assertIn(key, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        after = self.snapshot()
        self.assertEqual(after, before, "files outside node_modules changed")
        self.assertFalse(os.path.lexists(self.abs_target))
        # nothing under node_modules is the payload under another name
        for dirpath, dirnames, filenames in os.walk(os.path.join(self.proj, "node_modules")):
            self.assertNotIn("pre-commit", filenames, dirpath)
        # the metadata cache holds <kind>/<registry hash>/<name>.json files only
        meta = os.path.join(self.store, "metadata")
        for dirpath, dirnames, filenames in os.walk(meta):
            depth = os.path.relpath(dirpath, meta).count("/") + (dirpath != meta)
            if filenames:
                self.assertEqual(depth, 2, (dirpath, filenames))
        return proc

    def fresh(self):
        nubtest._rmtree(self.proj)
        os.makedirs(self.proj)
        shutil.rmtree(self.store, ignore_errors=True)
        os.makedirs(self.store)

    # -- entry points

    def test_registry_package(self):
        for s in SECTIONS:
            for i, key in enumerate(self.keys):
                for layout in LAYOUTS:
                    with self.subTest(section=s, key=key, layout=layout):
                        self.fresh()
                        self.make_project({"name": "p", "version": "1.0.0",
                                           "dependencies": {self.carrier(s, i): "1.0.0"}})
                        self.assert_refused(*layout, key=key)

    def test_root_package_json(self):
        for key in self.keys:
            for layout in LAYOUTS:
                with self.subTest(key=key, layout=layout):
                    self.fresh()
                    self.make_project({"name": "p", "version": "1.0.0",
                                       "dependencies": {key: "npm:payload@1.0.0"}})
                    self.assert_refused(*layout, key=key)

    def graph_lock(self, key):
        reg = self.registry
        return "\n".join([
            "lockfileVersion: '9.0'", "",
            "settings:", "  autoInstallPeers: true", "  excludeLinksFromLockfile: false", "",
            "importers:", "", "  .:", "    dependencies:", "      carrier-ok:",
            "        specifier: 1.0.0", "        version: 1.0.0", "",
            "packages:", "",
            "  carrier-ok@1.0.0:",
            "    resolution: {integrity: %s}" % reg.integrity("carrier-ok", "1.0.0"), "",
            "  payload@1.0.0:",
            "    resolution: {integrity: %s}" % reg.integrity("payload", "1.0.0"),
            "    hasBin: true", "",
            "snapshots:", "",
            "  carrier-ok@1.0.0:", "    dependencies:",
            "      %s: payload@1.0.0" % json.dumps(key), "",
            "  payload@1.0.0: {}", ""])

    def yarn_lock(self, key):
        reg = self.registry

        def entry(pattern, name, deps=None):
            lines = ["%s:" % pattern, '  version "1.0.0"',
                     '  resolved "%s#%s"' % (reg.tarball_url(name, "1.0.0"),
                                             reg.shasum(name, "1.0.0")),
                     "  integrity %s" % reg.integrity(name, "1.0.0")]
            if deps:
                lines += ["  dependencies:"] + ["    %s %s" % (json.dumps(k), json.dumps(v))
                                                for k, v in deps.items()]
            return "\n".join(lines) + "\n"
        return ("# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n"
                "# yarn lockfile v1\n\n\n" +
                entry(json.dumps(key + "@npm:payload@1.0.0"), "payload") + "\n" +
                entry("carrier-ok@1.0.0", "carrier-ok", {key: "npm:payload@1.0.0"}))

    def berry_lock(self, key):
        return "\n".join([
            "# This file is generated by running \"yarn install\" inside your project.",
            "# Manual changes might be lost - proceed with caution!", "",
            "__metadata:", "  version: 8", "  cacheKey: 10c0", "",
            '"carrier-ok@npm:1.0.0":', "  version: 1.0.0",
            '  resolution: "carrier-ok@npm:1.0.0"', "  dependencies:",
            '    %s: "npm:payload@1.0.0"' % json.dumps(key),
            "  languageName: node", "  linkType: hard", "",
            '%s:' % json.dumps(key + "@npm:payload@1.0.0"), "  version: 1.0.0",
            '  resolution: "payload@npm:1.0.0"', "  bin:", "    jest: pre-commit",
            "  languageName: node", "  linkType: hard", "",
            '"p@workspace:.":', "  version: 0.0.0-use.local",
            '  resolution: "p@workspace:."', "  dependencies:",
            '    carrier-ok: "npm:1.0.0"', "  languageName: unknown", "  linkType: soft", ""])

    def lockfile_cases(self, key):
        return {"nub.lock": self.graph_lock(key),
                "pnpm-lock.yaml": self.graph_lock(key),
                "yarn.lock": self.yarn_lock(key),
                "yarn.lock (berry)": self.berry_lock(key)}

    def test_lockfiles(self):
        for key in self.keys:
            for fname, text in self.lockfile_cases(key).items():
                for layout in LAYOUTS:
                    for frozen in ((), ("--frozen-lockfile",)):
                        with self.subTest(key=key, lockfile=fname, layout=layout,
                                          frozen=frozen):
                            self.fresh()
                            self.make_project({"name": "p", "version": "1.0.0",
                                               "dependencies": {"carrier-ok": "1.0.0"}})
                            with open(os.path.join(self.proj, fname.split()[0]), "w") as f:
                                f.write(text)
                            if "berry" in fname:
                                with open(os.path.join(self.proj, ".yarnrc.yml"), "w") as f:
                                    f.write("nodeLinker: node-modules\n")
                            self.assert_refused(*layout, *frozen, key=key)

    def test_the_same_lockfiles_with_a_plain_key_install(self):
        # the lockfiles above are read at all: with a plain key each installs
        for fname, text in self.lockfile_cases("hooksalias").items():
            for layout in LAYOUTS:
                with self.subTest(lockfile=fname, layout=layout):
                    self.fresh()
                    self.make_project({"name": "p", "version": "1.0.0",
                                       "dependencies": {"carrier-ok": "1.0.0"}})
                    with open(os.path.join(self.proj, fname.split()[0]), "w") as f:
                        f.write(text)
                    if "berry" in fname:
                        with open(os.path.join(self.proj, ".yarnrc.yml"), "w") as f:
                            f.write("nodeLinker: node-modules\n")
                    self.nub("install", *layout, "--frozen-lockfile")
                    # hoisted: at the top; isolated: beside carrier-ok's folder
                    pre = os.path.join(self.proj, "node_modules", "hooksalias", "pre-commit")
                    if "hoisted" not in layout:
                        carrier = os.path.realpath(os.path.join(self.proj, "node_modules",
                                                                "carrier-ok"))
                        pre = os.path.join(os.path.dirname(carrier), "hooksalias", "pre-commit")
                    self.assertTrue(os.path.isfile(pre), pre)
                    real = os.path.realpath(pre)
                    self.assertTrue(real.startswith((os.path.join(self.proj, "node_modules") + "/",
                                                     self.store + "/")), real)

class DeepChainTest(nubtest.NubTestCase):
    """A chain of 2,000 packages (and one closed into a cycle) installs
    whole in both layouts; one deeper than the resolver's bound (10,000) is
    refused with exit 46, never cut short."""

    CHAIN = 2000
    TOO_DEEP = 10001

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.registry.stop()
        cls.fixtures = tempfile.mkdtemp(prefix="nub-deep-",
                                        dir=os.environ.get("NUB_TEST_TMP") or None)
        for prefix, n, cycle in (("ch", cls.CHAIN, False), ("cy", cls.CHAIN, True),
                                 ("deep", cls.TOO_DEEP, False)):
            for i in range(n):
                name = "%s%d" % (prefix, i)
                d = os.path.join(cls.fixtures, name + "@1.0.0")
                os.makedirs(d)
                nxt = i + 1 if i + 1 < n else (0 if cycle else None)
                deps = {"%s%d" % (prefix, nxt): "1.0.0"} if nxt is not None else {}
                with open(os.path.join(d, "package.json"), "w") as f:
                    json.dump({"name": name, "version": "1.0.0", "dependencies": deps}, f)
        cls.registry = Registry(cls.fixtures).start()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.fixtures)

    def walk_isolated(self, prefix):
        """The chain as Node would follow it in the isolated layout: each
        package's dependency is beside its folder."""
        here = os.path.realpath(os.path.join(self.proj, "node_modules", prefix + "0"))
        for i in range(1, self.CHAIN):
            here = os.path.realpath(os.path.join(os.path.dirname(here), "%s%d" % (prefix, i)))
            self.assertTrue(os.path.isfile(os.path.join(here, "package.json")), (i, here))

    def test_a_long_chain_and_a_long_cycle_install_whole(self):
        for prefix in ("ch", "cy"):
            for layout in ("isolated", "hoisted"):
                with self.subTest(prefix=prefix, layout=layout):
                    nubtest._rmtree(self.proj)
                    os.makedirs(self.proj)
                    self.make_project({"name": "p", "version": "1.0.0",
                                       "dependencies": {prefix + "0": "1.0.0"}})
                    proc = self.nub("install", "--node-linker", layout, timeout=600)
                    self.assertIn("added %d packages" % self.CHAIN, proc.stdout)
                    with open(os.path.join(self.proj, "nub.lock")) as f:
                        lock = f.read()
                    for i in range(self.CHAIN):
                        self.assertIn("\n  %s%d@1.0.0:" % (prefix, i), lock)
                    if layout == "hoisted":
                        for i in range(self.CHAIN):
                            self.assertTrue(os.path.isdir(os.path.join(
                                self.proj, "node_modules", "%s%d" % (prefix, i))), i)
                    else:
                        self.walk_isolated(prefix)
                    again = self.nub("install", "--node-linker", layout, "--frozen-lockfile")
                    self.assertIn("Already up to date", again.stdout)

    def test_deeper_than_the_bound_is_refused(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"deep0": "1.0.0"}})
        proc = self.nub("install", check=False, timeout=900)
        self.assertEqual(proc.returncode, 46, proc.stdout + proc.stderr)
        self.assertIn("more than 10000 packages deep", proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))


class BoundedCostTest(nubtest.NubTestCase):
    """Input made to cost: a range of 200,000 alternatives, a gzip bomb
    (its size field honest, then forged), a registry document and a
    lockfile past their settings. Each is refused with one line (exit 46 or
    31) and bounded memory."""

    BOMB = (1 << 30) + (256 << 20)  # 1.25 GiB of zeros, past the per-package cap

    @classmethod
    def setUpClass(cls):
        import base64
        import io
        import tarfile
        import zlib
        super().setUpClass()
        cls.registry.stop()
        cls.fixtures = tempfile.mkdtemp(prefix="nub-cost-",
                                        dir=os.environ.get("NUB_TEST_TMP") or None)

        def package(name, doc, raw=None):
            d = os.path.join(cls.fixtures, name + "@1.0.0")
            os.makedirs(d)
            with open(os.path.join(d, "package.json"), "w") as f:
                json.dump(dict({"name": name, "version": "1.0.0"}, **doc), f)
            if raw is not None:
                with open(os.path.join(d, "_registry.json"), "w") as f:
                    json.dump({"_tarball_raw_base64": base64.b64encode(raw).decode()}, f)

        package("leaf", {})
        package("bigrange", {"dependencies": {"leaf": " || ".join(
            "1.%d.0" % (i % 1000) for i in range(200000))}})
        # a tarball of one file of zeros, gzipped in pieces
        info = tarfile.TarInfo("package/zeros.bin")
        info.size = cls.BOMB
        head = info.tobuf(format=tarfile.USTAR_FORMAT)
        pj = json.dumps({"name": "bomb", "version": "1.0.0"}).encode()
        pinfo = tarfile.TarInfo("package/package.json")
        pinfo.size = len(pj)
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        out = [z.compress(pinfo.tobuf(format=tarfile.USTAR_FORMAT) + pj +
                          b"\0" * (-len(pj) % 512) + head)]
        chunk = b"\0" * (16 << 20)
        for _ in range(cls.BOMB // len(chunk)):
            out.append(z.compress(chunk))
        out.append(z.flush())
        bomb = b"".join(out)
        package("bomb", {}, bomb)
        forged = bomb[:-4] + (1000).to_bytes(4, "little")
        package("bomb-forged", {}, forged)
        cls.registry = Registry(cls.fixtures).start()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.fixtures)

    def peak_mb(self, *args):
        """nub install args: (the completed process, its peak RSS in MiB)."""
        import resource
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        proc = self.nub("install", *args, check=False, timeout=300)
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        return proc, max(after, before) / 1024.0

    def test_a_range_of_200000_alternatives(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"bigrange": "1.0.0"}})
        proc = self.nub("install", check=False)
        self.assertEqual(proc.returncode, 46, proc.stderr)
        self.assertIn("bigrange@1.0.0 depends on leaf with a range of", proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)

    def test_gzip_bombs(self):
        for name in ("bomb", "bomb-forged"):
            with self.subTest(name):
                nubtest._rmtree(self.proj)
                os.makedirs(self.proj)
                self.make_project({"name": "p", "version": "1.0.0",
                                   "dependencies": {name: "1.0.0"}})
                proc, peak = self.peak_mb()
                self.assertEqual(proc.returncode, 31, proc.stderr)
                self.assertIn("per-package cap", proc.stderr)
                # a buffer grown towards the cap would be some 1,150 MiB
                self.assertLess(peak, 300, "peak RSS %.0f MiB" % peak)

    def test_document_and_lockfile_past_their_settings(self):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"bigrange": "1.0.0"}})
        with open(os.path.join(self.proj, ".npmrc"), "w") as f:
            f.write("max-document-size=1\n")
        proc = self.nub("install", check=False)
        self.assertEqual(proc.returncode, 46, proc.stderr)
        self.assertIn("larger than max-document-size (1 MiB)", proc.stderr)
        # a lockfile of 2 MiB against max-lockfile-size=1
        with open(os.path.join(self.proj, ".npmrc"), "w") as f:
            f.write("max-lockfile-size=1\n")
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"leaf": "1.0.0"}})
        with open(os.path.join(self.proj, "nub.lock"), "w") as f:
            f.write("lockfileVersion: '9.0'\n" + "# padding\n" * (220 * 1024))
        proc = self.nub("install", check=False)
        self.assertEqual(proc.returncode, 46, proc.stderr)
        self.assertIn("nub.lock is larger than max-lockfile-size (1 MiB)", proc.stderr)


if __name__ == "__main__":
    nubtest.main()
