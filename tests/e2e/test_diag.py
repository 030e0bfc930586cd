#!/usr/bin/env python3
"""nub's diagnostics during `nub install`: the NUB_DIAG_FILE JSONL events,
NUB_LOG / RUST_LOG phase lines, link-method events (copy, hardlink fallback
under NUB_PLAT_FAULT) and the NUB_BENCH_PHASES_FILE line.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_diag.py
     (or ctest -R e2e.diag)
"""

import json
import os
import re
import shutil
import tempfile

import unittest

import nubtest
from nubtest import Registry

PHASE_LINE = re.compile(r"^DEBUG phase:(\w+) (\S+) ?(?:\((.*)\))?$", re.M)
# Every NUB_DIAG_* / NUB_BENCH_* / log knob, so that a developer's
# environment does not leak into a test that expects them off.
DIAG_KNOBS = ("NUB_DIAG_FILE", "NUB_DIAG_PRINT", "NUB_DIAG_THRESHOLD_MS", "NUB_DIAG_SUMMARY",
              "NUB_DIAG_CRITPATH", "NUB_DIAG_KERNEL", "NUB_BENCH_PHASES_FILE",
              "NUB_BENCH_SCENARIO", "NUB_LOG", "RUST_LOG", "NUB_PLAT_FAULT", "NUB_DIAG_TRACE")


