#!/usr/bin/env python3
"""nub against a real registry server: Verdaccio (run with node on
127.0.0.1, storage in a temporary directory, no uplink), the shared registry
and cache a team puts in front of a CI fleet.

Packages are published to it with `npm publish` under the @nubtest scope,
which only authenticated users may read; a project takes @nubtest from
Verdaccio through a scoped registry with a token and everything else from
the local test registry. Installed in both layouts, with and without a
lockfile; a missing or wrong token is a 401 and a user without access a 403,
each one line naming the package and registry (exit 42) without the token;
the token never reaches the other registry; the tarball URLs are the
server's own (host and port).

Verdaccio comes from NUB_VERDACCIO (its bin/verdaccio script) or
<build>/tools/verdaccio (ci/test.sh installs verdaccio@6.8.0 there); the
tests skip with the reason when it or node is missing.

Run: NUB_BIN=build/core/nub python3 tests/e2e/test_verdaccio.py
"""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import nubtest

USER, PASSWORD = "nub-ci", "pw-nub-ci-1"
BOSS, BOSS_PASSWORD = "boss", "pw-boss-1"

CONFIG = """\
storage: {storage}
auth:
  htpasswd:
    file: {htpasswd}
    max_users: 100
uplinks: {{}}
packages:
  '@nubtest/secret':
    access: {boss}
    publish: {boss}
  '@nubtest/*':
    access: $authenticated
    publish: $authenticated
  '**':
    access: $all
    publish: $authenticated
log: {{type: stdout, format: pretty, level: warn}}
"""

# name -> (versions, dependencies); each exports {name, version, deps}
PACKAGES = {
    "@nubtest/util": (["1.0.0", "1.1.0", "2.0.0"], {}),
    "@nubtest/app": (["1.0.0"], {"@nubtest/util": "^1.0.0", "a": "^1.0.0"}),
    "@nubtest/secret": (["1.0.0"], {}),
}


def verdaccio_script():
    env = os.environ.get("NUB_VERDACCIO")
    if env:
        return env if os.path.isfile(env) else None
    nub = os.environ.get("NUB_BIN", "")
    build = os.path.dirname(os.path.dirname(os.path.abspath(nub))) if nub else ""
    p = os.path.join(build, "tools", "verdaccio", "node_modules", "verdaccio", "bin", "verdaccio")
    return p if os.path.isfile(p) else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def put_json(url, doc, headers=None):
    req = urllib.request.Request(url, data=json.dumps(doc).encode(), method="PUT",
                                 headers=dict({"Content-Type": "application/json"}, **(headers or {})))
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"{}")


