#!/usr/bin/env bash
# Install what nub needs to build and test, idempotently: the C toolchain,
# CMake, libcurl, libdeflate, zlib, cJSON, mimalloc, OpenSSL, libyaml, cmocka, and
# for the tests Python 3, Node.js/npm, xfsprogs and the openssl tool (TLS
# tests), clang (its libFuzzer, for ci/fuzz.sh), chromium (renders the diag
# report headless); for the benchmarks hyperfine and GNU time. Debian/Ubuntu use apt-get,
# macOS Homebrew. Safe to run again: it installs only what is missing.
set -euo pipefail

log() { printf 'bootstrap: %s\n' "$*"; }

if [ "$(uname -s)" = "Darwin" ]; then
  if ! command -v brew >/dev/null 2>&1; then
    echo "bootstrap: Homebrew is required on macOS (https://brew.sh)" >&2
    exit 1
  fi
  want=(cmake pkg-config curl libdeflate cjson mimalloc openssl@3 libyaml cmocka node python@3 hyperfine)
  missing=()
  for f in "${want[@]}"; do
    brew list --formula "$f" >/dev/null 2>&1 || missing+=("$f")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "brew install ${missing[*]}"
    HOMEBREW_NO_AUTO_UPDATE=1 brew install "${missing[@]}"
  fi
  log "macOS dependencies present"
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

pkgs=(build-essential cmake pkg-config libcurl4-openssl-dev libdeflate-dev zlib1g-dev libcjson-dev
      libmimalloc-dev libssl-dev libyaml-dev libcmocka-dev python3 xfsprogs hyperfine curl
      openssl time clang)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js runs the tests' require() checks and lifecycle scripts; npm gives the
# build its default registry. Keep an existing installation (nvm, NodeSource).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ "${#missing[@]}" -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# libFuzzer's runtime is a package of its own, which clang only recommends
if command -v clang >/dev/null 2>&1; then
  v=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
  rt=libclang-rt-$v-dev
  if [ -n "$v" ] && ! dpkg-query -W -f='${Status}' "$rt" 2>/dev/null | grep -q "install ok installed" &&
     apt-cache show "$rt" >/dev/null 2>&1; then
    log "apt-get install $rt"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y -qq --no-install-recommends "$rt"
  fi
fi
# chromium renders the diag report in e2e.diag; Ubuntu packages it as a snap
# only, so it is optional (the test says it skipped)
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 &&
   apt-cache show chromium >/dev/null 2>&1; then
  log "apt-get install chromium"
  $sudo apt-get install -y -qq --no-install-recommends chromium ||
    log "chromium could not be installed; the report's rendering test is skipped"
fi
log "Debian/Ubuntu dependencies present"
