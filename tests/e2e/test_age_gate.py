#!/usr/bin/env python3
"""Release-age gates (agegate.h): a version published inside the window is
not picked while an older one matches; read from pnpm-workspace.yaml
(minutes), .npmrc (npm's days, pnpm's minutes), bunfig.toml (seconds),
with each home's exclusions; strict when set, lenient by default (pnpm's
and nub's one day).  Differential: the same project, the setting written in
the tool's own home, installed by pnpm, npm and bun (each where installed)
picks what nub picks, and fails where nub fails.

The registry's `fresh` has 1.0.0 (years old), 1.1.0 (an hour old) and
2.0.0 (`latest`, two hours old); `fresh-user` (old) depends on fresh ^1.0.0.
"""
import json
import os
import shutil

import nubtest
from nubtest import NubTestCase, write

PJ = {"name": "proj", "version": "1.0.0"}


class AgeGateTest(NubTestCase):

    # -- the homes: (files written, what the tool runs), per tool

    def homes(self, window_days=1, exclude=()):
        """{tool: {file: text}} writing a window of window_days (and the
        exclusions) in each tool's own home and unit."""
        reg = self.registry.url
        yaml = "minimumReleaseAge: %d\n" % (window_days * 1440)
        if exclude:
            yaml += "minimumReleaseAgeExclude:\n" + "".join("  - %s\n" % x for x in exclude)
        npmrc = "min-release-age=%d\n" % window_days + "".join(
            "min-release-age-exclude[]=%s\n" % x for x in exclude)
        bunfig = '[install]\nregistry = "%s"\nminimumReleaseAge = %d\n' % (reg, window_days * 86400)
        if exclude:
            bunfig += "minimumReleaseAgeExcludes = [%s]\n" % ", ".join('"%s"' % x for x in exclude)
        return {
            "pnpm": {"pnpm-workspace.yaml": yaml, ".npmrc": "registry=%s\n" % reg},
            "npm": {".npmrc": npmrc},
            "bun": {"bunfig.toml": bunfig},
        }

    def project(self, where, files, deps):
        os.makedirs(where, exist_ok=True)
        self.write_json(os.path.join(where, "package.json"), dict(PJ, dependencies=deps))
        for name, text in files.items():
            write(os.path.join(where, name), text)
        return where

    def run_tool(self, tool, cwd, args, check=False):
        if tool == "npm":
            return self.npm(*args, cwd=cwd, check=check)
        exe = nubtest.tool(tool)
        if not exe:
            self.skipTest("SKIP: %s is not installed" % tool)
        env = {"npm_config_registry": None, "PNPM_HOME": None,
               "npm_config_store_dir": os.path.join(self.tmp, "pnpm-store"),
               "BUN_INSTALL_CACHE_DIR": os.path.join(self.tmp, "bun-cache")}
        return self.run_cmd([exe] + list(args) + ["--ignore-scripts"], cwd=cwd, env=env,
                            check=check)

    @staticmethod
    def versions(root):
        out = {}
        for rel in ("fresh", "fresh-user", "fresh-user/node_modules/fresh"):
            pj = os.path.join(root, "node_modules", rel.replace("/node_modules/", "/node_modules/"),
                              "package.json")
            if os.path.exists(pj):
                with open(pj) as f:
                    out[rel] = json.load(f)["version"]
        return out

    def both(self, tool, files, deps, args, start=None):
        """nub and the tool on copies of one new project (start: a folder to
        copy it from): (nub's proc, tool's proc, nub's versions, tool's
        versions, nub's package.json, tool's)."""
        self.runs = getattr(self, "runs", 0) + 1
        ours = os.path.join(self.tmp, "ours-%s-%d" % (tool, self.runs))
        theirs = os.path.join(self.tmp, "theirs-%s-%d" % (tool, self.runs))
        if start:
            shutil.copytree(start, ours)
            shutil.copytree(start, theirs)
        else:
            self.project(ours, files, deps)
            self.project(theirs, files, deps)
        mine = self.nub(*args, cwd=ours, check=False)
        them = self.run_tool(tool, theirs, args)
        return (mine, them, self.versions(ours), self.versions(theirs),
                self.read_json(os.path.join(ours, "package.json")),
                self.read_json(os.path.join(theirs, "package.json")))

    # -- differential, per home

    def check_home(self, tool):
        homes = self.homes()
        cases = [
            # a range: the newest old-enough match, transitive picks too
            ({"fresh": "^1.0.0", "fresh-user": "1.0.0"}, ["install"]),
            # an add of "latest" (too young): the highest old-enough version below it
            ({}, ["add", "fresh"]),
        ]
        for deps, args in cases:
            with self.subTest(tool=tool, deps=deps, args=args):
                mine, them, vm, vt, pm, pt = self.both(tool, homes[tool], deps, args)
                self.assertEqual(them.returncode, 0, them.stderr)
                self.assertEqual(mine.returncode, 0, mine.stderr)
                self.assertEqual(vm, vt)
                self.assertEqual(vm.get("fresh"), "1.0.0")
                self.assertEqual(pm.get("dependencies"), pt.get("dependencies"))
        # nothing old enough matches: both refuse; nub's line names the
        # version, the setting and where an exclusion goes (exit 22)
        with self.subTest(tool=tool, strict=True):
            mine, them, vm, vt, _, _ = self.both(tool, homes[tool], {"fresh": "^2.0.0"},
                                                 ["install"])
            self.assertNotEqual(them.returncode, 0, them.stdout)
            self.assertEqual(mine.returncode, 22, mine.stderr)
            self.assertIn("fresh", mine.stderr)
            self.assertIn("2.0.0 was published 2 hours ago", mine.stderr)
            self.assertNotIn("fresh", vm)
        # an exclusion in the same home lets the young version in
        with self.subTest(tool=tool, exclude=True):
            mine, them, vm, vt, _, _ = self.both(tool, self.homes(exclude=["fresh"])[tool],
                                                 {"fresh": "^1.0.0"}, ["install"])
            self.assertEqual(them.returncode, 0, them.stderr)
            self.assertEqual(mine.returncode, 0, mine.stderr)
            self.assertEqual(vm, vt)
            self.assertEqual(vm["fresh"], "1.1.0")

    def test_pnpm_workspace_yaml(self):
        self.check_home("pnpm")

    def test_npmrc(self):
        self.check_home("npm")

    def test_bunfig(self):
        self.check_home("bun")

    # -- defaults

    def test_pnpm_default_is_lenient(self):
        """pnpm 12's own default (one day, lenient) in a pnpm project: a young
        version is installed when nothing older matches, with one line
        saying so."""
        start = self.project(os.path.join(self.tmp, "start"),
                             {".npmrc": "registry=%s\n" % self.registry.url}, {})
        self.run_tool("pnpm", start, ["install"], check=True)
        self.assertTrue(os.path.exists(os.path.join(start, "pnpm-lock.yaml")))
        for spec, want in (("fresh@^1.0.0", "1.0.0"), ("fresh@^2.0.0", "2.0.0")):
            with self.subTest(spec=spec):
                mine, them, vm, vt, pm, pt = self.both("pnpm", None, None, ["add", spec],
                                                       start=start)
                self.assertEqual(them.returncode, 0, them.stderr)
                self.assertEqual(mine.returncode, 0, mine.stderr)
                self.assertEqual(vm, vt)
                self.assertEqual(pm, pt)
                self.assertEqual(vm["fresh"], want)
                if want == "2.0.0":
                    self.assertIn("fresh@2.0.0 was published 2 hours ago, inside pnpm's default "
                                  "release age (1 day)", mine.stderr)

    def test_nub_default_and_npm_none(self):
        """nub's own projects gate a day by default; an npm project has no
        gate unless it sets one (npm's default), so `nub add` there picks
        what `npm install` picks."""
        self.make_project(dict(PJ, dependencies={"fresh": "^1.0.0"}))
        self.nub("install")
        self.assertEqual(self.versions(self.proj)["fresh"], "1.0.0")
        self.assertTrue(os.path.exists(os.path.join(self.proj, "nub.lock")))
        theirs = self.project(os.path.join(self.tmp, "npm"), {}, {})
        self.npm("install", cwd=theirs)
        ours = os.path.join(self.tmp, "ours")
        shutil.copytree(theirs, ours)
        self.npm("install", "fresh@^1.0.0", cwd=theirs)
        self.nub("add", "fresh@^1.0.0", cwd=ours)
        self.assertEqual(self.versions(ours), self.versions(theirs))
        self.assertEqual(self.versions(ours)["fresh"], "1.1.0")

    def test_zero_turns_the_default_off(self):
        self.make_project(dict(PJ, dependencies={"fresh": "^1.0.0"}))
        write(os.path.join(self.proj, ".npmrc"), "minimum-release-age=0\n")
        self.nub("install")
        self.assertEqual(self.versions(self.proj)["fresh"], "1.1.0")

    # -- cost

    def test_only_recently_modified_packages_are_fetched_in_full(self):
        """The abbreviated document's "modified" decides: fresh (changed an
        hour ago) is asked for again in full for its dates; fresh-user
        (changed years ago) is not."""
        self.make_project(dict(PJ, dependencies={"fresh-user": "1.0.0"}))
        self.registry.reset_log()
        self.nub("install")
        full = [r["path"] for r in self.registry.requests
                if "application/json" in r["headers"].get("accept", "")
                and "vnd.npm" not in r["headers"].get("accept", "")]
        self.assertEqual(full, ["/fresh"])
        # and the dates are cached beside it: a second resolve asks for nothing
        shutil.rmtree(os.path.join(self.proj, "node_modules"))
        os.unlink(os.path.join(self.proj, "nub.lock"))
        self.registry.reset_log()
        self.nub("install")
        self.assertEqual([r["path"] for r in self.registry.requests if "/-/" not in r["path"]], [])

    def test_bad_values_name_the_setting(self):
        self.make_project(dict(PJ, dependencies={"fresh": "^1.0.0"}))
        for name, text, needle in (
                (".npmrc", "min-release-age=soon\n", "min-release-age in .npmrc is 'soon'"),
                ("bunfig.toml", '[install]\nminimumReleaseAge = "3 fortnights"\n',
                 "minimumReleaseAge in"),
                ("pnpm-workspace.yaml", "minimumReleaseAge: 1.5\n",
                 "minimumReleaseAge in pnpm-workspace.yaml is '1.5'")):
            with self.subTest(name=name):
                path = os.path.join(self.proj, name)
                write(path, text)
                proc = self.nub_fails("install")
                self.assertEqual(proc.returncode, 78, proc.stderr)
                self.assertIn(needle, proc.stderr)
                os.unlink(path)


if __name__ == "__main__":
    nubtest.main()
