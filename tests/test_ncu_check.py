#!/usr/bin/env python3
"""Tests of scripts/ncu_check.py: the comparison passes a true description against counters
that behave as measured (instructions exact; the L1's own wavefront count above the
per-instruction count, as global stores make it) and fails each planted wrong description: a
missing access, a wrong width, a 2-way conflict in one quarter-warp of a 16-byte access, an
unexplained 10% excess, and a conflict in one pass of three. The description comes from a
step program (--explain --format json), so the test also checks that the script reads what
the programs write; the source-page reader leaves out instructions that no thread ran.

Usage: test_ncu_check.py SCRIPT STEP_PROGRAM_07 [STEP_PROGRAM_11]"""
import copy
import importlib.util
import json
import subprocess
import sys

spec = importlib.util.spec_from_file_location("ncu_check", sys.argv[1])
nc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nc)

failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


def problems(rows):
    return [p for _, _, _, ps in rows for p in ps]


# A real description: 07-swizzle's tile64, float, 256 x 256 (16-byte global and shared stores,
# 4-byte gathers), every block counted.
out = subprocess.run([sys.argv[2], "--explain", "--format", "json", "--sample", "0",
                      "--variant", "tile64", "--size", "256"], capture_output=True, text=True)
check(out.returncode == 0, "07-swizzle --explain --format json runs: " + out.stderr)
plan = json.loads(out.stdout.splitlines()[0])
kinds = nc.predicted_by_kind(plan)
check(sorted(kinds) == sorted(k for k in nc.KINDS if not k[2]),
      f"one access of each plain kind: {sorted(kinds)}")


def counters(p, l1_excess=0.24, extra=None):
    """What Nsight Compute would read for a kernel that does exactly what @p p describes (@p
    extra: added wavefronts per kind); the L1's own count runs @p l1_excess a warp instruction
    above the per-instruction count, as measured where global stores share the L1."""
    m = {}
    for kind, accesses in nc.predicted_by_kind(p).items():
        n = sum(a["instructions"] for a in accesses)
        cost = sum(a["cost"] for a in accesses) + (extra or {}).get(kind, 0)
        m[kind] = {"instructions": float(n), "requests": float(n) if kind[0] == "global" else None,
                   "cost": float(cost),
                   "l1": float(cost + l1_excess * n) if kind[0] == "shared" else None}
    return m


truth = counters(plan)
check(not problems(nc.compare(plan, truth)), "the true description passes: "
      + "; ".join(problems(nc.compare(plan, truth))))
check(not problems(nc.compare(plan, counters(plan, l1_excess=3.0))),
      "the L1's own count is shown, not compared")

# 1. A missing access: the description forgets the gather (shared load).
planted = copy.deepcopy(plan)
planted["accesses"] = [a for a in planted["accesses"] if a["kind"] != "shared load"]
check(any("description has none" in p for p in problems(nc.compare(planted, truth))),
      "a missing access fails")

# 2. A wrong width: the global load described as 4-byte loads (four times the instructions).
planted = copy.deepcopy(plan)
for a in planted["accesses"]:
    if a["kind"] == "global load":
        a["width"], a["instructions"] = 4, a["instructions"] * 4
        a["per_iteration"] = [[n * 4, c, i] for n, c, i in a["per_iteration"]]
check(any("warp instructions" in p for p in problems(nc.compare(planted, truth))),
      "a wrong width fails (instruction count)")

# 3. The kernel has a 2-way conflict in one quarter-warp of its 16-byte shared store (5
#    wavefronts an instruction, not 4); the description says conflict-free.
store = next(a for a in plan["accesses"] if a["kind"] == "shared store")
check(store["width"] == 16 and abs(store["predicted"] - 4) < 1e-9, "the store is 16-byte, 4 ideal")
conflicted = counters(plan, extra={("shared", "store", False): store["instructions"]})
check(any("wavefronts" in p for p in problems(nc.compare(plan, conflicted))),
      "a 2-way conflict in one quarter-warp of a 16-byte store fails")
old_tolerance_passes = (conflicted[("shared", "store", False)]["cost"] / store["instructions"]
                        <= 1.1 * 4 + 0.25 * 4)
