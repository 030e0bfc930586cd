#!/usr/bin/env python3
"""Check core/project/pnpm_settings.c's keys against an installed pnpm:
none of them may be one pnpm reports as "not recognized" in
pnpm-workspace.yaml. Each key is written with the value 1; a key whose
value pnpm rejects (a type, a missing file) is known by that error and
taken out before the next run.

    python3 ci/pnpm-settings.py [path/to/pnpm]     (exit 1: a key pnpm does not know)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(pnpm, d, keys):
    """pnpm install with keys set to 1: (its process, its output); exits
    when pnpm reports one of them as not recognized."""
    with open(os.path.join(d, "pnpm-workspace.yaml"), "w") as f:
        f.write("".join("%s: 1\n" % k for k in keys))
    p = subprocess.run([pnpm, "install", "--offline"], cwd=d, capture_output=True, text=True,
                       timeout=300)
    out = p.stdout + p.stderr
    m = re.search(r"not recognized by this version of pnpm and were ignored: (.*)", out)
    if m:
        print("pnpm-settings: pnpm does not know: %s" % ", ".join(
            re.findall(r'"([^"]+)"(?: \(did you mean "[^"]+"\?\))?', m.group(1))))
        sys.exit(1)
    return p, out


def main():
    pnpm = sys.argv[1] if len(sys.argv) > 1 else shutil.which("pnpm")
    if not pnpm:
        sys.exit("pnpm-settings: no pnpm on PATH")
    with open(os.path.join(ROOT, "core/project/pnpm_settings.c")) as f:
        text = f.read()
    table = text[text.index("keys[] = {"):text.index("};")]
    keys = re.findall(r'"([^"]+)"', table)
    left = sorted(keys)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "package.json"), "w") as f:
            f.write('{"name": "probe", "version": "1.0.0"}\n')
        while left:
            p, out = run(pnpm, d, left)
            if p.returncode == 0:
                break
            line = re.search(r"<input>:(\d+):", out)
            if line:
                left.pop(int(line.group(1)) - 1)
                continue
            # a value pnpm rejects by meaning (a file that is not there):
            # halve until the one key
            some = left
            while len(some) > 1:
                half = some[:len(some) // 2]
                some = half if run(pnpm, d, half)[0].returncode else some[len(some) // 2:]
            left.remove(some[0])
    print("pnpm-settings: ok (%d keys, pnpm %s)" % (
        len(keys), subprocess.run([pnpm, "--version"], capture_output=True,
                                  text=True).stdout.strip()))


if __name__ == "__main__":
    main()
