#!/usr/bin/env bash
# Fuzz every parser for a bounded time: the libFuzzer harnesses of
# tests/fuzz, built with clang under ASan+UBSan (build-fuzz), each seeded
# with the real files of tests/fixtures and ci/bench/fixtures (lockfiles of
# every format, package.json, .npmrc, the test registry's tarballs,
# hostile ones included) plus its crash regressions (tests/fuzz/regress/<h>),
# which run first. A crash, leak, hang (-timeout) or sanitizer report
# fails the script and leaves the input under build-fuzz/artifacts.
#
# usage: ci/fuzz.sh [harness...]       (default: all)
# env:   FUZZ_SECONDS (60 per harness), FUZZ_JOBS (harnesses at once: the
#        number of CPUs), CC (clang)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
cc=${CC:-clang}
command -v "$cc" >/dev/null || { echo "fuzz: $cc is missing (Debian: apt-get install clang)" >&2; exit 1; }
all=(json lockfile_npm lockfile_pnpm lockfile_yarn lockfile_berry npmrc bunfig semver index tarball packument spec name workspace_yaml yarnrc patchfile npm_edit)
harnesses=("$@"); [ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")

out=$root/build-fuzz
# the logs stay in the build directory (ignored), never beside the sources
mkdir -p "$out"
CC=$cc cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUB_FUZZ=ON -DNUB_TESTS=OFF \
  >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; exit 1; }
cmake --build "$out" -j"$jobs" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }

# ---- seeds: real files, copied (or transformed) into a fresh corpus -------
corpus=$out/corpus
rm -rf "$corpus" "$out/artifacts" "$out/logs"
mkdir -p "$out/artifacts" "$out/logs"
for h in "${all[@]}"; do mkdir -p "$corpus/$h"; done
n=0
seed() { # harness file [prefix-byte]
  n=$((n + 1))
  if [ $# -ge 3 ]; then
    { printf "$3"; cat "$2"; } >"$corpus/$1/s$n"
  else
    cp "$2" "$corpus/$1/s$n"
  fi
}
while IFS= read -r f; do
  case $f in
    */package-lock*.json|*/npm-shrinkwrap.json) seed lockfile_npm "$f" '\000'; seed json "$f"
      if [ "$(wc -c <"$f")" -lt 200000 ]; then seed npm_edit "$f" '\000'; fi ;;
    */bun.lock) seed lockfile_npm "$f" '\001'; seed json "$f"; seed npm_edit "$f" '\002' ;;
    */yarn.lock) seed lockfile_yarn "$f"; seed lockfile_berry "$f" ;;
    */yarn-berry.lock) seed lockfile_berry "$f" ;;
    */pnpm-workspace.yaml) seed lockfile_pnpm "$f"; seed workspace_yaml "$f" '\000' ;;
    */.yarnrc.yml) seed yarnrc "$f" ;;
    */pnpm-lock.yaml|*/nub.lock|*/lockfiles/*.yaml) seed lockfile_pnpm "$f" ;;
    */package.json) seed json "$f" ;;
    */.npmrc|*/npmrc) seed npmrc "$f" ;;
    *.patch) seed patchfile "$f" ;;
  esac
done < <(find tests/fixtures ci/bench/fixtures -type f \( -name 'package-lock*.json' -o \
           -name npm-shrinkwrap.json -o -name bun.lock -o -name yarn.lock -o -name yarn-berry.lock -o -name '*.yaml' -o \
           -name nub.lock -o -name package.json -o -name .npmrc -o -name npmrc -o -name .yarnrc.yml -o \
           -name '*.patch' \) | sort)
printf 'registry=http://127.0.0.1:4873/\n@s:registry=https://r.invalid/x/\n//r.invalid/x/:_authToken=${TOKEN}\nstrict-ssl=false\nfetch-retries=3\n' \
  >"$corpus/npmrc/synthetic"
printf '[install]\nregistry = "http://127.0.0.1:4873/"\nminimumReleaseAge = 259200\nminimumReleaseAgeExcludes = [\n  "@types/node", # why\n  '"'"'x'"'"',\n]\n[install.scopes]\na = { token = "t" }\n' \
  >"$corpus/bunfig/synthetic"
