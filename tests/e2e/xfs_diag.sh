#!/usr/bin/env bash
# Run by ci/xfs-test.sh with NUB_TEST_DIR on its XFS (reflink=1) mount: the
# diag test of --package-import-method clone, which must tally link_reflink
# for every file there. Fails if the test skipped instead of running.
set -euo pipefail
export NUB_TEST_TMP=$NUB_TEST_DIR
out=$(python3 -B "$(dirname "$0")/test_diag.py" -k reflink 2>&1) || { echo "$out"; exit 1; }
echo "$out"
if ! grep -q "^Ran 1 test" <<<"$out" || grep -q "skipped" <<<"$out"; then
  echo "xfs_diag: the reflink test did not run" >&2
  exit 1
fi
