#!/usr/bin/env python3
"""Writes, or checks, the bandwidth-model tables of the chapters from the committed comparisons.

A chapter of steps 05 to 09 shows its variants' predicted and measured shares of the copy on
both GPUs in a block between two comments, whose lines are generated:

    <!-- model-table variants=elements-1,elements-2 types=float,double shapes=8192x8192 -->
    | Variant | Type | KiB in flight an SM | H100 predicted | H100 measured | H200 predicted | H200 measured |
    ...
    <!-- end -->

one row for each shape, then type, then variant, in the order given, with a `Matrix` column
when more than one shape is given. Each row is what docs/results/<gpu>/model.md says of that
step (the chapter's file name), variant, type and matrix (scripts/bandwidth_model.py compare
writes it; where a kernel was measured twice, in the bench and in the variants run, the
variants run's row, the later one, counts): the bytes in flight (the same for both GPUs),
the predicted and measured shares, and "(bound)" exactly where the kernel is outside the
model.

The model.md files themselves are checked first: each must be what the comparison writes now
from its folder's predictions.csv, bench.csv and variants.csv and docs/results/model-misses.csv
(MODEL_SCRIPT compare --markdown).

Usage: docs/check_model_tables.py [--write] MODEL_SCRIPT RESULTS_DIR CHAPTER.md...
Exit status: 0 every block is current (or, with --write, rewritten), 1 a block differs, a
chapter has none, or a row has no comparison.
"""
import os
import re
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"(<!--\s*model-table\b(.*?)-->\n)(.*?)(<!--\s*end\s*-->)", re.S)
GPUS = (("h100", "H100"), ("h200", "H200"))


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


def table(program, args, gpus):
    """The lines of one block, or raises ValueError saying what is missing."""
    opts = dict(a.split("=", 1) for a in args.split())
    try:
        variants, types = opts["variants"].split(","), opts["types"].split(",")
        shapes = [s.replace("x", " x ") for s in opts["shapes"].split(",")]
    except KeyError as e:
        raise ValueError(f"a model-table block without {e.args[0]}=")
    matrix = len(shapes) > 1
    head = ["Variant", "Type"] + (["Matrix"] if matrix else []) + ["KiB in flight an SM"]
    head += [f"{name} {what}" for _, name in GPUS for what in ("predicted", "measured")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for shape in shapes:
        for t in types:
            for v in variants:
                key = (program, v, t, shape)
                rows = {g: gpus[g].get(key) for g, _ in GPUS}
                missing = [g for g, r in rows.items() if r is None]
                if missing:
                    raise ValueError(f"{'/'.join(missing)} model.md has no {key}")
                row = [f"`{v}`", t] + ([shape] if matrix else []) + [rows["h100"][4]]
                for g, _ in GPUS:
                    m = rows[g]
                    row += [m[6] + "%" + ("" if m[5] == "yes" else " (bound)"), m[7] + "%"]
                lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    write = "--write" in args
    args = [a for a in args if a != "--write"]
    script, results, pages = args[0], args[1], args[2:]
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for g, _ in GPUS:
            out = os.path.join(tmp, g + ".md")
            subprocess.run([sys.executable, script, "compare", "--device",
                            os.path.join(results, g), "--misses",
                            os.path.join(results, "model-misses.csv"), "--markdown", out],
                           capture_output=True, text=True)
            with open(out, encoding="utf-8") as a, \
                    open(os.path.join(results, g, "model.md"), encoding="utf-8") as b:
                if a.read() != b.read():
                    failures.append(f"{g}/model.md is not what the comparison writes now")
    gpus = {g: model(os.path.join(results, g, "model.md")) for g, _ in GPUS}
    for page in pages:
        program = os.path.basename(page)[:-3]
        text = open(page, encoding="utf-8").read()
        blocks = 0

        def render(m):
            nonlocal blocks, checked
            blocks += 1
            line = text.count("\n", 0, m.start()) + 1
            try:
                new = table(program, m.group(2), gpus)
            except ValueError as e:
                failures.append(f"{page}:{line}: {e}")
                return m.group(0)
            checked += new.count("\n") - 2
            if new != m.group(3) and not write:
                failures.append(f"{page}:{line}: the model table differs from what the "
                                f"committed comparisons give (docs/check_model_tables.py "
                                f"--write rewrites it)")
            return m.group(1) + new + m.group(4)

        updated = BLOCK.sub(render, text)
        if not blocks:
            failures.append(f"{page}: no model-table block")
        if write and updated != text:
            with open(page, "w", encoding="utf-8") as f:
                f.write(updated)
    for f in failures:
        print("FAIL:", f)
    print(f"{checked} rows of {len(pages)} chapters {'written' if write else 'checked'} from "
          f"the committed model.md files")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
