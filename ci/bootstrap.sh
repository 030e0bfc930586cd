#!/usr/bin/env bash
# Install the system packages nub needs, idempotently (only what is missing).
#
#   ci/bootstrap.sh            to build nub and run it: the C toolchain,
#                              CMake, pkg-config, libcurl, libdeflate, zlib,
#                              cJSON, mimalloc, OpenSSL, libyaml, the CA
#                              certificates, and Node.js to run the example
#   ci/bootstrap.sh --test     and to test it: cmocka, Python 3, git, the
#                              openssl tool (TLS tests), xfsprogs, GNU time,
#                              tmux (the terminal's progress line),
#                              clang with libFuzzer (ci/fuzz.sh), chromium
#                              (renders the diag report; optional)
#   ci/bootstrap.sh --bench    and to benchmark it: hyperfine
#
# The Node.js and npm the tests compare with come from the registry, at
# the versions they need (ci/tools.sh), not from here. Debian/Ubuntu use
# apt-get, macOS Homebrew.
set -euo pipefail

profile=build
case "${1:-}" in
  --test) profile=test ;;
  --bench) profile=bench ;;
  "") ;;
  *) echo "usage: ci/bootstrap.sh [--test|--bench]" >&2; exit 2 ;;
esac
log() { printf 'bootstrap: %s\n' "$*"; }

if [ "$(uname -s)" = "Darwin" ]; then
  if ! command -v brew >/dev/null 2>&1; then
    echo "bootstrap: Homebrew is required on macOS (https://brew.sh)" >&2
    exit 1
  fi
  want=(cmake pkg-config curl libdeflate cjson mimalloc openssl@3 libyaml node)
  [ "$profile" = build ] || want+=(cmocka python@3 tmux)
  [ "$profile" = bench ] && want+=(hyperfine)
  missing=()
  for f in "${want[@]}"; do
    brew list --formula "$f" >/dev/null 2>&1 || missing+=("$f")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "brew install ${missing[*]}"
    HOMEBREW_NO_AUTO_UPDATE=1 brew install "${missing[@]}"
  fi
  log "macOS dependencies present ($profile)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: only Debian/Ubuntu (apt-get) and macOS (Homebrew) are set up here;" >&2
  echo "bootstrap: install CMake, pkg-config, libcurl, libdeflate, zlib, cJSON, mimalloc, OpenSSL, libyaml and cmocka by hand" >&2
  exit 1
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive

pkgs=(build-essential cmake pkg-config libcurl4-openssl-dev libdeflate-dev zlib1g-dev libcjson-dev
      libmimalloc-dev libssl-dev libyaml-dev ca-certificates)
if [ "$profile" != build ]; then
  pkgs+=(libcmocka-dev python3 git openssl xfsprogs time curl clang tmux)
fi
[ "$profile" = bench ] && pkgs+=(hyperfine)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js runs the example (and, at whatever version, nothing else: the
# tests bring their own). Keep an existing installation (nvm, NodeSource).
command -v node >/dev/null 2>&1 || missing+=(nodejs)

if [ "${#missing[@]}" -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ "$profile" = build ] && { log "Debian/Ubuntu dependencies present (build)"; exit 0; }

# libFuzzer's runtime is a package of its own, which clang only recommends
v=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
rt=libclang-rt-$v-dev
if [ -n "$v" ] && ! dpkg-query -W -f='${Status}' "$rt" 2>/dev/null | grep -q "install ok installed" &&
   apt-cache show "$rt" >/dev/null 2>&1; then
  log "apt-get install $rt"
  $sudo apt-get install -y -qq --no-install-recommends "$rt"
fi
# chromium renders the diag report in e2e.diag; Ubuntu packages it as a snap
# only, so it is optional (the test says it skipped)
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 &&
   apt-cache show chromium >/dev/null 2>&1; then
  log "apt-get install chromium"
  $sudo apt-get install -y -qq --no-install-recommends chromium ||
    log "chromium could not be installed; the report's rendering test is skipped"
fi
log "Debian/Ubuntu dependencies present ($profile)"
