#!/usr/bin/env python3
"""Plots a benchmark CSV: bench's, or the --format csv output of the tour or a step program.

Writes, as PNG and SVG, into the folder given with --out:
  ladder          GB/s of each step at the largest square float matrix measured for the most
                  steps and at 4099x8191 float, as grouped bars, with memcpy and cuBLAS of the
                  same run as horizontal lines.
  size            GB/s against the number of matrix elements (log x), one line per step and
                  reference through the square matrices, one panel per element type; other
                  shapes are diamonds on a labelled grey line. Hollow markers: input and output
                  together fit in L2, so the point measures the cache, not device memory.
  sweep-variants  every variant of each step that has several, at the largest square float
                  matrix and at 4099x8191 (only when the CSV has such rows).
  sweep-block     GB/s of each block shape (bench --sweep block; only when present).

The variant that stands for a step in `ladder` and `size`: the rows of bench's `headline` and
`size` parts when the CSV has bench's `sweep` column; otherwise, for each step, the variant
measured at the most matrices, ties going to the fastest (with its fastest block where one
matrix was measured with several). Repeated measurements of
one kernel on one matrix (the references run beside every step, say) count by their median.

Runs without a GPU: it needs python3 and matplotlib (Debian: python3-matplotlib).

Usage: scripts/plot_results.py results.csv --out DIR
"""
import argparse
import csv
import os
import re
import statistics
import sys
from collections import defaultdict

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
except ImportError:
    sys.exit("plot_results.py needs matplotlib: apt-get install python3-matplotlib "
             "(or pip install matplotlib)")

REQUIRED = ["step", "variant", "block", "dtype", "rows", "cols", "gbps", "fits_l2", "device",
            "cuda", "date"]
REFERENCES = "references"
# Shades of grey, apart from the steps' colours.
REF_STYLE = {"memcpy": ("black", "--"), "copy-kernel": ("0.55", ":"), "cublas": ("0.3", "-.")}
ODD_SHAPE = (4099, 8191)  # a matrix no tile divides: the steps' bounds checks at work
FORMATS = ("png", "svg")


class InputError(Exception):
    """A CSV this script cannot plot; the message says why."""


# --- Reading. ----------------------------------------------------------------------------

def read_results(path):
    """The rows of @p path as dicts, numbers converted. Repeated header lines (CSVs joined
    with cat) and blank lines are skipped. The `sweep` column is None when absent."""
    try:
        with open(path, newline="") as f:
            lines = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")
    lines = [line for line in lines if line]
    if not lines:
        raise InputError(f"{path} is empty")
    header = lines[0]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(f"{path}: no column {', '.join(missing)} in the header; expected the "
                         "CSV of bench, tour --format csv or a step's --format csv")
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        if line == header:
            continue
        if len(line) != len(header):
            raise InputError(f"{path}:{n}: {len(line)} fields, the header has {len(header)}")
        r = dict(zip(header, line))
        try:
            r["rows"], r["cols"] = int(r["rows"]), int(r["cols"])
            r["gbps"] = float(r["gbps"])
        except ValueError:
            raise InputError(f"{path}:{n}: rows, cols and gbps must be numbers")
        r["fits_l2"] = r["fits_l2"] == "true"
        r.setdefault("sweep", None)
        rows.append(r)
    if not rows:
        raise InputError(f"{path} has a header but no results")
    return rows


def title_of(rows, what):
    """`what`, then the device, CUDA version and date(s) of the run."""
    def joined(key):
        return ", ".join(sorted({r[key] for r in rows}))
    dates = sorted({r["date"][:10] for r in rows})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    return f"{what}\n{joined('device')}, CUDA {joined('cuda')}, {when}"


# --- Choosing and combining rows. --------------------------------------------------------

