#!/usr/bin/env python3
"""Checks that every variant declares the compute capability its machine code needs, on every
architecture the build holds, and that the pages list those variants as the programs do.

A variant declares a need (tt::needs(): 8.0 for cp.async and the L2 prefetch-size hint, 9.0
for the tensor memory accelerator); a program on an older GPU names such a variant and does
not launch it. `--list` prints each declared need. This script reads, for every step program
of a build, every architecture in it (`cuobjdump -lelf`) and every variant, the machine code
of the variant's kernels (those its `--explain` names at shapes that reach each of its paths)
and fails if:

  - a kernel of the variant uses an instruction of a newer GPU than the variant declares
    (LDGSTS or LDG...LTC256B: 8.0; UTMALDG or UTMASTG: 9.0): on an older GPU it would be
    launched and trap, or lose what the step teaches without a word;
  - a variant declares a need that none of its kernels has on any architecture of the build
    that meets it: the program would refuse a GPU that can run it.

With --doc FILE (and --no-sass, for the part that needs no cuobjdump), it checks instead that
the block of FILE between `<!-- needs -->` and `<!-- end -->` is the table of declared needs
the programs print; --write rewrites that block.

Usage: scripts/arch_check.py BUILD_DIR [--cuobjdump PATH] [--doc FILE [--write]] [--no-sass]
Exit status: 0 every check passed, 1 a check failed, 2 bad usage, 77 the machine code could
not be read (no cuobjdump) and nothing else was asked.
"""
import argparse
import concurrent.futures
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

# An instruction of a newer GPU: (pattern in the instruction's opcode, compute capability).
FEATURES = [("LDGSTS", 80), ("LTC256B", 80), ("UTMALDG", 90), ("UTMASTG", 90)]
# Shapes that reach every path of the steps: whole 16-byte rows, odd rows, even rows whose
# output rows are not whole sectors, and a matrix taller than step 17's hint is used for.
SHAPES = [("8192", "8192"), ("4099", "8191"), ("4098", "8196"), ("65535", "4097")]
BLOCK = re.compile(r"(<!-- needs -->\n)(.*?)(<!-- end -->)", re.S)


