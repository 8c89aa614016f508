#!/usr/bin/env python3
"""What a kernel sustains at large matrices, beside the copy: a fit of time = bytes / B + c.

A copy and a transpose each pay a cost that grows with the bytes moved (1 / B a byte, B the
sustained bandwidth) and a cost that does not (c: the launch, the ramp up and down). Where c
differs between the two, the share of the copy that a kernel reaches depends on the size of
the matrix, and the share at the bench's matrices is not the share at larger ones. This
script fits both by least squares, for each GPU and type, over the measured matrices whose
rows and columns are both odd (and that do not fit in the L2), and predicts the share at the
matrices --predict names.

Input: CSVs of the bench or of a step program (--format csv; a header repeated by appended
runs is skipped). The reference is memcpy; the kernel is the rows of --variant (and --step,
where several steps have that variant). Bytes moved: 2 x rows x cols x the element's size,
the bench's GB/s definition.

Usage: scripts/fixed_cost_fit.py CSV [CSV ...] --variant NAME [--step STEP]
                                 [--predict RxC[,RxC...]] [--markdown OUT]
Exit status: 0, or 2 on bad input (one message, no traceback).
"""
import argparse
import csv
import sys

SIZES = {"float": 4, "double": 8}
REFERENCE = "memcpy"


def bad(message):
    print(f"fixed_cost_fit: {message}", file=sys.stderr)
    sys.exit(2)


def shape(text):
    try:
        r, c = (int(x) for x in text.lower().split("x"))
    except ValueError:
        bad(f"not a shape (RxC): {text!r}")
    if r < 1 or c < 1:
        bad(f"not a shape (RxC): {text!r}")
    return r, c


def read(paths):
    rows = []
    for path in paths:
        try:
            with open(path, newline="", encoding="utf-8") as f:
                lines = [ln for ln in f if ln.strip()]
        except OSError as e:
            bad(f"cannot read {path}: {e.strerror}")
        if not lines:
            bad(f"{path}: empty")
        header = lines[0]
        body = [ln for ln in lines[1:] if ln != header]
        rows += list(csv.DictReader([header] + body))
    need = {"step", "variant", "dtype", "rows", "cols", "median_ms", "device"}
    if not rows or not need <= set(rows[0].keys()):
        bad("the CSVs need the columns " + ", ".join(sorted(need)))
    return rows


def fit(points):
    """Least squares of t = a x + c over [(x, t)]: returns (a, c)."""
    n = len(points)
    sx = sum(x for x, _ in points)
    st = sum(t for _, t in points)
    sxx = sum(x * x for x, _ in points)
    sxt = sum(x * t for x, t in points)
    den = n * sxx - sx * sx
    if n < 2 or den == 0:
        return None
    a = (n * sxt - sx * st) / den
    return a, (st - a * sx) / n


def fits(rows, variant, step, predict):
    """One dict a (device, type): the two fits, their residuals and the predictions."""
    groups = {}
    for r in rows:
        if r["dtype"] not in SIZES or r.get("fits_l2", "false") == "true":
            continue
        m, n = int(r["rows"]), int(r["cols"])
        if m % 2 == 0 or n % 2 == 0:
            continue
        if r["variant"] == REFERENCE:
            who = REFERENCE
        elif r["variant"] == variant and (step is None or r["step"] == step):
            who = variant
        else:
            continue
        size = 2 * m * n * SIZES[r["dtype"]]
        groups.setdefault((r["device"], r["dtype"]), {}).setdefault(who, {})[(m, n)] = (
            size, float(r["median_ms"]) * 1e-3)
    out = []
    for (device, dtype), by in groups.items():
        if set(by) != {REFERENCE, variant}:
            continue
        shapes = sorted(set(by[REFERENCE]) & set(by[variant]))
        if len(shapes) < 3:
            bad(f"{device}, {dtype}: {len(shapes)} odd shapes measured with both {REFERENCE} "
                f"and {variant}; the fit needs 3 or more")
        res = {"device": device, "dtype": dtype, "shapes": shapes}
        worst = 0.0
        for who in (REFERENCE, variant):
            pts = [by[who][s] for s in shapes]
            a, c = fit(pts)
            if a <= 0:
                bad(f"{device}, {dtype}, {who}: the time does not grow with the bytes")
            res[who] = (1 / a / 1e9, c * 1e6)  # GB/s, us
            worst = max(worst, max(abs(t - (a * x + c)) for x, t in pts) * 1e6)
            for p in predict:
                x = 2 * p[0] * p[1] * SIZES[dtype]
                res[(who, p)] = x / (a * x + c) / 1e9
        res["residual"] = worst
        res["share"] = 100 * res[variant][0] / res[REFERENCE][0]
        out.append(res)
    if not out:
        bad(f"no odd shape outside the L2 measured with both {REFERENCE} and {variant}")
    return out


def table(results, variant, predict):
    head = ["GPU", "type", "odd shapes fitted", f"{REFERENCE} B (GB/s)", f"{REFERENCE} c (us)",
            f"{variant} B (GB/s)", f"{variant} c (us)", "largest residual (us)",
            f"sustained share: {variant} B / {REFERENCE} B (%)"]
    for p in predict:
        at = f"{p[0]} x {p[1]}"
        head += [f"{REFERENCE} at {at} (GB/s)", f"{variant} at {at} (GB/s)",
                 f"{variant} at {at} (% of {REFERENCE})"]
    lines = []
    for r in results:
        cells = [r["device"], r["dtype"], str(len(r["shapes"])),
                 f"{r[REFERENCE][0]:.1f}", f"{r[REFERENCE][1]:.2f}",
                 f"{r[variant][0]:.1f}", f"{r[variant][1]:.2f}",
                 f"{r['residual']:.2f}", f"{r['share']:.2f}"]
        for p in predict:
            ref, ker = r[(REFERENCE, p)], r[(variant, p)]
            cells += [f"{ref:.1f}", f"{ker:.1f}", f"{100 * ker / ref:.2f}"]
        lines.append(cells)
    text = "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n"
    return text + "".join("| " + " | ".join(c) + " |\n" for c in lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--variant", required=True)
    ap.add_argument("--step")
    ap.add_argument("--predict", default="", help="shapes RxC, comma-separated")
    ap.add_argument("--markdown", help="write the table here too")
    args = ap.parse_args()
    predict = [shape(s) for s in args.predict.split(",") if s]
    text = table(fits(read(args.csv), args.variant, args.step, predict), args.variant, predict)
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
