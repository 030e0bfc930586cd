#!/usr/bin/env python3
"""Real projects' own lockfiles written back: nub's add, remove and update
against the incumbent's same command, from the same files, byte for byte.

For each project under tests/fixtures/real-projects/<dir>/ with
package-lock.json, a yarn 1 yarn.lock, bun.lock or pnpm-lock.yaml, four
commands, each in two fresh
copies (the registry npm's configuration names substituted):

  add a new leaf             nub add <leaf>      npm install <leaf>    yarn add <leaf>
  add a package the tree     nub add <name>      npm install <name>    yarn add <name>
  has (not a direct one)
  remove a direct one        nub remove <name>   npm uninstall <name>  yarn remove <name>
  update a direct one        nub update <name>   npm update <name>     yarn upgrade <name>

(bun and pnpm: add, remove, update; pnpm with --lockfile-only and -w in a
workspace)
(nub with --lockfile-only, npm with --package-lock-only, yarn installing;
scripts off; yarn's -W at a workspace root), and then package.json and the
lockfile compared: "same bytes", or how many lines differ (the first ones
shown). The names are picked from the files, the same on every run.

usage: ci/real_writeback.py [--nub PATH] [--keep DIR] [project-dir...]
needs: npm, yarn 1, bun and pnpm on PATH (ci/tools.sh). Exit status 1 when a file differs or a
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


def lock_names(d, fmt):
    """The package names the lockfile holds (npm: at the top of the tree),
    and the workspace members' names."""
    if fmt == "npm":
        lock = json.load(open(os.path.join(d, "package-lock.json")))
        pk = lock.get("packages", {})
        tops = {k[len("node_modules/"):] for k, v in pk.items()
                if k.startswith("node_modules/") and "/node_modules/" not in k
                and not v.get("link")}
        members = {v.get("name") for k, v in pk.items()
                   if k and not k.startswith("node_modules/") and "node_modules/" not in k}
        return tops, members
    names = set()
    if fmt == "pnpm":
        import re
        text = open(os.path.join(d, "pnpm-lock.yaml")).read()
        m = re.search(r"\npackages:\n(.*?)\nsnapshots:", text, re.S)
        for k in re.findall(r"\n  '?((?:@[^@/\s]+/)?[^@\s']+)@", m.group(1) if m else ""):
            names.add(k)
        members = set()
        return names, members
    if fmt == "bun":
        import re
        text = open(os.path.join(d, "bun.lock")).read()
        for m in re.finditer(r'\n    "[^"]+": \["((?:@[^@"/]+/)?[^@"]+)@', text):
            names.add(m.group(1))
        members = set(re.findall(r'\n    "[^"]+": \{\n      "name": "([^"]+)"', text))
        return names, members
    for line in open(os.path.join(d, "yarn.lock")):
        if line and not line[0].isspace() and not line.startswith("#") and line.rstrip().endswith(":"):
            for pat in line.rstrip()[:-1].split(", "):
                pat = pat.strip('"')
                names.add(pat[:pat.index("@", 1)] if "@" in pat[1:] else pat)
    pj = json.load(open(os.path.join(d, "package.json")))
    members = set()
    for glob_ in (pj.get("workspaces") or []) if isinstance(pj.get("workspaces"), list) else \
            (pj.get("workspaces") or {}).get("packages", []):
        import glob
        for m in glob.glob(os.path.join(d, glob_, "package.json")):
            members.add(json.load(open(m)).get("name"))
    return names, members


