#!/usr/bin/env bash
# The programs the tests compare nub with, each at the version the
# fixtures were recorded with, under build/tools (never the system's):
# Node.js 22 or newer (the system's when it is that new, else the
# registry's node-<os>-<arch> package), npm 11 (from its own tarball),
# npm 12 (its patches and lockfileVersion 4), pnpm 12.23.0, yarn 1, bun
# 1.4.5, yarn berry 4.18.1, the Rust nub 0.9.2 and
# Verdaccio 6.8.0.
# Idempotent: what is there at the right version stays. A tool that cannot
# be installed stops the run with its own error lines.
#
# Prints the environment the tests need as shell lines (test.sh evals
# them); everything else goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=$PWD/build/tools
path0=$PATH
mkdir -p "$tools"
say() { printf 'tools: %s\n' "$*" >&2; }
fail() { # what, log
  printf 'tools: %s could not be installed; its log (%s) ends:\n' "$1" "$2" >&2
  { grep -E '^npm (error|ERR!)' "$2" | head -20 || true; } >&2
  grep -qE '^npm (error|ERR!)' "$2" || tail -20 "$2" >&2
  exit 1
}
major() { "$@" --version 2>/dev/null | sed -E 's/^v//; s/\..*//'; }

# ---- Node.js 22+ ------------------------------------------------------------
node_bin=
if command -v node >/dev/null && [ "$(major node)" -ge 22 ] 2>/dev/null; then
  node_bin=$(dirname "$(command -v node)")
else
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os=unknown ;; esac
  case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) arch=unknown ;; esac
  if [ ! -x "$tools/node/bin/node" ] || [ "$(major "$tools/node/bin/node")" -lt 22 ]; then
    say "node $(major node 2>/dev/null || echo none) is older than 22: fetching node-$os-$arch@22"
    python3 ci/fetch-pkg.py "node-$os-$arch" 22 "$tools/node" >"$tools/node.log" 2>&1 ||
      fail "node-$os-$arch@22" "$tools/node.log"
  fi
  node_bin=$tools/node/bin
fi
export PATH="$node_bin:$PATH"

# ---- npm 11, from its own tarball --------------------------------------------
if [ ! -x "$tools/npm/bin/npm" ] || [ "$(major "$tools/npm/bin/npm")" != 11 ]; then
  say "fetching npm@11"
  rm -rf "$tools/npm"
  mkdir -p "$tools/npm/lib/node_modules" "$tools/npm/bin"
  python3 ci/fetch-pkg.py npm 11 "$tools/npm/lib/node_modules/npm" >"$tools/npm.log" 2>&1 ||
    fail npm@11 "$tools/npm.log"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tools/npm/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tools/npm/bin/npx"
fi
export PATH="$tools/npm/bin:$PATH"

# ---- the peers ---------------------------------------------------------------
# each at its version: one installed at another is replaced
for t in "pnpm pnpm@12.23.0 pnpm 12.23.0" "yarn yarn@1 yarn 1." "bun bun@1.4.5 bun 1.4.5" \
         "berry @yarnpkg/cli-dist@4.18.1 yarn 4.18.1" "npm12 npm@12.2.3 npm 12.2.3"; do
  set -- $t
  have=$("$tools/$1/bin/$3" --version 2>/dev/null || true)
  case "$have" in "$4"*) continue ;; esac
  say "installing $2"
  rm -rf "${tools:?}/$1"
  npm i -g --prefix "$tools/$1" "$2" --no-audit --no-fund >"$tools/$1.log" 2>&1 ||
    fail "$2" "$tools/$1.log"
done
# the Rust nub (e2e.rnub_interop), under a prefix of its own so that its
# `nub` never shadows ours
have=$("$tools/rnub/bin/nub" --version 2>/dev/null || true)
if [ "$have" != v0.9.2 ]; then
  say "installing @nubjs/nub@0.9.2"
  rm -rf "$tools/rnub"
  npm i -g --prefix "$tools/rnub" @nubjs/nub@0.9.2 --no-audit --no-fund >"$tools/rnub.log" 2>&1 ||
    fail @nubjs/nub@0.9.2 "$tools/rnub.log"
fi
# Verdaccio, the registry server of e2e.verdaccio: 6.8.0 with node-fetch
# held at 2.7.0
if [ ! -f "$tools/verdaccio/node_modules/verdaccio/bin/verdaccio" ]; then
  say "installing verdaccio@6.8.0"
  mkdir -p "$tools/verdaccio"
  printf '%s\n' '{"name": "nub-test-verdaccio", "private": true,' \
    ' "dependencies": {"verdaccio": "6.8.0"}, "overrides": {"node-fetch": "2.7.0"}}' \
    >"$tools/verdaccio/package.json"
  (cd "$tools/verdaccio" && npm install --no-audit --no-fund >"$tools/verdaccio.log" 2>&1) ||
    fail verdaccio@6.8.0 "$tools/verdaccio.log"
fi

# ---- for the tests -------------------------------------------------------------
printf 'export PATH=%q\n' "$tools/pnpm/bin:$tools/npm/bin:$tools/yarn/bin:$tools/bun/bin:$node_bin:$path0"
printf 'export NUB_BERRY=%q\n' "$tools/berry/bin/yarn"
printf 'export NUB_NPM12=%q\n' "$tools/npm12/bin/npm"
printf 'export RUST_NUB=%q\n' "$tools/rnub/bin/nub"
printf 'export NUB_VERDACCIO=%q\n' "$tools/verdaccio/node_modules/verdaccio/bin/verdaccio"
say "node $(node --version), npm $(npm --version), pnpm $("$tools/pnpm/bin/pnpm" --version)," \
    "yarn $("$tools/yarn/bin/yarn" --version), bun $("$tools/bun/bin/bun" --version)," \
    "berry $("$tools/berry/bin/yarn" --version)"