def points(rows):
    """One point per (step, variant, block, dtype, shape): the median GB/s of its rows."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["step"], r["variant"], r["block"], r["dtype"], r["rows"], r["cols"])].append(r)
    out = []
    for (step, variant, block, dtype, m, n), rs in groups.items():
        out.append({"step": step, "variant": variant, "block": block, "dtype": dtype, "rows": m,
                    "cols": n, "gbps": statistics.median(r["gbps"] for r in rs),
                    "fits_l2": any(r["fits_l2"] for r in rs)})
    return out


def headline_points(rows):
    """The references and one variant for each step; see the module's docstring. A variant
    may run with a block that depends on the shape (07-swizzle's scalar path at odd shapes):
    the variant is chosen, not the block. Where the chosen variant was measured with several
    blocks on one matrix, the fastest stands for it."""
    pool = [r for r in rows if r["sweep"] in ("headline", "size")]
    if not pool:
        pool = [r for r in rows if r["sweep"] != "block"]
    pts = points(pool)
    by_step = defaultdict(lambda: defaultdict(list))
    for p in pts:
        if p["step"] != REFERENCES:
            by_step[p["step"]][p["variant"]].append(p["gbps"])
    chosen = {step: max(kinds, key=lambda k: (len(kinds[k]), statistics.median(kinds[k])))
              for step, kinds in by_step.items()}
    best = {}
    for p in pts:
        if p["step"] == REFERENCES or chosen[p["step"]] == p["variant"]:
            key = (p["step"], p["variant"], p["dtype"], p["rows"], p["cols"])
            if key not in best or p["gbps"] > best[key]["gbps"]:
                best[key] = p
    return list(best.values())


def find(pts, step, variant, dtype, shape):
    for p in pts:
        if (p["step"], p["variant"], p["dtype"], p["rows"], p["cols"]) == (step, variant, dtype,
                                                                            *shape):
            return p
    return None


def pick_shapes(pts, dtype):
    """The largest square matrix measured for the most steps, and 4099x8191 (or, without
    it, the non-square matrix measured for the most steps), of @p dtype."""
    steps_at = defaultdict(set)
    for p in pts:
        if p["dtype"] == dtype and p["step"] != REFERENCES:
            steps_at[(p["rows"], p["cols"])].add(p["step"])
    square = [s for s in steps_at if s[0] == s[1]]
    odd = [s for s in steps_at if s[0] != s[1]]
    shapes = []
    if square:
        shapes.append(max(square, key=lambda s: (len(steps_at[s]), s[0])))
    if ODD_SHAPE in steps_at:
        shapes.append(ODD_SHAPE)
    elif odd:
        shapes.append(max(odd, key=lambda s: (len(steps_at[s]), s[0] * s[1])))
    return shapes


def main_dtype(pts):
    dtypes = sorted({p["dtype"] for p in pts})
    return "float" if "float" in dtypes else dtypes[0]


def step_colors(pts):
    steps = sorted({p["step"] for p in pts if p["step"] != REFERENCES})
    cmap = plt.get_cmap("tab10")
    return {s: cmap(i % 10) for i, s in enumerate(steps)}


def shape_label(shape, dtype):
    return f"{shape[0]} x {shape[1]} {dtype}"


def reference_lines(ax, pts, dtype, shape, x0, x1, labelled, vertical=False):
    """memcpy and cuBLAS of @p shape as lines from x0 to x1 (y0 to y1 when vertical)."""
    for name in ("memcpy", "cublas"):
        ref = find(pts, REFERENCES, name, dtype, shape)
        if ref is None:
            continue
        color, style = REF_STYLE[name]
        label = None if name in labelled else name
        labelled.add(name)
        draw = ax.vlines if vertical else ax.hlines
        draw(ref["gbps"], x0, x1, colors=color, linestyles=style, linewidth=1.2, label=label)


def legend_entries(axes):
    """The legend entries of all @p axes, each label once."""
    handles, labels = [], []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    return handles, labels


def save(fig, out_dir, name, written, bottom=0.0):
    fig.tight_layout(rect=(0, bottom, 1, 1))
    for ext in FORMATS:
        path = os.path.join(out_dir, f"{name}.{ext}")
        if ext == "svg":
            fig.savefig(path, dpi=120, metadata={"Date": None})  # same data, same bytes
            fit_width(path)
        else:
            fig.savefig(path, dpi=120)
        written.append(path)
    plt.close(fig)


def fit_width(path):
    """Makes an SVG as wide as the page that shows it, not wider: the root's fixed width and
    height become width="100%" (the viewBox keeps the proportions)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.index("<svg")
    end = text.index(">", start)
    root = text[start:end]
    fitted = re.sub(r'\s(width|height)="[^"]*"', "", root).replace("<svg", '<svg width="100%"', 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + fitted + text[end:])


# --- The plots. --------------------------------------------------------------------------

def plot_ladder(rows, out_dir, written):
    pts = headline_points(rows)
    dtype = main_dtype(pts)
    shapes = pick_shapes(pts, dtype)
    if not shapes:
        print("ladder: no step rows, not written")
        return
    colors = step_colors(pts)
    steps = sorted(colors)
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(steps) * len(shapes)), 5.5))
    width, labelled, seen = 0.8, set(), set()
    for g, shape in enumerate(shapes):
        base = g * (len(steps) + 1.5)
        for i, step in enumerate(steps):
            p = next((q for q in pts if q["step"] == step and q["dtype"] == dtype
                      and (q["rows"], q["cols"]) == shape), None)
            if p is None:
                continue
            label = f"{step} ({p['variant']})"
            ax.bar(base + i, p["gbps"], width, color=colors[step],
                   label=None if label in seen else label)
            seen.add(label)
            ax.text(base + i, p["gbps"], f"{p['gbps']:.0f}", ha="center", va="bottom",
                    fontsize=7)
        reference_lines(ax, pts, dtype, shape, base - 0.5, base + len(steps) - 0.5, labelled)
    ax.set_xticks([g * (len(steps) + 1.5) + (len(steps) - 1) / 2 for g in range(len(shapes))])
    ax.set_xticklabels([shape_label(s, dtype) for s in shapes])
    ax.set_ylabel("GB/s (2 x M x N x sizeof(T) / median time)")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.08)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title_of(rows, "Each step against memcpy and cuBLAS"), fontsize=10)
    save(fig, out_dir, "ladder", written)


