#!/usr/bin/env python3
"""Grades the lab's proof sets on a GPU: the proof that the grader's GPU parts fail what they
must, on the GPU at hand.

tests/lab/sets.cmake lists, for each proof set, the submissions it grades and the parts each
must fail ("<exercise>|<submission>|<CPU parts>|<GPU parts>[|<says>]"). CI builds every set
and checks the CPU parts; the GPU parts need a GPU. For every set packed under PROOFS_DIR by
scripts/pack-lab-proofs.sh (PROOFS_DIR/<set>/lab/lab-grade and the step programs of the
exercises it lists), this script grades, for each listed submission, the GPU parts the set
names for it (`lab-grade --exercise X --part P ...`), and requires each to fail. A submission
for which the set names no GPU part (the CPU catches it) is not graded here. With
--every-part it grades every GPU part of every listed submission (`--gpu`) and reports the
parts the set does not name as they come out, not judged: a wrong but exact submission (07's
bank conflict) may pass the GPU's exactness and fail its speed bar on one GPU and not on
another, and the table says which.

Usage: scripts/lab_proofs.py PROOFS_DIR [--markdown FILE] [--sets SET ...] [--every-part]
       scripts/lab_proofs.py --list SET       (the exercises SET lists, for the packing)
Exit status: 0 every named GPU part failed; 1 one did not, or a grader did not run; 2 bad
usage; 77 no set packed under PROOFS_DIR, or no GPU.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SETS_FILE = os.path.join(HERE, "..", "tests", "lab", "sets.cmake")
GPU_PARTS = ["gpu-exact", "gpu-speed", "gpu-sanitizer"]


def read_sets(path=SETS_FILE):
    """{set: [(exercise, submission, cpu parts, gpu parts), ...]} from tests/lab/sets.cmake."""
    text = open(path).read()
    sets = {}
    for m in re.finditer(r"set\(tt_lab_set_([A-Za-z0-9-]+)(.*?)\)", text, re.S):
        entries = []
        for e in re.findall(r'"([^"]*)"', m.group(2)):
            f = e.split("|")
            if len(f) < 4:
                continue
            entries.append((f[0], f[1], [p for p in f[2].split(",") if p],
                            [p for p in f[3].split(",") if p]))
        sets[m.group(1)] = entries
    return sets


def parse_grade(text, exercise):
    """{part: verdict} and the result from the grader's last line
    "grade X: part=verdict ... result=R", or (None, None) when it has none."""
    for line in reversed(text.splitlines()):
        if line.startswith(f"grade {exercise}:"):
            verdicts = dict(re.findall(r"(\S+)=(\S+)", line))
            return verdicts, verdicts.get("result")
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("proofs", nargs="?")
    ap.add_argument("--markdown")
    ap.add_argument("--sets", nargs="*")
    ap.add_argument("--list")
    ap.add_argument("--every-part", action="store_true")
    a = ap.parse_args()
    sets = read_sets()
    if a.list:
        if a.list not in sets:
            return 2
        print(" ".join(sorted({e[0] for e in sets[a.list]})))
        return 0
    if not a.proofs:
        ap.print_usage(sys.stderr)
        return 2
    packed = [s for s in sets if os.path.isfile(os.path.join(a.proofs, s, "lab", "lab-grade"))
              and (not a.sets or s in a.sets)]
    if not packed:
        print(f"lab_proofs: skipped: no proof set packed under {a.proofs} "
              f"(scripts/pack-lab-proofs.sh makes them)")
        return 77
    lines = ["| set | exercise | submission | GPU parts that must fail | "
             + " | ".join(GPU_PARTS) + " | result | ok |",
             "|---|---|---|---|" + "---|" * len(GPU_PARTS) + "---|---|"]
    failures, no_gpu = [], 0
    for s in packed:
        grader = os.path.join(a.proofs, s, "lab", "lab-grade")
        for exercise, submission, _, must_fail in sets[s]:
            if not must_fail and not a.every_part:
                continue  # the set names no GPU part: the CPU parts catch this one (CI)
            parts = ["--gpu"] if a.every_part else [x for p in must_fail for x in ("--part", p)]
            r = subprocess.run([grader, "--exercise", exercise, *parts], capture_output=True,
                               text=True)
            verdicts, result = parse_grade(r.stdout, exercise)
            if verdicts is None:
                failures.append(f"{s}: {exercise} ({submission}): the grader printed no grade "
                                f"(exit {r.returncode}): {r.stderr.strip()[:200]}")
                continue
            if all(verdicts.get(p, "skipped") == "skipped" for p in GPU_PARTS):
                no_gpu += 1
                if no_gpu == len(lines) - 1:  # the first grades: no GPU here, say only that
                    print(f"lab_proofs: skipped: the grader found no GPU ({exercise}: "
                          f"{', '.join(f'{p}={verdicts.get(p, chr(45))}' for p in GPU_PARTS)})")
                    return 77
            bad = [p for p in must_fail if verdicts.get(p) != "failed"]
            for p in bad:
                failures.append(f"{s}: {exercise} ({submission}): {p} is "
                                f"{verdicts.get(p, 'not graded')}, where the set says it fails")
            lines.append(f"| {s} | {exercise} | {submission} | {', '.join(must_fail) or '-'} | "
                         + " | ".join(verdicts.get(p, "-") for p in GPU_PARTS)
                         + f" | {result} | {'yes' if not bad else 'NO'} |")
            print(lines[-1], flush=True)
    out = lines + [""] + ([f"FAIL: {f}" for f in failures]
                          or ["every GPU part a proof set names failed"])
    print("\n".join(out[len(lines):]))
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("\n".join(out) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
