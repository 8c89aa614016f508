#!/usr/bin/env python3
"""Checks the access analyser's predictions against Nsight Compute's counters, strictly enough
that a wrong description fails.

For every step program in a build (and the copy kernel of the references), every variant and
each element type, this script:
  1. asks the program for its description, counted over every block of the launch
     (`<step> --explain --format json --sample 0`; no GPU needed): each memory access with
     its warp instructions, sectors or wavefronts, and the same per iteration (one SASS
     instruction each in the unrolled kernels);
  2. profiles one launch of the same kernel (`ncu --clock-control none`), reading for each
     kind of access (global/shared, load/store) the executed warp instructions, the global
     requests, and the sectors or wavefronts; then, where Nsight Compute's source counters can
     be read (`--section SourceCounters --page source --print-source sass`), the same for
     each shared-memory SASS instruction;
  3. compares, and exits 1 if any comparison fails.

What must hold (the "why" of each is in compare()):
  - every kind of access the kernel executes is described, and every described one executes;
  - warp instructions: predicted == measured, exactly (a wrong width or a missing guard
    changes the count); for global accesses each instruction is one request;
  - global sectors: within 1% of the prediction, both ways;
  - shared wavefronts: within 1% of the prediction, both ways, as Nsight Compute counts them
    for each executed instruction from its addresses (smsp__sass_l1tex_data_pipe_lsu_
    wavefronts_mem_shared_op_ld/st): the bank arithmetic, which the analyser predicts. A 10%
    excess that the description does not explain fails, and so does a 2-way conflict in one
    quarter-warp of a 16-byte access.
  - with source counters: no shared SASS instruction more than 10% above its prediction,
    so a conflict in one pass of several (a third of the instructions, say) is named (an
    upper bound only: see compare_instructions()). An instruction that warps reach but no thread runs
    (a path guarded by a predicate that is false at the profiled shape) is left out.
The L1's own count of the same wavefronts (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_*)
is read beside it and shown, not compared: it is higher wherever global stores pass the L1's
data stage while shared instructions wait for it (up to 24% in the scalar kernels; none with
global loads alone): the counter counts those waits as wavefronts. scripts/bank_patterns.py
measures that on conflict-free patterns, and docs/theory-measuring.md explains it.
A tile that the tensor memory accelerator copies (step 14) is its own kind: its warp
instructions are the box copies (UTMALDG, smsp__sass_inst_executed_op_tma_ld), one a box,
exactly; its sectors those the L2 returns for them (l1tex__m_xbar2l1tex_read_sectors_mem_
global_op_tma_ld), within 1%. So are its copies out (`tma-store`: UTMASTG,
smsp__sass_inst_executed_op_tma_st; the sectors sent to the L2,
l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st). The copy engine's writes to shared memory are no LSU
instruction, and no LSU counter sees them: they are not compared.
Each kernel of the course has one access of each kind, so the comparison by kind is a
comparison by access; a kernel with two accesses of one kind needs the source counters (and
fails without them).

The same profile reads the DRAM traffic and the kernel's duration; a second table puts them
beside the bytes the transpose must move (ncu flushes the caches before it profiles: reads
above 1.00x are extra traffic; writes below 1.00x are lines still dirty in L2 at the end).

One process a program and type profiles all of its kernels (`--variant a,b,... --once`:
each variant's kernel once, in order, the harness's own comparison kernel left out by name):
Nsight Compute's start-up, a few seconds, is paid once a program instead of once a kernel.

With --store DIR, each profile also collects the counters that scripts/ncu_counters.py
tabulates (COUNTERS), and their values are kept in DIR under the name of every variant that
launches the kernel (store_path()), so that ncu_counters.py --store DIR reads them there
instead of profiling the same kernel at the same shape again.

Usage: scripts/ncu_check.py BUILD_DIR [--size N] [--rows M --cols N] [--dtype float double]
                            [--markdown FILE] [--ncu ncu] [--only PROGRAM ...] [--store DIR]
"""
import argparse
import concurrent.futures
import csv
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# A kind of access: (space, op, mover): mover False for a thread's own instruction, True for
# cp.async, "tma" for the tensor memory accelerator. cp.async (step 11): one instruction,
# LDGSTS, is a global load and a shared store at once, counted apart from plain loads and
# stores (cp.async.ca: the "cache access" flavour). A kernel may have both: step 11's seam
# blocks load through registers beside the cp.async of the others. The copy engine (step 14):
# one instruction of one thread (UTMALDG) copies a box; its warp instructions are the plan's
# boxes, its sectors those the L2 returns for it. Its writes to shared memory pass no LSU
# instruction and no counter of the LSU's wavefronts: they are not compared (the analyser's
# banks for them, from the box's 16-byte chunks, are --explain's).
KINDS = [("global", "load", False), ("global", "store", False), ("shared", "load", False),
         ("shared", "store", False), ("global", "load", True), ("shared", "store", True),
         ("global", "load", "tma"), ("global", "store", "tma")]
