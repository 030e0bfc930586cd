#!/usr/bin/env python3
"""Interleaved timing of short commands (a no-op install takes ~3 ms).

hyperfine runs all the runs of one command before the next, and a wrapper
shell or `env` costs about as much as the command itself. This driver
spawns each command directly (posix_spawn, so no copy of the driver's
memory is timed), one run of every command per round, the
order rotated and reversed as ci/bench_rr.py does, and reports the median wall time and the median
CPU time (user + system, from wait4) of each. Every run must exit 0.

usage: bench_noop.py --runs N [--warmup W] [--json OUT] NAME DIR ENV COMMAND...
   where each command is given as four arguments: a name, the directory to
   run it in, "K=V,K=V" environment additions ("-" for none), and the
   command line (split on spaces)."""
import argparse
import json
import os
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("quads", nargs="+")
    a = ap.parse_args()
    if len(a.quads) % 4:
        sys.exit("bench_noop: arguments come in NAME DIR ENV COMMAND quadruples")
    cmds = []
    for i in range(0, len(a.quads), 4):
        name, d, envs, line = a.quads[i:i + 4]
        env = dict(os.environ)
        if envs != "-":
            for kv in envs.split(","):
                k, v = kv.split("=", 1)
                env[k] = v
        d = os.path.abspath(d)
        argv = line.split()
        cmds.append((name, d, env, argv))
    quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]  # stdout away
    wall = {c[0]: [] for c in cmds}
    cpu = {c[0]: [] for c in cmds}
    for rnd in range(a.warmup + a.runs):
        k = (rnd // 2) % len(cmds)
        order = cmds[k:] + cmds[:k]
        if rnd % 2:
            order.reverse()  # as ci/bench_rr.py: no fixed predecessor
        for name, d, env, argv in order:
            os.chdir(d)  # posix_spawn has no chdir; the child inherits ours
            t0 = time.perf_counter_ns()
            pid = os.posix_spawn(argv[0], argv, env, file_actions=quiet)
            _, status, ru = os.wait4(pid, 0)
            t1 = time.perf_counter_ns()
            if status != 0:
                sys.exit("bench_noop: %s exited with %d" % (name, os.waitstatus_to_exitcode(status)))
            if rnd >= a.warmup:
                wall[name].append((t1 - t0) / 1e9)
                cpu[name].append(ru.ru_utime + ru.ru_stime)
    if a.json:
        json.dump({"runs": a.runs, "wall": wall, "cpu": cpu}, open(a.json, "w"), indent=1)
    for name, _, _, _ in cmds:
        print("%-24s wall %7.3f ms  cpu %7.3f ms" % (
            name, statistics.median(wall[name]) * 1e3, statistics.median(cpu[name]) * 1e3))


if __name__ == "__main__":
    main()
