#!/usr/bin/env bash
# The README's second command: set up, build and run every test - the layering
# check, the unit and end-to-end suites (CTest), the platform contract on a
# loop-mounted XFS image when root, and the same suites under ASan+UBSan.
# Set NUB_SKIP_SANITIZE=1 to skip the sanitizer pass.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh
bash ci/check-layering.sh
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

NUB_BUILD_TYPE=Release bash ci/build.sh build
bash ci/check-layering.sh build

# pnpm, for the differential tests that compare with it (tests/fixtures/real);
# without it (or without the network) those comparisons are skipped
tools=$PWD/build/tools
if [ ! -x "$tools/pnpm/bin/pnpm" ] && command -v npm >/dev/null 2>&1; then
  npm i -g --prefix "$tools/pnpm" pnpm@12.4.2 --no-audit --no-fund >/dev/null 2>&1 ||
    echo "test: pnpm could not be installed; comparisons with it are skipped"
fi
export PATH="$tools/pnpm/bin:$PATH"

(cd build && ctest --output-on-failure -j"$jobs")

if [ "${NUB_SKIP_SANITIZE:-0}" != 1 ]; then
  NUB_BUILD_TYPE=Debug NUB_SANITIZE=1 bash ci/build.sh build-asan
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest --output-on-failure -j"$jobs")
fi
echo "test: all suites passed"