METRICS = {  # kind -> (instructions, requests or None, sectors or wavefronts)
    ("global", "load", False): ("smsp__sass_inst_executed_op_global_ld.sum",
                                "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("global", "store", False): ("smsp__sass_inst_executed_op_global_st.sum",
                                 "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                                 "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("shared", "load", False): ("smsp__sass_inst_executed_op_shared_ld.sum", None,
                                "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("shared", "store", False): ("smsp__sass_inst_executed_op_shared_st.sum", None,
                                 "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("global", "load", True): (
        "smsp__sass_inst_executed_op_ldgsts.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum"),
    ("shared", "store", True): (
        "smsp__sass_inst_executed_op_ldgsts.sum", None,
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"),
    ("global", "load", "tma"): (
        "smsp__sass_inst_executed_op_tma_ld.sum", None,
        "l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum"),
    ("global", "store", "tma"): (
        "smsp__sass_inst_executed_op_tma_st.sum", None,
        "l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum"),
}
# The L1's count of the same wavefronts: shown beside the compared one, with its excess. The
# L1 keeps none of its own for LDGSTS (Nsight Compute 2025.3 on sm_90 lists only its bank
# conflicts, l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts): "-" in those rows.
L1_WAVEFRONTS = {
    ("shared", "load", False): "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    ("shared", "store", False): "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}
DRAM = ["dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
        "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
        "lts__t_requests_srcunit_tex_op_read.sum"]
# What scripts/ncu_counters.py tabulates for the headline kernels: (column heading, metric).
# What each column means is in docs/theory-measuring.md.
COUNTERS = [
    ("us", "gpu__time_duration.sum"),
    ("DRAM rd MB", "dram__bytes_read.sum"),
    ("DRAM wr MB", "dram__bytes_write.sum"),
    ("DRAM % peak", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("occ. achieved %", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("occ. theoretical %", "sm__maximum_warps_per_active_cycle_pct"),
    ("regs", "launch__registers_per_thread"),
    ("L2 rd sectors", "lts__t_sectors_op_read.sum"),
    ("L2 wr sectors", "lts__t_sectors_op_write.sum"),
    ("stall long sb %", "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct"),
    ("stall barrier %", "smsp__warp_issue_stalled_barrier_per_warp_active.pct"),
    ("stall lg throttle %", "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct"),
    ("stall mio throttle %", "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct"),
    ("stall short sb %", "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct"),
    ("stall drain %", "smsp__warp_issue_stalled_drain_per_warp_active.pct"),
    ("warp instr M", "smsp__inst_executed.sum"),
    ("issue active %", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    ("L2 % peak", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("L2 fabric % peak", "lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed"),
    ("L2 rd requests M", "lts__t_requests_srcunit_tex_op_read.sum"),
    ("L1 % peak", "l1tex__throughput.avg.pct_of_peak_sustained_active"),
    ("L1 data wavefronts M", "l1tex__data_pipe_lsu_wavefronts.sum"),
    ("LSU pipe %", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"),
]
SECTOR_TOLERANCE = 0.01  # global sectors, both ways
SHARED_TOLERANCE = 0.01  # shared wavefronts (the per-instruction count), both ways
INSTRUCTION_TOLERANCE = 0.10  # one shared SASS instruction: at most this far above its prediction


# --- The comparison (pure: tests/test_ncu_check.py plants wrong descriptions into it). -----

def kind_of(access):
    """The kind (space, op, mover) of one access of a description."""
    space, op = access["kind"].split()
    return space, op, "tma" if access.get("tma") else bool(access.get("async"))


def kind_name(kind):
    return f"{kind[0]} {kind[1]}" + (" (copy engine)" if kind[2] == "tma" else
                                      " (cp.async)" if kind[2] else "")


def predicted_by_kind(plan):
    """{kind: [access, ...]} of a description (--explain --format json)."""
    out = {}
    for a in plan["accesses"]:
        out.setdefault(kind_of(a), []).append(a)
    return out


def compare(plan, measured, per_instruction=None):
    """Rows (kind, predicted, measured, problems) comparing description @p plan with
    @p measured = {kind: {"instructions", "requests", "cost"}}; @p per_instruction, when the
    source counters were read, = {kind: [(opcode, executed, cost), ...]} for shared kinds.
    A kind the description lacks must not be executed: plain loads beside cp.async ones that
    the description does not have fail, as do LDGSTS where it says plain instructions."""
    rows = []
    pred = predicted_by_kind(plan)
    for kind in KINDS:
        m = measured.get(kind, {"instructions": 0, "requests": 0, "cost": 0})
        # An access no warp makes at this shape (step 11's seam loads where no sector is
        # shared) is described as none: the kernel must then execute none either.
        accesses = [a for a in pred.get(kind, []) if a["instructions"] > 0]
        problems = [m["layout"]] if m.get("layout") else []
        if not accesses:
            if m["instructions"] > 0:
                problems.append(f"the kernel executes {m['instructions']:.0f} "
                                f"{kind_name(kind)} instructions; the description has none")
            if problems:
                rows.append((kind, None, m, problems))
            continue
        p_instr = sum(a["instructions"] for a in accesses)
        if kind[2] == "tma":  # one instruction a box, whatever the chunks' warps
            p_instr = plan.get("store_boxes" if kind[1] == "store" else "boxes", 0)
        p_cost = sum(a["cost"] for a in accesses)
        if m["instructions"] == 0:
            problems.append("described, but the kernel executes no such instruction")
        elif m["instructions"] != p_instr:
            problems.append(f"{m['instructions']:.0f} warp instructions, "
                            f"{p_instr} predicted")
        if kind[0] == "global":
            if m.get("requests") is not None and m["requests"] != m["instructions"]:
                problems.append(f"{m['requests']:.0f} requests for {m['instructions']:.0f} "
                                f"instructions")
            if abs(m["cost"] - p_cost) > SECTOR_TOLERANCE * p_cost:
                problems.append(f"{m['cost']:.0f} sectors, {p_cost} predicted (more than "
                                f"{SECTOR_TOLERANCE:.0%} apart)")
        else:
            low, high = p_cost * (1 - SHARED_TOLERANCE), p_cost * (1 + SHARED_TOLERANCE)
            if not low <= m["cost"] <= high:
                problems.append(f"{m['cost']:.0f} wavefronts, {p_cost} predicted (allowed "
                                f"{low:.0f} to {high:.0f})")
            if len(accesses) > 1 and not per_instruction:
                problems.append(f"{len(accesses)} accesses of this kind: only the source "
                                f"counters can tell them apart")
            if per_instruction and per_instruction.get(kind):
                problems += compare_instructions(accesses, per_instruction[kind])
        rows.append((kind, (p_instr, p_cost, sum(a["ideal"] for a in accesses)), m, problems))
    return rows


def compare_instructions(accesses, instructions):
    """Each executed shared SASS instruction of one kind against the per-iteration predictions:
    no instruction may cost more than 10% above its prediction (a conflict in one pass of
    several fails, however the access averages). Where the kernel has one SASS instruction an
    iteration they are matched in program order; where it has more (a checked path for edge
    tiles beside the plain one) each is held to the largest prediction of the kind.

    Only an upper bound: Nsight Compute counts an instruction's executions by warps whose
    lanes are partly or wholly predicated off (edge tiles), which read fewer wavefronts an
    execution than the analyser's count of warps with an active lane (measured on the H200 at
    4099 x 8191: edge-path stores at 0.33 to 0.67 of the prediction). The access's total,
    compared within 1% both ways, keeps the low side honest."""
    ratios = [it[1] / it[0] for a in accesses for it in a["per_iteration"] if it[0]]
    executed = [(op, n, c) for op, n, c in instructions if n > 0]
    problems = []
    if not ratios:
        return problems
    in_order = len(executed) == len(ratios)
    for i, (op, n, c) in enumerate(executed):
        want = ratios[i] if in_order else max(ratios)
        got = c / n
        if got > want * (1 + INSTRUCTION_TOLERANCE):
            problems.append(f"SASS instruction {i} ({op}): {got:.2f} wavefronts an execution, "
                            f"{want:.2f} predicted")
    return problems


# --- Running the programs and Nsight Compute. ----------------------------------------------

def programs(build):
    """The transposing programs of @p build: each step's (01-hello-world transposes nothing
    and takes none of the options), then the references."""
    found = sorted(p for p in glob.glob(os.path.join(build, "steps", "*", "*"))
                   if os.path.basename(p) == os.path.basename(os.path.dirname(p))
                   and os.path.basename(p) != "01-hello-world" and os.access(p, os.X_OK))
    ref = os.path.join(build, "common", "references")
    if os.access(ref, os.X_OK):
        found.append(ref)
    return found


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def share():
    """The threads this script keeps busy: TT_THREADS where the GPU check sets it (its part's
    share of the host's cores), else the host's cores."""
    try:
        return max(1, int(os.environ["TT_THREADS"]))
    except (KeyError, ValueError):
        return os.cpu_count() or 2


def beside(cmd):
    """run(@p cmd) for CPU work beside the profiles: one thread (TT_THREADS=1) at a lower
    priority (nice 10), so that share() of them at once keep to the part's cores and leave
    Nsight Compute and the profiled program the CPU they wait on."""
    return subprocess.run(cmd, capture_output=True, text=True,
                          env=dict(os.environ, TT_THREADS="1"), preexec_fn=lambda: os.nice(10))


def description(exe, variant, shape_args, dtype):
    """The variant's description (--explain --format json), or None for a type the variant
    does not take or a library call (no accesses); RuntimeError when the program fails."""
    r = beside([exe, "--explain", "--format", "json", "--sample", "0", "--variant", variant,
                "--dtype", dtype] + shape_args)
    if r.returncode != 0 and "does not support --dtype" in r.stderr:
        return None
    if r.returncode != 0 or not r.stdout.strip():
        raise RuntimeError(f"{os.path.basename(exe)} --variant {variant} --dtype {dtype} "
                           f"--explain: exit status {r.returncode}: {r.stderr.strip()[-300:]}")
    plan = json.loads(r.stdout.splitlines()[0])
    return plan if plan["accesses"] else None


def parse_raw(text):
    """{metric name: value} from `ncu --csv` output (one kernel)."""
    start = text.find('"ID"')
    values = {}
    for row in csv.DictReader(io.StringIO(text[start:] if start >= 0 else "")):
        try:
            values[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            pass
    return values


def profile(ncu, command, metrics, options=()):
    """{metric: value} of one launch of @p command under Nsight Compute (clocks left alone),
    or None when the run failed (its stderr is printed)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "ncu.csv")
        r = run([ncu, "--clock-control", "none", "--csv", "--print-units", "base", "--log-file",
                 log, *options, "--metrics", ",".join(metrics), *command])
        text = open(log).read() if os.path.exists(log) else ""
    if r.returncode != 0:
        print(f"ncu failed ({r.returncode}) on {' '.join(command)}:\n{r.stderr}\n{text}",
              file=sys.stderr)
        return None
    return parse_raw(text)


def profile_kernels(ncu, command, metrics, options=()):
    """[{metric: value}] of every kernel that @p command launches, in order, under Nsight
    Compute (clocks left alone), or None when the run failed (its stderr is printed)."""
    with tempfile.TemporaryDirectory() as tmp:
        report_file = os.path.join(tmp, "run")
        r = run([ncu, "--clock-control", "none", *options, "--metrics", ",".join(metrics),
                 "--export", report_file, *command])
        if r.returncode != 0 or not os.path.exists(report_file + ".ncu-rep"):
            print(f"ncu failed ({r.returncode}) on {' '.join(command)}:\n{r.stderr}",
                  file=sys.stderr)
            return None
        text = run([ncu, "--import", report_file + ".ncu-rep", "--csv", "--print-units",
                    "base", "--page", "details"]).stdout
    return [values for _, values in parse_kernels(text)]


def report(lines, markdown):
    """Prints the table made of @p lines, and writes it to the file @p markdown if given."""
    table = "\n".join(lines)
    print("\n" + table)
    if markdown:
        with open(markdown, "w") as f:
            f.write(table + "\n")


def known_metrics(ncu, candidates):
    """The metrics of @p candidates that this GPU's Nsight Compute knows (`--query-metrics`
    lists base names; a candidate is known when its base, the part before the first dot, is
    listed)."""
    r = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True)
    names = set()
    for line in r.stdout.splitlines():
        word = line.split(" ")[0].strip()
        if "__" in word:
            names.add(word)
    return [m for m in candidates if m.split(".", 1)[0] in names]


def store_path(store, program, variant, dtype, rows, cols):
    """Where the counters of @p program's @p variant in @p dtype at @p rows x @p cols are kept
    in the folder @p store: one JSON file a variant, type and shape, {metric: value}."""
    return os.path.join(store, f"{os.path.basename(program)}__{variant}__{dtype}__{rows}x{cols}"
                               ".json")


def stored_values(path):
    """{metric: value} kept at @p path by keep(), or None when there is none."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def keep(values, path):
    """Keeps one kernel's counter @p values at @p path in the store."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(values, f)


def parse_source(text):
    """{kind: [(opcode, executed, wavefronts), ...]} of the shared-memory instructions, from
    `ncu --page source --print-source sass --csv`, or {} when its columns are not found."""
    start = text.find('"Address"') if '"Address"' in text else text.find('"#"')
    if start < 0:
        return {}
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    if not rows:
        return {}
    cols = rows[0].keys()

    def col(*must, avoid=()):
        for c in cols:
            if all(w in c for w in must) and not any(w in c for w in avoid):
                return c
        return None
    source = col("Source")
    executed = col("Instructions Executed", avoid=("Thread", "Predicated"))
    # Threads whose predicate was true: 0 for an instruction that a warp reached but that no
    # thread executed (a path guarded by a predicate that is false at this shape).
    threads = col("Predicated-On Thread Instructions Executed")
    wavefronts = col("Wavefronts Shared", avoid=("Ideal", "Excessive"))
    if not (source and executed and wavefronts):
        return {}
    out = {}
    num = lambda v: float((v or "0").replace(",", "") or 0)  # noqa: E731
    for r in rows:
        op = re.sub(r"^@!?P\w+\s+", "", (r[source] or "").strip()).split(" ")[0]
        kind = ("shared", "load", False) if op.startswith("LDS") else \
            ("shared", "store", False) if op.startswith("STS") else \
            ("shared", "store", True) if op.startswith("LDGSTS") else None
        if kind:
            n = num(r[executed])
            if threads and num(r[threads]) == 0:
                n = 0  # reached by warps, run by no thread: a path that does not run here
            out.setdefault(kind, []).append((op, n, num(r[wavefronts])))
    return out


# The harness's comparison kernel (common/compare.cu), which follows each variant's launch:
# not a kernel of the course, and left out of every profile.
NOT_PROFILED = "regex:^(?!count_different)"


def profile_group(ncu, exe, variants, shape_args, dtype, report_file, extra=()):
    """Profiles the kernel of each of @p variants, one launch each in this order, in one run
    of `exe --variant A,B,... --once` (the metrics, @p extra ones, and the source counters)
    into @p report_file.ncu-rep: the part that needs the GPU."""
    metrics = sorted({m for k in KINDS for m in METRICS[k] if m} | set(DRAM)
                     | set(L1_WAVEFRONTS.values()) | set(extra))
    target = [exe, "--variant", ",".join(variants), "--dtype", dtype, "--no-compare",
              "--once"] + shape_args
    r = run([ncu, "--clock-control", "none", "--kernel-name", NOT_PROFILED, "--section",
             "SourceCounters", "--metrics", ",".join(metrics), "--export", report_file, *target])
    if r.returncode != 0 or not os.path.exists(report_file + ".ncu-rep"):
        raise RuntimeError(f"ncu failed on {' '.join(target)}:\n{r.stderr}\n{r.stdout}")


def parse_kernels(text):
    """[(launch, {metric name: value})] from `ncu --csv --page details` output, one entry a
    profiled kernel in the report's order; launch is (block, grid) as "(x, y, z)" strings."""
    start = text.find('"ID"')
    kernels = {}
    for row in csv.DictReader(io.StringIO(text[start:] if start >= 0 else "")):
        try:
            k = kernels.setdefault(int(row["ID"]), ((row.get("Block Size"), row.get("Grid Size")),
                                                    {}))
            k[1][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError, TypeError):
            pass
    return [kernels[i] for i in sorted(kernels)]


def launch_text(v):
    return f"({v[0]}, {v[1]}, {v[2]})"


def read_group(ncu, report_file, plans):
    """[(measured, per_instruction, values)] from a report of profile_group(), one entry a
    kernel, checked against @p plans, the descriptions of the variants it ran in their order:
    one kernel each, with its plan's block and grid (RuntimeError otherwise). Reads the details
    page once and each kernel's source page (CPU only, so it runs beside the next profile)."""
    read = [ncu, "--import", report_file + ".ncu-rep", "--csv", "--print-units", "base"]
    kernels = parse_kernels(beside(read + ["--page", "details"]).stdout)
    want = [(launch_text(p["block"]), launch_text(p["grid"])) for p in plans]
    if [k[0] for k in kernels] != want or not all(k[1] for k in kernels):
        raise RuntimeError(f"{report_file}: {[k[0] for k in kernels]} profiled, where "
                           f"{', '.join(p['variant'] for p in plans)} launch one kernel each, "
                           f"of block and grid {want}")
    out = []
    for i, (_, values) in enumerate(kernels):
        source = beside(read + ["--launch-skip", str(i), "--launch-count", "1", "--page", "source",
                                "--print-source", "sass"])
        per_instruction = parse_source(source.stdout) if source.returncode == 0 else {}
        out.append((measure_kinds(values), per_instruction, values))
    return out


def measure_kinds(values):
    """{kind: {"instructions", "requests", "cost", "l1"}} from one kernel's counter
    @p values. The L1's requests and sectors of plain global loads (..._op_ld) count the
    LDGSTS's too (..._op_ldgsts_cache_access): on the H200 at 4099 x 8191, step 11's seam loads
    read 1181184 requests and 5779137 sectors there for 2048 LDG (31744 sectors predicted)
    beside 1179136 LDGSTS of 5747393 sectors. A plain load's are the difference."""
    measured = {}
    for k in KINDS:
        inst, req, cost = METRICS[k]
        l1 = L1_WAVEFRONTS.get(k)
        measured[k] = {"instructions": values.get(inst, 0.0),
                       "requests": values.get(req) if req else None,
                       "cost": values.get(cost, 0.0),
                       "l1": values.get(l1) if l1 else None}
    plain, copies = ("global", "load", False), ("global", "load", True)
    _, copy_req, copy_cost = METRICS[copies]
    if measured[plain]["requests"] is not None:
        measured[plain]["requests"] -= values.get(copy_req, 0.0)
    measured[plain]["cost"] -= values.get(copy_cost, 0.0)
    if measured[plain]["cost"] < 0 or (measured[plain]["requests"] or 0) < 0:
        measured[plain]["layout"] = ("the plain load counters are below the LDGSTS ones: this "
                                     "Nsight Compute counts them apart, and the subtraction "
                                     "is wrong here")
    return measured


def elements(shape):
    if shape[0] == "--size":
        return int(shape[1]) ** 2
    return int(shape[1]) * int(shape[3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--rows", type=int)
    ap.add_argument("--cols", type=int)
    ap.add_argument("--dtype", nargs="+", default=["float", "double"])
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--markdown", help="also write the tables to this file")
    ap.add_argument("--only", nargs="*", help="program names to check (default: all)")
    ap.add_argument("--store", help="keep each profile here, with the counters' metrics too")
    a = ap.parse_args()
    shape = (["--rows", str(a.rows), "--cols", str(a.cols)] if a.rows and a.cols
             else ["--size", str(a.size)])

    if not shutil.which(a.ncu):
        print(f"ncu_check: Nsight Compute ({a.ncu}) not found", file=sys.stderr)
        return 1
    ver = run([a.ncu, "--version"]).stdout.strip().splitlines()
    extra = known_metrics(a.ncu, [m for _, m in COUNTERS]) if a.store else []
    rows, cols = (a.rows, a.cols) if a.rows and a.cols else (a.size, a.size)
    lines = [f"Nsight Compute: {ver[-1] if ver else '?'}; shape: {' '.join(shape)}; "
             f"warp instructions exact; global sectors within {SECTOR_TOLERANCE:.0%}; shared "
             f"wavefronts (counted per instruction from its addresses) within "
             f"{SHARED_TOLERANCE:.0%}, no shared SASS instruction more than "
             f"{INSTRUCTION_TOLERANCE:.0%} above its prediction. The L1's own wavefront count "
             f"is shown beside it, not compared (it counts shared accesses that wait for "
             f"global stores again). A kernel that several variants launch alike is profiled "
             f"once, and its rows repeat that profile",
             "",
             "| step | variant | dtype | instruction | warp instructions (predicted / measured) "
             "| predicted | measured | ideal | per instruction | L1 count per instruction | "
             "source counters | ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    failures = []
    dram = ["", "DRAM traffic, and the sectors the SMs ask of the L2 beside the analyser's "
            "count (reads: each block's distinct sectors, summed, block_sectors of --explain; "
            "writes: the stores' sectors), and the read requests (the lines each load "
            "instruction asks for anew in its block, block_requests), shown, not compared",
            "",
            "| step | variant | dtype | DRAM read / input | DRAM write / output | time (us) | "
            "L2 read sectors (analyser / measured) | L2 write sectors (analyser / measured) | "
            "L2 read requests (analyser / measured) |",
            "|---|---|---|---|---|---|---|---|---|"]
    jobs = []
    for exe in programs(a.build):
        name = os.path.basename(exe)
        if a.only and name not in a.only:
            continue
        listing = run([exe, "--list"])
        if listing.returncode != 0:
            continue
        variants = [l.split(":")[0].split(" ")[0] for l in listing.stdout.splitlines() if ":" in l]
        jobs += [(exe, name, variant, dtype) for variant in variants for dtype in a.dtype]
    if not jobs:  # a check that profiled nothing has checked nothing
        wanted = f" named {' '.join(a.only)}" if a.only else ""
        print(f"ncu_check: no step program{wanted} with variants in {a.build}",
              file=sys.stderr)
        return 1
    missing = sorted(set(a.only or []) - {name for _, name, _, _ in jobs})
    if missing:
        print(f"ncu_check: no program {', '.join(missing)} with variants in {a.build}",
              file=sys.stderr)
        return 1
    # The GPU profiles one program and type at a time; the descriptions and the reading of
    # the reports (CPU only) run beside it.
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(
            max_workers=share()) as pool:
        plans = [pool.submit(description, exe, variant, shape, dtype)
                 for exe, _, variant, dtype in jobs]
        groups = {}  # (program, dtype) -> [job index], the kernels one run may profile
        for i, (exe, _, _, dtype) in enumerate(jobs):
            groups.setdefault((exe, dtype), []).append(i)
        first = {}  # job index -> the index of the job whose profile it repeats
        profiled = {}
        reads = {}  # job index -> (future of its group's read, its place in the group)
        # A group is profiled as soon as its own descriptions are ready, while the later
        # groups' are still being made.
        for g, ((exe, dtype), candidates) in enumerate(groups.items()):
            members = []
            for i in candidates:
                try:
                    p = plans[i].result()
                except RuntimeError as e:  # a description that failed describes nothing
                    failures.append(str(e))
                    continue
                if not p:  # an unsupported type, a library call, ...
                    continue
                # A kernel that another variant already ran with the same launch (step 11's
                # `registers` is step 10's kernel, say) has the same counters: it is profiled
                # once and its rows repeat that profile.
                same = (p["kernel"], dtype, tuple(p["grid"]), tuple(p["block"]))
                first[i] = profiled.setdefault(same, i)
                if first[i] == i:
                    members.append(i)
            if not members:
                continue
            report_file = os.path.join(tmp, f"profile{g}")
            t0 = time.monotonic()
            try:
                profile_group(a.ncu, exe, [jobs[i][2] for i in members], shape, dtype,
                              report_file, extra)
            except RuntimeError as e:
                failures.append(str(e))
                continue
            print(f"profiled {os.path.basename(exe)} {dtype}, {len(members)} kernel(s), in "
                  f"{time.monotonic() - t0:.1f} s", flush=True)
            future = pool.submit(read_group, a.ncu, report_file,
                                 [plans[i].result() for i in members])
            for k, i in enumerate(members):
                reads[i] = (future, k)
        if not profiled:
            failures.append("no kernel was profiled: nothing was checked")
        results = {}
        for i, f in first.items():
            if f not in reads:
                continue  # its group's run failed, and says so
            future, k = reads[f]
            try:
                results[i] = future.result()[k]
            except RuntimeError as e:
                if str(e) not in failures:
                    failures.append(str(e))
                continue
            if a.store:  # under this variant's name too, where it repeats another's
                exe, _, variant, dtype = jobs[i]
                keep(results[i][2], store_path(a.store, exe, variant, dtype, rows, cols))
        for i in sorted(results):
            exe, name, variant, dtype = jobs[i]
            plan = plans[i].result()
            measured, per_instruction, values = results[i]
            d = {m: values.get(m, float("nan")) for m in DRAM}
            for kind, p, m, problems in compare(plan, measured, per_instruction):
                unit = "sectors/req" if kind[0] == "global" else "wavefronts/instr"
                pi, pc, ideal = p if p else (0, 0, 0)
                per = (f"{pc / pi:.2f} / {m['cost'] / m['instructions']:.2f} {unit}"
                       if pi and m["instructions"] else "-")
                src = (f"{len(per_instruction.get(kind, []))} instr" if kind[0] == "shared"
                       and per_instruction else "-")
                l1 = (f"{m['l1'] / m['instructions']:.2f}" if m.get("l1") is not None
                      and m["instructions"] else "-")
                lines.append(f"| {name} | {variant} | {dtype} | {kind_name(kind)} | "
                             f"{pi} / {m['instructions']:.0f} | {pc} | {m['cost']:.0f} | "
                             f"{ideal} | {per} | {l1} | {src} | "
                             f"{'yes' if not problems else 'NO'} |")
                for problem in problems:
                    failures.append(f"{name}/{variant} {dtype} {kind_name(kind)}: "
                                    f"{problem}")
                print(lines[-1], flush=True)
            matrix = elements(shape) * (4 if dtype == "float" else 8)
            # Loads: each block's distinct sectors (its L1 serves a second touch); stores: every
            # request's sectors (they pass the L1 to the L2 one request at a time).
            l2 = {"load": sum(x.get("block_sectors", 0) for x in plan["accesses"]
                              if x["kind"] == "global load"),
                  "store": sum(x["cost"] for x in plan["accesses"]
                               if x["kind"] == "global store"),
                  "requests": sum(x.get("block_requests", 0) for x in plan["accesses"]
                                  if x["kind"] == "global load")}
            dram.append(f"| {name} | {variant} | {dtype} | "
                        f"{d['dram__bytes_read.sum'] / matrix:.3f} | "
                        f"{d['dram__bytes_write.sum'] / matrix:.3f} | "
                        f"{d['gpu__time_duration.sum'] / 1e3:.1f} | "
                        f"{l2['load']} / {d['lts__t_sectors_srcunit_tex_op_read.sum']:.0f} | "
                        f"{l2['store']} / {d['lts__t_sectors_srcunit_tex_op_write.sum']:.0f} | "
                        f"{l2['requests']} / "
                        f"{d['lts__t_requests_srcunit_tex_op_read.sum']:.0f} |")
    lines += dram + [""]
    lines += [f"FAIL: {f}" for f in failures] or ["every description matches the counters"]
    report(lines, a.markdown)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
