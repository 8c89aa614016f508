#!/usr/bin/env python3
"""The bandwidth model of chapters 05 to 09: a kernel's speed from the bytes it keeps in flight.

A kernel whose accesses are ideal (every global access sector-whole, every shared access
conflict-free, as the access analyser counts them) is limited by how many bytes of loads it
keeps on their way to memory. Little's law ties the three together, for each SM:

    bytes in flight (average) = bandwidth of the SM's loads x latency of a load,

so the transpose's bandwidth, counted as its GB/s are (each byte read is also written), is

    BW = 2 x SMs x f x B / L(BW),        capped at the copy ceiling C,

where
  B     the bytes of loads an SM has outstanding when every resident thread has issued all
        the loads it issues before its first shared store: blocks an SM (occupancy from
        threads, registers and shared memory, compute capability 9.0) x threads a block x
        loads a thread x bytes a load; all from the machine code (scripts/sass_check.py).
        Where the copy engine fills the tile (step 14), blocks an SM x the boxes a block
        asks for x bytes a box;
  f     the share of B outstanding on average: a block spends part of its life storing to
        shared memory, waiting at the barrier and writing out, with nothing loaded. One
        number for every kernel on a GPU, calibrated once on the kernel CALIBRATION names
        (measured beside memcpy, calibration.csv): f = BW x L(BW) / (2 x SMs x B) there;
  L(BW) the latency of a load while the memory system carries BW: the pointer chase of
        course/latency --load-sweep (1 GiB working set) under copies of rising size, read
        as a curve of latency against the copy's bandwidth (latency-load.csv), linear
        between its points and along its last segment beyond them;
  C     memcpy's bandwidth in the calibration run (calibration.csv).

L rises with BW, so the right-hand side falls as BW rises and the equation has one
solution, found by bisection. The result is a prediction for kernels inside the model (every
access at its ideal cost); for the others (bank conflicts, sectors touched in part, as
02-naive, 03-shared, 06's unpadded tile and every kernel but 09 at odd shapes) it is an
upper bound: their extra wavefronts and sectors cost time the model does not count.

The threshold for a miss is stated before the measurements: a kernel inside the model whose
measured share of the same-run copy differs from the predicted share by more than 10% of
the measured share is a miss; an outside kernel measured more than 10% above its bound is
one. Every miss must be listed, with its reason, in docs/results/model-misses.csv; a listed
row that is not a miss fails too, so that the list says what the data say.

Commands:
  facts BUILD --out FILE        the machine-code facts of every kernel at the model's shapes
                                (needs cuobjdump, as sass_check.py; no GPU)
  predict --facts FILE --device DIR [--out FILE]
                                the predictions for the GPU whose facts DIR holds
                                (latency-load.csv, calibration.csv); no GPU, no cuobjdump
  compare --device DIR [--misses FILE] [--markdown FILE] [--report]
                                DIR's predictions.csv against its bench.csv and variants.csv
                                (at the model's shapes; smaller ones sit in the L2): the error
                                of each kernel; exit 1 on an unlisted miss or a listed row that
                                is not one (with --report, only when nothing was compared)
Exit status: 0 ok, 1 a check failed, 2 bad input, 77 facts: no cuobjdump.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_check  # noqa: E402

CALIBRATION = ("04-padding", "pad-32x33", "float", 8192, 8192)
THRESHOLD = 0.10
SHAPES = [(4096, 4096), (8192, 8192), (16384, 16384), (8192, 16384), (4099, 8191),
          (4096, 8191), (4099, 8192)]
FACT_FIELDS = ["program", "variant", "dtype", "rows", "cols", "kernel", "threads", "regs",
               "blocks_per_sm", "limit", "loads_per_thread", "load_bytes", "bytes_in_flight_sm",
               "global_cost", "shared_cost"]
PRED_FIELDS = FACT_FIELDS + ["inside", "f", "latency_ns", "predicted_gbps", "copy_gbps",
                             "predicted_pct_copy", "bound"]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in fields})


# ---------------------------------------------------------------------------------------
# Facts: from the programs' descriptions and their machine code.

def explain(exe, rows, cols, dtype):
    r = subprocess.run([exe, "--explain", "--format", "json", "--variant", "all", "--dtype",
                        dtype, "--rows", str(rows), "--cols", str(cols), "--sample", "4096"],
                       capture_output=True, text=True)
    return [json.loads(line) for line in r.stdout.splitlines()] if r.returncode == 0 else []


def in_flight_sm(plan, blocks, threads):
    """B: the bytes of loads an SM has outstanding when each resident block has issued all it
    issues before it waits: its threads' loads, or where the copy engine fills the tile (step
    14: boxes_per_block) the block's boxes, which wait in no register."""
    if plan.get("boxes_per_block"):
        return blocks * plan["boxes_per_block"] * plan["box_bytes"]
    return blocks * threads * plan["loads_per_thread"] * plan["load_bytes"]


