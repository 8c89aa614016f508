#!/usr/bin/env python3
"""scripts/plot_record.py: it draws the committed checks of record, and the README's plot is
the one it draws now.

  1. On docs/results: exit 0, a PNG and an SVG written, and the values it prints are the
     bench's and the peers' own (pct_copy of the check of record's CSVs, float).
  2. The committed picture (docs/images/record.svg) names the commit of each GPU's check of
     record, so a new check of record without a new picture fails; the README shows it.
  3. A results folder without a check of record: exit 2 and a message.

Exits 77 (skipped) when matplotlib cannot be imported.

Usage: test_plot_record.py REPOSITORY_ROOT"""
import csv
import os
import re
import subprocess
import sys
import tempfile

root = sys.argv[1]
script = os.path.join(root, "scripts", "plot_record.py")
results = os.path.join(root, "docs", "results")
failed = []


def check(ok, what, detail=""):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failed.append(what)
        if detail:
            print("       " + detail[:2000])


try:
    import matplotlib  # noqa: F401
except ImportError:
    print("skipped: matplotlib cannot be imported")
    sys.exit(77)

commits = {}
for gpu in ("h100", "h200"):
    with open(os.path.join(results, gpu, "gpu-check.txt")) as f:
        commits[gpu] = re.search(r"^commit:\s*([0-9a-f]{7})", f.read(), re.M).group(1)

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "record")
    r = subprocess.run([sys.executable, script, results, "--out", out, "--print"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and os.path.getsize(out + ".png") > 0
          and os.path.getsize(out + ".svg") > 0, "it draws the checks of record", r.stderr)
    # One printed value against the CSV it comes from, on each GPU.
    for gpu in ("h100", "h200"):
        rows = list(csv.DictReader(open(os.path.join(results, gpu, commits[gpu], "bench.csv"))))
        row = next(x for x in rows if x["sweep"] == "headline" and x["step"] == "17-prefetch"
                   and x["dtype"] == "float" and x["rows"] == "12345" and x["cols"] == "6789")
        want = f"{row['device']} 17 8192x8192="
        line = next((l for l in r.stdout.splitlines() if l.startswith(want)), "")
        check(f"12345x6789={float(row['pct_copy']):.2f}" in line,
              f"step 17 at 12345 x 6789 on the {gpu} is the bench's own figure", line)
    empty = os.path.join(d, "empty")
    os.makedirs(os.path.join(empty, "h100"))
    r = subprocess.run([sys.executable, script, empty, "--out", out], capture_output=True,
                       text=True)
    check(r.returncode == 2 and "gpu-check.txt" in r.stderr,
          "a folder without a check of record is refused with a message", r.stderr)

svg = open(os.path.join(root, "docs", "images", "record.svg")).read()
for gpu, c in commits.items():
    check(f"check of {c}" in svg, f"the README's plot is of the {gpu}'s check of record ({c}); "
          f"draw it again with scripts/plot_record.py docs/results --out docs/images/record")
check("docs/images/record.svg" in open(os.path.join(root, "README.md")).read(),
      "the README shows the plot")
print(f"{len(failed)} failed" if failed else "all passed")
sys.exit(1 if failed else 0)
