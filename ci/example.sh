#!/usr/bin/env bash
# The README's first command: install what building and running nub needs,
# build nub alone (no tests: build-example), and let it install the example
# project (examples/hello) from the registry your npm configuration names,
# then run it with node.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh
bash ci/build.sh build-example -DNUB_TESTS=OFF
./build-example/core/nub install -C examples/hello
if command -v node >/dev/null 2>&1; then
  node examples/hello/index.js
fi
echo "example: nub is build-example/core/nub (cmake --install build-example --prefix ~/.local puts it on your PATH)"