printf '\001packages:\n  - packages/*\ncatalog:\n  a: ^1.0.0\nallowBuilds:\n  esbuild: true\npeerDependencyRules:\n  ignoreMissing: ["@babel/*"]\n  allowedVersions:\n    a@1>b: "2"\npackageExtensions:\n  foo@1:\n    dependencies:\n      bar: ^1.0.0\n    peerDependenciesMeta:\n      baz:\n        optional: true\nminimumReleaseAgee: 5\n' \
  >"$corpus/workspace_yaml/synthetic"
printf 'nodeLinker: node-modules\nnpmRegistryServer: "http://127.0.0.1:4873"\nnpmScopes:\n  s:\n    npmRegistryServer: "http://r.invalid"\npackageExtensions:\n  "a@*":\n    dependencies:\n      b: ^1.0.0\nenableScripts: false\nnpmMinimalAgeGatee: 3\n' \
  >"$corpus/yarnrc/synthetic"
printf '\001{\n  "lockfileVersion": 3,\n  "packages": {\n    "": {\n<<<<<<< HEAD\n      "dependencies": {"a": "^1.0.0"}\n=======\n      "dependencies": {"b": "^1.0.0"}\n>>>>>>> other\n    },\n    "node_modules/a": {"version": "1.0.0"}\n  }\n}\n' \
  >"$corpus/npm_edit/conflicted"
printf 'a\nb\nc\n\000diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+B\n c\ndiff --git a/n b/n\nnew file mode 100755\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n' \
  >"$corpus/patchfile/synthetic"
i=0
for pair in '^1.2.3|1.4.0' '~1.2|1.2.9' '>=1.0.0 <2.0.0-0|1.5.0-beta.1' '1.x || >=2.5.0|2.6.0' \
            '*|0.0.0' '1.2.3 - 2.3.4|2.3.4' 'latest|1.0.0' '^0.0.1|0.0.2' '>1.2.3-alpha.1|1.2.3' \
            '=v1.2.3|v1.2.3+build.5' '<=1.2 >=1.0.0-rc.1|1.0.0-rc.2'; do
  i=$((i + 1)); printf '%s\n%s' "${pair%%|*}" "${pair#*|}" >"$corpus/semver/s$i"
done
python3 - "$corpus" <<'PY'
import json, os, struct, sys
sys.path.insert(0, "tests/registry")
import registry
corpus = sys.argv[1]
# tarballs as the test registry serves them, hostile fixtures included
for name, versions in registry.load_fixtures(registry.DEFAULT_FIXTURES).items():
    for v, pv in versions.items():
        with open(os.path.join(corpus, "tarball", "%s@%s.tgz" % (name.replace("/", "+"), v)), "wb") as f:
            f.write(pv.tgz)
    # its documents, full and abbreviated, as the test registry serves them
    full = registry.full_packument(name, versions, "http://registry.invalid/")
    for kind, doc in (("full", full), ("abbrev", registry.abbreviated_packument(full))):
        with open(os.path.join(corpus, "packument", "%s-%s.json" % (name.replace("/", "+"), kind)), "w") as f:
            json.dump(doc, f)
# specs: git specs and resolved forms, SRI strings, URLs with credentials,
# override keys' ranges
specs = ["git+https://h.invalid/u/r.git#v1.0.0\n*", "github:user/repo#semver:^1.2\n^1",
         "user/repo\n>=1 <2", "git+ssh://git@h.invalid:u/r.git#abc1234\n1.x",
         "git+file:///tmp/r#" + "a" * 40 + "\n*", "git-checkout+https://h.invalid/r#" + "b" * 40,
         "sha512-" + "A" * 86 + "==\n^2.0.0", "sha1-abc= sha512-xyz\n~1.2.3",
         "https://user:pass@h.invalid:8080/x/-/x-1.0.0.tgz\n<=3", "http://[::1]:4873/p\n1.2.3 - 2",
         "^1.2.3\n>=1.5.0 <1.6.0-0", ">1.0.0 <=2.0.0 || 3.x\n2.0.1-rc.1"]
