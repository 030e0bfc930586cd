#!/usr/bin/env bash
# Warm-offline install benchmark: nub vs npm ci, bun, pnpm (hoisted), the
# existing Rust nub (hoisted, from pnpm-lock.yaml) and a single-threaded
# `cp -al` of nub's finished tree (the floor), back to back in one run per
# fixture: hyperfine measures, rounds rotate the order (ci/bench_rr.py).
# nub runs twice: from package-lock.json (npm's tree, the ratios) and from
# bun.lock (bun's tree, against bun on the same lockfile).
#
# usage: ci/bench.sh [--quick] [fixture...]   (default: webpack3 coffee2 large)
#        --quick: webpack3 and large, 3 rounds, peers bun and pnpm: the
#        inner loop of a developer (a few minutes)
# env:   NUB=path/to/nub (default build/core/nub), RUNS (10), WARMUP (2),
#        BENCH_DIR (default build/bench), PEERS="npm bun pnpm rnub" to choose.
#
# Every timed run starts from a verified-clean state: --prepare deletes
# node_modules and asserts it is gone; hyperfine fails the run on a non-zero
# exit. Stores and caches are warm (one untimed install per tool first) and
# the timed commands run offline. Registry URLs come from `npm config get
# registry`; the fixtures carry the @@REGISTRY@@ placeholder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --quick ]; then
  shift
  RUNS=${RUNS:-3} WARMUP=${WARMUP:-1} PEERS=${PEERS:-"bun pnpm"}
  [ $# -gt 0 ] || set -- webpack3 large
fi
NUB=${NUB:-$root/build/core/nub}
NUB=$(cd "$(dirname "$NUB")" && pwd)/$(basename "$NUB")
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
BENCH_DIR=${BENCH_DIR:-$root/build/bench}
PEERS=${PEERS:-"npm bun pnpm rnub"}
fixtures=("$@")
[ ${#fixtures[@]} -gt 0 ] || fixtures=(webpack3 coffee2 large)

command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (ci/bootstrap.sh --bench installs it)" >&2; exit 1; }
[ -x "$NUB" ] || { echo "bench: $NUB not built (ci/build.sh)" >&2; exit 1; }
reg=$(npm config get registry); reg=${reg%/}
mkdir -p "$BENCH_DIR"
tools=$BENCH_DIR/tools

# Peers install with npm under their own prefixes, so that the Rust nub's
# binary never shadows ours.
install_peer() { # name spec
  [ -x "$tools/$1/bin/$2" ] || npm i -g --prefix "$tools/$1" "$3" >/dev/null 2>&1 ||
    { echo "bench: cannot install $3; skipping it" >&2; return 1; }
}
have=()
for p in $PEERS; do
  case $p in
    npm) have+=(npm) ;;
    bun) install_peer bun bun bun && have+=(bun) ;;
    pnpm) install_peer pnpm pnpm pnpm@12.23.0 && have+=(pnpm) ;;
    rnub) install_peer rnub nub @nubjs/nub && have+=(rnub) ;;
  esac
done
echo "bench: nub=$NUB peers: ${have[*]}"
echo "bench: machine: $(uname -srm), $(getconf _NPROCESSORS_ONLN) cpus, fs $(stat -f -c %T "$BENCH_DIR" 2>/dev/null || echo ?)"

export npm_config_registry=$reg/
export npm_config_cache=$BENCH_DIR/cache/npm
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
export BUN_INSTALL_CACHE_DIR=$BENCH_DIR/cache/bun
export NUB_STORE_DIR=$BENCH_DIR/cache/nub
unset CI || true

setup_proj() { # fixture tool lockfile...
  local fx=$1 tool=$2; shift 2
  local d=$BENCH_DIR/$fx/$tool src=$root/ci/bench/fixtures/$fx
  rm -rf "$d"; mkdir -p "$d"
  cp "$src/package.json" "$d/"
  [ -f "$src/.npmrc" ] && cp "$src/.npmrc" "$d/"
  for lf in "$@"; do sed "s#@@REGISTRY@@#$reg#g" "$src/$lf" > "$d/$lf"; done
  echo "$d"
}

clean() { printf 'rm -rf %q/node_modules && test ! -e %q/node_modules' "$1" "$1"; }

