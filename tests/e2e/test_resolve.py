#!/usr/bin/env python3
"""Resolution without a lockfile (isolated layout): what `nub install` writes
into nub.lock for a package.json, reproducibly; dist-tags and prereleases,
`npm:` aliases, optional dependencies for other platforms, a legacy
packument, peer-dependency variants and auto-installed peers, `file:` and
`link:` dependencies, overrides, and the "no matching version" error.

Fixture packages made for these tests (tests/fixtures/packages):

  react-like@1.0.0, react-like@2.0.0   a peer target with two majors
  plugin@1.0.0      peerDependencies {react-like: "*"}; index.js reports the
                    react-like version it sees
  host-a@1.0.0      depends on react-like ^1.0.0 and plugin ^1.0.0
  host-b@1.0.0      depends on react-like ^2.0.0 and plugin ^1.0.0
  tagged@1.0.0, tagged@1.1.0   dist-tag latest -> 1.0.0 (not the highest)

and the fixture project tests/fixtures/projects/local-deps (a `file:`
directory with a registry dependency of its own, a `link:` directory).

The module also holds the nub.lock helpers (a reader for the YAML subset
nub.lock uses, dependency-path helpers) that test_isolated.py and
test_rnub_interop.py import.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_resolve.py
     (or ctest -R e2e.resolve)
"""

import json
import os
import re
import shutil

import nubtest

# --------------------------------------------------------------------------
# nub.lock (pnpm-lock.yaml v9) reading: the subset nub and pnpm write for
# these fixtures: block mappings, quoted or plain scalars, flow mappings
# ({integrity: ...}) and flow sequences ([darwin]).


def _unquote(s):
    s = s.strip()
    if len(s) >= 2 and s[0] == "'" and s[-1] == "'":
        return s[1:-1].replace("''", "'")
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        return json.loads(s)
    return s


def _split_flow(body):
    """Split the inside of a flow collection at top-level commas."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in body:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _scalar(v):
    v = v.strip()
    if v.startswith("{") and v.endswith("}"):
        out = {}
        for part in _split_flow(v[1:-1]):
            k, _, val = part.partition(": ")
            out[_unquote(k)] = _scalar(val)
        return out
    if v.startswith("[") and v.endswith("]"):
        return [_scalar(p) for p in _split_flow(v[1:-1])]
    if v == "true":
        return True
    if v == "false":
        return False
    return _unquote(v)


def _split_key(line):
    """'key: value' / 'key:' -> (key, value or None). Keys may be quoted and
    may contain ':' (file:./x) but not ': '."""
    if line[0] in "'\"":
        q = line[0]
        i = 1
        while i < len(line):
            if line[i] == q:
                if q == "'" and line[i + 1:i + 2] == "'":
                    i += 2
                    continue
                break
            i += 1
        key, rest = _unquote(line[:i + 1]), line[i + 1:]
        if not rest.startswith(":"):
            raise ValueError("cannot parse lockfile line %r" % line)
        rest = rest[1:].strip()
        return key, (rest if rest else None)
    if line.endswith(":"):
        return line[:-1], None
    key, sep, value = line.partition(": ")
    if not sep:
        raise ValueError("cannot parse lockfile line %r" % line)
    return key, value


def parse_lock(text):
    """nub.lock / pnpm-lock.yaml text -> nested dicts."""
    root = {}
    stack = [(-1, root)]
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        line = raw.strip()
        if line.startswith("- ") or line.startswith("? "):
            raise ValueError("block sequences / explicit keys are not expected: %r" % raw)
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        key, value = _split_key(line)
        if value is None:
            child = {}
            parent[key] = child
            stack.append((indent, child))
        else:
            parent[key] = _scalar(value)
    return root


def key_name(key):
    """'@scope/d@1.0.0' -> '@scope/d'; 'plugin@1.0.0(x@1.0.0)' -> 'plugin'."""
    return key[:key.index("@", 1)]


def key_version(key):
    """'plugin@1.0.0(x@1.0.0)' -> '1.0.0'."""
    rest = key[key.index("@", 1) + 1:]
    return rest.split("(", 1)[0]


def dep_key(alias, ref):
    """The snapshot key an importer/snapshot dependency entry points at, or
    None for link: dependencies. 'b: 1.0.0' -> 'b@1.0.0'; an alias
    'myb: b@2.0.0' -> 'b@2.0.0'; 'plugin: 1.0.0(r@1.0.0)' ->
    'plugin@1.0.0(r@1.0.0)'."""
    if ref.startswith("link:"):
        return None
    head = ref.split("(", 1)[0]
    if "@" in head[1:]:
        return ref
    return "%s@%s" % (alias, ref)


def dep_path_filename(key):
    """pnpm's depPathToFilename for short, lowercase keys."""
    out = re.sub(r'[\\/:*?"<>|]', "+", key)
    if "(" in out:
        out = out.replace(")(", "_").replace("(", "_")
        if out.endswith(")"):
            out = out[:-1]
    assert len(out) <= 120 and out == out.lower(), key
    return out





class LockMixin:
    """nub.lock helpers for NubTestCase subclasses."""

    lock_name = "nub.lock"      # the lockfile lock() and lock_text() read

    def lock_text(self, proj=None, name=None):
        with open(os.path.join(proj or self.proj, name or self.lock_name)) as f:
            return f.read()

    def lock(self, proj=None, name=None):
        return parse_lock(self.lock_text(proj, name))

    @staticmethod
    def importer_deps(lock):
        """{alias: (field, specifier, version)} of the root importer."""
        out = {}
        for field, deps in lock["importers"]["."].items():
            for alias, entry in deps.items():
                out[alias] = (field, entry["specifier"], entry["version"])
        return out

    @staticmethod
    def snapshot_deps(snap):
        """{alias: key} for a snapshot entry's dependencies and
        optionalDependencies."""
        out = {}
        if not isinstance(snap, dict):
            return out
        for field in ("dependencies", "optionalDependencies"):
            for alias, ref in snap.get(field, {}).items():
                out[alias] = dep_key(alias, ref)
        return out

    def write_pj(self, doc, proj=None):
        self.write_json(os.path.join(proj or self.proj, "package.json"), doc)

    def edit_pj(self, fn, proj=None):
        path = os.path.join(proj or self.proj, "package.json")
        doc = self.read_json(path)
        fn(doc)
        self.write_json(path, doc)

    def node_eval(self, cwd, script, check=True):
        """Run `node -e script` in cwd; returns the CompletedProcess."""
        if not nubtest.have_node():
            self.skipTest("node is not installed")
        return self.run_cmd(["node", "-e", script], cwd=cwd, check=check)

    def node_json(self, cwd, expr):
        proc = self.node_eval(cwd, "console.log(JSON.stringify(%s))" % expr)
        return json.loads(proc.stdout)

    def nm(self, *parts, proj=None):
        return os.path.join(proj or self.proj, "node_modules", *parts)


BASIC_IMPORTER = {
    "dependencies": {
        "@scope/d": {"specifier": "^1.0.0", "version": "1.0.0"},
        "a": {"specifier": "^1.0.0", "version": "1.0.0"},
        "c": {"specifier": "^1.0.0", "version": "1.0.0"},
        "e": {"specifier": "^1.0.0", "version": "1.0.0"},
    },
    "devDependencies": {
        "dev-only": {"specifier": "^1.0.0", "version": "1.0.0"},
    },
    "optionalDependencies": {
        "opt-darwin": {"specifier": "^1.0.0", "version": "1.0.0"},
        "opt-linux": {"specifier": "^1.0.0", "version": "1.0.0"},
        "opt-win": {"specifier": "^1.0.0", "version": "1.0.0"},
    },
}

BASIC_SNAPSHOTS = {
    "@scope/d@1.0.0": {"dependencies": {"a": "1.0.0"}},
    "a@1.0.0": {"dependencies": {"b": "1.0.0"}},
    "b@1.0.0": {},
    "b@2.0.0": {},
    "c@1.0.0": {"dependencies": {"b": "2.0.0"}},
    "dev-only@1.0.0": {},
    "e@1.0.0": {},
    "opt-darwin@1.0.0": {"optional": True},
    "opt-linux@1.0.0": {"optional": True},
    "opt-win@1.0.0": {"optional": True},
}


