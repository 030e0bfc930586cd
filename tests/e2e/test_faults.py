#!/usr/bin/env python3
"""`nub install` when things go wrong: bad bytes, a flaky or absent registry,
offline runs, a killed or interrupted install, concurrent installs, and broken
project files.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_faults.py
     (or ctest -R e2e.faults)
"""

import http.client
import io
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import tarfile
import time
import unittest
import urllib.parse

import nubtest

# Retries stay on (the behaviour under test) but wait milliseconds.
FAST_RETRIES = {
    "npm_config_fetch_retries": "2",
    "npm_config_fetch_retry_mintimeout": "10",
    "npm_config_fetch_retry_maxtimeout": "50",
}
A_TGZ = r"^/a/-/a-1\.0\.0\.tgz$"
B1_TGZ = r"^/b/-/b-1\.0\.0\.tgz$"


class FaultTestCase(nubtest.NubTestCase):

    def setUp(self):
        super().setUp()
        self.env.update(FAST_RETRIES)

    # -- helpers

    def basic(self, lockfile="package-lock.v3.json"):
        return self.make_project("basic", lockfile=lockfile)

    def node_modules(self, proj=None):
        return os.path.join(proj or self.proj, "node_modules")

    def assert_basic_tree(self, proj=None):
        """The basic project's tree is complete and has the right versions."""
        nm = self.node_modules(proj)
        want = {"a": "1.0.0", "b": "1.0.0", "c": "1.0.0", "@scope/d": "1.0.0",
                "e": "1.0.0", "dev-only": "1.0.0", "c/node_modules/b": "2.0.0"}
        for path, version in want.items():
            pj = os.path.join(nm, path, "package.json")
            self.assertTrue(os.path.isfile(pj), "%s is missing" % pj)
            self.assertEqual(self.read_json(pj)["version"], version, path)
            self.assertTrue(os.path.isfile(os.path.join(nm, path, "index.js")), path)
        for rel in ("e/lib/x/y.js", "e/scripts/run.sh", "e/empty.txt", "e/file with space.txt",
                    "c/bin/cli.js", "@scope/d/bin/d.js"):
            self.assertTrue(os.path.isfile(os.path.join(nm, rel)), rel)
        for b in ("c-cli", "d"):
            self.assertTrue(os.path.exists(os.path.join(nm, ".bin", b)), ".bin/" + b)

    def store_file_paths(self, store=None):
        """The store's package files: content files (v1/files) and the files
        of packages kept as trees (v1/packages/<key>/node_modules/<name>)."""
        v1 = os.path.join(store or self.store, "v1")
        out = []
        for top in ("files", "packages"):
            for dirpath, _, names in os.walk(os.path.join(v1, top)):
                for n in names:
                    p = os.path.join(dirpath, n)
                    if not os.path.islink(p):  # a tree's owner/ready links
                        out.append(p)
        return out

    def store_index_files(self, store=None):
        idx = os.path.join(store or self.store, "v1", "index")
        out = set()
        for dirpath, _, filenames in os.walk(idx):
            for f in filenames:
                if not f.startswith("."):
                    out.add(os.path.relpath(os.path.join(dirpath, f), idx))
        return out

    def store_tmp_entries(self, store=None):
        tmp = os.path.join(store or self.store, "v1", "tmp")
        return sorted(os.listdir(tmp)) if os.path.isdir(tmp) else []

    def write_lock(self, deps, integrity=None):
        """A package.json + lockfileVersion 3 for top-level deps {name: ver};
        `integrity` overrides some packages' integrity {name: sri}."""
        integrity = integrity or {}
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": dict(deps)})
        packages = {"": {"name": "proj", "version": "1.0.0", "dependencies": dict(deps)}}
        for n, v in deps.items():
            packages["node_modules/" + n] = {
                "version": v, "resolved": self.registry.tarball_url(n, v),
                "integrity": integrity.get(n, self.registry.integrity(n, v))}
        self.write_json(os.path.join(self.proj, "package-lock.json"),
                        {"name": "proj", "version": "1.0.0", "lockfileVersion": 3,
                         "requires": True, "packages": packages})

    def popen_nub(self, *args, cwd=None, env=None):
        full_env = dict(self.env)
        full_env.update(env or {})
        return subprocess.Popen([self.nub_bin] + list(args), cwd=cwd or self.proj, env=full_env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True)

    def wait_for(self, pred, timeout=10.0, what="condition"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pred():
                return
            time.sleep(0.02)
        self.fail("timed out waiting for " + what)

    def finish(self, proc, timeout=60):
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            self.fail("nub did not finish in %ss\n%s\n%s" % (timeout, out, err))
        return proc.returncode, out, err

    def tampered_integrity(self, name, version):
        """What a lockfile made from a packument with a wrong
        dist.integrity (the registry's wrong_integrity fault) records."""
        self.registry.add_fault(r"^/%s$" % re.escape(name), "wrong_integrity")
        conn = http.client.HTTPConnection("127.0.0.1", self.registry.port, timeout=10)
        try:
            conn.request("GET", "/" + urllib.parse.quote(name, safe="@"))
            resp = conn.getresponse()
            doc = json.loads(resp.read())
        finally:
            conn.close()
        value = doc["versions"][version]["dist"]["integrity"]
        self.assertNotEqual(value, self.registry.integrity(name, version))
        self.registry.clear_faults()
        self.registry.reset_log()
        return value


class BadBytesTest(FaultTestCase):

    def test_integrity_mismatch_from_lockfile(self):
        bad = self.tampered_integrity("a", "1.0.0")
        self.write_lock({"a": "1.0.0", "b": "1.0.0"}, integrity={"a": bad})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 30, proc.stderr)
        self.assertIn("a@1.0.0", proc.stderr)
        self.assertIn(bad, proc.stderr)
        self.assertIn(self.registry.integrity("a", "1.0.0"), proc.stderr)
        self.assertIn("ERR_NUB_INTEGRITY", proc.stderr)
        self.assertEqual(self.store_tmp_entries(), [])
        # there was no node_modules and there is none (b, stored before the
        # failure, may have been linked while the fetch ran: taken away)
        self.assertFalse(os.path.exists(self.node_modules()))
        # nothing of `a` was published: an offline install of b alone works,
        # one of a fails as a store miss (not as a bad store entry)
        index = self.store_index_files()
        self.assertLessEqual(len(index), 1, index)  # at most b's
        self.write_lock({"a": "1.0.0"})
        proc = self.nub_fails("install", "--offline")
        self.assertEqual(proc.returncode, 43, proc.stderr)

    def test_corrupt_tarball_is_an_integrity_error(self):
        self.write_lock({"a": "1.0.0", "b": "1.0.0"})
        self.registry.add_fault(A_TGZ, "corrupt", count=None)
        proc = self.nub_fails("install")
        self.assertIn("a@1.0.0", proc.stderr)
        self.assertEqual(self.store_tmp_entries(), [])
        self.assertLessEqual(len(self.store_index_files()), 1)
        # retried (a flipped byte may be a transfer error), then given up
        self.assertEqual(self.registry.count(A_TGZ), 3)
        self.assertEqual(proc.returncode, 30, proc.stderr)
        self.assertIn(self.registry.integrity("a", "1.0.0"), proc.stderr)

    def test_corrupt_once_then_good(self):
        self.basic()
        self.registry.add_fault(A_TGZ, "corrupt", count=1)
        proc = self.nub("install")
        self.assertEqual(self.registry.count(A_TGZ), 2)
        self.assertEqual(len(re.findall(r"retrying", proc.stderr)), 1, proc.stderr)
        self.assert_basic_tree()

    def test_truncated_body_retries_exhausted(self):
        self.write_lock({"a": "1.0.0", "b": "1.0.0"})
        self.registry.add_fault(A_TGZ, "truncate", count=None)
        proc = self.nub_fails("install", env={"npm_config_fetch_retries": "1"})
        self.assertEqual(proc.returncode, 41, proc.stderr)
        self.assertRegex(proc.stderr, r"nub: error: cannot fetch a@1\.0\.0 from http://\S+a-1\.0\.0\.tgz")
        self.assertIn("after 2 attempts", proc.stderr)
        self.assertEqual(self.registry.count(A_TGZ), 2)
        self.assertEqual(self.store_tmp_entries(), [])

    def test_html_instead_of_tarball(self):
        self.write_lock({"a": "1.0.0"})
        self.registry.add_fault(A_TGZ, "html", count=None)
        proc = self.nub_fails("install", env={"npm_config_fetch_retries": "0"})
        self.assertIn("a@1.0.0", proc.stderr)
        self.assertIn(proc.returncode, (30, 31), proc.stderr)
        self.assertEqual(self.store_index_files(), set())


