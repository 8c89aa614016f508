#!/usr/bin/env python3
"""Draws the README's plot: every step's headline kernel, cuBLAS, PyTorch and CuPy as a share
of the copy measured in the same run, float, at a power of two and at an odd shape, one panel
for each GPU's check of record.

Each GPU's check of record is the folder named by the commit in its summary
(RESULTS/<gpu>/gpu-check.txt names it; its bench.csv and peers.csv are read). The steps and
cuBLAS are shares of cudaMemcpy in the bench (pct_copy); PyTorch's `t().contiguous()` and
CuPy's `ascontiguousarray(a.T)` are shares of the same library's own device-to-device copy
(scripts/peers.py). --print writes the values it plots, one line each.

Runs without a GPU: it needs python3 and matplotlib (Debian: python3-matplotlib).

Usage: scripts/plot_record.py RESULTS_DIR --out FILE_WITHOUT_SUFFIX [--shapes 8192x8192,12345x6789]
                              [--print]
Writes FILE.png and FILE.svg. Exit status: 0 written, 2 a missing run or measurement.
"""
import argparse
import csv
import os
import re
import sys

PEERS = [("torch-t-contiguous", "PyTorch"), ("cupy-ascontiguousarray", "CuPy")]


def fail(msg):
    print(f"plot_record: {msg}", file=sys.stderr)
    sys.exit(2)


def record_folder(results, gpu):
    """RESULTS/<gpu>/<commit>: the folder of the check that RESULTS/<gpu>/gpu-check.txt names."""
    summary = os.path.join(results, gpu, "gpu-check.txt")
    try:
        with open(summary) as f:
            m = re.search(r"^commit:\s*([0-9a-f]{7,40})", f.read(), re.M)
    except OSError:
        fail(f"no {summary}")
    if not m:
        fail(f"{summary} names no commit")
    return os.path.join(results, gpu, m.group(1)[:7]), m.group(1)[:7]


def read(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        fail(f"no {path}")


def values(folder, shapes):
    """(device, [(label, {shape: percent of the copy})]) of one check, float."""
    bench = [r for r in read(os.path.join(folder, "bench.csv"))
             if r["sweep"] == "headline" and r["dtype"] == "float"]
    peers = [r for r in read(os.path.join(folder, "peers.csv")) if r["dtype"] == "float"]
    shape = lambda r: f"{r['rows']}x{r['cols']}"
    series = []
    steps = sorted({r["step"] for r in bench if r["step"] != "references"})
    for label, match, rows in (
            [(s[:2], lambda r, s=s: r["step"] == s, bench) for s in steps]
            + [("cuBLAS", lambda r: r["variant"] == "cublas", bench)]
            + [(name, lambda r, v=v: r["variant"] == v, peers) for v, name in PEERS]):
        got = {shape(r): float(r["pct_copy"]) for r in rows if match(r) and shape(r) in shapes}
        missing = [s for s in shapes if s not in got]
        if missing:
            fail(f"{folder}: no {label} at {', '.join(missing)} in float")
        series.append((label, got))
    return bench[0]["device"], series


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default="8192x8192,12345x6789")
    ap.add_argument("--gpus", default="h100,h200")
    ap.add_argument("--print", action="store_true")
    a = ap.parse_args()
    shapes = a.shapes.split(",")
    panels = []
    for gpu in a.gpus.split(","):
        folder, commit = record_folder(a.results, gpu)
        device, series = values(folder, shapes)
        panels.append((device, commit, series))
        if a.print:
            for label, got in series:
                print(device, label, " ".join(f"{s}={got[s]:.2f}" for s in shapes))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("needs matplotlib: apt-get install python3-matplotlib (or pip install matplotlib)")
    matplotlib.rcParams["svg.hashsalt"] = "transpose"  # the same SVG from the same data
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: the titles can be read
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.6), sharey=True)
    axes = list(axes) if len(panels) > 1 else [axes]
    markers = ["o", "s", "^", "D"]
    for ax, (device, commit, series) in zip(axes, panels):
        x = list(range(len(series)))
        n_steps = len(series) - 1 - len(PEERS)  # the steps, joined; the others, points alone
        for i, s in enumerate(shapes):
            y = [got[s] for _, got in series]
            line, = ax.plot(x[:n_steps], y[:n_steps], marker=markers[i % 4], linewidth=1.2,
                            label=s.replace("x", " x "))
            ax.plot(x[n_steps:], y[n_steps:], marker=markers[i % 4], linestyle="none",
                    color=line.get_color())
        ax.axhline(100, color="black", linestyle="--", linewidth=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels([label for label, _ in series], rotation=60, fontsize=8)
        ax.axvspan(n_steps - 0.5, len(series) - 0.5, color="0.92", zorder=0)
        ax.set_ylim(0, 110)
        ax.set_title(f"{device} (check of {commit})", fontsize=9)
        ax.set_xlabel("step, then what you would call instead", fontsize=8)
        ax.grid(axis="y", linewidth=0.3)
    axes[0].set_ylabel("% of the copy in the same run, float")
    axes[0].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    for suffix in ("png", "svg"):
        fig.savefig(f"{a.out}.{suffix}", dpi=110, metadata={"Date": None} if suffix == "svg"
                    else {})
    print(f"plot_record: wrote {a.out}.png and {a.out}.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
