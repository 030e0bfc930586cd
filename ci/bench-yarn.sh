#!/usr/bin/env bash
# yarn.lock projects: nub from the fixture's yarn.lock (yarn 1's hoisted
# tree) against yarn 1 on the same file, with bun (bun.lock) in the same
# run, back to back per scenario (hyperfine measures; rounds rotate the
# order, see ci/bench_rr.py):
#   warm   caches warm, node_modules deleted (and asserted gone) before each
#          run, offline where the tool has an offline mode;
#   cold   from the real registry, every tool's caches and node_modules
#          deleted and synced before each run.
# The fixture's yarn berry lockfile (yarn-berry.lock: yarn 4.18.1's, the
# yarn.lock versions migrated by berry) is installed by nub ("nub-berry")
# and by berry itself with nodeLinker: node-modules and builds skipped
# ("berry"; warm: enableOfflineMode), in the same rounds.
#
# usage: ci/bench-yarn.sh [fixture...]   (default: webpack3 coffee2 large)
# env:   NUB, RUNS (10), COLD_RUNS (3), WARMUP (2), BENCH_DIR (build/bench-yarn),
#        SCENARIOS ("warm cold"), PEERS ("yarn bun berry")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
NUB=${NUB:-$root/build/core/nub}
NUB=$(cd "$(dirname "$NUB")" && pwd)/$(basename "$NUB")
RUNS=${RUNS:-10}
COLD_RUNS=${COLD_RUNS:-3}
WARMUP=${WARMUP:-2}
BENCH_DIR=${BENCH_DIR:-$root/build/bench-yarn}
SCENARIOS=${SCENARIOS:-"warm cold"}
PEERS=${PEERS:-"yarn bun berry"}
fixtures=("$@")
[ ${#fixtures[@]} -gt 0 ] || fixtures=(webpack3 coffee2 large)
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing" >&2; exit 1; }
[ -x "$NUB" ] || { echo "bench: $NUB not built (ci/build.sh)" >&2; exit 1; }
reg=$(npm config get registry); reg=${reg%/}
tools=$BENCH_DIR/tools
mkdir -p "$BENCH_DIR"
have=(nub)
for p in $PEERS; do
  case $p in
    yarn) t="yarn yarn yarn@1" ;;
    bun) t="bun bun bun" ;;
    berry) t="berry yarn @yarnpkg/cli-dist@4.18.1" ;;
    *) echo "bench: unknown peer $p" >&2; continue ;;
  esac
  set -- $t
  if [ -x "$tools/$1/bin/$2" ] || npm i -g --prefix "$tools/$1" "$3" >/dev/null 2>&1; then
    [ "$1" = berry ] && have+=(nub-berry)
    have+=("$1")
  else
    echo "bench: cannot install $3; left out" >&2
  fi
done
unset CI || true
export npm_config_registry=$reg/ npm_config_audit=false npm_config_fund=false
echo "bench: nub=$NUB tools: ${have[*]}"
echo "bench: machine: $(uname -srm), $(getconf _NPROCESSORS_ONLN) cpus, fs $(stat -f -c %T "$BENCH_DIR" 2>/dev/null || echo ?)"

env_of() { # tool -> env assignments (its own caches under $BENCH_DIR/cache/<tool>)
  local c=$BENCH_DIR/cache/$1
  case $1 in
    nub|nub-berry) echo "NUB_STORE_DIR=$c" ;;
    berry) echo "YARN_GLOBAL_FOLDER=$c YARN_ENABLE_TELEMETRY=0 YARN_ENABLE_GLOBAL_CACHE=1" ;;
    yarn) echo "YARN_CACHE_FOLDER=$c YARN_REGISTRY=$reg/ YARN_ENABLE_TELEMETRY=0" ;;
    bun) echo "BUN_INSTALL_CACHE_DIR=$c" ;;
  esac
}
cmd_of() { # tool mode(warm|cold) -> install command
  case $1 in
    nub|nub-berry) echo "$NUB install --frozen-lockfile --ignore-scripts -s $([ "$2" = cold ] || echo --offline)" ;;
    berry) echo "env YARN_ENABLE_OFFLINE_MODE=$([ "$2" = cold ] && echo 0 || echo 1) $tools/berry/bin/yarn install --immutable --mode=skip-build" ;;
    yarn) echo "$tools/yarn/bin/yarn install --frozen-lockfile --ignore-scripts --ignore-engines --non-interactive --no-progress $([ "$2" = cold ] || echo --offline)" ;;
    bun) echo "$tools/bun/bin/bun install --frozen-lockfile --ignore-scripts" ;;
  esac
}
setup() { # fixture tool -> project dir with the tool's lockfile
  local d=$BENCH_DIR/$1/$2 src=$root/ci/bench/fixtures/$1 lf
  rm -rf "$d"; mkdir -p "$d"
  cp "$src/package.json" "$d/"; [ -f "$src/.npmrc" ] && cp "$src/.npmrc" "$d/"
  case $2 in bun) lf=bun.lock ;; *) lf=yarn.lock ;; esac
  case $2 in
    berry|nub-berry)
      cp "$src/yarn-berry.lock" "$d/yarn.lock"
      printf 'nodeLinker: node-modules\n' > "$d/.yarnrc.yml"
      [ "$2" = nub-berry ] || printf 'npmRegistryServer: "%s"\nenableTelemetry: false\n' "$reg" >> "$d/.yarnrc.yml" ;;
    *) sed "s#@@REGISTRY@@#$reg#g" "$src/$lf" > "$d/$lf" ;;
  esac
  echo "$d"
}