class FlakyRegistryTest(FaultTestCase):

    def test_500_once_then_success(self):
        self.basic()
        self.registry.add_fault(A_TGZ, "status", count=1, code=500)
        proc = self.nub("install")
        self.assertEqual(len(re.findall(r"retrying", proc.stderr)), 1, proc.stderr)
        self.assertRegex(proc.stderr, r"nub: warn: GET \S+/a-1\.0\.0\.tgz: HTTP 500; retrying")
        self.assertEqual(self.registry.count(A_TGZ), 2)
        self.assert_basic_tree()

    def test_429_retry_after_is_honoured(self):
        self.basic()
        self.registry.add_fault(A_TGZ, "retry_after", count=1, seconds=1)
        t0 = time.monotonic()
        proc = self.nub("install")
        elapsed = time.monotonic() - t0
        self.assertGreaterEqual(elapsed, 0.95, "did not wait for Retry-After")
        self.assertLess(elapsed, 10)
        self.assertEqual(self.registry.count(A_TGZ), 2)
        self.assertEqual(len(re.findall(r"retrying", proc.stderr)), 1, proc.stderr)
        # the two requests are at least a second apart
        self.assert_basic_tree()

    def test_404_fails_without_retry(self):
        self.basic()
        self.registry.add_fault(A_TGZ, "status", count=None, code=404)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 40, proc.stderr)
        self.assertIn("a@1.0.0", proc.stderr)
        self.assertNotIn("retrying", proc.stderr)
        self.assertEqual(self.registry.count(A_TGZ), 1)

    def test_connection_reset_then_success(self):
        self.basic()
        self.registry.add_fault(A_TGZ, "reset", count=1)
        self.nub("install")
        # (libcurl may retry a reset on a reused connection by itself, so
        # there is not necessarily a "retrying" warning)
        self.assertEqual(self.registry.count(A_TGZ), 2)
        self.assert_basic_tree()

    def test_stall_times_out_and_retries(self):
        self.write_lock({"a": "1.0.0", "b": "1.0.0"})
        self.registry.add_fault(A_TGZ, "delay", count=1, seconds=4)
        t0 = time.monotonic()
        proc = self.nub("install", env={"npm_config_fetch_timeout": "1000"})
        elapsed = time.monotonic() - t0
        self.assertLess(elapsed, 3.9, "the stalled request was not abandoned")
        self.assertEqual(len(re.findall(r"retrying", proc.stderr)), 1, proc.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.node_modules(), "a", "index.js")))

    def test_trickling_server_is_cut_off_by_fetch_timeout(self):
        # A byte every 50 ms is never a stall, so only a bound on the whole
        # request ends it (failed before: the install ran until the last
        # byte, about 20 s for this tarball).
        self.write_lock({"a": "1.0.0", "b": "1.0.0"})
        self.registry.add_fault(A_TGZ, "trickle", count=None, seconds=0.05)
        t0 = time.monotonic()
        proc = self.nub_fails("install", env={"npm_config_fetch_timeout": "1500",
                                              "npm_config_fetch_retries": "0"})
        elapsed = time.monotonic() - t0
        self.assertLess(elapsed, 6, "the trickling request was not cut off")
        self.assertEqual(proc.returncode, 41, proc.stderr)
        self.assertIn("fetch-timeout", proc.stderr)
        self.assertIn("a@1.0.0", proc.stderr)
        self.assertIn("/a/-/a-1.0.0.tgz", proc.stderr)

    def test_fetch_timeout_spans_the_redirects(self):
        # Four hops of 0.6 s each (three redirects to the same URL, then the
        # tarball): each hop is under fetch-timeout, the request is not.
        # Before, the clock started again at every hop and it succeeded.
        self.write_lock({"a": "1.0.0", "b": "1.0.0"})
        url = self.registry.tarball_url("a", "1.0.0")
        self.registry.add_fault(A_TGZ, "delay", count=4, seconds=0.6)
        self.registry.add_fault(A_TGZ, "status", count=3, code=302, headers={"Location": url})
        proc = self.nub_fails("install", env={"npm_config_fetch_timeout": "1500",
                                              "npm_config_fetch_retries": "0"})
        self.assertEqual(proc.returncode, 41, proc.stderr)
        self.assertIn("fetch-timeout", proc.stderr)
        self.assertIn("a@1.0.0", proc.stderr)

    def test_trickling_server_is_cut_off_by_the_low_speed_limit(self):
        # The default fetch-timeout is long (npm's five minutes); a transfer
        # under fetch-low-speed-limit bytes/s for fetch-low-speed-time ends
        # long before it.
        self.write_lock({"a": "1.0.0", "b": "1.0.0"})
        self.registry.add_fault(A_TGZ, "trickle", count=None, seconds=0.05)
        t0 = time.monotonic()
        proc = self.nub_fails("install", env={"npm_config_fetch_low_speed_time": "2000",
                                              "npm_config_fetch_retries": "0"})
        elapsed = time.monotonic() - t0
        self.assertLess(elapsed, 8, "the trickling request was not cut off")
        self.assertEqual(proc.returncode, 41, proc.stderr)
        self.assertIn("fetch-low-speed-limit", proc.stderr)
        self.assertIn("a@1.0.0", proc.stderr)

    def test_fetch_timeout_does_not_count_time_queued_for_a_connection(self):
        # One connection, every tarball 0.4 s: the install takes well over
        # fetch-timeout in all while no request does.
        self.basic()
        self.registry.add_fault(r"\.tgz$", "delay", count=None, seconds=0.4)
        self.nub("install", env={"npm_config_fetch_timeout": "1500",
                                 "npm_config_network_concurrency": "1",
                                 "npm_config_fetch_retries": "0"})
        self.assert_basic_tree()

    def test_unfetchable_optional_dependency_is_skipped(self):
        # npm ci treats a failed optional dependency as absent and goes on
        # (arborist's optional-failure handling); only required ones are fatal.
        here = {"Linux": "opt-linux", "Darwin": "opt-darwin"}.get(platform.system())
        for lockfile in ("package-lock.v3.json", "package-lock.v1.json"):
            for pkg in ("opt-linux", "opt-darwin", "opt-win"):
                with self.subTest(lockfile=lockfile, pkg=pkg):
                    self.registry.clear_faults()
                    self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-%s-%s" % (lockfile, pkg))
                    if os.path.exists(self.node_modules()):
                        shutil.rmtree(self.node_modules())
                    self.basic(lockfile)
                    self.registry.add_fault(r"^/%s/-/" % pkg, "status", count=None, code=404)
                    proc = self.nub("install", check=False)
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    self.assert_basic_tree()
                    self.assertFalse(os.path.exists(os.path.join(self.node_modules(), pkg)))
                    if here and here != pkg:
                        self.assertTrue(os.path.isdir(os.path.join(self.node_modules(), here)))

    def test_unreachable_registry(self):
        self.write_lock({"a": "1.0.0"})
        lock_path = os.path.join(self.proj, "package-lock.json")
        with open(lock_path) as f:
            text = f.read()
        with open(lock_path, "w") as f:
            f.write(text.replace(self.registry.url, "http://127.0.0.1:9/"))
        proc = self.nub_fails("install", env={"npm_config_registry": "http://127.0.0.1:9/",
                                               "npm_config_fetch_retries": "1"})
        self.assertEqual(proc.returncode, 41, proc.stderr)
        self.assertIn("a@1.0.0", proc.stderr)


