#!/usr/bin/env python3
"""The benchmark's command line, without a GPU: --help exits 0, --list plans the runs, and
bad input exits 2 with one message on stderr before any device call (on a machine without a
GPU, a device call would make it exit 3 instead).

It also checks --predict against a device folder written here (predictions of the bandwidth
model, scripts/bandwidth_model.py): printed beside the plan, read with quoted fields, and a
folder that is not one exits 2.

Usage: test_bench_cli.py BENCH
"""
import os
import re
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)


def bench(*args):
    return subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=60)


def main():
    r = bench("--help")
    check(r.returncode == 0 and "--sweep" in r.stdout and "--sizes" in r.stdout,
          f"--help: exit status 0 and the options (got {r.returncode})")

    bad = [(["--sizes", "abc"], "--sizes"), (["--sizes", "4096,4x0"], "--sizes"),
           (["--sizes", "8192x"], "--sizes"), (["--sizes", "3000000000"], "--sizes"),
           (["--dtypes", "half"], "--dtypes"), (["--sweep", "nope"], "--sweep"),
           (["--reps", "0"], "--reps"), (["--warmup", "x"], "--warmup"),
           (["--device", "-1"], "--device"), (["--bogus"], "--bogus")]
    for args, flag in bad:
        r = bench(*args)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and r.stdout == "" and len(lines) == 2 and flag in lines[0]
              and "--help" in lines[1],
              f"{' '.join(args)}: exit status 2, one message naming {flag} "
              f"(got {r.returncode}: {r.stderr.strip()})")

    # --list: the plan, numbered [i/N], and nothing run.
    r = bench("--list", "--sizes", "8192,4099x8191", "--dtypes", "float")
    lines = r.stdout.splitlines()
    n = len(lines)
    check(r.returncode == 0 and n > 6 and all(re.match(rf"\[\d+/{n}\] headline: ", x)
                                              for x in lines),
          f"--list: exit status 0, {n} numbered headline lines")
    for ref in ("memcpy", "copy-kernel", "cublas"):
        check(sum(f"references/{ref} float" in x for x in lines) == 2,
              f"--list: references/{ref} at each of the 2 sizes")
    r = bench("--list", "--sweep", "block", "--dtypes", "double")
    check(r.returncode == 0 and "02-naive/" in r.stdout and "block 32x32 double 8192x8192"
          in r.stdout and "block 8x8" in r.stdout,
          "--list --sweep block: 02-naive with the block shapes at 8192x8192")
    r = bench("--list", "--sweep", "size")
    check(r.returncode == 0 and "float 256x256" in r.stdout and "float 16384x16384" in r.stdout
          and " double " not in r.stdout, "--list --sweep size: float from 256 to 16384")

    # --predict: a device folder's predictions beside the plan, without a GPU.
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "latency-load.csv"), "w") as f:
            f.write('device,sms,bytes\n"Some GPU, 2 ways",132,1073741824\n')
        with open(os.path.join(d, "predictions.csv"), "w") as f:
            f.write("program,variant,dtype,rows,cols,kernel,inside,predicted_gbps,"
                    "predicted_pct_copy,bound\n"
                    '05-multi-element,elements-4,float,8192,8192,"k<a,b>",yes,1234.4,56.78,'
                    "latency\n"
                    '02-naive,write-coalesced,float,8192,8192,"k<c,d>",no,999.6,45.01,copy\n')
        r = bench("--list", "--sizes", "8192", "--dtypes", "float", "--predict", d)
        out = r.stdout
        check(r.returncode == 0 and "for Some GPU, 2 ways" in out
              and "05-multi-element/elements-4 float 8192x8192: predicted 1234 GB/s, 56.8% of "
                  "the copy (latency-bound)" in out
              and "02-naive/write-coalesced float 8192x8192: at most 1000 GB/s, 45.0% of the "
                  "copy (copy-bound)" in out
              and "03-shared/tile-32x32 float 8192x8192: no prediction" in out
              and "references/memcpy float 8192x8192\n" in out,
              f"--list --predict: each planned kernel with its prediction, or none "
              f"(got {r.returncode}: {out[-600:]})")
        with open(os.path.join(d, "predictions.csv"), "a") as f:
            f.write("07-swizzle,tile64,float,8192,8192\n")
        r = bench("--list", "--predict", d)
        check(r.returncode == 2 and "--predict" in r.stderr and r.stdout == "",
              f"--predict: a ragged predictions.csv exits 2 (got {r.returncode})")
    r = bench("--list", "--predict", os.path.dirname(os.path.abspath(__file__)))
    check(r.returncode == 2 and "--predict" in r.stderr and r.stdout == "",
          f"--predict: a folder that is not a device folder exits 2 (got {r.returncode})")

    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    BENCH = sys.argv[1]
    sys.exit(main())