class ResolveTestCase(LockMixin, nubtest.NubTestCase):

    def clean(self):
        """Remove nub.lock and node_modules from the project."""
        if os.path.exists(os.path.join(self.proj, "nub.lock")):
            os.unlink(os.path.join(self.proj, "nub.lock"))
        if os.path.isdir(self.nm()):
            shutil.rmtree(self.nm())


class BasicResolutionTest(ResolveTestCase):
    """The `basic` project resolved from its package.json alone."""

    def test_nub_lock_contents(self):
        self.make_project("basic")
        self.nub("install")
        lock = self.lock()
        self.assertEqual(lock["lockfileVersion"], "9.0")
        self.assertEqual(lock["importers"], {".": BASIC_IMPORTER})
        self.assertEqual(lock["snapshots"], BASIC_SNAPSHOTS)
        self.assertEqual(sorted(lock["packages"]), sorted(BASIC_SNAPSHOTS))
        r = self.registry
        for key, entry in lock["packages"].items():
            with self.subTest(package=key):
                name, version = key_name(key), key_version(key)
                self.assertEqual(entry["resolution"], {"integrity": r.integrity(name, version)})
                vdoc = r.packument(name)["versions"][version]
                self.assertEqual(entry.get("os"), vdoc.get("os"))
                self.assertEqual(entry.get("cpu"), vdoc.get("cpu"))
                self.assertEqual(entry.get("hasBin"), True if "bin" in vdoc else None)
        # the graph is what node sees
        self.assertEqual(self.node_json(self.proj, "require('a').deps"), {"b": "1.0.0"})
        self.assertEqual(self.node_json(self.proj, "require('c').deps"), {"b": "2.0.0"})
        self.assertEqual(self.node_json(self.proj, "require('@scope/d').deps"), {"a": "1.0.0"})

    def resolve_in(self, name, pj, faults=()):
        """Resolve package.json `pj` in a fresh directory with a fresh store
        (and empty packument cache); returns nub.lock's bytes."""
        proj = os.path.join(self.tmp, name)
        os.makedirs(proj)
        with open(os.path.join(proj, "package.json"), "w") as f:
            f.write(pj)
        self.registry.clear_faults()
        for path_rx, kind, params in faults:
            self.registry.add_fault(path_rx, kind, count=None, **params)
        self.registry.reset_log()
        try:
            self.nub("install", cwd=proj,
                     env={"NUB_STORE_DIR": os.path.join(self.tmp, "store-" + name)})
        finally:
            self.registry.clear_faults()
        # a fresh store: every packument came from the registry
        self.assertGreaterEqual(self.registry.count(r"^/a(\?|$)"), 1)
        with open(os.path.join(proj, "nub.lock"), "rb") as f:
            return f.read()

    def test_resolution_is_reproducible(self):
        with open(os.path.join(nubtest.PROJECTS_DIR, "basic", "package.json")) as f:
            pj = f.read()
        first = self.resolve_in("one", pj)
        # the same package.json, with different packuments arriving late
        second = self.resolve_in("two", pj, faults=[
            (r"^/a(\?|$)", "delay", {"seconds": 0.3}),
            (r"^/@scope(/|%2[fF])d(\?|$)", "delay", {"seconds": 0.2})])
        third = self.resolve_in("three", pj, faults=[
            (r"^/c(\?|$)", "delay", {"seconds": 0.3}),
            (r"^/b(\?|$)", "delay", {"seconds": 0.2})])
        self.assertEqual(first.decode(), second.decode())
        self.assertEqual(first.decode(), third.decode())
        # the order of keys in package.json does not matter either
        doc = json.loads(pj)
        for field in ("dependencies", "optionalDependencies"):
            doc[field] = dict(reversed(list(doc[field].items())))
        reordered = self.resolve_in("four", json.dumps(doc, indent=2) + "\n")
        self.assertEqual(first.decode(), reordered.decode())


class NpmrcKeysTest(ResolveTestCase):
    """A key in the project's .npmrc that nothing reads is named, as npm
    names it ("Unknown project config"): nub names the same keys, with the
    nearest npm key, and says which are pnpm's settings (pnpm 12 reads them
    only from pnpm-workspace.yaml)."""

    def test_unknown_keys_are_named_as_npm_names_them(self):
        self.make_project("basic")
        reg = self.registry.url.split("://", 1)[1]
        npmrc = ("min-release-agee=3\nsave-exact=true\nfoo-bar=1\nshamefully-hoist=true\n"
                 "@scope:registry=%s\n//%s:_authToken=x\n//%s:_authTokn=x\n"
                 "store-dir=%s\nfetch-retries=1\n"
                 % (self.registry.url, reg, reg, os.path.join(self.tmp, "store2")))
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        for d in (self.proj, theirs):
            with open(os.path.join(d, ".npmrc"), "w") as f:
                f.write(npmrc)
        proc = self.nub("install")
        self.assertIn('"min-release-agee" (did you mean "min-release-age"?)', proc.stderr)
        self.assertIn("shamefully-hoist (shamefullyHoist)", proc.stderr)
        self.assertEqual(proc.stderr.count(".npmrc has"), 2, proc.stderr)
        mine = set(re.findall(r'(?:^|, )"([^"]+)"', proc.stderr.split("ignored: ", 1)[1]
                              .split("\n", 1)[0]))
        mine = {k.rsplit(":", 1)[-1] for k in mine} | {"shamefully-hoist"}
        them = self.npm("install", "--ignore-scripts", cwd=theirs)
        named = set(re.findall(r'Unknown project config "([^"]+)"', them.stderr))
        # (store-dir is nub's, and pnpm's before 12: nub applies it)
        self.assertNotIn("store-dir", proc.stderr)
        self.assertEqual(mine, named - {"store-dir"}, them.stderr)


