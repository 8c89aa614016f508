#!/usr/bin/env python3
"""Checks in the machine code that each step's plain CUDA file (steps/NN-name/plain.cu, built
as NN-name-plain) makes the memory accesses of the step's headline kernel: on the path a
thread of a whole tile takes (sass_check.main_path()), the same global loads and stores and
the same shared loads and stores, of the same widths, as many of each. So the plain file and
the step cannot drift apart without a test failing.

The step's kernel is the one its headline variant (as `course/bench --list` names it) runs at
8192 x 8192 in float (`--explain --format json`); the plain program's is its only kernel but
one named `transpose_fallback`, where it has one: the kernel that takes the shapes the headline
path cannot (a side that is not a multiple of the vector), as the step's variant falls back to
its scalar path. Both for the first architecture the build holds.

Each plain file stands alone, so the part that is not the lesson (input, check, timing) is
written out in every one: from the line `// --- Everything below is the same in every plain
step` to the end, the files must be the same (this needs no cuobjdump), so that a fix to one
reaches them all.

Usage: scripts/plain_check.py BUILD_DIR [--cuobjdump PATH]
Exit status: 0 every plain file matches, 1 one does not, 2 no plain program in the build,
77 no cuobjdump to read the machine code.
"""
import argparse
import collections
import glob
import importlib.util
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("sass_check", os.path.join(HERE, "sass_check.py"))
sass_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sass_check)

MEMORY = ("LDG", "STG", "LDS", "STS", "LDGSTS")
TAIL = "// --- Everything below is the same in every plain step"


def accesses(code):
    """Counter of the memory instructions (opcode without its cache hints) on the main path."""
    ops = []
    if sass_check.main_path(code, ops) is None:
        return None
    kept = collections.Counter()
    for op in ops:
        base = op.split(".")[0]
        if base in MEMORY:
            widths = [w for w in op.split(".")[1:] if w in ("U8", "S8", "U16", "S16", "64", "128")]
            kept[base + ("." + widths[0] if widths else "")] += 1
    return kept


def headline(build, exe):
    """The normalised name of the kernel the step's headline variant (Step::headline, as
    course/bench lists it) runs at 8192 x 8192, float."""
    step = os.path.basename(exe)
    r = subprocess.run([os.path.join(build, "course", "bench"), "--list", "--sizes", "8192",
                        "--dtypes", "float"], capture_output=True, text=True)
    m = re.search(rf"headline: {re.escape(step)}/(\S+) float", r.stdout)
    if not m:
        raise SystemExit(f"plain_check: course/bench lists no headline variant of {step}")
    r = subprocess.run([exe, "--explain", "--format", "json", "--sample", "1", "--size",
                        "8192", "--dtype", "float", "--variant", m.group(1)],
                       capture_output=True, text=True)
    plan = json.loads(r.stdout.splitlines()[0])
    return sass_check.normalise(plan["kernel"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--cuobjdump")
    a = ap.parse_args()
    plains = sorted(glob.glob(os.path.join(a.build, "steps", "*", "*-plain")))
    if not plains:
        print(f"plain_check: no plain program in {a.build}", file=sys.stderr)
        return 2
    failures = []
    root = os.path.dirname(HERE)
    tails = {}
    for plain in plains:
        step = os.path.basename(os.path.dirname(plain))
        text = open(os.path.join(root, "steps", step, "plain.cu")).read()
        at = text.find(TAIL)
        tails[step] = text[at:] if at >= 0 else None
    first = next(iter(tails))
    for step, tail in tails.items():
        if tail is None or tail != tails[first]:
            failures.append(f"steps/{step}/plain.cu: its part after '{TAIL}' is not "
                            f"steps/{first}/plain.cu's")
    cuobjdump = sass_check.find_cuobjdump(a.cuobjdump)
    if not cuobjdump or not sass_check.disassembler_works(cuobjdump):
        for f in failures:
            print(f"FAIL: {f}")
        print("plain_check: the machine code skipped: no working cuobjdump and nvdisasm")
        return 1 if failures else 77
    for plain in plains:
        step = os.path.basename(os.path.dirname(plain))
        exe = os.path.join(os.path.dirname(plain), step)
        listing = subprocess.run([cuobjdump, "-lelf", plain], capture_output=True, text=True)
        archs = sorted(set(re.findall(r"\.(sm_\d+)[a-z]?\.cubin", listing.stdout)))
        if not archs:
            failures.append(f"{plain}: no machine code")
            continue
        arch = archs[0]
        kernels = sass_check.sass_kernels(cuobjdump, plain, arch)
        plain_names = sass_check.demangle(list(kernels))
        mine = [c for m, c in kernels.items() if "transpose_fallback" not in plain_names.get(m, m)]
        want_name = headline(a.build, exe)
        theirs = sass_check.sass_kernels(cuobjdump, exe, arch)
        names = sass_check.demangle(list(theirs))
        code = [c for m, c in theirs.items() if sass_check.normalise(names.get(m, m)) == want_name]
        if len(mine) != 1 or len(code) != 1:
            failures.append(f"{step}: {len(mine)} kernel(s) in the plain program, {len(code)} "
                            f"named {want_name} in the step")
            continue
        got, want = accesses(mine[0]), accesses(code[0])
        line = (f"{step} ({arch}): plain {dict(sorted((got or {}).items()))}, step's "
                f"{want_name} {dict(sorted((want or {}).items()))}")
        print(line)
        if got is None or want is None or got != want:
            failures.append(line)
    for f in failures:
        print(f"FAIL: {f}")
    print(f"{len(failures)} failed" if failures else
          "every plain file makes its step's memory accesses")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
