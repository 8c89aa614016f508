#!/usr/bin/env python3
"""Checks in the compiled machine code (SASS) that every kernel batches the loads its step
says it batches, and reports the bytes each thread and each SM keeps in flight.

For every step program in a build, every variant and both element types, at a shape whose
rows are whole 16-byte vectors (8192 x 8192: the 16-byte paths), one whose rows are odd
(4099 x 8191: the scalar paths, step 13's line windows) and one whose rows are even but its
output rows not whole sectors (4098 x 8196: step 10's tiles, where steps 13 and 14 fall back
to them), and one of odd rows 512 tiles tall (32705 x 3001: step 17's bands), the program's own
description (`--explain --format json`,
no GPU needed) names the kernel, its block, its shared memory, and the global loads each
thread issues before its first store (W::kLoadPasses, each W::kVec elements wide). The
script then reads that kernel's SASS (`cuobjdump -sass`) and resource usage
(`cuobjdump -res-usage`) and fails if:

  - the kernel is not in the program, or the program has a kernel no description names;
  - a side of the kernel (its first two-way branch splits it: the check-free path of whole
    tiles and the checked path of edge tiles) has no path that issues as many global loads
    (LDG) before its first shared store (STS) as the description says each thread issues: the
    kernel then waits for one load's data before it issues the next, and serialises what the
    chapter says it batches (kernels without a tile: no STS, one load each). The paths are
    followed through the branches (path_runs()), so that loads of paths that exclude each
    other are not added up: 09's skewed kernel reads "9, 9" (one run a side), not 17. The one
    shortfall that is a note, not a failure, is the one the SASS itself explains: the side
    stored under a predicate register and wrote that register again before the barrier, for
    want of registers (05's elements-8 checks 8 moves with the 7 predicate registers P0-P6);
  - a path reads shared memory (LDS) after writing it (STS) with no barrier (BAR) between:
    the kernel's threads would read the tile before the others have written it;
  - a global load is narrower or wider than the description's width (a 16-byte access split
    in two, say);
  - the kernel uses local memory (LDL/STL): its register array spilled.

A kernel that fills its tile with cp.async (step 11) has no shared store in its load phase:
each LDGSTS is a global load and a shared store at once, and the thread waits for them all at
one DEPBAR. There the loads counted are the LDGSTS before the first DEPBAR (LDGDEPBAR, which
only closes the group, is no load), and a shared load after a DEPBAR with no barrier between
them reads the tile before the other threads' copies are known to have landed. Step 11's seam
blocks load through registers beside the copies (register_loads_per_thread in the
description): the side that makes no copy must batch that many plain loads (LDG) instead.

A kernel whose tile the tensor memory accelerator fills (step 14: boxes_per_block in the
description) has no load of its own: it must issue one tile copy (UTMALDG) for each box, no
LDG, and every shared load after a wait on the copies' barrier (SYNCS.PHASECHK). Its bytes in
flight an SM are blocks an SM x boxes x bytes a box, in no register. Where the engine also
copies the output out (store_boxes_per_block), one UTMASTG a box out, no STG, and a fence for
the engine (FENCE.VIEW.ASYNC.S) then a barrier between the threads' last shared store and the
first copy out.

The tiled kernels run a check-free path for blocks whose tile lies wholly inside the matrix
and a checked path for edge blocks. The table lists, for each side, the longest run of loads
before the first shared store, and the loads that a path issues after a shared store and
before the barrier (the checked path of 05's elements-8 has some, which the table shows beside
a note); the edge tiles are a few percent of the blocks.

Occupancy is computed for compute capability 9.0 (the H100 and H200): at most 2048 threads,
64 warps, 32 blocks, 65536 registers (allocated 256 a warp, in 4 quarters of 16384) and
233472 bytes of shared memory an SM, of which 1024 are reserved for each block. Bytes in
flight an SM are blocks an SM x threads a block x loads a thread x bytes a load: the most the
SM can have outstanding when every resident thread has issued all its loads.

With --latency-ns L (a measured load latency, e.g. from the latency program) and --sms S,
the table adds Little's law: 2 x S x bytes in flight an SM / L, the bandwidth those loads
could sustain counted as the transpose's GB/s are (each byte read is also written); with
--copy-gbps C the prediction is capped at the copy ceiling C. It is the most those bytes in
flight allow when every resident thread keeps all its loads outstanding all the time, not a
prediction of the kernel's speed.

Every row also counts the instructions of the kernel's main path (main_path(): the path a
thread of a whole, seam-free tile takes, straight code once the loops are unrolled), and
divides them by the elements that thread stores: the instructions an element. With --sms S,
--clock-mhz F and --copy-gbps C it adds the issue demand: the warp instructions each SM must
issue a cycle for the kernel to move elements at the copy's rate C (each element counted as
read and written, as GB/s are): C / (2 x element size) x instructions an element / 32 /
(S x F). An SM issues at most 4 a cycle (one a scheduler), and fewer where its warps wait on
each other; a kernel whose demand comes near that is held back by its instructions, not by
the memory.

Usage: scripts/sass_check.py BUILD_DIR [--cuobjdump PATH] [--arch sm_90] [--markdown FILE]
                             [--latency-ns L --sms S [--copy-gbps C]] [--clock-mhz F]
                             [--only PROGRAM ...]
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

SHAPES = [("8192", "8192"), ("4099", "8191"), ("4098", "8196"), ("32705", "3001")]
DTYPES = ["float", "double"]
# Kernels linked into every program that no step describes: the references' copy kernel, the
# harness's comparison (common/compare.cu) and its recording of the moves on the GPU
# (common/device_moves.cuh).
HARNESS_KERNELS = ("copy_kernel", "count_different", "record_moves")
SKIP = 77

# Compute capability 9.0 (cudaDeviceProp of an H100 / H200).
SM90 = dict(threads=2048, warps=64, blocks=32, regs=65536, reg_unit=256, smem=233472,
            smem_reserved=1024)


def host_threads():
    """Threads the scripts' pools may use: TT_THREADS where it is a whole number from 1 to
    4096 (the GPU check's share of the host for a part), else the machine's cores; the rule of
    host_threads() in common/types.hpp."""
    given = os.environ.get("TT_THREADS", "")
    if given.isdigit() and 1 <= int(given) <= 4096:
        return int(given)
    return os.cpu_count() or 2


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


def descriptions(exe, failed=None):
    """Every plan the program describes: {normalised kernel name: plan}. A program that takes
    no such options (01-hello-world: exit status 2, bad usage) describes none; one that fails
    otherwise (a crash, an exception) is added to @p failed, for a check that must not pass
    what it could not read."""
    out = {}
    for rows, cols in SHAPES:
        for dtype in DTYPES:
            r = subprocess.run([exe, "--explain", "--format", "json", "--variant", "all",
                                "--dtype", dtype, "--rows", rows, "--cols", cols,
                                "--sample", "1"], capture_output=True, text=True)
            if r.returncode != 0:
                if r.returncode != 2 and failed is not None:
                    why = (r.stderr.strip().splitlines() or ["no message"])[-1]
                    failed.append(f"{os.path.basename(exe)}: --explain failed at {rows} x "
                                  f"{cols} {dtype} (exit status {r.returncode}): {why}")
                continue
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


def sass_listing(cuobjdump, exe, arch, addresses=False):
    """{mangled name: [instruction text, with its predicate]} of the kernels for @p arch
    (with @p addresses: [(address, instruction text)])."""
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
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and cur:
            text = re.sub(r"\s+", " ", m.group(2).strip())
            kernels[cur].append((int(m.group(1), 16), text) if addresses else text)
    return kernels


def opcode(instruction):
    """The opcode of a SASS instruction, without its predicate: "LDG.E.128.CONSTANT"."""
    return re.sub(r"^@!?U?P\w+\s+", "", instruction).split(" ")[0]


def sass_kernels(cuobjdump, exe, arch):
    """{mangled name: [(address, instruction text)] in program order} of the kernels for
    @p arch: what path_runs() and check_kernel() read."""
    return sass_listing(cuobjdump, exe, arch, addresses=True)


def _predicate(text):
    """("P0", True) for "@P0 ...", ("P0", False) for "@!P0 ...", None when unpredicated."""
    m = re.match(r"^@(!?)(U?P\d)\s", text)
    return (m.group(2), not m.group(1)) if m else None


def is_load(op):
    """A global load: LDG, or LDGSTS (cp.async: global load and shared store in one); not
    LDGDEPBAR, which closes a group of cp.async."""
    return op.startswith("LDG") and not op.startswith("LDGDEPBAR")


def is_tile_write(op):
    """Where a thread stops issuing loads and starts using their data: its first shared store
    (STS), or, for cp.async, its wait for the copies (DEPBAR)."""
    return op.startswith(("STS", "DEPBAR"))


def path_runs(code, counts=is_load):
    """How each path through the kernel batches its global loads: (runs, late, reused, unsynced).

    The kernel's first two-way branch before any shared store splits it in sides (the
    check-free path of whole tiles and the checked path of edge tiles, in the course's tiled
    kernels); code with no such branch is one side. runs: for each side, in the order of its
    first instruction, the most global loads (LDG) that one path of the side issues before
    its first shared store (STS). late: the addresses of loads that some path issues after a
    shared store and before the next barrier (BAR), so after waiting for an earlier load's
    data. reused: those of the late loads whose path stored first under a predicate (@P4 STS)
    and then wrote that predicate register again before the barrier: the compiler stored early
    because it needed the register, as when a thread checks more moves than there are
    predicate registers (P0 to P6). unsynced: the addresses of shared loads (LDS) that some path
    issues after a shared store with no barrier between them: a thread would read the tile
    before the other threads have written it. Paths that exclude each other (the two sides, or two ways
    through one of them) are followed apart, so the loads of paths that a thread never takes
    together are not added up: 09's skewed kernel reads "9, 9", not 17.

    @p code is [(address, instruction)] in program order. A predicated instruction runs or
    not; a predicated branch goes both ways, an unpredicated one only to its target, an
    unpredicated EXIT nowhere; a branch backwards (a loop) is not followed. A path remembers
    the predicates its predicated instructions and branches assumed until an instruction
    writes them, so that "@!P0 STS; @!P0 BRA" is not read as a store followed by the code the
    branch skips."""
    index = {addr: i for i, (addr, _) in enumerate(code)}
    best, late, reused, unsynced = {}, set(), set(), set()
    seen = set()
    # (instruction, side, known predicates, loads, the first store's predicate register or
    # None before a store, that register written since the store)
    todo = [(0, None, frozenset(), 0, None, False, frozenset())]
    while todo:
        state = todo.pop()
        if state in seen or state[0] >= len(code):
            continue
        seen.add(state)
        i, side, known, loads, store_pred, rewritten, waiting = state
        stored = store_pred is not None
        text = code[i][1]
        op = opcode(text)
        pred = _predicate(text)
        # Which outcomes this path allows: run, skip, or both.
        outcomes = [True]
        if pred:
            reg, sense = pred
            if (reg, sense) in known:
                outcomes = [True]
            elif (reg, not sense) in known:
                outcomes = [False]
            else:
                outcomes = [True, False]
        # The predicates an instruction writes are its first operands ("ISETP.GE.AND P0, ...").
        operands = re.sub(r"^@!?U?P\w+\s+", "", text).split(" ", 1)[1:]
        written = set(re.findall(r"\b(U?P\d)\b", operands[0].split(",")[0])) if (
            operands and not op.startswith(("BRA", "EXIT"))) else set()
        for runs in outcomes:
            k = known
            if pred:
                k = k | {(pred[0], pred[1] if runs else not pred[1])}
            k = frozenset(x for x in k if x[0] not in written) if runs and written else k
            sd, n, sp, rw, w, nxt = side, loads, store_pred, rewritten, waiting, [i + 1]
            if op.startswith("BRA") and pred and len(outcomes) == 2 and side is None \
                    and not stored:
                sd = (i, runs)  # the first two-way branch: the path's side
            if runs:
                if stored and sp in written:
                    rw = True
                if op.startswith(("BAR", "EXIT")):
                    if rw:  # the store's predicate register was needed again: the reason
                        reused.update(w)
                    sp, rw, n, w = None, False, 0, frozenset()
                elif counts(op):
                    if stored:
                        late.add(code[i][0])
                        w = w | {code[i][0]}
                    else:
                        n += 1
                elif op.startswith("LDS") and stored:
                    unsynced.add(code[i][0])
                elif is_tile_write(op) and not stored:
                    best[sd] = max(best.get(sd, n), n)
                    sp = pred[0] if pred else ""
                if op.startswith("BRA"):
                    m = re.search(r"0x([0-9a-f]+)", text)
                    target = index.get(int(m.group(1), 16)) if m else None
                    nxt = [target] if target is not None and target > i else []
                elif op.startswith("EXIT"):
                    nxt = []
            for j in nxt:
                todo.append((j, sd, k, n if sp is None else 0, sp, rw, w))

    def first(side):  # where a side starts: the branch's target, or the next instruction
        if side is None:
            return -1
        i, taken = side
        m = re.search(r"0x([0-9a-f]+)", code[i][1])
        return index.get(int(m.group(1), 16), i) if taken and m else i + 1

    runs = [best[sd] for sd in sorted(best, key=first)]
    return runs, sorted(late), sorted(reused), sorted(unsynced)


def main_path(code, ops=None):
    """(instructions, stored bytes) of the path a whole tile's thread takes: from the first
    instruction, every conditional branch not taken (the compiler lays out the check-free,
    seam-free path of the course's tiled kernels as the fall-through) and every unconditional
    one taken, to the first EXIT it takes. The path remembers what it assumed: a branch
    "@P0 BRA" not taken means P0 is false, so a later "@P0" instruction is skipped and a
    "@!P0" one runs, until an instruction writes P0 again; a predicate it knows nothing of is
    taken as true where it first guards an instruction, so that the two arms of if-converted
    code ("@P1 LDG ...; @!P1 LDG ...") are not both counted, and a branch or EXIT whose
    predicate the path already holds true is taken ("@!P0 LDG ...; @!P0 BRA" past the checked
    copy of the same loads). Its instructions are what such a
    thread issues (the loops are unrolled: the path is straight); stored bytes are its global
    stores' widths added up, so instructions / (stored bytes / element size) is the
    instructions an element. None when the walk meets a backward branch (a loop) or runs off
    the code. With a list @p ops, the opcode of each instruction of the path is added to it."""
    if code and isinstance(code[0], str):
        code = [(4 * i, op) for i, op in enumerate(code)]
    index = {addr: i for i, (addr, _) in enumerate(code)}
    known = {}  # predicate register -> the value this path assumed
    i, count, stored = 0, 0, 0
    while 0 <= i < len(code):
        text = code[i][1]
        op = opcode(text)
        pred = _predicate(text)
        branch = op.startswith(("BRA", "EXIT"))
        if pred and not branch:
            reg, sense = pred
            if reg not in known:
                known[reg] = sense
            if known[reg] != sense:
                i += 1
                continue  # the path skips it: its predicate is false here
        count += 1
        if ops is not None:
            ops.append(op)
        if pred and branch:
            reg, sense = pred
            if known.get(reg) != sense:  # not taken: its predicate is false on this path
                known[reg] = not sense
                i += 1
                continue
            # Taken: the path already assumed its predicate true (a check-free path whose
            # instructions carry the same predicate as the branch past the checked one).
        if op.startswith("STG"):
            stored += width(op)
        operands = re.sub(r"^@!?U?P\w+\s+", "", text).split(" ", 1)[1:]
        if operands and not branch:
            for reg in re.findall(r"\b(U?P\d)\b", operands[0].split(",")[0]):
                known.pop(reg, None)  # written again: what the path knew of it is gone
        if op.startswith("EXIT"):
            return count, stored
        if op.startswith("BRA"):
            m = re.search(r"0x([0-9a-f]+)", text)
            target = index.get(int(m.group(1), 16)) if m else None
            if target is None or target <= i:
                return None
            i = target
            continue
        i += 1
    return None


def is_copy(op):
    """A cp.async copy (LDGSTS)."""
    return op.startswith("LDGSTS")


def is_plain_load(op):
    """A global load into registers (LDG)."""
    return is_load(op) and not is_copy(op)


def check_tma_kernel(code, boxes, store_boxes=0):
    """(runs, late, problems, notes) of a kernel whose tile the tensor memory accelerator
    fills (step 14: @p boxes box copies a block): the kernel issues exactly @p boxes tile
    copies (UTMALDG), no thread loads the input (no LDG), every shared load (LDS) comes after
    a wait on the copies' barrier (SYNCS.PHASECHK) in program order, and nothing spills. runs
    is [boxes] when the copies are there.

    Where the engine also copies the output out (@p store_boxes a block, `tma-store`): exactly
    that many copies out (UTMASTG), no global store of a thread (STG), and between the
    threads' last shared store (STS) and the first copy out a fence that makes their writes
    visible to the engine (FENCE.VIEW.ASYNC.S) and a barrier after it."""
    ops = [opcode(text) for _, text in code]
    problems = []
    copies = sum(o.startswith("UTMALDG") for o in ops)
    if copies != boxes:
        problems.append(f"{copies} tile copies (UTMALDG), {boxes} boxes described")
    outs = [i for i, o in enumerate(ops) if o.startswith("UTMASTG")]
    if len(outs) != store_boxes:
        problems.append(f"{len(outs)} copies out (UTMASTG), {store_boxes} boxes described")
    if store_boxes:
        if any(o.startswith("STG") for o in ops):
            problems.append("a thread's global store (STG), where the engine writes the output")
        writes = [i for i, o in enumerate(ops) if o.startswith("STS")]
        last = writes[-1] if writes else -1
        fences = [i for i, o in enumerate(ops) if o.startswith("FENCE.VIEW.ASYNC")
                  and last < i < (outs[0] if outs else len(ops))]
        bars = [i for i, o in enumerate(ops) if o.startswith("BAR.SYNC") and fences
                and fences[0] < i < (outs[0] if outs else len(ops))]
        if not fences or not bars:
            problems.append("no fence for the engine (FENCE.VIEW.ASYNC.S) and barrier between "
                            "the threads' last shared store and the first copy out: the engine "
                            "may read the tile before the threads' writes")
    if any(is_load(o) for o in ops):
        problems.append(f"{sum(is_load(o) for o in ops)} global loads (LDG), where the copy "
                        f"engine loads the tile and no thread should")
    waits = [i for i, o in enumerate(ops) if o.startswith("SYNCS.PHASECHK")]
    reads = [i for i, o in enumerate(ops) if o.startswith("LDS")]
    if reads and (not waits or reads[0] < waits[0]):
        problems.append("a shared load before any wait on the copies' barrier "
                        "(SYNCS.PHASECHK): a thread reads the tile before it has landed")
    if any(o.startswith(("LDL", "STL")) for o in ops):
        problems.append("local memory (spilled registers)")
    return ([copies] if copies else []), [], problems, []


def check_kernel(code, loads, load_bytes, register_loads=0, edge_loads=0, edge_bytes=0,
                 l2_prefetch=0):
    """(runs, late, problems, notes): path_runs() of a kernel and what is wrong with it: a shared
    load that no barrier separates from the shared stores before it, a side
    none of whose paths issues @p loads before its first shared store (it serialises), loads
    other than @p load_bytes wide, local memory. A side falls short without failing only
    where every late load is one that path_runs() found after a predicate register's reuse:
    the shortfall is then the compiler's, for want of predicate registers, and is a note. 05's
    elements-8 checks 8 moves in its edge tiles with 7 predicate registers.

    A kernel whose whole blocks load wider than its other blocks (step 13: @p edge_loads > 0)
    is checked by width instead of by side: some path must issue @p loads loads of
    @p load_bytes before its first shared store (the whole blocks'), some path @p edge_loads
    of @p edge_bytes (the other blocks'), and no load may have another width.

    Where @p l2_prefetch > 0 (step 17), some path must issue @p loads loads of @p load_bytes
    that carry the L2 prefetch-size hint of that many bytes (LDG.E.LTC256B.128 for 256), and
    no load may carry another size; where it is 0, no load may carry the hint."""
    if code and isinstance(code[0], str):  # opcodes alone: one straight path
        code = [(4 * i, op) for i, op in enumerate(code)]
    ops = [opcode(text) for _, text in code]
    runs, late, reused, unsynced = path_runs(code)
    problems, notes = [], []
    # Each side must batch @p loads; in a cp.async kernel whose seam blocks load through
    # registers (@p register_loads > 0, step 11), a side that makes no copy is that path and
    # must batch its @p register_loads plain loads.
    need = [loads] * len(runs)
    if register_loads:
        copies = path_runs(code, counts=is_copy)[0]
        plain = path_runs(code, counts=is_plain_load)[0]
        runs = [p if c == 0 else c for c, p in zip(copies, plain)]
        need = [register_loads if c == 0 else loads for c in copies]
        if sum(c == 0 for c in copies) > 1 or not any(copies):  # one register side at most
            problems.append(f"{sum(c == 0 for c in copies)} of {len(copies)} sides make no "
                            f"copy, where only the seam blocks' side loads through registers")
    if edge_loads:
        for n, b, who in ((loads, load_bytes, "whole blocks'"), (edge_loads, edge_bytes,
                                                                "other blocks'")):
            most = max(path_runs(code, counts=lambda o, b=b: is_load(o) and width(o) == b)[0],
                       default=0)
            if most < n:
                problems.append(f"no path issues the {who} {n} loads of {b} bytes before a "
                                f"shared store (at most {most})")
        need = [0] * len(runs)  # checked by width above, not by side
    if unsynced:
        problems.append(f"a shared load after a shared store with no barrier between them (at "
                        f"{', '.join(hex(x) for x in unsynced[:4])}): a thread reads the tile "
                        f"before the block has written it")
    short = [r for r, n in zip(runs, need) if r < n]
    if short and late and set(late) == set(reused) and max(runs) == loads:
        notes.append(f"a side issues at most {min(short)} of its {loads} loads before its first "
                     f"shared store, a store under a predicate register that it then needs for a "
                     f"later load's check; {len(late)} load instruction(s) wait for an earlier "
                     f"load (at {', '.join(hex(x) for x in late[:4])})")
    elif short:
        r, n = min((r, n) for r, n in zip(runs, need) if r < n)
        problems.append(f"a side of the kernel issues at most {r} of its {n} "
                        f"{'register ' if n != loads else ''}loads before a shared store")
    if not runs and sum(is_load(o) for o in ops) < loads:
        problems.append(f"{sum(is_load(o) for o in ops)} loads, {loads} described")
    widths = sorted({width(o) for o in ops if is_load(o)})
    described = sorted({load_bytes, edge_bytes} if edge_loads else {load_bytes})
    if widths != described:
        problems.append(f"global loads of {widths} bytes, described as "
                        f"{described if edge_loads else load_bytes}")
    hinted = sorted({m.group(1) for o in ops if is_load(o)
                     for m in [re.search(r"\.LTC(\d+)B", o)] if m})
    if l2_prefetch:
        most = max(path_runs(code, counts=lambda o: is_load(o) and width(o) == load_bytes
                             and f".LTC{l2_prefetch}B" in o)[0], default=0)
        if most < loads:
            problems.append(f"no path issues {loads} loads of {load_bytes} bytes with the L2 "
                            f"prefetch hint of {l2_prefetch} bytes (at most {most})")
        if hinted != [str(l2_prefetch)]:
            problems.append(f"loads with the L2 prefetch hint of {hinted} bytes, described as "
                            f"{l2_prefetch}")
    elif hinted:
        problems.append(f"loads with the L2 prefetch hint of {hinted} bytes, described as none")
    if any(o.startswith(("LDL", "STL")) for o in ops):
        problems.append("local memory (spilled registers)")
    return runs, late, problems, notes


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
    ap.add_argument("--clock-mhz", type=float, help="the SMs' clock, for the issue demand")
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
    issue = a.sms and a.clock_mhz and a.copy_gbps
    head = ("| program | variant | type | shape | kernel | threads | regs | blocks/SM (limit) | "
            "loads a thread (description) | loads before the first shared store, by path "
            "(SASS) | loads after a shared store (SASS) | load bytes | bytes in flight a "
            "thread | KiB in flight an SM | instructions a thread, main path (SASS) | "
            "instructions an element |"
            + (" Little's law GB/s (read + write) |" if model else "")
            + (" warp instructions an SM cycle at the copy's rate |" if issue else "")
            + " ok |")
    version = subprocess.run([cuobjdump, "--version"], capture_output=True,
                             text=True).stdout.strip().splitlines()
    lines = [f"SASS of {a.arch} ({version[-1] if version else 'cuobjdump'}); occupancy for "
             f"compute capability 9.0", "",
             head, "|" + "---|" * (head.count("|") - 1)]
    failures, missing, checked, notes = [], [], 0, []
    progs = [p for p in programs(a.build) if not a.only or os.path.basename(p) in a.only]
    if not progs:
        print(f"sass_check: no step programs under {a.build}/steps")
        return 1
    for exe in progs:
        name = os.path.basename(exe)
        described = descriptions(exe, failures)
        if not described:
            continue  # a program without a description (01-hello-world), or a failed one
        sass = sass_kernels(cuobjdump, exe, a.arch)
        if not sass:
            missing.append(name)
            continue
        checked += 1
        res = resources(cuobjdump, exe, a.arch)
        names = demangle(list(sass))
        by_norm = {normalise(names[m]): m for m in sass}
        for norm in sorted(set(by_norm) - set(described)):
            if any(k in norm for k in HARNESS_KERNELS):
                continue
            failures.append(f"{name}: kernel {names[by_norm[norm]]} has no description")
        for norm, plan in sorted(described.items(), key=lambda kv: (kv[1]["variant"],
                                                                     kv[1]["dtype"])):
            mangled = by_norm.get(norm)
            if mangled is None:
                failures.append(f"{name}/{plan['variant']} {plan['dtype']}: kernel "
                                f"{plan['kernel']} not found in the {a.arch} SASS")
                continue
            want = plan["loads_per_thread"]
            boxes = plan.get("boxes_per_block", 0)
            if boxes:
                runs, late, problems, why = check_tma_kernel(
                    sass[mangled], boxes, plan.get("store_boxes_per_block", 0))
            else:
                runs, late, problems, why = check_kernel(
                    sass[mangled], want, plan["load_bytes"],
                    plan.get("register_loads_per_thread", 0),
                    plan.get("edge_loads_per_thread", 0), plan.get("edge_load_bytes", 0),
                    plan.get("l2_prefetch", 0))
            notes += [f"{name}/{plan['variant']} {plan['dtype']} {plan['shape']}: {w}"
                      for w in why]
            r = res.get(mangled, {})
            threads = plan["block"][0] * plan["block"][1] * plan["block"][2]
            blocks, limit = occupancy(threads, r.get("REG", 0), plan["shared_bytes"])
            per_thread = want * plan["load_bytes"]
            per_sm = blocks * threads * per_thread
            if boxes:  # the copy engine's: a block's boxes, in no thread's registers
                per_sm = blocks * boxes * plan.get("box_bytes", 0)
            row = (f"| {name} | {plan['variant']} | {plan['dtype']} | {plan['shape']} | "
                   f"`{normalise(plan['kernel'])}` | {threads} | {r.get('REG', '?')} | "
                   f"{blocks} ({limit}) | {want} | "
                   f"{', '.join(map(str, runs)) or '-'} | "
                   f"{len(late) or '-'} | "
                   f"{plan['load_bytes']} | {per_thread} | {per_sm / 1024:.1f} |")
            path = main_path(sass[mangled])
            size = 4 if plan["dtype"] == "float" else 8
            per_element = path[0] / (path[1] / size) if path and path[1] else None
            row += (f" {path[0]} | {per_element:.1f} |" if per_element else " - | - |")
            if model:
                # Each byte loaded is a byte stored: the transpose moves twice what is in
                # flight, and its GB/s count reads and writes.
                gbps = 2 * a.sms * per_sm / a.latency_ns  # bytes / ns = GB/s
                if a.copy_gbps:
                    gbps = min(gbps, a.copy_gbps)
                row += f" {gbps:.0f} |"
            if issue:
                # Elements a second at the copy's rate, each one instructions / 32 warp
                # instructions, shared by the SMs at their clock.
                need = (a.copy_gbps * 1e9 / (2 * size) * per_element / 32
                        / (a.sms * a.clock_mhz * 1e6)) if per_element else None
                row += f" {need:.2f} |" if need else " - |"
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
    lines += [f"note: {n}" for n in notes]
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
