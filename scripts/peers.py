#!/usr/bin/env python3
"""What a Python user calls instead of this course's kernels, measured as the bench measures.

PyTorch's `x.t().contiguous()` and CuPy's `cp.ascontiguousarray(a.T)`, each beside a plain
device-to-device copy of the same bytes by the same library, in the same run, at the bench's
sizes and element types: CUDA events around each launch, warm-up launches first, the median of
the timed ones, GB/s = 2 x rows x cols x sizeof(T) / median time (each byte read once and
written once, as course/bench counts them). Each result is compared with the transpose element
for element (torch.equal / cupy.array_equal against the strided view: exact, no tolerance).

Rows are written in the bench's CSV format (course/bench, tt::csv_header()), with `sweep` =
peers, `step` = peers and the variants torch-t-contiguous and torch-copy, cupy-ascontiguousarray
and cupy-copy; pct_copy is the share of the same library's copy in the same run. pct_peak and
pct_cublas are left empty (no cuBLAS or memory clock in these libraries' runs).

Each library is optional: a missing one is said and skipped; with neither, or without a CUDA
device, the script exits 77 (skipped), never 0.

Usage: scripts/peers.py [--sizes 8192,4099x8191] [--dtypes float,double] [--warmup 10]
                        [--reps 100] [--out peers.csv]
Exit status: 0 measured, 1 a result was not the transpose, 2 bad usage, 77 nothing measured.
"""
import argparse
import csv
import datetime
import statistics
import sys

HEADER = ["sweep", "step", "variant", "block", "dtype", "rows", "cols", "median_ms", "min_ms",
          "max_ms", "samples", "gbps", "pct_peak", "pct_copy", "pct_cublas", "verified",
          "fits_l2", "device", "cuda", "date"]
SIZES = "1024,2048,4096,8192,16384,8192x16384,4099x8191,12345x6789,8191x4099,4096x8191,4099x8192"
SKIP = 77


def parse_sizes(text):
    out = []
    for item in text.split(","):
        a, sep, b = item.lower().partition("x")
        try:
            rows, cols = int(a), int(b if sep else a)
        except ValueError:
            raise ValueError(f"--sizes: '{item}' is not N or ROWSxCOLS")
        if rows < 1 or cols < 1:
            raise ValueError(f"--sizes: '{item}' has a side below 1")
        out.append((rows, cols))
    return out


def timed(run, sync_event, warmup, reps):
    """(median, min, max) milliseconds of run() over reps launches, CUDA events around each."""
    for _ in range(warmup):
        run()
    times = []
    for _ in range(reps):
        start, stop = sync_event(), sync_event()
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), max(times)


def torch_rows(torch, shapes, dtypes, a):
    dev = torch.cuda.get_device_properties(0)
    l2 = getattr(dev, "L2_cache_size", 0)
    out = []
    for rows, cols in shapes:
        for name in dtypes:
            t = {"float": torch.float32, "double": torch.float64}[name]
            size = torch.finfo(t).bits // 8
            x = torch.arange(rows * cols, device="cuda", dtype=t).reshape(rows, cols)
            y = torch.empty(cols, rows, device="cuda", dtype=t)
            z = torch.empty(rows, cols, device="cuda", dtype=t)
            event = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
            copy = timed(lambda: z.copy_(x), event, a.warmup, a.reps)
            trans = timed(lambda: y.copy_(x.t()), event, a.warmup, a.reps)  # x.t().contiguous()
            ok = torch.equal(y, x.t()) and torch.equal(x.t().contiguous(), y)
            out += [row("torch-copy", name, rows, cols, size, copy, copy, True, l2, dev.name,
                        torch.version.cuda),
                    row("torch-t-contiguous", name, rows, cols, size, trans, copy, ok, l2,
                        dev.name, torch.version.cuda)]
            del x, y, z
            torch.cuda.empty_cache()
    return out


