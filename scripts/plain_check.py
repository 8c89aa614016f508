#!/usr/bin/env python3
"""Checks in the machine code that each step's plain CUDA file (steps/NN-name/plain.cu, built
as NN-name-plain) makes the memory accesses of the step's headline kernel: on the path a
thread of a whole tile takes (sass_check.main_path()), the same global loads and stores and
the same shared loads and stores, of the same widths, as many of each. So the plain file and
the step cannot drift apart without a test failing.

Which kernels are compared:

  - A plain file may name each of its kernels in a comment line of its own,
        // plain_check: KERNEL ROWSxCOLS
    e.g. `// plain_check: transpose_skewed 4099x8191`: KERNEL (its name in the plain program,
    without parameters) is compared with the kernel that the step's headline variant runs
    at ROWS x COLS in float. This is for steps whose headline variant runs different kernels
    at different shapes (step 09's whole-sector kernel at 8192 x 8192, its skewed tiles at
    4099 x 8191). Where a file has such lines, every kernel of its plain program must be named
    in one, and every kernel named must be in the program.
  - A file without such lines: the step's kernel is the one its headline variant runs at
    8192 x 8192 in float, and the plain program's is its only kernel but one named
    `transpose_fallback`, where it has one: the kernel that takes the shapes the headline path
    cannot (a side that is not a multiple of the vector), as the step's variant falls back to
    its scalar path.

The headline variant is the one `course/bench --list` names; the kernel it runs at a shape is
the one the step's program describes there (`--explain --format json --rows R --cols C`, no
GPU needed). Both programs are read for the first architecture the plain program holds on
which the headline variant runs (at or above the compute capability its `--list` line says
it needs: 8.0 for step 11's cp.async).

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
spec = importlib.util.spec_from_file_location("arch_check", os.path.join(HERE, "arch_check.py"))
arch_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(arch_check)

MEMORY = ("LDG", "STG", "LDS", "STS", "LDGSTS")
TAIL = "// --- Everything below is the same in every plain step"


# An instruction guarded by the predicate that is always false (`@!PT`, `@!UPT`) never runs:
# the assembler pads with such (`@!PT LDS RZ, [RZ]` before a group of LDGSTS, for one).
NEVER = re.compile(r"^\s*@!U?PT\s")


def accesses(code):
    """Counter of the memory instructions (opcode, width and L2 prefetch size, without the other
    cache hints) on the main path, leaving out the instructions that never run (NEVER)."""
    if code and isinstance(code[0], str):
        code = [(4 * i, op) for i, op in enumerate(code)]
    code = [(addr, "NOP" if NEVER.match(text) else text) for addr, text in code]
    ops = []
    if sass_check.main_path(code, ops) is None:
        return None
    kept = collections.Counter()
    for op in ops:
        base = op.split(".")[0]
        if base in MEMORY:
            # Its width, and the L2 prefetch-size hint where it has one (step 17's LTC256B).
            kind = [w for w in op.split(".")[1:]
                    if w in ("U8", "S8", "U16", "S16", "64", "128", "LTC64B", "LTC128B", "LTC256B")]
            kept[base + "".join("." + w for w in kind)] += 1
    return kept


# `// plain_check: KERNEL ROWSxCOLS`, a line of its own in a plain file.
NAMED = re.compile(r"^//\s*plain_check:\s*(\w+)\s+(\d+)x(\d+)\s*$", re.M)


def named_kernels(text):
    """[(kernel, rows, cols)] of the `// plain_check: KERNEL ROWSxCOLS` lines of a plain file,
    in their order; [] where it has none."""
    return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in NAMED.finditer(text)]


def headline_variant(build, step):
    """The name of the step's headline variant (Step::headline), as course/bench lists it."""
    r = subprocess.run([os.path.join(build, "course", "bench"), "--list", "--sizes", "8192",
                        "--dtypes", "float"], capture_output=True, text=True)
    m = re.search(rf"headline: {re.escape(step)}/(\S+) float", r.stdout)
    if not m:
        raise SystemExit(f"plain_check: course/bench lists no headline variant of {step}")
    return m.group(1)


def needs(exe, variant):
    """The compute capability the variant declares it needs, as 10 x major + minor (0: none),
    as scripts/arch_check.py reads it from `--list`."""
    return arch_check.declared(exe).get(variant, (0, ""))[0]


