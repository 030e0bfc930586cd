#!/usr/bin/env bash
# The strategy tallies of several platforms against each other with
# `nub diag diff`: for every fixture and layout, each platform's run (B)
# against the first one's (A), as ratios and a verdict line, in Markdown.
#
# usage: ci/tally-diff.sh DIR [path/to/nub]   (DIR: the runs TALLY_KEEP kept,
#        <platform>-<fs>-<fixture>-<layout>.jsonl, gathered from every job)
set -euo pipefail
dir=$1
nub=${2:-$(cd "$(dirname "$0")/.." && pwd)/build/core/nub}
shopt -s nullglob
declare -A first
# Linux ext4 first: it is the A of every comparison
for f in $( (ls "$dir"/Linux-ext*.jsonl 2>/dev/null; ls "$dir"/*.jsonl | grep -v '/Linux-ext') | sort -s -k1,1 -t/ | awk '!seen[$0]++'); do
  base=$(basename "$f" .jsonl)
  key=$(echo "$base" | awk -F- '{print $(NF-1)"-"$NF}')   # fixture-layout
  if [ -z "${first[$key]:-}" ]; then first[$key]=$f; continue; fi
  a=${first[$key]}
  echo "### $(basename "$a" .jsonl) -> $base"
  echo '```'
  "$nub" diag diff "$a" "$f"
  echo '```'
done