def cost_ratio(plan, kinds):
    """Cost over ideal cost of the plan's accesses of these kinds (1.0: all ideal)."""
    acc = [a for a in plan["accesses"] if a["kind"] in kinds]
    ideal = sum(a["ideal"] for a in acc)
    return sum(a["cost"] for a in acc) / ideal if ideal else 1.0


def facts(build, cuobjdump):
    exes = [e for e in sass_check.programs(build)]
    jobs = [(e, m, n, d) for e in exes for m, n in SHAPES for d in sass_check.DTYPES]
    with concurrent.futures.ThreadPoolExecutor(max_workers=sass_check.host_threads()) as pool:
        plans = dict(zip(jobs, pool.map(lambda j: explain(*j), jobs)))
    rows = []
    for exe in exes:
        name = os.path.basename(exe)
        sass = sass_check.sass_kernels(cuobjdump, exe, "sm_90")
        if not sass:
            continue
        res = sass_check.resources(cuobjdump, exe, "sm_90")
        names = sass_check.demangle(list(sass))
        by_norm = {sass_check.normalise(names[m]): m for m in sass}
        for m, n in SHAPES:
            for dtype in sass_check.DTYPES:
                for plan in plans[(exe, m, n, dtype)]:
                    if not plan["kernel"]:
                        continue
                    norm = sass_check.normalise(plan["kernel"])
                    regs = res.get(by_norm.get(norm), {}).get("REG")
                    if regs is None:
                        raise SystemExit(f"bandwidth_model: {name}: no SASS for {norm}")
                    threads = plan["block"][0] * plan["block"][1] * plan["block"][2]
                    blocks, limit = sass_check.occupancy(threads, regs, plan["shared_bytes"])
                    rows.append(dict(
                        program=name, variant=plan["variant"], dtype=dtype, rows=m, cols=n,
                        kernel=norm, threads=threads, regs=regs, blocks_per_sm=blocks,
                        limit=limit, loads_per_thread=plan["loads_per_thread"],
                        load_bytes=plan["load_bytes"],
                        bytes_in_flight_sm=in_flight_sm(plan, blocks, threads),
                        global_cost=f"{cost_ratio(plan, ('global load', 'global store')):.4f}",
                        shared_cost=f"{cost_ratio(plan, ('shared load', 'shared store')):.4f}"))
    return rows


# ---------------------------------------------------------------------------------------
# The device and the model.

