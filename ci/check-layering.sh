#!/usr/bin/env bash
# The layering rules of DESIGN.md, checked mechanically:
#  1. no OS conditional outside platform/;
#  2. core/ and diag/ never call the OS file primitives platform/ wraps;
#  3. includes and CMake links run one way: core -> diag -> platform, and
#     inside core cli -> cmd -> install -> {formats, store} -> {model, net}
#     -> project -> base (each folder a library; the build refuses an
#     include from above);
#  4. nub's own code allocates through nub_malloc & co and avoids the banned
#     string functions;
#  5. given a build directory (ci/check-layering.sh build), no two files of
#     the binary call each other, directly or around a cycle, nor call into
#     a folder above their own (ci/check-cycles.py,
#     from the symbols of the built objects).
set -uo pipefail
cd "$(dirname "$0")/.."
fail=0
report() { printf 'layering: %s\n' "$1"; fail=1; }

hits=$(grep -rnE '^\s*#\s*(if|ifdef|ifndef|elif).*(__APPLE__|__linux__|__MACH__|_WIN32|TARGET_OS_|__FreeBSD__)' core diag || true)
[ -n "$hits" ] && report "OS conditional outside platform/:
$hits"

# (comment lines, which may name a syscall to explain a choice, are not calls)
hits=$(grep -rnE '\b(linkat|ioctl|clonefile|clonefileat|fclonefileat|copy_file_range|fcopyfile|getrusage|renameat2|renameatx_np|renamex_np|symlinkat|mkdirat|unlinkat)\s*\(' core diag --include='*.c' |
  grep -vE '^[^:]+:[0-9]+:\s*(/\*|\*|//)' || true)
[ -n "$hits" ] && report "OS primitive called outside platform/:
$hits"

hits=$(grep -rnE '#include "(diag|diag_int|install|config|store|link|err)\.h"' platform || true)
[ -n "$hits" ] && report "platform/ includes a header of an upper layer:
$hits"
hits=$(grep -rnE '#include "(install|config|store|link|err|tree|fetch|manifest|buf)\.h"' diag || true)
[ -n "$hits" ] && report "diag/ includes a core header:
$hits"

grep -qE 'target_link_libraries\(nub_platform PUBLIC [^)]*nub_(diag|core)' platform/CMakeLists.txt && report "platform links an upper layer"
grep -qE 'target_link_libraries\(nub_diag [^)]*nub_core' diag/CMakeLists.txt && report "diag links core"
grep -qE 'target_link_libraries\(nub_diag PUBLIC nub_platform\)' diag/CMakeLists.txt || report "diag must link nub_platform (and only it)"
grep -qE 'LINKS [^)]*nub_diag' core/base/CMakeLists.txt || report "core/base must link nub_diag"
# core's folders link only the ones below them (core/CMakeLists.txt's order);
# a link upward would put an upper folder's headers on a lower one's path
hits=$(python3 - <<'PY'
import re
order = [["base"], ["project"], ["model", "net"], ["formats", "store"], ["install"], ["cmd"]]
rank = {f: i for i, g in enumerate(order) for f in g}
for f in rank:
    text = open("core/%s/CMakeLists.txt" % f).read()
    links = re.search(r"LINKS([^)]*)\)", text)
    for t in re.findall(r"nub_(\w+)", links.group(1) if links else ""):
        if t in rank and rank[t] >= rank[f]:
            print("core/%s links nub_%s, which is not below it" % (f, t))
PY
)
[ -n "$hits" ] && report "$hits"

hits=$(grep -rnE '(^|[^_a-z])(malloc|calloc|realloc|free|strdup|strndup)\s*\(' core diag --include='*.c' | grep -vE 'nub_(malloc|calloc|realloc|free|strdup|strndup)|mi_|curl_free|//|/\*' || true)
[ -n "$hits" ] && report "raw allocation (use nub_malloc & co):
$hits"
hits=$(grep -rnE '\b(sprintf|vsprintf|strcpy|strcat|gets|strtok)\s*\(' core diag platform --include='*.c' || true)
[ -n "$hits" ] && report "banned string function:
$hits"

if [ -n "${1:-}" ]; then
  python3 ci/check-cycles.py "$1" || fail=1
fi

if [ "$fail" = 0 ]; then
  echo "layering: ok (core's folders -> diag -> platform; no OS conditionals or primitives above platform/)"
fi
exit "$fail"