class OfflineTest(FaultTestCase):

    def test_offline_with_empty_store(self):
        self.basic()
        proc = self.nub_fails("install", "--offline")
        self.assertEqual(proc.returncode, 43, proc.stderr)
        self.assertRegex(proc.stderr, r"(@scope/d|[a-e]|dev-only|opt-\w+)@1\.0\.0")
        self.assertIn("ERR_NUB_OFFLINE", proc.stderr)
        self.assertEqual(self.registry.requests, [])
        self.assertFalse(os.path.exists(os.path.join(self.node_modules(), "a")))

    def test_offline_after_warm_install(self):
        self.basic()
        self.nub("install")
        shutil.rmtree(self.node_modules())
        self.registry.reset_log()
        self.nub("install", "--offline")
        self.assertEqual(self.registry.requests, [])
        self.assert_basic_tree()

    def test_offline_into_another_project(self):
        self.basic()
        self.nub("install")
        other = os.path.join(self.tmp, "other")
        os.makedirs(other)
        for f in ("package.json", "package-lock.json"):
            shutil.copy(os.path.join(self.proj, f), other)
        self.registry.reset_log()
        self.nub("install", "--offline", cwd=other)
        self.assertEqual(self.registry.requests, [])
        self.assert_basic_tree(other)


class InterruptTest(FaultTestCase):

    def test_kill_9_mid_download_then_rerun(self):
        self.basic()
        self.registry.add_fault(A_TGZ, "delay", count=1, seconds=8)
        proc = self.popen_nub("install")
        try:
            # the other tarballs have been served: nub is waiting on `a`
            self.wait_for(lambda: self.registry.count(B1_TGZ) >= 1, what="b's tarball request")
            time.sleep(0.3)
            self.assertIsNone(proc.poll(), "nub finished while a tarball was delayed")
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
        self.assertEqual(proc.returncode, -signal.SIGKILL)
        self.registry.clear_faults()
        self.nub("install")
        self.assert_basic_tree()
        # the dead run's staging area was cleaned up
        self.assertEqual(self.store_tmp_entries(), [])
        self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")

    def test_short_store_file_from_a_crash_is_replaced(self):
        # What a crash mid-write leaves: files cut short in the store and no
        # index for their packages. The next install must not link them: it
        # finds them short and puts whole copies in their place. New packages
        # are unpacked as trees (their files under their own paths)...
        self.short_store_files_are_replaced(nubtest.store_kind())

    def test_short_content_file_from_a_crash_is_replaced(self):
        # ... or, where they are not (NUB_STORE_TREES=0, as where whole
        # directories are cloned from content files), under content names
        self.env["NUB_STORE_TREES"] = "0"
        self.short_store_files_are_replaced("files")

    def short_store_files_are_replaced(self, kind):
        self.basic()
        self.nub("install")
        cut = []
        for p in self.store_file_paths():
            if os.path.getsize(p) > 1:
                with open(p, "r+b") as f:
                    f.truncate(1)
                cut.append(p)
        self.assertTrue(cut)
        self.assertTrue(all(os.sep + kind + os.sep in p for p in cut), cut[:3])
        shutil.rmtree(os.path.join(self.store, "v1", "index"))
        shutil.rmtree(self.node_modules())
        self.nub("install")
        self.assert_basic_tree()
        nm = self.node_modules()
        with open(os.path.join(nm, "e", "lib", "x", "y.js"), "rb") as f:
            self.assertGreater(len(f.read()), 1)
        self.node_require(self.proj, "a")
        self.node_require(self.proj, "c")
        for p in cut:
            self.assertGreater(os.path.getsize(p), 1, p)

    def test_lost_store_file_is_named_then_fetched_again(self):
        # a file of a package's tree gone from the store (someone cleaned it
        # by hand): one error line, and the next run fetches the package again
        self.lost_store_file_is_named_then_fetched_again(nubtest.store_kind())

    def test_lost_content_file_is_named_then_fetched_again(self):
        # the same for a content file (NUB_STORE_TREES=0)
        self.env["NUB_STORE_TREES"] = "0"
        self.lost_store_file_is_named_then_fetched_again("files")

    def lost_store_file_is_named_then_fetched_again(self, kind):
        self.basic()
        self.nub("install")
        nm = self.node_modules()
        lost = os.path.join(nm, "e", "lib", "x", "y.js")
        ino = os.stat(lost).st_ino
        gone = [p for p in self.store_file_paths() if os.stat(p).st_ino == ino]
        self.assertEqual(len(gone), 1)
        self.assertIn(os.sep + kind + os.sep, gone[0])
        os.unlink(gone[0])
        shutil.rmtree(nm)
        # with the store check (verify-store-integrity, the default) the
        # loss is found as the package is linked: one line, fetched again at once
        proc = self.nub("install")
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("e@1.0.0", lines[0])
        self.assertIn("is damaged", lines[0])
        self.assert_basic_tree()
        self.assertTrue(os.path.exists(gone[0]))
        # without it, the linker finds the loss: one error line, and the
        # next run fetches the package again
        os.unlink(gone[0])
        shutil.rmtree(nm)
        unchecked = {"npm_config_verify_store_integrity": "false"}
        proc = self.nub_fails("install", env=unchecked)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("e@1.0.0", lines[0])
        self.assertIn("run the install again", lines[0])
        self.nub("install", env=unchecked)
        self.assert_basic_tree()
        self.assertTrue(os.path.exists(gone[0]))

    def test_kill_9_during_link_then_rerun(self):
        # Warm store, then a run killed as early as possible, then a rerun
        self.basic()
        self.nub("install")
        shutil.rmtree(self.node_modules())
        for delay in (0.0, 0.005, 0.01, 0.02):
            proc = self.popen_nub("install")
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            self.nub("install")
            self.assert_basic_tree()
            shutil.rmtree(self.node_modules())

    def test_sigint_during_download(self):
        self.basic()
        self.registry.add_fault(A_TGZ, "delay", count=1, seconds=10)
        proc = self.popen_nub("install")
        try:
            self.wait_for(lambda: self.registry.count(B1_TGZ) >= 1, what="b's tarball request")
            time.sleep(0.3)
            self.assertIsNone(proc.poll(), "nub finished while a tarball was delayed")
            t0 = time.monotonic()
            proc.send_signal(signal.SIGINT)
            rc, out, err = self.finish(proc, timeout=30)
            elapsed = time.monotonic() - t0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(rc, 130, err)
        self.assertLess(elapsed, 5, "nub waited for the download after SIGINT")
        self.assertEqual(self.store_tmp_entries(), [])
        # no node_modules before, none after (what was linked while the
        # fetch ran is taken away)
        self.assertFalse(os.path.exists(self.node_modules()))
        self.registry.clear_faults()
        self.nub("install")
        self.assert_basic_tree()