for fx in "${fixtures[@]}"; do
  [ -f "$root/ci/bench/fixtures/$fx/yarn.lock" ] || { echo "bench: $fx has no yarn.lock; skipped"; continue; }
  declare -A dir=()
  for t in "${have[@]}"; do
    if [[ $t == *berry ]] && [ ! -f "$root/ci/bench/fixtures/$fx/yarn-berry.lock" ]; then
      echo "bench: $fx has no yarn-berry.lock: $t left out"; continue
    fi
    dir[$t]=$(setup "$fx" "$t")
    (cd "${dir[$t]}" && env $(env_of "$t") $(cmd_of "$t" cold) >/dev/null 2>&1) ||
      { echo "bench: $t cannot install $fx; left out"; unset "dir[$t]"; }
  done
  [ -n "${dir[nub]:-}" ] || { echo "bench: nub cannot install $fx from yarn.lock" >&2; exit 1; }
  pkgs=$(find "${dir[nub]}/node_modules" -name package.json -path '*node_modules/*/package.json' | wc -l)
  for sc in $SCENARIOS; do
    echo; echo "=== $fx: $sc (yarn.lock) ==="
    rr=(python3 "$root/ci/bench_rr.py" --json "$BENCH_DIR/$fx-$sc.json")
    case $sc in
      warm) rr+=(--rounds "$RUNS" --warmup "$WARMUP") ;;
      cold) rr+=(--rounds "$COLD_RUNS" --warmup 0) ;;
    esac
    for t in "${have[@]}"; do
      [ -n "${dir[$t]:-}" ] || continue
      d=${dir[$t]}
      # a warm run needs a full cache (a cold round before empties it)
      [ "$sc" = cold ] || (cd "$d" && env $(env_of "$t") $(cmd_of "$t" cold) >/dev/null 2>&1) || true
      case $sc in
        warm) prep="rm -rf $d/node_modules && test ! -e $d/node_modules" ;;
        cold) prep="rm -rf $BENCH_DIR/$fx/*/node_modules $BENCH_DIR/$fx/*/.yarn $BENCH_DIR/cache && test ! -e $d/node_modules && sync" ;;
      esac
      rr+=("$t" "$prep" "cd $d && env $(env_of "$t") $(cmd_of "$t" "$sc") >/dev/null 2>&1")
    done
    "${rr[@]}" >/dev/null
    if [ "$sc" = cold ] && [ -x /usr/bin/time ]; then
      # one more cold run each, for the peak resident memory
      for t in "${have[@]}"; do
        [ -n "${dir[$t]:-}" ] || continue
        rm -rf "$BENCH_DIR/$fx"/*/node_modules "$BENCH_DIR/$fx"/*/.yarn "$BENCH_DIR/cache"; sync
        kb=$(cd "${dir[$t]}" && env $(env_of "$t") /usr/bin/time -f %M $(cmd_of "$t" cold) 2>&1 >/dev/null | tail -1)
        echo "$fx cold peak RSS: $t $((kb / 1024)) MB"
      done
    fi
    python3 - "$BENCH_DIR/$fx-$sc.json" <<'PY'
import json, statistics, sys
times = json.load(open(sys.argv[1]))["times"]
med = {k: statistics.median(v) for k, v in times.items()}
nub = med["nub"]
print(f"{'tool':<10}{'median s':>10}{'min s':>9}{'nub/tool':>10}")
for k, v in times.items():
    print(f"{k:<10}{med[k]:>10.4f}{min(v):>9.4f}{nub / med[k]:>10.2f}")
if "nub-berry" in med and "berry" in med:
    print(f"nub-berry/berry {med['nub-berry'] / med['berry']:.2f}  "
          f"nub-berry/bun {med['nub-berry'] / med.get('bun', float('nan')):.2f}")
PY
  done
  # the trees are the same (the differential tests say so path by path);
  # here only a count, so the figures name what was installed
  echo "$fx: nub installed $pkgs package.json files under node_modules from yarn.lock"
  (cd "${dir[nub]}" && env $(env_of nub) $(cmd_of nub cold) >/dev/null 2>&1 || true)
  (cd "${dir[nub]}" && rm -rf node_modules && env $(env_of nub) NUB_LOG=debug $(cmd_of nub warm) 2>&1 |
    grep phase: | sed 's/^DEBUG /nub warm phases: /')
done
