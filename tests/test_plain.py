#!/usr/bin/env python3
"""Runs every plain CUDA file of the steps (BUILD/steps/NN-name/NN-name-plain) on awkward
shapes, on the GPU: each run checks its output bit for bit against a CPU transpose and exits
0 only when it is exact. Shapes: 1 x 1, single rows and columns, primes, non-square, sizes on
both sides of the tile widths, and sides that are multiples of 4 in partial tiles (the
16-byte paths).

Usage: test_plain.py BUILD_DIR [--large]
--large adds a matrix past 2^31 elements (46349 x 46349 float: 8.6 GB each way, with the CPU
check; the GPU check runs it). Exit status: 0 all exact, 1 a run failed, 2 no plain program,
77 skipped (no CUDA device: the programs exit 3).
"""
import glob
import os
import subprocess
import sys
import time

SHAPES = [(1, 1), (1, 1000), (1000, 1), (2, 3), (17, 83), (83, 17), (31, 33), (33, 31),
          (64, 96), (127, 129), (257, 1031), (1031, 257), (4099, 129), (129, 4099),
          (36, 100), (132, 68), (4100, 8196)]
LARGE = [(46349, 46349)]

build = sys.argv[1]
shapes = SHAPES + (LARGE if "--large" in sys.argv[2:] else [])
plains = sorted(glob.glob(os.path.join(build, "steps", "*", "*-plain")))
if not plains:
    print(f"test_plain: no plain program in {build}")
    sys.exit(2)
failed = []
for exe in plains:
    for rows, cols in shapes:
        t0 = time.monotonic()
        r = subprocess.run([exe, str(rows), str(cols)], capture_output=True, text=True)
        took = time.monotonic() - t0
        if r.returncode == 3:
            print(f"skipped: {os.path.basename(exe)} finds no CUDA device")
            sys.exit(77)
        ok = r.returncode == 0 and " exact," in r.stdout
        print(("ok     " if ok else "FAILED ") + f"{os.path.basename(exe)} {rows} x {cols}: "
              + (r.stdout.strip() or r.stderr.strip()) + f" [{took:.1f} s]")
        if not ok:
            failed.append(f"{exe} {rows} {cols}")
print(f"{len(failed)} failed" if failed else "all exact")
sys.exit(1 if failed else 0)