def declared(exe):
    """{variant: (compute capability as 10 x major + minor, what)} from `--list`."""
    out = {}
    if os.path.basename(exe) == "01-hello-world":  # it transposes nothing: no variants
        return out
    r = subprocess.run([exe, "--list"], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        name = line.split(":")[0].split(" ")[0]
        m = re.search(r"\[needs compute capability (\d+)\.(\d): (.*)\]$", line)
        out[name] = (10 * int(m.group(1)) + int(m.group(2)), m.group(3)) if m else (0, "")
    return out


def kernels_of(exe):
    """{variant: {normalised kernel name}} over SHAPES, both types."""
    out = {}
    for rows, cols in SHAPES:
        for dtype in ("float", "double"):
            r = subprocess.run([exe, "--explain", "--format", "json", "--variant", "all",
                                "--dtype", dtype, "--rows", rows, "--cols", cols, "--sample",
                                "1"], capture_output=True, text=True)
            for line in r.stdout.splitlines() if r.returncode == 0 else []:
                plan = json.loads(line)
                if plan["kernel"]:
                    out.setdefault(plan["variant"], set()).add(
                        sass_check.normalise(plan["kernel"]))
    return out


def architectures(cuobjdump, exe):
    r = subprocess.run([cuobjdump, "-lelf", exe], capture_output=True, text=True)
    return sorted({int(a) for a in re.findall(r"\.sm_(\d+)[a-z]?\.cubin", r.stdout)})


def features_by_kernel(cuobjdump, exe, arch):
    """{normalised kernel name: {feature compute capability}} of @p exe for sm_@p arch."""
    listing = sass_check.sass_listing(cuobjdump, exe, f"sm_{arch}")
    names = sass_check.demangle(list(listing))
    out = {}
    for mangled, code in listing.items():
        found = {cc for op in map(sass_check.opcode, code) for pat, cc in FEATURES if pat in op}
        out[sass_check.normalise(names.get(mangled, mangled))] = found
    return out


def check_program(cuobjdump, exe):
    """[failure], [line of the table] for one program."""
    step = os.path.basename(exe)
    needs = declared(exe)
    failures, lines = [], []
    if not needs:
        return failures, lines
    kernels, archs = kernels_of(exe), architectures(cuobjdump, exe)
    if not archs:
        return [f"{step}: cuobjdump finds no machine code in it"], lines
    code = {a: features_by_kernel(cuobjdump, exe, a) for a in archs}
    for variant, (need, what) in sorted(needs.items()):
        names = kernels.get(variant, set())
        if not names:
            failures.append(f"{step}/{variant}: no kernel named by --explain")
            continue
        missing = [n for n in names if n not in code[archs[-1]]]
        if missing:
            failures.append(f"{step}/{variant}: kernels not in the program: {missing}")
            continue
        uses = {a: set().union(*(code[a][n] for n in names)) for a in archs}
        most = max((max(u) for u in uses.values() if u), default=0)
        if most > need:
            where = [a for a in archs if uses[a] and max(uses[a]) == most]
            failures.append(f"{step}/{variant}: its machine code for sm_{where[0]} uses an "
                            f"instruction of compute capability {most / 10:.1f}, and it "
                            f"declares {need / 10:.1f}")
        checkable = [a for a in archs if a >= need]
        if need and checkable and not any(need in uses[a] for a in checkable):
            failures.append(f"{step}/{variant}: declares {need / 10:.1f} ({what}), but none of "
                            f"its kernels uses an instruction of {need / 10:.1f} on "
                            f"{', '.join(f'sm_{a}' for a in checkable)}")
        lines.append(f"{step}/{variant}: declares {need / 10:.1f}, uses "
                     f"{most / 10:.1f}, {len(names)} kernel(s), sm_{'/'.join(map(str, archs))}")
    return failures, lines


def needs_table(build):
    rows = []
    for exe in sass_check.programs(build):
        for variant, (need, what) in declared(exe).items():
            if need:
                rows.append(f"| `{os.path.basename(exe)}` | `{variant}` | "
                            f"{need // 10}.{need % 10} | {what} |")
    return "| Step | Variant | Needs compute capability | For |\n|---|---|---|---|\n" + \
        "\n".join(rows) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--cuobjdump")
    ap.add_argument("--doc")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--no-sass", action="store_true")
    a = ap.parse_args()
    if not sass_check.programs(a.build):
        print(f"arch_check: no step programs in {a.build}", file=sys.stderr)
        return 2
    failures = []
    if a.doc:
        text = open(a.doc).read()
        m = BLOCK.search(text)
        if not m:
            print(f"arch_check: {a.doc} has no <!-- needs --> ... <!-- end --> block",
                  file=sys.stderr)
            return 2
        want = needs_table(a.build)
        if a.write:
            with open(a.doc, "w") as f:
                f.write(text[:m.start(2)] + want + text[m.end(2):])
            print(f"arch_check: wrote the table of needs in {a.doc}")
        elif m.group(2) != want:
            failures.append(f"{a.doc}: its table of the variants that need a newer GPU is not "
                            f"what the programs declare; rewrite it with scripts/arch_check.py "
                            f"{a.build} --doc {a.doc} --write --no-sass:\n{want}")
        else:
            print(f"{a.doc}: the table of needs is what the programs declare")
    if not a.no_sass:
        cuobjdump = sass_check.find_cuobjdump(a.cuobjdump)
        if not cuobjdump or not sass_check.disassembler_works(cuobjdump):
            print("arch_check: skipped: no working cuobjdump and nvdisasm to read the machine "
                  "code")
            return 1 if failures else (0 if a.doc else 77)
        with concurrent.futures.ThreadPoolExecutor(max_workers=sass_check.host_threads()) as pool:
            results = list(pool.map(lambda exe: check_program(cuobjdump, exe),
                                    sass_check.programs(a.build)))
        for fails, lines in results:
            for line in lines:
                print(line)
            failures += fails
    for f in failures:
        print(f"FAIL: {f}")
    print(f"{len(failures)} failed" if failures else "every variant declares what its machine "
          "code needs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
