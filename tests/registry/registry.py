#!/usr/bin/env python3
"""An npm-compatible package registry for nub's tests (Python stdlib only).

Packages come from fixture directories ``<fixtures>/<name>@<version>/`` (a
scoped name is spelled ``@scope+name@1.0.0``).  Every file in such a directory
is package content, except two optional control files that are never packed:

``_registry.json``
    A JSON object deep-merged into that version's packument entry.  Special keys:
    ``_packument`` (merged into the top-level packument, e.g. ``dist-tags``),
    ``_omit_integrity`` (drop ``dist.integrity``, leaving only ``shasum``),
    ``_omit_shasum`` (drop ``dist.shasum``),
    ``_npm_user`` (the version's ``_npmUser``, e.g. with a ``trustedPublisher``),
    ``_published_ago`` (seconds: the version was published that long before
    the registry rendered its documents, for release-age gates),
    ``_dependencies_raw`` (replaces ``dependencies`` verbatim, for legacy
    oddities such as ``[]``) and ``_tarball_raw_base64`` (serve these bytes
    instead of the packed tarball).
``_tar.json``
    Raw extra tar entries for hostile-tarball tests, appended verbatim after the
    regular entries: a list of ``{"name", "type", "data" | "data_base64",
    "linkname", "mode", "devmajor", "devminor"}``.  The object form
    ``{"_replace": true, "entries": [...]}`` packs only these entries.

Tarballs are built in memory the way ``npm pack`` builds them (see
``build_tarball``), so integrity values depend only on the fixture contents
and the local zlib.

Use from tests::

    reg = Registry(fixtures_dir).start()     # reg.url == "http://127.0.0.1:<port>/"
    reg.add_fault(r"/a/-/", "truncate")      # next tarball request of a is cut short
    ...
    reg.stop()

or from a shell: ``python3 registry.py --fixtures DIR [--port N]`` prints
``PORT=<n>`` and serves until killed.
"""

from __future__ import annotations

import argparse
import base64
import copy
import datetime
import hashlib
import io
import json
import os
import re
import signal
import socket
import struct
import sys
import tarfile
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "fixtures", "packages")

# npm pack stamps every entry with this mtime (1985-10-26T08:15:00Z) so that
# tarballs are reproducible.
NPM_MTIME = 499162500
CONTROL_FILES = ("_registry.json", "_tar.json")

ABBREV_TYPE = "application/vnd.npm.install-v1+json"
# Version fields kept in the abbreviated ("corgi") packument, as the public
# registry does.
ABBREV_FIELDS = (
    "name", "version", "dependencies", "optionalDependencies",
    "devDependencies", "bundleDependencies", "peerDependencies",
    "peerDependenciesMeta", "bin", "directories", "dist", "engines", "os",
    "cpu", "libc", "deprecated", "hasInstallScript",
)
INSTALL_SCRIPTS = ("preinstall", "install", "postinstall")

# Publication times are synthetic but deterministic: "created" is this
# instant and the n-th version (in semver order) was published n days later.
TIME_BASE = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)

FAULT_KINDS = ("delay", "status", "retry_after", "truncate", "corrupt",
               "reset", "wrong_integrity", "html", "trickle", "throttle")
# Faults that replace the whole response; at most one applies per request.
TERMINAL_FAULTS = ("status", "retry_after", "reset", "html")

HTML_BODY = (b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head>"
             b"<body><h1>Please sign in to continue</h1></body></html>\n")


# --------------------------------------------------------------------------
# small helpers