class Device:
    """A GPU's facts: SMs, the latency curve, the copy ceiling and the calibrated f."""

    def __init__(self, folder):
        sweep = [r for r in read_csv(os.path.join(folder, "latency-load.csv"))
                 if int(r["bytes"]) >= 1 << 30]
        if not sweep:
            raise SystemExit(f"bandwidth_model: {folder}/latency-load.csv has no 1 GiB rows")
        self.name = sweep[0]["device"]
        self.sms = int(sweep[0]["sms"])
        # The curve: latency against the copy's bandwidth, up to the highest bandwidth (past
        # it, more copy blocks only queue: the bandwidth stays, the latency grows).
        pts = sorted((int(r["copy_blocks"]), float(r["copy_gbps"]), float(r["ns_median"]))
                     for r in sweep)
        top = max(range(len(pts)), key=lambda i: pts[i][1])
        self.curve = [(bw, ns) for _, bw, ns in pts[:top + 1]]
        for (b0, _), (b1, _) in zip(self.curve, self.curve[1:]):
            if b1 <= b0:
                raise SystemExit(f"bandwidth_model: {folder}: the copy's bandwidth does not "
                                 f"rise with its blocks below the top")
        cal = read_csv(os.path.join(folder, "calibration.csv"))
        self.copy = next(float(r["gbps"]) for r in cal if r["variant"] == "memcpy")
        step, variant, dtype, m, n = CALIBRATION
        self.cal = next(r for r in cal if (r["step"], r["variant"], r["dtype"], int(r["rows"]),
                                           int(r["cols"])) == (step, variant, dtype, m, n))
        self.f = None

    def latency(self, bw):
        """L(bw) in ns: linear between the curve's points, along its end segments beyond."""
        c = self.curve
        if bw <= c[0][0]:
            return c[0][1]
        for (b0, l0), (b1, l1) in zip(c, c[1:]):
            if bw <= b1:
                return l0 + (l1 - l0) * (bw - b0) / (b1 - b0)
        (b0, l0), (b1, l1) = c[-2], c[-1]
        return l1 + (l1 - l0) * (bw - b1) / (b1 - b0)

    def calibrate(self, in_flight):
        bw = float(self.cal["gbps"])
        self.f = bw * self.latency(bw) / (2 * self.sms * in_flight)

    def predict(self, in_flight):
        """(GB/s, bound): the solution of BW = 2 SMs f B / L(BW), capped at the copy."""
        def rhs(bw):
            return 2 * self.sms * self.f * in_flight / self.latency(bw)
        if rhs(self.copy) >= self.copy:
            return self.copy, "copy"
        lo, hi = 0.0, self.copy
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if rhs(mid) > mid else (lo, mid)
        return (lo + hi) / 2, "latency"


def predict(fact_rows, device):
    key = lambda r: (r["program"], r["variant"], r["dtype"], int(r["rows"]), int(r["cols"]))
    cal = next((r for r in fact_rows if key(r) == CALIBRATION), None)
    if cal is None:
        raise SystemExit(f"bandwidth_model: the facts hold no {CALIBRATION}")
    device.calibrate(int(cal["bytes_in_flight_sm"]))
    out = []
    for r in fact_rows:
        gbps, bound = device.predict(int(r["bytes_in_flight_sm"]))
        inside = float(r["global_cost"]) == 1.0 and float(r["shared_cost"]) == 1.0
        out.append(dict(r, inside="yes" if inside else "no", f=f"{device.f:.4f}",
                        latency_ns=f"{device.latency(gbps):.1f}", predicted_gbps=f"{gbps:.1f}",
                        copy_gbps=f"{device.copy:.1f}",
                        predicted_pct_copy=f"{100 * gbps / device.copy:.2f}", bound=bound))
    return out


# ---------------------------------------------------------------------------------------
# Predictions against measurements.

