#!/usr/bin/env python3
"""Tests of the test registry (tests/registry/registry.py), the fixtures and
the harness itself.  Needs neither nub nor npm; node is optional.

Run: python3 tests/e2e/test_registry.py   (or ctest -R e2e.registry)
"""

import base64
import gzip
import hashlib
import http.client
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import threading
import time
import unittest
import urllib.parse

import nubtest
from nubtest import PACKAGES_DIR, PROJECTS_DIR, Registry

ABBREV = "application/vnd.npm.install-v1+json"
# what `npm install` sends
NPM_ACCEPT = ABBREV + "; q=1.0, application/json; q=0.8, */*"


def sri512(data):
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class RegistryClient:
    """Tiny http.client wrapper (urllib would honour proxy variables)."""

    def __init__(self, reg):
        self.reg = reg

    def conn(self, timeout=10):
        return http.client.HTTPConnection("127.0.0.1", self.reg.port, timeout=timeout)

    def get(self, path, headers=None, method="GET"):
        c = self.conn()
        try:
            c.request(method, path, headers=headers or {})
            r = c.getresponse()
            return r.status, r, r.read()
        finally:
            c.close()

    def json(self, path, headers=None):
        status, r, body = self.get(path, headers)
        assert status == 200, (path, status, body)
        return json.loads(body)

    def tarball(self, name, version):
        path = urllib.parse.urlsplit(self.reg.tarball_url(name, version)).path
        status, r, body = self.get(path)
        assert status == 200, (path, status)
        return body


def tar_members(tgz):
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
        return [(m, tar.extractfile(m).read() if m.isreg() else None) for m in tar.getmembers()]


class RegistryTestBase(unittest.TestCase):
    token = None

    @classmethod
    def setUpClass(cls):
        cls.reg = Registry(PACKAGES_DIR, token=cls.token).start()
        cls.http = RegistryClient(cls.reg)

    @classmethod
    def tearDownClass(cls):
        cls.reg.stop()

    def setUp(self):
        self.reg.clear_faults()
        self.reg.reset_log()