def _tar_files(tgz):
    """{relpath: bytes} of a package tarball's regular files."""
    out = {}
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
        for m in tar.getmembers():
            parts = m.name.split("/", 1)
            if m.isreg() and len(parts) == 2 and parts[1]:
                out[os.path.normpath(parts[1])] = tar.extractfile(m).read()
    return out


class HeldBackDownloadsTest(FaultTestCase):
    """Downloads wait while the unpacking is behind (6 asked for per
    connection, or 16 MB downloaded and waiting): with one connection the
    basic project's 11 tarballs are asked for a few at a time, all arrive,
    and an interrupt while some are held back ends at once. (Before, every
    download was asked for at once and a cold install of the large fixture
    held 53 MB of tarballs in memory.)"""

    def setUp(self):
        super().setUp()
        self.basic()
        with open(os.path.join(self.proj, ".npmrc"), "a") as f:
            f.write("network-concurrency=1\n")

    def test_all_arrive(self):
        self.registry.add_fault(r"\.tgz$", "delay", count=None, seconds=0.05)
        proc = self.nub("install", env={"NUB_LOG": "debug"})
        self.assertIn("downloaded and waiting to be unpacked", proc.stderr)
        self.assert_basic_tree()

    def test_sigint_with_downloads_held_back(self):
        self.registry.add_fault(A_TGZ, "delay", count=1, seconds=10)
        self.registry.add_fault(r"\.tgz$", "delay", count=None, seconds=0.3)
        proc = self.popen_nub("install")
        try:
            self.wait_for(lambda: self.registry.count(r"\.tgz$") >= 1, what="a tarball request")
            time.sleep(0.5)
            self.assertIsNone(proc.poll(), "nub finished while tarballs were delayed")
            t0 = time.monotonic()
            proc.send_signal(signal.SIGINT)
            rc, out, err = self.finish(proc, timeout=30)
            elapsed = time.monotonic() - t0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(rc, 130, err)
        self.assertLess(elapsed, 5, "nub waited for the downloads after SIGINT")
        self.assertEqual(self.store_tmp_entries(), [])
        self.registry.clear_faults()
        self.nub("install")
        self.assert_basic_tree()


