#!/usr/bin/env python3
"""Does the ladder only climb? Each step's headline variant against the previous step's, from
step 05 on, at every matrix of 4096 and up, in each type, in the bench's CSVs of each GPU.

A step whose GB/s is more than THRESHOLD percent below the previous step's on the same matrix,
type and GPU, in the same run, is a drop (the threshold is stated here, before any data: run-
to-run spreads of the bench are within about 1%, chapter 07). A drop must be listed, with the
counter that explains it, in the file --explained names (CSV: device,dtype,rows,cols,step,
reason, the device as the bench's CSV names it); a listed row that is not a drop fails too,
so that the list says what the data say.

--checks DIR takes the bench of the newest check of each GPU: for each DIR/<gpu>/gpu-check.txt
(the committed summary), DIR/<gpu>/<its commit, 7 digits>/bench.csv.

Usage: scripts/ladder_check.py [BENCH.csv ...] [--checks DIR] [--explained FILE] [--report]
Exit status: 0 the ladder climbs, or every drop is explained (--report: always 0, the drops
printed), 1 an unexplained drop or a listed row that is not one, 2 bad input.
"""
import argparse
import csv
import glob
import os
import re
import sys

THRESHOLD = 1.0  # percent
FIRST_STEP = "05"
MIN_SIDE = 4096


def bad(message):
    """Bad input: the message on stderr, exit status 2."""
    print(f"ladder_check: {message}", file=sys.stderr)
    sys.exit(2)


def drops(paths):
    """[(gpu, dtype, rows, cols, step, previous step, gbps, previous gbps, percent)]."""
    out = []
    for path in paths:
        try:
            with open(path, newline="") as f:
                rows = [r for r in csv.DictReader(f) if r.get("sweep", "headline") == "headline"]
        except OSError as e:
            bad(f"cannot read {path}: {e.strerror}")
        by = {}
        for r in rows:
            if r["step"] == "references" or r["step"][:2] < FIRST_STEP:
                continue
            if max(int(r["rows"]), int(r["cols"])) < MIN_SIDE or r.get("fits_l2") == "true":
                continue
            by.setdefault((r["dtype"], r["rows"], r["cols"]), []).append(r)
        for (dtype, m, n), steps in by.items():
            steps.sort(key=lambda r: r["step"])
            for prev, cur in zip(steps, steps[1:]):
                a, b = float(prev["gbps"]), float(cur["gbps"])
                pct = 100 * (b / a - 1)
                if pct < -THRESHOLD:
                    out.append((cur["device"], dtype, m, n, cur["step"], prev["step"], b, a, pct))
    return out


def newest_checks(folder):
    """The bench CSV of the check that each folder/<gpu>/gpu-check.txt names."""
    out = []
    for summary in sorted(glob.glob(os.path.join(folder, "*", "gpu-check.txt"))):
        with open(summary) as f:
            m = re.search(r"^commit:\s*([0-9a-f]{7,40})", f.read(), re.M)
        if not m:
            bad(f"{summary} names no commit")
        path = os.path.join(os.path.dirname(summary), m.group(1)[:7], "bench.csv")
        if not os.path.isfile(path):
            bad(f"{summary} names commit {m.group(1)[:7]}, but {path} is missing")
        out.append(path)
    if not out:
        bad(f"no <gpu>/gpu-check.txt under {folder}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="*")
    ap.add_argument("--checks")
    ap.add_argument("--explained")
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    paths = a.csv + (newest_checks(a.checks) if a.checks else [])
    if not paths:
        ap.error("give bench CSVs, --checks DIR, or both")
    for p in paths:
        print(f"bench: {p}")
    found = drops(paths)
    listed = {}
    if a.explained:
        with open(a.explained, newline="") as f:
            for r in csv.DictReader(f):
                listed[(r["device"], r["dtype"], r["rows"], r["cols"], r["step"])] = r["reason"]
    failures = []
    keys = set()
    for gpu, dtype, m, n, step, prev, b, pa, pct in found:
        key = (gpu, dtype, m, n, step)
        keys.add(key)
        why = listed.get(key)
        print(f"{gpu} {dtype} {m} x {n}: {step} {b:.1f} GB/s, {pct:+.2f}% against {prev} "
              f"({pa:.1f}): " + (f"explained: {why}" if why else "NOT EXPLAINED"))
        if not why:
            failures.append(key)
    for key in listed:
        if key not in keys:
            print(f"listed, but not a drop beyond {THRESHOLD}%: {' '.join(key)}")
            failures.append(key)
    print(f"{len(found)} drop(s) beyond {THRESHOLD}% from step {FIRST_STEP} on, matrices of "
          f"{MIN_SIDE} and up; {len(failures)} unexplained or wrongly listed")
    return 0 if a.report or not failures else 1


if __name__ == "__main__":
    sys.exit(main())
