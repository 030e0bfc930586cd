#!/usr/bin/env bash
# The isolated layout with the global virtual store, against its peers, back
# to back per scenario (hyperfine measures; rounds rotate the order, see
# ci/bench_rr.py):
#   warm   store/caches warm, node_modules deleted (and asserted gone) before
#          each run, offline: nub (pnpm-lock.yaml -> isolated + GVS), the Rust
#          nub at its defaults, pnpm at its defaults, bun (bun.lock); and
#          nub-full, nub with a store of its own whose install records
#          (core/record.h) are deleted before each run: a warm install of
#          inputs this store has not installed before;
#   noop   everything installed already: each tool's "up to date" path;
#   cold   from the real registry, every tool's store, caches and
#          node_modules deleted and synced before each run (the same file
#          system state whoever ran before): nub vs bun (and the Rust nub,
#          pnpm when PEERS_COLD asks for them).
#
# A workspace fixture (monorepo) brings its pnpm-workspace.yaml and packages/;
# every member's node_modules goes with the project's.
#
# usage: ci/bench-isolated.sh [--quick] [fixture]   (default: large)
#        --quick: 3 warm rounds, 1 cold round (a few minutes)
# env:   NUB, RUNS (10), COLD_RUNS (3), WARMUP (2), BENCH_DIR (build/bench-iso),
#        SCENARIOS ("warm noop cold"), PEERS_COLD ("bun")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --quick ]; then
  shift
  RUNS=${RUNS:-3} COLD_RUNS=${COLD_RUNS:-1} WARMUP=${WARMUP:-1}
fi
fx=${1:-large}
NUB=${NUB:-$root/build/core/nub}
NUB=$(cd "$(dirname "$NUB")" && pwd)/$(basename "$NUB")
RUNS=${RUNS:-10}
COLD_RUNS=${COLD_RUNS:-3}
WARMUP=${WARMUP:-2}
BENCH_DIR=${BENCH_DIR:-$root/build/bench-iso}
SCENARIOS=${SCENARIOS:-"warm noop cold"}
PEERS_COLD=${PEERS_COLD:-bun}
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing" >&2; exit 1; }
reg=$(npm config get registry); reg=${reg%/}
tools=$BENCH_DIR/tools
mkdir -p "$BENCH_DIR"
for t in "bun bun bun" "pnpm pnpm pnpm@12.23.0" "rnub nub @nubjs/nub"; do
  set -- $t
  [ -x "$tools/$1/bin/$2" ] || npm i -g --prefix "$tools/$1" "$3" >/dev/null 2>&1 ||
    echo "bench: cannot install $3" >&2
done
unset CI || true
export npm_config_registry=$reg/ npm_config_audit=false npm_config_fund=false

# Every tool gets its own caches under $BENCH_DIR/cache/<tool>.
env_of() { # tool -> env assignments
  local c=$BENCH_DIR/cache/$1
  case $1 in
    nub|nub-full) echo "NUB_STORE_DIR=$c" ;;
    bun) echo "BUN_INSTALL_CACHE_DIR=$c" ;;
    # pnpm 12 reads neither npm_config_store_dir nor the .npmrc lines: its
    # own flags (cmd_of), or every "cold" run would use a warm shared store
    pnpm) echo "XDG_CACHE_HOME=$c/xdg" ;;
    rnub) echo "XDG_DATA_HOME=$c/data XDG_CACHE_HOME=$c/cache" ;;
  esac
}
cmd_of() { # tool mode(warm|noop|cold) -> install command
  case $1 in
    nub|nub-full) echo "$NUB install --frozen-lockfile --ignore-scripts -s $([ "$2" = cold ] || echo --offline)" ;;
    bun) echo "$tools/bun/bin/bun install --frozen-lockfile --ignore-scripts" ;;
    pnpm) echo "$tools/pnpm/bin/pnpm install --frozen-lockfile --ignore-scripts --store-dir $BENCH_DIR/cache/pnpm/store --cache-dir $BENCH_DIR/cache/pnpm/cache $([ "$2" = cold ] || echo --offline)" ;;
    rnub) echo "$tools/rnub/bin/nub install --frozen-lockfile --ignore-scripts $([ "$2" = cold ] || echo --offline)" ;;
  esac
}
setup() { # tool -> project dir with that tool's lockfile
  local d=$BENCH_DIR/$fx/$1 src=$root/ci/bench/fixtures/$fx
  rm -rf "$d"; mkdir -p "$d"
  cp "$src/package.json" "$d/"; [ -f "$src/.npmrc" ] && cp "$src/.npmrc" "$d/"
  # a workspace: its definition and members come along
  [ -f "$src/pnpm-workspace.yaml" ] && cp "$src/pnpm-workspace.yaml" "$d/"
  [ -d "$src/packages" ] && cp -r "$src/packages" "$d/"
  case $1 in
    bun) sed "s#@@REGISTRY@@#$reg#g" "$src/bun.lock" > "$d/bun.lock" ;;
    *) cp "$src/pnpm-lock.yaml" "$d/" ;;
  esac
  echo "$d"
}

