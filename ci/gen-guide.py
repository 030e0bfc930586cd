#!/usr/bin/env python3
"""Write every command's help page (what `nub help <command>` prints) into
docs/guide.md, between its "commands" markers, so the guide says what the
binary says. usage: ci/gen-guide.py NUB [--check]  (--check: exit 1 when
the guide is not what it would write)."""

import re
import subprocess
import sys

BEGIN = "<!-- commands: written by ci/gen-guide.py from `nub help`; do not edit -->"
END = "<!-- end of commands -->"


def pages(nub):
    top = subprocess.run([nub, "--help"], stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout
    names = [line.split()[0] for line in
             top.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()]
    out = []
    for name in names:
        page = subprocess.run([nub, "help", name], stdout=subprocess.PIPE,
                              universal_newlines=True, check=True).stdout
        out.append("### nub %s\n\n```\n%s```\n" % (name, page))
    return "\n".join(out)


def main():
    nub, check = sys.argv[1], "--check" in sys.argv[2:]
    path = "docs/guide.md"
    with open(path) as f:
        text = f.read()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n\n" + pages(nub) + "\n" + END + tail
    if check:
        sys.exit(0 if new == text else "docs/guide.md is not what `nub help` says: "
                 "run ci/gen-guide.py build/core/nub")
    with open(path, "w") as f:
        f.write(new)


if __name__ == "__main__":
    main()
