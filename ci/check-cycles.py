#!/usr/bin/env python3
"""No two files of nub call each other, directly or around a cycle, and no
file calls into a folder above its own or beside it: the
graph of which object file uses a symbol another defines (nm over every
object of the nub binary's libraries and of the binary itself: core, its
cli, diag, platform) must have no cycle.

Usage: ci/check-cycles.py BUILD_DIR [--inject A:B]...
(--inject adds an edge "file A calls file B", e.g. core/cli/cmd_ls:core/cli/main,
to show the check failing on a circle.)"""

import glob
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRCSVWGu":  # global text, data, bss, read-only, common,
            defined.add(name)       # Mach-O other sections, weak, small, unique
    return defined, used


# the targets whose objects make the nub binary (not the tests' or fuzzers')
TARGETS = tuple("core/%s/CMakeFiles/nub_%s.dir" % (f, f) for f in
                ("base", "project", "model", "net", "formats", "store", "install", "cmd")) + (
    "core/CMakeFiles/nub.dir", "diag/CMakeFiles/nub_diag.dir",
    "platform/CMakeFiles/nub_platform.dir")


# The folders from the bottom up; folders of one rank may not call each other.
ORDER = (("platform",), ("diag",), ("core/base",), ("core/project",),
         ("core/model", "core/net"), ("core/formats", "core/store"),
         ("core/install",), ("core/cmd",), ("core/cli",))


def folder(f):
    for group in ORDER:
        for d in group:
            if f.startswith(d + "/"):
                return d
    return f


def rank(f):
    for i, group in enumerate(ORDER):
        if folder(f) in group:
            return i
    return len(ORDER)


def main():
    args = sys.argv[1:]
    build = args[0] if args and not args[0].startswith("--") else "build"
    inject = [a.split(":", 1) for i, a in enumerate(args) if i and args[i - 1] == "--inject"]
    objs = []
    for t in TARGETS:
        objs += glob.glob(os.path.join(build, t, "**", "*.c.o"), recursive=True)
    objs.sort()
    if not any("nub_base.dir" in o for o in objs):
        print("check-cycles: no core objects under %s (build first)" % build, file=sys.stderr)
        return 2
    # "core/cli/main": the source's path, from the object's under its target
    name = {}
    for o in objs:
        for t in TARGETS:
            prefix = os.path.join(build, t) + os.sep
            if o.startswith(prefix):
                top = t.split("/CMakeFiles/")[0]
                name[o] = os.path.join(top, o[len(prefix):][:-len(".c.o")])
    defs, uses = {}, {}
    for o in objs:
        d, u = symbols(o)
        for s in d:
            defs[s] = name[o]
        uses[name[o]] = u
    graph = {m: sorted({defs[s] for s in u if s in defs and defs[s] != m})
             for m, u in uses.items()}
    for a, b in inject:
        graph.setdefault(a, [])
        graph.setdefault(b, [])
        graph[a] = sorted(set(graph[a]) | {b})
    if not any(graph.values()):
        # core's files do call each other: no edge means nm's output was not
        # understood, and a check that sees nothing must not pass
        print("check-cycles: found no calls between core files; is nm's output "
              "what this script expects?", file=sys.stderr)
        return 2
    # Tarjan's strongly connected components
    index, low, on, stack, sccs, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    # and no file calls one in a folder above its own, or beside it (the
    # build stops such an include; this stops a call through a hand-written
    # declaration)
    upward = []
    for a in sorted(graph):
        for b in graph[a]:
            ra, rb = rank(a), rank(b)
            if rb > ra or (rb == ra and folder(a) != folder(b)):
                upward.append("%s -> %s" % (a, b))
    for e in upward:
        print("check-cycles: a call against the folders' order: %s" % e, file=sys.stderr)
    if sccs:
        for c in sccs:
            edges = ["%s -> %s" % (a, b) for a in c for b in graph[a] if b in c]
            print("check-cycles: these files call each other: %s (%s)"
                  % (", ".join(c), "; ".join(edges)), file=sys.stderr)
        return 1
    if upward:
        return 1
    print("check-cycles: ok (%d files of core, cli, diag and platform; no call cycle, "
          "none against the folders' order)"
          % len(graph))
    return 0


if __name__ == "__main__":
    sys.exit(main())