class VersionSelectionTest(ResolveTestCase):
    """dist-tags, prereleases, aliases, platform-specific and legacy packages."""

    def locked_version(self, name, spec):
        """Resolve {name: spec} with --lockfile-only; the importer's version."""
        self.clean()
        self.write_pj({"name": "p", "version": "1.0.0", "dependencies": {name: spec}})
        self.nub("install", "--lockfile-only")
        self.assertFalse(os.path.exists(self.nm()), "--lockfile-only created node_modules")
        field, specifier, version = self.importer_deps(self.lock())[name]
        self.assertEqual((field, specifier), ("dependencies", spec))
        return version

    def test_latest_dist_tag_is_preferred_when_it_satisfies(self):
        doc = self.registry.packument("tagged")
        self.assertEqual(doc["dist-tags"]["latest"], "1.0.0")
        self.assertIn("1.1.0", doc["versions"])
        cases = {
            "^1.0.0": "1.0.0",     # latest satisfies: not the highest 1.1.0
            "*": "1.0.0",
            ">=1.0.0": "1.0.0",
            "latest": "1.0.0",
            "^1.1.0": "1.1.0",     # latest does not satisfy: the highest that does
            "1.1.0": "1.1.0",
        }
        for spec, want in cases.items():
            with self.subTest(spec=spec):
                self.assertEqual(self.locked_version("tagged", spec), want)

    def test_prereleases(self):
        self.assertEqual(self.registry.packument("pre")["dist-tags"],
                         {"latest": "1.0.0", "next": "2.0.0-beta.1"})
        cases = {
            "next": "2.0.0-beta.1",              # a tag names the prerelease
            "^1.0.0": "1.0.0",                   # never 2.0.0-beta.1
            "*": "1.0.0",
            ">=1.0.0": "1.0.0",                  # no prerelease without a prerelease comparator
            ">=2.0.0-beta.0": "2.0.0-beta.1",    # same [major, minor, patch]: allowed
            "^2.0.0-beta.0": "2.0.0-beta.1",
        }
        for spec, want in cases.items():
            with self.subTest(spec=spec):
                self.assertEqual(self.locked_version("pre", spec), want)

    def test_tag_spec_installs_the_prerelease(self):
        self.write_pj({"name": "p", "version": "1.0.0", "dependencies": {"pre": "next"}})
        self.nub("install")
        self.assertEqual(self.node_json(self.proj, "require('pre').version"), "2.0.0-beta.1")
        self.assertEqual(self.importer_deps(self.lock())["pre"],
                         ("dependencies", "next", "2.0.0-beta.1"))

    def test_npm_alias(self):
        self.write_pj({"name": "p", "version": "1.0.0",
                       "dependencies": {"myb": "npm:b@^2.0.0", "a": "^1.0.0"}})
        self.nub("install")
        lock = self.lock()
        self.assertEqual(self.importer_deps(lock)["myb"],
                         ("dependencies", "npm:b@^2.0.0", "b@2.0.0"))
        self.assertIn("b@2.0.0", lock["packages"])
        self.assertEqual(lock["packages"]["b@2.0.0"]["resolution"],
                         {"integrity": self.registry.integrity("b", "2.0.0")})
        self.assertTrue(os.path.islink(self.nm("myb")))
        self.assertFalse(os.path.lexists(self.nm("b")))   # only the alias is a direct dep
        self.assertEqual(self.node_json(self.proj, "require('myb')"),
                         {"name": "b", "version": "2.0.0", "deps": {}})
        self.assertEqual(self.read_json(self.nm("myb", "package.json"))["name"], "b")
        with open(os.path.join(nubtest.PACKAGES_DIR, "b@2.0.0", "index.js")) as f:
            want = f.read()
        with open(self.nm("myb", "index.js")) as f:
            self.assertEqual(f.read(), want)
        # a still gets its own b@1
        self.assertEqual(self.node_json(self.proj, "require('a').deps"), {"b": "1.0.0"})
        # the alias name never reaches the registry
        self.assertEqual(self.registry.count(r"^/myb"), 0)

    def test_optional_dependency_for_another_platform(self):
        self.make_project("basic")
        self.nub("install")
        lock = self.lock()
        checked_other = 0
        for name in ("opt-linux", "opt-darwin", "opt-win"):
            with self.subTest(package=name):
                key = name + "@1.0.0"
                manifest = self.read_json(os.path.join(nubtest.PACKAGES_DIR, key, "package.json"))
                entry = lock["packages"][key]
                self.assertEqual(entry.get("os"), manifest.get("os"))
                self.assertEqual(entry.get("cpu"), manifest.get("cpu"))
                self.assertEqual(lock["snapshots"][key], {"optional": True})
                ok = nubtest.platform_ok(manifest.get("os"), manifest.get("cpu"))
                self.assertEqual(os.path.lexists(self.nm(name)), ok)
                self.assertEqual(os.path.exists(self.nm(name, "package.json")), ok)
                # the hidden hoist is only made for packages kept in the
                # project (the global virtual store is on here)
                self.assertFalse(os.path.lexists(self.nm(".nub", "node_modules", name)))
                # never downloaded when it cannot be installed
                self.assertEqual(self.registry.count(r"^/%s/-/" % name) > 0, ok)
                if not ok:
                    checked_other += 1
                    self.assertFalse(any(e.startswith(key) for e in os.listdir(
                        os.path.join(self.store, "v1", "links"))))
        self.assertGreaterEqual(checked_other, 2)

    def test_legacy_packument(self):
        # legacy@0.0.1: "dependencies": [] and only dist.shasum
        vdoc = self.registry.packument("legacy")["versions"]["0.0.1"]
        self.assertEqual(vdoc["dependencies"], [])
        self.assertNotIn("integrity", vdoc["dist"])
        self.write_pj({"name": "p", "version": "1.0.0", "dependencies": {"legacy": "0.0.1"}})
        self.nub("install")
        lock = self.lock()
        self.assertEqual(self.importer_deps(lock)["legacy"], ("dependencies", "0.0.1", "0.0.1"))
        # the shasum becomes a sha1 SRI, as pnpm records it
        self.assertEqual(lock["packages"]["legacy@0.0.1"]["resolution"],
                         {"integrity": self.registry.sri_sha1("legacy", "0.0.1")})
        self.assertEqual(lock["snapshots"]["legacy@0.0.1"], {})
        self.assertEqual(self.node_json(self.proj, "require('legacy')"),
                         {"name": "legacy", "version": "0.0.1", "deps": {}})


class PeerDependencyTest(ResolveTestCase):

    def test_two_peer_variants(self):
        self.write_pj({"name": "p", "version": "1.0.0",
                       "dependencies": {"host-a": "^1.0.0", "host-b": "^1.0.0"}})
        self.nub("install")
        lock = self.lock()
        v1, v2 = "plugin@1.0.0(react-like@1.0.0)", "plugin@1.0.0(react-like@2.0.0)"
        self.assertEqual(sorted(lock["snapshots"]), sorted([
            "host-a@1.0.0", "host-b@1.0.0", v1, v2, "react-like@1.0.0", "react-like@2.0.0"]))
        self.assertEqual(sorted(lock["packages"]), sorted([
            "host-a@1.0.0", "host-b@1.0.0", "plugin@1.0.0", "react-like@1.0.0",
            "react-like@2.0.0"]))
        self.assertEqual(lock["packages"]["plugin@1.0.0"]["peerDependencies"], {"react-like": "*"})
        self.assertEqual(self.snapshot_deps(lock["snapshots"]["host-a@1.0.0"]),
                         {"plugin": v1, "react-like": "react-like@1.0.0"})
        self.assertEqual(self.snapshot_deps(lock["snapshots"]["host-b@1.0.0"]),
                         {"plugin": v2, "react-like": "react-like@2.0.0"})
        self.assertEqual(self.snapshot_deps(lock["snapshots"][v1]), {"react-like": "react-like@1.0.0"})
        self.assertEqual(self.snapshot_deps(lock["snapshots"][v2]), {"react-like": "react-like@2.0.0"})
        # two entries of plugin in the store, one per variant, each named for
        # it (a package tree that is an entry names it in its ready marker)
        names = []
        for host in ("host-a", "host-b"):
            plugin = os.path.realpath(os.path.join(os.path.realpath(self.nm(host)), "..", "plugin"))
            entry = os.path.dirname(os.path.dirname(plugin))
            ready = os.path.join(entry, "ready")
            names.append(os.readlink(ready) if os.path.islink(ready) else os.path.basename(entry))
        for key, name in zip((v1, v2), names):
            self.assertRegex(name, "^" + re.escape(dep_path_filename(key)) + "-[0-9a-f]{16}$")
        # from inside each host (its real path), plugin sees the host's react-like
        seen = {}
        for host, want in (("host-a", "1.0.0"), ("host-b", "2.0.0")):
            with self.subTest(host=host):
                real = os.path.realpath(self.nm(host))
                self.assertEqual(self.read_json(os.path.join(real, "package.json"))["name"], host)
                got = self.node_json(real, "{plugin: require('plugin').deps['react-like'],"
                                           " own: require('react-like').version,"
                                           " path: require('fs').realpathSync("
                                           "require.resolve('plugin'))}")
                self.assertEqual(got["plugin"], want)
                self.assertEqual(got["own"], want)
                seen[host] = got["path"]
                self.assertEqual(self.node_json(self.proj, "require('%s').deps" % host),
                                 {"plugin": "1.0.0", "react-like": want})
        self.assertNotEqual(seen["host-a"], seen["host-b"])

    def test_missing_peers_are_auto_installed(self):
        self.write_pj({"name": "p", "version": "1.0.0",
                       "dependencies": {"plugin": "^1.0.0", "peer-host": "^1.0.0"}})
        self.nub("install")
        lock = self.lock()
        deps = self.importer_deps(lock)
        # react-like: "*" -> latest; b: "^1.0.0" -> 1.0.0 although latest is 2.0.0
        self.assertEqual(deps["plugin"], ("dependencies", "^1.0.0", "1.0.0(react-like@2.0.0)"))
        self.assertEqual(deps["peer-host"], ("dependencies", "^1.0.0", "1.0.0(b@1.0.0)"))
        self.assertEqual(sorted(lock["packages"]), sorted([
            "b@1.0.0", "peer-host@1.0.0", "plugin@1.0.0", "react-like@2.0.0"]))
        self.assertEqual(self.node_json(self.proj, "require('plugin').deps"), {"react-like": "2.0.0"})
        self.assertEqual(self.node_json(self.proj, "require('peer-host').deps"), {"b": "1.0.0"})
        real = os.path.realpath(self.nm("plugin"))
        self.assertEqual(self.node_json(real, "require('react-like').version"), "2.0.0")


