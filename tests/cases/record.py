#!/usr/bin/env python3
"""Fill a case file's expectations from the incumbents themselves.

The cases (tests/cases/**/*.t, read by tests/unit/test_cases.c) say what
nub's resolver and hoisters must make of a small registry and project. What
they must make is what the project's own tool makes: this script serves the
case's packages from the test registry (tests/registry/registry.py), runs
the tool on the case's project, and writes each `expect` block from what
the tool wrote:

  expect graph       pnpm install --lockfile-only: pnpm-lock.yaml's
                     importers and snapshots
  expect tree npm    npm install --package-lock-only: package-lock.json's
                     packages
  expect tree bun    bun install --lockfile-only: bun.lock's packages
  expect tree yarn   yarn 1 install: the node_modules it makes
  expect tree berry  yarn berry install (node-modules linker): its
                     node_modules; its yarn.lock becomes the case's file

Usage: tests/cases/record.py CASE.t...   (with the tools of ci/tools.sh on
PATH: eval "$(bash ci/tools.sh)"; NUB_BERRY names berry's yarn.js; needs
python3-yaml for pnpm-lock.yaml). A tool that fails leaves its block as it
was and says why.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "registry"))
from registry import Registry  # noqa: E402


def read_case(path):
    pkgs, tags, files = [], {}, {}
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith("file "):
            name, body = s[5:].strip(), []
            i += 1
            while lines[i].strip() != "end":
                body.append(lines[i])
                i += 1
            files[name] = "\n".join(body) + "\n"
        elif s.startswith("pkg "):
            pkgs.append(s[4:].split())
        elif s.startswith("tag "):
            name, tag, version = s[4:].split()
            tags.setdefault(name, {})[tag] = version
        i += 1
    return lines, pkgs, tags, files


def split_dep(tok):
    at = tok.rfind("@", 1)
    return (tok, "*") if at < 0 else (tok[:at], tok[at + 1:])


def write_fixtures(pkgs, tags, where):
    for p in pkgs:
        name, version = p[0], p[1]
        pj = {"name": name, "version": version}
        for tok in p[2:]:
            kind = "dependencies"
            for prefix, k in (("opt:", "optionalDependencies"), ("peer:", "peerDependencies"),
                              ("optpeer:", "peerDependencies")):
                if tok.startswith(prefix):
                    kind, tok = k, tok[len(prefix):]
                    if prefix == "optpeer:":
                        pj.setdefault("peerDependenciesMeta", {})[split_dep(tok)[0]] = {
                            "optional": True}
                    break
            if tok.startswith("bin:"):
                pj.setdefault("bin", {})[tok[4:]] = "bin/%s.js" % tok[4:]
                continue
            dep, rng = split_dep(tok)
            pj.setdefault(kind, {})[dep] = rng
        d = os.path.join(where, "%s@%s" % (name.replace("/", "+"), version))
        os.makedirs(d)
        with open(os.path.join(d, "package.json"), "w") as f:
            json.dump(pj, f)
        for cmd in pj.get("bin", {}):
            os.makedirs(os.path.join(d, "bin"), exist_ok=True)
            with open(os.path.join(d, "bin", cmd + ".js"), "w") as f:
                f.write("#!/usr/bin/env node\n")
        if name in tags:
            with open(os.path.join(d, "_registry.json"), "w") as f:
                json.dump({"_packument": {"dist-tags": tags[name]}}, f)


def edge(alias, ref):
    """An edge as test_cases.c prints it: its target's key, "alias=" first
    when the alias is not the target's name."""
    if ref.startswith("link:") or ref.startswith("file:"):
        return "%s=%s" % (alias, ref)
    # a version ("1.0.0(peer@1)") or, for an alias, the target's key
    target = "%s@%s" % (alias, ref) if ref[:1].isdigit() else ref
    return target if target.startswith(alias + "@") else "%s=%s" % (alias, target)