class DiagTest(nubtest.NubTestCase):

    def setUp(self):
        super().setUp()
        for k in DIAG_KNOBS:
            self.env.pop(k, None)
        self.diag_path = os.path.join(self.tmp, "diag.jsonl")
        self.make_project("basic", lockfile="package-lock.v3.json")

    def events(self):
        with open(self.diag_path) as f:
            lines = f.read().splitlines()
        return [json.loads(line) for line in lines]

    def linker_events(self):
        return [e for e in self.events() if e["cat"] == "linker"]

    def installed_files(self):
        nm = os.path.join(self.proj, "node_modules")
        out = []
        for dirpath, dirnames, filenames in os.walk(nm):
            dirnames[:] = [d for d in dirnames if d not in (".bin", ".nub-state")]
            for f in filenames:
                out.append(os.path.join(dirpath, f))
        return out

    def phase_lines(self, stderr):
        return {m.group(1): m for m in PHASE_LINE.finditer(stderr)}

    # -- the JSONL file

    def test_diag_file_schema(self):
        self.nub("install", env={"NUB_DIAG_FILE": self.diag_path})
        with open(self.diag_path) as f:
            text = f.read()
        lines = text.splitlines()
        self.assertTrue(text.endswith("\n"))
        self.assertGreater(len(lines), 10)
        for line in lines:
            with self.subTest(line=line):
                e = json.loads(line)
                self.assertIsInstance(e, dict)
                for key in ("t", "cat", "name", "dur"):
                    self.assertIn(key, e)
                self.assertIsInstance(e["cat"], str)
                self.assertIsInstance(e["name"], str)
                for key in ("t", "dur"):
                    self.assertIsInstance(e[key], (int, float))
                    self.assertGreaterEqual(e[key], 0)
                    # printed with exactly three decimals
                    self.assertRegex(line, r'"%s":-?\d+\.\d{3}[,}]' % key)
                if "meta" in e:
                    self.assertIsInstance(e["meta"], dict)
        events = [json.loads(line) for line in lines]
        # one install_phase event per phase, in pipeline order
        phases = [e["name"] for e in events if e["cat"] == "install_phase"]
        self.assertEqual(phases, ["resolve", "fetch", "link", "link_bins", "scripts", "state"])
        # one fetch event per downloaded tarball (8 packages on this platform)
        tarballs = [e for e in events if e["cat"] == "fetch" and e["name"] == "tarball"]
        self.assertEqual(len(tarballs), self.registry.count(r"\.tgz$"))
        for e in tarballs:
            self.assertRegex(e["meta"]["pkg"], r"^(@scope/)?[\w-]+@1\.0\.0$|^b@2\.0\.0$")
        # t is the end of the event in ms since start-up: no event started
        # before nub did
        for e in events:
            self.assertGreaterEqual(e["t"] - e["dur"], -0.002, e)

    def test_linker_events_match_the_link_phase(self):
        proc = self.nub("install", env={"NUB_DIAG_FILE": self.diag_path, "NUB_LOG": "debug"})
        phases = self.phase_lines(proc.stderr)
        self.assertIn("link", phases, proc.stderr)
        m = re.match(r"(\d+) files$", phases["link"].group(3) or "")
        self.assertIsNotNone(m, phases["link"].group(0))
        n = int(m.group(1))
        linker = self.linker_events()
        self.assertEqual(len(linker), n)
        self.assertEqual(n, len(self.installed_files()))
        for e in linker:
            self.assertIn(e["name"], ("link_hardlink", "link_reflink", "link_clonedir",
                                      "link_copy", "link_macos_small_copy"))
            self.assertIn("pkg", e["meta"])
            self.assertIn("bytes", e["meta"])
        # the JSONL install_phase event carries the same detail
        link_phase = [e for e in self.events() if e["cat"] == "install_phase" and e["name"] == "link"]
        self.assertEqual(len(link_phase), 1)
        self.assertEqual(link_phase[0]["meta"]["detail"], "%d files" % n)
        # and the bytes add up to what is on disk
        self.assertEqual(sum(e["meta"]["bytes"] for e in linker),
                         sum(os.path.getsize(p) for p in self.installed_files()))

    def test_copy_import_method(self):
        self.nub("install", "--package-import-method", "copy",
                 env={"NUB_DIAG_FILE": self.diag_path})
        linker = self.linker_events()
        self.assertEqual(len(linker), len(self.installed_files()))
        self.assertEqual({e["name"] for e in linker}, {"link_copy"})
        for e in linker:
            self.assertNotIn("fallback_from", e["meta"])
        for p in self.installed_files():
            self.assertEqual(os.stat(p).st_nlink, 1, "%s is linked, not copied" % p)

    @unittest.skipUnless(os.environ.get("NUB_TEST_EXPECT_REFLINK") == "1",
                         "needs a reflink file system (ctest e2e.diag_xfs runs it on XFS)")
    def test_clone_import_method_on_a_reflink_file_system(self):
        self.nub("install", "--package-import-method", "clone",
                 env={"NUB_DIAG_FILE": self.diag_path})
        linker = self.linker_events()
        self.assertEqual(len(linker), len(self.installed_files()))
        self.assertEqual({e["name"] for e in linker}, {"link_reflink"})
        for e in linker:
            self.assertNotIn("fallback_from", e["meta"])
        for p in self.installed_files():
            self.assertEqual(os.stat(p).st_nlink, 1, "%s is hard-linked, not cloned" % p)

    def test_hardlink_exdev_falls_back_to_copy(self):
        proc = self.nub("install", env={"NUB_DIAG_FILE": self.diag_path,
                                        "NUB_PLAT_FAULT": "hardlink=EXDEV"})
        linker = self.linker_events()
        self.assertEqual(len(linker), len(self.installed_files()))
        self.assertEqual({e["name"] for e in linker}, {"link_copy"})
        for e in linker:
            self.assertEqual(e["meta"].get("fallback_from"), "hardlink", e)
            self.assertEqual(e["meta"].get("errno"), 18, e)
        for p in self.installed_files():
            self.assertEqual(os.stat(p).st_nlink, 1, "%s is a hard link" % p)
        # same store and project file system: no "another file system" notice
        self.assertNotIn("another file system", proc.stderr)
        # the tree is right all the same
        self.assertEqual(self.read_json(os.path.join(
            self.proj, "node_modules", "c", "node_modules", "b", "package.json"))["version"], "2.0.0")

    def test_diag_file_after_a_failed_install(self):
        self.registry.add_fault(r"^/a/-/a-1\.0\.0\.tgz$", "status", count=None, code=404)
        proc = self.nub_fails("install", env={"NUB_DIAG_FILE": self.diag_path})
        self.assertEqual(proc.returncode, 40, proc.stderr)
        events = self.events()  # every line still parses
        phases = [e["name"] for e in events if e["cat"] == "install_phase"]
        self.assertEqual(phases, ["resolve", "fetch"])
        # packages stored before the failure may have been linked while the
        # fetch ran (the events say so), never a, and nothing of them stays
        linked = {e["meta"]["pkg"] for e in events if e["cat"] == "linker"}
        self.assertNotIn("a@1.0.0", linked)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "node_modules")))

    def test_unwritable_diag_file_is_not_fatal(self):
        bad = os.path.join(self.tmp, "no-such-dir", "diag.jsonl")
        proc = self.nub("install", env={"NUB_DIAG_FILE": bad})
        self.assertIn("NUB_DIAG_FILE", proc.stderr)
        self.assertRegex(proc.stdout, r"added 8 packages")
        self.assertFalse(os.path.exists(bad))

    # -- off by default

    def test_nothing_by_default(self):
        before_home = sorted(os.listdir(self.home))
        before_tmp = sorted(os.listdir(self.tmp))
        proc = self.nub("install")
        self.assertNotIn("phase:", proc.stderr)
        self.assertNotIn("DEBUG", proc.stderr)
        self.assertNotIn("[diag", proc.stderr)
        self.assertEqual(proc.stderr, "")
        # the summary line, then the direct dependencies it added: no diag
        self.assertRegex(proc.stdout, r"^added 8 packages in \d+\.\d\ds\n(\+ \S+ \S+\n)+$")
        self.assertEqual(sorted(os.listdir(self.tmp)), before_tmp)
        self.assertEqual(sorted(os.listdir(self.home)), before_home)
        self.assertEqual(sorted(os.listdir(self.proj)),
                         ["node_modules", "package-lock.json", "package.json"])
        self.assertFalse(os.path.exists(self.diag_path))

    def test_nub_log_debug_prints_phases(self):
        proc = self.nub("install", env={"NUB_LOG": "debug"})
        phases = self.phase_lines(proc.stderr)
        self.assertEqual(list(phases), ["resolve", "fetch", "link", "link_bins", "scripts", "state"])
        self.assertEqual(phases["resolve"].group(3), "8 packages")
        self.assertEqual(phases["fetch"].group(3), "8 packages, 0 cached")
        self.assertEqual(phases["link_bins"].group(3), "2 links")
        for m in phases.values():
            self.assertRegex(m.group(2), r"^\d+(\.\d+)?(µs|ms|s)$")
        self.assertFalse(os.path.exists(self.diag_path))
        # warm: everything cached
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        proc = self.nub("install", env={"NUB_LOG": "debug"})
        self.assertEqual(self.phase_lines(proc.stderr)["fetch"].group(3), "0 packages, 8 cached")

    def test_rust_log_debug_prints_phases(self):
        for value in ("debug", "nub=debug", "info,nub=debug"):
            with self.subTest(RUST_LOG=value):
                node_modules = os.path.join(self.proj, "node_modules")
                if os.path.exists(node_modules):
                    shutil.rmtree(node_modules)
                proc = self.nub("install", env={"RUST_LOG": value})
                self.assertEqual(list(self.phase_lines(proc.stderr)),
                                 ["resolve", "fetch", "link", "link_bins", "scripts", "state"])

    def test_log_levels_below_debug_print_nothing(self):
        for env in ({"NUB_LOG": "info"}, {"RUST_LOG": "warn"}, {"NUB_LOG": ""}):
            with self.subTest(env=env):
                node_modules = os.path.join(self.proj, "node_modules")
                if os.path.exists(node_modules):
                    shutil.rmtree(node_modules)
                proc = self.nub("install", env=env)
                self.assertNotIn("phase:", proc.stderr)

    # -- the bench phases file

    def test_bench_phases_file(self):
        bench = os.path.join(self.tmp, "bench.jsonl")
        env = {"NUB_BENCH_PHASES_FILE": bench}
        self.nub("install", env=env)
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.nub("install", env=env)
        with open(bench) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 2, lines)
        for line in lines:
            with self.subTest(line=line):
                doc = json.loads(line)
                self.assertIsInstance(doc["total_ms"], (int, float))
                self.assertGreater(doc["total_ms"], 0)
                phases = doc["phases_ms"]
                self.assertIsInstance(phases, dict)
                self.assertEqual(list(phases),
                                 ["resolve", "fetch", "link", "link_bins", "scripts", "state"])
                for v in phases.values():
                    self.assertIsInstance(v, (int, float))
                    self.assertGreaterEqual(v, 0)
                self.assertGreaterEqual(doc["total_ms"], sum(phases.values()))
                self.assertEqual(doc.get("packages"), 8)
                self.assertEqual(doc.get("files"), len(self.installed_files()))
        cold, warm = (json.loads(x) for x in lines)
        self.assertEqual((cold.get("fetched"), cold.get("cached")), (8, 0))
        self.assertEqual((warm.get("fetched"), warm.get("cached")), (0, 8))
        # the bench file alone turns no other output on
        self.assertFalse(os.path.exists(self.diag_path))


