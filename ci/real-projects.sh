#!/usr/bin/env bash
# Real projects' own lockfiles (tests/fixtures/real-projects): each
# incumbent's frozen install against nub's from the same files, path by path,
# then nub again offline from its store (node_modules removed), and one table
# (ci/real_projects.py says how). Installs the incumbents at
# their versions first (ci/tools.sh) and needs a built nub (ci/build.sh).
#
# usage: ci/real-projects.sh [--keep DIR] [--only SUBSTR] [project-dir...]
# env:   NUB_BIN  the nub to try (default: build/core/nub)
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash ci/tools.sh)"
exec python3 ci/real_projects.py --offline-check --nub "${NUB_BIN:-build/core/nub}" "$@"
