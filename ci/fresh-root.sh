#!/usr/bin/env bash
# The README's two commands on a fresh Debian, as a new user runs them: a
# minimal root made by debootstrap (nothing but the base system, and a
# registry line in /root/.npmrc, as a user of npm has), a clean copy of
# this checkout's committed tree in it, then `bash ci/example.sh` and
# `bash ci/test.sh` inside, each timed. Needs root and debootstrap
# (apt-get install debootstrap).
#
# usage: ci/fresh-root.sh [suite...]     (default: bookworm trixie)
# env:   FRESH_ROOT_DIR  where the roots go (default: build/roots)
#        FRESH_MIRROR    the Debian mirror (default: the one apt uses here)
#        FRESH_ONLY=example  run the first command only
#        FRESH_KEEP=1    keep each root afterwards (default: removed)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "fresh-root: run as root (debootstrap, chroot, mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "fresh-root: install debootstrap first" >&2; exit 1; }
suites=("$@"); [ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie)
base=${FRESH_ROOT_DIR:-$PWD/build/roots}
mirror=${FRESH_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)}
mirror=${mirror:-http://deb.debian.org/debian}
registry=$(npm config get registry 2>/dev/null || true)
mkdir -p "$base"
status=0

for suite in "${suites[@]}"; do
  root=$base/$suite
  log=$base/$suite.log
  echo "fresh-root: $suite: debootstrap into $root (log: $log)"
  rm -rf "$root"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$log" 2>&1 ||
    { echo "fresh-root: debootstrap $suite failed:"; tail -5 "$log"; status=1; continue; }
  # the checkout as committed, nothing this machine built
  mkdir -p "$root/root/nub"
  git archive HEAD | tar -x -C "$root/root/nub"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # A network that inspects TLS has its own CA, which every machine on it
  # trusts; the root gets it too (installed with ca-certificates by the
  # bootstrap), and Node.js is told of it as the host's is.
  if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  fi
  [ -n "$registry" ] && printf 'registry=%s\n' "$registry" >"$root/root/.npmrc"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  cleanup() {
    umount -R "$root/dev" 2>/dev/null || true
    umount -R "$root/sys" 2>/dev/null || true
    umount "$root/proc" 2>/dev/null || true
  }
  trap cleanup EXIT
  for cmd in example test; do
    [ "$cmd" = test ] && [ "${FRESH_ONLY:-}" = example ] && continue
    start=$(date +%s)
    extra=()
    [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && extra+=(NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
    if chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
         TERM=dumb LANG=C.UTF-8 "${extra[@]}" /bin/bash -c "cd /root/nub && bash ci/$cmd.sh" \
         >"$base/$suite.$cmd.log" 2>&1; then
      echo "fresh-root: $suite: bash ci/$cmd.sh passed in $(( $(date +%s) - start )) s"
    else
      echo "fresh-root: $suite: bash ci/$cmd.sh FAILED after $(( $(date +%s) - start )) s; its last lines:"
      tail -20 "$base/$suite.$cmd.log"
      status=1
      break
    fi
  done
  cleanup
  trap - EXIT
  [ "${FRESH_KEEP:-0}" = 1 ] || rm -rf "$root"
done
exit $status
