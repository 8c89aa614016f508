#!/usr/bin/env python3
"""Tests of how scripts/ncu_check.py and scripts/ncu_counters.py profile several kernels in one
run of a program, against a stand-in for Nsight Compute (no GPU needed).

The stand-in `ncu` "profiles" a step program by asking it for each variant's description
(--explain: block, grid, and the accesses of every block) and reports counters that are
exactly those predictions, one kernel a variant in the program's own order (--list), and the
harness's comparison kernel after each unless the run leaves it out by name. So:
  - ncu_check.py passes, with one run for each program and type (not one a variant), and keeps
    every variant's counters in the store;
  - a run that launches one kernel too few, or launches them in another order, fails;
  - ncu_counters.py reads the stored counters, profiles the rest one run a program, type and
    shape, and profiles one variant at a time where the kernels do not pair up with the
    variants (the stand-in's cuBLAS launches two kernels).

Usage: test_ncu_batch.py NCU_CHECK NCU_COUNTERS BUILD_DIR"""
import glob
import json
import os
import stat
import subprocess
import sys
import tempfile

NCU_CHECK, NCU_COUNTERS, BUILD = sys.argv[1:4]
failed = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        failed.append(what)


FAKE = r'''#!/usr/bin/env python3
import csv, importlib.util, io, json, os, subprocess, sys
spec = importlib.util.spec_from_file_location("nc", NCU_CHECK)
nc = importlib.util.module_from_spec(spec); spec.loader.exec_module(nc)
args = sys.argv[1:]
mode = os.environ.get("FAKE_NCU", "")
with open(os.environ["FAKE_NCU_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
if "--version" in args:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion fake"); sys.exit(0)
if "--query-metrics" in args:
    names = {m.split(".")[0] for k in nc.KINDS for m in nc.METRICS[k] if m}
    names |= {m.split(".")[0] for m in nc.DRAM + list(nc.L1_WAVEFRONTS.values())}
    names |= {m.split(".")[0] for _, m in nc.COUNTERS}
    print("\n".join(sorted(names))); sys.exit(0)

def kernels(target, filtered):
    """[(block, grid, {metric: value})] that the target command launches (@p filtered: the
    comparison kernel left out by name)."""
    exe = target[0]
    opt = dict(zip(target[1::2], target[2::2]))
    shape = [w for k in ("--size", "--rows", "--cols") if k in opt for w in (k, opt[k])]
    order = [l.split(":")[0].split(" ")[0]
             for l in subprocess.run([exe, "--list"], capture_output=True, text=True).stdout.splitlines()]
    chosen = [v for v in order if v in opt["--variant"].split(",")]
    out = []
    for v in chosen:
        if v == "cublas":  # a library call: two kernels of its own
            out += [(("(1, 1, 1)", "(1, 1, 1)"), {"gpu__time_duration.sum": 1.0})] * 2
            continue
        r = subprocess.run([exe, "--explain", "--format", "json", "--sample", "0", "--variant", v,
                            "--dtype", opt["--dtype"]] + shape, capture_output=True, text=True)
        plan = json.loads(r.stdout.splitlines()[0])
        values = {m: 1.0 for _, m in nc.COUNTERS}
        values.update({m: 1.0 for m in nc.DRAM})
        for kind, acc in nc.predicted_by_kind(plan).items():
            if kind not in nc.METRICS:
                continue
            inst, req, cost = nc.METRICS[kind]
            n = sum(a["instructions"] for a in acc)
            values[inst] = n
            values[cost] = sum(a["cost"] for a in acc)
            if req:
                values[req] = n
        out.append((("(%d, %d, %d)" % tuple(plan["block"]), "(%d, %d, %d)" % tuple(plan["grid"])), values))
        if not filtered:  # the harness's comparison follows each variant
            out.append((("(256, 1, 1)", "(64, 1, 1)"), {"gpu__time_duration.sum": 1.0}))
    if mode == "drop":
        out = out[:-1]
    if mode == "swap":
        out = out[::-1]
    return out

def details(ks):
    f = io.StringIO()
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    w.writerow(["ID", "Kernel Name", "Block Size", "Grid Size", "Metric Name", "Metric Unit", "Metric Value"])
    for i, ((block, grid), values) in enumerate(ks):
        for m, v in values.items():
            w.writerow([i, "k", block, grid, m, "", v])
    return f.getvalue()

if "--import" in args:
    report = json.load(open(args[args.index("--import") + 1]))
    ks = kernels(report["target"], report["filtered"])
    if "--launch-skip" in args:
        i = int(args[args.index("--launch-skip") + 1])
        ks = ks[i:i + 1]
    if args[args.index("--page") + 1] == "details":
        print(details(ks))
    sys.exit(0)
target = args[next(i for i, a in enumerate(args) if os.path.isfile(a) and os.access(a, os.X_OK)):]
if "--export" in args:
    with open(args[args.index("--export") + 1] + ".ncu-rep", "w") as f:
        json.dump({"target": target, "filtered": "--kernel-name" in args}, f)
else:
    ks = kernels(target, "--kernel-name" in args)
    if "--launch-count" in args:
        ks = ks[:1]
    with open(args[args.index("--log-file") + 1], "w") as f:
        f.write(details(ks))
'''


