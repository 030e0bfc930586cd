"""Harness for nub's end-to-end tests (Python stdlib only).

A test module looks like::

    import nubtest

    class InstallTest(nubtest.NubTestCase):
        def test_basic(self):
            self.make_project("basic", lockfile="package-lock.v3.json")
            self.nub("install")
            self.assertIn("node_modules/c/node_modules/b/", self.tree())

    if __name__ == "__main__":
        nubtest.main()

Environment: NUB_BIN (required; the nub executable), NUB_TEST_TMP (where the
per-test directories go; default: the system temp dir), NUB_KEEP_TMP=1 (keep
them for inspection).  ctest sets the first two (tests/CMakeLists.txt).
"""

import json
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS_DIR = os.path.dirname(HERE)
FIXTURES_DIR = os.path.join(TESTS_DIR, "fixtures")
PACKAGES_DIR = os.path.join(FIXTURES_DIR, "packages")
PROJECTS_DIR = os.path.join(FIXTURES_DIR, "projects")

# Running a test file directly (not through ctest) leaves PYTHONPATH unset.
sys.path.insert(0, os.path.join(TESTS_DIR, "registry"))
from registry import Registry  # noqa: E402,F401  (re-exported for tests)

# Variables that would make nub (or node) behave differently from a test's
# point of view: npm config, CI detection, module search paths.  Other NUB_*
# variables pass through, so a developer can turn on nub's diagnostics.
SCRUBBED_ENV_PREFIXES = ("npm_config_",)
SCRUBBED_ENV = ("CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID",
                "NUB_STORE_DIR", "NUB_CACHE_DIR",
                "NODE_PATH", "NODE_OPTIONS", "FORCE_COLOR")

# @@INTEGRITY:name@version@@ etc.; a scoped name starts with '@' itself.
PLACEHOLDER = re.compile(r"@@(INTEGRITY|SHASUM|SRI_SHA1):((?:@[^@/]+/)?[^@]+)@([^@]+)@@")