class PnpmPeerRulesTest(ResolveTestCase):
    """pnpm 12's peer rules, against pnpm itself (nub.lock is pnpm-lock.yaml
    byte for byte for the same package.json and registry), each read from
    pnpm's resolvePeers.ts / hoistPeers.ts and checked on the fixtures:
    a peer that is also a dependency is a peer (named in the key, its own
    peers its own); a peerDependenciesMeta entry alone is an optional peer
    "*"; an optional peer nothing above provides takes a version the graph
    already has (getHoistableOptionalPeers); in a cycle of peers each names
    the other by name@version; a dependency whose peer is its parent names
    the parent by its whole key."""

    def same_as_pnpm(self, deps, workspace_yaml=None):
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        self.write_pj({"name": "p", "version": "1.0.0", "dependencies": deps})
        if workspace_yaml is not None:
            with open(os.path.join(self.proj, "pnpm-workspace.yaml"), "w") as f:
                f.write(workspace_yaml)
        for name in ("nub.lock", "node_modules"):  # (each call from scratch)
            path = os.path.join(self.proj, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            elif os.path.exists(path):
                os.unlink(path)
        theirs = os.path.join(self.tmp, "theirs")
        if os.path.isdir(theirs):
            shutil.rmtree(theirs)
        shutil.copytree(self.proj, theirs)
        with open(os.path.join(theirs, ".npmrc"), "w") as f:
            f.write("registry=%s\n" % self.registry.url)
        self.run_cmd([pnpm, "install", "--lockfile-only", "--ignore-scripts",
                      "--config.minimumReleaseAge=0"], cwd=theirs,
                     env={"npm_config_registry": None, "PNPM_HOME": None,
                          "npm_config_store_dir": os.path.join(self.tmp, "pnpm-store")})
        self.nub("install", "--lockfile-only")
        with open(os.path.join(theirs, "pnpm-lock.yaml")) as f, \
                open(os.path.join(self.proj, "nub.lock")) as g:
            ours = g.read()
            self.assertEqual(ours, f.read())
        return ours

    def test_a_peer_that_is_also_a_dependency(self):
        lock = self.same_as_pnpm({"peer-also-dep": "^1.0.0"})
        self.assertIn("peer-also-dep@1.0.0(plug-host@1.0.0):", lock)
        self.assertNotIn("- plug-extra", lock)  # plug-host's optional peer is its own
        lock = self.same_as_pnpm({"peer-also-dep": "^1.0.0", "plug-host": "^1.0.0",
                                  "plug-extra": "^1.0.0"})
        self.assertIn("peer-also-dep@1.0.0(plug-host@1.0.0(plug-extra@1.0.0)):", lock)

    def test_a_peer_named_only_in_peer_dependencies_meta(self):
        lock = self.same_as_pnpm({"uses-meta-only": "^1.0.0", "plug-extra": "^1.0.0"})
        self.assertIn("meta-only-peer@1.0.0(plug-extra@1.0.0)", lock)
        self.assertIn("    peerDependencies:\n      plug-extra: '*'\n", lock)

    def test_an_optional_peer_takes_a_version_the_graph_has(self):
        # plug-extra comes only with brings-extra, deep down: pnpm puts it
        # in the project's scope for the optional peers that miss it
        lock = self.same_as_pnpm({"uses-meta-only": "^1.0.0", "brings-extra": "^1.0.0"})
        self.assertIn("meta-only-peer@1.0.0(plug-extra@1.0.0)", lock)
        lock = self.same_as_pnpm({"plug-host": "^1.0.0", "brings-extra": "^1.0.0"})
        self.assertIn("plug-host@1.0.0(plug-extra@1.0.0)", lock)

    def test_a_cycle_of_peers(self):
        lock = self.same_as_pnpm({"cyc-a": "^1.0.0", "cyc-b": "^1.0.0"})
        self.assertIn("cyc-a@1.0.0(cyc-b@1.0.0):", lock)

    def test_a_dependency_whose_peer_is_its_parent(self):
        self.same_as_pnpm({"parent-x": "^1.0.0"})

    def test_the_compatibility_table(self):
        # pnpm applies the @yarnpkg/extensions table berry applies (debug
        # before 4.2.0 gets an optional peer on supports-color), unless
        # ignoreCompatibilityDb
        lock = self.same_as_pnpm({"uses-debug": "^1.0.0", "supports-color": "^1.0.0"})
        self.assertIn("debug@4.1.0(supports-color@2.0.0):", lock)
        lock = self.same_as_pnpm({"uses-debug": "^1.0.0", "supports-color": "^1.0.0"},
                                 "ignoreCompatibilityDb: true\n")
        self.assertNotIn("debug@4.1.0(", lock)

    def test_dedupe_peers(self):
        # pnpm-workspace.yaml's dedupePeers: a peer is named by name@version
        # alone, and the lockfile records the setting
        lock = self.same_as_pnpm({"peer-also-dep": "^1.0.0", "plug-host": "^1.0.0",
                                  "plug-extra": "^1.0.0"}, "dedupePeers: true\n")
        self.assertIn("peer-also-dep@1.0.0(plug-host@1.0.0):", lock)
        self.assertIn("  dedupePeers: true\n", lock)


class LocalDependencyTest(ResolveTestCase):
    """tests/fixtures/projects/local-deps: `file:./local-lib` (depends on
    b@^2.0.0 from the registry) and `link:./linked-dir`, next to a@^1.0.0
    (which wants b@1)."""

    def setUp(self):
        super().setUp()
        self.make_project("local-deps")

    def check_file_dependency(self, gvs):
        link = self.nm("local-lib")
        self.assertTrue(os.path.islink(link))
        self.assertFalse(os.path.isabs(os.readlink(link)))
        real = os.path.realpath(link)
        # the directory itself, linked as npm links a file: directory
        self.assertEqual(real, os.path.realpath(os.path.join(self.proj, "local-lib")))
        # its own dependency: b@2 (a's b@1 is the hoisted one), found from
        # the directory's own node_modules
        self.assertEqual(self.node_json(self.proj, "require('local-lib')"),
                         {"name": "local-lib", "version": "1.0.0", "deps": {"b": "2.0.0"}})
        self.assertEqual(self.node_json(real, "require('b').version"), "2.0.0")
        self.assertEqual(self.node_json(self.proj, "require('a').deps"), {"b": "1.0.0"})
        # a link into the project's .nub is relative, one into the global
        # virtual store absolute
        self.assertEqual(os.path.isabs(os.readlink(os.path.join(real, "node_modules", "b"))), gvs)
        lock = self.lock()
        field, spec, version = self.importer_deps(lock)["local-lib"]
        self.assertEqual((field, spec), ("dependencies", "file:./local-lib"))
        key = dep_key("local-lib", version)
        self.assertEqual(self.snapshot_deps(lock["snapshots"][key]), {"b": "b@2.0.0"})
        # an edit is seen at once, with no install in between
        with open(os.path.join(self.proj, "local-lib", "index.js"), "a") as f:
            f.write("\nmodule.exports.edited = true;\n")
        self.assertTrue(self.node_json(self.proj, "require('local-lib').edited"))

    def test_file_dependency(self):
        self.nub("install")
        self.check_file_dependency(gvs=True)

    def test_file_dependency_without_global_virtual_store(self):
        self.nub("install", "--no-global-virtual-store")
        self.check_file_dependency(gvs=False)

    def test_link_dependency(self):
        self.nub("install")
        link = self.nm("linked")
        self.assertTrue(os.path.islink(link))
        self.assertFalse(os.path.isabs(os.readlink(link)), os.readlink(link))
        self.assertEqual(os.path.realpath(link),
                         os.path.realpath(os.path.join(self.proj, "linked-dir")))
        self.assertEqual(self.node_json(self.proj, "require('linked')"),
                         {"name": "linked", "version": "0.0.1", "deps": {}})
        field, spec, version = self.importer_deps(self.lock())["linked"]
        self.assertEqual((field, spec), ("dependencies", "link:./linked-dir"))
        self.assertTrue(version.startswith("link:"), version)
        self.assertEqual(os.path.normpath(version[5:]), "linked-dir")
        # a symlink: edits show through without reinstalling
        with open(os.path.join(self.proj, "linked-dir", "extra.txt"), "w") as f:
            f.write("x")
        self.assertTrue(os.path.isfile(self.nm("linked", "extra.txt")))


class TarballUrlTest(ResolveTestCase):
    """A dependency named by tarball URL (npm's "remote" spec), here on a
    second server: installed in both layouts, its integrity recorded in
    nub.lock (the bytes pnpm writes for the same input), installed again
    from the lockfile and offline from the store (it failed with "a kind of
    dependency nub does not resolve yet" before)."""

    def setUp(self):
        super().setUp()
        self.other = nubtest.Registry().start()
        self.addCleanup(self.other.stop)
        self.url = self.other.tarball_url("c", "1.0.0")

    def project(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"c": self.url, "a": "^1.0.0"}})

    def check(self, flags):
        self.project()
        self.other.reset_log()
        self.nub("install", *flags)
        # resolved afresh: downloaded once, to read it and to install it
        # (twice before)
        self.assertEqual(self.other.count(r"^/c/-/c-1\.0\.0\.tgz$"), 1)
        self.assertEqual(self.node_json(self.proj, "require('c')"),
                         {"name": "c", "version": "1.0.0", "deps": {"b": "2.0.0"}})
        with open(os.path.join(self.proj, "nub.lock")) as f:
            text = f.read()
        self.assertIn("c@" + self.url, text)
        self.assertIn(self.other.integrity("c", "1.0.0"), text)
        # from the lockfile, the tarball fetched once (no second GET to read it)
        shutil.rmtree(self.nm())
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-again")
        self.other.reset_log()
        self.nub("install", "--frozen-lockfile", *flags)
        self.assertEqual(self.other.count(r"^/c/-/c-1\.0\.0\.tgz$"), 1)
        self.assertEqual(self.node_json(self.proj, "require('c').version"), "1.0.0")
        # offline, from the store
        shutil.rmtree(self.nm())
        self.nub("install", "--frozen-lockfile", "--offline", *flags)
        self.assertEqual(self.node_json(self.proj, "require('c').version"), "1.0.0")

    def test_isolated(self):
        self.check(["--node-linker", "isolated"])

    def test_hoisted(self):
        self.check(["--node-linker", "hoisted"])

    def test_same_bytes_as_pnpm(self):
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        self.project()
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        with open(os.path.join(theirs, ".npmrc"), "w") as f:
            f.write("registry=%s\n" % self.registry.url)
        self.run_cmd([pnpm, "install", "--lockfile-only", "--ignore-scripts"], cwd=theirs,
                     env={"npm_config_registry": None, "PNPM_HOME": None,
                          "npm_config_store_dir": os.path.join(self.tmp, "pnpm-store")})
        self.nub("install", "--lockfile-only")
        with open(os.path.join(theirs, "pnpm-lock.yaml")) as f, \
                open(os.path.join(self.proj, "nub.lock")) as g:
            self.assertEqual(g.read(), f.read())

    def test_a_url_that_is_not_there(self):
        url = self.other.url + "nope/-/nope-1.0.0.tgz"
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"nope": url}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 40, proc.stderr)
        self.assertIn(url, proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))