class VerdaccioTest(nubtest.NubTestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not nubtest.have_node():
            raise unittest.SkipTest("SKIP: node is not installed")
        if not nubtest.tool("npm"):
            raise unittest.SkipTest("SKIP: npm is not installed (it publishes the packages)")
        script = verdaccio_script()
        if not script:
            raise unittest.SkipTest("SKIP: verdaccio is not installed (ci/test.sh puts it in "
                                    "build/tools/verdaccio; or set NUB_VERDACCIO)")
        cls.vtmp = tempfile.mkdtemp(prefix="verdaccio-", dir=os.environ.get("NUB_TEST_TMP"))
        cls.port = free_port()
        cls.vurl = "http://127.0.0.1:%d/" % cls.port
        cfg = os.path.join(cls.vtmp, "config.yaml")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(storage=os.path.join(cls.vtmp, "storage"),
                                  htpasswd=os.path.join(cls.vtmp, "htpasswd"), boss=BOSS))
        cls.vlog = open(os.path.join(cls.vtmp, "verdaccio.log"), "w")
        cls.server = subprocess.Popen(["node", script, "--config", cfg, "--listen",
                                       "127.0.0.1:%d" % cls.port],
                                      stdout=cls.vlog, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(cls.vurl + "-/ping", timeout=2).read()
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if cls.server.poll() is not None or time.monotonic() > deadline:
                    cls.tearDownClass()
                    raise RuntimeError("verdaccio did not start; see " + cls.vlog.name)
                time.sleep(0.2)
        cls.token = cls.adduser(USER, PASSWORD)
        boss_token = cls.adduser(BOSS, BOSS_PASSWORD)
        for name, (versions, deps) in PACKAGES.items():
            for v in versions:
                cls.publish(name, v, deps, boss_token if name.endswith("/secret") else cls.token)

    @classmethod
    def tearDownClass(cls):
        if cls.server and cls.server.poll() is None:
            cls.server.terminate()
            try:
                cls.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                cls.server.kill()
                cls.server.wait()
        if getattr(cls, "vlog", None):
            cls.vlog.close()
        if getattr(cls, "vtmp", None) and os.environ.get("NUB_KEEP_TMP") != "1":
            shutil.rmtree(cls.vtmp, ignore_errors=True)
        super().tearDownClass()

    @classmethod
    def adduser(cls, name, password):
        doc = put_json(cls.vurl + "-/user/org.couchdb.user:" + name,
                       {"name": name, "password": password})
        return doc["token"]

    @classmethod
    def publish(cls, name, version, deps, token):
        d = tempfile.mkdtemp(dir=cls.vtmp)
        pj = {"name": name, "version": version, "main": "index.js", "dependencies": deps}
        with open(os.path.join(d, "package.json"), "w") as f:
            json.dump(pj, f)
        with open(os.path.join(d, "index.js"), "w") as f:
            f.write("const deps = {};\n")
            for dep in deps:
                f.write("deps[%s] = require(%s).version;\n" % (json.dumps(dep), json.dumps(dep)))
            f.write("module.exports = {name: %s, version: %s, deps};\n"
                    % (json.dumps(name), json.dumps(version)))
        rc = os.path.join(d, ".npmrc-publish")
        with open(rc, "w") as f:
            f.write("//127.0.0.1:%d/:_authToken=%s\n" % (cls.port, token))
        env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}
        env["npm_config_cache"] = os.path.join(cls.vtmp, "npm-cache")
        subprocess.run(["npm", "publish", "--registry", cls.vurl, "--userconfig", rc,
                        "--ignore-scripts", "--no-audit"], cwd=d, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    # -- helpers

    def project(self, deps, token=True, bad_token=None):
        self.make_project({"name": "p", "version": "1.0.0", "dependencies": deps})
        lines = ["@nubtest:registry=%s" % self.vurl]
        if bad_token:
            lines.append("//127.0.0.1:%d/:_authToken=%s" % (self.port, bad_token))
        elif token:
            lines.append("//127.0.0.1:%d/:_authToken=%s" % (self.port, self.token))
        with open(os.path.join(self.proj, ".npmrc"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def assert_app(self):
        got = self.node_require(self.proj, "@nubtest/app")
        self.assertEqual(got["version"], "1.0.0")
        self.assertEqual(got["deps"], {"@nubtest/util": "1.1.0", "a": "1.0.0"})

    def assert_token_kept(self, *procs):
        for p in procs:
            self.assertNotIn(self.token, p.stdout + p.stderr)
        for r in self.registry.requests:
            self.assertNotIn("authorization", r["headers"], r["path"])

    # -- tests

    def test_both_layouts_with_and_without_a_lockfile(self):
        for layout in ("hoisted", "isolated"):
            with self.subTest(layout=layout):
                for f in ("node_modules", "nub.lock"):
                    p = os.path.join(self.proj, f)
                    shutil.rmtree(p) if os.path.isdir(p) else (os.path.exists(p) and os.remove(p))
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-" + layout)
                self.project({"@nubtest/app": "^1.0.0"})
                first = self.nub("install", "--node-linker", layout)
                self.assert_app()
                with open(os.path.join(self.proj, "nub.lock")) as f:
                    lock = f.read()
                self.assertIn("@nubtest/util@1.1.0", lock)
                # from the lockfile, with a cold store: the tarballs come
                # from the server's own URLs (host and port)
                shutil.rmtree(os.path.join(self.proj, "node_modules"))
                self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store2-" + layout)
                second = self.nub("install", "--frozen-lockfile", "--node-linker", layout)
                self.assert_app()
                self.assert_token_kept(first, second)

    def test_no_token_is_a_401(self):
        self.project({"@nubtest/app": "^1.0.0"}, token=False)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 42, proc.stderr)
        self.assertIn("@nubtest/app", proc.stderr)
        self.assertIn("127.0.0.1:%d" % self.port, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)

    def test_a_lockfile_without_the_token_is_a_401_on_the_tarball(self):
        self.project({"@nubtest/app": "^1.0.0"})
        self.nub("install")
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        self.env["NUB_STORE_DIR"] = os.path.join(self.tmp, "store-cold")
        self.project({"@nubtest/app": "^1.0.0"}, token=False)
        proc = self.nub_fails("install", "--frozen-lockfile")
        self.assertEqual(proc.returncode, 42, proc.stderr)
        self.assertIn("HTTP 401", proc.stderr)
        self.assertIn("wants a login", proc.stderr)
        self.assertRegex(proc.stderr, r"@nubtest/(app|util)@1\.[01]\.0")
        self.assertIn("127.0.0.1:%d" % self.port, proc.stderr)

    def test_a_wrong_token_is_a_401_and_never_shown(self):
        bogus = "bogus-token-0123456789"
        self.project({"@nubtest/app": "^1.0.0"}, bad_token=bogus)
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 42, proc.stderr)
        self.assertIn("does not accept the token", proc.stderr)
        self.assertNotIn(bogus, proc.stdout + proc.stderr)

    def test_a_user_without_access_is_a_403(self):
        self.project({"@nubtest/secret": "^1.0.0"})
        proc = self.nub_fails("install")
        self.assertEqual(proc.returncode, 42, proc.stderr)
        self.assertIn("@nubtest/secret", proc.stderr)
        self.assertIn("HTTP 403", proc.stderr)
        self.assertNotIn(self.token, proc.stdout + proc.stderr)

    def test_a_range_picks_from_the_server(self):
        self.project({"@nubtest/util": "^2.0.0"})
        self.nub("install")
        self.assertEqual(self.node_require(self.proj, "@nubtest/util")["version"], "2.0.0")


if __name__ == "__main__":
    nubtest.main()
