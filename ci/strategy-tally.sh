#!/usr/bin/env bash
# Per-platform strategy tally: install the bench fixtures warm and offline in
# both layouts and print, per file system, the phase split and which link
# primitive served every file (from NUB_DIAG_FILE). Fails when a layout falls
# back to plain copying although the probe found a faster primitive working
# between the store and the project (same file system).
#
# usage: ci/strategy-tally.sh [path/to/nub] [fixture...]
# On Linux it runs on the file system of the build directory (ext4 on CI) and,
# as root with mkfs.xfs available, again on a loop-mounted XFS image with
# reflink=1 (where --package-import-method clone must give link_reflink).
# TALLY_JSON=<file>: also write every row there as JSON (one object per line:
# platform, file system, fixture, layout, files per primitive, fallbacks,
# phase times), for ci/tally-table.py to set platforms side by side.
# TALLY_KEEP=<dir>: keep each run's NUB_DIAG_FILE there as
# <platform>-<fs>-<fixture>-<layout>.jsonl (for ci/tally-diff.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
NUB=${1:-$root/build/core/nub}
NUB=$(cd "$(dirname "$NUB")" && pwd)/$(basename "$NUB")
shift || true
fixtures=("$@")
[ ${#fixtures[@]} -gt 0 ] || fixtures=(webpack3 coffee2)
reg=$(npm config get registry 2>/dev/null || true); reg=${reg%/}
[ -n "$reg" ] || { echo "tally: no registry (npm config get registry)" >&2; exit 1; }
export npm_config_registry=$reg/
unset CI || true
fail=0

tally() { # jsonl log label fixture layout -> "link_x N, link_y M"
  python3 - "$@" <<'PY'
import json, os, platform, re, sys, collections
c = collections.Counter()
fb = collections.Counter()
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["cat"] == "linker":
        c[e["name"]] += 1
        m = e.get("meta") or {}
        if "fallback_from" in m:
            fb[f'{m["fallback_from"]}:{m.get("errno")}'] += 1
print(", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "no per-file events",
      ("| fallbacks " + ", ".join(f"{k} x{v}" for k, v in fb.items())) if fb else "")
out = os.environ.get("TALLY_JSON")
if out:
    phases = {}
    for m in re.finditer(r"phase:(\w+) ([0-9.]+)(ms|µs|us|s)\b", open(sys.argv[2], errors="replace").read()):
        ms = float(m.group(2)) * {"ms": 1, "µs": 1e-3, "us": 1e-3, "s": 1e3}[m.group(3)]
        phases[m.group(1)] = round(ms, 3)
    row = {"platform": f"{platform.system()} {platform.machine()}", "fs": sys.argv[3],
           "fixture": sys.argv[4], "layout": sys.argv[5], "files": dict(sorted(c.items())),
           "fallbacks": dict(fb), "phases_ms": phases}
    with open(out, "a") as f:
        f.write(json.dumps(row) + "\n")
PY
}

run_on() { # dir label [extra nub args...]
  local base=$1 label=$2; shift 2
  local store=$base/store
  for fx in "${fixtures[@]}"; do
    for layout in hoisted isolated isolated-gvs; do
      local d=$base/$fx-$layout src=$root/ci/bench/fixtures/$fx args=()
      rm -rf "$d"; mkdir -p "$d"
      cp "$src/package.json" "$d/"; [ -f "$src/.npmrc" ] && cp "$src/.npmrc" "$d/"
      case $layout in
        hoisted) sed "s#@@REGISTRY@@#$reg#g" "$src/package-lock.json" > "$d/package-lock.json" ;;
        isolated) cp "$src/pnpm-lock.yaml" "$d/"; args=(--no-global-virtual-store) ;;
        isolated-gvs) cp "$src/pnpm-lock.yaml" "$d/" ;;
      esac
      (cd "$d" && NUB_STORE_DIR=$store "$NUB" install --frozen-lockfile -s "${args[@]}" "$@") # warm
      rm -rf "$d/node_modules"; test ! -e "$d/node_modules"
      (cd "$d" && NUB_STORE_DIR=$store NUB_DIAG_FILE=$base/$fx-$layout.jsonl NUB_LOG=debug \
         "$NUB" install --offline --frozen-lockfile -s "${args[@]}" "$@" 2>"$base/$fx-$layout.log")
      local t; t=$(tally "$base/$fx-$layout.jsonl" "$base/$fx-$layout.log" "$label" "$fx" "$layout")
      if [ -n "${TALLY_KEEP:-}" ]; then
        mkdir -p "$TALLY_KEEP"
        cp "$base/$fx-$layout.jsonl" "$TALLY_KEEP/$(uname -s)-$(echo "$label" | tr '/ ' '__')-$fx-$layout.jsonl"
      fi
      printf '%-8s %-9s %-13s %s\n' "$label" "$fx" "$layout" "$t"
      grep -o 'phase:[a-z_]* [^ ]*\( ([^)]*)\)\?' "$base/$fx-$layout.log" | sed 's/^/                                  /'
      if echo "$t" | grep -q 'link_copy' && ! echo "$*" | grep -q 'copy'; then
        echo "tally: FAIL: $label/$fx/$layout copied files although store and project share a file system" >&2
        fail=1
      fi
      if echo "$*" | grep -q 'clone' && echo "$t" | grep -qv 'link_reflink\|link_clonedir\|no per-file'; then
        echo "tally: FAIL: $label/$fx/$layout did not clone with --package-import-method clone" >&2
        fail=1
      fi
    done
  done
}

work=$(mktemp -d "${TMPDIR:-/tmp}/nub-tally.XXXXXX")
cleanup() {
  if mountpoint -q "$work/xfs" 2>/dev/null; then umount "$work/xfs" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
echo "tally: $(uname -sm), nub $("$NUB" --version)"
mkdir -p "$work/default"
run_on "$work/default" "$(stat -f -c %T "$work" 2>/dev/null || echo default)"

if [ "$(uname -s)" = Linux ] && [ "$(id -u)" = 0 ] && command -v mkfs.xfs >/dev/null; then
  truncate -s 2G "$work/xfs.img"
  mkfs.xfs -q -m reflink=1 "$work/xfs.img"
  mkdir -p "$work/xfs"
  mount -o loop "$work/xfs.img" "$work/xfs"
  run_on "$work/xfs" xfs
  run_on "$work/xfs" xfs-clone --package-import-method clone
else
  echo "tally: XFS pass skipped (needs Linux, root and mkfs.xfs)"
fi
exit "$fail"
