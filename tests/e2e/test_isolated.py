#!/usr/bin/env python3
"""The isolated layout `nub install` builds from nub.lock (or package.json):
node_modules/<dep> -> its entry in the global virtual store (<store>/v1/links
or a package tree), or without it -> .nub/<dir>/node_modules/<dep>,
dependencies as sibling links, the store's entries and their reuse, bins,
--prod, the frozen-lockfile modes, reinstalls (removals, repairs, "Already up
to date"), pnpm-lock.yaml projects, two lockfiles, and --offline.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_isolated.py
     (or ctest -R e2e.isolated)
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import nubtest
from test_resolve import (LockMixin, BASIC_IMPORTER, dep_key, dep_path_filename,
                          key_name, key_version)

PHASE_LINE = re.compile(r"^DEBUG phase:(\w+) (\S+) ?(?:\((.*)\))?$", re.M)
DIAG_KNOBS = ("NUB_DIAG_FILE", "NUB_DIAG_PRINT", "NUB_DIAG_THRESHOLD_MS", "NUB_DIAG_SUMMARY",
              "NUB_DIAG_CRITPATH", "NUB_DIAG_KERNEL", "NUB_BENCH_PHASES_FILE", "NUB_LOG",
              "RUST_LOG", "NUB_PLAT_FAULT")

# For each directory given: require() every declared dependency (its exports),
# and for every other name say whether require.resolve finds it and through
# which node_modules directory of the lookup path. One node for all of them.
PROBE = r"""
const M = require('module'), fs = require('fs'), path = require('path');
const out = {};
for (const [dir, declared, undeclared] of JSON.parse(process.argv[1])) {
  const req = M.createRequire(path.join(dir, 'noop.js'));
  const r = out[dir] = {declared: {}, undeclared: {}};
  for (const a of declared) {
    try { const m = req(a); r.declared[a] = {name: m.name, version: m.version, deps: m.deps}; }
    catch (e) { r.declared[a] = {error: String(e.code || e)}; }
  }
  const lookups = M._nodeModulePaths(dir);
  for (const u of undeclared) {
    try { req.resolve(u); r.undeclared[u] = {via: lookups.find(d => fs.existsSync(path.join(d, u)))}; }
    catch (e) { r.undeclared[u] = {error: String(e.code || e)}; }
  }
}
console.log(JSON.stringify(out));
"""


class IsolatedTestCase(LockMixin, nubtest.NubTestCase):

    def setUp(self):
        super().setUp()
        for k in DIAG_KNOBS:
            self.env.pop(k, None)

    # -- the graph nub.lock describes

    def installed_graph(self, lock, omit_dev=False):
        """{key: {name, version, dir, deps: {alias: key}}} for the packages an
        install on this platform creates (other-platform optional packages
        and, with omit_dev, dev-only ones left out)."""
        def fits(key):
            entry = lock["packages"].get(key.split("(", 1)[0], {})
            return nubtest.platform_ok(entry.get("os"), entry.get("cpu"))

        graph, todo = {}, []
        for alias, (field, spec, version) in self.importer_deps(lock).items():
            if omit_dev and field == "devDependencies":
                continue
            key = dep_key(alias, version)
            if key and fits(key):
                todo.append(key)
        while todo:
            key = todo.pop()
            if key in graph:
                continue
            deps = {a: k for a, k in self.snapshot_deps(lock["snapshots"][key]).items()
                    if k and fits(k)}
            graph[key] = {"name": key_name(key), "version": key_version(key),
                          "dir": dep_path_filename(key), "deps": deps}
            todo.extend(deps.values())
        return graph

    def direct_deps(self, lock, omit_dev=False):
        """{alias: key} of the direct dependencies that get installed."""
        out = {}
        graph = self.installed_graph(lock, omit_dev)
        for alias, (field, spec, version) in self.importer_deps(lock).items():
            key = dep_key(alias, version)
            if key in graph and not (omit_dev and field == "devDependencies"):
                out[alias] = key
        return out

    # -- looking at node_modules

    @staticmethod
    def listdir_names(path):
        """Package names in a node_modules dir (scopes expanded), without
        dot entries."""
        out = set()
        for entry in os.listdir(path):
            if entry.startswith("."):
                continue
            if entry.startswith("@"):
                out.update(entry + "/" + sub for sub in os.listdir(os.path.join(path, entry)))
            else:
                out.add(entry)
        return out

    def assert_relative_link_to(self, link, target):
        self.assertTrue(os.path.islink(link), "%s is not a symlink" % link)
        dest = os.readlink(link)
        self.assertFalse(os.path.isabs(dest), "%s -> %s is absolute" % (link, dest))
        self.assertEqual(os.path.normpath(os.path.join(os.path.dirname(link), dest)),
                         os.path.normpath(target), "%s -> %s" % (link, dest))
        self.assertTrue(os.path.exists(link), "%s -> %s dangles" % (link, dest))

    def links_dir(self, store=None):
        return os.path.join(store or self.store, "v1", "links")

    def entry_dirs(self, proj=None, omit_dev=False):
        """{key: real path of the directory whose node_modules holds the
        package} for every installed package, found as Node finds them: from
        the project's links to its direct dependencies, then from each
        package's links to its own. A key reached twice must be one
        directory."""
        proj = proj or self.proj
        lock = self.lock(proj)
        graph = self.installed_graph(lock, omit_dev)
        pkg_dirs, todo = {}, []

        def reach(key, link):
            real = os.path.realpath(link)
            if key in pkg_dirs:
                self.assertEqual(pkg_dirs[key], real, "%s reached as two directories" % key)
                return
            pkg_dirs[key] = real
            todo.append(key)

        for alias, key in self.direct_deps(lock, omit_dev).items():
            reach(key, self.nm(alias, proj=proj))
        while todo:
            key = todo.pop()
            g = graph[key]
            nm = pkg_dirs[key][: -len(g["name"]) - 1]
            for alias, dkey in g["deps"].items():
                reach(dkey, os.path.join(nm, alias))
        out = {}
        for key, real in pkg_dirs.items():
            suffix = os.sep + os.path.join("node_modules", graph[key]["name"])
            self.assertTrue(real.endswith(suffix), real)
            out[key] = real[: -len(suffix)]
        return out

    def assert_layout(self, gvs, proj=None, omit_dev=False, store=None):
        """node_modules is exactly the isolated layout of the project's
        nub.lock; returns the installed graph."""
        proj = proj or self.proj
        lock = self.lock(proj)
        graph = self.installed_graph(lock, omit_dev)
        direct = self.direct_deps(lock, omit_dev)
        nm = self.nm(proj=proj)
        vs = os.path.join(nm, ".nub")
        # top level: one link per direct dependency, relative into .nub, or
        # with the global virtual store absolute to its entry there
        self.assertEqual(self.listdir_names(nm), set(direct))
        entries = self.entry_dirs(proj, omit_dev)
        self.assertEqual(set(entries), set(graph))
        for alias, key in direct.items():
            with self.subTest(direct=alias):
                g = graph[key]
                link = os.path.join(nm, alias)
                if gvs:
                    self.assertTrue(os.path.islink(link), "%s is not a symlink" % link)
                    dest = os.readlink(link)
                    self.assertTrue(os.path.isabs(dest), "%s -> %s" % (link, dest))
                    self.assertEqual(dest, os.path.join(entries[key], "node_modules", g["name"]))
                else:
                    self.assert_relative_link_to(
                        link, os.path.join(vs, g["dir"], "node_modules", g["name"]))
        # .nub: one entry per package; with the global virtual store none
        # (every package here lives in the store)
        self.assertEqual(set(os.listdir(vs)) - {"node_modules"},
                         set() if gvs else {g["dir"] for g in graph.values()})
        links = os.path.realpath(self.links_dir(store))
        packages = os.path.realpath(os.path.join(store or self.store, "v1", "packages"))
        for key, g in sorted(graph.items()):
            with self.subTest(package=key):
                entry = entries[key]
                if gvs:
                    name = os.path.basename(entry)
                    if os.path.dirname(entry) == packages:
                        # a package tree that is the entry itself: its ready
                        # marker names the entry (see isolated.c)
                        name = os.readlink(os.path.join(entry, "ready"))
                    else:
                        self.assertEqual(os.path.dirname(entry), links, entry)
                    self.assertRegex(name, "^" + re.escape(g["dir"]) + "-[0-9a-f]{16}$")
                else:
                    self.assertEqual(entry, os.path.realpath(os.path.join(vs, g["dir"])))
                    self.assertFalse(os.path.islink(os.path.join(vs, g["dir"])), entry)
                own = os.path.join(entry, "node_modules")
                # the package itself plus exactly its declared dependencies
                self.assertEqual(self.listdir_names(own), {g["name"]} | set(g["deps"]))
                pkg_dir = os.path.join(own, g["name"])
                self.assertTrue(os.path.isdir(pkg_dir) and not os.path.islink(pkg_dir), pkg_dir)
                pj = self.read_json(os.path.join(pkg_dir, "package.json"))
                self.assertEqual((pj["name"], pj["version"]), (g["name"], g["version"]))
                for alias, dkey in g["deps"].items():
                    d = graph[dkey]
                    link = os.path.join(own, alias)
                    self.assertTrue(os.path.islink(link), link)
                    self.assertFalse(os.path.isabs(os.readlink(link)), link)
                    self.assertEqual(
                        os.path.realpath(link),
                        os.path.join(entries[dkey], "node_modules", d["name"]),
                        "%s of %s" % (alias, key))
        hoist = os.path.join(vs, "node_modules")
        if gvs:
            # Node resolves a package in the global virtual store from its
            # real path there, never through the project: no hidden hoist
            # is made when every package lives in the store
            self.assertFalse(os.path.exists(hoist), hoist)
        else:
            # the hidden hoist has every installed name once
            self.assertEqual(self.listdir_names(hoist), {g["name"] for g in graph.values()})
        return graph

    def assert_requires(self, gvs, proj=None, omit_dev=False):
        """node: every direct dependency loads from the project; from each
        package's real directory its declared dependencies load with the
        locked versions and undeclared names do not come from the package's
        own directory: with the global virtual store they do not resolve at
        all; without it only the project's hidden hoist
        (node_modules/.nub/node_modules) or node_modules provide them."""
        if not nubtest.have_node():
            self.skipTest("node is not installed")
        proj = proj or self.proj
        lock = self.lock(proj)
        graph = self.installed_graph(lock, omit_dev)
        direct = self.direct_deps(lock, omit_dev)
        names = {g["name"] for g in graph.values()} | set(direct)
        jobs = [[os.path.realpath(proj), sorted(direct), []]]
        entries = self.entry_dirs(proj, omit_dev)
        for key, g in sorted(graph.items()):
            real = os.path.join(entries[key], "node_modules", g["name"])
            jobs.append([real, sorted(g["deps"]), sorted(names - set(g["deps"]) - {g["name"]})])
        proc = self.run_cmd(["node", "-e", PROBE, json.dumps(jobs)], cwd=proj)
        out = json.loads(proc.stdout)
        got = out[jobs[0][0]]["declared"]
        for alias, key in direct.items():
            self.assertEqual((got[alias].get("name"), got[alias].get("version")),
                             (graph[key]["name"], graph[key]["version"]),
                             "the project requires %s: %s" % (alias, got[alias]))
        allowed_via = {os.path.realpath(os.path.join(proj, "node_modules", ".nub", "node_modules")),
                       os.path.realpath(os.path.join(proj, "node_modules"))}
        for (real, declared, undeclared), (key, g) in zip(jobs[1:], sorted(graph.items())):
            with self.subTest(package=key):
                res = out[real]
                for alias in declared:
                    d = graph[g["deps"][alias]]
                    self.assertEqual(res["declared"][alias].get("version"), d["version"],
                                     "%s requires %s: %s" % (key, alias, res["declared"][alias]))
                    self.assertEqual(res["declared"][alias].get("name"), d["name"])
                for name in undeclared:
                    r = res["undeclared"][name]
                    if gvs:
                        self.assertEqual(r, {"error": "MODULE_NOT_FOUND"},
                                         "%s (in the global virtual store) resolves undeclared %s"
                                         % (key, name))
                    elif "via" in r:
                        self.assertIn(os.path.realpath(r["via"]), allowed_via,
                                      "%s finds undeclared %s through %s" % (key, name, r["via"]))
        # builtins always load
        self.assertEqual(self.node_json(proj, "typeof require('fs').readFileSync"), "function")

    def gvs_targets(self, proj=None):
        """{dir: entry} for the packages whose entries are in the store."""
        proj = proj or self.proj
        graph = self.installed_graph(self.lock(proj))
        vs = os.path.realpath(self.nm(".nub", proj=proj))
        return {graph[k]["dir"]: e for k, e in self.entry_dirs(proj).items()
                if os.path.dirname(e) != vs}

    def phase_lines(self, stderr):
        return {m.group(1): m for m in PHASE_LINE.finditer(stderr)}

    def rm(self, *parts):
        p = os.path.join(self.proj, *parts)
        if os.path.islink(p) or os.path.isfile(p):
            os.unlink(p)
        elif os.path.isdir(p):
            shutil.rmtree(p)


class LayoutTest(IsolatedTestCase):
    """The basic project (a -> b@1, c -> b@2, @scope/d -> a, bins, optional
    deps per platform, a dev dependency) resolved and installed."""

    def setUp(self):
        super().setUp()
        self.make_project("basic")

    def test_layout_with_global_virtual_store(self):
        self.nub("install")
        self.assertEqual(self.lock()["importers"], {".": BASIC_IMPORTER})
        graph = self.assert_layout(gvs=True)
        # a, b@1, b@2, c, @scope/d, e, dev-only and the opt-* for this platform
        opts = [self.read_json(os.path.join(nubtest.PACKAGES_DIR, o + "@1.0.0", "package.json"))
                for o in ("opt-linux", "opt-darwin", "opt-win")]
        self.assertEqual(len(graph), 7 + sum(nubtest.platform_ok(m.get("os"), m.get("cpu")) for m in opts))
        # every entry the project uses is in the store: in links/, or a package
        # tree that is its own entry
        homes = {os.path.realpath(self.links_dir()),
                 os.path.realpath(os.path.join(self.store, "v1", "packages"))}
        for t in self.gvs_targets().values():
            self.assertTrue(os.path.isdir(t), t)
            self.assertIn(os.path.realpath(os.path.dirname(t)), homes, t)
        self.assert_requires(gvs=True)

    def test_layout_without_global_virtual_store(self):
        self.nub("install", "--no-global-virtual-store")
        self.assert_layout(gvs=False)
        self.assertEqual(self.gvs_targets(), {})
        links = self.links_dir()
        self.assertEqual(os.listdir(links) if os.path.isdir(links) else [], [])
        self.assert_requires(gvs=False)

    def test_npmrc_turns_global_virtual_store_off(self):
        with open(os.path.join(self.proj, ".npmrc"), "w") as f:
            f.write("enable-global-virtual-store=false\n")
        self.nub("install")
        self.assert_layout(gvs=False)

    def test_warm_store_second_project_reuses_entries(self):
        self.nub("install")
        first = self.gvs_targets()
        entries = sorted(os.listdir(self.links_dir()))
        proj2 = os.path.join(self.tmp, "proj2")
        os.makedirs(proj2)
        shutil.copy(os.path.join(self.proj, "package.json"), proj2)
        diag = os.path.join(self.tmp, "diag.jsonl")
        self.registry.reset_log()
        proc = self.nub("install", cwd=proj2, env={"NUB_LOG": "debug", "NUB_DIAG_FILE": diag})
        self.assertEqual(self.gvs_targets(proj2), first)
        self.assertEqual(sorted(os.listdir(self.links_dir())), entries)
        phases = self.phase_lines(proc.stderr)
        self.assertIn("link", phases, proc.stderr)
        self.assertRegex(phases["link"].group(3) or "", r"^0 files\b", phases["link"].group(0))
        with open(diag) as f:
            events = [json.loads(line) for line in f]
        self.assertEqual([e for e in events if e["cat"] == "linker"], [])
        self.assertEqual(self.registry.count(r"\.tgz$"), 0)
        self.assertEqual(self.lock_text(proj2), self.lock_text())
        self.assert_layout(gvs=True, proj=proj2)
        self.assert_requires(gvs=True, proj=proj2)

    def test_switching_global_virtual_store_off_and_on(self):
        self.nub("install")
        self.assert_layout(gvs=True)
        self.nub("install", "--no-global-virtual-store")
        self.assert_layout(gvs=False)
        self.assert_requires(gvs=False)
        self.nub("install")
        self.assert_layout(gvs=True)
        self.assert_requires(gvs=True)

    def test_bins_of_direct_dependencies(self):
        self.nub("install")
        bin_dir = self.nm(".bin")
        self.assertEqual(sorted(os.listdir(bin_dir)), ["c-cli", "d"])
        for name, target in (("c-cli", ("c", "bin", "cli.js")), ("d", ("@scope", "d", "bin", "d.js"))):
            with self.subTest(bin=name):
                link = os.path.join(bin_dir, name)
                self.assertTrue(os.path.islink(link))
                self.assertFalse(os.path.isabs(os.readlink(link)))
                self.assertEqual(os.path.realpath(link), os.path.realpath(self.nm(*target)))
                self.assertExecutable(os.path.realpath(link))
        if nubtest.have_node():
            out = self.run_cmd([os.path.join(bin_dir, "c-cli"), "x"]).stdout
            self.assertEqual(out.strip(), "c-cli 1.0.0 b@2.0.0 x")
            out = self.run_cmd([os.path.join(bin_dir, "d")]).stdout
            self.assertEqual(out.strip(), "d 1.0.0 a@1.0.0")

    def test_prod_leaves_dev_dependencies_out(self):
        self.nub("install", "--prod")
        self.assertFalse(os.path.lexists(self.nm("dev-only")))
        self.assertFalse(os.path.lexists(self.nm(".nub", "dev-only@1.0.0")))
        self.assertFalse(os.path.lexists(self.nm(".nub", "node_modules", "dev-only")))
        # the lockfile still has it
        self.assertIn("dev-only", self.lock()["importers"]["."]["devDependencies"])
        self.assert_layout(gvs=True, omit_dev=True)
        self.assert_requires(gvs=True, omit_dev=True)
        proc = self.nub("install")
        self.assertNotIn("Already up to date", proc.stdout)
        self.assert_layout(gvs=True)


class FrozenModesTest(IsolatedTestCase):

    def change_spec(self, name, spec, field="dependencies"):
        def fn(doc):
            doc[field][name] = spec
        self.edit_pj(fn)

    def test_frozen_lockfile_rejects_changed_specifier(self):
        self.make_project("basic")
        self.nub("install")
        lock_before = self.lock_text()
        self.change_spec("c", "1.0.0")
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertIn("ERR_NUB_OUTDATED", proc.stderr)
        self.assertRegex(proc.stderr, r"\bc\b.*'1\.0\.0'")
        self.assertEqual(self.lock_text(), lock_before)
        self.assert_layout(gvs=True)

    def test_frozen_lockfile_rejects_added_and_removed_dependencies(self):
        self.make_project("basic")
        self.nub("install", "--lockfile-only")
        self.edit_pj(lambda d: d["dependencies"].update({"pre": "^1.0.0"}))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertRegex(proc.stderr, r"\bpre\b")
        self.edit_pj(lambda d: (d["dependencies"].pop("pre"), d["dependencies"].pop("e")))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertRegex(proc.stderr, r"\be\b")
        self.assertFalse(os.path.exists(self.nm()))

    def locked_project(self):
        """b locked at 1.0.0 under the range '>=1.0.0' (as if locked before
        b@2.0.0 existed: a fresh resolution picks 2.0.0), e ^1.0.0, a ^1.0.0."""
        self.write_pj({"name": "p", "version": "1.0.0",
                       "dependencies": {"a": "^1.0.0", "b": "1.0.0", "e": "^1.0.0"}})
        self.nub("install", "--lockfile-only")
        text = self.lock_text()
        edited = re.sub(r"(\n      b:\n        specifier: )1\.0\.0\n", "\\1'>=1.0.0'\n", text)
        self.assertNotEqual(edited, text)
        with open(os.path.join(self.proj, "nub.lock"), "w") as f:
            f.write(edited)
        self.change_spec("b", ">=1.0.0")
        # consistent: a frozen install takes it as is
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.lock_text(), edited)
        self.assertEqual(self.node_json(self.proj, "require('b').version"), "1.0.0")

    def test_default_mode_re_resolves_keeping_locked_versions(self):
        self.locked_project()
        self.change_spec("e", "~1.0.0")
        proc = self.nub("install")
        self.assertNotIn("Already up to date", proc.stdout)
        deps = self.importer_deps(self.lock())
        self.assertEqual(deps["e"], ("dependencies", "~1.0.0", "1.0.0"))
        self.assertEqual(deps["b"], ("dependencies", ">=1.0.0", "1.0.0"))   # kept
        self.assertEqual(deps["a"], ("dependencies", "^1.0.0", "1.0.0"))
        self.assertNotIn("b@2.0.0", self.lock()["packages"])
        self.assertEqual(self.node_json(self.proj, "require('b').version"), "1.0.0")
        self.assert_layout(gvs=True)

    def assert_fresh_resolution(self):
        deps = self.importer_deps(self.lock())
        self.assertEqual(deps["b"], ("dependencies", ">=1.0.0", "2.0.0"))
        self.assertEqual(self.node_json(self.proj, "require('b').version"), "2.0.0")
        self.assertEqual(self.node_json(self.proj, "require('a').deps"), {"b": "1.0.0"})
        self.assert_layout(gvs=True)

    def test_no_frozen_lockfile_re_resolves(self):
        self.locked_project()
        self.rm("node_modules")
        self.nub("install", "--no-frozen-lockfile")
        self.assert_fresh_resolution()

    def test_no_frozen_lockfile_re_resolves_an_installed_project(self):
        # same as above, but node_modules is up to date with the lockfile:
        # the flag still asks for a new resolution
        self.locked_project()
        proc = self.nub("install", "--no-frozen-lockfile")
        self.assertNotIn("Already up to date", proc.stdout)
        self.assert_fresh_resolution()

    def test_lockfile_only(self):
        self.make_project("basic")
        self.nub("install", "--lockfile-only")
        self.assertFalse(os.path.exists(self.nm()))
        self.assertEqual(self.lock()["importers"], {".": BASIC_IMPORTER})
        self.assertEqual(self.registry.count(r"\.tgz$"), 0)
        # with an existing node_modules: the lockfile changes, node_modules does not
        self.nub("install")
        before = self.tree(self.nm())
        self.edit_pj(lambda d: d["dependencies"].pop("e"))
        self.nub("install", "--lockfile-only")
        self.assertNotIn("e", self.importer_deps(self.lock()))
        self.assertEqual(self.tree(self.nm()), before)

    def test_ci_is_frozen_by_default_with_a_lockfile(self):
        self.make_project("basic")
        # without a lockfile CI does not stop an install (and one is written)
        self.nub("install", env={"CI": "1"})
        self.assertTrue(os.path.isfile(os.path.join(self.proj, "nub.lock")))
        self.change_spec("c", "1.0.0")
        proc = self.nub_fails("install", env={"CI": "1"})
        self.assertEqual(proc.returncode, 16, proc.stderr)
        self.assertRegex(proc.stderr, r"\bc\b")
        # flags still win over the CI default
        self.nub("install", "--no-frozen-lockfile", env={"CI": "1"})
        self.assertEqual(self.importer_deps(self.lock())["c"], ("dependencies", "1.0.0", "1.0.0"))


class ReinstallTest(IsolatedTestCase):

    def setUp(self):
        super().setUp()
        self.make_project("basic")

    def test_removed_dependency_leaves_node_modules(self):
        self.nub("install")
        self.edit_pj(lambda d: d["dependencies"].pop("c"))
        self.nub("install")
        lock = self.lock()
        self.assertNotIn("c", self.importer_deps(lock))
        self.assertNotIn("c@1.0.0", lock["packages"])
        self.assertNotIn("b@2.0.0", lock["packages"])     # only c wanted it
        self.assertFalse(os.path.lexists(self.nm("c")))
        self.assertFalse(os.path.lexists(self.nm(".nub", "c@1.0.0")))
        self.assertFalse(os.path.lexists(self.nm(".nub", "b@2.0.0")))
        self.assertFalse(os.path.lexists(self.nm(".nub", "node_modules", "c")))
        self.assertFalse(os.path.lexists(self.nm(".bin", "c-cli")))
        self.assert_layout(gvs=True)
        self.assert_requires(gvs=True)

    def test_already_up_to_date(self):
        t0 = time.monotonic()
        self.nub("install")
        first = time.monotonic() - t0
        self.registry.reset_log()
        t0 = time.monotonic()
        proc = self.nub("install")
        second = time.monotonic() - t0
        sys.stderr.write("\n    first install %.1f ms, \"Already up to date\" run %.1f ms ... "
                         % (first * 1000, second * 1000))
        self.assertEqual(proc.stdout.strip(), "Already up to date")
        self.assertEqual(self.registry.requests, [])
        self.assert_layout(gvs=True)

    def test_deleted_direct_dependency_is_repaired(self):
        self.nub("install")
        self.rm("node_modules", "c")
        proc = self.nub("install")
        self.assertNotIn("Already up to date", proc.stdout)
        self.assert_layout(gvs=True)
        self.assertEqual(self.node_json(self.proj, "require('c').deps"), {"b": "2.0.0"})

    def test_deleted_virtual_store_entry_is_repaired(self):
        # node_modules/a stays, but the entry it points to in the global
        # virtual store is gone
        self.nub("install")
        shutil.rmtree(self.gvs_targets()["a@1.0.0"])
        self.assertFalse(os.path.exists(self.nm("a")))
        proc = self.nub("install")
        self.assertNotIn("Already up to date", proc.stdout)
        self.assert_layout(gvs=True)
        self.assertEqual(self.node_json(self.proj, "require('a').deps"), {"b": "1.0.0"})


class LockfileKindsTest(IsolatedTestCase):

    def test_pnpm_lock_yaml_is_used_and_kept(self):
        self.make_project("basic")
        self.nub("install", "--lockfile-only")
        os.rename(os.path.join(self.proj, "nub.lock"), os.path.join(self.proj, "pnpm-lock.yaml"))
        original = self.lock_text(name="pnpm-lock.yaml")
        # a fresh store (no packument cache): the lockfile is the resolution
        self.env["NUB_STORE_DIR"] = store = os.path.join(self.tmp, "store2")
        self.registry.reset_log()
        self.nub("install")
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.assertEqual(self.lock_text(name="pnpm-lock.yaml"), original)
        self.assertEqual([r["path"] for r in self.registry.requests
                          if not r["path"].endswith(".tgz")], [])
        self.lock_name = "pnpm-lock.yaml"     # what self.lock() reads
        self.assert_layout(gvs=True, store=store)
        self.assert_requires(gvs=True)
        # a change to package.json updates pnpm-lock.yaml, still no nub.lock
        self.edit_pj(lambda d: d["dependencies"].update({"pre": "^1.0.0"}))
        self.nub("install")
        self.assertFalse(os.path.exists(os.path.join(self.proj, "nub.lock")))
        self.assertEqual(self.importer_deps(self.lock())["pre"], ("dependencies", "^1.0.0", "1.0.0"))
        self.assertEqual(self.node_json(self.proj, "require('pre').version"), "1.0.0")

    def pnpm_frozen_copy(self):
        """pnpm's own frozen install of a copy of the project (without its
        node_modules): the copy's folder, or None without pnpm."""
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            return None
        theirs = os.path.join(self.tmp, "theirs")
        shutil.copytree(self.proj, theirs, ignore=shutil.ignore_patterns("node_modules"))
        self.run_cmd([pnpm, "install", "--frozen-lockfile", "--ignore-scripts",
                      "--store-dir", os.path.join(self.tmp, "pnpm-store"),
                      "--registry", self.registry.url], cwd=theirs)
        return theirs

    def run_pnpm(self, cwd, *args):
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("SKIP: pnpm is not installed")
        return self.run_cmd([pnpm] + list(args) + [
            "--ignore-scripts", "--store-dir", os.path.join(self.tmp, "pnpm-store"),
            "--registry", self.registry.url], cwd=cwd, env={"CI": None})

    def test_a_merge_conflict_in_pnpm_lock_yaml_as_pnpm_merges_it(self):
        # pnpm reads both sides of git's markers ("Merge conflict detected
        # in pnpm-lock.yaml and successfully merged"), then installs and
        # writes the file back: nub gives pnpm's bytes, CI refuses the file
        theirs = self.merge_conflict("pnpm-lock.yaml", lambda d: self.run_pnpm(d, "install"))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("merge-conflict", proc.stderr)
        proc = self.nub("install")
        self.assertIn("pnpm-lock.yaml has merge-conflict markers: both sides merged",
                      proc.stderr)
        self.run_pnpm(theirs, "install")
        self.lock_name = "pnpm-lock.yaml"
        self.assertEqual(self.lock_text(name="pnpm-lock.yaml"),
                         self.lock_text(theirs, "pnpm-lock.yaml"))
        self.assert_requires(gvs=True)
        frozen = self.pnpm_frozen_copy()
        self.assertEqual(self.lock_text(frozen, "pnpm-lock.yaml"),
                         self.lock_text(name="pnpm-lock.yaml"))

    def test_a_hand_edit_keeps_the_lockfiles_facts_as_pnpm_does(self):
        # pnpm writes a package its lockfile already has with the facts the
        # file states (here a deprecation the registry does not have, and
        # no cpu), not the registry's of today; a new package has the
        # registry's
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"c": "^1.0.0", "opt-linux": "^1.0.0"}})
        self.run_pnpm(self.proj, "install", "--lockfile-only")
        path = os.path.join(self.proj, "pnpm-lock.yaml")
        with open(path) as f:
            text = f.read()
        text = text.replace("    hasBin: true\n", "    deprecated: an old notice\n", 1)
        text = re.sub(r"(  opt-linux@1\.0\.0:\n    resolution: \{[^\n]*\}\n)    cpu: \[x64\]\n",
                      r"\1", text)
        self.assertIn("deprecated: an old notice", text)
        with open(path, "w") as f:
            f.write(text)
        theirs = os.path.join(self.tmp, "theirs-facts")
        shutil.copytree(self.proj, theirs)
        for d in (self.proj, theirs):
            self.write_json(os.path.join(d, "package.json"),
                            {"name": "p", "version": "1.0.0",
                             "dependencies": {"a": "^1.0.0", "c": "^1.0.0",
                                              "opt-linux": "^1.0.0"}})
        self.nub("install", "--lockfile-only")
        self.run_pnpm(theirs, "install", "--lockfile-only")
        ours = self.lock_text(name="pnpm-lock.yaml")
        self.assertEqual(ours, self.lock_text(theirs, "pnpm-lock.yaml"))
        self.assertIn("deprecated: an old notice", ours)
        self.assertIn("  a@1.0.0:", ours)

    def test_an_add_moves_the_others_onto_the_added_version_as_pnpm_does(self):
        # fresh-user's fresh is locked at 1.0.0; `add fresh@^1.1.0` gives the
        # project 1.1.0, and pnpm moves fresh-user's edge onto it (its range
        # allows it) where npm and bun keep the pin
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"fresh": "1.0.0", "fresh-user": "^1.0.0"}})
        with open(os.path.join(self.proj, "pnpm-workspace.yaml"), "w") as f:
            f.write("minimumReleaseAge: 0\n")
        self.run_pnpm(self.proj, "install", "--lockfile-only")
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "p", "version": "1.0.0",
                         "dependencies": {"fresh-user": "^1.0.0"}})
        self.run_pnpm(self.proj, "install", "--lockfile-only")
        self.assertIn("      fresh: 1.0.0\n", self.lock_text(name="pnpm-lock.yaml"))
        theirs = os.path.join(self.tmp, "theirs-add")
        shutil.copytree(self.proj, theirs)
        self.nub("add", "fresh@^1.1.0", "--lockfile-only")
        self.run_pnpm(theirs, "add", "fresh@^1.1.0", "--lockfile-only")
        for name in ("package.json", "pnpm-lock.yaml"):
            self.assertEqual(self.lock_text(name=name), self.lock_text(theirs, name), name)
        text = self.lock_text(name="pnpm-lock.yaml")
        self.assertIn("      fresh: 1.1.0\n", text)
        self.assertNotIn("fresh@1.0.0", text)

    def test_a_remove_prunes_as_pnpm_does(self):
        # a lockfile as an older pnpm wrote it (plug-host without the
        # optional peer brings-extra's plug-extra gives it, which today's
        # pnpm resolves): `remove a` prunes the file, it resolves nothing
        # again, so plug-host stays as the file had it
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"a": "^1.0.0", "brings-extra": "^1.0.0",
                                            "plug-host": "^1.0.0"}})
        with open(os.path.join(self.proj, "pnpm-workspace.yaml"), "w") as f:
            f.write("minimumReleaseAge: 0\n")
        self.run_pnpm(self.proj, "install", "--lockfile-only")
        path = os.path.join(self.proj, "pnpm-lock.yaml")
        with open(path) as f:
            text = f.read()
        self.assertIn("plug-host@1.0.0(plug-extra@1.0.0)", text)
        text = text.replace("plug-host@1.0.0(plug-extra@1.0.0)", "plug-host@1.0.0")
        text = text.replace("version: 1.0.0(plug-extra@1.0.0)", "version: 1.0.0")
        text = text.replace("  plug-host@1.0.0:\n    optionalDependencies:\n"
                            "      plug-extra: 1.0.0\n", "  plug-host@1.0.0: {}\n")
        with open(path, "w") as f:
            f.write(text)
        theirs = os.path.join(self.tmp, "theirs-remove")
        shutil.copytree(self.proj, theirs)
        self.nub("remove", "a", "--lockfile-only")
        self.run_pnpm(theirs, "remove", "a", "--lockfile-only")
        for name in ("package.json", "pnpm-lock.yaml"):
            self.assertEqual(self.lock_text(name=name), self.lock_text(theirs, name), name)
        text = self.lock_text(name="pnpm-lock.yaml")
        self.assertIn("  plug-host@1.0.0: {}\n", text)
        self.assertNotIn("\n  a@1.0.0:", text)

    def test_an_add_takes_the_version_another_project_depends_on_as_pnpm_does(self):
        # a member depends on fresh (locked at 1.1.0); `add fresh` at the
        # root saves ^1.1.0 where the registry's latest is 2.0.0, as pnpm
        # prefers a version a project of the workspace depends on
        self.make_project({"name": "p", "version": "1.0.0", "private": True})
        with open(os.path.join(self.proj, "pnpm-workspace.yaml"), "w") as f:
            f.write("packages:\n  - member\nminimumReleaseAge: 0\n")
        os.makedirs(os.path.join(self.proj, "member"))
        self.write_json(os.path.join(self.proj, "member", "package.json"),
                        {"name": "member", "version": "1.0.0",
                         "dependencies": {"fresh": "^1.0.0"}})
        self.run_pnpm(self.proj, "install", "--lockfile-only")
        theirs = os.path.join(self.tmp, "theirs-ws-add")
        shutil.copytree(self.proj, theirs)
        self.nub("add", "-w", "fresh", "--lockfile-only")
        self.run_pnpm(theirs, "add", "-w", "fresh", "--lockfile-only")
        for name in ("package.json", "pnpm-lock.yaml"):
            self.assertEqual(self.lock_text(name=name), self.lock_text(theirs, name), name)
        self.assertEqual(self.read_json(os.path.join(self.proj, "package.json"))
                         ["dependencies"]["fresh"], "^1.1.0")

    def test_update_moves_the_range_as_pnpm_does(self):
        # fresh ^1.0.0 locked at 1.0.0 (1.1.0 is out), and the same through
        # the default catalog: `update` writes ^1.1.0 into package.json and
        # into pnpm-workspace.yaml's catalog, as pnpm does
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"fresh": "1.0.0", "fresh-user": "1.0.0"}})
        ws = os.path.join(self.proj, "pnpm-workspace.yaml")
        with open(ws, "w") as f:
            f.write("minimumReleaseAge: 0\n")
        self.run_pnpm(self.proj, "install", "--lockfile-only")
        # the ranges loosened by hand, the pins kept (pnpm accepts it frozen)
        self.write_json(os.path.join(self.proj, "package.json"),
                        {"name": "p", "version": "1.0.0",
                         "dependencies": {"fresh": "^1.0.0", "fresh-user": "catalog:"}})
        with open(ws, "w") as f:
            f.write("minimumReleaseAge: 0\ncatalog:\n  fresh-user: ^1.0.0\n")
        path = os.path.join(self.proj, "pnpm-lock.yaml")
        with open(path) as f:
            text = f.read()
        text = text.replace("      fresh:\n        specifier: 1.0.0\n",
                            "      fresh:\n        specifier: ^1.0.0\n")
        text = text.replace("      fresh-user:\n        specifier: 1.0.0\n",
                            "      fresh-user:\n        specifier: 'catalog:'\n")
        text = text.replace("importers:\n", "catalogs:\n  default:\n    fresh-user:\n"
                            "      specifier: ^1.0.0\n      version: 1.0.0\n\nimporters:\n")
        with open(path, "w") as f:
            f.write(text)
        self.run_pnpm(self.proj, "install", "--lockfile-only", "--frozen-lockfile")
        theirs = os.path.join(self.tmp, "theirs-update")
        shutil.copytree(self.proj, theirs)
        self.nub("update", "fresh", "fresh-user", "--lockfile-only")
        self.run_pnpm(theirs, "update", "fresh", "fresh-user", "--lockfile-only")
        for name in ("package.json", "pnpm-workspace.yaml", "pnpm-lock.yaml"):
            self.assertEqual(self.lock_text(name=name), self.lock_text(theirs, name), name)
        self.assertEqual(self.read_json(os.path.join(self.proj, "package.json"))
                         ["dependencies"]["fresh"], "^1.1.0")

    def test_a_merge_conflict_in_nub_lock(self):
        # nub.lock is pnpm's format: merged by pnpm's rule
        self.merge_conflict("nub.lock", lambda d: self.nub("install", "--ignore-scripts", cwd=d))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.nub("install")
        text = self.lock_text()
        self.assertNotIn("<<<<<<<", text)
        deps = self.importer_deps(self.lock())
        self.assertEqual(sorted(deps), ["c", "dev-only", "fresh-user"])
        self.assert_requires(gvs=True)
        self.assertEqual(self.nub("install", "--frozen-lockfile").returncode, 0)

    PNPM_OTHER_PLATFORM = """lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    dependencies:
      a:
        specifier: ^1.0.0
        version: 1.0.0
      %(o)s:
        specifier: ^1.0.0
        version: 1.0.0

packages:

  a@1.0.0:
    resolution: {integrity: @@INTEGRITY:a@1.0.0@@}

  b@1.0.0:
    resolution: {integrity: @@INTEGRITY:b@1.0.0@@}

  %(o)s@1.0.0:
    resolution: {integrity: @@INTEGRITY:%(o)s@1.0.0@@}
    os: [%(os)s]

snapshots:

  a@1.0.0:
    dependencies:
      b: 1.0.0

  b@1.0.0: {}

  %(o)s@1.0.0: {}
"""

    def test_a_dependency_for_another_platform_as_pnpm_installs_it(self):
        # pnpm installs a dependency for another platform that is not
        # optional, with a warning (packageIsInstallable returns null unless
        # engineStrict); tailwindcss's lockfile has such ones. nub refused
        # it (exit 80). npm's and yarn's refusal stays theirs.
        other, osname = (("opt-darwin", "darwin") if nubtest.npm_os() != "darwin"
                         else ("opt-linux", "linux"))
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"a": "^1.0.0", other: "^1.0.0"}})
        with open(os.path.join(self.proj, "pnpm-lock.yaml"), "w") as f:
            f.write(self.render(self.PNPM_OTHER_PLATFORM % {"o": other, "os": osname}))
        proc = self.nub("install", "--frozen-lockfile")
        self.assertEqual(proc.stderr.count("does not support this platform"), 1, proc.stderr)
        self.assertIn("installed all the same, as pnpm installs it", proc.stderr)
        self.assertTrue(os.path.isdir(self.nm(other)))
        theirs = self.pnpm_frozen_copy()
        if theirs:
            self.assertTrue(os.path.isdir(os.path.join(theirs, "node_modules", other)))
        # engineStrict: pnpm throws; so does nub, naming it
        with open(os.path.join(self.proj, "pnpm-workspace.yaml"), "w") as f:
            f.write("engineStrict: true\n")
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 80, proc.stderr)
        self.assertIn(other, proc.stderr)

    PNPM_MUSL_BY_NAME = """lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    optionalDependencies:
      '@nt/linux-x64':
        specifier: ^1.0.0
        version: 1.0.0
      '@nt/linux-x64-musl':
        specifier: ^1.0.0
        version: 1.0.0

packages:

  '@nt/linux-x64-musl@1.0.0':
    resolution: {integrity: @@INTEGRITY:@nt/linux-x64-musl@1.0.0@@}
    cpu: [x64]
    os: [linux]

  '@nt/linux-x64@1.0.0':
    resolution: {integrity: @@INTEGRITY:@nt/linux-x64@1.0.0@@}
    cpu: [x64]
    os: [linux]

snapshots:

  '@nt/linux-x64-musl@1.0.0':
    optional: true

  '@nt/linux-x64@1.0.0':
    optional: true
"""

    def test_an_optional_musl_build_known_by_its_name(self):
        # pnpm 12 reads an optional package's C library from its name where
        # nothing states one (tailwindcss's @oven/bun-linux-x64-musl: os and
        # cpu, no libc, in the lockfile and in its package.json): skipped on
        # glibc. nub installed it.
        self.make_project({"name": "p", "version": "1.0.0",
                           "optionalDependencies": {"@nt/linux-x64": "^1.0.0",
                                                    "@nt/linux-x64-musl": "^1.0.0"}})
        with open(os.path.join(self.proj, "pnpm-lock.yaml"), "w") as f:
            f.write(self.render(self.PNPM_MUSL_BY_NAME))
        self.nub("install", "--frozen-lockfile")
        here = nubtest.npm_os() == "linux" and nubtest.npm_cpu() == "x64"
        musl = os.path.exists("/lib/ld-musl-x86_64.so.1")
        self.assertEqual(os.path.isdir(self.nm("@nt/linux-x64")), here)
        self.assertEqual(os.path.isdir(self.nm("@nt/linux-x64-musl")), here and musl)
        theirs = self.pnpm_frozen_copy()
        if theirs:
            for name in ("@nt/linux-x64", "@nt/linux-x64-musl"):
                self.assertEqual(os.path.isdir(os.path.join(theirs, "node_modules", name)),
                                 os.path.isdir(self.nm(name)), name)

    PNPM_HOISTED_PEER = """lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    dependencies:
      a:
        specifier: ^1.0.0
        version: 1.0.0
      opt-peer-b:
        specifier: ^1.0.0
        version: 1.0.0

packages:

  a@1.0.0:
    resolution: {integrity: @@INTEGRITY:a@1.0.0@@}

  b@1.0.0:
    resolution: {integrity: @@INTEGRITY:b@1.0.0@@}

  opt-peer-b@1.0.0:
    resolution: {integrity: @@INTEGRITY:opt-peer-b@1.0.0@@}
    peerDependencies:
      b: ^2.0.0
    peerDependenciesMeta:
      b:
        optional: true

snapshots:

  a@1.0.0:
    dependencies:
      b: 1.0.0

  b@1.0.0: {}

  opt-peer-b@1.0.0: {}
"""

    def test_a_peer_found_through_pnpms_hidden_hoisting(self):
        # opt-peer-b's optional peer b@^2 is not resolved (the graph has b@1
        # only, a's), yet pnpm's layout lets opt-peer-b require b: every
        # package is linked once more in node_modules/.pnpm/node_modules
        # (hoist-pattern "*"), so it finds a's b@1.0.0 (svelte's vite and
        # yaml@1). nub's global virtual store has no such folder: the
        # package gets that edge. Before, require('b') failed there.
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"a": "^1.0.0", "opt-peer-b": "^1.0.0"}})
        with open(os.path.join(self.proj, "pnpm-lock.yaml"), "w") as f:
            f.write(self.render(self.PNPM_HOISTED_PEER))
        self.nub("install", "--frozen-lockfile")
        self.assertEqual(self.node_require(self.proj, "opt-peer-b")["deps"], {"b": "1.0.0"})
        theirs = self.pnpm_frozen_copy()
        if theirs:
            self.assertEqual(self.node_require(theirs, "opt-peer-b")["deps"], {"b": "1.0.0"})

    def test_nub_lock_and_package_lock_is_ambiguous(self):
        self.make_project("basic", lockfile="package-lock.v3.json")
        # nub.lock made in a scratch copy without package-lock.json
        scratch = os.path.join(self.tmp, "scratch")
        os.makedirs(scratch)
        shutil.copy(os.path.join(self.proj, "package.json"), scratch)
        self.nub("install", "--lockfile-only", cwd=scratch)
        shutil.copy(os.path.join(scratch, "nub.lock"), self.proj)
        self.registry.reset_log()
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 17, proc.stderr)
        self.assertIn("nub.lock", proc.stderr)
        self.assertIn("package-lock.json", proc.stderr)
        self.assertIn("ERR_NUB_AMBIGUOUS", proc.stderr)
        self.assertFalse(os.path.exists(self.nm()))
        # "packageManager" settles it
        self.edit_pj(lambda d: d.update({"packageManager": "nub@1.0.0"}))
        self.nub("install")
        self.assert_layout(gvs=True)
        self.rm("node_modules")
        self.edit_pj(lambda d: d.update({"packageManager": "npm@10.9.0"}))
        self.nub("install")
        # npm's hoisted tree from package-lock.json
        self.assertFalse(os.path.islink(self.nm("a")))
        self.assertEqual(self.read_json(self.nm("c", "node_modules", "b", "package.json"))["version"],
                         "2.0.0")


