#!/usr/bin/env bash
# xfs-test.sh - run tests on a real reflink file system (the platform contract
# test, the diag tally of --package-import-method clone).
#
#   ci/xfs-test.sh [test_plat [more test binaries...]]
#
# Makes a 512 MiB sparse image, mkfs.xfs -m reflink=1, loop-mounts it and runs
# each binary (default build/tests/test_plat) with NUB_TEST_DIR on the mount,
# NUB_TEST_EXPECT_REFLINK=1 (reflink must succeed and share extents) and
# NUB_TEST_EXPECT_FSTYPE=xfs (proves the test really worked on the mount).
# The mount, loop device and image go away on any exit. Where this cannot run
# (not root, not Linux, no tools, no loop device, no XFS in the kernel) it
# prints "SKIP: <reason>" and exits 0.
set -euo pipefail

skip() {
  echo "SKIP: $*"
  exit 0
}

if [ "$#" -eq 0 ]; then
  set -- build/tests/test_plat
fi
for bin in "$@"; do
  [ -x "$bin" ] || { echo "xfs-test: no test binary at $bin" >&2; exit 2; }
done

[ "$(uname -s)" = Linux ] || skip "not Linux ($(uname -s))"
[ "$(id -u)" -eq 0 ] || skip "needs root for mkfs and loop mounts"
for tool in mkfs.xfs losetup mount umount; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed"
done
[ -e /dev/loop-control ] || skip "no /dev/loop-control (loop devices unavailable)"
if ! grep -qw xfs /proc/filesystems; then
  modprobe xfs >/dev/null 2>&1 || true
  grep -qw xfs /proc/filesystems || skip "kernel has no XFS support"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nub-xfs.XXXXXX")
loopdev=""
mounted=""
cleanup() {
  local rc=$?
  set +e
  if [ -n "$mounted" ]; then
    umount "$work/mnt" || umount -l "$work/mnt"
  fi
  if [ -n "$loopdev" ]; then
    losetup -d "$loopdev"
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

truncate -s 512M "$work/xfs.img"
mkfs.xfs -q -m reflink=1 "$work/xfs.img"
mkdir "$work/mnt"
loopdev=$(losetup --find --show "$work/xfs.img") ||
  skip "no free loop device"
mount -t xfs "$loopdev" "$work/mnt"
mounted=1
echo "xfs-test: $work/xfs.img on $loopdev mounted at $work/mnt (reflink=1)"

for bin in "$@"; do
  dir="$work/mnt/$(basename "$bin")"
  mkdir "$dir"
  echo "xfs-test: running $bin in $dir"
  NUB_TEST_DIR="$dir" NUB_TEST_EXPECT_REFLINK=1 NUB_TEST_EXPECT_FSTYPE=xfs \
    "$bin"
  # The test cleans up after itself; anything left is a leak.
  if [ -n "$(ls -A "$dir")" ]; then
    echo "xfs-test: $bin left files behind:" >&2
    ls -lAR "$dir" >&2
    exit 1
  fi
done
echo "xfs-test: all passed on xfs"
