#!/usr/bin/env python3
"""Real projects' own lockfiles: the incumbent's frozen install against
nub's, from the same files, path by path (ci/real-projects.sh runs this).

For each project under tests/fixtures/real-projects/<dir>/ (its lockfile,
its package.json files and the configuration an install reads, the
registry written as @@REGISTRY@@), in two scratch copies with the
registry npm's configuration names:

  the incumbent   npm ci / yarn install --frozen-lockfile / yarn install
                  --immutable (berry) / bun install --frozen-lockfile /
                  pnpm install --frozen-lockfile, scripts off, caches cold
  nub             nub install --frozen-lockfile --ignore-scripts, store cold,
                  then again offline from its store (node_modules removed)

and then:
  hoisted formats every path under every node_modules (the project's and
                  its members'): its type, a file's bytes (SHA-256) and
                  executable bit, a link's target; the tools' own
                  bookkeeping left out
  pnpm            the graph as Node sees it: from each importer and from the
                  real folder of every package reached, what each declared
                  dependency resolves to (name@version), by Node's lookup
and one table: project, format, packages, equal or the count of paths that
differ (the first ones listed), each tool's cold time and peak RSS.

usage: ci/real_projects.py [--nub PATH] [--only SUBSTR] [--offline-check]
                           [--keep DIR] [project-dir...]
needs: the tools of ci/tools.sh on PATH (NUB_BERRY for berry; with NUB_NPM12,
npm projects are installed by npm 12 too and compared the same way).
Exit status 1 when a project differs (or an install fails), else 0.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "fixtures", "real-projects")
PLACEHOLDER = "@@REGISTRY@@"
# what each tool keeps for itself inside node_modules
BOOKKEEPING = re.compile(r"(^|/)node_modules/(\.package-lock\.json|\.yarn-integrity|"
                         r"\.yarn-state\.yml|\.package-map\.json|\.nub-state|\.modules\.yaml|\.pnpm|\.nub|"
                         r"\.cache|\.bun-tag|\.bun|\.vite|\.bin/\.)")


def registry():
    out = subprocess.run(["npm", "config", "get", "registry"], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout.strip()
    return out.rstrip("/")


def fmt_of(d):
    if os.path.exists(os.path.join(d, "pnpm-lock.yaml")):
        return "pnpm"
    if os.path.exists(os.path.join(d, "bun.lock")):
        return "bun"
    if os.path.exists(os.path.join(d, "package-lock.json")):
        return "npm"
    if os.path.exists(os.path.join(d, "npm-shrinkwrap.json")):
        return "npm"
    if os.path.exists(os.path.join(d, "yarn.lock")):
        with open(os.path.join(d, "yarn.lock")) as f:
            return "berry" if "__metadata:" in f.read(4096) else "yarn"
    return None


def copy_project(src, dst, reg):
    shutil.copytree(src, dst, symlinks=True)
    for dirpath, _, files in os.walk(dst):
        for name in files:
            p = os.path.join(dirpath, name)
            try:
                with open(p) as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue
            if PLACEHOLDER in text:
                with open(p, "w") as f:
                    f.write(text.replace(PLACEHOLDER, reg))


def packages_in_lock(d, fmt):
    try:
        if fmt == "npm":
            name = "package-lock.json" if os.path.exists(os.path.join(d, "package-lock.json")) \
                else "npm-shrinkwrap.json"
            with open(os.path.join(d, name)) as f:
                return sum(1 for k in json.load(f).get("packages", {}) if "node_modules/" in k)
        text = open(os.path.join(d, {"pnpm": "pnpm-lock.yaml", "bun": "bun.lock",
                                      "yarn": "yarn.lock", "berry": "yarn.lock"}[fmt])).read()
        if fmt == "pnpm":
            m = re.search(r"\npackages:\n(.*?)\nsnapshots:", text, re.S)
            return len(re.findall(r"\n  \S", m.group(1))) if m else 0
        if fmt == "bun":
            m = text.find('"packages": {')
            return len(re.findall(r'\n    "[^"]+": \[', text[m:])) if m >= 0 else 0
        return len(re.findall(r"\n\S[^\n]*:\n", text))
    except (OSError, ValueError):
        return 0


def gnu_time():
    """GNU time's path, or None (macOS's time has no -f)."""
    try:
        out = subprocess.run(["/usr/bin/time", "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True).stdout
    except OSError:
        return None
    return "/usr/bin/time" if "GNU" in out else None


GNU_TIME = gnu_time()


def timed(argv, cwd, env, log):
    """Run argv: (exit status, seconds, peak RSS in MB). Under GNU time where
    there is one: a child forked from this process keeps this process's
    peak RSS in its own across exec (Linux), so wait4 alone would report at
    least the harness's size; elsewhere wait4's figure."""
    t0 = time.monotonic()
    rss_file = log + ".rss"
    if GNU_TIME:
        argv = [GNU_TIME, "-o", rss_file, "-f", "%M"] + argv
    with open(log, "w") as out:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    secs = time.monotonic() - t0
    if GNU_TIME:
        try:
            return p.returncode, secs, int(open(rss_file).read().split()[-1]) / 1024.0
        except (OSError, ValueError, IndexError):
            return p.returncode, secs, 0.0
    unit = 1024.0 * 1024.0 if sys.platform == "darwin" else 1024.0
    return p.returncode, secs, usage.ru_maxrss / unit


def tool_env(base, scratch, reg):
    env = {k: v for k, v in os.environ.items()
           if not k.lower().startswith(("npm_config_", "yarn_", "bun_", "pnpm_", "nub_"))}
    home = os.path.join(scratch, "home")
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, ".npmrc"), "w") as f:
        f.write("registry=%s/\n" % reg)
    env.update({"HOME": home, "XDG_CACHE_HOME": os.path.join(scratch, "cache"),
                "XDG_DATA_HOME": os.path.join(scratch, "data"),
                "XDG_CONFIG_HOME": os.path.join(scratch, "config"),
                "npm_config_cache": os.path.join(scratch, "npm-cache"),
                "npm_config_registry": reg + "/", "npm_config_audit": "false",
                "npm_config_fund": "false", "npm_config_update_notifier": "false",
                "NO_COLOR": "1"})
    env.pop("CI", None)
    env.update(base)
    return env


def incumbent(fmt, proj, scratch, reg, log):
    if fmt == "npm":
        argv, env = ["npm", "ci", "--ignore-scripts"], {}
    elif fmt == "pnpm":
        # (the project's packageManager names another pnpm: this one installs)
        argv = ["pnpm", "install", "--frozen-lockfile", "--ignore-scripts", "--store-dir",
                os.path.join(scratch, "pnpm-store"), "--registry", reg + "/",
                "--config.manage-package-manager-versions=false", "--config.pm-on-fail=ignore"]
        env = {}
    elif fmt == "bun":
        argv = ["bun", "install", "--frozen-lockfile", "--ignore-scripts"]
        env = {"BUN_INSTALL_CACHE_DIR": os.path.join(scratch, "bun-cache"),
               "NPM_CONFIG_REGISTRY": reg + "/"}
    elif fmt == "yarn":
        argv = ["yarn", "install", "--frozen-lockfile", "--ignore-scripts", "--non-interactive",
                "--registry", reg + "/", "--cache-folder", os.path.join(scratch, "yarn-cache")]
        env = {}
    else:
        argv = ["node", os.environ.get("NUB_BERRY", "yarn"), "install", "--immutable",
                "--mode=skip-build"]
        env = {"YARN_IGNORE_PATH": "1", "YARN_NPM_REGISTRY_SERVER": reg,
               "YARN_ENABLE_GLOBAL_CACHE": "0", "YARN_ENABLE_TELEMETRY": "0",
               "YARN_CACHE_FOLDER": os.path.join(scratch, "berry-cache"),
               "YARN_ENABLE_IMMUTABLE_CACHE": "0"}
    return timed(argv, proj, tool_env(env, scratch, reg), log)


def nub_install(nub, proj, scratch, reg, log, offline=False):
    env = tool_env({"NUB_STORE_DIR": os.path.join(scratch, "nub-store")}, scratch, reg)
    argv = [nub, "install", "--frozen-lockfile", "--ignore-scripts"]
    if offline:
        argv.append("--offline")
    return timed(argv, proj, env, log)


def tree(proj):
    """Every path under every node_modules of proj: path -> what it is."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(proj):
        rel_dir = os.path.relpath(dirpath, proj)
        if "node_modules" not in rel_dir.split(os.sep):
            dirnames[:] = [d for d in dirnames if d == "node_modules" or
                           (not d.startswith(".") and d != "node_modules")]
            continue
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, proj)
            if BOOKKEEPING.search(rel):
                if name in dirnames:
                    dirnames.remove(name)
                continue
            if os.path.islink(p):
                out[rel] = "-> " + os.readlink(p)
                if name in dirnames:
                    dirnames.remove(name)
            elif os.path.isdir(p):
                out[rel] = "dir"
            else:
                with open(p, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()[:16]
                out[rel] = "%s %s" % (digest, "x" if os.stat(p).st_mode & 0o111 else "-")
    return out


def isolated(proj):
    """Whether the tool laid node_modules out isolated (bun's or pnpm's
    store inside it): then the graph is compared, not the paths."""
    return any(os.path.isdir(os.path.join(proj, "node_modules", d)) for d in (".bun", ".pnpm"))


def declared(pkg_dir):
    try:
        with open(os.path.join(pkg_dir, "package.json")) as f:
            pj = json.load(f)
    except (OSError, ValueError):
        return None, {}
    deps = {}
    for k in ("dependencies", "optionalDependencies", "peerDependencies"):
        for name in (pj.get(k) or {}):
            deps[name] = k
    return "%s@%s" % (pj.get("name"), pj.get("version")), deps


def node_lookup(real_dir, name):
    d = real_dir
    while True:
        cand = os.path.join(d, "node_modules", name)
        if os.path.isfile(os.path.join(cand, "package.json")):
            return os.path.realpath(cand)
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up


def patched_names(proj):
    """The names pnpm-workspace.yaml's patchedDependencies patch."""
    ws = os.path.join(proj, "pnpm-workspace.yaml")
    if not os.path.exists(ws):
        return set()
    block = re.split(r"^patchedDependencies:\s*$", open(ws).read(), maxsplit=1, flags=re.M)
    if len(block) < 2:
        return set()
    names = set()
    for line in block[1].splitlines():
        m = re.match(r"^\s+['\"]?(@?[^@'\":\s]+)", line)
        if not line.strip() or not m:
            if line and not line[0].isspace():
                break
            continue
        names.add(m.group(1))
    return names


def contents(pkg_dir):
    """A digest of a package folder's files (not its node_modules)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(pkg_dir)):
        dirnames[:] = sorted(d for d in dirnames if d != "node_modules")
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            h.update(os.path.relpath(p, pkg_dir).encode() + b"\0")
            with open(p, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()[:16]


def graph(proj, importers, patched=()):
    """(from, dependency) -> name@version it resolves to, from each importer
    and every package reached, by Node's lookup from real paths; for the
    names in patched, with a digest of the package's files (a patch
    applied or not)."""
    edges, seen, todo = {}, set(), []
    for imp in importers:
        todo.append(("importer:" + imp, os.path.realpath(os.path.join(proj, imp)), True))
    while todo:
        label, real, is_importer = todo.pop()
        if real in seen:
            continue
        seen.add(real)
        ident, deps = declared(real)
        if is_importer:
            try:
                with open(os.path.join(real, "package.json")) as f:
                    pj = json.load(f)
                for k in ("devDependencies",):
                    for name in (pj.get(k) or {}):
                        deps[name] = k
            except (OSError, ValueError):
                pass
        who = label if is_importer else ident
        for name, kind in deps.items():
            found = node_lookup(real, name)
            if not found:
                if kind != "peerDependencies":
                    edges[(who, name)] = "(missing)"
                continue
            dep_ident, _ = declared(found)
            edges[(who, name)] = dep_ident
            if name in patched:
                edges[(who, name)] += " files " + contents(found)
            todo.append((dep_ident, found, False))
    return edges


def importers_of(proj):
    out = ["."]
    pj = json.load(open(os.path.join(proj, "package.json")))
    globs = pj.get("workspaces") or []
    if isinstance(globs, dict):
        globs = globs.get("packages") or []
    ws = os.path.join(proj, "pnpm-workspace.yaml")
    if os.path.exists(ws):
        globs = re.findall(r"^\s*-\s*['\"]?([^'\"\n]+)['\"]?\s*$",
                           open(ws).read().split("packages:", 1)[-1].split("\n\n")[0], re.M)
    import glob as g
    for pattern in globs:
        if pattern.startswith("!"):
            continue
        for d in g.glob(os.path.join(proj, pattern)):
            if os.path.isfile(os.path.join(d, "package.json")) and "node_modules" not in d:
                out.append(os.path.relpath(d, proj))
    return sorted(set(out))


def diff(a, b, limit=12):
    keys = sorted(set(a) | set(b))
    lines = []
    for k in keys:
        if a.get(k) != b.get(k):
            lines.append("  %s: %s | nub: %s" % (k, a.get(k, "(absent)"), b.get(k, "(absent)")))
    return len(lines), lines[:limit]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nub", default=os.path.join(ROOT, "build", "core", "nub"))
    ap.add_argument("--only", default="")
    ap.add_argument("--offline-check", action="store_true")
    ap.add_argument("--keep", default="")
    ap.add_argument("projects", nargs="*")
    a = ap.parse_args()
    nub = os.path.abspath(a.nub)
    reg = registry()
    dirs = [p if os.path.isdir(p) else os.path.join(CORPUS, p) for p in a.projects] or \
        sorted(os.path.join(CORPUS, d) for d in os.listdir(CORPUS)
               if os.path.isdir(os.path.join(CORPUS, d)))
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    dirs = [d for d in dirs if a.only in os.path.basename(d)]
    rows, failed = [], False
    for d in dirs:
        name = os.path.basename(d.rstrip("/"))
        fmt = fmt_of(d)
        if not fmt:
            continue
        scratch = tempfile.mkdtemp(prefix="nub-real-%s-" % name, dir=a.keep or None)
        theirs, ours = os.path.join(scratch, "theirs"), os.path.join(scratch, "ours")
        copy_project(d, theirs, reg)
        copy_project(d, ours, reg)
        npk = packages_in_lock(theirs, fmt)
        rc_i, t_i, m_i = incumbent(fmt, theirs, scratch, reg, os.path.join(scratch, "incumbent.log"))
        rc_n, t_n, m_n = nub_install(nub, ours, scratch, reg, os.path.join(scratch, "nub.log"))
        verdict, details = "", []
        if rc_i != 0:
            verdict = "incumbent failed (%d)" % rc_i
            details = open(os.path.join(scratch, "incumbent.log")).read().splitlines()[-5:]
        elif rc_n != 0:
            verdict = "nub failed (%d)" % rc_n
            details = open(os.path.join(scratch, "nub.log")).read().splitlines()[-5:]
        else:
            if fmt == "pnpm" or isolated(theirs):
                imps, pat = importers_of(theirs), patched_names(theirs)
                n, details = diff(graph(theirs, imps, pat), graph(ours, imps, pat))
            else:
                n, details = diff(tree(theirs), tree(ours))
            verdict = "equal" if n == 0 else "%d differ" % n
            if n == 0 and a.offline_check:
                shutil.rmtree(os.path.join(ours, "node_modules"))
                for imp in importers_of(ours):
                    shutil.rmtree(os.path.join(ours, imp, "node_modules"), ignore_errors=True)
                rc_o, _, _ = nub_install(nub, ours, scratch, reg,
                                         os.path.join(scratch, "nub-offline.log"), offline=True)
                if rc_o != 0:
                    verdict = "offline reinstall failed (%d)" % rc_o
                else:
                    imps, pat = importers_of(theirs), patched_names(theirs)
                    # compared as the cold run was: an isolated layout by its graph
                    n2, details = (diff(graph(theirs, imps, pat), graph(ours, imps, pat))
                                   if fmt == "pnpm" or isolated(theirs)
                                   else diff(tree(theirs), tree(ours)))
                    verdict = "equal (offline too)" if n2 == 0 else "offline: %d differ" % n2
        npm12 = os.environ.get("NUB_NPM12")
        if fmt == "npm" and npm12 and verdict.startswith("equal"):
            # npm 12 as well: the same files, its own cold cache, the same tree
            theirs12 = os.path.join(scratch, "theirs-npm12")
            copy_project(d, theirs12, reg)
            rc12, _, _ = timed([npm12, "ci", "--ignore-scripts"], theirs12,
                               tool_env({"npm_config_cache": os.path.join(scratch, "npm12-cache")},
                                        scratch, reg),
                               os.path.join(scratch, "incumbent-npm12.log"))
            if rc12 != 0:
                verdict = "npm 12 failed (%d)" % rc12
                details = open(os.path.join(scratch, "incumbent-npm12.log")).read().splitlines()[-5:]
            else:
                n12, details = diff(tree(theirs12), tree(ours))
                verdict = verdict + ", npm 12 too" if n12 == 0 else "npm 12: %d differ" % n12
        failed |= not verdict.startswith("equal")
        rows.append((name, fmt, npk, verdict, t_n, t_i, m_n, m_i))
        print("%-30s %-6s %5d  %-24s nub %6.1fs %5.0fMB | incumbent %6.1fs %5.0fMB" %
              (name, fmt, npk, verdict, t_n, m_n, t_i, m_i), flush=True)
        for line in details:
            print("    " + line, flush=True)
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print()
    print("| project | format | packages | tree | nub cold | incumbent cold | nub/incumbent | "
          "nub RSS | incumbent RSS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, fmt, npk, verdict, t_n, t_i, m_n, m_i in rows:
        print("| %s | %s | %d | %s | %.1f s | %.1f s | %.2f | %.0f MB | %.0f MB |" % (
            name, fmt, npk, verdict, t_n, t_i, t_n / t_i if t_i else 0, m_n, m_i))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
