#!/usr/bin/env python3
"""scripts/ncu_csv_table.py: the figures of a committed Nsight Compute CSV, and an error for
a file without a metrics table.

Usage: test_ncu_csv_table.py SCRIPT CSV
"""
import os
import subprocess
import sys
import tempfile


def run(script, *files):
    return subprocess.run([sys.executable, script, *files], capture_output=True, text=True)


def main(script, csv_path):
    failures = []
    r = run(script, csv_path)
    rows = [line for line in r.stdout.splitlines() if os.path.basename(csv_path) in line]
    if r.returncode != 0 or len(rows) != 1:
        failures.append(f"one row expected, exit 0: got exit {r.returncode}, {r.stdout!r}")
    else:
        cells = [c.strip() for c in rows[0].strip("|").split("|")]
        # step 13's lines, float, 4099 x 8191 on the H200: 74.53 us, 1.73 M read requests
        if cells[1:3] != ["74.53", "1.73"]:
            failures.append(f"time and requests: {cells[1:3]}")
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("==PROF== no kernels were profiled\n")
    try:
        r = run(script, f.name)
        if r.returncode != 1 or "no Nsight Compute metrics" not in r.stderr:
            failures.append(f"a file without metrics: exit {r.returncode}, {r.stderr!r}")
    finally:
        os.unlink(f.name)
    for line in failures:
        print("FAIL:", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
