#!/usr/bin/env python3
"""Round-robin benchmark driver over hyperfine.

hyperfine runs all the runs of one command, then all of the next. On these
machines that order is not neutral: deleting a node_modules leaves the file
system slower to allocate near it for a minute, so whoever runs later in a
block pays for the deletions before it. This driver calls hyperfine once
per round with one run of every command, rotating the order every two
rounds and reversing it every other round, and aggregates: every command
runs in every position equally often (when the rounds are a multiple of
twice the commands), after each of its neighbours in the list as often as
before it. With more than three commands a command never directly follows
one two places away in the list: put the pairs to compare side by side.

usage: bench_rr.py --rounds N --warmup W --json OUT  NAME PREPARE COMMAND [NAME PREPARE COMMAND ...]
Every run's exit code is checked (hyperfine fails on a non-zero exit).
Prints one line per command: name, median, min, max (seconds)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--json", required=True)
    ap.add_argument("--no-shell", action="store_true", help="pass -N to hyperfine")
    ap.add_argument("triples", nargs="+")
    a = ap.parse_args()
    if len(a.triples) % 3:
        sys.exit("bench_rr: arguments come in NAME PREPARE COMMAND triples")
    cmds = [tuple(a.triples[i:i + 3]) for i in range(0, len(a.triples), 3)]
    times = {name: [] for name, _, _ in cmds}
    cpu = {name: [] for name, _, _ in cmds}  # user + system of each run
    for rnd in range(a.warmup + a.rounds):
        # rotating alone keeps every command's predecessor the same (the
        # order is cyclic); every other round runs the rotation backwards
        k = (rnd // 2) % len(cmds)
        order = cmds[k:] + cmds[:k]
        if rnd % 2:
            order.reverse()
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tf:
            out = tf.name
        hf = ["hyperfine", "--runs", "1", "--style", "none", "--export-json", out]
        if a.no_shell:
            hf.append("-N")
        for name, prep, cmd in order:
            if prep:
                hf += ["--prepare", prep]
            else:
                hf += ["--prepare", "true"]
            hf += ["-n", name, cmd]
        subprocess.run(hf, check=True, stdout=subprocess.DEVNULL)
        res = json.load(open(out))["results"]
        os.unlink(out)
        for r in res:
            bad = [c for c in r.get("exit_codes", []) if c]
            if bad:
                sys.exit("bench_rr: %s exited %s" % (r["command"], bad))
            if rnd >= a.warmup:
                times[r["command"]].extend(r["times"])
                cpu[r["command"]].append(r["user"] + r["system"])
    json.dump({"rounds": a.rounds, "times": times, "cpu": cpu}, open(a.json, "w"), indent=1)
    for name, _, _ in cmds:
        t = times[name]
        print("%-20s %9.4f %9.4f %9.4f" % (name, statistics.median(t), min(t), max(t)))


if __name__ == "__main__":
    main()
