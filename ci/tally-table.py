#!/usr/bin/env python3
"""One table of the strategy tallies of several platforms, side by side.

usage: ci/tally-table.py TALLY.json...   (written by ci/strategy-tally.sh with
TALLY_JSON set; one per platform of the CI matrix). Prints Markdown: per
fixture and layout, each platform's files per link primitive and its link
phase time, so that Linux ext4, Linux XFS (reflink) and macOS APFS read
across one row."""
import collections
import json
import sys


def main():
    rows = collections.OrderedDict()
    columns = []
    for path in sys.argv[1:]:
        for line in open(path):
            r = json.loads(line)
            col = "%s, %s" % (r["platform"], r["fs"])
            if col not in columns:
                columns.append(col)
            rows.setdefault((r["fixture"], r["layout"]), {})[col] = r
    if not rows:
        print("no tallies")
        return 1
    print("| fixture | layout | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for (fx, layout), by in rows.items():
        cells = []
        for col in columns:
            r = by.get(col)
            if not r:
                cells.append("-")
                continue
            files = ", ".join("%s %d" % (k.replace("link_", ""), v) for k, v in r["files"].items())
            link = r["phases_ms"].get("link")
            cell = (files or "no per-file links") + (" (link %.1f ms)" % link if link is not None else "")
            if r["fallbacks"]:
                cell += "; fallbacks " + ", ".join("%s x%d" % kv for kv in r["fallbacks"].items())
            cells.append(cell)
        print("| %s | %s | %s |" % (fx, layout, " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