class GitDependencyTest(ResolveTestCase):
    """A dependency on a git repository (here a local one, git+file://):
    refs, tags, #semver: ranges and the default branch resolved to a commit
    with the system's git, checked out into the store keyed by that commit,
    recorded in nub.lock as pnpm records it ({commit, repo, type: git}),
    installed again from the lockfile into a cold store and offline; a ref
    that is not there names the dependency and the URL. (It failed with "a
    kind of dependency nub does not resolve yet" before.)"""

    def git(self, *args, cwd=None):
        env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
               "GIT_CONFIG_NOSYSTEM": "1", "HOME": self.home}
        return self.run_cmd(["git"] + list(args), cwd=cwd or self.repo, env=env).stdout.strip()

    def setUp(self):
        super().setUp()
        if not shutil.which("git"):
            self.skipTest("git is not installed")
        self.repo = os.path.join(self.tmp, "gitdep")
        os.makedirs(self.repo)
        self.git("init", "-q", "-b", "main")
        self.commits = {}
        # what npm packs: "files" (index.js, lib/ but not lib/*.test.js), README,
        # LICENSE, package.json; not test/, notes or the lockfile
        for rel, text in (("lib/x.js", "1"), ("lib/x.test.js", "2"), ("test/t.js", "3"),
                          ("notes.md", "4"), ("README.md", "5"), ("LICENSE", "6"),
                          ("package-lock.json", "{}"), (".npmrc", "x=1")):
            os.makedirs(os.path.dirname(os.path.join(self.repo, rel)), exist_ok=True)
            with open(os.path.join(self.repo, rel), "w") as f:
                f.write(text)
        for version in ("1.2.0", "1.3.0"):
            with open(os.path.join(self.repo, "package.json"), "w") as f:
                json.dump({"name": "gitdep", "version": version, "main": "index.js",
                           "files": ["index.js", "lib", "!lib/*.test.js"],
                           "dependencies": {"b": "^2.0.0"}}, f)
            with open(os.path.join(self.repo, "index.js"), "w") as f:
                f.write("module.exports = {name: 'gitdep', version: '%s', "
                        "deps: {b: require('b').version}};\n" % version)
            self.git("add", "-A")
            self.git("commit", "-q", "-m", version)
            self.git("tag", "-a", "v" + version, "-m", version)
            self.commits[version] = self.git("rev-parse", "HEAD")
        self.url = "git+file://" + self.repo

    def install(self, spec, *flags):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": {"gitdep": spec}})
        return self.nub("install", *flags)

    def got(self):
        return self.node_json(self.proj, "require('gitdep')")

    def test_scripts_not_run_name_it_once(self):
        # a git dependency with a prepare and a postinstall script, not
        # trusted: packed unprepared, and its postinstall not run, said once
        with open(os.path.join(self.repo, "package.json"), "w") as f:
            json.dump({"name": "gitdep", "version": "1.4.0", "main": "index.js",
                       "scripts": {"prepare": "echo p > prepared",
                                   "postinstall": "echo i > installed"}}, f)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "scripts")
        proc = self.install(self.url)
        lines = [l for l in proc.stderr.splitlines() if "not run" in l]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("1 dependency has install scripts that were not run: gitdep@1.4.0 "
                      "(a git dependency, packed unprepared). Approve it in package.json "
                      "\"trustedDependencies\"", lines[0])

    def test_a_failing_git_says_what_failed(self):
        # git says it on its "fatal:" line and adds advice after it
        gone = os.path.join(self.tmp, "no-such-repo")
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"gitdep": "git+file://" + gone}})
        proc = self.nub_fails("install")
        self.assertIn("does not appear to be a git repository", proc.stderr)
        self.assertNotIn("the repository exists", proc.stderr)

    def test_refs_tags_semver_and_the_default_branch(self):
        for spec, version in ((self.url + "#v1.2.0", "1.2.0"), (self.url + "#semver:~1.2.0", "1.2.0"),
                              (self.url + "#semver:^1.2.0", "1.3.0"), (self.url, "1.3.0"),
                              (self.url + "#main", "1.3.0"),
                              (self.url + "#" + self.commits["1.2.0"], "1.2.0")):
            with self.subTest(spec=spec):
                self.clean()
                self.install(spec)
                self.assertEqual(self.got(), {"name": "gitdep", "version": version,
                                              "deps": {"b": "2.0.0"}})
                with open(os.path.join(self.proj, "nub.lock")) as f:
                    lock = f.read()
                self.assertIn("commit: " + self.commits[version], lock)
                self.assertIn("type: git", lock)

    def test_semver_range_ignores_tags_out_of_range(self):
        # a tag only a loose parse reads ("v9.09.0") is judged by that version,
        # not taken as a match (it was: the strict check's error counted as yes)
        self.git("tag", "v9.09.0", self.commits["1.2.0"])
        self.install(self.url + "#semver:^1.2.0")
        self.assertEqual(self.got()["version"], "1.3.0")

    def test_an_abbreviated_commit(self):
        # npm and yarn take "#<short hash>"; git ls-remote lists no commits,
        # so nub finds it in a clone (before, it asked for all 40 digits)
        self.install(self.url + "#" + self.commits["1.2.0"][:9])
        self.assertEqual(self.got()["version"], "1.2.0")
        with open(os.path.join(self.proj, "nub.lock")) as f:
            self.assertIn("commit: " + self.commits["1.2.0"], f.read())
        self.clean()
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"gitdep": self.url + "#deadbeef1"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 40, proc.stderr)
        self.assertIn("has no commit deadbeef1", proc.stderr)

    def check_layout(self, *flags):
        self.install(self.url + "#v1.2.0", *flags)
        self.assertEqual(self.got()["version"], "1.2.0")
        # from the lockfile, into a cold store: cloned again at the commit
        shutil.rmtree(self.nm())
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-again")
        self.nub("install", "--frozen-lockfile", *flags)
        self.assertEqual(self.got()["version"], "1.2.0")
        # offline, from the store; .git is not part of the package
        shutil.rmtree(self.nm())
        self.nub("install", "--frozen-lockfile", "--offline", *flags)
        self.assertEqual(self.got()["version"], "1.2.0")
        pkg = os.path.realpath(self.nm("gitdep"))
        self.assertFalse(os.path.exists(os.path.join(pkg, ".git")))
        files = sorted(r for r in (os.path.relpath(os.path.join(d, f), pkg)
                                   for d, dirs, fs in os.walk(pkg) for f in fs)
                       if not r.startswith("node_modules/"))
        self.assertEqual(files, ["LICENSE", "README.md", "index.js", "lib/x.js", "package.json"])

    def test_isolated(self):
        self.check_layout("--node-linker", "isolated")

    def test_hoisted(self):
        self.check_layout("--node-linker", "hoisted")

    def test_from_an_npm_lockfile_the_tree_npm_ci_builds(self):
        npm = nubtest.tool("npm")
        if not npm:
            self.skipTest("npm is not installed")
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"gitdep": self.url + "#v1.2.0", "a": "^1.0.0"}})
        env = {"npm_config_registry": self.registry.url,
               "npm_config_cache": os.path.join(self.tmp, "npm-cache")}
        self.run_cmd([npm, "install", "--package-lock-only", "--ignore-scripts", "--no-audit",
                      "--no-fund"], cwd=self.proj, env=env)
        with open(os.path.join(self.proj, "package-lock.json")) as f:
            self.assertIn(self.commits["1.2.0"], f.read())
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.run_cmd([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=theirs,
                     env=env)
        self.nub("ci")

        def tree(root):
            out = set()
            for d, dirs, files in os.walk(os.path.join(root, "node_modules")):
                dirs[:] = [x for x in dirs if not x.startswith(".")]
                for f in files:
                    if not f.startswith("."):
                        out.add(os.path.relpath(os.path.join(d, f), root))
            return out
        self.assertEqual(tree(self.proj), tree(theirs))
        self.assertEqual(self.got()["version"], "1.2.0")

    def test_from_a_yarn_lockfile_the_tree_yarn_builds(self):
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("yarn is not installed")
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"gitdep": self.url + "#v1.2.0", "a": "^1.0.0"}})
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.run_cmd([yarn, "install", "--ignore-scripts", "--non-interactive",
                      "--registry", self.registry.url,
                      "--cache-folder", os.path.join(self.tmp, "yarn-cache")], cwd=theirs)
        with open(os.path.join(theirs, "yarn.lock")) as f:
            lock = f.read()
        # (yarn records an annotated tag by the tag object's hash, which
        # checks out as the commit it names)
        self.assertIn('resolved "' + self.url + "#", lock)
        shutil.copy(os.path.join(theirs, "yarn.lock"), self.proj)
        self.nub("install", "--frozen-lockfile")

        def tree(root):
            out = set()
            for d, dirs, files in os.walk(os.path.join(root, "node_modules")):
                dirs[:] = [x for x in dirs if not x.startswith(".")]
                out.update(os.path.relpath(os.path.join(d, f), root) for f in files
                           if not f.startswith("."))
            return out
        self.assertEqual(tree(self.proj), tree(theirs))
        with open(os.path.join(self.proj, "yarn.lock")) as f:
            self.assertEqual(f.read(), lock)

    def test_an_npmignore_packs_what_npm_packs(self):
        npm = nubtest.tool("npm")
        if not npm:
            self.skipTest("npm is not installed")
        repo = os.path.join(self.tmp, "ign")
        for rel, text in (("package.json", json.dumps({"name": "ign", "version": "1.0.0"})),
                          ("index.js", "module.exports = 1;"), ("README.md", "r"),
                          ("docs/guide.md", "g"), ("test/a.js", "t"), ("src/a.js", "s"),
                          ("src/a.spec.js", "x"), ("build/out.js", "b"), ("keep.log", "k"),
                          ("debug.log", "d"),
                          (".npmignore", "# comment\ntest/\n*.md\n!README.md\n*.spec.js\n"
                                         "/build\n*.log\n!keep.log\n")):
            os.makedirs(os.path.dirname(os.path.join(repo, rel)), exist_ok=True)
            with open(os.path.join(repo, rel), "w") as f:
                f.write(text)
        self.git("init", "-q", "-b", "main", cwd=repo)
        self.git("add", "-A", cwd=repo)
        self.git("commit", "-q", "-m", "x", cwd=repo)
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"ign": "git+file://" + repo}})
        env = {"npm_config_registry": self.registry.url,
               "npm_config_cache": os.path.join(self.tmp, "npm-cache")}
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        self.run_cmd([npm, "install", "--ignore-scripts", "--no-audit", "--no-fund"],
                     cwd=theirs, env=env)
        self.nub("install")

        def files(root):
            pkg = os.path.realpath(os.path.join(root, "node_modules", "ign"))
            return sorted(os.path.relpath(os.path.join(d, f), pkg)
                          for d, _, fs in os.walk(pkg) for f in fs)
        self.assertEqual(files(self.proj), files(theirs))
        self.assertIn("keep.log", files(self.proj))
        self.assertNotIn("docs/guide.md", files(self.proj))

    def test_nested_ignore_files_pack_what_npm_packs(self):
        # each directory's own .npmignore (else .gitignore) below the root,
        # with and without a "files" list, where the root's does not override
        # the list (before, only the root's was read)
        npm = nubtest.tool("npm")
        cases = {
            "nested": ({"name": "nested", "version": "1.0.0"},
                       (("index.js", "1"), ("a.log", "x"), (".npmignore", "*.log\n"),
                        ("src/.npmignore", "*.tmp\n!keep.tmp\n"), ("src/a.tmp", "1"),
                        ("src/keep.tmp", "1"), ("src/x.js", "1"), ("src/b.log", "1"),
                        ("lib/.gitignore", "gen/\n"), ("lib/gen/g.js", "1"), ("lib/l.js", "1"),
                        ("both/.npmignore", "n.js\n"), ("both/.gitignore", "g.js\n"),
                        ("both/n.js", "1"), ("both/g.js", "1")),
                       ["both/g.js", "index.js", "lib/l.js", "package.json", "src/keep.tmp",
                        "src/x.js"]),
            "listed": ({"name": "listed", "version": "1.0.0", "files": ["src", "index.js"]},
                       (("index.js", "1"), (".npmignore", "src/b.js\n"),
                        ("src/.npmignore", "c.js\n"), ("src/a.js", "1"), ("src/b.js", "1"),
                        ("src/c.js", "1"), ("other.js", "1")),
                       ["index.js", "package.json", "src/a.js", "src/b.js"]),
        }
        for name, (pj, files_in, want) in cases.items():
            with self.subTest(case=name):
                repo = os.path.join(self.tmp, "repo-" + name)
                for rel, text in (("package.json", json.dumps(pj)),) + files_in:
                    os.makedirs(os.path.dirname(os.path.join(repo, rel)), exist_ok=True)
                    with open(os.path.join(repo, rel), "w") as f:
                        f.write(text)
                self.git("init", "-q", "-b", "main", cwd=repo)
                self.git("add", "-A", "-f", cwd=repo)
                self.git("commit", "-q", "-m", "x", cwd=repo)
                proj = os.path.join(self.tmp, "proj-" + name)
                os.makedirs(proj)
                self.write_json(os.path.join(proj, "package.json"),
                                {"name": "p", "version": "1.0.0",
                                 "dependencies": {name: "git+file://" + repo}})
                self.nub("install", cwd=proj)

                def files(root):
                    pkg = os.path.realpath(os.path.join(root, "node_modules", name))
                    return sorted(os.path.relpath(os.path.join(d, f), pkg)
                                  for d, _, fs in os.walk(pkg) for f in fs)
                self.assertEqual(files(proj), want)
                if npm:
                    theirs = os.path.join(self.tmp, "theirs-" + name)
                    os.makedirs(theirs)
                    shutil.copy(os.path.join(proj, "package.json"), theirs)
                    self.run_cmd([npm, "install", "--ignore-scripts", "--no-audit", "--no-fund"],
                                 cwd=theirs, env={"npm_config_registry": self.registry.url,
                                                  "npm_config_cache": os.path.join(self.tmp, "npm-cache")})
                    self.assertEqual(files(proj), files(theirs))

    def test_cloned_once_when_resolved(self):
        # the resolver's checkout (for package.json) is what gets packed;
        # before, the fetch cloned the repository a second time
        real = shutil.which("git")
        bindir = os.path.join(self.tmp, "gitwrap")
        os.makedirs(bindir)
        log = os.path.join(self.tmp, "git.log")
        with open(os.path.join(bindir, "git"), "w") as f:
            f.write('#!/bin/sh\necho "$@" >> %s\nexec %s "$@"\n' % (log, real))
        os.chmod(os.path.join(bindir, "git"), 0o755)
        self.env["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
        for layout in ("isolated", "hoisted"):
            with self.subTest(layout=layout):
                if os.path.exists(log):
                    os.unlink(log)
                self.clean()
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-" + layout)
                self.install(self.url + "#v1.3.0", "--node-linker", layout)
                self.assertEqual(self.got()["version"], "1.3.0")
                with open(log) as f:
                    clones = [l for l in f if " clone " in l]
                self.assertEqual(len(clones), 1, clones)

    def test_a_ref_that_is_not_there(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"gitdep": self.url + "#v9.9.9"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 40, proc.stderr)
        self.assertIn("gitdep@", proc.stderr)
        self.assertIn(self.repo, proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))

    def test_a_repository_that_is_not_there(self):
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"gitdep": "git+file://" + self.tmp + "/nope"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 41, proc.stderr)
        self.assertIn("ls-remote", proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)


    # -- prepare: a git package built before it is packed, as npm does --

    def built_repo(self, build="node build.js", dev=None):
        """A repository whose package is built by its prepare script, which
        needs a devDependency (a): what npm packs is dist/, made by it."""
        repo = os.path.join(self.tmp, "built")
        os.makedirs(repo)
        with open(os.path.join(repo, "package.json"), "w") as f:
            json.dump({"name": "built", "version": "1.0.0", "main": "dist/index.js",
                       "files": ["dist"], "scripts": {"prepare": build} if build else {},
                       "devDependencies": dict({"a": "^1.0.0"}, **(dev or {})),
                       "trustedDependencies": ["built"] + list(dev or {})}, f)
        with open(os.path.join(repo, "build.js"), "w") as f:
            f.write("const fs = require('fs');\n"
                    "const a = require('a');\n"
                    "fs.mkdirSync('dist', {recursive: true});\n"
                    "fs.writeFileSync('dist/index.js', 'module.exports = ' +\n"
                    "  JSON.stringify({built: true, a: a.version}) + ';\\n');\n")
        self.git("init", "-q", "-b", "main", cwd=repo)
        self.git("add", "-A", cwd=repo)
        self.git("commit", "-q", "-m", "x", cwd=repo)
        return "git+file://" + repo

    def built_project(self, url, trusted=True):
        pj = {"name": "p", "version": "1.0.0", "dependencies": {"built": url}}
        if trusted:
            pj["trustedDependencies"] = ["built"]
        self.make_project(pj)

    def packed_files(self):
        pkg = os.path.realpath(self.nm("built"))
        return sorted(os.path.relpath(os.path.join(d, f), pkg)
                      for d, dirs, fs in os.walk(pkg) for f in fs)

    def check_prepared(self, *flags):
        self.built_project(self.built_repo())
        self.nub("install", *flags)
        self.assertEqual(self.node_json(self.proj, "require('built')"),
                         {"built": True, "a": "1.0.0"})
        # what npm pack takes after the build: no node_modules, no lockfile
        self.assertEqual(self.packed_files(), ["dist/index.js", "package.json"])
        self.assertFalse(os.path.exists(self.nm("a")), "a is the git package's devDependency")
        # again offline from the store, the prepared package kept there
        shutil.rmtree(self.nm())
        self.nub("install", "--frozen-lockfile", "--offline", *flags)
        self.assertEqual(self.node_json(self.proj, "require('built')")["built"], True)

    def test_prepare_runs_for_a_trusted_package_isolated(self):
        self.check_prepared("--node-linker", "isolated")

    def test_prepare_runs_for_a_trusted_package_hoisted(self):
        self.check_prepared("--node-linker", "hoisted")

    @nubtest.requires_npm
    def test_the_prepared_package_is_what_npm_installs(self):
        # npm prepares a git dependency the same way (its devDependencies
        # installed in the clone, prepare run, then packed): the same files
        # with the same bytes under node_modules/built
        url = self.built_repo()
        self.built_project(url)
        self.nub("install", "--node-linker", "hoisted")
        theirs = os.path.join(self.tmp, "theirs")
        os.makedirs(theirs)
        shutil.copy(os.path.join(self.proj, "package.json"), theirs)
        self.npm("install", "--no-audit", "--no-fund", cwd=theirs, timeout=300)

        self.assert_same_package(os.path.join(self.proj, "node_modules", "built"),
                                 os.path.join(theirs, "node_modules", "built"))

    def yarn_lock_for(self, url):
        """A yarn.lock as yarn 1 writes one for the built project."""
        commit = self.git("rev-parse", "HEAD", cwd=url[len("git+file://"):])
        with open(os.path.join(self.proj, "yarn.lock"), "w") as f:
            f.write('# yarn lockfile v1\n\n\n"built@%s":\n  version "1.0.0"\n'
                    '  resolved "%s#%s"\n' % (url, url, commit))

    def test_from_a_yarn_lockfile_prepared_as_yarn_prepares_it(self):
        # yarn 1 prepares a git package that has a prepare script (yarn
        # install, then yarn pack, in its checkout): the same files with the
        # same bytes as yarn's own install from the same yarn.lock
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("yarn is not installed")
        url = self.built_repo()
        self.built_project(url)
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs)
        # (the nested yarn install in the checkout reads the registry from
        # the environment)
        self.run_cmd([yarn, "install", "--non-interactive", "--registry", self.registry.url,
                      "--cache-folder", os.path.join(self.tmp, "yarn-cache")], cwd=theirs,
                     env={"npm_config_registry": self.registry.url,
                          "YARN_REGISTRY": self.registry.url}, timeout=300)
        shutil.copy(os.path.join(theirs, "yarn.lock"), self.proj)
        for linker in ("hoisted", "isolated"):
            if os.path.exists(self.nm()):
                shutil.rmtree(self.nm())
            self.nub("install", "--frozen-lockfile", "--node-linker", linker)
            for root in (self.proj, theirs):
                self.assertEqual(self.node_json(root, "require('built')"),
                                 {"built": True, "a": "1.0.0"})
            self.assert_same_package(os.path.realpath(self.nm("built")),
                                     os.path.join(theirs, "node_modules", "built"))
        # again offline from the store
        shutil.rmtree(self.nm())
        self.nub("install", "--frozen-lockfile", "--offline")
        self.assertEqual(self.node_json(self.proj, "require('built')")["built"], True)

    def test_from_a_yarn_lockfile_untrusted_packed_unprepared(self):
        url = self.built_repo()
        self.built_project(url, trusted=False)
        self.yarn_lock_for(url)
        proc = self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.packed_files(), ["package.json"])
        self.assertIn("built@1.0.0", proc.stderr)
        self.assertIn("trustedDependencies", proc.stderr)

    def test_from_a_yarn_lockfile_without_prepare_the_checkout(self):
        # no prepare script: yarn 1 installs the checkout as it is, every file
        url = self.built_repo(build=None)
        self.built_project(url)
        self.yarn_lock_for(url)
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.packed_files(), ["build.js", "package.json"])

    def assert_same_package(self, ours, theirs):
        """The same files in two package directories, with the same bytes
        (but package.json, to which npm and yarn add fields of their own)."""
        def files(pkg):
            out = {}
            for d, _, fs in os.walk(pkg):
                for f in fs:
                    with open(os.path.join(d, f), "rb") as fh:
                        out[os.path.relpath(os.path.join(d, f), pkg)] = fh.read()
            return out
        a, b = files(ours), files(theirs)
        self.assertEqual(sorted(a), sorted(b))
        for rel in a:
            if rel != "package.json":
                self.assertEqual(a[rel], b[rel], rel)

    def test_prepare_is_not_run_untrusted(self):
        self.built_project(self.built_repo(), trusted=False)
        proc = self.nub("install")
        self.assertEqual(self.packed_files(), ["package.json"])
        self.assertIn("built@1.0.0", proc.stderr)
        self.assertIn("trustedDependencies", proc.stderr)

    def test_trusting_it_later_prepares_it(self):
        url = self.built_repo()
        self.built_project(url, trusted=False)
        self.nub("install")
        self.assertEqual(self.packed_files(), ["package.json"])
        self.built_project(url, trusted=True)
        self.nub("install")
        self.assertEqual(self.packed_files(), ["dist/index.js", "package.json"])

    def test_prepare_is_not_run_with_ignore_scripts(self):
        self.built_project(self.built_repo())
        self.nub("install", "--ignore-scripts")
        self.assertEqual(self.packed_files(), ["package.json"])

    def test_a_cycle_of_git_packages_is_prepared_once(self):
        # its devDependency is itself: the nested install does not prepare
        # it again (as npm's _PACOTE_NO_PREPARE_), or it would never end
        repo = os.path.join(self.tmp, "built")
        self.built_project(self.built_repo(dev={"again": "git+file://" + repo}))
        self.nub("install", timeout=90)
        self.assertEqual(self.node_json(self.proj, "require('built')")["built"], True)

    def test_a_failing_prepare_names_the_package(self):
        self.built_project(self.built_repo(build="node -e 'process.exit(3)'"))
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 50, proc.stderr)
        self.assertIn("built@", proc.stderr)
        self.assertIn("prepare", proc.stderr)
        self.assertFalse(os.path.exists(self.nm("built")))