def graph_of_pnpm(proj):
    import yaml
    lock = yaml.safe_load(open(os.path.join(proj, "pnpm-lock.yaml")))
    out = []
    for path in sorted(lock.get("importers", {}), key=lambda p: (p != ".", p)):
        im = lock["importers"][path]
        deps = []
        for kind, prefix in (("dependencies", ""), ("optionalDependencies", "opt:"),
                             ("devDependencies", "dev:")):
            for alias, d in im.get(kind, {}).items():
                deps.append(prefix + edge(alias, str(d["version"])))
        out.append("%s ->%s" % (path, "".join(" " + d for d in deps)))
    for key in sorted(lock.get("snapshots", {}), key=lambda k: k.encode()):
        snap = lock["snapshots"][key] or {}
        deps = [edge(a, str(r)) for a, r in (snap.get("dependencies") or {}).items()]
        deps += ["opt:" + edge(a, str(r)) for a, r in
                 (snap.get("optionalDependencies") or {}).items()]
        out.append(key + (" ->" + "".join(" " + d for d in deps) if deps else ""))
    return out


def tree_of_npm(proj):
    lock = json.load(open(os.path.join(proj, "package-lock.json")))
    out = []
    for path, e in lock["packages"].items():
        if not path:
            continue
        if e.get("link"):
            out.append("%s -> %s" % (path, e["resolved"]))
        elif not path.startswith("node_modules/") and "/node_modules/" not in path:
            out.append("%s (member)" % path)
        else:
            folder = path.rsplit("node_modules/", 1)[1]
            out.append("%s %s@%s" % (path, e.get("name", folder), e["version"]))
    return sorted(out)


def tree_of_bun(proj):
    text = open(os.path.join(proj, "bun.lock")).read()
    lock = json.loads(re.sub(r",(\s*[}\]])", r"\1", text))
    out = []
    for key, e in lock["packages"].items():
        parts, path = key.split("/"), []
        i = 0
        while i < len(parts):
            if parts[i].startswith("@"):
                path.append(parts[i] + "/" + parts[i + 1])
                i += 2
            else:
                path.append(parts[i])
                i += 1
        where = "node_modules/" + "/node_modules/".join(path)
        ident = e[0]
        name, ver = ident[:ident.rfind("@")], ident[ident.rfind("@") + 1:]
        if ver.startswith("workspace:"):
            out.append("%s (member)" % where)
        elif ver.startswith("link:"):
            out.append("%s -> %s" % (where, ver[5:]))
        else:
            out.append("%s %s@%s" % (where, name, ver))
    return sorted(out)


def tree_of_node_modules(proj):
    """Every package folder under node_modules: "<path> <name>@<version>",
    or "<path> -> <target>" for a link."""
    out, members = [], set()

    def is_package_dir(rel):
        parts = rel.split(os.sep)
        return (len(parts) >= 2 and parts[-2] == "node_modules") or (
            len(parts) >= 3 and parts[-2].startswith("@") and parts[-3] == "node_modules")

    for root, dirs, files in os.walk(proj):
        rel = os.path.relpath(root, proj)
        if "node_modules" not in rel.split(os.sep):
            # the project's and its members' folders: only their node_modules
            dirs[:] = [d for d in dirs if d == "node_modules" or not d.startswith(".")]
            continue
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for d in list(dirs):
            full = os.path.join(root, d)
            if os.path.islink(full):
                target = os.path.relpath(os.path.realpath(full), proj)
                out.append("%s -> %s" % (os.path.join(rel, d), target))
                if not target.startswith("..") and "node_modules" not in target.split(os.sep):
                    members.add(target)  # a workspace member's folder
                dirs.remove(d)
        if is_package_dir(rel) and "package.json" in files:
            pj = json.load(open(os.path.join(root, "package.json")))
            out.append("%s %s@%s" % (rel, pj["name"], pj["version"]))
    return sorted(out + ["%s (member)" % m for m in members])


def run(argv, cwd, env):
    p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d:\n%s" % (" ".join(argv), p.returncode, p.stdout[-2000:]))