class PackumentTest(RegistryTestBase):
    def test_url_has_trailing_slash(self):
        self.assertEqual(self.reg.url, "http://127.0.0.1:%d/" % self.reg.port)

    def test_full_packument(self):
        status, r, body = self.http.get("/a")
        self.assertEqual(status, 200)
        self.assertEqual(r.getheader("Content-Type"), "application/json")
        self.assertEqual(int(r.getheader("Content-Length")), len(body))
        doc = json.loads(body)
        self.assertEqual(doc["name"], "a")
        self.assertEqual(doc["dist-tags"], {"latest": "1.0.0"})
        v = doc["versions"]["1.0.0"]
        self.assertEqual(v["_id"], "a@1.0.0")
        self.assertEqual(v["description"], "nub test fixture")   # full-only field
        self.assertEqual(v["dependencies"], {"b": "^1.0.0"})
        dist = v["dist"]
        self.assertEqual(dist["tarball"], self.reg.url + "a/-/a-1.0.0.tgz")
        self.assertEqual(dist["integrity"], self.reg.integrity("a", "1.0.0"))
        self.assertEqual(dist["shasum"], self.reg.shasum("a", "1.0.0"))
        self.assertEqual(dist["fileCount"], 2)
        self.assertIn("created", doc["time"])
        self.assertIn("1.0.0", doc["time"])
        self.assertEqual(doc["modified"], doc["time"]["modified"])
        self.assertEqual(doc, self.reg.packument("a"))

    def test_abbreviated_packument(self):
        status, r, body = self.http.get("/c", {"Accept": NPM_ACCEPT})
        self.assertEqual(status, 200)
        self.assertEqual(r.getheader("Content-Type"), ABBREV)
        doc = json.loads(body)
        self.assertEqual(set(doc), {"name", "modified", "dist-tags", "versions"})
        v = doc["versions"]["1.0.0"]
        self.assertEqual(set(v), {"name", "version", "dependencies", "bin", "dist"})
        self.assertEqual(v["bin"], {"c-cli": "bin/cli.js"})
        self.assertEqual(doc, self.reg.packument("c", abbreviated=True))

    def test_abbreviated_keeps_install_fields(self):
        doc = self.http.json("/opt-win", {"Accept": ABBREV})
        v = doc["versions"]["1.0.0"]
        self.assertEqual((v["os"], v["cpu"]), (["win32"], ["x64"]))
        scripted = self.http.json("/scripted", {"Accept": ABBREV})["versions"]["1.0.0"]
        self.assertIs(scripted["hasInstallScript"], True)
        self.assertNotIn("scripts", scripted)
        self.assertNotIn("hasInstallScript", doc["versions"]["1.0.0"])
        peer = self.http.json("/peer-host", {"Accept": ABBREV})["versions"]["1.0.0"]
        self.assertEqual(peer["peerDependencies"], {"b": "^1.0.0"})
        bundler = self.http.json("/bundler", {"Accept": ABBREV})["versions"]["1.0.0"]
        self.assertEqual(bundler["bundleDependencies"], ["bundled-dep"])

    def test_scoped_url_forms(self):
        docs = [self.http.json(p) for p in ("/@scope%2fd", "/@scope%2Fd", "/@scope/d")]
        self.assertEqual(docs[0], docs[1])
        self.assertEqual(docs[0], docs[2])
        v = docs[0]["versions"]["1.0.0"]
        self.assertEqual(v["bin"], "bin/d.js")
        self.assertEqual(v["dist"]["tarball"], self.reg.url + "@scope/d/-/d-1.0.0.tgz")
        self.assertEqual(sri512(self.http.tarball("@scope/d", "1.0.0")), v["dist"]["integrity"])
        status, _, _ = self.http.get("/@scope%2fd/-/d-1.0.0.tgz")
        self.assertEqual(status, 200)

    def test_dist_tags(self):
        pre = self.http.json("/pre")
        self.assertEqual(pre["dist-tags"], {"latest": "1.0.0", "next": "2.0.0-beta.1"})
        self.assertEqual(self.http.json("/b")["dist-tags"]["latest"], "2.0.0")
        times = pre["time"]
        self.assertLess(times["1.0.0"], times["2.0.0-beta.1"])

    def test_legacy_oddities(self):
        doc = self.http.json("/legacy")
        old = doc["versions"]["0.0.1"]
        self.assertEqual(old["dependencies"], [])
        self.assertNotIn("integrity", old["dist"])
        self.assertEqual(old["dist"]["shasum"], self.reg.shasum("legacy", "0.0.1"))
        self.assertEqual(doc["dist-tags"]["latest"], "1.0.0")
        abbrev = self.http.json("/legacy", {"Accept": ABBREV})
        self.assertEqual(abbrev["versions"]["0.0.1"]["dependencies"], [])

    def test_not_found(self):
        for path in ("/nope", "/@scope/nope", "/a/-/a-9.9.9.tgz", "/a/-/b-1.0.0.tgz"):
            status, r, body = self.http.get(path)
            self.assertEqual(status, 404, path)
            self.assertEqual(json.loads(body), {"error": "Not found"})

    def test_etag_304(self):
        status, r, body = self.http.get("/a")
        etag = r.getheader("ETag")
        self.assertTrue(etag)
        status, r, body = self.http.get("/a", {"If-None-Match": etag})
        self.assertEqual((status, body), (304, b""))
        self.assertEqual(r.getheader("ETag"), etag)
        status, _, _ = self.http.get("/a", {"If-None-Match": "W/" + etag})
        self.assertEqual(status, 304)
        # the abbreviated document is another representation
        status, _, _ = self.http.get("/a", {"If-None-Match": etag, "Accept": ABBREV})
        self.assertEqual(status, 200)
        status, _, _ = self.http.get("/a", {"If-None-Match": '"stale"'})
        self.assertEqual(status, 200)

    def test_keep_alive_and_head(self):
        c = self.http.conn()
        try:
            for path in ("/a", "/b", "/a/-/a-1.0.0.tgz"):
                c.request("GET", path)
                r = c.getresponse()
                self.assertEqual(r.status, 200)
                self.assertEqual(len(r.read()), int(r.getheader("Content-Length")))
            c.request("HEAD", "/b")
            r = c.getresponse()
            self.assertEqual(r.status, 200)
            self.assertGreater(int(r.getheader("Content-Length")), 0)
            self.assertEqual(r.read(), b"")
        finally:
            c.close()

    def test_concurrent_requests(self):
        errors = []

        def fetch():
            try:
                self.assertEqual(sri512(self.http.tarball("e", "1.0.0")),
                                 self.reg.integrity("e", "1.0.0"))
            except Exception as exc:  # collected: assertions in threads are lost
                errors.append(exc)
        threads = [threading.Thread(target=fetch) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(self.reg.count(r"^/e/-/"), 16)

    def test_ping_and_unsupported_method(self):
        self.assertEqual(self.http.json("/-/ping"), {})
        status, _, _ = self.http.get("/a", method="PUT")
        self.assertEqual(status, 405)


class TarballTest(RegistryTestBase):
    def test_integrity_and_shasum(self):
        for name, versions in self.reg.packages().items():
            for v in versions:
                body = self.http.tarball(name, v)
                self.assertEqual(sri512(body), self.reg.integrity(name, v))
                self.assertEqual(hashlib.sha1(body).hexdigest(), self.reg.shasum(name, v))

    def test_content_type(self):
        status, r, _ = self.http.get("/b/-/b-2.0.0.tgz")
        self.assertEqual(r.getheader("Content-Type"), "application/octet-stream")

    def test_npm_pack_format(self):
        body = self.http.tarball("e", "1.0.0")
        self.assertEqual(body[:3], b"\x1f\x8b\x08")
        self.assertEqual(body[4:8], b"\0\0\0\0")             # gzip mtime 0
        members = tar_members(body)
        names = [m.name for m, _ in members]
        self.assertEqual(names, sorted(names))
        self.assertEqual(names, [
            "package/empty.txt", "package/file with space.txt", "package/index.js",
            "package/lib/x/y.js", "package/package.json", "package/scripts/run.sh"])
        for m, data in members:
            self.assertTrue(m.isreg(), m.name)
            self.assertEqual((m.mtime, m.uid, m.gid, m.uname, m.gname),
                             (499162500, 0, 0, "", ""))
            self.assertEqual(m.mode, 0o755 if m.name.endswith("run.sh") else 0o644, m.name)
        self.assertEqual(dict((m.name, d) for m, d in members)["package/empty.txt"], b"")
        dist = self.reg.packument("e")["versions"]["1.0.0"]["dist"]
        self.assertEqual(dist["fileCount"], 6)
        self.assertEqual(dist["unpackedSize"], sum(len(d) for _, d in members))

    def test_bin_not_executable_in_tarball(self):
        members = {m.name: (m, d) for m, d in tar_members(self.http.tarball("c", "1.0.0"))}
        m, data = members["package/bin/cli.js"]
        self.assertEqual(m.mode, 0o644)
        self.assertTrue(data.startswith(b"#!/usr/bin/env node\n"))
        m, _ = dict((m.name, (m, d)) for m, d in
                    tar_members(self.http.tarball("@scope/d", "1.0.0")))["package/bin/d.js"]
        self.assertEqual(m.mode, 0o755)

    def test_reproducible(self):
        again = Registry(PACKAGES_DIR)
        for name, versions in self.reg.packages().items():
            for v in versions:
                self.assertEqual(again.integrity(name, v), self.reg.integrity(name, v))

    def hostile(self, name):
        """(name, type, linkname) of every entry in name@1.0.0's tarball."""
        members = tar_members(self.http.tarball(name, "1.0.0"))
        return [(m.name, m.type, m.linkname) for m, _ in members]

    def test_hostile_entries(self):
        cases = [
            ("hostile-traverse", ("package/../escape.txt", tarfile.REGTYPE, "")),
            ("hostile-abs", ("/tmp/nub-abs-evil.txt", tarfile.REGTYPE, "")),
            ("hostile-symlink", ("package/link", tarfile.SYMTYPE, "/etc/passwd")),
            ("hostile-hardlink", ("package/hl", tarfile.LNKTYPE, "/etc/passwd")),
            ("hostile-device", ("package/null", tarfile.CHRTYPE, "")),
        ]
        for name, entry in cases:
            self.assertIn(entry, self.hostile(name), name)

    def test_absolute_name_is_raw_in_header(self):
        raw = gzip.decompress(self.http.tarball("hostile-abs", "1.0.0"))
        names = [raw[off:off + 100].rstrip(b"\0") for off in range(0, len(raw), 512)]
        self.assertIn(b"/tmp/nub-abs-evil.txt", names)

    def test_other_root_folder(self):
        names = [n for n, _, _ in self.hostile("other-root")]
        self.assertEqual(names, ["node-other/index.js", "node-other/package.json"])

    def test_bundled_dependency_in_tarball(self):
        names = [n for n, _, _ in self.hostile("bundler")]
        self.assertIn("package/node_modules/bundled-dep/package.json", names)
        self.assertIn("package/node_modules/bundled-dep/index.js", names)
        self.assertNotIn("bundled-dep", self.reg.packages())   # only in the bundle


class FaultTest(RegistryTestBase):
    def test_delay(self):
        self.reg.add_fault(r"^/a$", "delay", seconds=0.5)
        t0 = time.monotonic()
        status, _, _ = self.http.get("/a")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(time.monotonic() - t0, 0.45)
        t0 = time.monotonic()
        self.http.get("/a")
        self.assertLess(time.monotonic() - t0, 0.4)

    def test_status_then_pass_through(self):
        self.reg.add_fault(r"^/a$", "status", code=503, headers={"X-Why": "test"})
        status, r, body = self.http.get("/a")
        self.assertEqual(status, 503)
        self.assertEqual(r.getheader("X-Why"), "test")
        self.assertEqual(self.http.get("/a")[0], 200)

    def test_count_semantics(self):
        self.reg.add_fault(r"^/b$", "status", count=2, code=500)
        self.assertEqual([self.http.get("/b")[0] for _ in range(3)], [500, 500, 200])
        self.reg.add_fault(r"^/b$", "status", count=None, code=404)
        self.assertEqual([self.http.get("/b")[0] for _ in range(4)], [404] * 4)
        self.reg.clear_faults()
        self.assertEqual(self.http.get("/b")[0], 200)

    def test_only_matching_paths(self):
        self.reg.add_fault(r"/-/", "status", code=500)
        self.assertEqual(self.http.get("/a")[0], 200)
        self.assertEqual(self.http.get("/a/-/a-1.0.0.tgz")[0], 500)

    def test_regex_sees_decoded_scoped_path(self):
        self.reg.add_fault(r"^/@scope/d$", "status", code=502)
        self.assertEqual(self.http.get("/@scope%2fd")[0], 502)

    def test_retry_after(self):
        self.reg.add_fault(r"^/a$", "retry_after", seconds=3)
        status, r, _ = self.http.get("/a")
        self.assertEqual(status, 429)
        self.assertEqual(r.getheader("Retry-After"), "3")

    def test_truncate(self):
        self.reg.add_fault(r"\.tgz$", "truncate")
        c = self.http.conn()
        try:
            c.request("GET", "/e/-/e-1.0.0.tgz")
            r = c.getresponse()
            length = int(r.getheader("Content-Length"))
            self.assertEqual(length, len(self.reg.tarball("e", "1.0.0")))
            with self.assertRaises(http.client.IncompleteRead) as cm:
                r.read()
            self.assertLess(len(cm.exception.partial), length)
        finally:
            c.close()
        self.assertEqual(len(self.http.tarball("e", "1.0.0")), length)

    def test_corrupt(self):
        self.reg.add_fault(r"\.tgz$", "corrupt")
        body = self.http.tarball("e", "1.0.0")
        good = self.reg.tarball("e", "1.0.0")
        self.assertEqual(len(body), len(good))
        self.assertNotEqual(body, good)
        self.assertNotEqual(sri512(body), self.reg.integrity("e", "1.0.0"))

    def test_reset(self):
        self.reg.add_fault(r"^/a$", "reset")
        # a raw socket tells a reset (ECONNRESET) from an orderly close (b"")
        with socket.create_connection(("127.0.0.1", self.reg.port), timeout=10) as s:
            s.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            with self.assertRaises(ConnectionResetError):
                while s.recv(4096):
                    pass
        self.assertEqual(self.reg.requests[-1]["status"], None)
        self.assertEqual(self.http.get("/a")[0], 200)

    def test_wrong_integrity(self):
        self.reg.add_fault(r"^/b", "wrong_integrity")
        # a tarball request matches the regex but is not a packument: untouched
        self.assertEqual(sri512(self.http.tarball("b", "1.0.0")), self.reg.integrity("b", "1.0.0"))
        for accept in (ABBREV, "application/json"):
            self.reg.add_fault(r"^/b", "wrong_integrity")
            doc = self.http.json("/b", {"Accept": accept})
            for v in ("1.0.0", "2.0.0"):
                dist = doc["versions"][v]["dist"]
                self.assertTrue(dist["integrity"].startswith("sha512-"))
                self.assertNotEqual(dist["integrity"], self.reg.integrity("b", v))
        dist = self.http.json("/b")["versions"]["1.0.0"]["dist"]
        self.assertEqual(dist["integrity"], self.reg.integrity("b", "1.0.0"))

    def test_html(self):
        self.reg.add_fault(r"^/a$", "html")
        status, r, body = self.http.get("/a")
        self.assertEqual(status, 200)
        self.assertTrue(r.getheader("Content-Type").startswith("text/html"))
        self.assertIn(b"<html>", body)

    def test_delay_stacks_with_status(self):
        self.reg.add_fault(r"^/a$", "delay", seconds=0.3)
        self.reg.add_fault(r"^/a$", "status", code=500)
        t0 = time.monotonic()
        self.assertEqual(self.http.get("/a")[0], 500)
        self.assertGreaterEqual(time.monotonic() - t0, 0.25)

    def test_unknown_kind(self):
        with self.assertRaises(ValueError):
            self.reg.add_fault(".", "explode")


class RequestLogTest(RegistryTestBase):
    def test_log(self):
        self.http.get("/a", {"Accept": ABBREV, "X-Test": "1"})
        self.http.get("/nope")
        log = self.reg.requests
        self.assertEqual([(r["method"], r["path"], r["status"]) for r in log],
                         [("GET", "/a", 200), ("GET", "/nope", 404)])
        self.assertEqual(log[0]["headers"]["x-test"], "1")
        self.assertEqual(self.reg.count(r"^/a$"), 1)
        self.assertEqual(self.reg.count(r"."), 2)
        self.reg.reset_log()
        self.assertEqual(self.reg.requests, [])


class AuthTest(RegistryTestBase):
    token = "abc"

    def test_requires_bearer_token(self):
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}):
            self.assertEqual(self.http.get("/a", headers)[0], 401, headers)
            self.assertEqual(self.http.get("/a/-/a-1.0.0.tgz", headers)[0], 401, headers)
        ok = {"Authorization": "Bearer abc"}
        self.assertEqual(self.http.get("/a", ok)[0], 200)
        self.assertEqual(self.http.get("/a/-/a-1.0.0.tgz", ok)[0], 200)
        self.assertEqual(self.reg.count(r"."), 8)


