#!/usr/bin/env bash
# Mount a fresh ext4 file system with a journal (mkfs defaults, what a
# workstation has) on a loop device, for benchmarks whose runs delete and
# recreate tens of thousands of files.
#
# Why: on ext4 *without* a journal, each inode allocation skips over every
# inode of its group freed within the last one to six minutes, reading each
# one's inode-table block (fs/ext4/ialloc.c, recently_deleted). A run that
# follows `rm -rf` of a 40,000-file store then spends seconds of system time
# in that scan, and how much depends on which tool deleted what before it.
# Some CI disks are made that way. A journaled file system measures the
# tools, not the previous run.
#
# Size: the image is sparse, so SIZE costs only what is written, but mkfs
# sizes the journal from it: 64 MiB at 8-16 GiB, 1 GiB from 128 GiB up (what
# a workstation disk gets). A cold install of the large fixture writes more
# metadata than a 64 MiB journal holds, and every tool then waits on journal
# checkpoints (nub: 0.22 s of its link phase); the default is a workstation's.
#
# usage: ci/bench-fs.sh DIR [SIZE]   (root; default SIZE 256G; image DIR.img)
#        then e.g. BENCH_DIR=DIR/iso ci/bench-isolated.sh large
#        umount DIR && rm DIR.img   when done
set -euo pipefail
dir=${1:?usage: ci/bench-fs.sh DIR [SIZE]}
size=${2:-256G}
[ "$(id -u)" = 0 ] || { echo "bench-fs: needs root (mount)" >&2; exit 1; }
if mountpoint -q "$dir"; then
  echo "bench-fs: $dir is already a mount point" >&2
  exit 1
fi
img="${dir%/}.img"
truncate -s "$size" "$img"
mkfs.ext4 -q -F "$img"
mkdir -p "$dir"
mount -o loop "$img" "$dir"
echo "bench-fs: $(findmnt -no SOURCE,FSTYPE,OPTIONS "$dir") on $dir"
