#!/usr/bin/env python3
"""Predicts the GPU check's wall time on a host of N GPUs from the schedule's own estimates:
runs scripts/gpu_check_schedule.py's run() on stand-in parts that each sleep their estimated
seconds divided by SCALE (and write an ok line, as a part does), so that the order, the GPU
each part gets and the parts that wait for each other (after, SHARING, TOOLS, HOST_MEMORY)
are the schedule's own, then prints each part's predicted start and end and the wall time,
scaled back. It predicts what the estimates say, no more: parts run side by side at their
time alone, where the checks measured them slower.

Usage: scripts/gpu_check_predict.py [--gpus 4] [--scale 10] [--deadline S] [--out FILE]
Exit status: 0; 2 bad usage."""
import argparse
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("gpu_check_schedule",
                                              os.path.join(HERE, "gpu_check_schedule.py"))
schedule = importlib.util.module_from_spec(spec)
spec.loader.exec_module(schedule)

# A stand-in part (a shell, which starts in milliseconds: its start-up, times SCALE, is the
# prediction's error): sleeps the seconds its line of the times file gives, then writes its
# result line as a part does.
STAND_IN = ('t=$(awk -v n="$2" \'$1 == n { print $2 }\' "$0/times"); sleep "$t"; '
            'mkdir -p "$0/parts"; echo "ok    $2" > "$0/parts/$2.txt"')


def predict(gpus, scale, deadline=None, table=None):
    """[(part, where, start, end)] in predicted seconds, and the predicted wall time."""
    parts = table or schedule.load_table(None)
    with tempfile.TemporaryDirectory() as out:
        with open(os.path.join(out, "times"), "w") as f:
            f.writelines(f"{p.name} {p.estimate / scale:.4f}\n" for p in parts)
        command = ["sh", "-c", STAND_IN, out, "-"]
        wall = schedule.run(parts, [str(g) for g in range(gpus)], 2, command, out,
                            deadline / scale if deadline else None, log=lambda *_: None)
    rows = [(p.name, "no GPU" if p.where == "CPU" else f"GPU {p.where}",
             (p.start or 0) * scale, (p.end or 0) * scale, p.state) for p in parts]
    return rows, wall * scale


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpus", type=int, default=4)
    ap.add_argument("--scale", type=float, default=10.0)
    ap.add_argument("--deadline", type=float)
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.gpus < 1 or a.scale <= 0:
        ap.error("--gpus at least 1, --scale above 0")
    rows, wall = predict(a.gpus, a.scale, a.deadline)
    lines = [f"predicted from the schedule's estimates on {a.gpus} GPU(s) (time scaled by "
             f"1/{a.scale:g}): wall {wall:.0f} s"]
    for name, where, start, end, state in sorted(rows, key=lambda r: (r[2], r[0])):
        lines.append(f"  {name:22s} {where:8s} +{start:4.0f} s to +{end:4.0f} s  {state}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