for fx in "${fixtures[@]}"; do
  echo
  echo "=== $fx ==="
  names=() preps=() runs=()
  add() { names+=("$1"); preps+=("$2"); runs+=("$3"); }
  d=$(setup_proj "$fx" nub package-lock.json)
  (cd "$d" && "$NUB" install --frozen-lockfile -s) # warm the store
  rm -rf "$d/node_modules"
  (cd "$d" && NUB_DIAG_FILE=$BENCH_DIR/$fx-nub.jsonl NUB_LOG=debug "$NUB" install --offline --frozen-lockfile -s 2>"$BENCH_DIR/$fx-nub.phases")
  add nub "$(clean "$d")" "cd $d && $NUB install --offline --frozen-lockfile --ignore-scripts -s"
  files=$(find "$d/node_modules" -type f | wc -l)
  pkgs=$(grep -cE '^([0-9a-f]{64}|-) node_modules/' "$d/node_modules/.nub-state/state")

  # the same lockfile as bun's: nub from bun.lock (bun's tree)
  db=$(setup_proj "$fx" nub-bunlock bun.lock)
  (cd "$db" && "$NUB" install --frozen-lockfile -s) # the store is already warm
  add "nub (bun.lock)" "$(clean "$db")" "cd $db && $NUB install --offline --frozen-lockfile --ignore-scripts -s"

  # the floor: a single-threaded cp -al of nub's finished tree
  floor=$BENCH_DIR/$fx/floor-src
  rm -rf "$floor"; mkdir -p "$floor"; cp -al "$d/node_modules" "$floor/node_modules"
  fd=$BENCH_DIR/$fx/floor; mkdir -p "$fd"
  add "cp -al" "$(clean "$fd")" "cp -al $floor/node_modules $fd/node_modules"

  for t in "${have[@]}"; do
    case $t in
      npm)
        p=$(setup_proj "$fx" npm package-lock.json)
        (cd "$p" && npm ci --ignore-scripts >/dev/null 2>&1)
        add "npm ci" "$(clean "$p")" "cd $p && npm ci --offline --ignore-scripts >/dev/null 2>&1" ;;
      bun)
        p=$(setup_proj "$fx" bun bun.lock)
        (cd "$p" && "$tools/bun/bin/bun" install --frozen-lockfile --ignore-scripts >/dev/null 2>&1)
        add bun "$(clean "$p")" "cd $p && $tools/bun/bin/bun install --frozen-lockfile --ignore-scripts >/dev/null 2>&1" ;;
      pnpm)
        p=$(setup_proj "$fx" pnpm pnpm-lock.yaml)
        # pnpm 12 ignores node-linker and store-dir in .npmrc: its flags, and
        # the layout and store checked before anything is timed
        pn="$tools/pnpm/bin/pnpm install --frozen-lockfile --ignore-scripts --config.node-linker=hoisted --store-dir $BENCH_DIR/cache/pnpm/store --cache-dir $BENCH_DIR/cache/pnpm/cache"
        (cd "$p" && $pn >/dev/null 2>&1) || { echo "bench: pnpm cannot install $fx; left out"; continue; }
        if [ -L "$p/node_modules/$(ls "$p/node_modules" | grep -v '^[.@]' | head -1)" ] || [ ! -d "$BENCH_DIR/cache/pnpm/store" ]; then
          echo "bench: pnpm did not build a hoisted tree from its store under $BENCH_DIR/cache/pnpm; left out"; continue
        fi
        add "pnpm hoisted" "$(clean "$p")" "cd $p && $pn --offline >/dev/null 2>&1" ;;
      rnub)
        p=$(setup_proj "$fx" rnub pnpm-lock.yaml)
        rn="env XDG_DATA_HOME=$BENCH_DIR/cache/rnub-data XDG_CACHE_HOME=$BENCH_DIR/cache/rnub-cache $tools/rnub/bin/nub"
        (cd "$p" && $rn install --frozen-lockfile --node-linker hoisted --ignore-scripts >/dev/null 2>&1) || { echo "bench: the Rust nub cannot install $fx; left out"; continue; }
        add "rust nub hoisted" "$(clean "$p")" "cd $p && $rn install --offline --frozen-lockfile --node-linker hoisted --ignore-scripts >/dev/null 2>&1" ;;
    esac
  done

  rr=(python3 "$root/ci/bench_rr.py" --rounds "$RUNS" --warmup "$WARMUP" --json "$BENCH_DIR/$fx.json")
  for i in "${!names[@]}"; do
    rr+=("${names[$i]}" "${preps[$i]}" "${runs[$i]}")
  done
  "${rr[@]}" >/dev/null

  python3 - "$BENCH_DIR/$fx.json" "$BENCH_DIR/$fx-nub.jsonl" "$BENCH_DIR/$fx-nub.phases" "$files" "$pkgs" <<'PY'
import json, re, statistics, sys
times = json.load(open(sys.argv[1]))["times"]
med = {k: statistics.median(v) for k, v in times.items()}
nub = med["nub"]
print(f"files {sys.argv[4]}, packages {sys.argv[5]}")
print(f"{'tool':<20}{'median s':>10}{'min s':>9}{'nub/tool':>10}")
for k, v in times.items():
    print(f"{k:<20}{med[k]:>10.3f}{min(v):>9.3f}{nub / med[k]:>10.2f}")
tally = {}
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e["cat"] == "linker":
        tally[e["name"]] = tally.get(e["name"], 0) + 1
if "bun" in med and "nub (bun.lock)" in med:
    print(f"nub (bun.lock) / bun, same lockfile: {med['nub (bun.lock)'] / med['bun']:.2f}")
print("nub strategy tally:", ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
print("nub phases:", " | ".join(l.strip().replace("DEBUG ", "") for l in open(sys.argv[3]) if "phase:" in l))
PY
done
