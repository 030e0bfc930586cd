#!/usr/bin/env bash
# The README's first command: set up, build, and let nub do its job on the
# example project (examples/hello), then run it with node.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh
bash ci/build.sh build
./build/core/nub install -C examples/hello
if command -v node >/dev/null 2>&1; then
  node examples/hello/index.js
fi