class CommandLineTest(unittest.TestCase):
    def test_prints_port_and_serves(self):
        script = os.path.join(nubtest.TESTS_DIR, "registry", "registry.py")
        proc = subprocess.Popen([sys.executable, script, "--fixtures", PACKAGES_DIR],
                                stdout=subprocess.PIPE, universal_newlines=True)
        try:
            line = proc.stdout.readline()
            self.assertRegex(line, r"^PORT=\d+$")
            c = http.client.HTTPConnection("127.0.0.1", int(line.strip()[5:]), timeout=10)
            c.request("GET", "/a")
            doc = json.loads(c.getresponse().read())
            c.close()
            self.assertEqual(doc["name"], "a")
        finally:
            proc.terminate()
            self.assertEqual(proc.wait(timeout=10), 0)
            proc.stdout.close()


class HarnessTest(nubtest.NubTestCase):
    """The harness and the project fixtures, checked without nub."""
    needs_nub = False

    def test_scratch_dirs_and_env(self):
        for d in (self.home, self.store, self.proj):
            self.assertTrue(os.path.isdir(d))
        self.assertEqual(self.env["HOME"], self.home)
        self.assertEqual(self.env["NUB_STORE_DIR"], self.store)
        self.assertEqual(self.env["npm_config_registry"], self.registry.url)
        self.assertEqual(self.env["NO_COLOR"], "1")
        self.assertNotIn("CI", self.env)

    def test_render_lockfile_templates(self):
        for project in ("basic", "misc"):
            for v in (1, 2, 3):
                self.make_project(project, lockfile="package-lock.v%d.json" % v)
                with open(os.path.join(self.proj, "package-lock.json")) as f:
                    text = f.read()
                self.assertNotIn("@@", text)
                lock = json.loads(text)
                self.assertEqual(lock["lockfileVersion"], v)
                for name, version, entry in self.locked(lock):
                    self.assertTrue(entry["resolved"].startswith(self.registry.url))
                    self.assertIn(entry["integrity"], (self.registry.integrity(name, version),
                                                       self.registry.sri_sha1(name, version)))
        self.assertFalse(os.path.exists(os.path.join(self.proj, "package-lock.v3.json")))

    def test_basic_lock_has_every_platform(self):
        lock = self.read_json(os.path.join(PROJECTS_DIR, "basic", "package-lock.v3.json"))
        for name in ("opt-linux", "opt-darwin", "opt-win"):
            self.assertTrue(lock["packages"]["node_modules/" + name]["optional"])
        self.assertEqual(lock["packages"]["node_modules/c/node_modules/b"]["version"], "2.0.0")
        self.assertTrue(lock["packages"]["node_modules/dev-only"]["dev"])

    def test_make_project_from_dict(self):
        self.make_project({"name": "x", "dependencies": {"a": "^1.0.0"}},
                          lockfile="basic/package-lock.v3.json")
        self.assertEqual(self.tree(), ["package-lock.json", "package.json"])

    def test_tree(self):
        os.makedirs(os.path.join(self.proj, "d", "e"))
        open(os.path.join(self.proj, "d", "f"), "w").close()
        os.symlink("d/f", os.path.join(self.proj, "l"))
        self.assertEqual(self.tree(), ["d/", "d/e/", "d/f", "l -> d/f"])

    @nubtest.requires_node
    def test_fixtures_resolve_under_node(self):
        """Lay out the basic v3 lockfile by hand: every fixture's index.js
        must load and see the dependency versions the lockfile promises."""
        self.make_project("basic", lockfile="package-lock.v3.json")
        lock = self.read_json(os.path.join(self.proj, "package-lock.json"))
        for path, entry in lock["packages"].items():
            if path:
                self.unpack(entry["resolved"], os.path.join(self.proj, path))
        self.assertEqual(self.node_require(self.proj, "a")["deps"], {"b": "1.0.0"})
        self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})
        self.assertEqual(self.node_require(self.proj, "@scope/d")["deps"], {"a": "1.0.0"})
        self.assertEqual(self.node_require(self.proj, "e")["nested"], "e/lib/x/y")
        out = self.run_cmd(["node", "node_modules/c/bin/cli.js", "x"]).stdout
        self.assertEqual(out.strip(), "c-cli 1.0.0 b@2.0.0 x")

    # -- helpers

    @staticmethod
    def locked(lock):
        """(name, version, entry) for every registry package in a lockfile."""
        if "packages" in lock:
            for path, entry in lock["packages"].items():
                if "resolved" in entry:
                    yield path.rsplit("node_modules/", 1)[-1], entry["version"], entry
            return
        stack = list(lock["dependencies"].items())
        while stack:
            name, entry = stack.pop()
            stack.extend(entry.get("dependencies", {}).items())
            if "resolved" in entry:
                yield name, entry["version"], entry

    def unpack(self, url, dest):
        status, _, body = RegistryClient(self.registry).get(urllib.parse.urlsplit(url).path)
        self.assertEqual(status, 200, url)
        for m, data in tar_members(body):
            path = os.path.join(dest, m.name.split("/", 1)[1])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)


if __name__ == "__main__":
    nubtest.main()