class OverridesTest(ResolveTestCase):
    """a@1.0.0 depends on b@^1.0.0; every override form forces b@2.0.0."""

    FORMS = {
        "npm overrides": {"overrides": {"b": "2.0.0"}},
        "npm nested overrides": {"overrides": {"a": {"b": "^2.0.0"}}},
        "yarn resolutions": {"resolutions": {"b": "2.0.0"}},
        "pnpm.overrides": {"pnpm": {"overrides": {"b": "2.0.0"}}},
        "pnpm.overrides parent>child": {"pnpm": {"overrides": {"a>b": "^2.0.0"}}},
        # a '>' inside the parent's range is not the separator
        "pnpm.overrides ranged parent>child": {"pnpm": {"overrides": {"a@>=1.0.0>b": "^2.0.0"}}},
    }

    def pj(self, extra=None):
        doc = {"name": "p", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}
        doc.update(extra or {})
        return doc

    def test_overrides_change_a_transitive_version(self):
        for label, extra in self.FORMS.items():
            with self.subTest(form=label):
                self.clean()
                self.write_pj(self.pj(extra))
                self.nub("install")
                lock = self.lock()
                self.assertEqual(self.snapshot_deps(lock["snapshots"]["a@1.0.0"]), {"b": "b@2.0.0"})
                self.assertEqual(sorted(lock["packages"]), ["a@1.0.0", "b@2.0.0"])
                self.assertEqual(self.node_json(self.proj, "require('a').deps"), {"b": "2.0.0"})

    # keys with a range, as npm reads them: "b@<range>" applies to a
    # dependency on b whose range intersects it, "a@<range>": {...} under an
    # a whose version satisfies it; each case against npm's own tree (and
    # npm's answer written down, for a machine without npm). Before, nub
    # dropped the ranges and applied every such key to every b.
    RANGED = [
        ({"b@^3.0.0": "1.0.0"}, {"a": "1.0.0", "c": "2.0.0"}),
        ({"b@^2.0.0": "1.0.0"}, {"a": "1.0.0", "c": "1.0.0"}),
        ({"a@2.0.0": {"b": "2.0.0"}}, {"a": "1.0.0", "c": "2.0.0"}),
        ({"a@^1.0.0": {"b": "2.0.0"}}, {"a": "2.0.0", "c": "2.0.0"}),
        ({"b@^3.0.0": "1.0.0", "a@^1.0.0": {"b": "2.0.0"}}, {"a": "2.0.0", "c": "2.0.0"}),
    ]

    def test_ranged_keys_apply_as_npm_applies_them(self):
        expr = "{a: require('a').deps.b, c: require('c').deps.b}"
        for overrides, want in self.RANGED:
            with self.subTest(overrides=overrides):
                self.clean()
                doc = {"name": "p", "version": "1.0.0",
                       "dependencies": {"a": "^1.0.0", "c": "^1.0.0"}, "overrides": overrides}
                self.write_pj(doc)
                self.nub("install")
                self.assertEqual(self.node_json(self.proj, expr), want)
                if nubtest.have_npm():
                    theirs = os.path.join(self.tmp, "npm-%d" % self.RANGED.index((overrides, want)))
                    os.makedirs(theirs)
                    self.write_pj(doc, proj=theirs)
                    self.npm("install", "--ignore-scripts", cwd=theirs)
                    self.assertEqual(self.node_json(theirs, expr), want, "npm")

    def install_with_override_then_drop_it(self):
        self.write_pj(self.pj(self.FORMS["npm overrides"]))
        self.nub("install")
        self.assertEqual(self.node_json(self.proj, "require('a').deps"), {"b": "2.0.0"})
        self.write_pj(self.pj())

    def test_dropping_an_override_re_resolves(self):
        # without the override a@1.0.0's range ^1.0.0 must win again
        self.install_with_override_then_drop_it()
        proc = self.nub("install")
        self.assertNotIn("Already up to date", proc.stdout)
        self.assertEqual(self.snapshot_deps(self.lock()["snapshots"]["a@1.0.0"]), {"b": "b@1.0.0"})
        self.assertEqual(self.node_json(self.proj, "require('a').deps"), {"b": "1.0.0"})

    def test_frozen_lockfile_rejects_changed_overrides(self):
        self.install_with_override_then_drop_it()
        shutil.rmtree(self.nm())
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("ERR_NUB_OUTDATED", proc.stderr)


