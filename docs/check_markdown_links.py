#!/usr/bin/env python3
"""Checks that the pages work when read as plain Markdown (as a code host shows a `.md` file):
no Doxygen `@ref` (it shows as text there, where a link to the page's file works in both), and
every relative link to a file names a file that exists.

Usage: check_markdown_links.py PROJECT_ROOT
Exit status: 0 every page passes, 1 a page has an `@ref` or a broken link (each one named),
2 bad usage.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")


def problems(root):
    pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    found = []
    for page in pages:
        rel = os.path.relpath(page, root)
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for n, line in enumerate(text.splitlines(), 1):
            if "@ref" in line:
                found.append(f"{rel}:{n}: '@ref' reads as text in plain Markdown: link the page's "
                             f"file instead, [title](file.md)")
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue  # a URL, or an anchor of the same page
                path = target.split("#")[0]
                if path and not os.path.exists(os.path.join(os.path.dirname(page), path)):
                    found.append(f"{rel}:{n}: the link target '{target}' does not exist")
    return found


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    print(f"check_markdown_links: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