def compare(folder, misses_file, markdown, report=False):
    preds = {(r["program"], r["variant"], r["dtype"], int(r["rows"]), int(r["cols"])): r
             for r in read_csv(os.path.join(folder, "predictions.csv"))}
    measured = []
    for name in ("bench.csv", "variants.csv"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            measured += [dict(r, source=name) for r in read_csv(path)]
    if not measured:
        print(f"bandwidth_model: {folder} holds no bench.csv or variants.csv")
        return 1
    device = os.path.basename(os.path.normpath(folder))
    listed = {}
    if misses_file and os.path.exists(misses_file):
        for r in read_csv(misses_file):
            if r["device"] == device:
                listed[(r["program"], r["variant"], r["dtype"], int(r["rows"]),
                        int(r["cols"]))] = r["reason"]
    lines = [f"Predicted and measured share of the same-run memcpy, {device} "
             f"(threshold {THRESHOLD:.0%} of the measured share)", "",
             "| program | variant | type | shape | KiB in flight an SM | inside | predicted % "
             "| measured % | error | verdict |", "|---|---|---|---|---|---|---|---|---|---|"]
    failures, seen_miss, compared = [], set(), 0
    for r in measured:
        if r["step"] == "references" or r["fits_l2"] == "true":
            continue
        k = (r["step"], r["variant"], r["dtype"], int(r["rows"]), int(r["cols"]))
        if (k[3], k[4]) not in SHAPES:
            continue  # a shape the model was not asked about (smaller ones sit in the L2)
        p = preds.get(k)
        if p is None:
            failures.append(f"{r['source']}: no prediction for {k}")
            continue
        compared += 1
        pred, meas = float(p["predicted_pct_copy"]), float(r["pct_copy"])
        err = pred / meas - 1
        inside = p["inside"] == "yes"
        miss = abs(err) > THRESHOLD if inside else err < -THRESHOLD
        verdict = "ok" if not miss else "miss"
        if miss:
            seen_miss.add(k)
            if k in listed:
                verdict = "miss (listed)"
            else:
                failures.append(f"{device}: {k} predicted {pred:.1f}% of the copy, measured "
                                f"{meas:.1f}% ({err:+.1%}), not in {misses_file}")
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} x {k[4]} | "
                     f"{int(p['bytes_in_flight_sm']) / 1024:.0f} | "
                     f"{'yes' if inside else 'no (bound)'} | {pred:.1f} | {meas:.1f} | "
                     f"{err:+.1%} | {verdict} |")
    for k in sorted(set(listed) - seen_miss):
        failures.append(f"{device}: {k} is listed as a miss in {misses_file} but is not one")
    lines.append("")
    lines += [f"FAIL: {f}" for f in failures] or [
        f"{compared} measurements compared; every miss is listed with its reason"]
    text = "\n".join(lines)
    print(text)
    if markdown:
        with open(markdown, "w") as f:
            f.write(text + "\n")
    if report:  # on a fresh run (gpu-check): the errors are printed, the misses not judged
        return 0 if compared else 1
    return 1 if failures or not compared else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a_f = sub.add_parser("facts")
    a_f.add_argument("build")
    a_f.add_argument("--out", required=True)
    a_f.add_argument("--cuobjdump")
    a_p = sub.add_parser("predict")
    a_p.add_argument("--facts", required=True)
    a_p.add_argument("--device", required=True)
    a_p.add_argument("--out")
    a_c = sub.add_parser("compare")
    a_c.add_argument("--device", required=True)
    a_c.add_argument("--misses")
    a_c.add_argument("--markdown")
    a_c.add_argument("--report", action="store_true",
                     help="print the errors; fail only when nothing could be compared")
    a = ap.parse_args()
    if a.cmd == "facts":
        cuobjdump = sass_check.find_cuobjdump(a.cuobjdump)
        if not cuobjdump or not sass_check.disassembler_works(cuobjdump):
            print("bandwidth_model: no working cuobjdump and nvdisasm: no facts")
            return 77
        rows = facts(a.build, cuobjdump)
        if not rows:
            print(f"bandwidth_model: no sm_90 kernels under {a.build}")
            return 1
        write_csv(a.out, FACT_FIELDS, rows)
        print(f"{len(rows)} kernels x shapes -> {a.out}")
        return 0
    if a.cmd == "predict":
        device = Device(a.device)
        rows = predict(read_csv(a.facts), device)
        out = a.out or os.path.join(a.device, "predictions.csv")
        write_csv(out, PRED_FIELDS, rows)
        print(f"{device.name}: {device.sms} SMs, copy {device.copy:.1f} GB/s, f = "
              f"{device.f:.3f} (calibrated on {' '.join(map(str, CALIBRATION))} at "
              f"{float(device.cal['gbps']):.1f} GB/s)")
        print(f"{len(rows)} predictions -> {out}")
        return 0
    return compare(a.device, a.misses, a.markdown, a.report)


if __name__ == "__main__":
    sys.exit(main())
