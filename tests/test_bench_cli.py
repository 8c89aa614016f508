#!/usr/bin/env python3
"""The benchmark's command line, without a GPU: --help exits 0, --list plans the runs, and
bad input exits 2 with one message on stderr before any device call (on a machine without a
GPU, a device call would make it exit 3 instead).

Usage: test_bench_cli.py BENCH
"""
import re
import subprocess
import sys

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

    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    BENCH = sys.argv[1]
    sys.exit(main())