class NoMatchingVersionTest(ResolveTestCase):

    def test_direct_dependency(self):
        self.write_pj({"name": "p", "version": "1.0.0", "dependencies": {"a": "^9.0.0"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 20, proc.stderr)
        self.assertIn("ERR_NUB_NOVERSION", proc.stderr)
        self.assertIn("^9.0.0", proc.stderr)
        self.assertRegex(proc.stderr, r"\ba\b")
        self.assertIn("the project", proc.stderr)
        self.assertIn("1.0.0", proc.stderr)          # the newest version
        # the packument was fetched, then refetched once before giving up
        self.assertEqual(self.registry.count(r"^/a(\?|$)", method="GET"), 2)
        self.assertFalse(os.path.exists(self.nm()))
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))

    def test_transitive_dependency_names_its_dependent(self):
        self.write_pj({"name": "p", "version": "1.0.0", "dependencies": {"c": "^1.0.0"},
                       "overrides": {"b": "^7.0.0"}})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 20, proc.stderr)
        self.assertIn("^7.0.0", proc.stderr)
        self.assertIn("c@1.0.0", proc.stderr)        # who asked for it
        self.assertIn("2.0.0", proc.stderr)          # newest versions of b
        self.assertEqual(self.registry.count(r"^/b(\?|$)", method="GET"), 2)


if __name__ == "__main__":
    nubtest.main()
