#!/usr/bin/env python3
"""Fetch one package from the configured npm registry and unpack it: the
test toolchain's bootstrap (a Node.js new enough for the peers, from the
registry's node-linux-<arch> package, and npm itself), on a machine whose
distribution has neither at the versions needed.

usage: ci/fetch-pkg.py NAME MAJOR|VERSION DEST

The newest release whose major is MAJOR (or exactly VERSION) is downloaded,
checked against the registry's sha512 integrity, and unpacked into DEST
(the tarball's top folder stripped). The registry comes from
npm_config_registry, else a registry= line of ~/.npmrc, else `npm config
get registry`; there is no built-in one. Prints the version it unpacked.
"""

import base64
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request


def registry():
    url = os.environ.get("npm_config_registry") or os.environ.get("NPM_CONFIG_REGISTRY")
    if not url:
        try:
            with open(os.path.expanduser("~/.npmrc")) as f:
                for line in f:
                    m = re.match(r"\s*registry\s*=\s*(\S+)", line)
                    if m:
                        url = m.group(1)
        except OSError:
            pass
    if not url and shutil.which("npm"):
        url = subprocess.run(["npm", "config", "get", "registry"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
    if not url:
        sys.exit("fetch-pkg: no registry configured: set registry= in ~/.npmrc "
                 "(or npm_config_registry)")
    return url if url.endswith("/") else url + "/"


def key(v):
    return tuple(int(x) for x in v.split("."))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    name, want, dest = sys.argv[1:]
    base = registry()
    req = urllib.request.Request(base + name.replace("/", "%2f"),
                                 headers={"Accept": "application/vnd.npm.install-v1+json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        doc = json.load(r)
    versions = [v for v in doc.get("versions", {}) if re.fullmatch(r"\d+\.\d+\.\d+", v)]
    if "." in want:
        pick = [v for v in versions if v == want]
    else:
        pick = [v for v in versions if v.split(".")[0] == want]
    if not pick:
        sys.exit("fetch-pkg: %s has no release %s at %s" % (name, want, base))
    version = max(pick, key=key)
    dist = doc["versions"][version]["dist"]
    with urllib.request.urlopen(dist["tarball"], timeout=600) as r:
        body = r.read()
    algo, _, digest = dist.get("integrity", "").partition("-")
    if algo != "sha512" or base64.b64decode(digest) != hashlib.sha512(body).digest():
        sys.exit("fetch-pkg: %s@%s: the download does not match the registry's integrity"
                 % (name, version))
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with tarfile.open(fileobj=io.BytesIO(body), mode="r:gz") as t:
        for m in t.getmembers():
            parts = m.name.split("/", 1)
            if len(parts) < 2 or not parts[1] or m.name.startswith("/") or ".." in m.name.split("/"):
                continue
            m.name = parts[1]
            if m.issym() or m.islnk():
                if m.linkname.startswith("/") or ".." in m.linkname.split("/")[:-1]:
                    continue
            t.extract(m, dest, set_attrs=True)
    print(version)


if __name__ == "__main__":
    main()