EPS_US = 2.0  # the trace's microseconds are printed with three decimals of ms


def validate_trace(tc, trace, jsonl):
    """Check a NUB_DIAG_TRACE file against the trace event format and
    against the run's NUB_DIAG_FILE; returns the number of spans."""
    tc.assertIsInstance(trace, dict)
    tc.assertEqual(trace.get("displayTimeUnit"), "ms")
    events = trace["traceEvents"]
    tc.assertIsInstance(events, list)
    names, by_tid, link_files = {}, {}, {}
    counts = {"X": 0, "i": 0, "C": 0, "M": 0, "b": 0, "e": 0}
    begun = {}
    for e in events:
        tc.assertIn(e["ph"], counts, e)
        counts[e["ph"]] += 1
        tc.assertIsInstance(e["name"], str)
        tc.assertEqual(e["pid"], 1)
        if e["ph"] == "M":
            tc.assertIn(e["name"], ("process_name", "thread_name", "thread_sort_index"))
            tc.assertIsInstance(e["args"], dict)
            if e["name"] == "thread_name":
                names[e["tid"]] = e["args"]["name"]
            continue
        tc.assertIsInstance(e["tid"], int)
        tc.assertIsInstance(e["ts"], (int, float))
        tc.assertGreaterEqual(e["ts"], 0)
        tc.assertIsInstance(e.get("cat"), str)
        if e["ph"] == "X":
            tc.assertGreaterEqual(e["dur"], 0)
        elif e["ph"] == "b":
            tc.assertNotIn(e["id"], begun)
            begun[e["id"]] = e
            continue  # (ends are what come in order)
        elif e["ph"] == "e":
            b = begun.pop(e["id"], None)
            tc.assertIsNotNone(b, "an end without its begin: %s" % e)
            tc.assertEqual((b["cat"], b["name"]), (e["cat"], e["name"]))
            tc.assertGreaterEqual(e["ts"], b["ts"])
        elif e["ph"] == "i":
            tc.assertIn(e["s"], ("t", "p", "g"))
        else:
            tc.assertTrue(e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values()), e)
        group = "files" if e["cat"] == "linker" else "events"
        by_tid.setdefault((e["tid"], group), []).append(e)
        if e["cat"] == "linker":
            link_files[e["name"]] = link_files.get(e["name"], 0) + e["args"].get("files", 1)
    tc.assertEqual(begun, {}, "async spans never ended")
    # every lane has a name; the phases lane is there
    for tid, _ in by_tid:
        tc.assertIn(tid, names, "lane %d has no thread_name" % tid)
    tc.assertEqual(names.get(0), "phases")
    for (tid, group), evs in by_tid.items():
        # events come in the order they ended, per thread
        ends = [e["ts"] + e.get("dur", 0) for e in evs]
        for a, b in zip(ends, ends[1:]):
            tc.assertLessEqual(a, b + EPS_US, "lane %d (%s): not monotonic" % (tid, names[tid]))
        # complete events nest per thread: none overlaps another partly
        stack = []
        for e in sorted((e for e in evs if e["ph"] == "X"), key=lambda e: (e["ts"], -e["dur"])):
            while stack and stack[-1] <= e["ts"] + EPS_US:
                stack.pop()
            if stack:
                tc.assertLessEqual(e["ts"] + e["dur"], stack[-1] + EPS_US,
                                   "lane %d (%s): %s overlaps its parent" % (tid, names[tid], e))
            stack.append(e["ts"] + e["dur"])
    # the same run as the JSONL: every event there is one here, the tally too
    other = trace["otherData"]
    plain = [e for e in jsonl if e["cat"] != "thread"]
    fallbacks = sum(1 for e in events if e.get("cat") == "fallback")
    if other["link_events"] == "one span per file":
        tc.assertEqual(counts["X"] + counts["b"] + counts["i"] + counts["C"] - fallbacks,
                       len(plain))
    jl = {}
    for e in plain:
        if e["cat"] == "linker":
            jl[e["name"]] = jl.get(e["name"], 0) + (e.get("meta") or {}).get("files", 1)
    tc.assertEqual(link_files, jl)
    tc.assertEqual({k: v["files"] for k, v in other["tally"].items()}, jl)
    return counts["X"]


