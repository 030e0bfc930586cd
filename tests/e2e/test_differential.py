#!/usr/bin/env python3
"""Differential tests on real public packages (tests/fixtures/real): nub
builds the tree `npm ci` builds from the same package-lock.json, path by
path with modes and symlink targets (.bin included), and in the isolated
layout every dependency resolves from inside every package as it does
under pnpm.

These talk to the registry npm is configured with (`npm config get
registry`); without npm, or when that registry cannot be reached, they
skip and say why.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_differential.py
     (or ctest -R e2e.differential)
"""

import json
import os
import shutil
import stat
import subprocess
import unittest
import urllib.request

import nubtest

REAL = os.path.join(nubtest.FIXTURES_DIR, "real")

# Every package's declared dependencies, resolved with Node from inside the
# package's real directory: {"name@version": {dep: true|false}}.
RESOLVE_JS = r"""
const fs = require('fs'), path = require('path'), { createRequire } = require('module');
const root = process.argv[1], out = {};
const seen = new Set();
function visit(dir) {
  let real;
  try { real = fs.realpathSync(dir); } catch (e) { return; }
  if (seen.has(real)) return;
  seen.add(real);
  let pj;
  try { pj = JSON.parse(fs.readFileSync(path.join(real, 'package.json'), 'utf8')); }
  catch (e) { return; }
  const req = createRequire(path.join(real, 'package.json'));
  const peersMeta = pj.peerDependenciesMeta || {};
  const deps = Object.assign({}, pj.dependencies || {});
  for (const p of Object.keys(pj.peerDependencies || {}))
    if (!(peersMeta[p] && peersMeta[p].optional)) deps[p] = pj.peerDependencies[p];
  const res = {};
  for (const d of Object.keys(deps)) {
    try { req.resolve(d + '/package.json'); res[d] = true; }
    catch (e) {
      try { req.resolve(d); res[d] = true; }
      catch (e2) { res[d] = e2.code !== 'MODULE_NOT_FOUND'; }
    }
  }
  out[pj.name + '@' + pj.version] = res;
  walk(path.join(real, 'node_modules'));
  // the node_modules the package sits in: its siblings (an isolated
  // layout's dependencies, wherever its entries live)
  const at = real.lastIndexOf(path.sep + 'node_modules' + path.sep);
  if (at >= 0) walk(real.slice(0, at + 13));
}
const walked = new Set();
function walk(nm) {
  let names;
  if (walked.has(nm)) return;
  walked.add(nm);
  try { names = fs.readdirSync(nm); } catch (e) { return; }
  for (const n of names) {
    if (n === '.bin') continue;
    if (n.startsWith('@')) { for (const s of fs.readdirSync(path.join(nm, n))) visit(path.join(nm, n, s)); }
    else if (n === '.pnpm' || n === '.nub') {
      for (const e of fs.readdirSync(path.join(nm, n))) walk(path.join(nm, n, e, 'node_modules'));
    } else visit(path.join(nm, n));
  }
}
walk(path.join(root, 'node_modules'));
for (const member of process.argv.slice(2)) visit(member);  // workspace packages
console.log(JSON.stringify(out));
"""