def plot_size(rows, out_dir, written):
    pts = headline_points(rows)
    dtypes = sorted({p["dtype"] for p in pts}, key=lambda d: (d != "float", d))
    colors = step_colors(pts)
    fig, axes = plt.subplots(1, len(dtypes), figsize=(7 * len(dtypes), 5.5), squeeze=False,
                             sharey=True)
    for ax, dtype in zip(axes[0], dtypes):
        lines = defaultdict(list)
        for p in pts:
            if p["dtype"] == dtype:
                lines[(p["step"], p["variant"])].append(p)
        for (step, variant), ps in sorted(lines.items()):
            ps.sort(key=lambda p: p["rows"] * p["cols"])
            if step == REFERENCES:
                color, style = REF_STYLE.get(variant, ("0.3", "--"))
                label = variant
            else:
                color, style, label = colors[step], "-", f"{step} ({variant})"
            # The line joins square matrices only; other shapes are points of their own.
            square = [p for p in ps if p["rows"] == p["cols"]]
            ax.plot([p["rows"] * p["cols"] for p in square], [p["gbps"] for p in square], style,
                    color=color, linewidth=1.2, label=label)
            for p in ps:
                ax.scatter(p["rows"] * p["cols"], p["gbps"], s=24, zorder=3, edgecolors=color,
                           facecolors="none" if p["fits_l2"] else color,
                           marker="o" if p["rows"] == p["cols"] else "D")
        for m, n in sorted({(p["rows"], p["cols"]) for p in pts
                            if p["dtype"] == dtype and p["rows"] != p["cols"]}):
            ax.axvline(m * n, color="0.8", linewidth=0.8, zorder=0)
            ax.text(m * n, 1.0, f" {m}x{n}", transform=ax.get_xaxis_transform(), rotation=90,
                    va="top", ha="right", fontsize=7, color="0.4")
        ax.set_xscale("log")
        ax.set_xlabel("matrix elements (rows x cols)")
        ax.set_title(dtype, fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("GB/s")
    handles, labels = legend_entries(axes[0])
    handles.append(Line2D([], [], linestyle="", marker="o", markerfacecolor="none",
                          markeredgecolor="0.3"))
    labels.append("hollow: input + output fit in L2")
    handles.append(Line2D([], [], linestyle="", marker="D", color="0.3"))
    labels.append("diamond: not square (shape on the grey line)")
    axes[0][-1].legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title_of(rows, "GB/s against matrix size"), fontsize=10)
    save(fig, out_dir, "size", written)