def _semver_key(version: str):
    """Sort key implementing semver precedence (build metadata ignored)."""
    m = re.match(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$", version)
    if not m:
        return (-1, -1, -1, (0, ()))          # invalid versions sort first
    major, minor, patch = (int(x) for x in m.group(1, 2, 3))
    pre = m.group(4)
    if pre is None:
        return (major, minor, patch, (1, ()))  # a release beats its prereleases
    # numeric identifiers sort numerically and before alphanumeric ones
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (major, minor, patch, (0, ids))


def _is_prerelease(version: str) -> bool:
    return _semver_key(version)[3][0] == 0


def _iso(ts: datetime.datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _deep_merge(dst: dict, src: dict) -> dict:
    for key, value in src.items():
        if isinstance(value, dict) and isinstance(dst.get(key), dict):
            _deep_merge(dst[key], value)
        else:
            dst[key] = copy.deepcopy(value)
    return dst


def _read_json(path: str, default=None):
    if not os.path.exists(path):
        return default
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def _json_bytes(doc) -> bytes:
    return json.dumps(doc, indent=None, separators=(",", ":")).encode("utf-8")


def _sri_sha512(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha1(body).hexdigest() + '"'


def _etag_matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    for tag in if_none_match.split(","):
        tag = tag.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        if tag == "*" or tag == etag:
            return True
    return False


def parse_fixture_dirname(dirname: str):
    """'@scope+name@1.0.0' -> ('@scope/name', '1.0.0'); None if not a fixture."""
    name, sep, version = dirname.rpartition("@")
    if not sep or not name or not version:
        return None
    if name.startswith("@"):
        name = name.replace("+", "/", 1)
    return name, version


def unscoped(name: str) -> str:
    return name.rsplit("/", 1)[-1]


# --------------------------------------------------------------------------
# tarballs

def _file_entry(name: str, data: bytes, mode: int) -> tuple:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    info.mtime = NPM_MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info, data


def _dir_entries(src: str) -> list:
    """The fixture directory's files as (TarInfo, data), npm-pack style:
    'package/<relpath>' in sorted order, no directory entries, mode 0644 or
    0755 for executables."""
    rels = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for fname in files:
            path = os.path.join(root, fname)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            if rel in CONTROL_FILES:
                continue
            if os.path.islink(path):
                raise ValueError("%s: symlinks are not packed; describe them in _tar.json" % path)
            rels.append(rel)
    entries = []
    for rel in sorted(rels):
        path = os.path.join(src, rel)
        with open(path, "rb") as f:
            data = f.read()
        mode = 0o755 if os.stat(path).st_mode & 0o111 else 0o644
        entries.append(_file_entry("package/" + rel, data, mode))
    return entries


_RAW_TYPES = {
    "file": (tarfile.REGTYPE, 0o644),
    "dir": (tarfile.DIRTYPE, 0o755),
    "symlink": (tarfile.SYMTYPE, 0o777),
    "hardlink": (tarfile.LNKTYPE, 0o644),
    "chardev": (tarfile.CHRTYPE, 0o666),
    "blockdev": (tarfile.BLKTYPE, 0o660),
    "fifo": (tarfile.FIFOTYPE, 0o644),
}


def _raw_entry(spec: dict) -> tuple:
    """One _tar.json entry -> (TarInfo, data). The name is used verbatim."""
    kind = spec.get("type", "file")
    if kind not in _RAW_TYPES:
        raise ValueError("_tar.json: unknown entry type %r" % kind)
    tartype, default_mode = _RAW_TYPES[kind]
    if "data_base64" in spec:
        data = base64.b64decode(spec["data_base64"])
    else:
        data = spec.get("data", "").encode("utf-8")
    if tartype != tarfile.REGTYPE:
        data = b""
    info, data = _file_entry(spec["name"], data, spec.get("mode", default_mode))
    info.type = tartype
    info.linkname = spec.get("linkname", "")
    info.devmajor = spec.get("devmajor", 1)
    info.devminor = spec.get("devminor", 3)
    return info, data


def _gzip(data: bytes) -> bytes:
    """gzip at level 9 with mtime 0 and zlib's own header bytes.  Written by
    hand because gzip.compress's header differs between Python versions; this
    way the output depends on the zlib version only."""
    co = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    deflated = co.compress(data) + co.flush()
    # magic, CM=deflate, FLG=0, MTIME=0, XFL=2 (best compression), OS=3 (Unix)
    header = b"\x1f\x8b\x08\x00" + b"\x00\x00\x00\x00" + b"\x02\x03"
    trailer = struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
    return header + deflated + trailer


def build_tarball(entries: list) -> bytes:
    """gzip(tar(entries)), reproducibly."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return _gzip(buf.getvalue())


# --------------------------------------------------------------------------
# fixtures

class PackageVersion:
    """One published version: its manifest, control data and tarball."""

    def __init__(self, name: str, version: str, src: str):
        self.name, self.version, self.src = name, version, src
        self.manifest = _read_json(os.path.join(src, "package.json"))
        if not isinstance(self.manifest, dict):
            raise ValueError("%s: package.json missing or not an object" % src)
        if (self.manifest.get("name"), self.manifest.get("version")) != (name, version):
            raise ValueError("%s: package.json says %s@%s" % (
                src, self.manifest.get("name"), self.manifest.get("version")))
        self.overrides = _read_json(os.path.join(src, "_registry.json"), {})
        entries = self._entries()
        files = [data for info, data in entries if info.isreg()]
        self.file_count = len(files)
        self.unpacked_size = sum(len(d) for d in files)
        raw = self.overrides.get("_tarball_raw_base64")
        self.tgz = base64.b64decode(raw) if raw is not None else build_tarball(entries)
        self.integrity = _sri_sha512(self.tgz)
        self.shasum = hashlib.sha1(self.tgz).hexdigest()

    def _entries(self) -> list:
        extra = _read_json(os.path.join(self.src, "_tar.json"), [])
        if isinstance(extra, dict):
            raw = [_raw_entry(e) for e in extra.get("entries", [])]
            return raw if extra.get("_replace") else _dir_entries(self.src) + raw
        return _dir_entries(self.src) + [_raw_entry(e) for e in extra]

    def tarball_path(self) -> str:
        return "%s/-/%s-%s.tgz" % (self.name, unscoped(self.name), self.version)

    def document(self, base_url: str) -> dict:
        """This version's entry in the full packument."""
        doc = copy.deepcopy(self.manifest)
        doc["_id"] = "%s@%s" % (self.name, self.version)
        doc["dist"] = {
            "tarball": base_url + self.tarball_path(),
            "shasum": self.shasum,
            "integrity": self.integrity,
            "fileCount": self.file_count,
            "unpackedSize": self.unpacked_size,
        }
        _deep_merge(doc, {k: v for k, v in self.overrides.items() if not k.startswith("_")})
        if "_dependencies_raw" in self.overrides:
            doc["dependencies"] = copy.deepcopy(self.overrides["_dependencies_raw"])
        if self.overrides.get("_omit_integrity"):
            doc["dist"].pop("integrity", None)
        if self.overrides.get("_omit_shasum"):
            doc["dist"].pop("shasum", None)
        if "_npm_user" in self.overrides:
            # who published it, as the registry says (full documents only):
            # a trusted publisher there is the strongest evidence trust
            # policies weigh
            doc["_npmUser"] = copy.deepcopy(self.overrides["_npm_user"])
        return doc


def load_fixtures(fixtures_dir: str) -> dict:
    """{name: {version: PackageVersion}} for every fixture directory."""
    packages = {}
    for entry in sorted(os.listdir(fixtures_dir)):
        src = os.path.join(fixtures_dir, entry)
        parsed = parse_fixture_dirname(entry)
        if parsed is None or not os.path.isdir(src):
            continue
        name, version = parsed
        packages.setdefault(name, {})[version] = PackageVersion(name, version, src)
    return packages


def _has_install_script(doc: dict) -> bool:
    if "hasInstallScript" in doc:
        return bool(doc["hasInstallScript"])
    scripts = doc.get("scripts")
    return isinstance(scripts, dict) and any(s in scripts for s in INSTALL_SCRIPTS)


def full_packument(name: str, versions: dict, base_url: str) -> dict:
    ordered = sorted(versions.values(), key=lambda v: _semver_key(v.version))
    releases = [v.version for v in ordered if not _is_prerelease(v.version)]
    times = {"created": _iso(TIME_BASE)}
    now = datetime.datetime.now(datetime.timezone.utc)
    stamps = []
    for i, v in enumerate(ordered):
        ago = v.overrides.get("_published_ago")
        ts = (now - datetime.timedelta(seconds=ago) if ago is not None
              else TIME_BASE + datetime.timedelta(days=i + 1))
        stamps.append(ts)
        times[v.version] = _iso(ts)
    times["modified"] = _iso(max(stamps))
    doc = {
        "_id": name,
        "name": name,
        "dist-tags": {"latest": (releases or [ordered[-1].version])[-1]},
        "versions": {v.version: v.document(base_url) for v in ordered},
        "time": times,
        "modified": times["modified"],
    }
    for v in ordered:
        _deep_merge(doc, v.overrides.get("_packument", {}))
    return doc


def abbreviated_packument(full: dict) -> dict:
    versions = {}
    for ver, vdoc in full["versions"].items():
        small = {k: vdoc[k] for k in ABBREV_FIELDS if k in vdoc}
        if _has_install_script(vdoc):
            small["hasInstallScript"] = True
        else:
            small.pop("hasInstallScript", None)
        versions[ver] = small
    return {"name": full["name"], "modified": full["modified"],
            "dist-tags": full["dist-tags"], "versions": versions}


def _wrong_integrity(body: bytes) -> bytes:
    """The packument with every version's advertised hash replaced by a
    well-formed but wrong one (shasum instead when there is no integrity)."""
    doc = json.loads(body.decode("utf-8"))
    # a packument, or one version's document
    for vdoc in doc.get("versions", {}).values() if "versions" in doc else [doc]:
        dist = vdoc.get("dist", {})
        if "integrity" in dist:
            dist["integrity"] = _sri_sha512(b"wrong:" + dist["integrity"].encode())
        elif "shasum" in dist:
            dist["shasum"] = hashlib.sha1(b"wrong:" + dist["shasum"].encode()).hexdigest()
    return _json_bytes(doc)


def _corrupt(body: bytes) -> bytes:
    """Flip up to 8 bytes in the middle; the length stays the same."""
    out = bytearray(body)
    mid = len(out) // 2
    for i in range(mid, min(mid + 8, len(out))):
        out[i] ^= 0xFF
    return bytes(out)


# --------------------------------------------------------------------------
# faults and responses

class Fault:
    """A fault armed by Registry.add_fault; `remaining` None means forever."""

    def __init__(self, path_regex: str, kind: str, count, params: dict):
        if kind not in FAULT_KINDS:
            raise ValueError("unknown fault kind %r (one of %s)" % (kind, ", ".join(FAULT_KINDS)))
        self.rx = re.compile(path_regex)
        self.kind, self.remaining, self.params = kind, count, params

    def live(self) -> bool:
        return self.remaining is None or self.remaining > 0

    def consume(self):
        if self.remaining is not None:
            self.remaining -= 1


class Response:
    def __init__(self, status: int, body: bytes = b"", ctype: str = "application/json",
                 headers=None, packument: bool = False):
        self.status, self.body, self.ctype = status, body, ctype
        self.headers = dict(headers or {})
        self.packument = packument      # wrong_integrity applies only to these


def _json_response(status: int, doc, headers=None) -> Response:
    return Response(status, _json_bytes(doc), "application/json", headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, addr, registry):
        self.registry = registry
        self.conns = set()              # open client sockets, closed on stop()
        self.conns_lock = threading.Lock()
        super().__init__(addr, _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"       # keep-alive; every response has a length
    timeout = 60                        # idle keep-alive connections end eventually
    disable_nagle_algorithm = True

    def setup(self):
        super().setup()
        with self.server.conns_lock:
            self.server.conns.add(self.connection)

    def finish(self):
        with self.server.conns_lock:
            self.server.conns.discard(self.connection)
        super().finish()

    def log_message(self, fmt, *args):
        if self.server.registry.verbose:
            sys.stderr.write("registry: %s\n" % (fmt % args))

    def do_GET(self):
        self.server.registry._handle(self, head=False)

    def do_HEAD(self):
        self.server.registry._handle(self, head=True)

    def _not_allowed(self):
        self.server.registry._handle_unsupported(self)

    do_PUT = do_POST = do_DELETE = do_PATCH = _not_allowed

    # -- a response leaves whole, cut short (truncate) or as a TCP reset

    def send(self, resp: Response, head: bool = False, truncate: bool = False,
             trickle: float = 0.0, rate: int = 0):
        self.send_response(resp.status)
        self.send_header("Content-Type", resp.ctype)
        if resp.status != 304:
            self.send_header("Content-Length", str(len(resp.body)))
        for key, value in resp.headers.items():
            self.send_header(key, value)
        self.end_headers()
        if head or resp.status == 304:
            return
        if truncate:
            # The full length was promised; deliver half and hang up.
            self.wfile.write(resp.body[:len(resp.body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if trickle:
            # Headers at once, then the body a byte every `trickle` seconds:
            # never a stall, never done.
            try:
                for i in range(len(resp.body)):
                    self.wfile.write(resp.body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(trickle)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if rate:
            # the body at `rate` bytes a second, in tenths of a second
            step = max(1, rate // 10)
            try:
                for i in range(0, len(resp.body), step):
                    self.wfile.write(resp.body[i:i + step])
                    self.wfile.flush()
                    time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        self.wfile.write(resp.body)

    def reset(self):
        """Abort with a TCP RST: SO_LINGER {on, 0} then close the descriptor."""
        self.close_connection = True
        sock = self.connection
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # rfile (a makefile()) holds a reference: the fd closes only with it.
        # wfile writes to the socket directly and stays open for the
        # framework's final flush(), a no-op.
        self.rfile.close()
        sock.close()


# --------------------------------------------------------------------------
# the registry

class Registry:
    """An npm registry serving fixture packages on 127.0.0.1.

    Registry(fixtures_dir, token=None, port=0, host="127.0.0.1", verbose=False)
    """

    def __init__(self, fixtures_dir: str = DEFAULT_FIXTURES, token: str | None = None,
                 port: int = 0, host: str = "127.0.0.1", verbose: bool = False,
                 tls: tuple | None = None):
        self.fixtures_dir = os.path.abspath(fixtures_dir)
        self.token, self.host, self.verbose = token, host, verbose
        self.tls = tls  # (certfile, keyfile): serve https
        self._want_port = port
        self._packages = load_fixtures(self.fixtures_dir)
        self._lock = threading.Lock()
        self._faults: list = []
        self._log: list = []
        self._docs: dict = {}           # name -> (full bytes, abbreviated bytes)
        self._server = None
        self._thread = None
        self.url = None
        self.port = None

    # -- lifecycle

    def start(self) -> "Registry":
        self._server = _Server((self.host, self._want_port), self)
        self.port = self._server.server_address[1]
        scheme = "http"
        if self.tls:
            import ssl
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*self.tls)
            self._server.socket = ctx.wrap_socket(self._server.socket, server_side=True)
            scheme = "https"
        self.url = "%s://%s:%d/" % (scheme, self.host, self.port)
        self._docs = {name: self._render(name) for name in self._packages}
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="nub-test-registry", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        with self._server.conns_lock:
            for conn in list(self._server.conns):
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self._thread.join()
        self._server = self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _render(self, name: str) -> tuple:
        full = full_packument(name, self._packages[name], self.url)
        return _json_bytes(full), _json_bytes(abbreviated_packument(full))

    # -- helpers for tests

    def _version(self, name: str, version: str) -> PackageVersion:
        try:
            return self._packages[name][version]
        except KeyError:
            raise KeyError("no fixture %s@%s in %s" % (name, version, self.fixtures_dir)) from None

    def integrity(self, name: str, version: str) -> str:
        """sha512 SRI of the served tarball (even when _omit_integrity hides it)."""
        return self._version(name, version).integrity

    def shasum(self, name: str, version: str) -> str:
        """Hex sha1 of the served tarball."""
        return self._version(name, version).shasum

    def sri_sha1(self, name: str, version: str) -> str:
        """'sha1-<base64>', what npm records for a version without integrity."""
        return "sha1-" + base64.b64encode(bytes.fromhex(self.shasum(name, version))).decode("ascii")

    def tarball(self, name: str, version: str) -> bytes:
        return self._version(name, version).tgz

    def tarball_url(self, name: str, version: str) -> str:
        self._require_started()
        return self.url + self._version(name, version).tarball_path()

    def packument(self, name: str, abbreviated: bool = False) -> dict:
        """The document served for `name` (without faults)."""
        self._require_started()
        if name not in self._docs:
            raise KeyError("no fixture package %s" % name)
        return json.loads(self._docs[name][1 if abbreviated else 0].decode("utf-8"))

    def packages(self) -> dict:
        """{name: [versions in semver order]}."""
        return {n: sorted(vs, key=_semver_key) for n, vs in self._packages.items()}

    def _require_started(self):
        if self.url is None:
            raise RuntimeError("Registry.start() first")

    # -- fault injection

    def add_fault(self, path_regex: str, kind: str, count=1, **params) -> Fault:
        """Arm a fault for the next `count` requests whose path matches
        `path_regex` (re.search on the raw path or its percent-decoded form;
        count=None: every request).  Kinds and params:

          delay(seconds=1)        sleep, then answer normally
          status(code=500, headers={}, body=None)
          retry_after(seconds=1)  429 with Retry-After
          truncate                full Content-Length, half the body, close
          corrupt                 flip bytes mid-body, same length
          reset                   TCP RST before any response
          wrong_integrity         packuments (and version documents) advertise wrong
                                  dist.integrity
          html                    200 text/html captive-portal page
          throttle(rate=1048576)  the body at `rate` bytes a second

        Several delays may stack; at most one of status/retry_after/reset/html
        applies (the oldest armed); truncate/corrupt/wrong_integrity modify the
        normal response.  Only faults that take effect use up their count.
        """
        fault = Fault(path_regex, kind, count, params)
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self):
        with self._lock:
            self._faults = []

    def _take_faults(self, paths: tuple, is_packument: bool) -> list:
        with self._lock:
            live = [f for f in self._faults
                    if f.live() and any(f.rx.search(p) for p in paths)]
            terminal = [f for f in live if f.kind in TERMINAL_FAULTS][:1]
            delays = [f for f in live if f.kind == "delay"]
            if terminal:
                chosen = delays + terminal
            else:
                chosen = delays + [f for f in live if f.kind in ("truncate", "corrupt", "trickle", "throttle")
                                   or (f.kind == "wrong_integrity" and is_packument)]
            for f in chosen:
                f.consume()
            return chosen

    # -- request log

    @property
    def requests(self) -> list:
        """Snapshot of the log: dicts with method, path, headers (names
        lower-cased), status (None for a reset connection)."""
        with self._lock:
            return list(self._log)

    def count(self, path_regex: str, method: str | None = None) -> int:
        rx = re.compile(path_regex)
        return sum(1 for r in self.requests
                   if rx.search(r["path"]) and (method is None or r["method"] == method))

    def reset_log(self):
        with self._lock:
            self._log = []

    def _record(self, handler, status):
        entry = {"method": handler.command, "path": handler.path,
                 "headers": {k.lower(): v for k, v in handler.headers.items()},
                 "status": status}
        with self._lock:
            self._log.append(entry)

    # -- request handling

    def _route(self, raw_path: str):
        """-> ('packument', name) | ('version', name, version or dist-tag's) |
        ('tarball', PackageVersion)
        | ('ping',) | None"""
        path = urllib.parse.unquote(urllib.parse.urlsplit(raw_path).path)
        if path in ("/-/ping", "/-/ping/"):
            return ("ping",)
        parts = path.lstrip("/").split("/")
        split = 2 if parts[0].startswith("@") else 1
        name, rest = "/".join(parts[:split]), parts[split:]
        if name not in self._packages:
            return None
        if rest in ([], [""]):
            return ("packument", name)
        if len(rest) == 1 and rest[0] in self._packages[name]:
            return ("version", name, rest[0])
        if len(rest) == 1 and rest[0]:
            # GET /<name>/<dist-tag> (pnpm add asks for /<name>/latest)
            tags = json.loads(self._docs[name][0].decode("utf-8")).get("dist-tags", {})
            if tags.get(rest[0]) in self._packages[name]:
                return ("version", name, tags[rest[0]])
        if len(rest) == 2 and rest[0] == "-":
            for pv in self._packages[name].values():
                if rest[1] == "%s-%s.tgz" % (unscoped(name), pv.version):
                    return ("tarball", pv)
        return None

    def _resolve(self, handler, route) -> Response:
        if route is None:
            return _json_response(404, {"error": "Not found"})
        if route[0] == "ping":
            return _json_response(200, {})
        if route[0] == "tarball":
            body, ctype, is_doc = route[1].tgz, "application/octet-stream", False
        elif route[0] == "version":
            # one version's document (GET /<name>/<version>), as npm's registry serves it
            full = json.loads(self._docs[route[1]][0].decode("utf-8"))
            body, ctype, is_doc = _json_bytes(full["versions"][route[2]]), "application/json", True
        else:
            full, abbrev = self._docs[route[1]]
            if ABBREV_TYPE in handler.headers.get("Accept", ""):
                body, ctype = abbrev, ABBREV_TYPE
            else:
                body, ctype = full, "application/json"
            is_doc = True
        etag = _etag(body)
        headers = {"ETag": etag, "Vary": "Accept"} if is_doc else {"ETag": etag}
        if _etag_matches(handler.headers.get("If-None-Match"), etag):
            return Response(304, b"", ctype, headers)
        return Response(200, body, ctype, headers, packument=is_doc)

    def _authorized(self, handler) -> bool:
        return (self.token is None
                or handler.headers.get("Authorization") == "Bearer " + self.token)

    def _fault_response(self, fault: Fault) -> Response:
        p = fault.params
        if fault.kind == "html":
            return Response(200, HTML_BODY, "text/html; charset=utf-8")
        if fault.kind == "retry_after":
            return _json_response(429, {"error": "Too many requests"},
                                  {"Retry-After": str(p.get("seconds", 1))})
        code = p.get("code", 500)
        body = p.get("body")
        resp = _json_response(code, {"error": "injected status %d" % code}, p.get("headers"))
        if body is not None:
            resp.body = body.encode("utf-8") if isinstance(body, str) else body
        return resp

    def _handle(self, handler, head: bool):
        raw = handler.path
        route = self._route(raw)
        paths = (raw, urllib.parse.unquote(raw))
        faults = self._take_faults(paths, is_packument=bool(route) and
                                   route[0] in ("packument", "version"))
        kinds = {f.kind: f for f in faults}
        for f in faults:
            if f.kind == "delay":
                time.sleep(f.params.get("seconds", 1))
        if "reset" in kinds:
            self._record(handler, None)
            handler.reset()
            return
        terminal = [f for f in faults if f.kind in TERMINAL_FAULTS]
        if terminal:
            resp = self._fault_response(terminal[0])
        elif not self._authorized(handler):
            resp = _json_response(401, {"error": "Unauthorized"},
                                  {"WWW-Authenticate": 'Bearer realm="nub-test"'})
        else:
            resp = self._resolve(handler, route)
            if "wrong_integrity" in kinds and resp.status == 200 and resp.packument:
                resp.body = _wrong_integrity(resp.body)
                resp.headers["ETag"] = _etag(resp.body)
        if "corrupt" in kinds:
            resp.body = _corrupt(resp.body)
        self._record(handler, resp.status)
        handler.send(resp, head=head, truncate="truncate" in kinds,
                     trickle=kinds["trickle"].params.get("seconds", 1.0) if "trickle" in kinds else 0.0,
                     rate=kinds["throttle"].params.get("rate", 1 << 20) if "throttle" in kinds else 0)

    def _handle_unsupported(self, handler):
        # Drain a request body so the keep-alive connection stays in sync.
        length = int(handler.headers.get("Content-Length") or 0)
        if length:
            handler.rfile.read(length)
        resp = _json_response(405, {"error": "Method not allowed"})
        self._record(handler, resp.status)
        handler.send(resp)


# --------------------------------------------------------------------------
# command line

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Serve nub's fixture packages as an npm registry.")
    ap.add_argument("--fixtures", default=DEFAULT_FIXTURES,
                    help="fixture package directory (default: tests/fixtures/packages)")
    ap.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--token", help="require Authorization: Bearer TOKEN")
    ap.add_argument("--verbose", action="store_true", help="log requests to stderr")
    args = ap.parse_args(argv)

    reg = Registry(args.fixtures, token=args.token, port=args.port,
                   host=args.host, verbose=args.verbose).start()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print("PORT=%d" % reg.port, flush=True)
    while not stop.wait(1.0):
        pass
    reg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
