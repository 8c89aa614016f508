#!/usr/bin/env python3
"""Tabulates Nsight Compute's `--csv --print-units base` output, one row a file.

Each file holds one kernel's metrics (`ncu --csv --print-units base --metrics ...`, the
program's own output above the table is skipped). The columns are the L2's and the SM's
figures that chapter 13 compares: time, L2 read requests and sectors, write sectors, how
busy the L2 is and its units (the link between its two halves, as a share and as busy time;
the tag lookups), the DRAM,
shared-memory wavefronts and two stalls. A metric a file lacks is shown as "-"; a file
without a metrics table is an error.

Usage: scripts/ncu_csv_table.py FILE.csv [FILE.csv ...]
Exit status: 0 printed, 1 a file holds no metrics, 2 bad usage.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("ncu_check", os.path.join(HERE, "ncu_check.py"))
ncu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ncu_check)

# The link between the L2's halves, busy time: its share of the kernel's time, times that time.
# Two kernels that move the same bytes compare by it (a kernel faster than another that asks
# the same busy time of the link runs the link harder).
FABRIC_BUSY = "fabric busy ns"
FABRIC = "lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed"

COLUMNS = [  # (heading, metric, scale)
    ("us", "gpu__time_duration.sum", 1e-3),
    ("L2 rd requests (M)", "lts__t_requests_srcunit_tex_op_read.sum", 1e-6),
    ("L2 rd sectors (M)", "lts__t_sectors_srcunit_tex_op_read.sum", 1e-6),
    ("L2 wr sectors (M)", "lts__t_sectors_srcunit_tex_op_write.sum", 1e-6),
    ("L2 % peak", "lts__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("fabric %", "lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed", 1),
    ("fabric busy us", FABRIC_BUSY, 1e-3),
    ("tag lookups %", "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed", 1),
    ("DRAM % peak", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("shared wavefronts (M)", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 1e-6),
    ("stall short sb %", "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct", 1),
    ("stall barrier %", "smsp__warp_issue_stalled_barrier_per_warp_active.pct", 1),
]


def metrics(path):
    """The metric values of the file's one kernel, by name (ncu_check.py's reading of the
    table)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        kernels = ncu_check.parse_kernels(f.read())
    if not kernels or not kernels[0][1]:
        raise ValueError(f"{path}: no Nsight Compute metrics table")
    values = dict(kernels[0][1])
    if FABRIC in values and "gpu__time_duration.sum" in values:
        values[FABRIC_BUSY] = values[FABRIC] / 100.0 * values["gpu__time_duration.sum"]
    return values


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    print("| file | " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for path in argv:
        try:
            m = metrics(path)
        except (OSError, ValueError) as e:
            print(f"ncu_csv_table: {e}", file=sys.stderr)
            return 1
        cells = ["-" if c[1] not in m else f"{m[c[1]] * c[2]:.2f}" for c in COLUMNS]
        print(f"| {os.path.basename(path)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
