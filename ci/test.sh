#!/usr/bin/env bash
# The README's second command: set up, build and run every test - the layering
# check, the unit and end-to-end suites (CTest), the platform contract on a
# loop-mounted XFS image when root, a few real projects' lockfiles against
# their incumbents (NUB_SKIP_REAL=1 skips them), and the same suites under
# ASan+UBSan.
# Set NUB_SKIP_SANITIZE=1 to skip the sanitizer pass. Then every parser is
# fuzzed for FUZZ_SECONDS (60) each (ci/fuzz.sh; Linux with clang's
# libFuzzer); NUB_SKIP_FUZZ=1 skips that.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh --test
bash ci/check-layering.sh
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

NUB_BUILD_TYPE=Release bash ci/build.sh build
bash ci/check-layering.sh build

# The incumbents the differential tests compare with, at the versions the
# fixtures were recorded with, and the Node.js they need (ci/tools.sh): a
# tool that cannot be installed stops here; a test whose tool is not at
# its version says SKIP, never compares with another version.
eval "$(bash ci/tools.sh)"

(cd build && ctest --output-on-failure -j"$jobs")

# A few real projects' own lockfiles, each incumbent's frozen install against
# nub's, path by path (ci/real_projects.py; the whole corpus runs weekly in
# the GitHub workflow). NUB_SKIP_REAL=1 skips it.
if [ "${NUB_SKIP_REAL:-0}" != 1 ]; then
  if [ "$(uname -s)" = Linux ]; then
    python3 ci/real_projects.py --nub build/core/nub ${NUB_REAL_PROJECTS:-npm-readability npm-cli yarn1-metro berry-react-pdf bun-hono pnpm-vue-core}
    # and written back: add, remove, update against npm's, byte for byte
    python3 ci/real_writeback.py --nub build/core/nub ${NUB_WRITEBACK_PROJECTS:-npm-readability}
  else
    echo "test: real projects skipped (compared on Linux so far; ci/real-projects.sh runs them here)"
  fi
fi

if [ "${NUB_SKIP_SANITIZE:-0}" != 1 ]; then
  NUB_BUILD_TYPE=Debug NUB_SANITIZE=1 bash ci/build.sh build-asan
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest --output-on-failure -j"$jobs")
fi
if [ "${NUB_SKIP_FUZZ:-0}" != 1 ]; then
  if [ "$(uname -s)" = Linux ]; then
    FUZZ_SECONDS=${FUZZ_SECONDS:-60} bash ci/fuzz.sh
  else
    echo "test: fuzzing skipped (Apple's clang has no libFuzzer; the Linux jobs fuzz)"
  fi
fi
echo "test: all suites passed"
