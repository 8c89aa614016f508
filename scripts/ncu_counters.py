#!/usr/bin/env python3
"""Profiles the benchmark's headline kernels under Nsight Compute and tabulates what explains
their speed on this GPU: time, DRAM bytes and throughput, achieved against theoretical
occupancy, registers, L2 sectors and read requests, how busy the L2 is and the link between
its two halves (on the H100 and H200 the L2's busiest unit at odd shapes), where warps stall,
and the warp instructions executed with the share of cycles in which the schedulers issue one
(a kernel whose schedulers are busy most cycles, its warps seldom waiting, is held back by its
instructions: chapter 10).

The kernels are the ones `course/bench --list` names for the headline part at the given
sizes and types (every step's headline variant and the references, the copy kernel and
cuBLAS; cudaMemcpy launches no kernel of its own to profile). Each is profiled on one launch
of its step program (`--once --no-compare`), the clocks left alone.

The metrics are taken from a list of candidates, keeping those this GPU's Nsight Compute
knows (`ncu --query-metrics`); the ones it does not know are named in the output, so that a
table never silently lacks a column. Run it with the same arguments on two GPUs and put the
tables side by side: a kernel that is fast on one and slow on the other shows why here.

Usage: scripts/ncu_counters.py BUILD_DIR [--sizes 8192x16384,4099x8191] [--dtypes float,double]
                                         [--from-step 05] [--also STEP/VARIANT[:DTYPE],...]
                                         [--ncu ncu] [--markdown FILE] [--store DIR] [--list]
--from-step NN leaves out the steps before NN (the references are always in).
--also profiles more variants at the same sizes, beside the headline ones (in the given type
only, with :DTYPE): step 11's `async-only` and `registers` side by side say what the copies
change in how the SM waits.
--store DIR reads each kernel's counters from those that scripts/ncu_check.py --store DIR kept
of it at the same shape, where it kept them all, instead of profiling it again. The kernels
left to profile run one program, type and shape at a time, all its variants in one run.
--list prints the commands it would profile and exits (no GPU, no ncu needed).
Exit status: 0 all profiled (or listed), 1 a run failed, 2 bad usage.
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("ncu_check", os.path.join(HERE, "ncu_check.py"))
ncu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ncu_check)

CANDIDATES = ncu_check.COUNTERS  # (column heading, metric)
SCALE = {"gpu__time_duration.sum": 1e-3, "dram__bytes_read.sum": 1e-6,
         "dram__bytes_write.sum": 1e-6,
         "smsp__inst_executed.sum": 1e-6,
         "l1tex__data_pipe_lsu_wavefronts.sum": 1e-6,
         "lts__t_requests_srcunit_tex_op_read.sum": 1e-6}  # ns -> us, bytes -> MB, counts -> M


def headline_jobs(build, sizes, dtypes, from_step):
    """[(program path, step/variant, dtype, rows, cols)] of the bench's headline part."""
    bench = os.path.join(build, "course", "bench")
    r = subprocess.run([bench, "--list", "--sizes", sizes, "--dtypes", dtypes],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"ncu_counters: {bench} --list failed:\n{r.stderr}")
    jobs = []
    for line in r.stdout.splitlines():
        m = re.match(r"\[\d+/\d+\] headline: (\S+)/(\S+) (float|double) (\d+)x(\d+)$", line)
        if not m:
            continue
        step, variant, dtype, rows, cols = m.groups()
        if step == "references" and variant == "memcpy":
            continue  # cudaMemcpy: no kernel of ours to profile
        if step != "references" and step[:2] < from_step:
            continue
        exe = (os.path.join(build, "common", "references") if step == "references"
               else os.path.join(build, "steps", step, step))
        jobs.append((exe, f"{step}/{variant}", dtype, rows, cols))
    return jobs


def extra_jobs(build, also, sizes, dtypes):
    """[(program path, step/variant, dtype, rows, cols)] of --also: each STEP/VARIANT[:DTYPE]
    at every size, in every type of @p dtypes (or in its own)."""
    jobs = []
    for item in filter(None, (x.strip() for x in also.split(","))):
        m = re.fullmatch(r"(\d\d-[a-z0-9-]+)/([a-z0-9-]+)(?::(float|double))?", item)
        if not m:
            raise SystemExit(f"ncu_counters: --also {item}: STEP/VARIANT[:DTYPE] expected")
        step, variant, only = m.groups()
        exe = os.path.join(build, "steps", step, step)
        if not os.access(exe, os.X_OK):
            raise SystemExit(f"ncu_counters: --also {item}: no program {exe}")
        listing = subprocess.run([exe, "--list"], capture_output=True, text=True).stdout
        if variant not in (line.split(":")[0].split(" ")[0] for line in listing.splitlines()):
            raise SystemExit(f"ncu_counters: --also {item}: {step} has no variant {variant}")
        for size in sizes.split(","):
            rows, cols = size.split("x")
            for dtype in dtypes.split(","):
                if only in (None, dtype):
                    jobs.append((exe, f"{step}/{variant}", dtype, rows, cols))
    return jobs


