#!/usr/bin/env python3
"""Writes the results tables of the README and the chapters from the committed measurements.

A table in a Markdown file is a block between two comments; the opening comment says where the
numbers come from, the lines up to the closing comment are generated:

    <!-- table docs/results/bench.csv sweep=headline dtype=float rows=8192 cols=8192
         columns=step,variant,median_ms,gbps,pct_copy,pct_cublas -->
    | Step | Variant | median ms | GB/s | % copy | % cuBLAS |
    ...
    <!-- end -->

Kinds of block (the first word of the comment):
  table  SOURCE [FILTER...] [columns=C1,C2,...] [part=N]
         The rows of SOURCE that pass every filter, in the source's order, with the chosen
         columns (default: all). A column `shape` is "rows x cols". part=N: the Nth pipe
         table of a Markdown source (default 1).
  pivot  SOURCE [FILTER...] [value=gbps] [flip=yes]
         One line per step and variant, one column per matrix (shape and type), in the order
         first seen; each cell is that measurement's value (default gbps). flip=yes: one
         line per matrix, one column per step and variant. Where the source has a column
         `gpus` (step 18's CSV), a matrix is also its number of GPUs ("on 2 GPUs").
  spread SOURCE_A SOURCE_B [FILTER...]
         One sentence: how far the GB/s of the same kernel on the same matrix differ between
         two runs, in percent of the smaller value, over every pair that passes the filters.
  value  SOURCE FILTER... column=C [of=min|max|median] [digits=N] [scale=F]
         One number inside a sentence, on the comment's own line: the column C of the one row
         that passes the filters (more or fewer is an error), or with of= the least, the
         greatest or the median of the rows that pass, times F where scale is given
         (0.01 turns % of cuBLAS into "times cuBLAS"), written with N decimals where digits is
         given. Written inline, `<!-- value ... -->97.4<!-- end -->`, so that a number in the
         prose is rewritten, and checked, with the run it comes from; the closing comment is
         followed by punctuation or the line's end (the site drops a space after a comment).
A FILTER is COLUMN=VALUE or COLUMN=V1,V2,... (any of the values); shape=8192x8192,4099x8191
picks matrices by both sides at once; a column whose name has spaces is written with
underscores (columns=warp_instr_M). A Markdown source of one GPU's folder
(docs/results/h100/... or h200/...) gets a first column GPU (H100 or H200) where it has none. SOURCE is a path from the
repository's root: a CSV (bench, tour or a step's --format csv) or a Markdown file holding one
pipe table (scripts/ncu_check.py --markdown); A+B reads A's rows then B's (the results of two
GPUs, say: a CSV row names its device in the column `device`, and a pivot over A+B has one
column per matrix and device). `record:FILE` is FILE of each GPU's check of record: the
folder docs/results/GPU/COMMIT that docs/results/GPU/gpu-check.txt names, for the H100 then the
H200, read as A+B; `record-h100:FILE` and `record-h200:FILE` are the one GPU's. So a table
(or a value) of record is written again when a check of record changes.
Values are copied as the source spells them: the tables round nothing.

Usage:
  scripts/results_tables.py FILE...            rewrite the blocks of each FILE in place
  scripts/results_tables.py --check FILE...    exit 1 if any block differs from its source
Exit status: 0 up to date (or rewritten), 1 out of date (--check), 2 a bad block or source.
"""
import argparse
import csv
import decimal
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (opening comment: kind, arguments) (generated lines) (closing comment)
BLOCK = re.compile(r"(<!--\s*(table|pivot|spread)\b(.*?)-->\n)(.*?)(<!--\s*end\s*-->)", re.S)
# (opening comment: arguments) (the number) (closing comment), within one line
VALUE = re.compile(r"(<!--\s*value\b([^\n]*?)-->)([^\n]*?)(<!--\s*end\s*-->)")
HEADINGS = {"step": "Step", "variant": "Variant", "block": "Block", "dtype": "Type",
            "shape": "Matrix", "rows": "Rows", "cols": "Cols", "median_ms": "median ms",
            "min_ms": "min ms", "max_ms": "max ms", "samples": "runs", "gbps": "GB/s",
            "pct_peak": "% peak", "pct_copy": "% copy", "pct_cublas": "% cuBLAS",
            "verified": "verified", "fits_l2": "in L2", "sweep": "part", "device": "GPU"}


RECORD_GPUS = ("h100", "h200")


class BlockError(Exception):
    """A block that cannot be generated; the message says why."""


def record_folder(gpu):
    """docs/results/GPU/COMMIT: the folder of GPU's check of record, as its summary names it."""
    summary = os.path.join("docs", "results", gpu, "gpu-check.txt")
    try:
        with open(os.path.join(ROOT, summary), encoding="utf-8") as f:
            found = re.search(r"^commit:\s+([0-9a-f]{7,40})", f.read(), re.M)
    except OSError as e:
        raise BlockError(f"cannot read {summary}: {e.strerror}")
    if not found:
        raise BlockError(f"{summary} names no commit")
    return f"docs/results/{gpu}/{found.group(1)[:7]}"