check(old_tolerance_passes, "(the previous tolerance, 1.1 x predicted + 0.25 x ideal, let it pass)")

# 4. A conflict in one pass of three: the gather's SASS instructions read per instruction, one
#    of three with a 2-way conflict: the access fails, and the per-instruction comparison
#    names the instruction.
gather = next(a for a in plan["accesses"] if a["kind"] == "shared load")
per = gather["instructions"] // 3
sass = [("LDS", per, per * 1.0), ("LDS", per, per * 2.0), ("LDS", per, per * 1.0)]
average = counters(plan, extra={("shared", "load", False): per})
check(any("wavefronts" in p for p in problems(nc.compare(plan, average))),
      "a conflict in one pass of three fails the access")
check(any("SASS instruction 1" in p for p in
          problems(nc.compare(plan, average, {("shared", "load", False): sass}))),
      "a conflict in one pass of three fails per instruction, and is named")

# 4b. An unexplained 10% excess: the kernel's gather costs 1.1 wavefronts an instruction on
#     average (a conflict in one warp of ten, say) where the description says 1.
excess = counters(plan, extra={("shared", "load", False): gather["cost"] // 10})
check(any("wavefronts" in p for p in problems(nc.compare(plan, excess))),
      "an unexplained 10% excess of shared wavefronts fails")
check(not problems(nc.compare(plan, counters(plan, extra={("shared", "load", False):
                                                         gather["cost"] // 200}))),
      "half a percent (rounding in the counter) passes")

# 4c. A path that does not run at the profiled shape: its instruction is reached by warps but
#     run by no thread (0 predicated-on thread instructions, 0 wavefronts). The source reader
#     leaves it out, so the per-instruction comparison does not see "0 wavefronts".
source = ('"Address","Source","Instructions Executed","Predicated-On Thread Instructions '
          'Executed","L1 Wavefronts Shared","L1 Wavefronts Shared Ideal"\n'
          f'"0x10","LDS R1, [R2]","{gather["instructions"]}","{gather["instructions"] * 32}",'
          f'"{gather["instructions"]}","{gather["instructions"]}"\n'
          '"0x20","@P0 STS [R3], R4","4096","0","0","0"\n')
parsed = nc.parse_source(source)
check([n for _, n, _ in parsed.get(("shared", "store", False), [])] == [0],
      f"an instruction no thread ran reads as not executed: {parsed}")
check(not nc.compare_instructions([gather], parsed[("shared", "load", False)]),
      "the instruction that ran matches its prediction")
check(not nc.compare_instructions([store], parsed[("shared", "store", False)]),
      "the one that did not run is not compared")

# 4d. Edge tiles: a checked path beside the plain one (more SASS instructions than iterations),
#     whose executions include warps with lanes predicated off: fewer wavefronts an execution
#     than predicted passes; more than 10% above the largest prediction fails.
edges = [("LDS", per, per * 1.0), ("LDS", per, per * 1.0), ("LDS", per, per * 1.0),
         ("LDS", 300, 100.0)]
check(not nc.compare_instructions([gather], edges), "an edge path at 0.33 an execution passes")
edges[3] = ("LDS", 300, 600.0)
check(any("SASS instruction 3" in p for p in nc.compare_instructions([gather], edges)),
      "an edge path with a 2-way conflict fails, and is named")

# 5. The raw CSV reader takes Nsight Compute's layout.
raw = ('==PROF== Connected\n"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
       '"0","k","smsp__sass_inst_executed_op_shared_ld.sum","inst","1,024"\n'
       '"0","k","dram__bytes_read.sum","byte","2048"\n')
values = nc.parse_raw(raw)
check(values.get("smsp__sass_inst_executed_op_shared_ld.sum") == 1024.0
      and values.get("dram__bytes_read.sum") == 2048.0, f"raw CSV read: {values}")

# 6. The details page is read kernel by kernel, and a report must hold one kernel, launched
#    with the block and grid of the variant's plan: a report of another kernel, or of two,
#    is refused rather than compared.
head = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
        '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
        '"Metric Value"\n')


def details_row(kid, block, grid, metric, value):
    return (f'"{kid}","1","07-swizzle","h","k{kid}","1","7","{block}","{grid}","0","9.0",'
            f'"Command line profiler metrics","{metric}","inst","{value}"\n')


one = dict(plan, variant="a", block=[32, 8, 1], grid=[8, 8, 1])
details = ("==PROF== Connected\n" + head
           + details_row(0, "(32, 8, 1)", "(8, 8, 1)", "dram__bytes_read.sum", "1,000")
           + details_row(0, "(32, 8, 1)", "(8, 8, 1)", "smsp__sass_inst_executed_op_global_ld.sum",
                         "7"))
second = details_row(1, "(32, 32, 1)", "(4, 4, 1)", "dram__bytes_read.sum", "2,000")
kernels = nc.parse_kernels(details + second)
check([k[0] for k in kernels] == [("(32, 8, 1)", "(8, 8, 1)"), ("(32, 32, 1)", "(4, 4, 1)")]
      and kernels[0][1]["dram__bytes_read.sum"] == 1000.0
      and kernels[1][1]["dram__bytes_read.sum"] == 2000.0, f"kernels read in order: {kernels}")
table = ('"Kernel Name","k0",\n"Address","Source","Instructions Executed",'
         '"Thread Instructions Executed","Predicated-On Thread Instructions Executed",'
         '"L1 Wavefronts Shared"\n"0x10","LDS R2, [R3]","64","2048","2048","64"\n')


def fake_run(details_text):
    pages = {"details": details_text, "source": table}
    return lambda cmd: subprocess.CompletedProcess(cmd, 0, pages[cmd[cmd.index("--page") + 1]], "")


saved = nc.run, nc.beside
try:
    nc.run = nc.beside = fake_run(details)
    [(measured, per_instruction, values)] = nc.read_group("ncu", "r", [one])
    check(values["dram__bytes_read.sum"] == 1000.0
          and measured[("global", "load", False)]["instructions"] == 7.0 and per_instruction,
          "the report of the variant's kernel is read")
    nc.run = nc.beside = fake_run(details + second)
    both = nc.read_group("ncu", "r", [one, dict(one, variant="b", block=[32, 32, 1],
                                                   grid=[4, 4, 1])])
    check([v["dram__bytes_read.sum"] for _, _, v in both] == [1000.0, 2000.0],
          "two variants' kernels read in order")
    for what, text, p in [("two kernels", details + second, [one]),
                          ("another grid", details, [dict(one, grid=[5, 4, 1])]),
                          ("no kernel", head, [one]),
                          ("the kernels in another order", second + details,
                           [one, dict(one, variant="b", block=[32, 32, 1], grid=[4, 4, 1])])]:
        nc.run = nc.beside = fake_run(text)
        try:
            nc.read_group("ncu", "r", p)
            check(False, f"a report of {what} is refused")
        except RuntimeError:
            pass
finally:
    nc.run, nc.beside = saved

# cp.async (step 11): the description marks the global load and the shared store as made by
# one LDGSTS; they are compared on the LDGSTS counters. Its seam blocks load through registers:
# plain loads and shared stores beside the LDGSTS, described as such. A kernel that made the
# copies with plain instructions after all fails, and so do plain loads the description lacks.
if len(sys.argv) > 3:
    out = subprocess.run([sys.argv[3], "--explain", "--format", "json", "--sample", "0",
                          "--variant", "async-only", "--rows", "257", "--cols", "131"],
                         capture_output=True, text=True)
    check(out.returncode == 0, "11-async-copy --explain --format json runs: " + out.stderr)
    aplan = json.loads(out.stdout.splitlines()[0])
    akinds = nc.predicted_by_kind(aplan)
    check(sorted(akinds, key=str) == sorted((k for k in nc.KINDS if k[2] != "tma"), key=str),
          f"cp.async copies, and the seam blocks' plain loads and stores: "
          f"{sorted(akinds, key=str)}")

    def values_for(p, on_async):
        """Counter values of a kernel doing what @p p describes, its copies counted as LDGSTS
        (@p on_async) or as plain LDG and STS."""
        v = {}
        # One LDGSTS is counted once by the instruction counter both cp.async kinds name;
        # counted as plain instructions, the copies add to the seam blocks' own.
        add = (lambda n, x: v.__setitem__(n, x)) if on_async else \
            (lambda n, x: v.__setitem__(n, v.get(n, 0) + x))
        for kind, m in counters(p, l1_excess=0).items():
            names = nc.METRICS[kind if on_async else (kind[0], kind[1], False)]
            add(names[0], m["instructions"])
            if names[1]:
                add(names[1], m["requests"])
            add(names[2], m["cost"])
        if on_async:  # the L1's plain load requests and sectors count the LDGSTS's too
            copy, plain = nc.METRICS[("global", "load", True)], nc.METRICS[("global", "load", False)]
            for i in (1, 2):
                v[plain[i]] = v.get(plain[i], 0) + v.get(copy[i], 0)
        return v

    good = nc.measure_kinds(values_for(aplan, True))
    check(not problems(nc.compare(aplan, good)), "cp.async counted as LDGSTS passes: "
          + "; ".join(problems(nc.compare(aplan, good))))
    plain = nc.measure_kinds(values_for(aplan, False))
    check(problems(nc.compare(aplan, plain)), "a kernel whose loads are plain LDG and STS fails "
          "a description that says cp.async")
    noseam = copy.deepcopy(aplan)
    noseam["accesses"] = [a for a in noseam["accesses"]
                          if a.get("async") or a["kind"] not in ("global load", "shared store")]
    check(any("global load instructions; the description has none" in x
              for x in problems(nc.compare(noseam, good))),
          "plain loads beside the cp.async that the description lacks fail")
    check(not any(k[2] for k in nc.predicted_by_kind(plan)),
          "07-swizzle's accesses are not cp.async")
    # At a shape with no seam moves (rows a multiple of 8) the seam accesses are described
    # with no instruction: a kernel that runs none of them passes, one that runs some fails.
    out = subprocess.run([sys.argv[3], "--explain", "--format", "json", "--sample", "0",
                          "--variant", "async-only", "--rows", "256", "--cols", "131"],
                         capture_output=True, text=True)
    wplan = json.loads(out.stdout.splitlines()[0])
    seam = [a for a in wplan["accesses"] if not a.get("async")
            and a["kind"] in ("global load", "shared store")]
    check(len(seam) == 2 and all(a["instructions"] == 0 for a in seam),
          f"no seam move at 256 x 131: {[(a['kind'], a['instructions']) for a in seam]}")
    quiet = nc.measure_kinds(values_for(wplan, True))
    check(not problems(nc.compare(wplan, quiet)), "seam accesses of no instruction, none "
          "executed, pass: " + "; ".join(problems(nc.compare(wplan, quiet))))
    noisy = values_for(wplan, True)
    noisy[nc.METRICS[("global", "load", False)][0]] = 32.0
    check(any("description has none" in x for x in problems(
        nc.compare(wplan, nc.measure_kinds(noisy)))), "seam loads where none are described fail")

# Counters that keep LDGSTS apart from plain loads (plain below the copies) are not read as
# negative plain loads: the check says the counter layout differs.
apart = {nc.METRICS[("global", "load", True)][2]: 500.0, nc.METRICS[("global", "load", False)][2]: 0.0}
check(any("counts them apart" in x for x in problems(nc.compare(plan, nc.measure_kinds(apart)))),
      "plain load counters below the LDGSTS ones fail with the reason")

# A check that profiles nothing fails: an empty build folder, a program name it lacks, no ncu,
# a description that fails, a program with no kernel to profile.
import os  # noqa: E402
import tempfile  # noqa: E402
build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[2]))))
with tempfile.TemporaryDirectory() as empty:
    for args, what in (([empty, "--ncu", "true"], "an empty build folder"),
                       ([build, "--ncu", "true", "--only", "99-none"], "a program it lacks"),
                       ([build, "--ncu", os.path.join(empty, "ncu")], "no ncu"),
                       ([build, "--ncu", "true", "--only", "07-swizzle", "--dtype", "bogus"],
                        "a description that fails"),
                       ([build, "--ncu", "true", "--only", "01-hello-world"],
                        "nothing to profile")):
        r = subprocess.run([sys.executable, sys.argv[1], *args], capture_output=True, text=True)
        check(r.returncode != 0 and ("ncu_check:" in r.stderr or "FAIL:" in r.stdout),
              f"{what} fails with a message: rc {r.returncode}, {r.stderr.strip()[-200:]}")

# The programs profiled are the transposing ones: 01-hello-world has no --explain to ask.
names = [os.path.basename(p) for p in nc.programs(build)]
check("01-hello-world" not in names and "02-naive" in names and "references" in names,
      f"the programs profiled: {names}")

# The copy engine (step 14): a box copy is one instruction of one thread, so the tile copies'
# warp instructions are the plan's boxes, not the 16-byte chunks' warps; its sectors are the
# L2's for it; its writes to shared memory are not counted by the LSU and not compared.
tma_plan = {"boxes_per_block": 2, "blocks": 16, "boxes": 32, "accesses": [
    {"kind": "global load", "tma": True, "instructions": 128, "cost": 2048, "ideal": 2048,
     "per_iteration": []},
    {"kind": "shared store", "tma": True, "instructions": 128, "cost": 512, "ideal": 512,
     "per_iteration": []},
    {"kind": "shared load", "instructions": 1024, "cost": 1024, "ideal": 1024,
     "per_iteration": [[1024, 1024, 1024]]},
    {"kind": "global store", "instructions": 1024, "cost": 4096, "ideal": 4096,
     "per_iteration": []}]}
tma_truth = {("global", "load", "tma"): {"instructions": 32.0, "requests": None, "cost": 2048.0},
             ("shared", "load", False): {"instructions": 1024.0, "cost": 1024.0, "l1": 1100.0},
             ("global", "store", False): {"instructions": 1024.0, "requests": 1024.0,
                                          "cost": 4096.0}}
check(not problems(nc.compare(tma_plan, tma_truth)),
      "a tile copied in 32 boxes, as described, passes: " + str(problems(nc.compare(tma_plan, tma_truth))))
# ... and copied out by it: the same for the copies out, the threads' stores to the tile plain.
both_plan = copy.deepcopy(tma_plan)
both_plan["store_boxes"] = 32
both_plan["accesses"][-1] = {"kind": "global store", "tma": True, "instructions": 128,
                             "cost": 2048, "ideal": 2048, "per_iteration": []}
both_plan["accesses"].insert(3, {"kind": "shared store", "instructions": 128, "cost": 512,
                                 "ideal": 512, "per_iteration": [[128, 512, 512]]})
both_truth = {("global", "load", "tma"): {"instructions": 32.0, "requests": None, "cost": 2048.0},
              ("shared", "load", False): {"instructions": 1024.0, "cost": 1024.0, "l1": 1100.0},
              ("shared", "store", False): {"instructions": 128.0, "cost": 512.0, "l1": 520.0},
              ("global", "store", "tma"): {"instructions": 32.0, "requests": None,
                                           "cost": 2048.0}}
check(not problems(nc.compare(both_plan, both_truth)),
      "a tile copied in and out in 32 boxes each passes: "
      + str(problems(nc.compare(both_plan, both_truth))))
planted = copy.deepcopy(both_truth)
planted[("global", "store", "tma")]["instructions"] = 128.0
check(problems(nc.compare(both_plan, planted)), "the copy engine: one copy out a chunk warp fails")
planted = copy.deepcopy(both_truth)
planted[("global", "store", False)] = {"instructions": 1024.0, "requests": 1024.0,
                                       "cost": 4096.0}
check(problems(nc.compare(both_plan, planted)),
      "the copy engine: threads' own stores beside the copies out fail")
for kind, field, value, what in [
        (("global", "load", "tma"), "instructions", 128.0, "one copy a chunk warp"),
        (("global", "load", "tma"), "cost", 2300.0, "12% more sectors than the boxes hold"),
        (("global", "load", False), "instructions", 64.0, "threads' own loads beside the copies")]:
    planted = copy.deepcopy(tma_truth)
    planted.setdefault(kind, {"instructions": 0.0, "requests": 0.0, "cost": 0.0})[field] = value
    if kind == ("global", "load", False):
        planted[kind]["requests"] = value
    check(problems(nc.compare(tma_plan, planted)), f"the copy engine: {what} fails")

print(f"{len(failed)} failure(s)" if failed else "all passed")
sys.exit(1 if failed else 0)