def command(job, variants=None):
    """The run of @p job's variant (or of @p variants, a list, in one run), once each."""
    exe, name, dtype, rows, cols = job
    chosen = ",".join(variants) if variants else name.split("/", 1)[1]
    return [exe, "--variant", chosen, "--dtype", dtype, "--rows", rows, "--cols", cols,
            "--no-compare", "--once"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--sizes", default="8192x16384,4099x8191")
    ap.add_argument("--dtypes", default="float,double")
    ap.add_argument("--from-step", default="05")
    ap.add_argument("--also", default="")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--markdown")
    ap.add_argument("--store")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if not re.fullmatch(r"\d\d", a.from_step):
        ap.error("--from-step: two digits, e.g. 05")
    jobs = headline_jobs(a.build, a.sizes, a.dtypes, a.from_step)
    jobs += extra_jobs(a.build, a.also, a.sizes, a.dtypes) if jobs else []
    if not jobs:
        print("ncu_counters: the benchmark lists no headline kernels", file=sys.stderr)
        return 2
    if a.list:
        for job in jobs:
            print(" ".join(command(job)))
        return 0

    known = set(ncu_check.known_metrics(a.ncu, [m for _, m in CANDIDATES]))
    columns = [(h, m) for h, m in CANDIDATES if m in known]
    missing = [m for _, m in CANDIDATES if m not in known]
    if not columns:
        print("ncu_counters: ncu knows none of the metrics (is ncu working here?)")
        return 1
    lines = ["Headline kernels under Nsight Compute, one launch each (clocks left alone)", ""]
    if missing:
        lines += ["Metrics this Nsight Compute does not know: " + ", ".join(missing), ""]
    lines += ["| kernel | type | matrix | " + " | ".join(h for h, _ in columns) + " |",
              "|---|---|---|" + "---|" * len(columns)]
    failed = False
    values = {}  # job index -> {metric: value}
    for k, job in enumerate(jobs):
        if a.store:
            exe, name, dtype, rows, cols = job
            path = ncu_check.store_path(a.store, exe, name.split("/", 1)[1], dtype, rows, cols)
            kept = ncu_check.stored_values(path)
            if kept is not None and all(m in kept for _, m in columns):
                values[k] = kept
            elif kept is not None:  # kept without these counters: profile the kernel for them
                print(f"ncu_counters: {path} lacks some counters; profiling again")
    reused = len(values)
    # The rest, one run a program, type and shape for all its variants (Nsight Compute's
    # start-up paid once), where each variant launches one kernel; one run a variant where
    # the kernels do not pair up with the variants (a library call may launch several).
    groups = {}
    for k, job in enumerate(jobs):
        if k not in values:
            exe, name, dtype, rows, cols = job
            groups.setdefault((exe, dtype, rows, cols), []).append(k)
    metrics = [m for _, m in columns]
    for (exe, dtype, rows, cols), members in groups.items():
        # The program runs its variants in its own order, that of --list.
        listing = subprocess.run([exe, "--list"], capture_output=True, text=True).stdout
        order = [line.split(":")[0].split(" ")[0] for line in listing.splitlines()]
        variant = lambda k: jobs[k][1].split("/", 1)[1]  # noqa: E731
        members.sort(key=lambda k: order.index(variant(k)) if variant(k) in order else -1)
        run = command(jobs[members[0]], [variant(k) for k in members])
        kernels = ncu_check.profile_kernels(a.ncu, run, metrics,
                                            ["--kernel-name", ncu_check.NOT_PROFILED])
        if kernels is not None and len(kernels) == len(members):
            values.update(zip(members, kernels))
            continue
        for k in members:
            one = ncu_check.profile(a.ncu, command(jobs[k]), metrics, ["--launch-count", "1"])
            if one:
                values[k] = one
    for k, job in enumerate(jobs):
        head = f"| {job[1]} | {job[2]} | {job[3]} x {job[4]} |"
        if not values.get(k):
            failed = True
            lines.append(head + " run failed |" + " |" * (len(columns) - 1))
            continue
        cells = []
        for _, m in columns:
            v = values[k].get(m)
            cells.append("-" if v is None else f"{v * SCALE.get(m, 1.0):.1f}")
        lines.append(head + " " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    if a.store:
        lines += ["", f"{reused} of {len(jobs)} kernels read from the profiles kept in "
                      f"{os.path.basename(os.path.normpath(a.store))}/, "
                      f"the rest profiled here"]
    ncu_check.report(lines, a.markdown)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
