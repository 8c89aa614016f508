#!/usr/bin/env python3
"""Tests of scripts/ncu_check.py: the comparison passes a true description against counters
that behave as measured (instructions exact, a small excess of shared wavefronts) and fails
each planted wrong description: a missing access, a wrong width, a 2-way conflict in one
quarter-warp of a 16-byte access, and a conflict in one pass of three that an average would
hide. The description comes from a step program (--explain --format json), so the test also
checks that the script reads what the programs write.

Usage: test_ncu_check.py SCRIPT STEP_PROGRAM_07"""
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
check(sorted(kinds) == sorted(nc.KINDS), f"one access of each kind: {sorted(kinds)}")


def counters(p, shared_excess=0.2, extra=None):
    """What Nsight Compute would read for a kernel that does exactly what @p p describes, with
    the counter's excess on shared wavefronts (@p extra: added wavefronts per kind)."""
    m = {}
    for kind, accesses in nc.predicted_by_kind(p).items():
        n = sum(a["instructions"] for a in accesses)
        cost = sum(a["cost"] for a in accesses)
        if kind[0] == "shared":
            cost += shared_excess * n
        cost += (extra or {}).get(kind, 0)
        m[kind] = {"instructions": float(n), "requests": float(n) if kind[0] == "global" else None,
                   "cost": float(cost)}
    return m


truth = counters(plan)
check(not problems(nc.compare(plan, truth)), "the true description passes: "
      + "; ".join(problems(nc.compare(plan, truth))))

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
conflicted = counters(plan, extra={("shared", "store"): store["instructions"]})
check(any("wavefronts" in p for p in problems(nc.compare(plan, conflicted))),
      "a 2-way conflict in one quarter-warp of a 16-byte store fails")
old_tolerance_passes = (conflicted[("shared", "store")]["cost"] / store["instructions"]
                        <= 1.1 * 4 + 0.25 * 4)
check(old_tolerance_passes, "(the previous tolerance, 1.1 x predicted + 0.25 x ideal, let it pass)")

# 4. A conflict in one pass of three: the gather's SASS instructions read per instruction, one
#    of three with a 2-way conflict. The access's average stays within the allowance; the
#    per-instruction comparison does not.
gather = next(a for a in plan["accesses"] if a["kind"] == "shared load")
per = gather["instructions"] // 3
sass = [("LDS", per, per * 1.0), ("LDS", per, per * 2.0), ("LDS", per, per * 1.0)]
average = counters(plan, shared_excess=0.0, extra={("shared", "load"): per})
check(not problems(nc.compare(plan, average)), "the conflict averaged over the access is hidden")
check(any("SASS instruction 1" in p for p in
          problems(nc.compare(plan, average, {("shared", "load"): sass}))),
      "a conflict in one pass of three fails per instruction")

# 5. The raw CSV reader takes Nsight Compute's layout.
raw = ('==PROF== Connected\n"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
       '"0","k","smsp__sass_inst_executed_op_shared_ld.sum","inst","1,024"\n'
       '"0","k","dram__bytes_read.sum","byte","2048"\n')
values = nc.parse_raw(raw)
check(values.get("smsp__sass_inst_executed_op_shared_ld.sum") == 1024.0
      and values.get("dram__bytes_read.sum") == 2048.0, f"raw CSV read: {values}")

print(f"{len(failed)} failure(s)" if failed else "all passed")
sys.exit(1 if failed else 0)
