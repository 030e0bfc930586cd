#!/usr/bin/env bash
# Two builds of nub against each other, back to back in one run: for a change
# that must not cost speed. Per fixture and build:
#   warm hoisted   package-lock.json, store warm, node_modules deleted (and
#                  asserted gone) before each run, offline;
#   warm isolated  pnpm-lock.yaml (isolated + global virtual store), the same;
#   no-op          everything installed: the "up to date" path, hoisted and
#                  isolated;
#   cold           (COLD_RUNS > 0) from the registry, the build's store and
#                  node_modules deleted and synced before each run, both
#                  layouts; peak RSS from /usr/bin/time.
# Warm runs go through ci/bench_rr.py (one run of every command per round,
# the order rotated each round); no-op runs are many and short: spawned
# directly and interleaved (ci/bench_noop.py), wall and CPU time.
#
# usage: ci/bench-ab.sh OLD_NUB NEW_NUB [fixture...]   (default: large)
# env:   RUNS (10), NOOP_RUNS (300), COLD_RUNS (0), WARMUP (2),
#        BENCH_DIR (build/bench-ab)
# Each build has its own store (formats may differ between builds).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: ci/bench-ab.sh OLD_NUB NEW_NUB [fixture...]" >&2; exit 2; }
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
A=$(abs "$1") B=$(abs "$2"); shift 2
fixtures=("$@"); [ ${#fixtures[@]} -gt 0 ] || fixtures=(large)
RUNS=${RUNS:-10}
NOOP_RUNS=${NOOP_RUNS:-300}
COLD_RUNS=${COLD_RUNS:-0}
WARMUP=${WARMUP:-2}
BENCH_DIR=${BENCH_DIR:-$root/build/bench-ab}
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing" >&2; exit 1; }
reg=$(npm config get registry); reg=${reg%/}
unset CI || true
echo "bench-ab: old=$A new=$B"
echo "bench-ab: machine: $(uname -srm), $(getconf _NPROCESSORS_ONLN) cpus, fs $(stat -f -c %T "$(dirname "$BENCH_DIR")" 2>/dev/null || echo ?)"

if [ "${COLD_RUNS:-0}" -gt 0 ] && ! /usr/bin/time -f %M true >/dev/null 2>&1; then
  echo "bench: COLD_RUNS needs GNU time as /usr/bin/time (Debian: apt-get install time)" >&2
  exit 1
fi

setup_proj() { # dir fixture lockfile
  local d=$1 src=$root/ci/bench/fixtures/$2
  rm -rf "$d"; mkdir -p "$d"
  cp "$src/package.json" "$d/"
  [ -f "$src/.npmrc" ] && cp "$src/.npmrc" "$d/"
  sed "s#@@REGISTRY@@#$reg#g" "$src/$3" > "$d/$3"
}
# shell text for bench_rr: quoted, so that any directory name works
q() { printf '%q' "$1"; }
install_cmd() { # dir store bin [flags...]
  local d=$1 store=$2 bin=$3; shift 3
  printf 'cd %s && NUB_STORE_DIR=%s %s install --frozen-lockfile -s %s' "$(q "$d")" "$(q "$store")" \
    "$(q "$bin")" "$*"
}
# one bench_rr run of the (name, prepare, command) triples in names/preps/runs
run_rr() { # rounds warmup json
  local rr=(python3 "$root/ci/bench_rr.py" --rounds "$1" --warmup "$2" --json "$3") i
  for i in "${!names[@]}"; do rr+=("${names[$i]}" "${preps[$i]}" "${runs[$i]}"); done
  "${rr[@]}" >/dev/null
}
bin_of() { [ "$1" = new ] && echo "$B" || echo "$A"; }
lock_of() { [ "$1" = isolated ] && echo pnpm-lock.yaml || echo package-lock.json; }

for fx in "${fixtures[@]}"; do
  echo
  echo "=== $fx ==="
  # the two builds of one layout side by side: bench_rr puts neighbours
  # after each other, in both orders
  names=() preps=() runs=()
  for layout in hoisted isolated; do
    for which in old new; do
      bin=$(bin_of $which) store=$BENCH_DIR/store-$which d=$BENCH_DIR/$fx/$which-$layout
      setup_proj "$d" "$fx" "$(lock_of $layout)"
      (cd "$d" && NUB_STORE_DIR=$store "$bin" install --frozen-lockfile -s) # warm the store
      rm -rf "$d/node_modules"
      names+=("$which $layout")
      preps+=("rm -rf $(q "$d/node_modules") && test ! -e $(q "$d/node_modules")")
      runs+=("$(install_cmd "$d" "$store" "$bin" --offline)")
    done
  done
  run_rr "$RUNS" "$WARMUP" "$BENCH_DIR/$fx-warm.json"

  # no-op: install once more (untimed), then both builds interleaved per layout
  for layout in hoisted isolated; do
    qs=()
    for which in old new; do
      bin=$(bin_of $which) store=$BENCH_DIR/store-$which d=$BENCH_DIR/$fx/$which-$layout
      (cd "$d" && NUB_STORE_DIR=$store "$bin" install --offline --frozen-lockfile -s)
      qs+=("$which $layout no-op" "$d" "NUB_STORE_DIR=$store" "$bin install --offline --frozen-lockfile -s")
    done
    python3 "$root/ci/bench_noop.py" --runs "$NOOP_RUNS" --json "$BENCH_DIR/$fx-noop-$layout.json" "${qs[@]}" >/dev/null
  done

  rm -f "$BENCH_DIR/$fx-cold.json"
  if [ "$COLD_RUNS" -gt 0 ]; then
    names=() preps=() runs=()
    for layout in hoisted isolated; do
      for which in old new; do
        bin=$(bin_of $which) d=$BENCH_DIR/$fx/$which-$layout
        store=$BENCH_DIR/cold-store-$which-$layout rss=$BENCH_DIR/$fx-cold-rss-$which-$layout.txt
        : > "$rss"
        names+=("$which $layout")
        preps+=("rm -rf $(q "$store") $(q "$d/node_modules") && test ! -e $(q "$d/node_modules") && sync")
        runs+=("cd $(q "$d") && NUB_STORE_DIR=$(q "$store") /usr/bin/time -a -o $(q "$rss") -f %M $(q "$bin") install --frozen-lockfile -s")
      done
    done
    run_rr "$COLD_RUNS" 0 "$BENCH_DIR/$fx-cold.json"
  fi

  python3 - "$BENCH_DIR" "$fx" <<'PY'
import json, os, statistics, sys
d, fx = sys.argv[1], sys.argv[2]


def rows(res, phase, digits):
    """Wall and CPU medians of old and new per layout, and their ratio."""
    for layout in ("hoisted", "isolated"):
        for kind in ("times", "cpu"):
            o, n = res[kind][f"old {layout}"], res[kind][f"new {layout}"]
            mo, mn = statistics.median(o), statistics.median(n)
            label = f"{phase} {layout} " + ("wall" if kind == "times" else "cpu")
            print(f"{label:<22}{mo:>9.{digits}f}s{mn:>9.{digits}f}s{mn / mo:>9.2f}"
                  f"   [{min(o):.{digits}f} {min(n):.{digits}f}]")


print(f"{'scenario':<22}{'old':>10}{'new':>10}{'new/old':>9}   (medians; min in brackets)")
rows(json.load(open(f"{d}/{fx}-warm.json")), "warm", 4)
for layout in ("hoisted", "isolated"):
    r = json.load(open(f"{d}/{fx}-noop-{layout}.json"))
    for kind in ("wall", "cpu"):
        o = statistics.median(r[kind][f"old {layout} no-op"])
        n = statistics.median(r[kind][f"new {layout} no-op"])
        print(f"{'no-op ' + layout + ' ' + kind:<22}{o * 1e3:>8.2f}ms{n * 1e3:>8.2f}ms{n / o:>9.2f}")
if os.path.exists(f"{d}/{fx}-cold.json"):
    rows(json.load(open(f"{d}/{fx}-cold.json")), "cold", 3)
    for layout in ("hoisted", "isolated"):
        rss = {}
        for which in ("old", "new"):
            kb = [int(x) for x in open(f"{d}/{fx}-cold-rss-{which}-{layout}.txt").read().split()
                  if x.isdigit()]
            rss[which] = statistics.median(kb) / 1024
        print(f"{'cold ' + layout + ' peak RSS':<22}{rss['old']:>8.0f}MB{rss['new']:>8.0f}MB"
              f"{rss['new'] / rss['old']:>9.2f}")
PY
done
