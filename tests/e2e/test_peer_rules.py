#!/usr/bin/env python3
"""pnpm's peer settings (report.h): peerDependencyRules (ignoreMissing,
allowAny, allowedVersions, with "parent>peer" and "parent@range>peer" keys)
silence what they allow; strictPeerDependencies fails an install that
still has a peer issue (exit 23); pnpm 12 reads neither from .npmrc. Differential: pnpm, given the same pnpm-workspace.yaml, warns
and fails where nub does.

`peer-host@1.0.0` wants b@^1.0.0; the project has b@2.0.0 (a version the
range does not allow) or, with autoInstallPeers off, no b (missing).
"""
import os
import re

import nubtest
from nubtest import NubTestCase, write


class PeerRulesTest(NubTestCase):

    def case(self, yaml, missing=False, npmrc=""):
        """nub's and pnpm's installs of the project with this
        pnpm-workspace.yaml: (nub's proc, pnpm's proc)."""
        self.n = getattr(self, "n", 0) + 1
        out = []
        for who in ("nub", "pnpm"):
            d = os.path.join(self.tmp, "%s-%d" % (who, self.n))
            deps = {"peer-host": "1.0.0"} if missing else {"peer-host": "1.0.0", "b": "2.0.0"}
            os.makedirs(d)
            self.write_json(os.path.join(d, "package.json"),
                            {"name": "proj", "version": "1.0.0", "dependencies": deps})
            write(os.path.join(d, ".npmrc"), "registry=%s\n%s" % (self.registry.url, npmrc))
            write(os.path.join(d, "pnpm-workspace.yaml"),
                  yaml + ("autoInstallPeers: false\n" if missing else ""))
            out.append(self.nub("install", cwd=d, check=False) if who == "nub"
                       else self.pnpm(d, "install", check=False))
        return out

    @staticmethod
    def peer_said(proc, text=None):
        text = proc.stdout + proc.stderr if text is None else text
        # pnpm 12 says only that there are issues, and where to list them
        # (or, strict, lists them as it fails)
        return ("Issues with peer dependencies found" in text
                or "peer b" in text and "peer-host@1.0.0" in text)

    def test_rules_and_strict(self):
        cases = [
            # (pnpm-workspace.yaml, missing, warned, exits 0)
            ("packages: []\n", False, True, True),
            ("peerDependencyRules:\n  allowAny:\n    - b\n", False, False, True),
            ("peerDependencyRules:\n  allowAny:\n    - 'c*'\n", False, True, True),
            ("peerDependencyRules:\n  allowedVersions:\n    b: '2'\n", False, False, True),
            ("peerDependencyRules:\n  allowedVersions:\n    b: '3'\n", False, True, True),
            ("peerDependencyRules:\n  allowedVersions:\n    peer-host>b: '2'\n", False, False,
             True),
            ("peerDependencyRules:\n  allowedVersions:\n    peer-host@1>b: '2'\n", False, False,
             True),
            ("peerDependencyRules:\n  allowedVersions:\n    peer-host@2>b: '2'\n", False, True,
             True),
            ("peerDependencyRules:\n  allowedVersions:\n    other>b: '2'\n", False, True, True),
            ("strictPeerDependencies: true\n", False, True, False),
            ("strictPeerDependencies: true\npeerDependencyRules:\n  allowAny: [b]\n", False,
             False, True),
            ("packages: []\n", True, True, True),
            ("peerDependencyRules:\n  ignoreMissing:\n    - b\n", True, False, True),
            ("strictPeerDependencies: true\n", True, True, False),
            ("strictPeerDependencies: true\npeerDependencyRules:\n  ignoreMissing: ['*']\n",
             True, False, True),
        ]
        for yaml, missing, warned, ok in cases:
            with self.subTest(yaml=yaml, missing=missing):
                mine, theirs = self.case(yaml, missing)
                self.assertEqual(theirs.returncode == 0, ok, theirs.stdout + theirs.stderr)
                self.assertEqual(self.peer_said(theirs), warned, theirs.stdout + theirs.stderr)
                self.assertEqual(mine.returncode, 0 if ok else 23, mine.stderr)
                self.assertEqual("peer-host@1.0.0 wants b@^1.0.0" in mine.stderr, warned,
                                 mine.stderr)
                if not ok:
                    self.assertIn("strictPeerDependencies in pnpm-workspace.yaml", mine.stderr)
                    self.assertEqual(len(mine.stderr.strip().splitlines()[-1:]), 1)

    def test_npmrc_strict(self):
        # pnpm 12 reads its settings from pnpm-workspace.yaml only: .npmrc's
        # strict-peer-dependencies leaves the install green, as nub does
        mine, theirs = self.case("packages: []\n", npmrc="strict-peer-dependencies=true\n")
        self.assertEqual(theirs.returncode, 0, theirs.stdout + theirs.stderr)
        self.assertEqual(mine.returncode, 0, mine.stderr)
        self.assertIn("peer-host@1.0.0 wants b@^1.0.0", mine.stderr)


if __name__ == "__main__":
    nubtest.main()