def run(cmd, mode=""):
    env = dict(os.environ, FAKE_NCU=mode, FAKE_NCU_LOG=log)
    open(log, "w").close()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    calls = [json.loads(line) for line in open(log)]
    return r, calls


with tempfile.TemporaryDirectory() as tmp:
    ncu = os.path.join(tmp, "ncu")
    log = os.path.join(tmp, "calls.jsonl")
    with open(ncu, "w") as f:
        f.write(FAKE.replace("NCU_CHECK", repr(os.path.abspath(NCU_CHECK))))
    os.chmod(ncu, os.stat(ncu).st_mode | stat.S_IEXEC)
    store = os.path.join(tmp, "store")
    base = [sys.executable, NCU_CHECK, BUILD, "--ncu", ncu, "--size", "64",
            "--only", "05-multi-element", "07-swizzle"]

    r, calls = run(base + ["--store", store])
    check(r.returncode == 0, "ncu_check passes counters that are its predictions: "
          + r.stderr[-400:] + r.stdout[-400:])
    profiles = [c for c in calls if "--export" in c]
    check(len(profiles) == 4, f"one run a program and type: 4 runs ({len(profiles)})")
    check(all("--kernel-name" in c for c in profiles), "each run leaves the comparison out")
    rows = [line for line in r.stdout.splitlines() if line.startswith("| 05-multi-element |")]
    listing = subprocess.run([os.path.join(BUILD, "steps", "05-multi-element", "05-multi-element"),
                              "--list"], capture_output=True, text=True).stdout
    variants = [line.split(":")[0].split(" ")[0] for line in listing.splitlines()]
    kept = glob.glob(os.path.join(store, "05-multi-element__*__64x64.json"))
    check(len(kept) == 2 * len(variants), f"every variant's counters kept: {len(kept)} files")
    check(all("dram__bytes_read.sum" in json.load(open(k)) for k in kept),
          "a kept file holds the counters")
    check(len({r.split("|")[2] for r in rows}) == len(variants), "a row for every variant")

    for mode, what in (("drop", "one kernel too few"), ("swap", "the kernels in another order")):
        r, _ = run(base, mode)
        check(r.returncode == 1 and "launch one kernel each" in r.stdout,
              f"{what} fails, and says why: {r.stdout[-300:]}")

    # ncu_counters: the headline kernels of 05 and 07 at 64 x 64 are in the store; the others
    # are profiled one program at a time, cuBLAS one variant at a time.
    r, calls = run([sys.executable, NCU_COUNTERS, BUILD, "--ncu", ncu, "--sizes", "64x64",
                    "--dtypes", "float", "--store", store])
    check(r.returncode == 0, "ncu_counters runs: " + r.stderr[-400:] + r.stdout[-300:])
    profiled = [c for c in calls if "--export" in c or "--log-file" in c]
    programs = [os.path.basename(c[c.index("--variant") - 1]) for c in profiled]
    check("05-multi-element" not in programs and "07-swizzle" not in programs,
          f"the stored kernels are read, not profiled: {programs}")
    check(programs.count("references") == 3,
          "cuBLAS's two kernels do not pair up: the references again one variant at a time "
          f"({programs.count('references')} runs)")
    check(len(programs) == len(set(programs)) + 2, f"one run for each other program: {programs}")
    check("\n2 of 15 kernels read from the profiles kept" in r.stdout,
          "the summary counts the kernels read from the store")

if failed:
    print(f"{len(failed)} check(s) failed")
    sys.exit(1)
print("every check passed")