def expand(path):
    """A source as paths: record:FILE becomes FILE in each GPU's folder of record, joined by +."""
    if path.startswith("record:"):
        return "+".join(f"{record_folder(g)}/{path[len('record:'):]}" for g in RECORD_GPUS)
    for g in RECORD_GPUS:
        if path.startswith(f"record-{g}:"):
            return f"{record_folder(g)}/{path[len(g) + 8:]}"
    return path


def read_source(path, part=1):
    path = expand(path)
    if "+" in path:
        return [row for p in path.split("+") for row in read_source(p, part)]
    full = os.path.join(ROOT, path)
    try:
        with open(full, newline="", encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise BlockError(f"cannot read {path}: {e.strerror}")
    if path.endswith(".md"):
        tables, current = [], []
        for line in text.splitlines() + [""]:
            if line.strip().startswith("|"):
                current.append([c.strip() for c in line.strip().strip("|").split("|")])
            elif current:
                tables.append(current)
                current = []
        if len(tables) < part:
            raise BlockError(f"{path}: no pipe table number {part}")
        header, body = tables[part - 1][0], tables[part - 1][2:]
        gpu = re.search(r"results/(h100|h200)/", path)
        if gpu and not {"GPU", "device"} & set(header):  # say whose rows, first
            return [{"GPU": gpu.group(1).upper(), **dict(zip(header, cells))} for cells in body]
        return [dict(zip(header, cells)) for cells in body]
    rows = [r for r in csv.DictReader(text.splitlines()) if r.get("step") not in (None, "step")]
    if not rows:
        raise BlockError(f"{path}: no rows")
    return rows


def value(row, column):
    if column == "shape":
        return f"{row['rows']} x {row['cols']}"
    if column not in row and column.replace("_", " ") in row:  # warp_instr_M: "warp instr M"
        column = column.replace("_", " ")
    if column not in row:
        raise BlockError(f"no column {column!r}")
    return row[column]


def parse_args(words):
    filters, options, sources = {}, {}, []
    for w in words:
        if "=" not in w:
            sources.append(w)
            continue
        key, val = w.split("=", 1)
        if key in ("columns", "value", "part", "flip", "column", "digits", "scale", "of"):
            options[key] = val.split(",")
        else:
            filters[key] = set(val.split(","))
    return sources, filters, options


def select(rows, filters):
    out = []
    for r in rows:
        for key, wanted in filters.items():
            v = value(r, key)
            if key == "shape":  # shape=4099x8191: the pair, without the spaces
                v = v.replace(" ", "")
            if v not in wanted:
                break
        else:
            out.append(r)
    if not out:
        raise BlockError("no row passes the filters " +
                         " ".join(f"{k}={','.join(sorted(v))}" for k, v in filters.items()))
    return out


def markdown(header, lines):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cells) + " |" for cells in lines]
    return "\n".join(out) + "\n"


def make_table(sources, filters, options):
    if len(sources) != 1:
        raise BlockError("table takes one source")
    rows = select(read_source(sources[0], int((options.get("part") or ["1"])[0])), filters)
    columns = options.get("columns") or list(rows[0].keys())
    return markdown([HEADINGS.get(c, c) for c in columns],
                    [[value(r, c) for c in columns] for r in rows])


def make_pivot(sources, filters, options):
    if len(sources) != 1:
        raise BlockError("pivot takes one source")
    rows = select(read_source(sources[0]), filters)
    column = (options.get("value") or ["gbps"])[0]
    matrices, kernels, cells = [], [], {}
    devices = "+" in expand(sources[0])
    for r in rows:
        matrix = f"{value(r, 'shape')} {r['dtype']}" + (f", {r['device']}" if devices else "")
        if r.get("gpus"):
            matrix += f" on {r['gpus']} GPU" + ("" if r["gpus"] == "1" else "s")
        kernel = (r["step"], r["variant"])
        if matrix not in matrices:
            matrices.append(matrix)
        if kernel not in kernels:
            kernels.append(kernel)
        if (kernel, matrix) in cells:
            raise BlockError(f"two rows for {'/'.join(kernel)} at {matrix}: filter more")
        cells[(kernel, matrix)] = value(r, column)
    unit = HEADINGS.get(column, column)
    if options.get("flip") == ["yes"]:
        header = [f"Matrix ({unit})"] + [f"{k[0]} {k[1]}" for k in kernels]
        return markdown(header, [[m] + [cells.get((k, m), "-") for k in kernels]
                                 for m in matrices])
    header = ["Step", "Variant"] + [f"{m} ({unit})" for m in matrices]
    return markdown(header, [[k[0], k[1]] + [cells.get((k, m), "-") for m in matrices]
                             for k in kernels])


