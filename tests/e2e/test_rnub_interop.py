#!/usr/bin/env python3
"""nub installs from a nub.lock written by the existing Rust nub.

The Rust nub is /opt/peers/rnub/bin/nub, or $RUST_NUB; without it these tests
are skipped. It runs with a private HOME (and XDG dirs, and store), CI unset,
and the test registry named in the project's .npmrc only, as
`nub install --lockfile-only`. Our nub then installs from that nub.lock
(--frozen-lockfile: the lockfile must be in sync with package.json as it is),
and the result must hold the same packages (name and version, counted per
peer variant) as our own resolution of the same package.json, with the same
direct dependencies seen by node.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_rnub_interop.py
     (or ctest -R e2e.rnub_interop)
"""

import collections
import json
import os
import shutil
import unittest

import nubtest
from test_resolve import LockMixin, parse_lock

DEFAULT_RUST_NUB = "/opt/peers/rnub/bin/nub"


def rust_nub():
    path = os.environ.get("RUST_NUB") or DEFAULT_RUST_NUB
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


@unittest.skipUnless(rust_nub(), "the Rust nub is not installed (%s or $RUST_NUB)"
                     % DEFAULT_RUST_NUB)
class RustNubLockfileTest(LockMixin, nubtest.NubTestCase):

    def rnub_lock(self, pj_text, name):
        """Run the Rust nub in a directory of its own; returns its nub.lock text."""
        work = os.path.join(self.tmp, "rnub-" + name)
        home = os.path.join(self.tmp, "rnub-home")
        os.makedirs(work)
        with open(os.path.join(work, "package.json"), "w") as f:
            f.write(pj_text)
        with open(os.path.join(work, ".npmrc"), "w") as f:
            f.write("registry=%s\n" % self.registry.url)
        env = {
            "HOME": home,
            "XDG_CACHE_HOME": os.path.join(home, ".cache"),
            "XDG_CONFIG_HOME": os.path.join(home, ".config"),
            "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
            "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
            "NUB_STORE_DIR": os.path.join(self.tmp, "rnub-store"),
            "npm_config_registry": None,
            "CI": None,
        }
        proc = self.run_cmd([rust_nub(), "install", "--lockfile-only"], cwd=work, env=env,
                            check=False, timeout=300)
        lock = os.path.join(work, "nub.lock")
        if proc.returncode != 0 or not os.path.isfile(lock):
            self.fail("the Rust nub did not write nub.lock (exit %d)\n%s\n%s"
                      % (proc.returncode, proc.stdout, proc.stderr))
        self.assertFalse(os.path.exists(os.path.join(work, "node_modules")))
        self.assertGreater(self.registry.count(r"^/a(\?|$)") +
                           self.registry.count(r"^/host-a(\?|$)"), 0,
                           "the Rust nub did not ask the test registry")
        with open(lock) as f:
            return f.read()

    def installed(self, proj):
        """Counter of (name, version) over the package entries the project's
        links reach, in node_modules/.nub or in the global virtual store (one
        per snapshot, so peer variants count twice)."""
        out = collections.Counter()
        walked, todo = set(), []

        def names(nm):
            for name in os.listdir(nm):
                if name.startswith("@"):
                    yield from (os.path.join(name, s) for s in os.listdir(os.path.join(nm, name)))
                elif not name.startswith("."):
                    yield name

        def reach(link):
            real = os.path.realpath(link)
            at = real.rfind(os.sep + "node_modules" + os.sep)
            if at >= 0:
                todo.append(real[: at + 13])

        top = os.path.join(proj, "node_modules")
        for name in names(top):
            reach(os.path.join(top, name))
        vs = os.path.join(top, ".nub")
        for entry in os.listdir(vs):
            todo.append(os.path.join(vs, entry) if entry == "node_modules"
                        else os.path.join(vs, entry, "node_modules"))
        while todo:
            nm = todo.pop()
            if nm in walked or not os.path.isdir(nm):
                continue
            walked.add(nm)
            for sub in names(nm):
                p = os.path.join(nm, sub)
                if os.path.islink(p):
                    reach(p)              # a dependency, not the package itself
                else:
                    pj = self.read_json(os.path.join(p, "package.json"))
                    out[(pj["name"], pj["version"])] += 1
        return out

    def direct(self, proj):
        """What node loads for each direct dependency of the project."""
        pj = self.read_json(os.path.join(proj, "package.json"))
        names = set()
        for field in ("dependencies", "devDependencies", "optionalDependencies"):
            names.update(pj.get(field, {}))
        out = {}
        for name in sorted(names):
            if os.path.lexists(os.path.join(proj, "node_modules", name)):
                out[name] = self.node_json(proj, "require(%s)" % json.dumps(name))
        return out

    def compare(self, pj_text, name):
        rlock = self.rnub_lock(pj_text, name)
        ours = os.path.join(self.tmp, "ours-" + name)
        theirs = os.path.join(self.tmp, "theirs-" + name)
        for d in (ours, theirs):
            os.makedirs(d)
            with open(os.path.join(d, "package.json"), "w") as f:
                f.write(pj_text)
        self.nub("install", cwd=ours)
        with open(os.path.join(theirs, "nub.lock"), "w") as f:
            f.write(rlock)
        self.nub("install", "--frozen-lockfile", cwd=theirs)
        with open(os.path.join(theirs, "nub.lock")) as f:
            self.assertEqual(f.read(), rlock, "installing from the Rust nub's nub.lock rewrote it")
        got, want = self.installed(theirs), self.installed(ours)
        self.assertEqual(sorted(got.items()), sorted(want.items()))
        self.assertEqual(self.direct(theirs), self.direct(ours))
        # both lockfiles name the same importer versions
        ri, oi = self.importer_deps(self.lock(theirs)), self.importer_deps(self.lock(ours))
        self.assertEqual(sorted(ri), sorted(oi))
        return rlock, self.lock_text(ours)

    def test_basic_project(self):
        with open(os.path.join(nubtest.PROJECTS_DIR, "basic", "package.json")) as f:
            pj = f.read()
        rlock, olock = self.compare(pj, "basic")
        self.assertEqual(self.lock_text(os.path.join(self.tmp, "theirs-basic")), rlock)
        # the same resolution, entry for entry
        self.assertEqual(parse_lock(rlock)["importers"], parse_lock(olock)["importers"])
        self.assertEqual(parse_lock(rlock)["snapshots"], parse_lock(olock)["snapshots"])

    def test_peers_aliases_and_tags(self):
        pj = json.dumps({"name": "p", "version": "1.0.0", "dependencies": {
            "host-a": "^1.0.0", "host-b": "^1.0.0", "plugin": "^1.0.0",
            "peer-host": "^1.0.0", "myb": "npm:b@^2.0.0", "pre": "next",
            "tagged": "^1.0.0"}}, indent=2) + "\n"
        self.compare(pj, "peers")


if __name__ == "__main__":
    nubtest.main()