def record(kind, files, url, tmp):
    proj = os.path.join(tmp, "proj-" + kind.replace(" ", "-"))
    shutil.rmtree(proj, ignore_errors=True)
    for name, body in files.items():
        if name == "yarn.lock" and kind not in ("tree yarn", "tree berry"):
            continue
        p = os.path.join(proj, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(body)
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith(("npm_", "yarn_"))}
    env.update({"HOME": home, "npm_config_registry": url, "NO_COLOR": "1",
                "npm_config_userconfig": os.path.join(home, ".npmrc"),
                "npm_config_cache": os.path.join(tmp, "npm-cache")})
    with open(os.path.join(home, ".npmrc"), "w") as f:
        f.write("registry=%s\n" % url)
    if kind == "graph":
        run(["pnpm", "install", "--lockfile-only", "--ignore-scripts", "--registry", url,
             "--store-dir", os.path.join(tmp, "pnpm-store")], proj, env)
        return graph_of_pnpm(proj), None
    if kind == "tree npm":
        run(["npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit",
             "--no-fund"], proj, env)
        return tree_of_npm(proj), None
    if kind == "tree bun":
        env["BUN_INSTALL_CACHE_DIR"] = os.path.join(tmp, "bun-cache")
        env["NPM_CONFIG_REGISTRY"] = url
        run(["bun", "install", "--lockfile-only", "--ignore-scripts"], proj, env)
        return tree_of_bun(proj), None
    if kind == "tree yarn":
        run(["yarn", "install", "--ignore-scripts", "--non-interactive", "--registry", url,
             "--cache-folder", os.path.join(tmp, "yarn-cache")], proj, env)
        return tree_of_node_modules(proj), None
    if kind == "tree berry":
        # the registry by berry's environment, so the case's .yarnrc.yml (which
        # must say nodeLinker: node-modules, for nub too) stays as it is
        env.update({"YARN_IGNORE_PATH": "1", "YARN_NPM_REGISTRY_SERVER": url.rstrip("/"),
                    "YARN_UNSAFE_HTTP_WHITELIST": "127.0.0.1", "YARN_ENABLE_GLOBAL_CACHE": "0",
                    "YARN_ENABLE_TELEMETRY": "0", "YARN_CACHE_FOLDER": os.path.join(tmp, "berry")})
        run(["node", os.environ["NUB_BERRY"], "install", "--mode=skip-build"], proj, env)
        lock = open(os.path.join(proj, "yarn.lock")).read()
        return tree_of_node_modules(proj), lock
    raise RuntimeError("no incumbent records '%s'" % kind)


def main():
    for path in sys.argv[1:]:
        lines, pkgs, tags, files = read_case(path)
        tmp = tempfile.mkdtemp(prefix="nub-case-")
        fixtures = os.path.join(tmp, "fixtures")
        write_fixtures(pkgs, tags, fixtures)
        reg = Registry(fixtures).start()
        out, i, berry_lock = [], 0, None
        try:
            while i < len(lines):
                s = lines[i].strip()
                if s.startswith("expect ") and not s.startswith("expect error"):
                    kind = s[7:].strip()
                    j = i + 1
                    while lines[j].strip() != "end":
                        j += 1
                    try:
                        got, lock = record(kind, files, reg.url, tmp)
                        if lock is not None:
                            berry_lock = lock
                        out += [lines[i]] + got + ["end"]
                        print("%s: %s recorded (%d lines)" % (path, kind, len(got)))
                    except Exception as exc:  # keep the block; say why
                        print("%s: %s not recorded: %s" % (path, kind, exc), file=sys.stderr)
                        out += lines[i:j + 1]
                    i = j + 1
                    continue
                out.append(lines[i])
                i += 1
        finally:
            reg.stop()
            shutil.rmtree(tmp, ignore_errors=True)
        text = "\n".join(out)
        if berry_lock is not None and "file yarn.lock" not in text:
            text = text.rstrip("\n") + "\nfile yarn.lock\n" + berry_lock.rstrip("\n") + "\nend\n"
        with open(path, "w") as f:
            f.write(text if text.endswith("\n") else text + "\n")


if __name__ == "__main__":
    main()
