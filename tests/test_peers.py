#!/usr/bin/env python3
"""scripts/peers.py without a GPU: its CSV has the bench's columns (the committed bench.csv's
header), bad input exits 2 with a message, and with no library or no device it exits 77
(skipped) and says so, never 0.

Usage: test_peers.py SCRIPT RESULTS_DIR"""
import os
import subprocess
import sys
import importlib.util

script, results = sys.argv[1], sys.argv[2]
failed = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failed.append(what)


spec = importlib.util.spec_from_file_location("peers", script)
peers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peers)
with open(os.path.join(results, "h100", "bench.csv")) as f:
    header = f.readline().strip().split(",")
check(peers.HEADER == header, f"the CSV columns are the bench's: {peers.HEADER} vs {header}")
check(peers.parse_sizes("8192,4099x8191") == [(8192, 8192), (4099, 8191)], "sizes: N and RxC")
for bad in (["--sizes", "12x"], ["--sizes", "0"], ["--dtypes", "half"], ["--reps", "0"]):
    r = subprocess.run([sys.executable, script, *bad], capture_output=True, text=True)
    check(r.returncode == 2 and "peers" in r.stderr and bad[0] in r.stderr,
          f"{' '.join(bad)}: exit status 2 and a message naming {bad[0]} (got {r.returncode})")
r = subprocess.run([sys.executable, script, "--sizes", "64", "--out", os.devnull],
                   capture_output=True, text=True)
if r.returncode == 0:
    print("note: a library and a GPU are here; the run measured:\n" + r.stdout)
else:
    check(r.returncode == 77 and "skipped" in r.stdout,
          f"without a library or a device: exit 77 and 'skipped' (got {r.returncode}: "
          f"{r.stdout.strip()[-300:]})")
row = peers.row("torch-t-contiguous", "float", 8192, 8192, 4, (0.2, 0.19, 0.21), (0.1, 0.1, 0.1),
                True, 50 << 20, "GPU", "13.0")
check(row["gbps"] == "2684.4" and row["pct_copy"] == "50.00" and row["fits_l2"] == "false",
      f"GB/s as the bench counts them, and % of the copy: {row}")
print(f"{len(failed)} failed" if failed else "all passed")
sys.exit(1 if failed else 0)