class KillLoopTest(FaultTestCase):
    """SIGKILL at random points of cold installs (store and node_modules
    empty each time), in each layout; a normal install afterwards succeeds
    and every file of every installed package equals the registry's bytes."""

    KILLS = 24
    DEPS = {"c": "^1.0.0", "@scope/d": "^1.0.0", "e": "^1.0.0", "a": "^1.0.0"}

    def same_as_registry(self):
        """Every package reachable from node_modules, compared file by file
        with its tarball; returns how many packages."""
        seen, todo = set(), [self.node_modules()]
        while todo:
            nm = todo.pop()
            for entry in sorted(os.listdir(nm)) if os.path.isdir(nm) else []:
                if entry.startswith("."):
                    continue
                dirs = ([os.path.join(nm, entry, x) for x in os.listdir(os.path.join(nm, entry))]
                        if entry.startswith("@") else [os.path.join(nm, entry)])
                for d in dirs:
                    real = os.path.realpath(d)
                    if real in seen:
                        continue
                    seen.add(real)
                    pj = self.read_json(os.path.join(real, "package.json"))
                    want = _tar_files(self.registry.tarball(pj["name"], pj["version"]))
                    have = {}
                    for dp, dn, fn in os.walk(real):
                        dn[:] = [x for x in dn if not (dp == real and x == "node_modules")]
                        for f in fn:
                            full = os.path.join(dp, f)
                            with open(full, "rb") as fh:
                                have[os.path.relpath(full, real)] = fh.read()
                    self.assertEqual(sorted(have), sorted(want), real)
                    for rel, data in want.items():
                        self.assertEqual(have[rel], data, os.path.join(real, rel))
                    todo.append(os.path.join(real, "node_modules"))
                    # isolated: the dependencies are the package's siblings
                    parent = os.path.dirname(real)
                    if os.path.basename(parent).startswith("@"):
                        parent = os.path.dirname(parent)
                    if os.path.basename(parent) == "node_modules" and parent != self.node_modules():
                        todo.append(parent)
        return len(seen)

    def loop(self, flags):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": self.DEPS})
        # spread the run over its phases: each tarball takes a little while
        self.registry.add_fault(r"\.tgz$", "delay", count=None, seconds=0.02)
        rng = random.Random(1234)

        def reset():
            for p in (self.store, self.node_modules(), os.path.join(self.proj, "nub.lock")):
                if os.path.isdir(p):
                    shutil.rmtree(p)
                elif os.path.exists(p):
                    os.remove(p)
        reset()
        t0 = time.monotonic()
        self.nub("install", *flags)
        full = time.monotonic() - t0
        count = self.same_as_registry()
        self.assertGreaterEqual(count, 5)
        for k in range(self.KILLS):
            reset()
            at = rng.uniform(0, full)
            proc = self.popen_nub("install", *flags)
            time.sleep(at)
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            again = self.nub("install", *flags, check=False)
            self.assertEqual(again.returncode, 0, "kill %d at %.3f s: %s" % (k, at, again.stderr))
            self.assertEqual(self.same_as_registry(), count, "kill %d at %.3f s" % (k, at))

    def test_hoisted(self):
        self.loop(["--node-linker", "hoisted"])

    def test_isolated(self):
        self.loop(["--node-linker", "isolated"])


