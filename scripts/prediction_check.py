#!/usr/bin/env python3
"""A committed prediction of a kernel's share of the copy, against its committed measurement.

The prediction is a table that scripts/fixed_cost_fit.py wrote (--markdown): one row a GPU
and type, and for each predicted shape a column "V at R x C (% of memcpy)". The measurement
is CSVs of the bench or of a step program (--format csv): each row's pct_copy is the kernel's
share of the memcpy of its own run, and the measured share at a shape is the median of the
rows of --variant there (every run of that shape, on that GPU, in that type).

A predicted share within --tolerance points of the measured one is a hit. Every other one is
a miss, and must be listed, with what explains it, in --misses (a CSV: gpu, type, shape,
explanation); a miss not listed, or a listed miss that the data show as a hit, fails the
check. Predicted shapes that no CSV measured are shown as not measured (and fail with
--require-all). --dtype keeps the predictions of one type only.

Usage: scripts/prediction_check.py --predicted TABLE.md --predicted-variant V
                                   --variant NAME CSV [CSV ...] [--tolerance POINTS]
                                   [--misses CSV] [--require-all] [--dtype TYPE]
                                   [--markdown OUT]
Exit status: 0 when every miss is listed and explained, 1 when not, 2 on bad input.
"""
import argparse
import csv
import re
import statistics
import sys

REFERENCE = "memcpy"


def bad(message):
    print(f"prediction_check: {message}", file=sys.stderr)
    sys.exit(2)


def predicted(path, variant):
    """{(gpu, type, (rows, cols)): predicted % of memcpy} from fixed_cost_fit's table."""
    try:
        lines = [ln.strip() for ln in open(path, encoding="utf-8") if ln.strip().startswith("|")]
    except OSError as e:
        bad(f"cannot read {path}: {e.strerror}")
    if len(lines) < 3:
        bad(f"{path}: no table")
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    want = re.compile(re.escape(variant) + r" at (\d+) x (\d+) \(% of " + REFERENCE + r"\)$")
    cols = {i: (int(m.group(1)), int(m.group(2)))
            for i, h in enumerate(head) for m in [want.match(h)] if m}
    if "GPU" not in head or "type" not in head or not cols:
        bad(f"{path}: no column 'GPU', 'type' or '{variant} at R x C (% of {REFERENCE})'")
    out = {}
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        if len(cells) != len(head):
            bad(f"{path}: a row of {len(cells)} cells under {len(head)} columns")
        for i, shape in cols.items():
            try:
                out[(cells[head.index("GPU")], cells[head.index("type")], shape)] = float(cells[i])
            except ValueError:
                bad(f"{path}: not a number: {cells[i]!r}")
    return out


def measured(paths, variant):
    """{(gpu, type, (rows, cols)): [pct_copy of each row of the variant]}."""
    out = {}
    for path in paths:
        try:
            lines = [ln for ln in open(path, newline="", encoding="utf-8") if ln.strip()]
        except OSError as e:
            bad(f"cannot read {path}: {e.strerror}")
        if not lines:
            bad(f"{path}: empty")
        header = lines[0]
        rows = list(csv.DictReader([header] + [ln for ln in lines[1:] if ln != header]))
        need = {"variant", "dtype", "rows", "cols", "pct_copy", "device"}
        if not rows or not need <= set(rows[0]):
            bad(f"{path}: the CSV needs the columns " + ", ".join(sorted(need)))
        for r in rows:
            if r["variant"] == variant and r["pct_copy"]:
                key = (r["device"], r["dtype"], (int(r["rows"]), int(r["cols"])))
                out.setdefault(key, []).append(float(r["pct_copy"]))
    return out


def listed_misses(path):
    if not path:
        return {}
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        bad(f"cannot read {path}: {e.strerror}")
    out = {}
    for r in rows:
        try:
            m, n = (int(x) for x in r["shape"].lower().split("x"))
        except (KeyError, ValueError, AttributeError):
            bad(f"{path}: each row needs gpu, type, shape (RxC) and explanation")
        if not (r.get("explanation") or "").strip():
            bad(f"{path}: {r['gpu']}, {r['type']}, {r['shape']}: no explanation")
        out[(r["gpu"], r["type"], (m, n))] = r["explanation"].strip()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--predicted", required=True)
    ap.add_argument("--predicted-variant", required=True)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--tolerance", type=float, default=1.0)
    ap.add_argument("--misses")
    ap.add_argument("--require-all", action="store_true")
    ap.add_argument("--dtype", choices=["float", "double"])
    ap.add_argument("--markdown")
    a = ap.parse_args()
    if not a.tolerance > 0:
        bad("--tolerance must be above 0")
    pred = predicted(a.predicted, a.predicted_variant)
    if a.dtype:
        pred = {k: v for k, v in pred.items() if k[1] == a.dtype}
    meas = measured(a.csv, a.variant)
    misses = listed_misses(a.misses)
    failures, lines = [], []
    for key in sorted(pred):
        gpu, dtype, (m, n) = key
        p = pred[key]
        if key not in meas:
            lines.append(f"| {gpu} | {dtype} | {m} x {n} | {p:.2f} | - | - | not measured |")
            if a.require_all:
                failures.append(f"{gpu}, {dtype}, {m} x {n}: not measured")
            continue
        v = statistics.median(meas[key])
        hit = abs(p - v) <= a.tolerance
        verdict = "hit" if hit else "miss: " + misses.get(key, "NOT EXPLAINED")
        lines.append(f"| {gpu} | {dtype} | {m} x {n} | {p:.2f} | {v:.2f} ({len(meas[key])}) | "
                     f"{v - p:+.2f} | {verdict} |")
        if not hit and key not in misses:
            failures.append(f"{gpu}, {dtype}, {m} x {n}: predicted {p:.2f}, measured {v:.2f}, "
                            f"a miss that --misses does not explain")
        if hit and key in misses:
            failures.append(f"{gpu}, {dtype}, {m} x {n}: listed as a miss, measured a hit")
    for key in sorted(set(misses) - set(pred)):
        failures.append(f"{key[0]}, {key[1]}, {key[2][0]} x {key[2][1]}: listed as a miss, "
                        f"not predicted")
    text = (f"| GPU | type | matrix | predicted (% of {REFERENCE}) | measured (median, runs) | "
            f"measured - predicted (points) | within {a.tolerance:g} point(s) |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(lines) + "\n")
    print(text, end="")
    if a.markdown:
        with open(a.markdown, "w", encoding="utf-8") as f:
            f.write(text)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
