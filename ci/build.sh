#!/usr/bin/env bash
# Configure and build nub. Usage: ci/build.sh [build-dir] [extra cmake args...]
# NUB_BUILD_TYPE (Release) and NUB_SANITIZE=1 (ASan+UBSan) steer it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
args=(-DCMAKE_BUILD_TYPE="${NUB_BUILD_TYPE:-Release}")
if [ "${NUB_SANITIZE:-0}" = 1 ]; then
  args+=(-DNUB_SANITIZE=ON)
fi
if [ "$(uname -s)" = "Darwin" ] && command -v brew >/dev/null 2>&1; then
  # keg-only formulae are not on the default pkg-config path
  for f in curl openssl@3; do
    p=$(brew --prefix "$f" 2>/dev/null || true)
    [ -n "$p" ] && PKG_CONFIG_PATH="$p/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  done
  export PKG_CONFIG_PATH
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
cmake -S . -B "$dir" "${args[@]}" "$@"
cmake --build "$dir" -j"$jobs"
