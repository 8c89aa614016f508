#!/usr/bin/env python3
"""Tests the diff and figure blocks of scripts/doc_outputs.py on a page written here.

  1. A diff block of two plain files is written as a fenced unified diff of the two, and then
     passes --check.
  2. A hand-edited diff fails --check (exit 1, "out of date"), as a source that moved on would.
  3. Listing commands pick the same region of both files; a bad block (one file, a file that
     does not exist, two identical files) fails with a message.
  4. A figure block writes the program's picture next to the page and its image line; the
     check fails when the picture differs from what the program draws, or is missing.

Usage: test_doc_outputs.py SCRIPT BUILD_DIR
"""
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)


def main():
    script, build = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.md")

        def run(text, *flags):
            with open(page, "w") as f:
                f.write(text)
            r = subprocess.run([sys.executable, script, *flags, build, page],
                               capture_output=True, text=True, timeout=120)
            return r, open(page).read()

        block = "<!-- diff: 03-shared/plain.cu 04-padding/plain.cu -->\n<!-- end -->\n"
        r, text = run(block)
        check(r.returncode == 0 and "```diff\n--- 03-shared/plain.cu\n+++ 04-padding/plain.cu"
              in text and "-  __shared__ float tile[32][32];" in text
              and "+  __shared__ float tile[32][33];" in text,
              f"the diff of steps 03 and 04 is written (exit {r.returncode})")
        written = text
        r, _ = run(written, "--check")
        check(r.returncode == 0, f"a current diff passes --check ({r.stdout.strip()})")
        r, _ = run(written.replace("tile[32][33]", "tile[32][34]"), "--check")
        check(r.returncode == 1 and "out of date" in r.stdout,
              f"a stale diff fails --check (exit {r.returncode})")
        picked = block.replace(" -->", " | skip __global__ | until __syncthreads -->", 1)
        r, text = run(picked)
        check(r.returncode == 0 and "tile[32][33]" in text and "int main" not in text,
              f"commands pick a region of both files (exit {r.returncode})")
        for bad, what in (("03-shared/plain.cu", "one file"),
                          ("03-shared/plain.cu 99-none/plain.cu", "a missing file"),
                          ("03-shared/plain.cu 03-shared/plain.cu", "two identical files")):
            r, _ = run(f"<!-- diff: {bad} -->\n<!-- end -->\n", "--check")
            check(r.returncode == 1 and "FAIL:" in r.stdout, f"{what} fails (exit {r.returncode})")
        figure = ("<!-- figure: 03-shared --explain --format svg | images/banks.svg | Banks. -->"
                  "\n<!-- end -->\n")
        picture = os.path.join(tmp, "images", "banks.svg")
        r, text = run(figure)
        check(r.returncode == 0 and "![Banks.](images/banks.svg)\n" in text
              and open(picture).read().startswith("<svg"),
              f"a figure block writes the picture and its image line (exit {r.returncode})")
        r, _ = run(text, "--check")
        check(r.returncode == 0, f"a current picture passes --check ({r.stdout.strip()})")
        with open(picture, "a") as f:
            f.write("<!-- edited -->\n")
        r, _ = run(text, "--check")
        check(r.returncode == 1 and "(the picture)" in r.stdout,
              f"an edited picture fails --check (exit {r.returncode})")
        os.remove(picture)
        r, _ = run(text, "--check")
        check(r.returncode == 1 and not os.path.exists(picture),
              f"a missing picture fails --check, which writes nothing (exit {r.returncode})")
        drawn = ("<!-- figure: make_diagrams.py --print warp-sectors.svg | images/w.svg | W. -->"
                 "\n<!-- end -->\n")
        r, text = run(drawn)
        check(r.returncode == 0 and "![W.](images/w.svg)" in text
              and os.path.exists(os.path.join(tmp, "images", "w.svg")),
              f"a figure drawn by a script of scripts/ is written too (exit {r.returncode})")
        r, _ = run(figure.replace(" | Banks.", ""), "--check")
        check(r.returncode == 1 and "FAIL:" in r.stdout, "a figure without a caption fails")
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
