#!/usr/bin/env python3
"""pnpm's trustPolicy: no-downgrade (pnpm-workspace.yaml, with
trustPolicyExclude and trustPolicyIgnoreAfter): a version published with
weaker evidence (a trusted publisher, then a provenance attestation, then
neither) than an earlier-published version of the package is not picked;
the newest that passes is, and none passing is an error (exit 25).
Differential: pnpm 12, given the same project, picks the same version or
fails the same way.

trusty@1.0.0 was published by a trusted publisher, 1.1.0 with provenance
only, 1.2.0 (latest) with neither.
"""
import os

from nubtest import NubTestCase, read, write


class TrustPolicyTest(NubTestCase):

    CASES = [
        # (pnpm-workspace.yaml, trusty's spec, the version picked; None: refused)
        ("", "^1.0.0", "1.2.0"),
        ("trustPolicy: no-downgrade\n", "^1.0.0", "1.0.0"),
        ("trustPolicy: off\n", "^1.0.0", "1.2.0"),
        ("trustPolicy: no-downgrade\ntrustPolicyExclude: [trusty]\n", "^1.0.0", "1.2.0"),
        ("trustPolicy: no-downgrade\ntrustPolicyExclude: ['trusty@1.2.0']\n", "^1.0.0",
         "1.2.0"),
        ("trustPolicy: no-downgrade\ntrustPolicyExclude: ['trusty@1.1.0']\n", "^1.0.0",
         "1.1.0"),
        ("trustPolicy: no-downgrade\ntrustPolicyIgnoreAfter: 1\n", "^1.0.0", "1.2.0"),
        ("trustPolicy: no-downgrade\n", "1.1.0", None),
        ("trustPolicy: no-downgrade\n", "~1.1.0", None),
    ]

    def install(self, who, i, yaml, spec):
        d = os.path.join(self.tmp, "%s-%d" % (who, i))
        os.makedirs(d)
        self.write_json(os.path.join(d, "package.json"),
                        {"name": "proj", "version": "1.0.0", "dependencies": {"trusty": spec}})
        write(os.path.join(d, ".npmrc"), "registry=%s\n" % self.registry.url)
        write(os.path.join(d, "pnpm-workspace.yaml"), yaml + "minimumReleaseAge: 0\n")
        proc = (self.nub("install", cwd=d, check=False) if who == "nub"
                else self.pnpm(d, "install", check=False))
        lock = os.path.join(d, "nub.lock" if who == "nub" else "pnpm-lock.yaml")
        picked = None
        if proc.returncode == 0:
            for line in read(lock).splitlines():
                if line.startswith("  trusty@"):
                    picked = line.strip().split(":")[0].split("@")[1]
                    break
        return proc, picked

    def test_as_pnpm_picks(self):
        for i, (yaml, spec, want) in enumerate(self.CASES):
            with self.subTest(yaml=yaml, spec=spec):
                mine, got = self.install("nub", i, yaml, spec)
                if want is None:
                    self.assertEqual(mine.returncode, 25, mine.stderr)
                    self.assertIn("high-risk trust downgrade for trusty@1.1.0", mine.stderr)
                    self.assertIn("trustPolicyExclude", mine.stderr)
                else:
                    self.assertEqual(mine.returncode, 0, mine.stderr)
                    self.assertEqual(got, want)
                theirs, their_pick = self.install("pnpm", i, yaml, spec)
                self.assertEqual(theirs.returncode == 0, want is not None,
                                 theirs.stdout + theirs.stderr)
                self.assertEqual(their_pick, want)


if __name__ == "__main__":
    import unittest
    unittest.main()
