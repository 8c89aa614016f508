#!/usr/bin/env python3
"""Runs scripts/plot_results.py into temporary folders and checks what it writes.

  1. On tests/data/sample_results.csv: rows of step programs run with --format csv on an
     NVIDIA H100 80GB HBM3 (CUDA 13.0), values as measured. Expects ladder, size and
     sweep-variants as non-empty PNG and SVG files.
  2. On a CSV in bench's form (a `sweep` column in front), made here from the same rows, with
     every part present: headline, variants, a block sweep and small L2-resident sizes.
     Expects all four plots.
  3. On bad input (a missing file, a CSV without the expected columns): exit status 2 and a
     message, no traceback.
  4. The choice of the variant that stands for a step: one whose block depends on the matrix
     (07-swizzle's scalar path at odd shapes) still stands for it at every matrix.

Exits 77 (skipped) when matplotlib cannot be imported.

Usage: test_plot_results.py PLOT_SCRIPT SAMPLE_CSV
"""
import csv
import os
import subprocess
import sys
import tempfile

SKIP = 77
failures = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)


def run_plot(script, csv_path, out_dir):
    return subprocess.run([sys.executable, script, csv_path, "--out", out_dir],
                          capture_output=True, text=True, timeout=300)


def check_plots(script, csv_path, names, label):
    with tempfile.TemporaryDirectory() as out:
        r = run_plot(script, csv_path, out)
        check(r.returncode == 0, f"{label}: exit status 0 (got {r.returncode}) {r.stderr.strip()}")
        for name in names:
            png, svg = os.path.join(out, name + ".png"), os.path.join(out, name + ".svg")
            png_ok = os.path.isfile(png) and os.path.getsize(png) > 0
            if png_ok:
                with open(png, "rb") as f:
                    png_ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
            check(png_ok, f"{label}: {name}.png is a non-empty PNG")
            svg_ok = os.path.isfile(svg) and os.path.getsize(svg) > 0
            if svg_ok:
                with open(svg, encoding="utf-8") as f:
                    svg_ok = "<svg" in f.read()
            check(svg_ok, f"{label}: {name}.svg is a non-empty SVG")


def bench_form(sample_csv, path):
    """Writes @p sample_csv's rows as bench would, one part each, into @p path. The block and
    size parts are derived rows (scaled copies) that only exercise the plotting code."""
    with open(sample_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    header = ["sweep"] + list(rows[0].keys())
    out = []
    first_variant = {}
    for r in rows:
        first_variant.setdefault(r["step"], r["variant"])
        out.append(dict(r, sweep="variants"))
        if r["step"] == "references" or r["variant"] == first_variant[r["step"]]:
            out.append(dict(r, sweep="headline"))
            if r["dtype"] == "float" and r["rows"] == r["cols"] == "8192":
                for n, scale in (("256", 0.2), ("1024", 0.6)):
                    out.append(dict(r, sweep="size", rows=n, cols=n, fits_l2="true",
                                    gbps=f"{float(r['gbps']) * scale:.1f}"))
        if r["rows"] == r["cols"] == "8192" and (r["step"] in ("references", "02-naive")):
            blocks = [r["block"]] if r["step"] == "references" else ["8x8", "16x16", "32x32"]
            for i, b in enumerate(blocks):
                out.append(dict(r, sweep="block", block=b,
                                gbps=f"{float(r['gbps']) * (1 - 0.1 * i):.1f}"))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(out)


def check_headline_choice(script):
    import importlib.util
    spec = importlib.util.spec_from_file_location("plot_results", script)
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)

    def row(step, variant, block, m, n, gbps):
        return {"sweep": "headline", "step": step, "variant": variant, "block": block,
                "dtype": "float", "rows": m, "cols": n, "gbps": gbps, "fits_l2": False}
    rows = [row("references", "memcpy", "", 8192, 8192, 3000.0),
            row("references", "memcpy", "", 4099, 8191, 2800.0),
            row("07-swizzle", "tile64", "512x1", 8192, 8192, 2860.0),
            row("07-swizzle", "tile64", "1024x1", 4099, 8191, 2080.0),
            row("02-naive", "write-coalesced", "32x8", 8192, 8192, 1600.0),
            row("02-naive", "write-coalesced", "32x8", 4099, 8191, 1700.0)]
    pts = plot.headline_points(rows)
    for m, n in ((8192, 8192), (4099, 8191)):
        for step in ("07-swizzle", "02-naive", "references"):
            check(any(p["step"] == step and (p["rows"], p["cols"]) == (m, n) for p in pts),
                  f"headline choice: {step} stands at {m}x{n}")
    check(len(pts) == len(rows), f"headline choice: one point per row ({len(pts)} of {len(rows)})")


def main():
    script, sample = sys.argv[1], sys.argv[2]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed: skipped")
        return SKIP

    check_plots(script, sample, ["ladder", "size", "sweep-variants"], "sample CSV")
    check_headline_choice(script)

    with tempfile.TemporaryDirectory() as tmp:
        bench_csv = os.path.join(tmp, "bench.csv")
        bench_form(sample, bench_csv)
        check_plots(script, bench_csv, ["ladder", "size", "sweep-variants", "sweep-block"],
                    "bench-form CSV")

        bad = os.path.join(tmp, "bad.csv")
        with open(bad, "w") as f:
            f.write("name,value\nx,1\n")
        for path, what in ((bad, "a CSV without the columns"),
                           (os.path.join(tmp, "missing.csv"), "a missing file")):
            r = run_plot(script, path, os.path.join(tmp, "out"))
            check(r.returncode == 2 and "plot_results.py:" in r.stderr
                  and "Traceback" not in r.stderr,
                  f"{what}: exit status 2 and one message (got {r.returncode}: "
                  f"{r.stderr.strip()})")

    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
