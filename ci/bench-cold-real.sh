#!/usr/bin/env bash
# Cold installs of a real project's own lockfile (tests/fixtures/real-projects),
# nub against its peers, rotated order, every store and cache emptied each
# round, each run timed by GNU time: wall, user, system, peak RSS, exit code.
# A run that does not exit 0 is printed as such and fails the script.
#
# usage: ci/bench-cold-real.sh PROJECT [ROUNDS]     (PROJECT: a corpus dir name)
# env:   BENCH_DIR (default build/bench-real; a journaled ext4: ci/bench-fs.sh),
#        TOOLS ("nub bun": any of nub, bun, pnpm, npm), NUB_BIN (build/core/nub),
#        NUB_BIN2 (a second nub, as tool "nub2": an A/B of two builds)
# needs: the peers of ci/tools.sh on PATH; the registry npm's configuration names.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
proj=${1:?usage: ci/bench-cold-real.sh PROJECT [ROUNDS]}
rounds=${2:-3}
src=$root/tests/fixtures/real-projects/$proj
[ -d "$src" ] || { echo "bench-cold-real: no project $proj under tests/fixtures/real-projects" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-cold-real: needs GNU time (Debian: apt-get install time)" >&2; exit 2; }
dir=${BENCH_DIR:-$root/build/bench-real}
nub=${NUB_BIN:-$root/build/core/nub}
read -r -a tools <<<"${TOOLS:-nub bun}"
reg=$(npm config get registry 2>/dev/null)
reg=${reg%/}
mkdir -p "$dir"
echo "bench-cold-real: $proj, $rounds rounds, $(getconf _NPROCESSORS_ONLN) cpus, fs $(stat -f -c %T "$dir")"
printf '%-6s %-5s %4s %8s %8s %8s %8s\n' round tool exit wall user sys rss_MB
fail=0
for r in $(seq 1 "$rounds"); do
  for t in "${tools[@]}"; do
    p=$dir/p-$t st=$dir/store-$t ca=$dir/cache-$t
    rm -rf "$p" "$st" "$ca"
    cp -r "$src" "$p"
    grep -rl '@@REGISTRY@@' "$p" | xargs -r sed -i "s|@@REGISTRY@@|$reg|g"
    lock=frozen
    case $t in
      nub) cmd=(env NUB_STORE_DIR="$st" NUB_CACHE_DIR="$ca" "$nub" install --frozen-lockfile --ignore-scripts) ;;
      nub2) cmd=(env NUB_STORE_DIR="$st" NUB_CACHE_DIR="$ca" "${NUB_BIN2:?}" install --frozen-lockfile --ignore-scripts) ;;
      bun) cmd=(env BUN_INSTALL_CACHE_DIR="$ca" bun install --frozen-lockfile --ignore-scripts) ;;
      pnpm) cmd=(pnpm install --frozen-lockfile --ignore-scripts --store-dir "$st" --cache-dir "$ca") ;;
      npm) cmd=(npm ci --ignore-scripts --cache "$ca") ;;
      *) echo "bench-cold-real: unknown tool $t" >&2; exit 2 ;;
    esac
    sync
    (cd "$p" && /usr/bin/time -f '%x %e %U %S %M' -o "$dir/time-$t" "${cmd[@]}" >"$dir/log-$t" 2>&1) || true
    read -r x e u s m <"$dir/time-$t"
    printf '%-6s %-5s %4s %8s %8s %8s %8s\n' "$r" "$t" "$x" "$e" "$u" "$s" "$((m / 1024))"
    [ "$x" = 0 ] || { fail=1; tail -3 "$dir/log-$t" >&2; }
  done
  tools=("${tools[@]:1}" "${tools[0]}") # the next round starts with the next tool
done
rm -rf "$dir"/p-* "$dir"/store-* "$dir"/cache-*
exit $fail