for i, s in enumerate(specs):
    with open(os.path.join(corpus, "spec", "s%d" % i), "w") as f:
        f.write(s)
# names: every fixture package's, and keys an attacker would use
names = list(registry.load_fixtures(registry.DEFAULT_FIXTURES)) + [
    "../.git/hooks", "..", ".", ".bin", ".nub-state", "node_modules", "/etc/x", "a/../../b",
    "@s/..", "@s/../x", "x\\y", "@s/node_modules", "@.s/x", "_x", "@s/_x", "a" * 215]
for i, s in enumerate(names):
    with open(os.path.join(corpus, "name", "s%d" % i), "w") as f:
        f.write(s)
# store indexes in the layout of core/index.h (NUBIDX4)
def index(files, dirs, bins, name, version, flags=0, tree=None):
    st = bytearray()
    def add(s):
        off = len(st); st.extend(s.encode() + b"\0"); return off
    n_off, v_off = add(name), add(version)
    t_off = add(tree) if tree else 0
    os_off, cpu_off, libc_off, ph_off = add(""), add("linux"), add(""), add("debug,ms")
    recs = b"".join(bytes(32) + struct.pack("<QII", size, add(p), mode) for p, size, mode in files)
    ds = b"".join(struct.pack("<I", add(d)) for d in dirs)
    bs = b"".join(struct.pack("<II", add(a), add(b)) for a, b in bins)
    hdr = b"NUBIDX4\0" + struct.pack("<4I8IQ", len(files), len(dirs), len(bins), flags | (4 if tree else 0),
                                     len(st), n_off, v_off, os_off, cpu_off, libc_off, ph_off, t_off, 1234)
    return hdr + recs + ds + bs + bytes(st)
seeds = [
    index([("package.json", 120, 0o644), ("lib/index.js", 5000, 0o644), ("bin/cli.js", 300, 0o755)],
          ["bin", "lib"], [("cli", "bin/cli.js")], "pkg", "1.2.3", flags=1),
    index([("package.json", 80, 0o644)], [], [], "@s/x", "0.0.1-rc.1", tree="packages/k/node_modules/@s/x"),
    index([], [], [], "", ""),
]
for i, b in enumerate(seeds):
    with open(os.path.join(corpus, "index", "s%d" % i), "wb") as f:
        f.write(b)
PY

# ---- run: FUZZ_JOBS harnesses at a time -----------------------------------
run_one() { # harness
  local h=$1 dirs=("$corpus/$1") lim=() rc=0
  [ -d "tests/fuzz/regress/$h" ] && dirs+=("tests/fuzz/regress/$h")
  case $h in lockfile_*|json|packument) lim=(-max_len=131072) ;; tarball) lim=(-max_len=131072) ;; esac
  "$out/tests/fuzz/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2560 \
    -print_final_stats=1 "${lim[@]}" -artifact_prefix="$out/artifacts/$h-" "${dirs[@]}" \
    >"$out/logs/$h.log" 2>&1 || rc=$?
  echo "$rc" >"$out/logs/$h.rc"
}
running=0
for h in "${harnesses[@]}"; do
  run_one "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

fail=0
printf '%-16s %12s %10s %8s  %s\n' harness executions exec/s corpus result
for h in "${harnesses[@]}"; do
  log=$out/logs/$h.log rc=$(cat "$out/logs/$h.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  ncorp=$(ls "$corpus/$h" | wc -l)
  if [ "$rc" = 0 ]; then res=ok; else res="FAILED (exit $rc; see $log)"; fail=1; fi
  printf '%-16s %12s %10s %8s  %s\n' "$h" "${execs:-?}" "${rate:-?}" "$ncorp" "$res"
done
if [ "$fail" != 0 ]; then
  for h in "${harnesses[@]}"; do
    [ "$(cat "$out/logs/$h.rc")" = 0 ] || { echo "--- $h"; grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written" "$out/logs/$h.log" | head -20; }
  done
  echo "fuzz: a harness failed; the input is in $out/artifacts" >&2
  exit 1
fi
echo "fuzz: ${#harnesses[@]} harnesses, ${secs} s each, no crash"
