#!/usr/bin/env bash
# What tracing costs: the warm-offline hoisted install of a bench fixture with
# a build that has the diag layer compiled out, the normal build with every
# NUB_DIAG_* unset, and the normal build with each knob on - back to back,
# in rotating order (ci/bench_rr.py over hyperfine). Prints medians and the
# overhead ratio against the compiled-out build.
#
# usage: ci/bench-diag.sh [fixture]   (default coffee2)
# env:   RUNS (15), WARMUP (3), BENCH_DIR (build/bench-diag)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fx=${1:-coffee2}
RUNS=${RUNS:-15}
WARMUP=${WARMUP:-3}
BENCH_DIR=${BENCH_DIR:-$root/build/bench-diag}
command -v hyperfine >/dev/null || { echo "bench-diag: hyperfine is missing" >&2; exit 1; }
reg=$(npm config get registry); reg=${reg%/}

NUB_BUILD_TYPE=Release bash "$root/ci/build.sh" "$root/build" >/dev/null
NUB_BUILD_TYPE=Release bash "$root/ci/build.sh" "$root/build-nodiag" -DNUB_DIAG=OFF -DNUB_TESTS=OFF >/dev/null
on=$root/build/core/nub
off=$root/build-nodiag/core/nub

export NUB_STORE_DIR=$BENCH_DIR/store
unset CI NUB_LOG RUST_LOG NUB_DIAG_FILE NUB_DIAG_PRINT NUB_DIAG_SUMMARY NUB_DIAG_CRITPATH \
  NUB_DIAG_KERNEL NUB_BENCH_PHASES_FILE || true
d=$BENCH_DIR/$fx
rm -rf "$d"; mkdir -p "$d"
cp "$root/ci/bench/fixtures/$fx/package.json" "$d/"
sed "s#@@REGISTRY@@#$reg#g" "$root/ci/bench/fixtures/$fx/package-lock.json" > "$d/package-lock.json"
(cd "$d" && "$on" install -s) # warm the store
prep="rm -rf $d/node_modules && test ! -e $d/node_modules"
run="cd $d && "

python3 "$root/ci/bench_rr.py" --rounds "$RUNS" --warmup "$WARMUP" --json "$BENCH_DIR/diag.json" \
  "diag compiled out" "$prep" "$run $off install --offline -s" \
  "diag in, all off" "$prep" "$run $on install --offline -s" \
  "NUB_LOG=debug" "$prep" "$run NUB_LOG=debug $on install --offline -s 2>/dev/null" \
  "NUB_DIAG_FILE" "$prep" "$run NUB_DIAG_FILE=$BENCH_DIR/d.jsonl $on install --offline -s" \
  "NUB_DIAG_SUMMARY" "$prep" "$run NUB_DIAG_SUMMARY=1 $on install --offline -s 2>/dev/null" \
  "NUB_DIAG_CRITPATH" "$prep" "$run NUB_DIAG_CRITPATH=1 $on install --offline -s 2>/dev/null" \
  "NUB_DIAG_KERNEL" "$prep" "$run NUB_DIAG_KERNEL=1 $on install --offline -s" \
  >/dev/null

python3 - "$BENCH_DIR/diag.json" <<'PY'
import json, statistics, sys
times = json.load(open(sys.argv[1]))["times"]
names = list(times)
base = statistics.median(times[names[0]])
print(f"{'variant':<22}{'median ms':>11}{'vs compiled out':>17}")
for k in names:
    m = statistics.median(times[k])
    print(f"{k:<22}{m * 1000:>11.1f}{m / base:>16.3f}x")
PY
