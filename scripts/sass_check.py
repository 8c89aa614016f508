#!/usr/bin/env python3
"""Checks in the compiled machine code (SASS) that every kernel batches the loads its step
says it batches, and reports the bytes each thread and each SM keeps in flight.

For every step program in a build, every variant and both element types, at a shape whose
rows are whole 16-byte vectors (8192 x 8192: the 16-byte paths) and one whose rows are not
(4099 x 8191: the scalar paths), the program's own description (`--explain --format json`,
no GPU needed) names the kernel, its block, its shared memory, and the global loads each
thread issues before its first store (W::kLoadPasses, each W::kVec elements wide). The
script then reads that kernel's SASS (`cuobjdump -sass`) and resource usage
(`cuobjdump -res-usage`) and fails if:

  - the kernel is not in the program, or the program has a kernel no description names;
  - the longest run of global loads (LDG) with no shared store (STS) between them is shorter
    than the loads the description says each thread issues before its first shared store:
    the kernel then waits for one load's data before it issues the next, and serialises
    what the chapter says it batches (kernels without a tile: no STS, one load each);
  - a global load is narrower or wider than the description's width (a 16-byte access split
    in two, say);
  - the kernel uses local memory (LDL/STL): its register array spilled.

The tiled kernels run a check-free path for blocks whose tile lies wholly inside the matrix
and a checked path for edge blocks; the longest run is the check-free path's. The table also
lists every run of loads, so the checked path's are visible too.

Occupancy is computed for compute capability 9.0 (the H100 and H200): at most 2048 threads,
64 warps, 32 blocks, 65536 registers (allocated 256 a warp, in 4 quarters of 16384) and
233472 bytes of shared memory an SM, of which 1024 are reserved for each block. Bytes in
flight an SM are blocks an SM x threads a block x loads a thread x bytes a load: the most the
SM can have outstanding when every resident thread has issued all its loads.

With --latency-ns L (a measured load latency, e.g. from the latency program) and --sms S,
the table adds Little's law: S x bytes in flight an SM / L, the bandwidth those bytes could
sustain; with --copy-gbps C the prediction is capped at the copy ceiling C.

Usage: scripts/sass_check.py BUILD_DIR [--cuobjdump PATH] [--arch sm_90] [--markdown FILE]
                             [--latency-ns L --sms S [--copy-gbps C]] [--only PROGRAM ...]
Exit status: 0 every check passed, 1 a check failed, 77 nothing checked (no cuobjdump, or no
program built for the architecture).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

SHAPES = [("8192", "8192"), ("4099", "8191")]
DTYPES = ["float", "double"]
SKIP = 77

# Compute capability 9.0 (cudaDeviceProp of an H100 / H200).
SM90 = dict(threads=2048, warps=64, blocks=32, regs=65536, reg_unit=256, smem=233472,
            smem_reserved=1024)


def find_cuobjdump(given):
    """cuobjdump from --cuobjdump, PATH, the CUDA toolkit, or the PyPI package."""
    candidates = [given] if given else []
    candidates.append(shutil.which("cuobjdump"))
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            candidates.append(os.path.join(root, "bin", "cuobjdump"))
    try:  # pip install nvidia-cuda-cuobjdump: nvidia/cu13/bin/cuobjdump
        import nvidia  # noqa: F401
        for base in nvidia.__path__:
            candidates += glob.glob(os.path.join(base, "cu*", "bin", "cuobjdump"))
    except ImportError:
        pass
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def disassembler_works(cuobjdump):
    """Whether cuobjdump can run nvdisasm, which it needs to print SASS: beside it or on PATH
    (added to the environment here when it sits beside cuobjdump, as the PyPI packages put
    them)."""
    beside = os.path.join(os.path.dirname(cuobjdump), "nvdisasm")
    if os.access(beside, os.X_OK):
        os.environ["PATH"] = os.path.dirname(cuobjdump) + os.pathsep + os.environ.get("PATH", "")
        return True
    return shutil.which("nvdisasm") is not None


def programs(build):
    return sorted(p for p in glob.glob(os.path.join(build, "steps", "*", "*"))
                  if os.path.basename(p) == os.path.basename(os.path.dirname(p))
                  and os.access(p, os.X_OK))


def descriptions(exe):
    """Every plan the program describes: {normalised kernel name: plan}."""
    out = {}
    for rows, cols in SHAPES:
        for dtype in DTYPES:
            r = subprocess.run([exe, "--explain", "--format", "json", "--variant", "all",
                                "--dtype", dtype, "--rows", rows, "--cols", cols,
                                "--sample", "1"], capture_output=True, text=True)
            if r.returncode != 0:
                continue  # 01-hello-world takes no such options
            for line in r.stdout.splitlines():
                plan = json.loads(line)
                if not plan["kernel"]:
                    continue
                plan["shape"] = f"{rows} x {cols}"
                out.setdefault(normalise(plan["kernel"]), plan)
    return out


def normalise(name):
    """A kernel's name without namespaces, return type, parameters or spaces, so that the
    compiler's spelling (from the program) and the demangler's (from the SASS) compare."""
    name = name.strip()
    if name.startswith("void "):
        name = name[5:]
    if name.endswith(")"):  # drop the parameter list
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    name = name.replace("(anonymous namespace)::", "")
    name = re.sub(r"\b[A-Za-z_]\w*::", "", name)
    return re.sub(r"\s+", "", name)


def demangle(names):
    if not names:
        return {}
    r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return dict(zip(names, r.stdout.splitlines()))


def sass_listing(cuobjdump, exe, arch):
    """{mangled name: [instruction text, with its predicate]} of the kernels for @p arch."""
    r = subprocess.run([cuobjdump, "-sass", "-arch", arch, exe], capture_output=True, text=True)
    if r.returncode != 0 and "fatal" in r.stderr:
        raise RuntimeError(f"cuobjdump -sass failed on {exe}: {r.stderr.strip()}")
    kernels, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            kernels[cur] = []
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if m and cur:
            kernels[cur].append(re.sub(r"\s+", " ", m.group(1).strip()))
    return kernels


def opcode(instruction):
    """The opcode of a SASS instruction, without its predicate: "LDG.E.128.CONSTANT"."""
    return re.sub(r"^@!?U?P\w+\s+", "", instruction).split(" ")[0]


def sass_kernels(cuobjdump, exe, arch):
    """{mangled name: [opcodes in program order]} of the kernels for @p arch."""
    return {k: [opcode(i) for i in v] for k, v in sass_listing(cuobjdump, exe, arch).items()}


def resources(cuobjdump, exe, arch):
    """{mangled name: {REG, SHARED, LOCAL, STACK}}."""
    r = subprocess.run([cuobjdump, "-res-usage", "-arch", arch, exe], capture_output=True,
                       text=True)
    out, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            cur = m.group(1)
            continue
        if cur and "REG:" in line:
            out[cur] = {k: int(v) for k, v in re.findall(r"(\w+):(\d+)", line)}
            cur = None
    return out


def width(op):
    """Bytes of a global load or store opcode such as LDG.E.128.CONSTANT."""
    for bits, size in ((".128", 16), (".64", 8), (".U16", 2), (".S16", 2), (".U8", 1),
                       (".S8", 1)):
        if bits in op:
            return size
    return 4


def load_runs(ops):
    """The runs of global loads between shared stores, in program order."""
    runs, n, seen_sts = [], 0, False
    for op in ops:
        if op.startswith("LDG"):
            n += 1
        elif op.startswith("STS"):
            seen_sts = True
            if n:
                runs.append(n)
            n = 0
    if n:
        runs.append(n)
    return runs, seen_sts


def check_kernel(ops, loads, load_bytes):
    """The runs of loads of a kernel's opcodes and what is wrong with them: fewer loads issued
    before a shared store than @p loads, loads other than @p load_bytes wide, local memory."""
    runs, tiled = load_runs(ops)
    problems = []
    batched = max(runs) if tiled and runs else sum(o.startswith("LDG") for o in ops)
    if tiled and batched < loads:
        problems.append(f"at most {batched} of its {loads} loads issued before a shared store")
    widths = sorted({width(o) for o in ops if o.startswith("LDG")})
    if widths != [load_bytes]:
        problems.append(f"global loads of {widths} bytes, described as {load_bytes}")
    if any(o.startswith(("LDL", "STL")) for o in ops):
        problems.append("local memory (spilled registers)")
    return runs, problems


def occupancy(threads, regs, shared_bytes):
    warps = -(-threads // 32)
    per_warp = -(-regs * 32 // SM90["reg_unit"]) * SM90["reg_unit"]
    warps_by_regs = 4 * ((SM90["regs"] // 4) // per_warp) if per_warp else SM90["warps"]
    limits = {
        "threads": SM90["threads"] // (warps * 32),
        "warps": SM90["warps"] // warps,
        "blocks": SM90["blocks"],
        "registers": warps_by_regs // warps,
        "shared": SM90["smem"] // (shared_bytes + SM90["smem_reserved"]),
    }
    blocks = min(limits.values())
    return blocks, min(limits, key=limits.get)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--cuobjdump")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--markdown", help="also write the table to this file")
    ap.add_argument("--latency-ns", type=float)
    ap.add_argument("--sms", type=int)
    ap.add_argument("--copy-gbps", type=float)
    ap.add_argument("--only", nargs="*", help="program names to check (default: every step)")
    a = ap.parse_args()

    cuobjdump = find_cuobjdump(a.cuobjdump)
    if cuobjdump and not disassembler_works(cuobjdump):
        print(f"sass_check: cuobjdump cannot disassemble here: it runs nvdisasm, which is not "
              f"beside it or on PATH (`pip install nvidia-cuda-nvdisasm` provides it): nothing "
              f"checked")
        return SKIP
    if not cuobjdump:
        print("sass_check: no cuobjdump (a full CUDA toolkit has it; where the toolkit is "
              "minimal, `pip install nvidia-cuda-cuobjdump` provides it): nothing checked")
        return SKIP
    model = a.latency_ns and a.sms
    head = ("| program | variant | type | shape | kernel | threads | regs | blocks/SM (limit) | "
            "loads a thread (description) | runs of loads before a shared store (SASS) | "
            "load bytes | bytes in flight a thread | KiB in flight an SM |"
            + (" Little's law GB/s |" if model else "") + " ok |")
    version = subprocess.run([cuobjdump, "--version"], capture_output=True,
                             text=True).stdout.strip().splitlines()
    lines = [f"SASS of {a.arch} ({version[-1] if version else 'cuobjdump'}); occupancy for "
             f"compute capability 9.0", "",
             head, "|" + "---|" * (head.count("|") - 1)]
    failures, missing, checked = [], [], 0
    progs = [p for p in programs(a.build) if not a.only or os.path.basename(p) in a.only]
    if not progs:
        print(f"sass_check: no step programs under {a.build}/steps")
        return 1
    for exe in progs:
        name = os.path.basename(exe)
        described = descriptions(exe)
        if not described:
            continue  # a program without a description (01-hello-world)
        sass = sass_kernels(cuobjdump, exe, a.arch)
        if not sass:
            missing.append(name)
            continue
        checked += 1
        res = resources(cuobjdump, exe, a.arch)
        names = demangle(list(sass))
        by_norm = {normalise(names[m]): m for m in sass}
        for norm in sorted(set(by_norm) - set(described)):
            if "copy_kernel" in norm:
                continue  # the references' copy kernel, linked into every program
            failures.append(f"{name}: kernel {names[by_norm[norm]]} has no description")
        for norm, plan in sorted(described.items(), key=lambda kv: (kv[1]["variant"],
                                                                     kv[1]["dtype"])):
            mangled = by_norm.get(norm)
            if mangled is None:
                failures.append(f"{name}/{plan['variant']} {plan['dtype']}: kernel "
                                f"{plan['kernel']} not found in the {a.arch} SASS")
                continue
            want = plan["loads_per_thread"]
            runs, problems = check_kernel(sass[mangled], want, plan["load_bytes"])
            r = res.get(mangled, {})
            threads = plan["block"][0] * plan["block"][1] * plan["block"][2]
            blocks, limit = occupancy(threads, r.get("REG", 0), plan["shared_bytes"])
            per_thread = want * plan["load_bytes"]
            per_sm = blocks * threads * per_thread
            row = (f"| {name} | {plan['variant']} | {plan['dtype']} | {plan['shape']} | "
                   f"`{normalise(plan['kernel'])}` | {threads} | {r.get('REG', '?')} | "
                   f"{blocks} ({limit}) | {want} | {', '.join(map(str, runs)) or '-'} | "
                   f"{plan['load_bytes']} | {per_thread} | {per_sm / 1024:.1f} |")
            if model:
                gbps = a.sms * per_sm / a.latency_ns  # bytes / ns = GB/s
                if a.copy_gbps:
                    gbps = min(gbps, a.copy_gbps)
                row += f" {gbps:.0f} |"
            row += " yes |" if not problems else " NO |"
            lines.append(row)
            for p in problems:
                failures.append(f"{name}/{plan['variant']} {plan['dtype']} ({plan['kernel']}): {p}")
    if missing and not checked:
        print(f"sass_check: the programs hold no {a.arch} code (build with "
              f"-DCMAKE_CUDA_ARCHITECTURES=90): nothing checked")
        return SKIP
    failures += [f"{m}: no {a.arch} code in the program" for m in missing]
    lines.append("")
    lines += [f"FAIL: {f}" for f in failures] or ["every kernel batches the loads its "
                                                   "description states"]
    table = "\n".join(lines)
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
