#!/usr/bin/env python3
"""Runs every plain CUDA file of the steps (BUILD/steps/NN-name/NN-name-plain) on awkward
shapes, on the GPU: each run checks its output bit for bit against a CPU transpose and exits
0 only when it is exact. A plain program may refuse a shape (exit 2) only where its step's
own program refuses it too (a grid larger than CUDA allows: more than 65535 blocks along y).
Shapes: 1 x 1, single rows and columns, primes, non-square, sizes on both sides of the tile
widths, sides that are multiples of 4 in partial tiles (the 16-byte paths), and rows of whole
sectors in partial tiles (step 14's copy engine), and odd rows from 512 tile rows on
(step 17's bands: the seam row alone in a band, and a short last band). A program that needs
a newer GPU than the one it finds (exit 6: steps 11 and 17 need 8.0, 14 needs 9.0) is
reported as skipped there.

The runs are independent programs, so several run at once: up to TT_THREADS (the share of
the host's cores the GPU check gives a part; else every core) small ones, and beside them as
many large ones as the GPU's free memory and the host's available memory hold with a quarter
to spare (each holds 17.2 GB on the device and as much on the host, and spends most of its
time in its single-threaded CPU check), at least one and at most TT_THREADS, or at most
PLAIN_LARGE_AT_ONCE where that is set.

Usage: test_plain.py BUILD_DIR [--large]
--large adds the matrices past 2^31 elements: 46349 x 46349 (whole tiles in neither
direction) and 1 x 2147483647 (one row, the longest an int holds), float, 8.6 GB each way,
with the CPU check; the GPU check runs them. Exit status: 0 all exact, 1 a run failed, 2 no
plain program, 77 skipped (no CUDA device: the programs exit 3).
"""
import concurrent.futures
import glob
import os
import subprocess
import sys
import threading
import time

SHAPES = [(1, 1), (1, 1000), (1000, 1), (2, 3), (17, 83), (83, 17), (31, 33), (33, 31),
          (64, 96), (127, 129), (257, 1031), (1031, 257), (4099, 129), (129, 4099),
          (36, 100), (132, 68), (4100, 8196), (8, 4), (136, 200), (4104, 8196), (32705, 3),
          (32833, 67)]
LARGE = [(46349, 46349), (1, 2147483647)]
LARGE_BYTES = 2 * 4 * max(r * c for r, c in LARGE)  # input and output, float


def free_bytes():
    """(the free memory of the GPU the runs see, the host's available memory), in bytes; None
    for what cannot be read."""
    gpu = host = None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0] or "0"
    try:
        r = subprocess.run(["nvidia-smi", "-i", visible, "--query-gpu=memory.free",
                            "--format=csv,noheader,nounits"], capture_output=True, text=True)
        gpu = int(r.stdout.split()[0]) * 2**20 if r.returncode == 0 else None
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    host = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return gpu, host


def large_at_once():
    """The large runs at once: what the GPU's and the host's free memory hold, with a quarter
    to spare, at least 1 and at most workers() and PLAIN_LARGE_AT_ONCE; 2 where the memory
    cannot be read."""
    known = [b for b in free_bytes() if b is not None]
    fit = min(b // (LARGE_BYTES * 5 // 4) for b in known) if len(known) == 2 else 2
    try:
        cap = max(1, int(os.environ["PLAIN_LARGE_AT_ONCE"]))
    except (KeyError, ValueError):
        cap = workers()
    return max(1, min(workers(), cap, fit))


def workers():
    """The runs at once: TT_THREADS where the GPU check sets it, else the host's cores."""
    try:
        return max(1, int(os.environ.get("TT_THREADS", "")))
    except ValueError:
        return max(1, os.cpu_count() or 1)


def step_refuses(plain, rows, cols):
    """Whether the step's own program (beside its plain one) refuses a rows x cols matrix: its
    access analysis of one block exits non-zero (no GPU needed)."""
    step = os.path.join(os.path.dirname(plain), os.path.basename(os.path.dirname(plain)))
    r = subprocess.run([step, "--rows", str(rows), "--cols", str(cols), "--explain", "--sample",
                        "1"], capture_output=True, text=True)
    return r.returncode != 0 and "error:" in r.stderr


def main():
    build = sys.argv[1]
    large = "--large" in sys.argv[2:]
    plains = sorted(glob.glob(os.path.join(build, "steps", "*", "*-plain")))
    if not plains:
        print(f"test_plain: no plain program in {build}")
        return 2
    no_device = threading.Event()
    printing = threading.Lock()
    failed, skipped = [], []

    def run(exe, rows, cols):
        if no_device.is_set():
            return
        t0 = time.monotonic()
        r = subprocess.run([exe, str(rows), str(cols)], capture_output=True, text=True)
        took = time.monotonic() - t0
        if r.returncode == 3:
            no_device.set()
            return
        if r.returncode == 6:  # a GPU too old for the step: said, and not counted as passed
            with printing:
                print(f"skip   {os.path.basename(exe)} {rows} x {cols}: {r.stderr.strip()}",
                      flush=True)
                skipped.append(exe)
            return
        ok = r.returncode == 0 and " exact," in r.stdout
        if r.returncode == 2 and step_refuses(exe, rows, cols):
            # Beyond the grid the step's own program can launch (steps 02-07 map a side to
            # the grid's y, at most 65535 blocks): the plain file must refuse it too.
            ok, r.stdout = True, "refused, as its step's program does: " + r.stderr.strip()
        with printing:
            print(("ok     " if ok else "FAILED ") + f"{os.path.basename(exe)} {rows} x {cols}: "
                  + (r.stdout.strip() or r.stderr.strip()) + f" [{took:.1f} s]", flush=True)
            if not ok:
                failed.append(f"{exe} {rows} {cols}")

    small = [(exe, r, c) for exe in plains for r, c in SHAPES]
    big = [(exe, r, c) for exe in plains for r, c in LARGE] if large else []
    t0 = time.monotonic()
    # The first run alone: a machine without a device says so once, before anything else.
    run(*small[0])
    if no_device.is_set():
        print(f"skipped: {os.path.basename(small[0][0])} finds no CUDA device")
        return 77
    big_at_once = large_at_once() if big else 0
    with concurrent.futures.ThreadPoolExecutor(max(1, big_at_once)) as big_pool, \
            concurrent.futures.ThreadPoolExecutor(workers()) as small_pool:
        futures = [big_pool.submit(run, *job) for job in big]
        futures += [small_pool.submit(run, *job) for job in small[1:]]
        for f in futures:
            f.result()
    if no_device.is_set():
        print("skipped: a plain program found no CUDA device")
        return 77
    print(f"{len(small) + len(big)} runs, at most {workers()} small and {big_at_once} large at "
          f"once, in {time.monotonic() - t0:.0f} s")
    if skipped:
        print(f"{len(skipped)} skipped: {' '.join(sorted({os.path.basename(e) for e in skipped}))}"
              " need a newer GPU")
    print(f"{len(failed)} failed" if failed else "all exact" if not skipped else "the others exact")
    if failed:
        return 1
    return 77 if len(skipped) == len(small) + len(big) else 0


if __name__ == "__main__":
    sys.exit(main())