class TraceTest(nubtest.NubTestCase):
    """NUB_DIAG_TRACE (a Chrome trace), `nub diag report` and `nub diag diff`
    on cold and warm installs of the basic project in both layouts."""

    def setUp(self):
        super().setUp()
        for k in DIAG_KNOBS:
            self.env.pop(k, None)

    def run_traced(self, tag, *flags):
        trace = os.path.join(self.tmp, tag + ".json")
        jsonl = os.path.join(self.tmp, tag + ".jsonl")
        self.nub("install", *flags, env={"NUB_DIAG_TRACE": trace, "NUB_DIAG_FILE": jsonl,
                                          "NUB_DIAG_KERNEL": "1"})
        with open(trace) as f:
            t = json.load(f)
        with open(jsonl) as f:
            j = [json.loads(line) for line in f]
        return t, j, jsonl

    def test_trace_validates_in_both_layouts(self):
        for layout, lockfile in (("hoisted", "package-lock.v3.json"), ("isolated", None)):
            with self.subTest(layout=layout):
                for f in ("node_modules", "nub.lock", "package-lock.json"):
                    p = os.path.join(self.proj, f)
                    shutil.rmtree(p) if os.path.isdir(p) else (os.path.exists(p) and os.remove(p))
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-" + layout)
                self.make_project("basic", lockfile=lockfile)
                for run in ("cold", "warm"):
                    if run == "warm":
                        shutil.rmtree(os.path.join(self.proj, "node_modules"))
                    t, j, _ = self.run_traced(layout + "-" + run, "--node-linker", layout)
                    spans = validate_trace(self, t, j)
                    self.assertGreater(spans, 5)
                    self.assertEqual(t["otherData"]["layout"], layout)
                    lanes = {e["args"]["name"] for e in t["traceEvents"]
                             if e["name"] == "thread_name"}
                    self.assertTrue({"phases", "main"} <= lanes, lanes)
                    if run == "cold":
                        self.assertIn("network", lanes)
                        self.assertTrue(any(x.startswith("worker ") for x in lanes), lanes)

    def test_trace_of_a_bench_fixture_in_both_layouts(self):
        # coffee2 (532 real packages, 10,286 files) from the registry npm is
        # configured with; skipped where it cannot be reached
        reg = public_registry()
        if not reg:
            self.skipTest("SKIP: npm's registry cannot be reached")
        src = os.path.join(nubtest.TESTS_DIR, "..", "ci", "bench", "fixtures", "coffee2")
        for layout, lockfile in (("hoisted", "package-lock.json"), ("isolated", "pnpm-lock.yaml")):
            with self.subTest(layout=layout):
                d = os.path.join(self.tmp, "coffee2-" + layout)
                os.makedirs(d)
                shutil.copy(os.path.join(src, "package.json"), d)
                with open(os.path.join(src, lockfile)) as f, open(os.path.join(d, lockfile), "w") as g:
                    g.write(f.read().replace("@@REGISTRY@@", reg.rstrip("/")))
                self.env["npm_config_registry"] = reg
                # each layout cold: with one store, the isolated layout would
                # adopt the trees the hoisted install unpacked
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-" + layout)
                trace, jsonl = os.path.join(d, "t.json"), os.path.join(d, "t.jsonl")
                self.nub("install", "--frozen-lockfile", "--ignore-scripts", cwd=d,
                         env={"NUB_DIAG_TRACE": trace, "NUB_DIAG_FILE": jsonl})
                with open(trace) as f:
                    t = json.load(f)
                with open(jsonl) as f:
                    j = [json.loads(line) for line in f]
                self.assertGreater(validate_trace(self, t, j), 500)

    def test_diff_of_hoisted_and_isolated(self):
        runs = {}
        for layout, lockfile in (("hoisted", "package-lock.v3.json"), ("isolated", None)):
            for f in ("node_modules", "nub.lock", "package-lock.json"):
                p = os.path.join(self.proj, f)
                shutil.rmtree(p) if os.path.isdir(p) else (os.path.exists(p) and os.remove(p))
            self.make_project("basic", lockfile=lockfile)
            self.nub("install", "--node-linker", layout)  # warm the store
            shutil.rmtree(os.path.join(self.proj, "node_modules"))
            runs[layout] = self.run_traced(layout, "--node-linker", layout)[2]
        out = self.nub("diag", "diff", runs["hoisted"], runs["isolated"]).stdout
        self.assertRegex(out, r"phase link +[\d.]+ms +[\d.]+ms +[\d.]+")
        self.assertRegex(out.strip().splitlines()[-1],
                         r"^link: [\d,]+ (vs [\d,]+ )?files, .*; B/A [\d.]+ \(total B/A [\d.]+\)$")
        doc = json.loads(self.nub("diag", "diff", runs["hoisted"], runs["isolated"], "--json").stdout)
        self.assertIn("link", doc["phases"])
        self.assertGreater(doc["phases"]["link"]["ratio"], 0)
        self.assertTrue(doc["verdict"].startswith("link: "))

    def test_report_renders_in_headless_chromium(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        t, j, jsonl = self.run_traced("cold")
        html = os.path.join(self.tmp, "report.html")
        self.nub("diag", "report", jsonl, "-o", html)
        with open(html) as f:
            page = f.read()
        # self-contained: nothing fetched
        self.assertNotRegex(page, r"(src|href)=\"(https?:)?//")
        self.assertNotIn("@import", page)
        browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                        if shutil.which(b)), None)
        if not browser:
            self.skipTest("SKIP: no chromium to render the report in")
        base = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--virtual-time-budget=5000", "--user-data-dir=" + os.path.join(self.tmp, "chr")]
        dom = self.run_cmd(base + ["--dump-dom", "file://" + html]).stdout
        self.assertIn('data-ready="1"', dom)  # the script ran to its end
        self.assertIn('<svg id="tl"', dom)
        self.assertGreater(dom.count('class="span"'), 5)
        for table in ("phases", "tally", "slow", "crit", "kernel"):
            m = re.search(r'<table id="%s">(.*?)</table>' % table, dom, re.S)
            self.assertIsNotNone(m, table)
            self.assertGreater(m.group(1).count("<tr>"), 1, table)
        png = os.path.join(self.tmp, "report.png")
        self.run_cmd(base + ["--window-size=1000,1400", "--screenshot=" + png, "file://" + html])
        self.assertGreater(distinct_colors(png), 8, "the screenshot is blank")
        out = os.environ.get("NUB_REPORT_PNG")
        if out:
            shutil.copy(png, out)


