#!/usr/bin/env python3
"""scripts/fixed_cost_fit.py on CSVs written here, then on the committed runs.

  1. Times made exactly of bytes / B + c give back B and c, no residual, and the share they
     imply at a predicted shape; even shapes and shapes that fit in the L2 are not fitted.
  2. Bad input (a missing file, too few odd shapes, a shape that is not RxC) exits 2 with one
     message and no traceback.
  3. The committed fits (docs/results/odd-shape-fit.md, chapter 16's prediction, and
     docs/results/prefetch-fit.md, chapter 17's) are what the script writes from the
     committed runs they name.

Usage: test_fixed_cost_fit.py SCRIPT ROOT"""
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
                          timeout=60)


HEAD = "step,variant,dtype,rows,cols,median_ms,fits_l2,device\n"
B = {"memcpy": 4000e9, "k": 3600e9}  # bytes a second
C = {"memcpy": 6e-6, "k": 4e-6}      # seconds


def row(variant, m, n, fits_l2="false", scale=1.0):
    x = 2 * m * n * 4
    t = (x / B[variant] + C[variant]) * scale
    step = "references" if variant == "memcpy" else "99-test"
    return f"{step},{variant},float,{m},{n},{t * 1e3:.9f},{fits_l2},GPU X\n"


with tempfile.TemporaryDirectory() as d:
    good = os.path.join(d, "runs.csv")
    text = HEAD
    for m, n in ((3001, 5003), (4099, 8191), (12345, 6789), (6789, 12345)):
        text += row("memcpy", m, n) + row("k", m, n)
    # Not fitted: an even side (wildly off the line), a matrix that fits in the L2.
    for v in ("memcpy", "k"):
        text += row(v, 8192, 8191, scale=3.0) + row(v, 1001, 1003, "true", scale=3.0)
    with open(good, "w") as f:
        f.write(text + HEAD)  # a header repeated by an appended run is skipped
    r = run(good, "--variant", "k", "--predict", "16383x16385")
    check(r.returncode == 0, f"an exact fit runs (exit {r.returncode}: {r.stderr.strip()})")
    cells = [c.strip() for c in r.stdout.splitlines()[-1].strip("|").split("|")]
    x = 2 * 16383 * 16385 * 4
    want = ["GPU X", "float", "4", "4000.0", "6.00", "3600.0", "4.00", "0.00", "90.00",
            f"{x / (x / B['memcpy'] + C['memcpy']) / 1e9:.1f}",
            f"{x / (x / B['k'] + C['k']) / 1e9:.1f}",
            f"{100 * (x / B['memcpy'] + C['memcpy']) / (x / B['k'] + C['k']):.2f}"]
    check(cells == want, f"B, c, residual, share and prediction recovered: {cells} (want {want})")

    def refused(what, *args):
        r = run(*args)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr,
              f"{what}: exit 2 and one line (got {r.returncode}: {r.stderr.strip()[:120]})")

    refused("a missing file", os.path.join(d, "none.csv"), "--variant", "k")
    few = os.path.join(d, "few.csv")
    with open(few, "w") as f:
        f.write(HEAD + row("memcpy", 3001, 5003) + row("k", 3001, 5003) +
                row("memcpy", 4099, 8191) + row("k", 4099, 8191))
    refused("two odd shapes", few, "--variant", "k")
    refused("a variant not measured", good, "--variant", "nothing")
    refused("a shape that is not RxC", good, "--variant", "k", "--predict", "16383by16385")

# The committed fit: the command below, on the committed runs, writes the committed table.
committed = os.path.join(root, "docs/results/odd-shape-fit.md")
r = run(os.path.join(root, "docs/results/h200/d17014b/step16/step16.csv"),
        os.path.join(root, "docs/results/h100/c2154b9/step16/step16.csv"),
        "--variant", "order", "--predict", "16383x16385")
with open(committed, encoding="utf-8") as f:
    check(r.returncode == 0 and r.stdout == f.read(),
          "docs/results/odd-shape-fit.md is what the script writes from the committed runs")

# Chapter 17's prediction, from the probe of the L2 prefetch hint on both GPUs.
committed = os.path.join(root, "docs/results/prefetch-fit.md")
r = run(os.path.join(root, "docs/results/h200/324d9f5/probe/probe.csv"),
        os.path.join(root, "docs/results/h100/324d9f5/probe/probe.csv"),
        "--variant", "order-l2-256", "--predict",
        "16383x16385,8191x4099,6789x12345,32767x8193,8193x32767")
with open(committed, encoding="utf-8") as f:
    check(r.returncode == 0 and r.stdout == f.read(),
          "docs/results/prefetch-fit.md is what the script writes from the committed runs")

if failed:
    print(f"{len(failed)} check(s) failed")
    sys.exit(1)
print("all checks passed")
