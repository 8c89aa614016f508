#!/usr/bin/env python3
"""The verdicts of the committed probes against their own data: each probe's PREDICTION.md was
committed before its run, and its README states a verdict. This test recomputes the verdict
from the committed CSVs by the rule and the tolerance that PREDICTION.md fixed, and fails where
the README's verdict, or a figure it argues from, disagrees with the data.

  - results/h200/c9c71df/probe2 (step 17's hint at ten small odd shapes): the median over the
    three runs of step 17's share of memcpy minus step 16's; refuted if an odd-rows shape gains
    0.3 point or more, or a multiple-of-8 shape loses 0.3 point or more.
  - results/h200/c9c71df/probe3 (step 14 against block order): at each shape and type, step
    14's `tma` within 1.0 point of step 08's `row`, and step 08's `column` above `row`; refuted
    if `tma` and `row` differ by more than 1.0 point anywhere.

Usage: test_probe_verdicts.py REPO_ROOT
"""
import csv
import os
import re
import statistics
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
failed = []


def check(cond, what):
    print(("ok     " if cond else "FAILED ") + what)
    if not cond:
        failed.append(what)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def share(data, step, variant, dtype, r, c):
    """The share of memcpy of one verified row; KeyError where the run has none."""
    for x in data:
        if (x["step"], x["variant"], x["dtype"], int(x["rows"]), int(x["cols"])) == \
                (step, variant, dtype, r, c) and x["verified"] == "true":
            return float(x["pct_copy"])
    raise KeyError(f"{step}/{variant} {dtype} {r}x{c}")


def verdict(readme):
    """The README's verdict: 'refuted' or 'as predicted'."""
    m = re.search(r"\*\*Verdict: ([a-z ]+)\.\*\*", open(readme).read())
    return m.group(1) if m else None


def probe2(folder):
    runs = [rows(os.path.join(folder, f"bench-{k}.csv")) for k in (1, 2, 3)]
    shapes = [(r, 8191) for r in (4096, 4097, 4099, 4100, 4103, 4104)] + \
             [(r, 5003) for r in (3000, 3001, 3004, 3008)]
    median = {}
    for r, c in shapes:
        median[(r, c)] = statistics.median(
            share(run, "17-prefetch", "prefetch", "float", r, c) -
            share(run, "16-wide", "order", "float", r, c) for run in runs)
    # The rule of PREDICTION.md, its tolerance of 0.3 point fixed there.
    odd_gains = [s for s in shapes if s[0] % 2 and median[s] >= 0.3]
    even_loses = [s for s in shapes if s[0] % 8 == 0 and median[s] <= -0.3]
    refuted = bool(odd_gains or even_loses)
    said = verdict(os.path.join(folder, "README.md"))
    check(said == ("refuted" if refuted else "as predicted"),
          f"probe2: the README's verdict ({said}) is the one its data give "
          f"({'refuted' if refuted else 'as predicted'})")
    check((3000, 5003) in even_loses and round(median[(3000, 5003)], 2) == -0.81,
          "probe2: what refutes it, 3000 x 5003 losing 0.81 point, is in the data "
          f"({median[(3000, 5003)]:+.2f})")
    text = open(os.path.join(folder, "README.md")).read()
    for (r, c), m in median.items():
        check(re.search(rf"\| {r} x {c} \| \d \| [^|]+ \| {re.escape(f'{m:+.2f}')} \|", text)
              is not None,
              f"probe2: the README's median at {r} x {c} is the data's ({m:+.2f})")


def probe3(folder):
    data = rows(os.path.join(folder, "variants.csv"))
    cases = [(r, c, t) for r, c in ((4096, 4096), (16384, 16384), (8192, 16384))
             for t in ("float", "double")]
    worst, column_above = 0.0, True
    for r, c, t in cases:
        tma = share(data, "14-tma", "tma", t, r, c)
        row = share(data, "08-diagonal", "row", t, r, c)
        column = share(data, "08-diagonal", "column", t, r, c)
        worst = max(worst, abs(tma - row))
        column_above = column_above and column > row
    # The rule of PREDICTION.md, its tolerance of 1.0 point fixed there.
    refuted = worst > 1.0
    said = verdict(os.path.join(folder, "README.md"))
    check(said == ("refuted" if refuted else "as predicted"),
          f"probe3: the README's verdict ({said}) is the one its data give "
          f"({'refuted' if refuted else 'as predicted'}; |tma - row| up to {worst:.2f})")
    check(column_above, "probe3: step 08's column order above its row order at all six")
    check(worst < 0.8, f"probe3: 'within 0.8 point' holds ({worst:.2f})")


base = os.path.join(ROOT, "docs", "results", "h200", "c9c71df")
probe2(os.path.join(base, "probe2"))
probe3(os.path.join(base, "probe3"))
print(f"{len(failed)} failed" if failed else "every probe's verdict is its data's")
sys.exit(1 if failed else 0)