def registry_url():
    if not nubtest.have_npm():
        return None
    proc = subprocess.run(["npm", "config", "get", "registry"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, universal_newlines=True)
    url = proc.stdout.strip()
    return url if url.startswith("http") else None


def reachable(url):
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/-/ping", timeout=10):
            return True
    except urllib.error.HTTPError:
        return True  # it answers
    except Exception:
        return False


REGISTRY = registry_url()
ONLINE = bool(REGISTRY) and reachable(REGISTRY)
needs_registry = unittest.skipUnless(
    ONLINE, "npm is not installed or its registry cannot be reached")


@needs_registry
class RealPackagesTest(nubtest.NubTestCase):

    def setUp(self):
        super().setUp()
        self.env["npm_config_registry"] = REGISTRY

    def project(self, case, dest, files=("package.json", "package-lock.json")):
        """The fixture in dest: `files` (those the case has), and its
        workspace (pnpm-workspace.yaml, packages/), registry filled in."""
        os.makedirs(dest, exist_ok=True)
        reg = REGISTRY.rstrip("/")
        src_dir = os.path.join(REAL, case)
        todo = [f for f in files if os.path.exists(os.path.join(src_dir, f))]
        if os.path.exists(os.path.join(src_dir, "pnpm-workspace.yaml")):
            todo.append("pnpm-workspace.yaml")
        for base, _, names in os.walk(os.path.join(src_dir, "packages")):
            todo += [os.path.relpath(os.path.join(base, n), src_dir) for n in names]
        for f in todo:
            with open(os.path.join(src_dir, f)) as src:
                text = src.read().replace("@@REGISTRY@@", reg)
            os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
            with open(os.path.join(dest, f), "w") as dst:
                dst.write(text)
            shutil.copymode(os.path.join(src_dir, f), os.path.join(dest, f))
        return dest

    def members(self, root):
        pk = os.path.join(root, "packages")
        return sorted(os.path.join(pk, m) for m in os.listdir(pk)) if os.path.isdir(pk) else []

    def npm_ci_and_nub_ci(self, case, *args):
        npm_dir = self.project(case, os.path.join(self.tmp, "npm"))
        nub_dir = self.project(case, os.path.join(self.tmp, "nub"))
        self.npm("ci", "--ignore-scripts", *args, cwd=npm_dir, registry=REGISTRY)
        self.nub("ci", "--ignore-scripts", *args, cwd=nub_dir)
        return npm_dir, nub_dir

    def assert_same_tree(self, case, *args):
        npm_dir, nub_dir = self.npm_ci_and_nub_ci(case, *args)
        want, got = self.installed(npm_dir, modes=True), self.installed(nub_dir, modes=True)
        self.assertEqual(got, want)
        return nub_dir

    def test_bundled_dependencies_get_their_bins(self):
        d = self.assert_same_tree("bundled-bins")
        bin_dir = os.path.join(d, "node_modules", "bcrypt", "node_modules", ".bin")
        self.assertEqual(os.readlink(os.path.join(bin_dir, "semver")), "../semver/bin/semver")
        self.assertTrue(os.access(os.path.join(bin_dir, "mkdirp"), os.X_OK))

    def test_directories_bin_links_nothing(self):
        d = self.assert_same_tree("directories-bin")
        self.assertFalse(os.path.exists(os.path.join(d, "node_modules", ".bin")))

    def test_optional_packages_only_another_platform_needs(self):
        d = self.assert_same_tree("foreign-optional")
        for gone in ("@emnapi", "tslib", "bindings", "nan", "file-uri-to-path", "fsevents"):
            self.assertFalse(os.path.exists(os.path.join(d, "node_modules", gone)), gone)

    def test_optional_peer(self):
        for args in ((), ("--omit=optional",), ("--omit=peer",)):
            with self.subTest(args=args):
                shutil.rmtree(os.path.join(self.tmp, "npm"), ignore_errors=True)
                shutil.rmtree(os.path.join(self.tmp, "nub"), ignore_errors=True)
                self.assert_same_tree("optional-peer", *args)

    def test_cyclic_peers(self):
        self.assert_same_tree("cyclic-peers")

    def test_npm_workspaces(self):
        # links for the members at the top, conflicts nested under the member,
        # a member's bin in the root's .bin
        d = self.assert_same_tree("npm-workspaces")
        self.assertEqual(os.readlink(os.path.join(d, "node_modules/@fx/lib")),
                         "../../packages/lib")
        self.assertTrue(os.path.isdir(os.path.join(d, "packages/old/node_modules/ms")))
        self.assertEqual(os.readlink(os.path.join(d, "node_modules/.bin/fx-lib")),
                         "../@fx/lib/cli.js")

    def test_written_lockfile_is_one_npm_ci_accepts(self):
        # a member's package.json changed: nub resolves again and writes
        # package-lock.json; npm ci installs from it the tree nub built and
        # leaves it as it is
        d = self.project("npm-workspaces", os.path.join(self.tmp, "nub"))
        pj = os.path.join(d, "packages/old/package.json")
        doc = self.read_json(pj)
        doc["dependencies"]["semver"] = "6.3.1"
        doc["dependencies"]["once"] = "^1.3.0"
        self.write_json(pj, doc)
        self.nub("install", "--ignore-scripts", cwd=d)
        # and `nub add` at the root, as a user would
        self.nub("add", "is-number@7.0.0", "--ignore-scripts", cwd=d)
        self.assertEqual(self.read_json(os.path.join(d, "package.json"))["dependencies"]
                         ["is-number"], "^7.0.0")
        with open(os.path.join(d, "package-lock.json")) as f:
            written = f.read()
        n = os.path.join(self.tmp, "npm")
        shutil.copytree(d, n, ignore=shutil.ignore_patterns("node_modules"))
        self.npm("ci", "--ignore-scripts", cwd=n, registry=REGISTRY)
        self.assertEqual(self.installed(d, modes=True), self.installed(n, modes=True))
        with open(os.path.join(n, "package-lock.json")) as f:
            self.assertEqual(f.read(), written)
        self.assertTrue(os.path.isdir(os.path.join(d, "packages/old/node_modules/semver")))

    def test_yarn_lock_same_tree_as_yarn(self):
        # the bench fixtures' yarn.lock (real packages): nub's tree is the one
        # yarn 1 builds with --frozen-lockfile, path by path, .bin included
        yarn = nubtest.tool("yarn")
        if not yarn:
            self.skipTest("SKIP: yarn 1 is not installed")
        bench = os.path.join(nubtest.FIXTURES_DIR, "..", "..", "ci", "bench", "fixtures")
        reg = REGISTRY.rstrip("/")
        for fx in ("webpack3", "coffee2"):
            with self.subTest(fixture=fx):
                dirs = {}
                for who in ("yarn", "nub"):
                    d = dirs[who] = os.path.join(self.tmp, "%s-%s" % (who, fx))
                    os.makedirs(d)
                    shutil.copy(os.path.join(bench, fx, "package.json"), d)
                    with open(os.path.join(bench, fx, "yarn.lock")) as f:
                        text = f.read().replace("@@REGISTRY@@", reg)
                    with open(os.path.join(d, "yarn.lock"), "w") as f:
                        f.write(text)
                self.run_cmd([yarn, "install", "--frozen-lockfile", "--ignore-scripts",
                              "--ignore-engines", "--non-interactive", "--cache-folder",
                              os.path.join(self.tmp, "yarn-cache")], cwd=dirs["yarn"],
                             env={"YARN_REGISTRY": REGISTRY}, timeout=600)
                self.nub("install", "--frozen-lockfile", "--ignore-scripts", cwd=dirs["nub"],
                         timeout=600)
                want = [p for p in self.installed(dirs["yarn"])
                        if not p.startswith("node_modules/.yarn-integrity")]
                self.assertEqual(self.installed(dirs["nub"]), want)

    def test_berry_lock_same_tree_as_berry(self):
        # yarn berry 4.18.1 (nodeLinker: node-modules) and nub from the same
        # berry yarn.lock: the bench fixtures' (real packages, versions
        # migrated from their yarn 1 lockfile by berry) and a workspace of
        # real packages (got@10, whose @types berry's built-in package
        # extensions add; debug@4.3.4 and its optional peer; a member's peer;
        # an npm: alias); the same tree, path by path with modes and .bin
        berry = nubtest.tool("berry")
        if not berry or not os.path.exists(berry):
            self.skipTest("SKIP: yarn berry is not installed (NUB_BERRY)")
        bench = os.path.join(nubtest.FIXTURES_DIR, "..", "..", "ci", "bench", "fixtures")
        cases = [(os.path.join(bench, fx), "yarn-berry.lock") for fx in ("webpack3", "coffee2")]
        cases.append((os.path.join(REAL, "berry-workspace"), "yarn.lock"))
        for src, lock in cases:
            with self.subTest(fixture=os.path.basename(src)):
                dirs = {}
                for who in ("berry", "nub"):
                    d = dirs[who] = os.path.join(self.tmp, "%s-%s" % (who, os.path.basename(src)))
                    shutil.copytree(src, d, ignore=shutil.ignore_patterns(
                        "*.lock", "package-lock.json", "pnpm-lock.yaml"))
                    shutil.copy(os.path.join(src, lock), os.path.join(d, "yarn.lock"))
                    with open(os.path.join(d, ".yarnrc.yml"), "w") as f:
                        f.write("nodeLinker: node-modules\n")
                with open(os.path.join(dirs["berry"], ".yarnrc.yml"), "a") as f:
                    f.write('npmRegistryServer: "%s"\nenableTelemetry: false\n'
                            'enableGlobalCache: false\n' % REGISTRY.rstrip("/"))
                self.run_cmd([berry, "install", "--immutable", "--mode=skip-build"],
                             cwd=dirs["berry"], timeout=900,
                             env={"YARN_GLOBAL_FOLDER": os.path.join(self.tmp, "berry-global"),
                                  "YARN_ENABLE_TELEMETRY": "0"})
                self.nub("install", "--frozen-lockfile", "--ignore-scripts", cwd=dirs["nub"],
                         timeout=600)
                want = [p for p in self.installed(dirs["berry"], modes=True)
                        if not p.startswith(("node_modules/.yarn-state.yml",
                                             "node_modules/.package-map.json"))]
                self.assertEqual(self.installed(dirs["nub"], modes=True), want)

    @nubtest.requires_node
    def test_pnpm_workspace_resolves_as_under_pnpm(self):
        # from pnpm's lockfile and from package.json alone: every declared
        # dependency of every member and package resolves, the same as under
        # pnpm's own install
        pnpm = nubtest.tool("pnpm")
        want = None
        if pnpm:
            pd = self.project("pnpm-workspace", os.path.join(self.tmp, "pnpm"),
                              ("package.json", "pnpm-lock.yaml"))
            self.run_cmd([pnpm, "install", "--frozen-lockfile", "--ignore-scripts",
                          "--store-dir", os.path.join(self.tmp, "pnpm-store")], cwd=pd,
                         env={"npm_config_registry": REGISTRY})
            want = self.resolution(pd, self.members(pd))
        for files in (("package.json", "pnpm-lock.yaml"), ("package.json",)):
            with self.subTest(files=files):
                d = os.path.join(self.tmp, "nub-%d" % len(files))
                self.project("pnpm-workspace", d, files)
                self.nub("install", "--ignore-scripts", cwd=d)
                got = self.resolution(d, self.members(d))
                self.assertIn("fx-app@1.0.0", got)
                self.assertEqual(got["fx-app@1.0.0"], {"@fx/lib": True, "once": True,
                                                       "semver": True})
                self.assertEqual(sorted(p + " -> " + dep for p, deps in got.items()
                                        for dep, ok in deps.items() if not ok), [])
                if want is not None:
                    self.assertEqual(got, want)
        if want is None:
            self.skipTest("SKIP: pnpm is not installed: the comparison with it is left out")

    def missing(self, root):
        got = self.resolution(root, self.members(root))
        self.assertTrue(got, "no package found under %s" % root)
        return sorted("%s -> %s" % (p, dep) for p, deps in got.items()
                      for dep, ok in deps.items() if not ok)

    @nubtest.requires_node
    def test_isolated_every_dependency_resolves(self):
        # each fixture in the isolated layout (its npm lockfile's versions):
        # every declared dependency resolves from inside every package, the
        # guarantee pnpm gives (pnpm itself is compared where both install
        # the same versions: test_cyclic_peers_resolve_as_under_pnpm)
        for case in sorted(os.listdir(REAL)):
            if not os.path.isdir(os.path.join(REAL, case)):
                continue
            with self.subTest(case=case):
                d = self.project(case, os.path.join(self.tmp, "iso-" + case))
                self.nub("install", "--node-linker", "isolated", "--ignore-scripts", cwd=d)
                self.assertEqual(self.missing(d), [])

    @nubtest.requires_node
    def test_cyclic_peers_resolve_as_under_pnpm(self):
        # nub from pnpm's own lockfile, and resolving package.json itself
        # (isolated, global virtual store on)
        for files in (("package.json", "pnpm-lock.yaml"), ("package.json",)):
            with self.subTest(files=files):
                shutil.rmtree(os.path.join(self.tmp, "nub"), ignore_errors=True)
                self.cyclic_peers_from(files)

    def resolution(self, root, members=()):
        return json.loads(self.run_cmd(["node", "-e", RESOLVE_JS, root] + list(members)).stdout)

    def cyclic_peers_from(self, files):
        d = self.project("cyclic-peers", os.path.join(self.tmp, "nub"), files)
        self.nub("install", "--ignore-scripts", cwd=d)
        got = self.resolution(d)
        self.assertIn("@webpack-cli/serve@2.0.5", got)
        self.assertTrue(got["@webpack-cli/serve@2.0.5"]["webpack-cli"])
        self.assertEqual(self.missing(d), [])
        # and against pnpm itself: the same packages, each resolving the same
        pnpm = nubtest.tool("pnpm")
        if not pnpm:
            self.skipTest("pnpm is not installed: the comparison with it is left out")
        shutil.rmtree(os.path.join(self.tmp, "pnpm"), ignore_errors=True)
        # pnpm from the same files: its lockfile, or package.json alone (then
        # both resolve against the registry as it is now: a version
        # published since the lockfile was made is both tools' choice)
        pd = self.project("cyclic-peers", os.path.join(self.tmp, "pnpm"), files)
        self.run_cmd([pnpm, "install", "--ignore-scripts", "--store-dir",
                      os.path.join(self.tmp, "pnpm-store")] +
                     (["--frozen-lockfile"] if "pnpm-lock.yaml" in files else []), cwd=pd,
                     env={"npm_config_registry": REGISTRY})
        want = self.resolution(pd)
        self.assertEqual(sorted(got), sorted(want))
        self.assertEqual(got, want)
        # node_modules deleted: the first install again is whole (and
        # recorded: it fetched nothing), the second made from the store's
        # record (core/record.h); each resolves as pnpm's
        for made in ("whole", "from the record"):
            shutil.rmtree(os.path.join(d, "node_modules"))
            proc = self.nub("install", "--ignore-scripts", cwd=d, env={"NUB_LOG": "debug"})
            replayed = "from the store's record" in proc.stderr
            self.assertEqual(replayed, made == "from the record", proc.stderr)
            self.assertEqual(self.resolution(d), want, made)


if __name__ == "__main__":
    if not ONLINE:
        print("SKIP: npm is not installed or its registry cannot be reached")
    nubtest.main()
