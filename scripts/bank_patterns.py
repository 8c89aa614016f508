#!/usr/bin/env python3
"""Measures the shared-memory access patterns of course/banks.cu under Nsight Compute and puts
each beside the access analyser's prediction: the table that settles the bank model
(docs/theory-banks.md links to it).

For each pattern, `banks --list --format json` gives the analyser's wavefronts for one warp
instruction (no GPU needed); `ncu --clock-control none` runs `banks --pattern NAME` and reads
the shared-memory wavefronts and warp instructions of its stores and of its loads. The table
has the predicted and the measured wavefronts per instruction of each, and says where they
differ by more than 0.05 (the measured counter's own excess on conflict-free code is part of
what this table is for). It is a measurement, not a test: it exits 0 unless a run fails.

Usage: scripts/bank_patterns.py BUILD_DIR [--ncu ncu] [--markdown FILE]
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("ncu_check", os.path.join(HERE, "ncu_check.py"))
ncu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ncu_check)

METRICS = {
    "store": ("smsp__sass_inst_executed_op_shared_st.sum",
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    "load": ("smsp__sass_inst_executed_op_shared_ld.sum",
             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
}
CLOSE = 0.05  # wavefronts an instruction


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    banks = os.path.join(a.build, "course", "banks")
    r = subprocess.run([banks, "--list", "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        return 1
    patterns = [json.loads(line) for line in r.stdout.splitlines()]
    ver = subprocess.run([a.ncu, "--version"], capture_output=True, text=True).stdout.split("\n")
    lines = [f"Nsight Compute: {ver[-2] if len(ver) > 1 else '?'}; each pattern: "
             f"{patterns[0]['instructions']} warp instructions of each direction",
             "",
             "| pattern | bytes | what | predicted | measured store | measured load | "
             "agrees |",
             "|---|---|---|---|---|---|---|"]
    metrics = sorted({m for pair in METRICS.values() for m in pair})
    failed = False
    for p in patterns:
        values = ncu_check.profile(a.ncu, [banks, "--pattern", p["pattern"]], metrics)
        if not values:
            failed = True
            lines.append(f"| {p['pattern']} | {p['width']} | {p['what']} | {p['wavefronts']} | "
                         f"run failed | | |")
            continue
        measured = {}
        for side, (inst, wave) in METRICS.items():
            n = values.get(inst, 0.0)
            measured[side] = values.get(wave, 0.0) / n if n else float("nan")
        agrees = all(abs(m - p["wavefronts"]) <= CLOSE for m in measured.values())
        lines.append(f"| {p['pattern']} | {p['width']} | {p['what']} | {p['wavefronts']} | "
                     f"{measured['store']:.2f} | {measured['load']:.2f} | "
                     f"{'yes' if agrees else 'no'} |")
        print(lines[-1], flush=True)
    ncu_check.report(lines, a.markdown)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
