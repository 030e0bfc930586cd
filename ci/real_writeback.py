#!/usr/bin/env python3
"""Real projects' own lockfiles written back: nub's add, remove and update
against the incumbent's same command, from the same files, byte for byte.

For each project under tests/fixtures/real-projects/<dir>/ whose format nub
writes as its tool does (package-lock.json so far), four commands, each in
two fresh copies (the registry npm's configuration names substituted):

  add a new leaf             nub add <leaf>        npm install <leaf>
  add a package the tree     nub add <name>        npm install <name>
  has (not a direct one)
  remove a direct one        nub remove <name>     npm uninstall <name>
  update a direct one        nub update <name>     npm update <name>

both with --lockfile-only / --package-lock-only and scripts off, and then
package.json and the lockfile compared: "same bytes", or how many lines
differ (the first ones shown). The names are picked from the files, the
same on every run.

usage: ci/real_writeback.py [--nub PATH] [--keep DIR] [project-dir...]
needs: npm on PATH (ci/tools.sh). Exit status 1 when a file differs or a
command fails, else 0.
"""

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_projects as rp  # noqa: E402  (the corpus, its copies, the registry)

LEAVES = ("is-number", "left-pad", "is-odd", "kleur")


def scenarios(d):
    """[(label, nub argv, npm argv)] for the project in d."""
    pj = json.load(open(os.path.join(d, "package.json")))
    lock = json.load(open(os.path.join(d, "package-lock.json")))
    direct = set()
    for k in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
        direct |= set(pj.get(k) or {})
    tops = sorted(k[len("node_modules/"):] for k, v in lock.get("packages", {}).items()
                  if k.startswith("node_modules/") and "/node_modules/" not in k
                  and not v.get("link"))
    leaf = next(n for n in LEAVES if n not in tops and n not in direct)
    # a registry package the tree has at the top, asked for by nothing direct
    inside = next((n for n in ("semver", "debug", "chalk") if n in tops and n not in direct),
                  next(n for n in tops if n not in direct))
    members = {v.get("name") for k, v in lock.get("packages", {}).items()
               if k and not k.startswith("node_modules/") and "node_modules/" not in k}
    deps = sorted(n for n in direct if n not in members)
    one = deps[0]
    return [("add a new leaf (%s)" % leaf, ["add", leaf], ["install", leaf]),
            ("add one in the tree (%s)" % inside, ["add", inside], ["install", inside]),
            ("remove %s" % one, ["remove", one], ["uninstall", one]),
            ("update %s" % one, ["update", one], ["update", one])]


def run(argv, cwd, log):
    with open(log, "w") as out:
        return subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode


def compare(a, b):
    """Lines of a and b that differ (both files), and the first ones."""
    n, shown = 0, []
    for name in ("package.json", "package-lock.json"):
        x = open(os.path.join(a, name)).read().splitlines()
        y = open(os.path.join(b, name)).read().splitlines()
        for line in difflib.unified_diff(x, y, "npm/" + name, "nub/" + name, n=0, lineterm=""):
            if line.startswith(("+", "-")) and not line.startswith(("+++", "---")):
                n += 1
                if len(shown) < 8:
                    shown.append(line)
    return n, shown


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nub", default=os.path.join(rp.ROOT, "build", "core", "nub"))
    ap.add_argument("--keep", default="")
    ap.add_argument("projects", nargs="*")
    a = ap.parse_args()
    nub = os.path.abspath(a.nub)
    reg = rp.registry()
    dirs = [p if os.path.isdir(p) else os.path.join(rp.CORPUS, p) for p in a.projects] or \
        sorted(os.path.join(rp.CORPUS, d) for d in os.listdir(rp.CORPUS)
               if os.path.exists(os.path.join(rp.CORPUS, d, "package-lock.json")))
    failed = False
    for d in dirs:
        name = os.path.basename(d.rstrip("/"))
        for label, ours_argv, theirs_argv in scenarios(d):
            scratch = tempfile.mkdtemp(prefix="nub-wb-%s-" % name, dir=a.keep or None)
            # the same folder name on both sides: npm records it when
            # package.json has no name
            theirs = os.path.join(scratch, "npm", name)
            ours = os.path.join(scratch, "nub", name)
            rp.copy_project(d, theirs, reg)
            rp.copy_project(d, ours, reg)
            rc_i = run(["npm"] + theirs_argv + ["--package-lock-only", "--ignore-scripts",
                                                 "--no-audit", "--no-fund"],
                       theirs, os.path.join(scratch, "npm.log"))
            rc_n = run([nub] + ours_argv + ["--lockfile-only", "--ignore-scripts"],
                       ours, os.path.join(scratch, "nub.log"))
            if rc_i:
                verdict, shown = "npm failed (%d)" % rc_i, []
            elif rc_n:
                verdict = "nub failed (%d)" % rc_n
                shown = open(os.path.join(scratch, "nub.log")).read().splitlines()[-3:]
            else:
                n, shown = compare(theirs, ours)
                verdict = "same bytes" if n == 0 else "%d lines differ" % n
            failed |= verdict != "same bytes"
            print("%-24s %-40s %s" % (name, label, verdict), flush=True)
            for line in shown:
                print("    " + line[:160])
            if not a.keep:
                shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
