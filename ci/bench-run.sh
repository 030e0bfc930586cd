#!/usr/bin/env bash
# The inner loop, against the peers, in one run (ci/bench_noop.py: every
# command spawned directly, one run of each per round, the order rotated;
# median wall and CPU time, every run must exit 0):
#   run     `<tool> run noop` of a trivial script ("true") in a small
#           project, against `sh -c true` (what any runner must start) and
#           `sh -c 'sh -c true'` (two process images, the floor of a runner
#           that is a process of its own);
#   loop    the large fixture installed already, then `<tool> install &&
#           <tool> run test` (test = "true"): each tool's up-to-date check
#           plus its runner.
#
# usage: ci/bench-run.sh        env: NUB, RUNS (200), LOOP_RUNS (30), BENCH_DIR (build/bench-run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
NUB=${NUB:-$root/build/core/nub}
NUB=$(cd "$(dirname "$NUB")" && pwd)/$(basename "$NUB")
RUNS=${RUNS:-200}
LOOP_RUNS=${LOOP_RUNS:-30}
BENCH_DIR=${BENCH_DIR:-$root/build/bench-run}
reg=$(npm config get registry); reg=${reg%/}
tools=$BENCH_DIR/tools
mkdir -p "$BENCH_DIR"
for t in "bun bun bun" "pnpm pnpm pnpm@12.23.0"; do
  set -- $t
  [ -x "$tools/$1/bin/$2" ] || npm i -g --prefix "$tools/$1" "$3" --allow-scripts=bun >/dev/null 2>&1 ||
    npm i -g --prefix "$tools/$1" "$3" >/dev/null 2>&1 || echo "bench: cannot install $3" >&2
done
unset CI || true
npm=$(command -v npm)
bun=$tools/bun/bin/bun
pnpm=$tools/pnpm/bin/pnpm

echo "=== run: a trivial script ==="
p=$BENCH_DIR/run; rm -rf "$p"; mkdir -p "$p"
printf '{"name":"r","version":"1.0.0","scripts":{"noop":"true","test":"true"}}\n' > "$p/package.json"
printf '#!/bin/sh\nexec /bin/sh -c true\n' > "$p/shsh"; chmod +x "$p/shsh"
python3 "$root/ci/bench_noop.py" --runs "$RUNS" --warmup 20 --json "$BENCH_DIR/run.json" \
  sh "$p" - "/bin/sh -c true" \
  sh-sh "$p" - "$p/shsh" \
  nub "$p" - "$NUB run noop" \
  npm "$p" - "$npm run noop" \
  pnpm "$p" - "$pnpm run noop" \
  bun "$p" - "$bun run noop"

echo; echo "=== loop: large installed, then install && run test ==="
declare -A lock=([nub]=pnpm-lock.yaml [pnpm]=pnpm-lock.yaml [bun]=bun.lock [npm]=package-lock.json)
declare -A inst=([nub]="$NUB install --frozen-lockfile --ignore-scripts -s" [pnpm]="$pnpm install --frozen-lockfile --ignore-scripts --offline"
                 [bun]="$bun install --frozen-lockfile --ignore-scripts" [npm]="$npm install --ignore-scripts --no-audit --no-fund --offline")
declare -A runner=([nub]="$NUB run test" [pnpm]="$pnpm run test" [bun]="$bun run test" [npm]="$npm run test")
quads=()
for t in nub pnpm bun npm; do
  d=$BENCH_DIR/loop-$t; rm -rf "$d"; mkdir -p "$d"
  src=$root/ci/bench/fixtures/large
  python3 - "$src/package.json" "$d/package.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); doc["scripts"] = {"test": "true"}
json.dump(doc, open(sys.argv[2], "w"), indent=2)
PY
  cp "$src/.npmrc" "$d/"
  sed "s#@@REGISTRY@@#$reg#g" "$src/${lock[$t]}" > "$d/${lock[$t]}"
  c=$BENCH_DIR/cache-$t
  env_t="NUB_STORE_DIR=$c,BUN_INSTALL_CACHE_DIR=$c,npm_config_store_dir=$c/store,npm_config_cache=$c/npm"
  (cd "$d" && env NUB_STORE_DIR=$c BUN_INSTALL_CACHE_DIR=$c npm_config_store_dir=$c/store \
     npm_config_cache=$c/npm ${inst[$t]/ --offline/} >/dev/null 2>&1) || { echo "bench: $t cannot install large; left out"; continue; }
  printf '#!/bin/sh\n%s >/dev/null && %s\n' "${inst[$t]}" "${runner[$t]}" > "$d/loop.sh"
  quads+=("$t" "$d" "$env_t" "/bin/sh $d/loop.sh")
done
python3 "$root/ci/bench_noop.py" --runs "$LOOP_RUNS" --warmup 3 --json "$BENCH_DIR/loop.json" "${quads[@]}"