class FaultMatrixTest(FaultTestCase):
    """Every fault the test registry can serve, on a packument (resolving
    without a lockfile) and on a tarball (from a lockfile): served once, the
    install retries and succeeds with the right tree; served every time, it
    fails with the fault's exit code and one error line naming what failed,
    and the next install with the fault gone succeeds."""

    # kind -> (params, exit codes when it never stops: packument, tarball).
    # None: not served there. A corrupted packument can still be valid JSON
    # (its tarball URL garbled: a 404) or not (malformed): either is a
    # failure of the metadata. Served once, every fault is retried, except
    # what is no transfer error: a sign-in page (HTML with status 200), a
    # packument corrupted into other valid metadata, and a wrong integrity
    # in the metadata, which no refetch of the tarball mends.
    MATRIX = {
        "status": ({"code": 503}, {41}, {41}),
        "retry_after": ({"seconds": 0}, {41}, {41}),
        "truncate": ({}, {41}, {41}),
        "corrupt": ({}, {11, 40, 45}, {30}),
        "reset": ({}, {41}, {41}),
        "html": ({}, {45}, {30}),
        "trickle": ({"seconds": 0.05}, {41}, {41}),
        "wrong_integrity": ({}, {30}, None),
    }
    NOT_RETRIED = {("html", "packument"), ("corrupt", "packument"),
                   ("wrong_integrity", "packument")}
    TIMEOUTS = {"npm_config_fetch_timeout": "1500"}

    def case(self, kind, target, count):
        self.registry.clear_faults()
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-%s-%s-%s" % (kind, target, count))
        for p in (self.node_modules(), os.path.join(self.proj, "nub.lock"),
                  os.path.join(self.proj, "package-lock.json")):
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.remove(p)
        if target == "tarball":
            self.basic()
            rx = A_TGZ
        else:
            self.make_project({"name": "p", "version": "1.0.0",
                               "dependencies": {"a": "^1.0.0", "c": "^1.0.0"}})
            rx = r"^/a$"
        params = self.MATRIX[kind][0]
        self.registry.add_fault(rx, kind, count=count, **params)
        return self.nub("install", env=self.TIMEOUTS, check=False)

    def assert_installed(self, target):
        if target == "tarball":
            self.assert_basic_tree()
        else:
            self.assertEqual(self.node_require(self.proj, "a")["version"], "1.0.0")
            self.assertEqual(self.node_require(self.proj, "c")["deps"], {"b": "2.0.0"})

    def test_served_once_it_is_retried(self):
        for kind, (_, pk_codes, tb_codes) in self.MATRIX.items():
            for target, codes in (("packument", pk_codes), ("tarball", tb_codes)):
                if codes is None:
                    continue
                with self.subTest(kind=kind, target=target):
                    proc = self.case(kind, target, 1)
                    if (kind, target) in self.NOT_RETRIED:
                        self.assertIn(proc.returncode, codes, proc.stderr)
                    else:
                        self.assertEqual(proc.returncode, 0, proc.stderr)
                        self.assert_installed(target)

    def test_served_always_it_fails_cleanly_then_recovers(self):
        for kind, (_, pk_codes, tb_codes) in self.MATRIX.items():
            for target, codes in (("packument", pk_codes), ("tarball", tb_codes)):
                if codes is None:
                    continue
                with self.subTest(kind=kind, target=target):
                    proc = self.case(kind, target, None)
                    errors = [l for l in proc.stderr.splitlines() if "error:" in l]
                    self.assertIn(proc.returncode, codes, proc.stderr)
                    self.assertEqual(len(errors), 1, proc.stderr)
                    self.assertRegex(errors[0], r"\ba(@1\.0\.0)?\b|/a\b")
                    self.registry.clear_faults()
                    again = self.nub("install", env=self.TIMEOUTS, check=False)
                    self.assertEqual(again.returncode, 0, again.stderr)
                    self.assert_installed(target)


