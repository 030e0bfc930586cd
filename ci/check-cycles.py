#!/usr/bin/env python3
"""No two files of core/ call each other, directly or around a cycle: the
graph of which object file uses a symbol another defines (nm over the built
objects) must have no cycle. Usage: ci/check-cycles.py BUILD_DIR"""

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


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    objs = sorted(glob.glob(os.path.join(build, "core", "CMakeFiles", "nub_core.dir", "*.c.o")))
    if not objs:
        print("check-cycles: no core objects under %s (build first)" % build, file=sys.stderr)
        return 2
    name = {o: os.path.basename(o)[:-len(".c.o")] for o in objs}
    defs, uses = {}, {}
    for o in objs:
        d, u = symbols(o)
        for s in d:
            defs[s] = name[o]
        uses[name[o]] = u
    graph = {m: sorted({defs[s] for s in u if s in defs and defs[s] != m})
             for m, u in uses.items()}
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
    if sccs:
        for c in sccs:
            edges = ["%s -> %s" % (a, b) for a in c for b in graph[a] if b in c]
            print("check-cycles: these core files call each other: %s (%s)"
                  % (", ".join(c), "; ".join(edges)), file=sys.stderr)
        return 1
    print("check-cycles: ok (%d core files, no call cycle)" % len(graph))
    return 0


if __name__ == "__main__":
    sys.exit(main())
