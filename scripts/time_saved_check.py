#!/usr/bin/env python3
"""A chapter's predicted time saved against an earlier step, against the bench's measurement.

The chapter states its prediction, before any run, as a table row a GPU:

    | H100: time saved against step 10 | 3.1% | 2.4% |

(columns: float, double). The measurement is the bench of one run a GPU (`bench.csv`, the
headline sweep, one process): the time saved is 1 - t(step) / t(earlier step), each the
median of the run, at every shape of the bench whose sides are both odd (where the step's
change applies). A shape is a hit when the measured saving is at least half the predicted
one, a miss otherwise; every miss must be listed, with its reason, in the misses file, and a
listed row that is not a miss fails too, so that the list says what the data say.

Usage: scripts/time_saved_check.py --chapter docs/13-lines.md --step 13-lines
           --against 10-invariants --misses docs/results/prediction-misses.csv RUN_DIR ...
RUN_DIR: a folder holding a bench.csv (its device is read from it: H100 or H200).
Exit status: 0 every miss listed and every listed row a miss, 1 otherwise, 2 bad input.
"""
import argparse
import csv
import os
import re
import sys

ROW = re.compile(r"^\|\s*(H100|H200): time saved against step (\d+)\s*\|\s*([-\d.]+)%\s*\|"
                 r"\s*([-\d.]+)%\s*\|")


def predictions(chapter, against):
    """{(gpu, dtype): predicted saving in percent} from the chapter's table."""
    out = {}
    with open(chapter, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line.strip())
            if m and against.startswith(m.group(2).zfill(2)):
                out[(m.group(1), "float")] = float(m.group(3))
                out[(m.group(1), "double")] = float(m.group(4))
    return out


def gpu_of(device):
    for name in ("H100", "H200"):
        if name in device:
            return name
    return None


def measurements(run, step, against):
    """[(gpu, dtype, rows, cols, saving %)] at the odd x odd shapes of run's bench."""
    path = os.path.join(run, "bench.csv")
    times = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["sweep"] != "headline" or r["step"] not in (step, against):
                continue
            rows, cols = int(r["rows"]), int(r["cols"])
            if rows % 2 and cols % 2:
                key = (gpu_of(r["device"]), r["dtype"], rows, cols)
                times.setdefault(key, {})[r["step"]] = float(r["median_ms"])
    out = []
    for key, t in sorted(times.items()):
        if step in t and against in t and key[0]:
            out.append(key + (100.0 * (1.0 - t[step] / t[against]),))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chapter", required=True)
    ap.add_argument("--step", required=True)
    ap.add_argument("--against", required=True)
    ap.add_argument("--misses", required=True)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    try:
        predicted = predictions(a.chapter, a.against)
        measured = [m for run in a.runs for m in measurements(run, a.step, a.against)]
        with open(a.misses, newline="") as f:
            listed = {(r["gpu"], r["dtype"], int(r["rows"]), int(r["cols"])): r["reason"]
                      for r in csv.DictReader(f) if r["step"] == a.step}
    except (OSError, KeyError, ValueError) as e:
        print(f"time_saved_check: {e}", file=sys.stderr)
        return 2
    if not predicted:
        print(f"time_saved_check: {a.chapter} states no time saved against {a.against}",
              file=sys.stderr)
        return 2
    if not measured:
        print(f"time_saved_check: no odd x odd shape with {a.step} and {a.against} in "
              f"{', '.join(a.runs)}", file=sys.stderr)
        return 2
    bad = 0
    seen = set()
    for gpu, dtype, rows, cols, saving in measured:
        want = predicted.get((gpu, dtype))
        if want is None:
            print(f"{gpu} {dtype} {rows} x {cols}: no prediction in the chapter")
            bad += 1
            continue
        key = (gpu, dtype, rows, cols)
        seen.add(key)
        miss = saving < want / 2
        verdict = "miss" if miss else "hit"
        print(f"{gpu} {dtype} {rows} x {cols}: predicted {want:.1f}% saved, measured "
              f"{saving:.2f}%: {verdict}" + (f" (listed: {listed[key]})" if key in listed else ""))
        if miss != (key in listed):
            print("  " + ("NOT LISTED in " + a.misses if miss else "listed, but not a miss"))
            bad += 1
    for key in sorted(set(listed) - seen):
        if key[0] in {m[0] for m in measured}:
            print(f"listed, but not measured here: {' '.join(map(str, key))}")
            bad += 1
    print(f"{len(measured)} shape(s) compared; {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