class ConcurrencyTest(FaultTestCase):

    def test_two_projects_share_a_cold_store(self):
        # two different projects, overlapping packages (b@1), one store
        p1 = os.path.join(self.tmp, "p1")
        p2 = os.path.join(self.tmp, "p2")
        for p, project in ((p1, "basic"), (p2, "misc")):
            os.makedirs(p)
            self.proj = p
            self.make_project(project, lockfile="package-lock.v3.json")
        self.registry.add_fault(r"\.tgz$", "delay", count=None, seconds=0.2)
        procs = [self.popen_nub("install", "--ignore-scripts", cwd=p) for p in (p1, p2)]
        results = [self.finish(p) for p in procs]
        for rc, out, err in results:
            self.assertEqual(rc, 0, err)
        self.registry.clear_faults()
        self.assert_basic_tree(p1)
        self.assertTrue(os.path.isfile(os.path.join(p2, "node_modules", "bundler", "node_modules",
                                                    "bundled-dep", "index.js")))
        self.assertEqual(self.store_tmp_entries(), [])
        # every index in the store is usable: offline installs of both work
        for project in ("basic", "misc"):
            p3 = os.path.join(self.tmp, "p3-" + project)
            os.makedirs(p3)
            self.proj = p3
            self.make_project(project, lockfile="package-lock.v3.json")
            self.registry.reset_log()
            self.nub("install", "--offline", "--ignore-scripts", cwd=p3)
            self.assertEqual(self.registry.requests, [])
        self.assert_basic_tree(os.path.join(self.tmp, "p3-basic"))

    def test_eight_projects_one_lockfile_one_cold_store(self):
        projects = []
        for i in range(8):
            p = os.path.join(self.tmp, "p%d" % i)
            os.makedirs(p)
            self.proj = p
            self.make_project("basic", lockfile="package-lock.v3.json")
            projects.append(p)
        self.registry.add_fault(r"\.tgz$", "delay", count=None, seconds=0.05)
        procs = [self.popen_nub("install", cwd=p) for p in projects]
        for rc, out, err in [self.finish(p) for p in procs]:
            self.assertEqual(rc, 0, err)
        for p in projects:
            self.assert_basic_tree(p)
        self.assertEqual(self.store_tmp_entries(), [])

    def test_two_installs_in_the_same_project(self):
        self.basic()
        # each tarball held 2 s: the first install is still fetching (and
        # holding the project) when the second one has started, even when a
        # loaded machine takes a second to start it (0.3 s was not always)
        self.registry.add_fault(r"\.tgz$", "delay", count=None, seconds=2.0)
        first = self.popen_nub("install")
        self.wait_for(lambda: self.registry.count(r"\.tgz$") >= 1 or first.poll() is not None,
                      what="the first install to start fetching")
        second = self.popen_nub("install")
        r1, r2 = self.finish(first), self.finish(second)
        self.assertEqual(r1[0], 0, r1[2])
        self.assertEqual(r2[0], 0, r2[2])
        # the second one found the project locked and waited
        self.assertIn("another nub install is running", r2[2])
        self.registry.clear_faults()
        self.assert_basic_tree()
        self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")


class BrokenProjectTest(FaultTestCase):

    def test_malformed_package_json(self):
        self.basic()
        with open(os.path.join(self.proj, "package.json"), "w") as f:
            f.write('{\n  "name": "basic",\n  "dependencies": {\n    "a": ^1.0.0\n  }\n}\n')
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 70, proc.stderr)
        self.assertIn("package.json", proc.stderr)
        m = re.search(r"line (\d+),? column (\d+)", proc.stderr)
        self.assertIsNotNone(m, proc.stderr)
        self.assertEqual(int(m.group(1)), 4, proc.stderr)
        self.assertEqual(int(m.group(2)), 10, proc.stderr)  # the '^'
        self.assertFalse(os.path.exists(self.node_modules()))

    def test_missing_package_json(self):
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 71, proc.stderr)
        self.assertIn("package.json", proc.stderr)

    def test_malformed_package_lock(self):
        self.basic()
        with open(os.path.join(self.proj, "package-lock.json"), "w") as f:
            f.write('{\n  "name": "basic",\n  "lockfileVersion": 3,\n  "packages": {\n')
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("package-lock.json", proc.stderr)
        self.assertRegex(proc.stderr, r"line \d+")
        self.assertEqual(self.registry.requests, [])

    def test_merge_conflict_in_package_lock(self):
        self.basic()
        path = os.path.join(self.proj, "package-lock.json")
        with open(path) as f:
            lines = f.read().split("\n")
        lines[5:5] = ["<<<<<<< HEAD", "=======", ">>>>>>> branch"]
        with open(path, "w") as f:
            f.write("\n".join(lines))
        # a frozen install (CI) refuses it, naming the marker
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("merge-conflict", proc.stderr)
        # a plain one merges both sides as npm does and writes it back
        # (test_install_npm.py compares that with npm's own answer)
        self.nub("install")
        with open(path) as f:
            self.assertNotIn("<<<<<<<", f.read())

    def test_lockfile_version_5(self):
        # (4 is npm 12's, with patches: test_patches.py)
        self.basic()
        path = os.path.join(self.proj, "package-lock.json")
        lock = self.read_json(path)
        lock["lockfileVersion"] = 5
        self.write_json(path, lock)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 12, proc.stderr)
        self.assertIn("package-lock.json", proc.stderr)
        self.assertIn("5", proc.stderr)
        self.assertEqual(self.registry.requests, [])

    def test_package_lock_and_yarn_lock(self):
        self.basic()
        with open(os.path.join(self.proj, "yarn.lock"), "w") as f:
            f.write("# yarn lockfile v1\n\n")
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 17, proc.stderr)
        self.assertIn("package-lock.json", proc.stderr)
        self.assertIn("yarn.lock", proc.stderr)
        self.assertIn("packageManager", proc.stderr)
        # naming the tool settles it
        pj_path = os.path.join(self.proj, "package.json")
        pj = self.read_json(pj_path)
        pj["packageManager"] = "npm@10.0.0"
        self.write_json(pj_path, pj)
        self.nub("install")
        self.assert_basic_tree()

    def test_unsafe_lockfile_path(self):
        self.write_lock({"a": "1.0.0"})
        path = os.path.join(self.proj, "package-lock.json")
        lock = self.read_json(path)
        lock["packages"]["node_modules/../../escape"] = lock["packages"]["node_modules/a"]
        self.write_json(path, lock)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 44, proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "escape")))



