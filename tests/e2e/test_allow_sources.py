#!/usr/bin/env python3
"""npm's allow-git, allow-remote, allow-file (all, root, none; npm 12
defaults git and remote URLs to none): a dependency from outside the
registry that the setting does not allow is refused (exit 21), a lockfile's
as well as a new one, before anything is cloned; `root` allows what the
project's own package.json asks for. Differential: npm 11 (and npm 12 for
its defaults) refuse and accept the same projects.
"""
import os
import shutil
import subprocess

from nubtest import NubTestCase, write


class AllowSourcesTest(NubTestCase):

    def git_repo(self):
        repo = os.path.join(self.tmp, "repo")
        os.makedirs(repo)
        self.write_json(os.path.join(repo, "package.json"), {"name": "gdep", "version": "1.0.0"})
        env = dict(self.env, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-qm", "one"]):
            subprocess.run(["git"] + args, cwd=repo, env=env, check=True)
        return "git+file://" + repo

    def project(self, name, deps, npmrc="", extra=None):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        doc = {"name": "proj", "version": "1.0.0", "dependencies": deps}
        doc.update(extra or {})
        self.write_json(os.path.join(d, "package.json"), doc)
        write(os.path.join(d, ".npmrc"), "registry=%s\n%s" % (self.registry.url, npmrc))
        return d

    def both(self, theirs, setting, which="npm"):
        """nub ci and npm ci of the same locked project with `setting` in
        .npmrc: (nub's exit, npm's exit)."""
        mine = os.path.join(self.tmp, "nub-%d" % len(os.listdir(self.tmp)))
        shutil.copytree(theirs, mine, ignore=shutil.ignore_patterns("node_modules"))
        for d in (mine, theirs):
            with open(os.path.join(d, ".npmrc"), "a") as f:
                f.write(setting)
            shutil.rmtree(os.path.join(d, "node_modules"), ignore_errors=True)
        n = self.nub("ci", cwd=mine, check=False)
        m = self.npm("ci", "--ignore-scripts", cwd=theirs, check=False, which=which)
        return n, m

    def test_git(self):
        url = self.git_repo()
        theirs = self.project("npm", {"gdep": url, "a": "1.0.0"})
        self.npm("install", "--ignore-scripts", cwd=theirs)
        n, m = self.both(theirs, "allow-git=none\n")
        self.assertEqual(n.returncode, 21, n.stderr)
        self.assertIn("fetching git dependencies is disabled (allow-git=none)", n.stderr)
        self.assertNotEqual(m.returncode, 0)
        n, m = self.both(theirs, "allow-git=root\n")
        self.assertEqual((n.returncode, m.returncode), (0, 0), n.stderr + m.stderr)
        # a new git dependency is refused before it is cloned
        d = self.project("add", {"a": "1.0.0"}, "allow-git=none\n")
        self.npm("install", "--ignore-scripts", cwd=d)
        proc = self.nub("add", "gdep@" + url, cwd=d, check=False)
        self.assertEqual(proc.returncode, 21, proc.stderr)
        self.assertIn("allow-git=none", proc.stderr)
        self.assertNotIn("gdep", self.read_json(os.path.join(d, "package.json"))["dependencies"])

    def test_npm12_defaults(self):
        url = self.git_repo()
        theirs = self.project("npm", {"gdep": url}, extra={"packageManager": "npm@12.2.3"})
        self.npm("install", "--ignore-scripts", cwd=theirs, which="npm12", check=False)
        if not os.path.exists(os.path.join(theirs, "package-lock.json")):
            # npm 12 refuses it from the start: lock it with npm 11
            self.npm("install", "--ignore-scripts", cwd=theirs)
        n, m = self.both(theirs, "", which="npm12")
        self.assertEqual(n.returncode, 21, n.stderr)
        self.assertIn("npm 12's default", n.stderr)
        self.assertNotEqual(m.returncode, 0)
        n, m = self.both(theirs, "allow-git=all\n", which="npm12")
        self.assertEqual((n.returncode, m.returncode), (0, 0), n.stderr + m.stderr)

    def test_remote_and_file(self):
        # a tarball URL package.json names: remote, wherever it points
        # (npm 11 refuses every URL; a fresh system may not resolve any
        # other name for the test registry's host)
        url = self.registry.tarball_url("e", "1.0.0")
        theirs = self.project("remote", {"e": url})
        self.npm("install", "--ignore-scripts", cwd=theirs)
        n, m = self.both(theirs, "allow-remote=none\n")
        self.assertEqual(n.returncode, 21, n.stderr)
        self.assertNotEqual(m.returncode, 0)
        # a URL package.json names is remote wherever it points (npm 12
        # too); a registry package's resolved URL on the registry's host is
        # the registry's
        url = self.registry.tarball_url("e", "1.0.0")
        theirs = self.project("same-host", {"e": url})
        self.npm("install", "--ignore-scripts", cwd=theirs)
        n, m = self.both(theirs, "allow-remote=none\n", which="npm12")
        self.assertEqual(n.returncode, 21, n.stderr)
        self.assertNotEqual(m.returncode, 0)
        theirs = self.project("registry", {"a": "1.0.0"})
        self.npm("install", "--ignore-scripts", cwd=theirs)
        n, m = self.both(theirs, "allow-remote=none\n", which="npm12")
        self.assertEqual((n.returncode, m.returncode), (0, 0), n.stderr + m.stderr)
        # a file: tarball
        tgz = os.path.join(self.tmp, "e-1.0.0.tgz")
        with open(tgz, "wb") as f:
            f.write(self.registry.tarball("e", "1.0.0"))
        theirs = self.project("file", {"e": "file:../e-1.0.0.tgz"})
        self.npm("install", "--ignore-scripts", cwd=theirs)
        n, m = self.both(theirs, "allow-file=none\n")
        self.assertEqual(n.returncode, 21, n.stderr)
        self.assertNotEqual(m.returncode, 0)


if __name__ == "__main__":
    import unittest
    unittest.main()
