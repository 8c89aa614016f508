#!/usr/bin/env python3
"""Tests of scripts/bandwidth_model.py, on the CPU:

  1. the committed predictions of each GPU (docs/results/<gpu>/predictions.csv) are what
     the model computes now from the committed kernel facts and device facts: a change to
     the model or its inputs without new predictions fails, and so does a hand edit;
  2. the comparison judges: it passes a measurement equal to the prediction, fails an
     unlisted 20% miss, passes it once listed, and fails a listed row that is not a miss.

Usage: test_bandwidth_model.py SCRIPT RESULTS_DIR
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

script, results = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    for gpu in ("h100", "h200"):
        out = os.path.join(tmp, f"{gpu}.csv")
        r = run("predict", "--facts", os.path.join(results, "kernel-facts.csv"), "--device",
                os.path.join(results, gpu), "--out", out)
        if r.returncode != 0:
            failures.append(f"{gpu}: predict exited {r.returncode}: {r.stderr or r.stdout}")
            continue
        with open(out) as a, open(os.path.join(results, gpu, "predictions.csv")) as b:
            if a.read() != b.read():
                failures.append(f"{gpu}: the committed predictions.csv is not what the model "
                                f"computes from the committed facts")
        print(f"{gpu}: {r.stdout.splitlines()[0]}")

    # A planted device folder: the H200's predictions, and measurements made from them.
    dev = os.path.join(tmp, "h200")
    os.makedirs(dev)
    shutil.copy(os.path.join(results, "h200", "predictions.csv"), dev)
    with open(os.path.join(dev, "predictions.csv")) as f:
        preds = list(csv.DictReader(f))
    pick = [p for p in preds if p["inside"] == "yes" and (p["rows"], p["cols"]) == ("8192", "8192")
            and p["program"] in ("05-multi-element", "08-diagonal")]
    fields = ["sweep", "step", "variant", "block", "dtype", "rows", "cols", "gbps", "pct_copy",
              "verified", "fits_l2", "device"]

    def measure(scale):
        with open(os.path.join(dev, "bench.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            w.writeheader()
            for i, p in enumerate(pick):
                pct = float(p["predicted_pct_copy"]) * (scale if i == 0 else 1.0)
                w.writerow(dict(sweep="headline", step=p["program"], variant=p["variant"],
                                block="", dtype=p["dtype"], rows=p["rows"], cols=p["cols"],
                                gbps="0", pct_copy=f"{pct:.2f}", verified="true",
                                fits_l2="false", device="planted"))

    def listed(rows):
        path = os.path.join(tmp, "misses.csv")
        with open(path, "w") as f:
            f.write("device,program,variant,dtype,rows,cols,reason\n")
            for p in rows:
                f.write(f"h200,{p['program']},{p['variant']},{p['dtype']},{p['rows']},"
                        f"{p['cols']},planted\n")
        return path

    cases = [(1.0, [], 0, "measurements equal to the predictions"),
             (0.8, [], 1, "an unlisted 20% miss"),
             (0.8, pick[:1], 0, "the same miss, listed"),
             (1.0, pick[:1], 1, "a listed row that is not a miss")]
    for scale, rows, want, what in cases:
        measure(scale)
        r = run("compare", "--device", dev, "--misses", listed(rows))
        ok = r.returncode == want
        print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {r.returncode}, expected {want}")
        if not ok:
            failures.append(f"{what}: exit {r.returncode}, expected {want}\n{r.stdout}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures or not pick else 0)
