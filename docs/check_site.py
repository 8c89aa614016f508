#!/usr/bin/env python3
"""Checks the generated documentation site for what a reader must never see: Doxygen markup
left as text (@ref, @section, @code, autotoc_md anchors, \\f$ formulas that were not
typeset) and absolute paths of the machine that built it. Doxygen 1.9 writes such text without
a warning when a Markdown link's text wraps across lines, for example, and the rest of the
page after it comes out raw.

Usage: docs/check_site.py HTML_DIR PATH...   (PATH: absolute folders that must not appear,
e.g. the source and build folders). Exit status 0 clean, 1 raw markup or a path found."""
import glob
import html
import os
import re
import sys

RAW = [r"@ref\b", r"@section\b", r"@subsection\b", r"@code\b", r"@endcode\b", r"\bautotoc_md\d",
       r"\\ref\b", r"\\f\$", r"@p\s"]


def visible_text(page):
    """The text a browser shows: no scripts, styles or tags."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S | re.I)
    # Listings (<div class="fragment">) show code as it is: markup inside them is the code's.
    page = re.sub(r'<div class="fragment">.*?</div><!-- fragment -->', " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def problems(page_text, paths):
    found = []
    for pattern in RAW:
        m = re.search(pattern, page_text)
        if m:
            found.append(f"raw markup {m.group(0)!r}: ...{page_text[max(0, m.start() - 50):m.end() + 50]!r}...")
    for path in paths:
        if path and path in page_text:
            i = page_text.index(path)
            found.append(f"absolute path {path!r}: ...{page_text[max(0, i - 50):i + 60]!r}...")
    return found


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    folder, paths = sys.argv[1], [os.path.abspath(p) for p in sys.argv[2:]]
    pages = sorted(glob.glob(os.path.join(folder, "*.html")))
    if not pages:
        print(f"check_site: no pages in {folder}")
        return 1
    bad = 0
    for page in pages:
        with open(page, encoding="utf-8", errors="replace") as f:
            found = problems(visible_text(f.read()), paths)
        for p in found:
            print(f"{os.path.basename(page)}: {p}")
        bad += bool(found)
    print(f"check_site: {len(pages)} pages, {bad} with raw markup or a path of this machine")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
