#!/usr/bin/env python3
"""Tests of scripts/sass_check.py: its reading of SASS on opcode lists that batch and that
serialise, its name matching, its occupancy arithmetic, and (where nvcc and cuobjdump are
present) two real kernels compiled for sm_90, one batched and one serialised.

Usage: test_sass_check.py SCRIPT [NVCC]   (the compiled part is left out, with a note, where
nvcc or cuobjdump is missing; the rest always runs)."""
import importlib.util
import os
import subprocess
import sys
import tempfile

spec = importlib.util.spec_from_file_location("sass_check", sys.argv[1])
sc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sc)

failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


# Runs of loads between shared stores.
batched = ["LDG.E.128.CONSTANT"] * 4 + ["STS.128"] * 4 + ["BAR.SYNC", "LDS", "STG.E.128"]
runs, problems = sc.check_kernel(batched, 4, 16)
check(runs == [4] and not problems, f"four batched 16-byte loads pass: {runs} {problems}")
serial = ["LDG.E.CONSTANT", "STS"] * 4 + ["BAR.SYNC"]
runs, problems = sc.check_kernel(serial, 4, 4)
check(runs == [1, 1, 1, 1] and problems, "loads each followed by a shared store fail")
runs, problems = sc.check_kernel(batched, 4, 8)
check(any("bytes" in p for p in problems), "a width other than the described one fails")
runs, problems = sc.check_kernel(["LDG.E"] * 2 + ["STL", "STS", "STS"], 2, 4)
check(any("local memory" in p for p in problems), "local memory fails")
runs, problems = sc.check_kernel(["LDG.E.64", "STG.E.64"], 1, 8)
check(not problems, "a kernel without a tile (one load, one store) passes")

# Names: the compiler's spelling and the demangler's compare equal.
check(sc.normalise("step06::transpose_vec<step07::Swizzled<float, 64, 512> >")
      == sc.normalise("void step06::transpose_vec<step07::Swizzled<float, 64, 512> >"
                      "(float const*, float*, int, int)"), "names normalise alike")
check(sc.normalise("a::k<b::W<1> >") != sc.normalise("a::k<b::W<2> >"), "names stay distinct")

# Occupancy for compute capability 9.0.
check(sc.occupancy(256, 32, 4224) == (8, "threads"), f"256 threads, 32 registers: 8 blocks "
      f"{sc.occupancy(256, 32, 4224)}")
check(sc.occupancy(256, 40, 16384)[0] == 6, "40 registers a thread allow 6 blocks of 256")
check(sc.occupancy(128, 16, 64 * 1024)[0] == 3, "64 KB of shared memory allow 3 blocks")

# Two real kernels, compiled here, when the tools are present.
nvcc = sys.argv[2] if len(sys.argv) > 2 else "nvcc"
cuobjdump = sc.find_cuobjdump(None)
compiled = False
if cuobjdump and sc.disassembler_works(cuobjdump) and \
        subprocess.run(["which", nvcc], capture_output=True).returncode == 0:
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sass_serial.cu")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        r = subprocess.run([nvcc, "-arch=sm_90", "-cubin", "-o", cubin, source],
                           capture_output=True, text=True)
        check(r.returncode == 0, "nvcc compiles tests/data/sass_serial.cu: " + r.stderr)
        if r.returncode == 0:
            kernels = sc.sass_kernels(cuobjdump, cubin, "sm_90")
            by_name = {sc.normalise(v): k for k, v in sc.demangle(list(kernels)).items()}
            runs, problems = sc.check_kernel(kernels[by_name["batched"]], 4, 4)
            check(not problems, f"the batched kernel passes: runs {runs} {problems}")
            runs, problems = sc.check_kernel(kernels[by_name["serial"]], 4, 4)
            check(problems, f"the serialised kernel fails: runs {runs}")
            compiled = True

print(f"{len(failed)} failure(s)" if failed else "all passed")
if failed:
    sys.exit(1)
if not compiled:
    print("note: no nvcc, or no cuobjdump and nvdisasm here, so the two compiled kernels were "
          "not checked")
