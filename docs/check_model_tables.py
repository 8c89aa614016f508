#!/usr/bin/env python3
"""Checks the bandwidth-model tables of the chapters against the committed comparisons.

A chapter of steps 05 to 09 shows its variants' predicted and measured shares of the copy on
both GPUs in a table whose header starts `| Variant | Type |` and has the columns `H100
predicted`, `H100 measured`, `H200 predicted` and `H200 measured` (and `Matrix`, or else
the matrix is 8192 x 8192). Every row must be what docs/results/<gpu>/model.md says of that
step, variant, type and matrix (scripts/bandwidth_model.py compare writes it; where a kernel
was measured twice, in the bench and in the variants run, the variants run's row, the later
one, counts): the same bytes in flight, the same predicted and measured shares, and
"(bound)" exactly where the kernel is outside the model.

The model.md files themselves are checked first: each must be what the comparison writes now
from its folder's predictions.csv, bench.csv and variants.csv and docs/results/model-misses.csv
(MODEL_SCRIPT compare --markdown).

Usage: docs/check_model_tables.py MODEL_SCRIPT RESULTS_DIR CHAPTER.md...
Exit status: 0 every table matches, 1 a row differs or a chapter has no table.
"""
import os
import subprocess
import sys
import tempfile


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def model(path):
    """{(program, variant, type, shape): row} from a model.md; later rows win."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            c = cells(line)
            if len(c) == 10 and c[0] not in ("program", "---") and not c[0].startswith("-"):
                out[(c[0], c[1], c[2], c[3])] = c
    return out


def main():
    script, results, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for g in ("h100", "h200"):
            out = os.path.join(tmp, g + ".md")
            subprocess.run([sys.executable, script, "compare", "--device",
                            os.path.join(results, g), "--misses",
                            os.path.join(results, "model-misses.csv"), "--markdown", out],
                           capture_output=True, text=True)
            with open(out, encoding="utf-8") as a, \
                    open(os.path.join(results, g, "model.md"), encoding="utf-8") as b:
                if a.read() != b.read():
                    failures.append(f"{g}/model.md is not what the comparison writes now")
    gpus = {g: model(os.path.join(results, g, "model.md")) for g in ("h100", "h200")}
    for page in pages:
        program = os.path.basename(page)[:-3]
        lines = open(page, encoding="utf-8").read().splitlines()
        tables = 0
        for i, line in enumerate(lines):
            if not line.startswith("| Variant | Type |") or "H100 predicted" not in line:
                continue
            tables += 1
            head = cells(line)
            for j in range(i + 2, len(lines)):
                if not lines[j].startswith("|"):
                    break
                row = dict(zip(head, cells(lines[j])))
                shape = row.get("Matrix", "8192 x 8192")
                key = (program, row["Variant"].strip("`"), row["Type"], shape)
                for gpu, name in (("h100", "H100"), ("h200", "H200")):
                    m = gpus[gpu].get(key)
                    if m is None:
                        failures.append(f"{page}:{j + 1}: {gpu}/model.md has no {key}")
                        continue
                    pred = m[6] + "%" + ("" if m[5] == "yes" else " (bound)")
                    want = {f"{name} predicted": pred, f"{name} measured": m[7] + "%",
                            "KiB in flight an SM": m[4]}
                    for col, val in want.items():
                        if col == "KiB in flight an SM" and gpu == "h200":
                            continue  # the facts are the same for both GPUs
                        if row.get(col) != val:
                            failures.append(f"{page}:{j + 1}: {key} {col} is {row.get(col)!r}, "
                                            f"{gpu}/model.md says {val!r}")
                checked += 1
        if not tables:
            failures.append(f"{page}: no bandwidth-model table")
    for f in failures:
        print("FAIL:", f)
    print(f"{checked} rows of {len(pages)} chapters checked against the committed model.md files")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