def cupy_rows(cp, shapes, dtypes, a):
    props = cp.cuda.runtime.getDeviceProperties(0)
    name_ = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    l2 = props.get("l2CacheSize", 0)
    cuda = cp.cuda.runtime.runtimeGetVersion()
    cuda = f"{cuda // 1000}.{cuda % 1000 // 10}"
    out = []
    for rows, cols in shapes:
        for name in dtypes:
            t = {"float": cp.float32, "double": cp.float64}[name]
            size = cp.dtype(t).itemsize
            x = cp.arange(rows * cols, dtype=t).reshape(rows, cols)
            z = cp.empty_like(x)
            holder = {}
            event = lambda: cp.cuda.Event()  # noqa: E731

            class Ev:  # cupy's events, in torch's shape: record(), synchronize(), elapsed_time()
                def __init__(self):
                    self.e = event()

                def record(self):
                    self.e.record()

                def synchronize(self):
                    self.e.synchronize()

                def elapsed_time(self, other):
                    return cp.cuda.get_elapsed_time(self.e, other.e)

            copy = timed(lambda: z.data.copy_from_device_async(x.data, x.nbytes), Ev, a.warmup,
                         a.reps)  # cudaMemcpyAsync, device to device

            def transpose():
                holder["y"] = cp.ascontiguousarray(x.T)
            trans = timed(transpose, Ev, a.warmup, a.reps)
            y = holder["y"]
            ok = bool(cp.array_equal(y, x.T)) and y.flags.c_contiguous
            out += [row("cupy-copy", name, rows, cols, size, copy, copy, True, l2, name_, cuda),
                    row("cupy-ascontiguousarray", name, rows, cols, size, trans, copy, ok, l2,
                        name_, cuda)]
            del x, z, y, holder
            cp.get_default_memory_pool().free_all_blocks()
    return out


def row(variant, dtype, rows, cols, size, t, copy, ok, l2, device, cuda):
    moved = 2 * rows * cols * size
    gbps = moved / (t[0] * 1e-3) / 1e9
    copy_gbps = moved / (copy[0] * 1e-3) / 1e9
    return {"sweep": "peers", "step": "peers", "variant": variant, "block": "", "dtype": dtype,
            "rows": rows, "cols": cols, "median_ms": f"{t[0]:.5f}", "min_ms": f"{t[1]:.5f}",
            "max_ms": f"{t[2]:.5f}", "samples": None, "gbps": f"{gbps:.1f}", "pct_peak": "",
            "pct_copy": f"{100 * gbps / copy_gbps:.2f}", "pct_cublas": "",
            "verified": "true" if ok else "false",
            "fits_l2": "true" if l2 and moved <= l2 else "false", "device": device,
            "cuda": cuda, "date": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%SZ")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=SIZES)
    ap.add_argument("--dtypes", default="float,double")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--out", default="peers.csv")
    a = ap.parse_args()
    try:
        shapes = parse_sizes(a.sizes)
    except ValueError as e:
        ap.error(str(e))
    dtypes = a.dtypes.split(",")
    if any(d not in ("float", "double") for d in dtypes):
        ap.error("--dtypes: float and/or double, comma separated")
    if a.warmup < 0 or a.reps < 1:
        ap.error("--warmup must be 0 or more and --reps 1 or more")
    results, measured = [], []
    try:
        import torch
        if not torch.cuda.is_available():
            print("peers: PyTorch has no CUDA device here: skipped")
        else:
            results += torch_rows(torch, shapes, dtypes, a)
            measured.append(f"PyTorch {torch.__version__}")
    except ImportError:
        print("peers: PyTorch is not installed: skipped (pip install torch)")
    try:
        import cupy
        try:
            cupy.cuda.runtime.getDeviceCount()
            results += cupy_rows(cupy, shapes, dtypes, a)
            measured.append(f"CuPy {cupy.__version__}")
        except cupy.cuda.runtime.CUDARuntimeError as e:
            print(f"peers: CuPy has no CUDA device here ({e}): skipped")
    except ImportError:
        print("peers: CuPy is not installed: skipped (pip install cupy-cuda13x)")
    if not results:
        print("peers: skipped: nothing measured")
        return SKIP
    for r in results:
        r["samples"] = a.reps
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=HEADER, lineterminator="\n")
        w.writeheader()
        w.writerows(results)
    print(f"peers: {', '.join(measured)}; {len(results)} rows to {a.out}")
    print(f"{'variant':24} {'type':6} {'matrix':>13} {'GB/s':>8} {'% copy':>7} verified")
    for r in results:
        print(f"{r['variant']:24} {r['dtype']:6} {str(r['rows']) + ' x ' + str(r['cols']):>13} "
              f"{r['gbps']:>8} {r['pct_copy']:>7} {r['verified']}")
    return 0 if all(r["verified"] == "true" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
