#!/usr/bin/env python3
"""Measures the shared-memory access patterns of course/banks.cu under Nsight Compute and puts
each beside the access analyser's prediction: the table that settles the bank model
(docs/theory-banks.md links to it).

For each pattern, `banks --list --format json` gives the analyser's wavefronts for one warp
instruction, a store and a load (no GPU needed); `ncu --clock-control none` runs
`banks --pattern A,B,...` (every pattern in one run, one launch each) and reads the shared-memory wavefronts and warp instructions of its
stores and of its loads. Each side is compared with its own prediction, and a side more than
0.05 wavefronts an instruction away is a disagreement: the script then exits 1.

A second table (--traffic, on by default) runs the conflict-free patterns again with global
memory traffic beside the shared loads (`banks --global load|store`) and with 1, 8 and 32 warps
a block: the wavefront counter against the bank arithmetic when the L1's data path also
carries global data, as it does in every transpose (docs/theory-measuring.md). That table is a
measurement, not a test.

Usage: scripts/bank_patterns.py BUILD_DIR [--ncu ncu] [--markdown FILE] [--no-traffic]
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
# Besides the shared counters, for the traffic table: the global side and the L1's data path.
TRAFFIC_METRICS = [
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__m_xbar2l1tex_read_sectors.sum",
    "l1tex__data_bank_reads.sum",
    "l1tex__data_bank_writes.sum",
    "gpu__time_duration.sum",
]
CLOSE = 0.05  # wavefronts an instruction


def per_instruction(values):
    out = {}
    for side, (inst, wave) in METRICS.items():
        n = values.get(inst, 0.0)
        out[side] = values.get(wave, 0.0) / n if n else float("nan")
    return out


def disagreements(pattern, measured):
    """The sides ('store', 'load') of @p pattern whose measurement is off its prediction."""
    return [side for side in ("store", "load")
            if not abs(measured[side] - pattern[side]) <= CLOSE]


def profile_patterns(ncu, banks, names, metrics, options=()):
    """[{metric: value}] of the patterns @p names, one launch each, all in one run of
    `banks --pattern A,B,...` under Nsight Compute (its start-up paid once); an entry is None
    where the run failed or did not launch one kernel a pattern."""
    kernels = ncu_check.profile_kernels(ncu, [banks, "--pattern", ",".join(names), *options],
                                        metrics)
    if kernels is None or len(kernels) != len(names):
        print(f"bank_patterns: {len(kernels or [])} kernel(s) profiled for {len(names)} "
              f"pattern(s): {','.join(names)}", file=sys.stderr)
        return [None] * len(names)
    return kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--markdown")
    ap.add_argument("--no-traffic", action="store_true", help="only the pattern table")
    a = ap.parse_args()
    banks = os.path.join(a.build, "course", "banks")
    r = subprocess.run([banks, "--list", "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        return 1
    patterns = [json.loads(line) for line in r.stdout.splitlines()]
    ver = subprocess.run([a.ncu, "--version"], capture_output=True, text=True).stdout.split("\n")
    lines = [f"Nsight Compute: {ver[-2] if len(ver) > 1 else '?'}; each pattern: "
             f"{patterns[0]['instructions']} warp instructions of each direction, 8 warps a "
             f"block; agreement: within {CLOSE} wavefronts an instruction on each side",
             "",
             "| pattern | bytes | what | store: predicted / measured | "
             "load: predicted / measured | agrees |",
             "|---|---|---|---|---|---|"]
    metrics = sorted({m for pair in METRICS.values() for m in pair})
    failed, disagree = False, []
    measured = profile_patterns(a.ncu, banks, [p["pattern"] for p in patterns], metrics)
    for p, values in zip(patterns, measured):
        if not values:
            failed = True
            lines.append(f"| {p['pattern']} | {p['width']} | {p['what']} | run failed | | no |")
            continue
        m = per_instruction(values)
        off = disagreements(p, m)
        disagree += [f"{p['pattern']} {side}: predicted {p[side]}, measured {m[side]:.2f}"
                     for side in off]
        lines.append(f"| {p['pattern']} | {p['width']} | {p['what']} | "
                     f"{p['store']} / {m['store']:.2f} | {p['load']} / {m['load']:.2f} | "
                     f"{'yes' if not off else 'NO (' + ', '.join(off) + ')'} |")
        print(lines[-1], flush=True)

    if not a.no_traffic:
        extra = ncu_check.known_metrics(a.ncu, TRAFFIC_METRICS)
        lines += ["", "The conflict-free patterns with global traffic beside the shared loads "
                  "(`banks --pattern P --warps W --global G`): wavefronts an instruction, and "
                  "the L1's data-path counters an instruction of the shared loads.", "",
                  "| pattern | warps a block | global | store wavefronts/instr | "
                  "load wavefronts/instr | load excess | global sectors / shared load | "
                  "L1 data-path wavefronts / shared load | L2-to-L1 sectors / shared load |",
                  "|---|---|---|---|---|---|---|---|---|"]
        names = ("w4-ideal", "w8-ideal", "w16-ideal")
        runs = {(warps, glob): profile_patterns(a.ncu, banks, names, metrics + extra,
                                                ["--warps", str(warps), "--global", glob])
                for warps in (1, 8, 32) for glob in ("none", "load", "store")}
        for k, name in enumerate(names):
            p = next(q for q in patterns if q["pattern"] == name)
            for warps in (1, 8, 32):
                for glob in ("none", "load", "store"):
                    values = runs[(warps, glob)][k]
                    if not values:
                        failed = True
                        lines.append(f"| {name} | {warps} | {glob} | run failed | | | | | |")
                        continue
                    m = per_instruction(values)
                    n = values.get(METRICS["load"][0], 0.0) or float("nan")
                    sectors = (values.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0.0)
                               + values.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                            0.0))
                    path = values.get("l1tex__data_pipe_lsu_wavefronts.sum", float("nan"))
                    fills = values.get("l1tex__m_xbar2l1tex_read_sectors.sum", float("nan"))
                    lines.append(f"| {name} | {warps} | {glob} | {m['store']:.3f} | "
                                 f"{m['load']:.3f} | {m['load'] - p['load']:+.3f} | "
                                 f"{sectors / n:.2f} | {path / n:.2f} | {fills / n:.2f} |")
                    print(lines[-1], flush=True)

    lines += [""] + ([f"DISAGREES: {d}" for d in disagree] or
                     ["every pattern agrees with the bank model, stores and loads"])
    ncu_check.report(lines, a.markdown)
    return 1 if failed or disagree else 0


if __name__ == "__main__":
    sys.exit(main())