@unittest.skipUnless(platform.system() == "Linux" and os.geteuid() == 0,
                     "mounts a small tmpfs (Linux, root)")
class DiskFullTest(FaultTestCase):
    """A store on a file system that fills up mid-install."""

    def setUp(self):
        super().setUp()
        self.small = os.path.join(self.tmp, "small")
        os.makedirs(self.small)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "nubtest", self.small],
                       check=True)
        self.addCleanup(subprocess.run, ["umount", "-l", self.small])
        self.env["NUB_STORE_DIR"] = os.path.join(self.small, "store")

    def fill(self, size):
        """Fill the small file system but `size` bytes short of full."""
        with open(os.path.join(self.small, "filler"), "wb") as f:
            try:
                f.write(b"x" * size)
            except OSError:
                pass

    def make_room(self):
        os.unlink(os.path.join(self.small, "filler"))
        subprocess.run(["mount", "-o", "remount,size=16m", self.small], check=True)

    def install_fails_full(self):
        """One error line, about the store being full; returns it."""
        proc = self.nub_fails("install")
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("No space left on device", lines[0])
        self.assertIn("store", lines[0])
        return lines[0]

    def test_full_store_fails_cleanly_and_recovers(self):
        # new packages unpacked as trees
        self.full_store_fails_cleanly_and_recovers(nubtest.store_kind())

    def test_full_content_store_fails_cleanly_and_recovers(self):
        # the same with content files (NUB_STORE_TREES=0)
        self.env["NUB_STORE_TREES"] = "0"
        self.full_store_fails_cleanly_and_recovers("files")

    def full_store_fails_cleanly_and_recovers(self, kind):
        self.basic()
        # fill the file system but a little, so that the store starts and then runs out
        self.fill(40 * 1024)
        line = self.install_fails_full()
        if kind == "files":
            # content files are published one by one, as they come
            self.assertTrue(self.store_file_paths(os.path.join(self.small, "store")),
                            "the store never started")
        else:
            # a tree is staged whole and its staging removed: the line names
            # the package that did not fit
            self.assertRegex(line, r"@1\.0\.0: cannot write (to )?the store")
        # the store filled up while fetching: nothing was linked
        self.assertFalse(os.path.exists(os.path.join(self.node_modules(), "a")))
        # room again: the same store finishes the job, with whole files
        self.make_room()
        self.nub("install")
        self.assert_basic_tree()
        for dep in ("a", "c", "@scope/d", "e"):
            self.assertEqual(self.node_require(self.proj, dep)["name"], dep)

    def test_full_store_isolated_fails_cleanly_and_recovers(self):
        # the isolated layout unpacks packages as trees: the same promise
        self.basic(lockfile=None)
        self.nub("install", "--lockfile-only",
                 env={"NUB_STORE_DIR": os.path.join(self.tmp, "scratch-store")})
        self.fill(40 * 1024)
        self.assertRegex(self.install_fails_full(), r"@1\.0\.0: cannot write (to )?the store")
        self.assertFalse(os.path.exists(os.path.join(self.node_modules(), "a")))
        self.make_room()
        self.nub("install")
        for dep in ("a", "c", "@scope/d", "e"):
            self.assertEqual(self.node_require(self.proj, dep)["name"], dep)
        self.assertEqual(self.node_require(os.path.realpath(os.path.join(
            self.node_modules(), "c")), "b")["version"], "2.0.0")

    def test_full_project_disk_fails_cleanly(self):
        # the project itself on the small file system, the store elsewhere
        del self.env["NUB_STORE_DIR"]
        proj = os.path.join(self.small, "proj")
        os.makedirs(proj)
        self.basic()
        for f in ("package.json", "package-lock.json"):
            shutil.copy(os.path.join(self.proj, f), proj)
        self.fill(36 * 1024)
        proc = self.nub_fails("install", cwd=proj)
        # (a notice says the store is on another file system: files are copied)
        lines = [l for l in proc.stderr.strip().splitlines() if "error" in l]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("No space left on device", lines[0])
        self.assertIn("file system holding node_modules is full", lines[0])
        self.assertIn("node_modules/", lines[0])
        # the user's files are as they were
        with open(os.path.join(proj, "package.json")) as a, \
                open(os.path.join(self.proj, "package.json")) as b:
            self.assertEqual(a.read(), b.read())
        # room again: it finishes
        self.make_room()
        self.nub("install", cwd=proj)
        self.assert_basic_tree(proj)


if __name__ == "__main__":
    nubtest.main()
