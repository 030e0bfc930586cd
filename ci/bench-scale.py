#!/usr/bin/env python3
"""How install cost grows with the project: nub (isolated with the global
virtual store, from pnpm-lock.yaml; hoisted, from package-lock.json), bun
(bun.lock), pnpm (pnpm-lock.yaml) and the Rust nub (pnpm-lock.yaml, in
both layouts; left out when npm cannot install it) at every fixture size,
cold, warm and no-op, with peak RSS and user + system time; then the cost
per 1,000 packages, in a Markdown table and an SVG plot, and nub's ratios
to every peer, layout by layout, in a second table.

  cold   every tool's store, caches and node_modules deleted and synced
         before each run (the same file system state whoever ran before);
  warm   stores warm, node_modules deleted (and asserted gone), offline;
  no-op  everything installed: each tool's "up to date" path.

Each round runs every tool once, the order rotated and reversed round by
round (as ci/bench_rr.py); every run must exit 0. Figures are medians.
Each run is spawned directly (no shell); wall time from the clock, peak
RSS and user + system time from wait4.

usage: ci/bench-scale.py [--quick] [--dir DIR] [--out PREFIX] [fixture...]
       (default fixtures: webpack3 coffee2 large huge; BENCH_DIR or --dir
       is the scratch directory, on a journaled ext4, see ci/bench-fs.sh)
  --quick   one cold, two warm and three no-op rounds, webpack3 and large:
            a developer's inner loop (a few minutes)
env: NUB (default build/core/nub), COLD_RUNS (2), RUNS (3), NOOP_RUNS (5)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "ci", "bench", "fixtures")
TOOLS = ["nub", "nub-hoisted", "bun", "pnpm", "rnub", "rnub-hoisted"]


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, text=True, capture_output=True, **kw)


def install_peers(tools_dir):
    """bun, pnpm and the Rust nub under their own prefixes (as the other
    benches do, so that the Rust nub's `nub` never shadows ours); the tools
    left out (the Rust nub, when npm cannot install it)."""
    out = []
    for name, exe_name, spec in (("bun", "bun", "bun@1.4.5"), ("pnpm", "pnpm", "pnpm@12.23.0"),
                                 ("rnub", "nub", "@nubjs/nub")):
        exe = os.path.join(tools_dir, name, "bin", exe_name)
        if not os.access(exe, os.X_OK):
            r = subprocess.run(["npm", "i", "-g", "--prefix", os.path.join(tools_dir, name), spec,
                                "--no-audit", "--no-fund"], capture_output=True, text=True)
            if r.returncode != 0 and name == "rnub":
                print("bench-scale: cannot install %s; the Rust nub is left out" % spec)
                out += ["rnub", "rnub-hoisted"]
            elif r.returncode != 0:
                sys.exit("bench-scale: cannot install %s:\n%s" % (spec, r.stderr[-2000:]))
    return out


class Tool:
    def __init__(self, name, bench, fx, registry, nub, tools_dir):
        self.name = name
        self.dir = os.path.join(bench, fx, name)
        self.cache = os.path.join(bench, "cache", name)
        src = os.path.join(FIXTURES, fx)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        for f in ("package.json", ".npmrc"):
            if os.path.exists(os.path.join(src, f)):
                shutil.copy(os.path.join(src, f), self.dir)
        lock = {"nub": "pnpm-lock.yaml", "nub-hoisted": "package-lock.json",
                "bun": "bun.lock", "pnpm": "pnpm-lock.yaml", "rnub": "pnpm-lock.yaml",
                "rnub-hoisted": "pnpm-lock.yaml"}[name]
        with open(os.path.join(src, lock)) as f:
            text = f.read().replace("@@REGISTRY@@", registry)
        with open(os.path.join(self.dir, lock), "w") as f:
            f.write(text)
        self.env = dict(os.environ, npm_config_registry=registry + "/",
                        npm_config_audit="false", npm_config_fund="false")
        self.env.pop("CI", None)
        if name.startswith("nub"):
            self.env["NUB_STORE_DIR"] = self.cache
            self.argv = [nub, "install", "--frozen-lockfile", "--ignore-scripts", "-s"]
            if name == "nub-hoisted":
                self.argv += ["--node-linker", "hoisted"]
        elif name.startswith("rnub"):
            self.env.update(XDG_DATA_HOME=self.cache + "/data", XDG_CACHE_HOME=self.cache + "/cache")
            self.argv = [os.path.join(tools_dir, "rnub", "bin", "nub"), "install",
                         "--frozen-lockfile", "--ignore-scripts"]
            if name == "rnub-hoisted":
                self.argv += ["--node-linker", "hoisted"]
        elif name == "bun":
            self.env["BUN_INSTALL_CACHE_DIR"] = self.cache
            self.argv = [os.path.join(tools_dir, "bun", "bin", "bun"), "install",
                         "--frozen-lockfile", "--ignore-scripts"]
        else:
            # pnpm 12 reads neither npm_config_store_dir nor npm_config_cache_dir:
            # its flags, or a "cold" run would use a warm shared store
            self.env.update(XDG_CACHE_HOME=self.cache + "/xdg")
            self.argv = [os.path.join(tools_dir, "pnpm", "bin", "pnpm"), "install",
                         "--frozen-lockfile", "--ignore-scripts",
                         "--store-dir", self.cache + "/store", "--cache-dir", self.cache + "/cache"]

    def command(self, offline):
        argv = list(self.argv)
        if offline and self.name != "bun":  # bun has no --offline; its cache is warm
            argv.append("--offline")
        return argv

    def run(self, offline):
        """One timed run: (wall s, user+sys s, peak RSS MB), from wait4."""
        log = os.path.join(self.dir, ".log")
        argv = self.command(offline)
        acts = [(os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
                (os.POSIX_SPAWN_DUP2, 1, 2)]
        here = os.getcwd()
        os.chdir(self.dir)  # posix_spawn has no chdir; the child inherits ours
        try:
            t0 = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, self.env, file_actions=acts)
            _, status, ru = os.wait4(pid, 0)
            wall = time.perf_counter() - t0
        finally:
            os.chdir(here)
        if status != 0:
            with open(log) as f:
                tail = f.read()[-3000:]
            sys.exit("bench-scale: %s in %s exited %d:\n%s" %
                     (self.name, self.dir, os.waitstatus_to_exitcode(status), tail))
        return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024

    def clean(self):
        shutil.rmtree(os.path.join(self.dir, "node_modules"), ignore_errors=True)
        if os.path.exists(os.path.join(self.dir, "node_modules")):
            sys.exit("bench-scale: node_modules is still there in " + self.dir)


def rounds(tools, n, prepare, offline):
    """n rotated rounds; per tool the list of (wall, cpu, rss)."""
    res = {t.name: [] for t in tools}
    for r in range(n):
        k = (r // 2) % len(tools)
        order = tools[k:] + tools[:k]
        if r % 2:
            order = order[::-1]
        for t in order:
            prepare(t)
            res[t.name].append(t.run(offline))
    return res


def packages_of(fx):
    with open(os.path.join(FIXTURES, fx, "package-lock.json")) as f:
        lock = json.load(f)
    if "packages" in lock:
        return sum(1 for k in lock["packages"] if k)
    n = 0
    stack = [lock.get("dependencies", {})]
    while stack:
        deps = stack.pop()
        n += len(deps)
        stack.extend(d.get("dependencies", {}) for d in deps.values())
    return n


def med(v, i):
    return statistics.median(x[i] for x in v)


def svg_plot(rows, path):
    """Cost per 1,000 packages against the fixture's size, warm and cold,
    one line per tool (log-free: the sizes are few)."""
    colors = {"nub": "#1b7837", "nub-hoisted": "#7fbf7b", "bun": "#c51b7d", "pnpm": "#2166ac",
              "rnub": "#e08214", "rnub-hoisted": "#fdb863"}
    w, h, pad = 720, 300, 50
    panels = [("cold", "cold, s per 1,000 packages"), ("warm", "warm, s per 1,000 packages")]
    sizes = sorted({r["packages"] for r in rows})
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (w, h * len(panels))]
    for p, (key, title) in enumerate(panels):
        y0 = p * h
        vals = [r[key] / r["packages"] * 1000 for r in rows if r.get(key)]
        top = max(vals) * 1.15 if vals else 1
        xmax = max(sizes) * 1.05

        def X(n):
            return pad + (w - 2 * pad) * n / xmax

        def Y(v):
            return y0 + h - pad + -(h - 2 * pad) * v / top

        out.append('<text x="%d" y="%d" font-size="13">%s</text>' % (pad, y0 + 20, title))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' %
                   (pad, Y(0), w - pad, Y(0)))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' %
                   (pad, Y(0), pad, Y(top)))
        for n in sizes:
            out.append('<text x="%.0f" y="%.0f" text-anchor="middle">%d</text>' %
                       (X(n), Y(0) + 15, n))
        for i in range(5):
            v = top * i / 4
            out.append('<text x="%d" y="%.0f" text-anchor="end">%.2f</text>' %
                       (pad - 4, Y(v) + 4, v))
        for ti, tool in enumerate(TOOLS):
            pts = [(r["packages"], r[key] / r["packages"] * 1000) for r in rows
                   if r["tool"] == tool and r.get(key)]
            pts.sort()
            if not pts:
                continue
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' %
                       (colors[tool], " ".join("%.1f,%.1f" % (X(n), Y(v)) for n, v in pts)))
            out.append('<text x="%d" y="%d" fill="%s">%s</text>' %
                       (w - pad - 80, y0 + 40 + 14 * ti, colors[tool], tool))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--dir", default=os.environ.get("BENCH_DIR",
                                                    os.path.join(ROOT, "build", "bench-scale")))
    ap.add_argument("--out", help="write PREFIX.md, PREFIX.json and PREFIX.svg")
    ap.add_argument("fixtures", nargs="*")
    a = ap.parse_args()
    fixtures = a.fixtures or (["webpack3", "large"] if a.quick else
                              ["webpack3", "coffee2", "large", "huge"])
    cold_runs = 1 if a.quick else int(os.environ.get("COLD_RUNS", "2"))
    warm_runs = 2 if a.quick else int(os.environ.get("RUNS", "3"))
    noop_runs = 3 if a.quick else int(os.environ.get("NOOP_RUNS", "5"))
    nub = os.path.abspath(os.environ.get("NUB", os.path.join(ROOT, "build", "core", "nub")))
    registry = sh("npm config get registry").stdout.strip().rstrip("/")
    bench = os.path.abspath(a.dir)
    tools_dir = os.path.join(bench, "tools")
    os.makedirs(bench, exist_ok=True)
    tool_names = [t for t in TOOLS if t not in install_peers(tools_dir)]

    rows = []
    for fx in fixtures:
        n = packages_of(fx)
        print("=== %s (%d packages in npm's tree) ===" % (fx, n), flush=True)
        tools = [Tool(t, bench, fx, registry, nub, tools_dir) for t in tool_names]

        def cold_prep(t):
            for u in tools:  # the same file system state whoever ran before
                u.clean()
            shutil.rmtree(os.path.join(bench, "cache"), ignore_errors=True)
            os.sync()

        cold = rounds(tools, cold_runs, cold_prep, False)
        for t in tools:  # fill the stores for warm and no-op
            t.clean()
            t.run(False)
        warm = rounds(tools, warm_runs, lambda t: t.clean(), True)
        for t in tools:
            t.run(True)
        noop = rounds(tools, noop_runs, lambda t: None, True)
        for t in tools:
            rows.append({"fixture": fx, "packages": n, "tool": t.name,
                         "cold": med(cold[t.name], 0), "cold_cpu": med(cold[t.name], 1),
                         "cold_rss": med(cold[t.name], 2), "warm": med(warm[t.name], 0),
                         "warm_cpu": med(warm[t.name], 1), "warm_rss": med(warm[t.name], 2),
                         "noop": med(noop[t.name], 0)})
        for t in tools:
            shutil.rmtree(t.dir, ignore_errors=True)
        shutil.rmtree(os.path.join(bench, "cache"), ignore_errors=True)

    lines = ["| fixture | packages | tool | cold s | cold CPU s | cold peak RSS MB | warm s | "
             "warm CPU s | no-op s | cold ms / 1k pkgs | warm ms / 1k pkgs | RSS MB / 1k pkgs | "
             "cold vs bun | warm vs bun |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        bun = next(x for x in rows if x["fixture"] == r["fixture"] and x["tool"] == "bun")
        k = r["packages"] / 1000
        lines.append("| %s | %d | %s | %.3f | %.2f | %.0f | %.3f | %.2f | %.4f | %.0f | %.0f | %.1f "
                     "| %.2f | %.2f |" %
                     (r["fixture"], r["packages"], r["tool"], r["cold"], r["cold_cpu"],
                      r["cold_rss"], r["warm"], r["warm_cpu"], r["noop"], r["cold"] * 1000 / k,
                      r["warm"] * 1000 / k, r["cold_rss"] / k, r["cold"] / bun["cold"],
                      r["warm"] / bun["warm"]))
    # nub's ratios, layout by layout: bun and pnpm build one layout each
    # (bun hoisted, pnpm isolated here) and stand against both of nub's; the
    # Rust nub against the same layout
    lines += ["", "| fixture | nub layout | peer | cold | cold CPU | cold peak RSS | warm | no-op |",
              "|---|---|---|---|---|---|---|---|"]
    for fx in fixtures:
        by = {r["tool"]: r for r in rows if r["fixture"] == fx}
        for mine, layout in (("nub", "isolated"), ("nub-hoisted", "hoisted")):
            same = "rnub" if mine == "nub" else "rnub-hoisted"
            for peer in ("bun", "pnpm", same):
                if peer not in by:
                    continue
                n, q = by[mine], by[peer]
                lines.append("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.3f |" %
                             (fx, layout, peer, n["cold"] / q["cold"],
                              n["cold_cpu"] / q["cold_cpu"], n["cold_rss"] / q["cold_rss"],
                              n["warm"] / q["warm"], n["noop"] / q["noop"]))
    table = "\n".join(lines)
    print(table)
    if a.out:
        with open(a.out + ".md", "w") as f:
            f.write(table + "\n")
        with open(a.out + ".json", "w") as f:
            json.dump(rows, f, indent=1)
        svg_plot(rows, a.out + ".svg")


if __name__ == "__main__":
    main()