def make_spread(sources, filters, options):
    if len(sources) != 2:
        raise BlockError("spread takes two sources")
    key = ("step", "variant", "dtype", "rows", "cols")
    a = {tuple(r[k] for k in key): r for r in select(read_source(sources[0]), filters)}
    b = {tuple(r[k] for k in key): r for r in select(read_source(sources[1]), filters)}
    pairs = []
    for k in a:
        if k in b:
            x, y = float(a[k]["gbps"]), float(b[k]["gbps"])
            pairs.append((abs(x - y) / min(x, y) * 100, k, a[k]["gbps"], b[k]["gbps"]))
    if not pairs:
        raise BlockError("the two sources share no measurement")
    worst = max(pairs)
    middle = statistics.median(p[0] for p in pairs)
    step, variant, dtype, m, n = worst[1]
    return (f"Between `{sources[0]}` and `{sources[1]}`, over the {len(pairs)} measurements "
            f"both hold, the GB/s of one kernel on one matrix differ by {middle:.2f}% at the "
            f"median and by at most {worst[0]:.2f}% ({step}/{variant}, {m} x {n} {dtype}: "
            f"{worst[2]} and {worst[3]} GB/s).\n")


def make_value(sources, filters, options):
    if len(sources) != 1:
        raise BlockError("value takes one source")
    if not options.get("column"):
        raise BlockError("value needs column=C")
    rows = select(read_source(sources[0]), filters)
    texts = [value(r, options["column"][0]) for r in rows]
    of = (options.get("of") or [None])[0]
    if of is None and len(rows) != 1:
        raise BlockError(f"{len(rows)} rows pass the filters: a value needs exactly one "
                         "(or of=min, max or median)")
    try:
        if of is not None:
            pick = {"min": min, "max": max, "median": statistics.median}.get(of)
            if pick is None:
                raise BlockError(f"of={of}: min, max or median")
            text = f"{pick(float(t) for t in texts):g}"
        else:
            text = texts[0]
    except ValueError:
        raise BlockError(f"of={of} over {options['column'][0]}, whose values are no numbers")
    if "scale" in options or "digits" in options:
        # Decimal, rounding halves up as a reader does: 95.25 is 95.3, not float's 95.2.
        try:
            number = decimal.Decimal(text) * decimal.Decimal((options.get("scale") or ["1"])[0])
            digits = int(options["digits"][0]) if "digits" in options else None
        except (ValueError, decimal.InvalidOperation):
            raise BlockError(f"{options['column'][0]} {text!r}, scale or digits is no number")
        if digits is not None:
            number = number.quantize(decimal.Decimal(1).scaleb(-digits), decimal.ROUND_HALF_UP)
        text = f"{number:f}" if digits is not None else f"{number.normalize():f}"
    return text


MAKERS = {"table": make_table, "pivot": make_pivot, "spread": make_spread}


def render(text, name):
    def replace(match):
        opening, kind, args, _, closing = match.groups()
        args = args.split()
        try:
            body = MAKERS[kind](*parse_args(args))
        except BlockError as e:
            raise BlockError(f"{name}: block `{kind} {' '.join(args)}`: {e}")
        return opening + body + closing

    def replace_value(match):
        opening, args, _, closing = match.groups()
        try:
            # Doxygen drops the spaces after a comment within a line ("1.01<!-- end --> to"
            # shows as "1.01to"): after the closing comment, punctuation or the line's end.
            if match.string[match.end():match.end() + 1] in (" ", "\t"):
                raise BlockError("a space after <!-- end -->, which the site drops: end the "
                                 "line there, or follow it with punctuation")
            return opening + make_value(*parse_args(args.split())) + closing
        except BlockError as e:
            raise BlockError(f"{name}: block `value {args.strip()}`: {e}")
    return VALUE.sub(replace_value, BLOCK.sub(replace, text))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only check; rewrite nothing")
    ap.add_argument("files", nargs="+", help="Markdown files with table blocks")
    args = ap.parse_args(argv)
    stale = []
    for name in args.files:
        try:
            with open(name, encoding="utf-8") as f:
                text = f.read()
            new = render(text, name)
        except (OSError, BlockError) as e:
            print(f"results_tables.py: {e}", file=sys.stderr)
            return 2
        if new != text:
            stale.append(name)
            if not args.check:
                with open(name, "w", encoding="utf-8") as f:
                    f.write(new)
    if args.check and stale:
        print("results_tables.py: out of date with the committed results (run "
              "scripts/results_tables.py on them): " + ", ".join(stale), file=sys.stderr)
        return 1
    for name in stale:
        print(f"rewrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