def scenarios(d, fmt):
    """[(label, nub argv, incumbent argv)] for the project in d."""
    pj = json.load(open(os.path.join(d, "package.json")))
    direct, linked = set(), set()
    for k in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
        direct |= set(pj.get(k) or {})
        linked |= {n for n, v in (pj.get(k) or {}).items()
                   if isinstance(v, str) and v.startswith(("workspace:", "file:", "link:"))}
    tops, members = lock_names(d, fmt)
    leaf = next(n for n in LEAVES if n not in tops and n not in direct)
    # a registry package the tree has, asked for by nothing direct
    inside = next((n for n in ("semver", "debug", "chalk") if n in tops and n not in direct),
                  next(n for n in sorted(tops) if n not in direct))
    one = sorted(n for n in direct if n not in members and n not in linked)[0]
    if fmt == "npm":
        verbs = ("install", "install", "uninstall", "update")
    elif fmt in ("bun", "pnpm"):
        verbs = ("add", "add", "remove", "update")
    else:
        verbs = ("add", "add", "remove", "upgrade")
    return [("add a new leaf (%s)" % leaf, ["add", leaf], [verbs[0], leaf]),
            ("add one in the tree (%s)" % inside, ["add", inside], [verbs[1], inside]),
            ("remove %s" % one, ["remove", one], [verbs[2], one]),
            ("update %s" % one, ["update", one], [verbs[3], one])]


def incumbent_argv(fmt, argv, proj, scratch, reg):
    if fmt == "npm":
        return ["npm"] + argv + ["--package-lock-only", "--ignore-scripts", "--no-audit",
                                 "--no-fund"]
    if fmt == "pnpm":
        return ["pnpm"] + argv + (["-w"] if os.path.exists(os.path.join(proj, "pnpm-workspace.yaml"))
                                  and argv[0] in ("add", "remove") else []) + \
            ["--lockfile-only", "--ignore-scripts", "--store-dir",
             os.path.join(scratch, "pnpm-store"), "--registry", reg + "/",
             "--config.manage-package-manager-versions=false", "--config.pm-on-fail=ignore"]
    if fmt == "bun":
        return ["env", "BUN_INSTALL_CACHE_DIR=" + os.path.join(scratch, "bun-cache"),
                "NPM_CONFIG_REGISTRY=" + reg + "/", "bun"] + argv + ["--ignore-scripts"]
    pj = json.load(open(os.path.join(proj, "package.json")))
    root = ["-W"] if pj.get("workspaces") and argv[0] in ("add", "remove") else []
    return ["yarn"] + argv + root + ["--ignore-scripts", "--non-interactive", "--registry",
                                     reg + "/", "--cache-folder",
                                     os.path.join(scratch, "yarn-cache")]


def run(argv, cwd, log):
    with open(log, "w") as out:
        return subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode


def compare(a, b, lockname):
    """Lines of a and b that differ (both files), and the first ones."""
    n, shown = 0, []
    for name in ("package.json", lockname):
        x = open(os.path.join(a, name)).read().splitlines()
        y = open(os.path.join(b, name)).read().splitlines()
        for line in difflib.unified_diff(x, y, "incumbent/" + name, "nub/" + name, n=0, lineterm=""):
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
               if rp.fmt_of(os.path.join(rp.CORPUS, d)) in ("npm", "yarn", "bun", "pnpm"))
    failed = False
    for d in dirs:
        name = os.path.basename(d.rstrip("/"))
        fmt = rp.fmt_of(d)
        lockname = {"npm": "package-lock.json", "bun": "bun.lock",
                    "pnpm": "pnpm-lock.yaml"}.get(fmt, "yarn.lock")
        for label, ours_argv, theirs_argv in scenarios(d, fmt):
            scratch = tempfile.mkdtemp(prefix="nub-wb-%s-" % name, dir=a.keep or None)
            # the same folder name on both sides: npm records it when
            # package.json has no name
            theirs = os.path.join(scratch, "incumbent", name)
            ours = os.path.join(scratch, "nub", name)
            rp.copy_project(d, theirs, reg)
            rp.copy_project(d, ours, reg)
            rc_i = run(incumbent_argv(fmt, theirs_argv, theirs, scratch, reg), theirs,
                       os.path.join(scratch, "incumbent.log"))
            rc_n = run([nub] + ours_argv + ["--lockfile-only", "--ignore-scripts"],
                       ours, os.path.join(scratch, "nub.log"))
            if rc_i:
                verdict = "incumbent failed (%d)" % rc_i
                shown = open(os.path.join(scratch, "incumbent.log")).read().splitlines()[-3:]
            elif rc_n:
                verdict = "nub failed (%d)" % rc_n
                shown = open(os.path.join(scratch, "nub.log")).read().splitlines()[-3:]
            else:
                n, shown = compare(theirs, ours, lockname)
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
