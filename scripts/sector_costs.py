#!/usr/bin/env python3
"""Runs course/sectors.cu's modes under Nsight Compute and tabulates what a sector written in
parts costs: time, the L2's write and read sectors, the DRAM bytes read and written, against
the same buffer written in whole sectors.

The metrics are taken from a list of candidates, keeping those this GPU's Nsight Compute
knows (`ncu --query-metrics`): the L2 counters that would show an ECC read-modify-write or an
L2 fill read of a partly written sector (reads of L2 or DRAM while the kernel only writes) are
named differently on different chips. Each mode is profiled on its second launch (the first
touches freshly allocated memory).

Usage: scripts/sector_costs.py BUILD_DIR [--bytes 1G] [--ncu ncu] [--markdown FILE]
"""
import argparse
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("ncu_check", os.path.join(HERE, "ncu_check.py"))
ncu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ncu_check)

CANDIDATES = [
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sectors_op_write.sum",
    "lts__t_sectors_op_read.sum",
    "lts__t_requests_srcunit_tex_op_write.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum",
    "lts__d_sectors_fill_device.sum",
    "lts__d_sectors_fill_sysmem.sum",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--bytes", default="1G")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    exe = os.path.join(a.build, "course", "sectors")
    listing = subprocess.run([exe, "--list", "--bytes", a.bytes], capture_output=True, text=True)
    if listing.returncode != 0:
        print(listing.stderr)
        return 1
    modes = [line.split(":")[0].split() for line in listing.stdout.splitlines() if ":" in line]
    metrics = ncu_check.known_metrics(a.ncu, CANDIDATES)
    if not metrics:
        print("sector_costs: ncu knows none of the metrics (is ncu working here?)")
        return 1
    short = [m.replace(".sum", "") for m in metrics]
    lines = [f"`sectors --bytes {a.bytes}` under Nsight Compute, second launch of each mode", "",
             "| mode | " + " | ".join(short) + " |", "|---|" + "---|" * len(short)]
    failed = False
    for mode in modes:
        args = ["--mode", mode[0]] + (mode[1:3] if len(mode) >= 3 else [])
        values = ncu_check.profile(a.ncu, [exe, "--bytes", a.bytes, "--reps", "2"] + args,
                                   metrics, ["--launch-skip", "1", "--launch-count", "1"])
        label = " ".join(args[1:])
        if not values:
            failed = True
            lines.append(f"| {label} | run failed |" + " |" * (len(short) - 1))
            continue
        lines.append(f"| {label} | " + " | ".join(f"{values.get(m, float('nan')):.0f}"
                                                 for m in metrics) + " |")
        print(lines[-1], flush=True)
    ncu_check.report(lines, a.markdown)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