def public_registry():
    """npm's configured registry when it answers, else None."""
    import subprocess
    import urllib.error
    import urllib.request
    if not nubtest.tool("npm"):
        return None
    url = subprocess.run(["npm", "config", "get", "registry"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
    if not url.startswith("http"):
        return None
    try:
        urllib.request.urlopen(url.rstrip("/") + "/-/ping", timeout=10).read()
    except urllib.error.HTTPError:
        pass
    except Exception:
        return None
    return url if url.endswith("/") else url + "/"


def distinct_colors(path):
    """How many distinct pixel rows a PNG has (0 for a blank one): the PNG
    decoded with zlib alone (8-bit RGB/RGBA, no interlace)."""
    import struct
    import zlib
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    bpp = {2: 3, 6: 4}.get(ctype, 3)
    stride = width * bpp + 1
    rows = {raw[i * stride + 1:(i + 1) * stride] for i in range(0, height, 7)}
    return len(rows)


class ManyFilesDiagTest(nubtest.NubTestCase):
    """A package with thousands of files: the JSONL sink's buffer fills up
    and is flushed several times while the link workers write events."""

    NFILES = 4000

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.registry.stop()
        cls.fixtures = tempfile.mkdtemp(prefix="nub-many-", dir=os.environ.get("NUB_TEST_TMP") or None)
        pkg = os.path.join(cls.fixtures, "many@1.0.0")
        os.makedirs(os.path.join(pkg, "files"))
        with open(os.path.join(pkg, "package.json"), "w") as f:
            json.dump({"name": "many", "version": "1.0.0", "license": "MIT"}, f)
        for i in range(cls.NFILES):
            with open(os.path.join(pkg, "files", "f%05d.js" % i), "w") as f:
                f.write("module.exports = %d;\n" % i)
        cls.registry = Registry(cls.fixtures).start()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.fixtures)

    def test_many_link_events(self):
        for k in DIAG_KNOBS:
            self.env.pop(k, None)
        deps = {"many": "1.0.0"}
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "p", "version": "1.0.0", "dependencies": deps})
        self.write_json(os.path.join(self.proj, "package-lock.json"), {
            "name": "p", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {
                "": {"name": "p", "version": "1.0.0", "dependencies": deps},
                "node_modules/many": {
                    "version": "1.0.0",
                    "resolved": self.registry.tarball_url("many", "1.0.0"),
                    "integrity": self.registry.integrity("many", "1.0.0")}}})
        diag = os.path.join(self.tmp, "diag.jsonl")
        proc = self.nub("install", env={"NUB_DIAG_FILE": diag, "NUB_LOG": "debug"})
        self.assertGreater(os.path.getsize(diag), 256 * 1024)
        with open(diag) as f:
            events = [json.loads(line) for line in f.read().splitlines()]
        linker = [e for e in events if e["cat"] == "linker"]
        self.assertEqual(len(linker), self.NFILES + 1)
        self.assertIn("phase:link ", proc.stderr)
        self.assertRegex(proc.stderr, r"phase:link \S+ \(%d files\)" % (self.NFILES + 1))
        self.assertEqual(len(os.listdir(os.path.join(self.proj, "node_modules", "many", "files"))),
                         self.NFILES)


if __name__ == "__main__":
    nubtest.main()