declare -A dir
for t in nub nub-full rnub pnpm bun; do
  dir[$t]=$(setup $t)
  (cd "${dir[$t]}" && env $(env_of $t) $(cmd_of $t cold) >/dev/null 2>&1) ||
    { echo "bench: $t cannot install $fx; left out"; unset "dir[$t]"; }
done
# each tool's store where it was told, before anything is timed
if [ -n "${dir[pnpm]:-}" ] && [ ! -d "$BENCH_DIR/cache/pnpm/store" ]; then
  echo "bench: pnpm did not use its store under $BENCH_DIR/cache/pnpm; left out"
  unset "dir[pnpm]"
fi

summarise() { # json
  python3 - "$1" <<'PY'
import json, statistics, sys
times = json.load(open(sys.argv[1]))["times"]
med = {k: statistics.median(v) for k, v in times.items()}
nub = med["nub"]
print(f"{'tool':<10}{'median s':>10}{'min s':>9}{'nub/tool':>10}")
for k, v in times.items():
    print(f"{k:<10}{med[k]:>10.4f}{min(v):>9.4f}{nub / med[k]:>10.2f}")
PY
}

for sc in $SCENARIOS; do
  echo; echo "=== $fx: $sc ==="
  rr=(python3 "$root/ci/bench_rr.py" --json "$BENCH_DIR/$fx-$sc.json")
  case $sc in
    warm) rr+=(--rounds "$RUNS" --warmup "$WARMUP") ;;
    noop) rr+=(--rounds "$((RUNS * 3))" --warmup "$WARMUP" --no-shell) ;;
    cold) rr+=(--rounds "$COLD_RUNS" --warmup 0) ;;
  esac
  for t in nub nub-full rnub pnpm bun; do
    [ -n "${dir[$t]:-}" ] || continue
    [ "$t" = nub-full ] && [ "$sc" != warm ] && continue
    [ "$sc" = cold ] && [ "$t" != nub ] && ! echo " $PEERS_COLD " | grep -q " $t " && continue
    d=${dir[$t]}
    # warm and no-op need a full store (a cold round before empties it)
    [ "$sc" = cold ] || (cd "$d" && env $(env_of $t) $(cmd_of $t cold) >/dev/null 2>&1) || true
    case $sc in
      warm) prep="rm -rf $d/node_modules $d/packages/*/node_modules && test ! -e $d/node_modules"
            [ "$t" = nub-full ] && prep="$prep && rm -rf $BENCH_DIR/cache/nub-full/v1/records" ;;
      # Every tool starts from the same file system: what any earlier run
      # left (another tool's store and node_modules, in the rotation) is
      # deleted, and synced, so that no run pays for writing back or
      # allocating around the one before it.
      cold) prep="rm -rf $BENCH_DIR/$fx/*/node_modules $BENCH_DIR/$fx/*/packages/*/node_modules $BENCH_DIR/cache && test ! -e $d/node_modules && sync" ;;
      noop) (cd "$d" && env $(env_of $t) $(cmd_of $t warm) >/dev/null 2>&1); prep="" ;;
    esac
    if [ "$sc" = noop ]; then
      # no shell: the few milliseconds of a no-op are not a shell's
      rr+=("$t" "" "env -C $d $(env_of $t) $(cmd_of $t warm)")
    else
      rr+=("$t" "$prep" "cd $d && env $(env_of $t) $(cmd_of $t $sc) >/dev/null 2>&1")
    fi
  done
  "${rr[@]}" >/dev/null
  summarise "$BENCH_DIR/$fx-$sc.json"
done
# (a cold round may have emptied the store: fill it first)
(cd "${dir[nub]}" && env $(env_of nub) $(cmd_of nub cold) >/dev/null 2>&1 || true)
(cd "${dir[nub]}" && rm -rf node_modules packages/*/node_modules && env $(env_of nub) NUB_LOG=debug $(cmd_of nub warm) 2>&1 |
  grep phase: | sed 's/^DEBUG /nub warm phases: /')