class OfflineTest(IsolatedTestCase):

    def test_offline_with_warm_cache_and_store(self):
        self.make_project("basic")
        self.nub("install")
        lock = self.lock_text()
        for remove_lock in (False, True):
            with self.subTest(remove_lockfile=remove_lock):
                self.rm("node_modules")
                if remove_lock:
                    self.rm("nub.lock")
                self.registry.reset_log()
                self.nub("install", "--offline")
                self.assertEqual(self.registry.requests, [])
                self.assertEqual(self.lock_text(), lock)
                self.assert_layout(gvs=True)
                self.assert_requires(gvs=True)

    def test_offline_with_empty_cache(self):
        self.make_project("basic")
        proc = self.nub_fails("install", "--offline")
        self.assertEqual(proc.returncode, 43, proc.stderr)
        self.assertIn("ERR_NUB_OFFLINE", proc.stderr)
        self.assertEqual(self.registry.requests, [])
        self.assertFalse(os.path.exists(self.nm()))
        # with a lockfile but an empty store: the same
        scratch = os.path.join(self.tmp, "scratch")
        os.makedirs(scratch)
        shutil.copy(os.path.join(self.proj, "package.json"), scratch)
        self.nub("install", "--lockfile-only", cwd=scratch,
                 env={"NUB_STORE_DIR": os.path.join(self.tmp, "other-store")})
        shutil.copy(os.path.join(scratch, "nub.lock"), self.proj)
        self.registry.reset_log()
        proc = self.nub_fails("install", "--offline")
        self.assertEqual(proc.returncode, 43, proc.stderr)
        self.assertEqual(self.registry.requests, [])
        self.assertFalse(os.path.exists(self.nm()))