# npm's names for this machine, and its os/cpu rule (a list allows the value
# if it names it, or only has negations that do not; an empty list allows
# anything).
def write(path, text):
    """Write text to path, making its folders."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def npm_os():
    return {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}.get(
        platform.system(), platform.system().lower())


def store_kind():
    """Where nub keeps a new package's files in the store: as a tree under
    v1/packages, except on macOS, where whole directories are cloned from
    content files (v1/files)."""
    return "files" if npm_os() == "darwin" else "packages"


def npm_cpu():
    m = platform.machine().lower()
    return {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64",
            "i386": "ia32", "i686": "ia32"}.get(m, m)


def platform_ok(os_list, cpu_list):
    def allows(lst, value):
        if not lst:
            return True
        pos = [x for x in lst if not x.startswith("!")]
        if ("!" + value) in lst:
            return False
        return not pos or value in pos
    return allows(os_list, npm_os()) and allows(cpu_list, npm_cpu())


def have_node():
    return shutil.which("node") is not None


# The incumbents the comparisons are made with, at the versions the
# fixtures were recorded with (ci/tools.sh installs them): another version
# builds other trees, so a test that finds one says SKIP rather than
# comparing with it.
TOOL_VERSIONS = {"npm": "11.", "pnpm": "12.23.", "yarn": "1.", "bun": "1.4.5",
                 "berry": "4.18.1", "npm12": "12."}
_tools = {}


def tool(name):
    """The path of incumbent `name` (npm, pnpm, yarn, bun, or berry from
    NUB_BERRY, npm12 from NUB_NPM12) when it is at the version the tests
    want, else None."""
    if name not in _tools:
        path = ({"berry": os.environ.get("NUB_BERRY"), "npm12": os.environ.get("NUB_NPM12")}
                .get(name) if name in ("berry", "npm12") else shutil.which(name))
        ok = False
        if path and os.path.exists(path):
            try:
                out = subprocess.run([path, "--version"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, universal_newlines=True,
                                     timeout=60).stdout.strip()
                ok = out.lstrip("v").startswith(TOOL_VERSIONS[name])
            except (OSError, subprocess.SubprocessError):
                ok = False
        _tools[name] = path if ok else None
    return _tools[name]


def tool_skip_reason(name):
    return "SKIP: %s %s is not installed (ci/tools.sh installs it)" % (
        name, TOOL_VERSIONS[name].rstrip("."))


def have_npm():
    return tool("npm") is not None


requires_node = unittest.skipUnless(have_node(), "node is not installed")
requires_npm = unittest.skipUnless(have_npm(), tool_skip_reason("npm"))


def main():
    unittest.main(verbosity=2)


def _rmtree(path):
    """rmtree that also copes with read-only directories (a store may make
    its contents read-only)."""
    for dirpath, dirnames, _ in os.walk(path):
        for d in dirnames:
            p = os.path.join(dirpath, d)
            if not os.path.islink(p):
                os.chmod(p, stat.S_IRWXU)
    shutil.rmtree(path)


def _format_streams(proc_or_exc):
    out = proc_or_exc.stdout or ""
    err = proc_or_exc.stderr or ""
    if isinstance(out, bytes):
        out = out.decode("utf-8", "replace")
    if isinstance(err, bytes):
        err = err.decode("utf-8", "replace")
    return "--- stdout ---\n%s\n--- stderr ---\n%s" % (out, err)


class NubTestCase(unittest.TestCase):
    """Base class: a shared test registry per class, a scratch dir per test.

    Class attributes subclasses may set: registry_token (start the registry
    requiring this bearer token), needs_nub (default True; False lets tests
    of the harness itself run without NUB_BIN).

    Per test: self.tmp/{home,store,proj}, self.home, self.store, self.proj,
    self.env (the environment nub runs with).
    """

    registry = None
    registry_token = None
    needs_nub = True
    nub_bin = None
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.nub_bin = os.environ.get("NUB_BIN")
        if cls.needs_nub and not (cls.nub_bin and os.access(cls.nub_bin, os.X_OK)):
            raise RuntimeError("set NUB_BIN to the nub executable (got %r)" % cls.nub_bin)
        cls.registry = Registry(PACKAGES_DIR, token=cls.registry_token).start()

    @classmethod
    def tearDownClass(cls):
        if cls.registry is not None:
            cls.registry.stop()
            cls.registry = None
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        base = os.environ.get("NUB_TEST_TMP") or tempfile.gettempdir()
        os.makedirs(base, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix=self._testMethodName[:40] + "-", dir=base)
        if os.environ.get("NUB_KEEP_TMP") != "1":
            self.addCleanup(_rmtree, self.tmp)
        self.home = os.path.join(self.tmp, "home")
        self.store = os.path.join(self.tmp, "store")
        self.proj = os.path.join(self.tmp, "proj")
        for d in (self.home, self.store, self.proj):
            os.makedirs(d)
        self.env = self._make_env()
        self.registry.clear_faults()
        self.registry.reset_log()

    def _make_env(self):
        env = {k: v for k, v in os.environ.items()
               if k not in SCRUBBED_ENV and not k.lower().startswith(SCRUBBED_ENV_PREFIXES)}
        no_proxy = "127.0.0.1,localhost"
        env.update({
            "HOME": self.home,
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "NUB_STORE_DIR": self.store,
            "npm_config_registry": self.registry.url,
            "NO_COLOR": "1",
            "NO_PROXY": no_proxy,
            "no_proxy": no_proxy,
        })
        return env

    # -- running things

    def run_cmd(self, argv, cwd=None, env=None, check=True, timeout=120, input=None):
        """Run argv with self.env (+ `env` overrides; a None value unsets) in
        `cwd` (default self.proj).  check=True fails the test on a non-zero
        exit, showing both output streams."""
        full_env = dict(self.env)
        for key, value in (env or {}).items():
            if value is None:
                full_env.pop(key, None)
            else:
                full_env[key] = value
        try:
            proc = subprocess.run(argv, cwd=cwd or self.proj, env=full_env, input=input,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            self.fail("%s timed out after %ss\n%s" % (argv, timeout, _format_streams(exc)))
        if check and proc.returncode != 0:
            self.fail("%s exited %d\n%s" % (argv, proc.returncode, _format_streams(proc)))
        return proc

    def nub(self, *args, cwd=None, env=None, check=True, timeout=120, input=None):
        """Run `$NUB_BIN args...`; returns subprocess.CompletedProcess (text)."""
        return self.run_cmd([self.nub_bin] + [str(a) for a in args], cwd=cwd, env=env,
                            check=check, timeout=timeout, input=input)

    def nub_fails(self, *args, **kwargs):
        """Run nub expecting a non-zero exit; returns the CompletedProcess."""
        proc = self.nub(*args, check=False, **kwargs)
        if proc.returncode == 0:
            self.fail("nub %s unexpectedly succeeded\n%s" % (" ".join(args), _format_streams(proc)))
        return proc

    def pnpm(self, cwd, *args, check=True):
        """Run pnpm (skipping the test where it is not installed) in cwd
        with a store under self.tmp, against the registry the project's
        .npmrc names (no registry from the environment)."""
        exe = tool("pnpm")
        if not exe:
            self.skipTest("SKIP: pnpm is not installed")
        return self.run_cmd([exe] + list(args), cwd=cwd, check=check,
                            env={"npm_config_registry": None, "PNPM_HOME": None, "CI": None,
                                 "npm_config_store_dir": os.path.join(self.tmp, "pnpm-store")})

    def bun(self, cwd, *args, check=True):
        """Run bun (skipping the test where it is not installed) in cwd with
        a cache under self.tmp, against the test registry (cwd's
        bunfig.toml names it, written when there is none)."""
        exe = tool("bun")
        if not exe:
            self.skipTest("SKIP: bun is not installed")
        bunfig = os.path.join(cwd, "bunfig.toml")
        if not os.path.exists(bunfig):
            with open(bunfig, "w") as f:
                f.write('[install]\nregistry = "%s"\n' % self.registry.url)
        return self.run_cmd([exe] + list(args), cwd=cwd, check=check,
                            env={"BUN_INSTALL_CACHE_DIR": os.path.join(self.tmp, "bun-cache"),
                                 "npm_config_registry": None})

    def npm(self, *args, cwd=None, registry=None, check=True, timeout=300, which="npm"):
        """Run npm (which="npm12": npm 12) with a configuration of its own
        (no user or global npmrc, a cache under self.tmp) against the test
        registry (or `registry`); check=True fails the test when it exits
        non-zero."""
        if not tool(which):
            self.skipTest(tool_skip_reason(which))
        home = os.path.join(self.tmp, "npm-home")
        os.makedirs(home, exist_ok=True)
        empty = os.path.join(self.tmp, "empty.npmrc")
        if not os.path.exists(empty):
            open(empty, "w").close()
        env = {k: v for k, v in self.env.items() if not k.lower().startswith("npm_")}
        env.update({
            "HOME": home,
            "npm_config_cache": os.path.join(self.tmp, "npm-cache"),
            "npm_config_userconfig": os.path.join(home, ".npmrc"),
            "npm_config_globalconfig": empty,
            "npm_config_registry": registry or self.registry.url,
            "npm_config_update_notifier": "false",
            "npm_config_audit": "false",
            "npm_config_fund": "false",
        })
        return self.run_cmd([tool(which)] + list(args), cwd=cwd, env=env, check=check,
                            timeout=timeout)

    def lock_v3(self, root_deps, packages, name="proj"):
        """A package-lock.json (v3) for the test registry: root_deps
        {name: range}; packages {path: {"name"?, "version", ...extra}}
        get resolved and integrity filled in."""
        lock = {"name": name, "version": "1.0.0", "lockfileVersion": 3, "requires": True,
                "packages": {"": {"name": name, "version": "1.0.0",
                                  "dependencies": dict(root_deps)}}}
        for path, e in packages.items():
            e = dict(e)
            pkg = e.pop("name", path.rsplit("node_modules/", 1)[-1])
            if "link" not in e:
                e["resolved"] = self.registry.tarball_url(pkg, e["version"])
                e["integrity"] = self.registry.integrity(pkg, e["version"])
            lock["packages"][path] = e
        return lock

    def node_require(self, cwd, module):
        """require(module) with node in `cwd`; returns the module's exports
        parsed from JSON (the fixture packages export {name, version, deps})."""
        if not have_node():
            self.skipTest("node is not installed")
        script = "console.log(JSON.stringify(require(%s)))" % json.dumps(module)
        proc = self.run_cmd(["node", "-e", script], cwd=cwd)
        return json.loads(proc.stdout)

    # -- projects and lockfiles

    def render(self, text):
        """Fill in lockfile template placeholders for this test's registry."""
        reg = self.registry
        text = text.replace("@@REGISTRY@@/", reg.url).replace("@@REGISTRY@@", reg.url.rstrip("/"))

        def value(m):
            kind, name, version = m.groups()
            if kind == "INTEGRITY":
                return reg.integrity(name, version)
            if kind == "SHASUM":
                return reg.shasum(name, version)
            return reg.sri_sha1(name, version)
        return PLACEHOLDER.sub(value, text)

    def make_project(self, name_or_dict, lockfile=None):
        """Populate self.proj from a fixture project (its package.json and
        other files, not its lockfile templates) or from a package.json dict.
        `lockfile`: a template rendered into package-lock.json (see below).  Returns self.proj."""
        if isinstance(name_or_dict, dict):
            self.write_json(os.path.join(self.proj, "package.json"), name_or_dict)
            src = None
        else:
            src = os.path.join(PROJECTS_DIR, name_or_dict)
            for entry in os.listdir(src):
                if re.match(r"package-lock\.v\d+\.json$|.*\.template$", entry):
                    continue
                path = os.path.join(src, entry)
                if os.path.isdir(path):
                    shutil.copytree(path, os.path.join(self.proj, entry), symlinks=True)
                else:
                    shutil.copy2(path, self.proj)
        if lockfile is not None:
            # 'package-lock.v3.json' is looked up in the fixture project;
            # with a dict, name it relative to the projects dir
            # ('basic/package-lock.v3.json') or give an absolute path.
            path = os.path.join(src or PROJECTS_DIR, lockfile)
            with open(path) as f:
                text = self.render(f.read())
            with open(os.path.join(self.proj, "package-lock.json"), "w") as f:
                f.write(text)
        return self.proj

    def write_lock_template(self, template, dest):
        """Render a lockfile template of the fixture projects
        ('basic/bun.lock.template') into the project as `dest`."""
        with open(os.path.join(PROJECTS_DIR, template)) as f:
            text = self.render(f.read())
        with open(os.path.join(self.proj, dest), "w") as f:
            f.write(text)

    def merge_conflict(self, lockname, install, ours="dev-only", theirs="c"):
        """A lockfile git cannot merge, as two branches leave it: the
        project (package.json with fresh-user ^1.0.0) locked by
        install(cwd), then branch `other` adds `theirs` and main adds
        `ours`, each locked by install(); `git merge other` leaves markers
        in lockname (the two names sort next to each other, so both sides
        change the same lines), and package.json is merged by hand (all
        three). Returns a copy of the project (no .git, no node_modules)
        for the incumbent."""
        pj = os.path.join(self.proj, "package.json")
        deps = {"fresh-user": "^1.0.0"}
        self.write_json(pj, {"name": "proj", "version": "1.0.0", "dependencies": deps})
        install(self.proj)
        git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
        with open(os.path.join(self.proj, ".gitignore"), "w") as f:
            f.write("node_modules\n")
        self.run_cmd(git + ["init", "-q", "-b", "main", "."])
        self.run_cmd(git + ["add", "-A"])
        self.run_cmd(git + ["commit", "-qm", "base"])
        for branch, dep in (("other", theirs), ("main", ours)):
            self.run_cmd(git + ["checkout", "-q"] + (["-b"] if branch != "main" else []) +
                         [branch])
            self.write_json(pj, {"name": "proj", "version": "1.0.0",
                                 "dependencies": dict(deps, **{dep: "^1.0.0"})})
            install(self.proj)
            self.run_cmd(git + ["commit", "-qam", dep])
        self.run_cmd(git + ["merge", "other"], check=False)
        with open(os.path.join(self.proj, lockname)) as f:
            self.assertIn("\n<<<<<<< ", f.read())
        self.write_json(pj, {"name": "proj", "version": "1.0.0",
                             "dependencies": dict(deps, **{ours: "^1.0.0", theirs: "^1.0.0"})})
        shutil.rmtree(os.path.join(self.proj, ".git"))
        if os.path.isdir(os.path.join(self.proj, "node_modules")):
            shutil.rmtree(os.path.join(self.proj, "node_modules"))
        copy = os.path.join(self.tmp, "theirs-merge", "proj")
        shutil.copytree(self.proj, copy)
        return copy

    # -- inspecting results

    def tree(self, root=None, modes=False):
        """Sorted relative paths under root (default self.proj): directories
        end with '/', symlinks read 'path -> target' and are not followed;
        with modes, files end with ' x' (executable) or ' -'."""
        root = root or self.proj
        out = []
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                if os.path.islink(path):
                    out.append("%s -> %s" % (rel, os.readlink(path)))
                elif os.path.isdir(path):
                    out.append(rel + "/")
                elif modes:
                    out.append("%s %s" % (rel, "x" if os.stat(path).st_mode & 0o111 else "-"))
                else:
                    out.append(rel)
        return sorted(out)

    # what each tool keeps for itself in node_modules
    BOOKKEEPING = ("node_modules/.package-lock.json", "node_modules/.nub-state")

    def installed(self, root=None, modes=False):
        """tree() of every node_modules (the project's and its workspace
        members'), without the tools' bookkeeping: the tree to compare
        between npm and nub."""
        return [p for p in self.tree(root, modes)
                if (p.startswith("node_modules/") or "/node_modules/" in p) and
                not p.startswith(self.BOOKKEEPING)]

    @staticmethod
    def read_json(path):
        with open(path) as f:
            return json.load(f)

    @staticmethod
    def write_json(path, doc):
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")

    def assertExecutable(self, path):
        self.assertTrue(os.access(path, os.X_OK), "%s is not executable" % path)