def plot_variants(rows, out_dir, written):
    has_sweep = any(r["sweep"] is not None for r in rows)
    pool = [r for r in rows if r["sweep"] == "variants"] if has_sweep else rows
    pts = points(pool)
    if not pts:
        print("sweep-variants: no variant sweep rows, not written")
        return
    # (step, dtype, shape) measured with several variants
    variants_at = defaultdict(set)
    for p in pts:
        if p["step"] != REFERENCES:
            variants_at[(p["step"], p["dtype"], p["rows"], p["cols"])].add(p["variant"])
    multi = [p for p in pts if p["step"] != REFERENCES
             and len(variants_at[(p["step"], p["dtype"], p["rows"], p["cols"])]) > 1]
    if not multi:
        print("sweep-variants: no step with several variants, not written")
        return
    dtype = main_dtype(multi)
    shapes = pick_shapes(multi, dtype)
    colors = step_colors(pts)
    height = max(len([p for p in multi if p["dtype"] == dtype and (p["rows"], p["cols"]) == s])
                 for s in shapes)
    fig, axes = plt.subplots(1, len(shapes), figsize=(7 * len(shapes), 1.5 + 0.32 * height),
                             squeeze=False)
    for ax, shape in zip(axes[0], shapes):
        ps = sorted((p for p in multi if p["dtype"] == dtype and (p["rows"], p["cols"]) == shape),
                    key=lambda p: p["step"])  # variants in the order measured
        y = list(range(len(ps)))[::-1]
        ax.barh(y, [p["gbps"] for p in ps], color=[colors[p["step"]] for p in ps])
        ax.set_yticks(y)
        ax.set_yticklabels([f"{p['step']}/{p['variant']}" + (f" {p['block']}" if p["block"]
                                                            else "") for p in ps], fontsize=8)
        for yy, p in zip(y, ps):
            ax.text(p["gbps"], yy, f" {p['gbps']:.0f}", va="center", fontsize=7)
        reference_lines(ax, pts, dtype, shape, -0.5, len(ps) - 0.5, set(), vertical=True)
        ax.set_xlabel("GB/s")
        ax.set_title(shape_label(shape, dtype), fontsize=10)
    handles, labels = legend_entries(axes[0])
    if handles:
        fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=len(labels))
    fig.suptitle(title_of(rows, "Every variant of each step"), fontsize=10)
    save(fig, out_dir, "sweep-variants", written, bottom=0.35 / (1.5 + 0.32 * height))


def plot_block(rows, out_dir, written):
    has_sweep = any(r["sweep"] is not None for r in rows)
    pool = [r for r in rows if r["sweep"] == "block"] if has_sweep else rows
    pts = points(pool)
    blocks_at = defaultdict(set)
    for p in pts:
        if p["step"] != REFERENCES and p["block"]:
            blocks_at[(p["step"], p["variant"], p["dtype"], p["rows"], p["cols"])].add(p["block"])
    swept = {k for k, blocks in blocks_at.items() if len(blocks) > 1}
    if not swept:
        print("sweep-block: no block sweep rows, not written")
        return
    panels = sorted({(k[2], k[3], k[4]) for k in swept}, key=lambda d: (d[0] != "float", d))
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 5), squeeze=False,
                             sharey=True)
    cmap = plt.get_cmap("tab10")
    for ax, (dtype, m, n) in zip(axes[0], panels):
        keys = sorted(k for k in swept if (k[2], k[3], k[4]) == (dtype, m, n))
        blocks = []  # in the order measured
        for p in pts:
            if (p["step"], p["variant"], p["dtype"], p["rows"], p["cols"]) in keys and \
                    p["block"] not in blocks:
                blocks.append(p["block"])
        width = 0.8 / len(keys)
        for i, k in enumerate(keys):
            xs, ys = [], []
            for j, b in enumerate(blocks):
                p = next((q for q in pts if (q["step"], q["variant"], q["dtype"], q["rows"],
                                             q["cols"]) == k and q["block"] == b), None)
                if p is not None:
                    xs.append(j - 0.4 + width * (i + 0.5))
                    ys.append(p["gbps"])
            ax.bar(xs, ys, width, color=cmap(i % 10), label=f"{k[0]}/{k[1]}")
        reference_lines(ax, pts, dtype, (m, n), -0.5, len(blocks) - 0.5, set())
        ax.set_xticks(range(len(blocks)))
        ax.set_xticklabels(blocks)
        ax.set_xlabel("block (threads x by y)")
        ax.set_title(shape_label((m, n), dtype), fontsize=10)
    axes[0][0].set_ylabel("GB/s")
    axes[0][-1].legend(*legend_entries(axes[0]), fontsize=8, loc="upper left",
                       bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title_of(rows, "Block shape sweep"), fontsize=10)
    save(fig, out_dir, "sweep-block", written)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Plot a benchmark CSV (see the module docstring).")
    ap.add_argument("csv", help="results CSV (bench, tour --format csv, a step's --format csv)")
    ap.add_argument("--out", default="plots", help="folder for the PNG and SVG files")
    args = ap.parse_args(argv)
    try:
        rows = read_results(args.csv)
    except InputError as e:
        print(f"plot_results.py: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    written = []
    for plot in (plot_ladder, plot_size, plot_variants, plot_block):
        plot(rows, args.out, written)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
