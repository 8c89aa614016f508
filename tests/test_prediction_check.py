#!/usr/bin/env python3
"""scripts/prediction_check.py on files written here, then on the committed predictions.

  1. A measured share within the tolerance of the predicted one passes; a miss passes only
     where the misses file lists and explains it; a listed miss that is a hit fails; a shape
     not measured fails with --require-all. Bad input exits 2 with one message.
  2. The committed checks (chapter 16's prediction at 16383 x 16385; chapter 17's) are what
     the script writes from the committed runs, and pass.

Usage: test_prediction_check.py SCRIPT ROOT"""
import os
import subprocess
import sys
import tempfile

script, root = sys.argv[1], sys.argv[2]
failed = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failed.append(what)


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          timeout=60, cwd=root)


HEAD = ("step,variant,block,dtype,rows,cols,median_ms,min_ms,max_ms,samples,gbps,pct_peak,"
        "pct_copy,pct_cublas,verified,fits_l2,device,cuda,date\n")


def row(variant, pct, rows=3001, cols=5003):
    return (f"s,{variant},,float,{rows},{cols},1,1,1,10,1,1,{pct},1,true,false,"
            f"\"GPU X\",13.0,d\n")


with tempfile.TemporaryDirectory() as tmp:
    table = os.path.join(tmp, "fit.md")
    with open(table, "w") as f:
        f.write("| GPU | type | k at 3001 x 5003 (% of memcpy) | k at 7 x 9 (% of memcpy) |\n"
                "|---|---|---|---|\n| GPU X | float | 92.00 | 90.00 |\n")
    hit = os.path.join(tmp, "hit.csv")
    with open(hit, "w") as f:
        f.write(HEAD + row("k", 92.5) + row("k", 93.9) + row("k", 91.0) + row("other", 50))
    miss = os.path.join(tmp, "miss.csv")
    with open(miss, "w") as f:
        f.write(HEAD + row("k", 90.5))
    listed = os.path.join(tmp, "misses.csv")
    with open(listed, "w") as f:
        f.write('gpu,type,shape,explanation\n"GPU X",float,3001x5003,"why it missed"\n')
    base = ["--predicted", table, "--predicted-variant", "k", "--variant", "k"]
    r = run(*base, hit)
    check(r.returncode == 0 and "| 92.50 (3) | +0.50 | hit |" in r.stdout,
          "the median of three runs within 1 point is a hit: " + r.stdout + r.stderr)
    r = run(*base, hit, "--require-all")
    check(r.returncode == 1 and "7 x 9: not measured" in r.stdout,
          "--require-all fails a shape not measured")
    r = run(*base, miss)
    check(r.returncode == 1 and "does not explain" in r.stdout, "an unlisted miss fails")
    r = run(*base, miss, "--misses", listed)
    check(r.returncode == 0 and "miss: why it missed" in r.stdout, "a listed miss passes")
    r = run(*base, hit, "--misses", listed)
    check(r.returncode == 1 and "measured a hit" in r.stdout, "a listed miss that hits fails")
    r = run(*base, miss, "--dtype", "double")
    check(r.returncode == 0 and "3001 x 5003" not in r.stdout, "--dtype double keeps no float row")
    r = run(*base, miss, "--tolerance", "2")
    check(r.returncode == 0, "a wider tolerance takes the miss as a hit")
    for args, what in (([*base, os.path.join(tmp, "none.csv")], "a missing CSV"),
                       (["--predicted", table, "--predicted-variant", "q", "--variant", "k",
                         hit], "a variant the table does not name"),
                       ([*base, hit, "--tolerance", "0"], "a tolerance of 0")):
        r = run(*args)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr,
              f"{what} exits 2 with one message: {r.stderr!r}")

# The committed checks: each line is the command the chapter names, and its committed output.
results = os.path.join(root, "docs", "results")
committed = [
    ("odd-shape-check.md",
     ["--predicted", "docs/results/odd-shape-fit.md", "--predicted-variant", "order",
      "--variant", "order", "docs/results/h200/324d9f5/probe/16383x16385.csv",
      "docs/results/h200/324d9f5/probe/probe.csv", "docs/results/h100/324d9f5/probe/probe.csv",
      "--misses", "docs/results/odd-shape-fit-misses.csv", "--require-all"]),
]
# Chapter 17's prediction (docs/results/prefetch-fit.md, committed before step 17 ran) against
# step 17's runs on both GPUs, float only (in double the step runs step 15's kernels). Until
# those runs are committed, with the check's table, this part is skipped, and so is the test.
pending = []
step17 = ["docs/results/h200/step17/step17.csv", "docs/results/h100/step17/step17.csv"]
if all(os.path.exists(os.path.join(root, p)) for p in step17):
    committed.append(
        ("prefetch-check.md",
         ["--predicted", "docs/results/prefetch-fit.md", "--predicted-variant", "order-l2-256",
          "--variant", "prefetch", *step17, "--misses", "docs/results/prefetch-fit-misses.csv",
          "--dtype", "float", "--require-all"]))
else:
    pending.append("chapter 17's prediction: step 17's runs (" + ", ".join(step17) +
                   ") are not committed yet")
for name, args in committed:
    r = run(*args)
    path = os.path.join(results, name)
    want = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    check(r.returncode == 0, f"{name}: the committed check passes: {r.stdout}{r.stderr}")
    check(r.stdout == want, f"{name} is what the script writes from the committed runs")

print(f"{len(failed)} failure(s)" if failed else "all passed")
if failed:
    sys.exit(1)
if pending:  # a part that did not run is not a pass: ctest shows the test as skipped
    print("skipped:", "; ".join(pending))
    sys.exit(77)