class RecordTest(IsolatedTestCase):
    """An install of inputs installed before from the same store, into a
    project without node_modules, is made again from the store's record
    (record.h): the same links, state and output, without reading the
    lockfile. A record that no longer holds, or inputs it does not cover,
    are the full install."""

    REPLAYED = re.compile(r"^DEBUG phase:replay \S+ \(\d+ packages, from the store's record",
                          re.M)

    def setUp(self):
        super().setUp()
        self.make_project("basic")
        self.nub("install")                  # cold: it fetched, so no record
        self.assertFalse(os.path.isdir(self.records()), "a cold install was recorded")
        self.rm("node_modules")
        self.full = self.install()           # warm and whole: recorded
        self.assertFalse(self.replayed(self.full), self.full.stderr)
        self.assertEqual(len(os.listdir(self.records())), 1)

    def records(self):
        return os.path.join(self.store, "v1", "records")

    def install(self, *args, **kw):
        return self.nub("install", *args, env={"NUB_LOG": "debug"}, **kw)

    def replayed(self, proc):
        return self.REPLAYED.search(proc.stderr) is not None

    def snapshot(self):
        """Every path under node_modules but the state: link target or mode."""
        out = {}
        for d, dirs, files in os.walk(self.nm()):
            for n in dirs + files:
                p = os.path.join(d, n)
                rel = os.path.relpath(p, self.proj)
                if not rel.startswith(os.path.join("node_modules", ".nub-state")):
                    out[rel] = os.readlink(p) if os.path.islink(p) else oct(os.lstat(p).st_mode)
        return out

    @staticmethod
    def said(proc):
        return [l for l in proc.stderr.splitlines() if l.startswith("nub: warn:")]

    def test_warm_install_is_made_again_from_the_record(self):
        want = self.snapshot()
        self.rm("node_modules")
        self.registry.reset_log()
        proc = self.install()
        self.assertTrue(self.replayed(proc), proc.stderr)
        # the phases of every install, each saying it did nothing
        n = re.search(r"phase:replay \S+ \((\d+) packages", proc.stderr).group(1)
        self.assertRegex(proc.stderr, r"phase:resolve \S+ \(0 packages resolved: the store's record\)")
        self.assertRegex(proc.stderr, r"phase:fetch \S+ \(0 packages, %s cached\)" % n)
        self.assertRegex(proc.stderr, r"phase:link \S+ \(0 files, %s packages, %s reused" % (n, n))
        self.assertIn("phase:link_bins ", proc.stderr)
        self.assertEqual(self.registry.requests, [])
        self.assertEqual(self.snapshot(), want)
        self.assertEqual(re.sub(r"in [0-9.]+s", "", proc.stdout),
                         re.sub(r"in [0-9.]+s", "", self.full.stdout))
        self.assertEqual(self.said(proc), self.said(self.full))
        self.assert_layout(gvs=True)
        self.assert_requires(gvs=True)
        # its state is the full install's: the next one has nothing to do
        self.assertEqual(self.nub("install").stdout.strip(), "Already up to date")

    def test_the_tally_holds_on_a_replay(self):
        # phase:link's file count is the per-file link events, on the full
        # install and on its replay alike
        for name, replay in (("full", False), ("replay", True)):
            self.rm("node_modules")
            if not replay:
                shutil.rmtree(self.records())
            diag = os.path.join(self.tmp, name + ".jsonl")
            proc = self.nub("install", env={"NUB_LOG": "debug", "NUB_DIAG_FILE": diag})
            self.assertEqual(self.replayed(proc), replay, proc.stderr)
            with open(diag) as f:
                events = [json.loads(l) for l in f.read().splitlines()]
            linked = int(re.search(r"phase:link \S+ \((\d+) files", proc.stderr).group(1))
            self.assertEqual(len([e for e in events if e["cat"] == "linker"]), linked)

    def test_what_the_install_said_is_said_again(self):
        # a peer the project's other dependencies do not satisfy
        self.edit_pj(lambda d: d["dependencies"].update({"peer-host": "^1.0.0", "b": "^2.0.0"}))
        self.nub("install")
        self.rm("node_modules")
        full = self.install()
        self.assertEqual(self.said(full), ["nub: warn: peer-host@1.0.0 wants b@^1.0.0, found 2.0.0"])
        self.rm("node_modules")
        again = self.install("--silent")      # what --silent keeps quiet is recorded too
        self.rm("node_modules")
        proc = self.install()
        self.assertTrue(self.replayed(proc), proc.stderr)
        self.assertTrue(self.replayed(again), again.stderr)
        self.assertEqual(self.said(proc), self.said(full))
        self.assertEqual(self.said(again), [])

    def test_a_wait_for_the_store_is_not_said_again(self):
        # the install that records waits for a prune (the store's gc lock
        # held): that wait is this run's, not something its inputs say
        import fcntl
        import subprocess
        shutil.rmtree(self.records())
        self.rm("node_modules")
        with open(os.path.join(self.store, "v1", "locks", "gc"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            env = dict(self.env)
            env["NUB_LOG"] = "debug"
            inst = subprocess.Popen([self.nub_bin, "install"], cwd=self.proj, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(0.5)
            fcntl.flock(lock, fcntl.LOCK_UN)
            out, err = inst.communicate(timeout=60)
        self.assertEqual(inst.returncode, 0, err)
        self.assertIn("waiting for it", err)
        self.assertFalse(self.REPLAYED.search(err), err)
        self.rm("node_modules")
        proc = self.install()
        self.assertTrue(self.replayed(proc), proc.stderr)
        self.assertNotIn("waiting", proc.stderr)

    def test_other_inputs_are_the_full_install(self):
        cases = {
            "--prod": lambda: ("--prod",),
            "--ignore-scripts": lambda: ("--ignore-scripts",),
            "package.json's bytes": lambda: self.edit_pj(lambda d: d.update({"description": "x"})),
            "a setting in .npmrc": lambda: self.write_npmrc("strict-peer-dependencies=true\n"),
        }
        for what, change in cases.items():
            with self.subTest(what):
                self.rm("node_modules")
                args = change() or ()
                proc = self.install(*args)
                self.assertFalse(self.replayed(proc), proc.stderr)
                self.assertIn("phase:resolve", proc.stderr)
                self.assert_layout(gvs=True, omit_dev=args == ("--prod",))

    def write_npmrc(self, text):
        with open(os.path.join(self.proj, ".npmrc"), "a") as f:
            f.write(text)

    def test_node_modules_there_is_the_full_install(self):
        self.rm("node_modules", "a")
        proc = self.install()
        self.assertFalse(self.replayed(proc))
        self.assertNotIn("phase:replay", proc.stderr)
        self.assert_layout(gvs=True)

    def test_an_entry_gone_from_the_store_is_the_full_install(self):
        entries = self.gvs_targets()
        for what, damage in (("an entry removed", lambda: shutil.rmtree(entries["b@2.0.0"])),
                             ("a tree's marker naming another entry", None)):
            with self.subTest(what):
                self.rm("node_modules")
                if damage:
                    damage()
                else:
                    tree = next(e for e in self.gvs_targets_now(entries)
                                if os.path.islink(os.path.join(e, "ready")))
                    ready = os.path.join(tree, "ready")
                    name = os.readlink(ready)
                    os.unlink(ready)
                    os.symlink(name[:-16] + "0" * 16, ready)
                proc = self.install()
                self.assertFalse(self.replayed(proc), proc.stderr)
                self.assertIn("phase:replay", proc.stderr)
                self.assertIn("phase:resolve", proc.stderr)
                self.assert_layout(gvs=True)
                self.assert_requires(gvs=True)

    def gvs_targets_now(self, before):
        return [e for e in before.values() if os.path.isdir(e)]

    def test_own_scripts_are_never_recorded(self):
        self.edit_pj(lambda d: d.update({"scripts": {
            "postinstall": "node -e \"require('fs').appendFileSync('ran.txt', 'x')\""}}))
        for _ in range(3):
            self.rm("node_modules")
            proc = self.install()
            self.assertFalse(self.replayed(proc), proc.stderr)
        with open(os.path.join(self.proj, "ran.txt")) as f:
            self.assertEqual(f.read(), "xxx")

    def test_prune_forgets_the_records(self):
        self.nub("store", "prune")
        self.assertFalse(os.path.exists(self.records()))
        self.rm("node_modules")
        proc = self.install()
        self.assertFalse(self.replayed(proc), proc.stderr)
        self.assert_layout(gvs=True)


class StoreTreeTest(IsolatedTestCase):
    """A package new to the store is unpacked as a tree,
    <store>/v1/packages/<key>/node_modules/<name>, and the first entry of the
    global virtual store that needs it is made from that tree where it is
    (links/<entry> -> ../packages/<key>, dependency links beside the package):
    no file is linked twice. Other closures of the same package, other
    layouts and the project-local entries link from the tree."""

    def packages_dir(self, store=None):
        return os.path.join(store or self.store, "v1", "packages")

    def store_files(self, store=None):
        root = os.path.join(store or self.store, "v1", "files")
        return [os.path.join(d, n) for d, _, names in os.walk(root) for n in names
                if not n.startswith(".")]

    def test_cold_install_adopts_the_trees(self):
        self.make_project("basic")
        proc = self.nub("install", env={"NUB_LOG": "debug"})
        graph = self.assert_layout(gvs=True)
        self.assert_requires(gvs=True)
        link = self.phase_lines(proc.stderr)["link"].group(3)
        self.assertIn("%d adopted" % len(graph), link)
        self.assertRegex(link, r"^0 files\b")
        # nothing went to the content-addressed files, nor to links/
        self.assertEqual(self.store_files(), [])
        self.assertEqual(os.listdir(self.links_dir()), [])
        pkgs = os.path.realpath(self.packages_dir())
        for key, g in graph.items():
            with self.subTest(package=key):
                tree = self.gvs_targets()[g["dir"]]
                self.assertEqual(os.path.dirname(os.path.realpath(tree)), pkgs)
                # claimed for, and then made, the entry of this closure
                owner = os.readlink(os.path.join(tree, "owner"))
                self.assertRegex(owner, "^" + re.escape(g["dir"]) + "-[0-9a-f]{16}$")
                self.assertEqual(os.readlink(os.path.join(tree, "ready")), owner)
                self.assertTrue(os.path.isfile(os.path.join(tree, "node_modules", g["name"],
                                                            "package.json")))
        # a second project: every entry reused, nothing fetched or linked
        proj2 = os.path.join(self.tmp, "proj2")
        os.makedirs(proj2)
        shutil.copy(os.path.join(self.proj, "package.json"), proj2)
        shutil.copy(os.path.join(self.proj, "nub.lock"), proj2)
        self.registry.reset_log()
        proc = self.nub("install", cwd=proj2, env={"NUB_LOG": "debug"})
        self.assertEqual(self.registry.count(r"\.tgz$"), 0)
        self.assertIn("%d reused, 0 adopted" % len(graph),
                      self.phase_lines(proc.stderr)["link"].group(3))
        self.assert_requires(gvs=True, proj=proj2)

    def test_bin_targets_are_executable_in_the_tree(self):
        self.make_project("basic")
        self.nub("install")
        for name in os.listdir(self.nm(".bin")):
            with self.subTest(bin=name):
                self.assertExecutable(os.path.realpath(self.nm(".bin", name)))

    def test_peer_variants_one_adopted_one_linked_from_it(self):
        # plugin@1.0.0 is needed with react-like@1 (through host-a) and with
        # react-like@2 (host-b): one tarball, two closures
        self.make_project({"name": "p", "version": "1.0.0",
                           "dependencies": {"host-a": "^1.0.0", "host-b": "^1.0.0"}})
        self.nub("install")
        self.assert_layout(gvs=True)
        self.assert_requires(gvs=True)
        vs = self.gvs_targets()
        plugins = sorted(d for d in vs if d.startswith("plugin@"))
        self.assertEqual(len(plugins), 2, plugins)
        reals = [os.path.realpath(os.path.join(vs[d], "node_modules", "plugin", "index.js"))
                 for d in plugins]
        pkgs = os.path.realpath(self.packages_dir())
        adopted = [r for r in reals if r.startswith(pkgs + os.sep)]
        self.assertEqual(len(adopted), 1, reals)
        # the other closure's copy shares the tree's inode (a hard link)
        self.assertEqual(os.stat(reals[0]).st_ino, os.stat(reals[1]).st_ino)
        sees = {}
        for d in plugins:
            real = os.path.realpath(os.path.join(vs[d], "node_modules", "plugin"))
            sees[d] = self.node_json(real, "require('react-like/package.json').version")
        self.assertEqual(sorted(sees.values()), ["1.0.0", "2.0.0"], sees)
        # and through the hosts, each plugin loads with its host's react-like
        host_real = {h: os.path.realpath(self.nm(h)) for h in ("host-a", "host-b")}
        self.assertEqual(self.node_json(host_real["host-a"], "require('plugin').deps"),
                         {"react-like": "1.0.0"})
        self.assertEqual(self.node_json(host_real["host-b"], "require('plugin').deps"),
                         {"react-like": "2.0.0"})

    def test_hoisted_install_links_from_the_trees(self):
        self.make_project("basic")
        self.nub("install")
        tree_a = os.path.realpath(self.nm("a", "index.js"))
        self.assertTrue(tree_a.startswith(os.path.realpath(self.packages_dir())), tree_a)
        # a project with an npm lockfile (hoisted) on the same store
        proj2 = os.path.join(self.tmp, "proj2")
        os.makedirs(proj2)
        saved, self.proj = self.proj, proj2
        try:
            self.make_project("basic", lockfile="package-lock.v3.json")
        finally:
            self.proj = saved
        self.registry.reset_log()
        self.nub("install", cwd=proj2)
        self.assertEqual(self.registry.count(r"\.tgz$"), 0)
        a = os.path.join(proj2, "node_modules", "a", "index.js")
        self.assertFalse(os.path.islink(a))
        self.assertEqual(os.stat(a).st_ino, os.stat(tree_a).st_ino)
        for dep in ("a", "c", "@scope/d", "e"):
            self.assertEqual(self.node_require(proj2, dep)["name"], dep)

    def test_lost_tree_is_named_and_fetched_again(self):
        self.make_project("basic")
        self.nub("install")
        tree = os.path.dirname(os.path.dirname(os.path.realpath(self.nm("a"))))
        shutil.rmtree(tree)
        shutil.rmtree(self.nm())
        # the store check finds it as it links and fetches it at once
        proc = self.nub("install")
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("a@1.0.0", lines[0])
        self.assertIn("is damaged", lines[0])
        self.assert_layout(gvs=True)
        self.assert_requires(gvs=True)
        # without the check, the linker finds it: one line, then the next
        # run fetches it
        tree = os.path.dirname(os.path.dirname(os.path.realpath(self.nm("a"))))
        shutil.rmtree(tree)
        shutil.rmtree(self.nm())
        unchecked = {"npm_config_verify_store_integrity": "false"}
        proc = self.nub_fails("install", env=unchecked)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("a@1.0.0", lines[0])
        self.assertIn("run the install again", lines[0])
        self.nub("install", env=unchecked)
        self.assert_layout(gvs=True)
        self.assert_requires(gvs=True)

    def test_claimed_tree_without_ready_is_finished(self):
        # what a crash between the claim and the end of the dependency links
        # leaves: the owner marker, some links, no ready marker
        self.make_project("basic")
        self.nub("install")
        tree = os.path.dirname(os.path.dirname(os.path.realpath(self.nm("a"))))
        os.unlink(os.path.join(tree, "ready"))
        os.unlink(os.path.join(tree, "node_modules", "b"))
        shutil.rmtree(self.nm())
        proc = self.nub("install", env={"NUB_LOG": "debug"})
        self.assertIn("1 adopted", self.phase_lines(proc.stderr)["link"].group(3))
        self.assertEqual(os.readlink(os.path.join(tree, "ready")),
                         os.readlink(os.path.join(tree, "owner")))
        self.assert_layout(gvs=True)
        self.assert_requires(gvs=True)

    def test_concurrent_cold_installs_share_one_store(self):
        self.make_project("basic")
        self.nub("install", "--lockfile-only")
        projs = []
        for i in range(3):
            d = os.path.join(self.tmp, "p%d" % i)
            os.makedirs(d)
            for f in ("package.json", "nub.lock"):
                shutil.copy(os.path.join(self.proj, f), d)
            projs.append(d)
        procs = [subprocess.Popen([self.nub_bin, "install"], cwd=d, env=self.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True) for d in projs]
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
        for d in projs:
            with self.subTest(proj=d):
                self.assert_layout(gvs=True, proj=d)
                self.assert_requires(gvs=True, proj=d)
        # one tree per package, each claimed once and made ready for that entry
        for t in os.listdir(self.packages_dir()):
            tree = os.path.join(self.packages_dir(), t)
            self.assertEqual(os.readlink(os.path.join(tree, "ready")),
                             os.readlink(os.path.join(tree, "owner")), t)

    def test_killed_while_linking_then_finished(self):
        self.make_project("basic")
        self.nub("install", "--lockfile-only")
        self.nub("install")
        # a fresh store, then runs killed at several points of fetch and link
        store2 = os.path.join(self.tmp, "store2")
        env = {"NUB_STORE_DIR": store2}
        for delay in (0.02, 0.05, 0.1, 0.2):
            shutil.rmtree(self.nm(), ignore_errors=True)
            full = dict(self.env, **env)
            p = subprocess.Popen([self.nub_bin, "install"], cwd=self.proj, env=full,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.wait()
        shutil.rmtree(self.nm(), ignore_errors=True)
        self.nub("install", env=env)
        self.assert_layout(gvs=True, store=store2)
        self.assert_requires(gvs=True)


if __name__ == "__main__":
    nubtest.main()