def headline(exe, variant, rows=8192, cols=8192):
    """The normalised name of the kernel that variant @p variant of the step program @p exe
    runs at rows x cols, float; None where the program describes none there."""
    r = subprocess.run([exe, "--explain", "--format", "json", "--sample", "1", "--rows",
                        str(rows), "--cols", str(cols), "--dtype", "float", "--variant", variant],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        return None
    plan = json.loads(r.stdout.splitlines()[0])
    return sass_check.normalise(plan["kernel"]) if plan.get("kernel") else None


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
    tails, sources = {}, {}
    for plain in plains:
        step = os.path.basename(os.path.dirname(plain))
        path = os.path.join(root, "steps", step, "plain.cu")
        text = open(path).read() if os.path.exists(path) else None
        sources[step] = text
        at = text.find(TAIL) if text is not None else -1
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
    unchecked = []
    for plain in plains:
        step = os.path.basename(os.path.dirname(plain))
        exe = os.path.join(os.path.dirname(plain), step)
        listing = subprocess.run([cuobjdump, "-lelf", plain], capture_output=True, text=True)
        archs = sorted(set(re.findall(r"\.(sm_\d+)[a-z]?\.cubin", listing.stdout)),
                       key=lambda x: int(x[3:]))
        variant = headline_variant(a.build, step)
        # The first architecture the headline variant runs on: below the compute capability it
        # needs (step 11's cp.async: 8.0), neither kernel runs, and their code is a stub.
        runs_on = [x for x in archs if int(x[3:]) >= needs(exe, variant)]
        if not archs:
            failures.append(f"{plain}: no machine code")
            continue
        if not runs_on:  # said, and not counted as checked
            unchecked.append(f"{step} (this build has only {', '.join(archs)}; {step}/{variant}"
                             f" needs compute capability {needs(exe, variant) / 10:.1f})")
            continue
        arch = runs_on[0]
        kernels = sass_check.sass_kernels(cuobjdump, plain, arch)
        plain_names = sass_check.demangle(list(kernels))
        mine = {sass_check.normalise(plain_names.get(m, m)): c for m, c in kernels.items()}
        theirs = sass_check.sass_kernels(cuobjdump, exe, arch)
        names = sass_check.demangle(list(theirs))
        # (plain kernel's name or None, its code, the shape, the step's kernel at that shape)
        pairs = []
        named = named_kernels(sources[step] or "")
        if named:
            listed = {k for k, _, _ in named}
            for k in sorted(set(mine) - listed):
                failures.append(f"{step}: the plain program's kernel {k} is named in no "
                                f"'// plain_check: KERNEL ROWSxCOLS' line of its plain.cu")
            for k, rows, cols in named:
                if k not in mine:
                    failures.append(f"{step}: plain.cu names {k} in a plain_check line, but "
                                    f"the plain program has no such kernel")
                    continue
                pairs.append((k, mine[k], (rows, cols), headline(exe, variant, rows, cols)))
        else:
            only = [(k, c) for k, c in mine.items() if "transpose_fallback" not in k]
            if len(only) != 1:
                failures.append(f"{step}: {len(only)} kernel(s) in the plain program besides "
                                f"transpose_fallback, and no plain_check line to name them")
                continue
            pairs.append((None, only[0][1], (8192, 8192), headline(exe, variant)))
        for k, code_mine, (rows, cols), want_name in pairs:
            code = [c for m, c in theirs.items()
                    if sass_check.normalise(names.get(m, m)) == want_name]
            if want_name is None or len(code) != 1:
                failures.append(f"{step}: the step's {variant} runs no kernel that its program "
                                f"holds once at {rows} x {cols} float ({want_name})")
                continue
            got, want = accesses(code_mine), accesses(code[0])
            what = "plain" if k is None else f"plain {k}"
            at = "" if k is None else f" at {rows} x {cols}"
            line = (f"{step} ({arch}): {what} {dict(sorted((got or {}).items()))}, step's "
                    f"{want_name}{at} {dict(sorted((want or {}).items()))}")
            print(line)
            if got is None or want is None or got != want:
                failures.append(line)
    for f in failures:
        print(f"FAIL: {f}")
    for u in unchecked:
        print(f"not checked: {u}")
    print(f"{len(failures)} failed" if failures else
          "every plain file checked makes its step's memory accesses" if unchecked else
          "every plain file makes its step's memory accesses")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
