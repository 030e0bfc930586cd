#!/usr/bin/env bash
# The README's second command: set up, build and run every test - the layering
# check, the unit and end-to-end suites (CTest), the platform contract on a
# loop-mounted XFS image when root, and the same suites under ASan+UBSan.
# Set NUB_SKIP_SANITIZE=1 to skip the sanitizer pass. Then every parser is
# fuzzed for FUZZ_SECONDS (60) each (ci/fuzz.sh; Linux with clang's
# libFuzzer); NUB_SKIP_FUZZ=1 skips that.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh
bash ci/check-layering.sh
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

NUB_BUILD_TYPE=Release bash ci/build.sh build
bash ci/check-layering.sh build

# The incumbents the differential tests compare with (tests/fixtures/real),
# at the versions the fixtures' EXPECTED.md was recorded with: npm 11 (a
# distribution's npm may be older and build other trees), pnpm 12.4.2,
# yarn 1, yarn berry 4.18.1 (as berry/bin/yarn, NUB_BERRY) and bun 1.4.5.
# Without them (or without the network) those comparisons are skipped.
tools=$PWD/build/tools
if command -v npm >/dev/null 2>&1; then
  for t in "npm npm@11" "pnpm pnpm@12.4.2" "yarn yarn@1" "bun bun@1.4.5" \
           "berry @yarnpkg/cli-dist@4.18.1"; do
    set -- $t
    [ -x "$tools/$1/bin/$1" ] || [ -f "$tools/$1/bin/yarn" ] && continue
    npm i -g --prefix "$tools/$1" "$2" --no-audit --no-fund >"$tools.$1.log" 2>&1 ||
      { echo "test: $2 could not be installed; comparisons with it are skipped:"; tail -3 "$tools.$1.log"; }
  done
fi
# Verdaccio, the registry server of e2e.verdaccio: 6.8.0 runs on Node 20 with
# node-fetch held at 2.7.0 (6.10 wants Node 22)
if command -v npm >/dev/null 2>&1 && [ ! -f "$tools/verdaccio/node_modules/verdaccio/bin/verdaccio" ]; then
  mkdir -p "$tools/verdaccio"
  printf '%s\n' '{"name": "nub-test-verdaccio", "private": true,' \
    ' "dependencies": {"verdaccio": "6.8.0"}, "overrides": {"node-fetch": "2.7.0"}}' \
    >"$tools/verdaccio/package.json"
  (cd "$tools/verdaccio" && npm install --no-audit --no-fund >"$tools.verdaccio.log" 2>&1) ||
    { echo "test: verdaccio could not be installed; e2e.verdaccio is skipped:"; tail -3 "$tools.verdaccio.log"; }
fi
export PATH="$tools/pnpm/bin:$tools/npm/bin:$tools/yarn/bin:$tools/bun/bin:$PATH"
[ -f "$tools/berry/bin/yarn" ] && export NUB_BERRY="$tools/berry/bin/yarn"
[ -f "$tools/verdaccio/node_modules/verdaccio/bin/verdaccio" ] &&
  export NUB_VERDACCIO="$tools/verdaccio/node_modules/verdaccio/bin/verdaccio"

(cd build && ctest --output-on-failure -j"$jobs")

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
