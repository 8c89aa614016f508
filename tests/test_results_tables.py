#!/usr/bin/env python3
"""Tests scripts/results_tables.py, then checks the repository's own tables with it.

  1. A block whose table differs from the committed CSV fails --check (exit 1); rewriting it
     puts the CSV's numbers in, and --check passes then.
  2. A bad block (an unknown column, a filter no row passes, a missing source) exits 2 with
     one message and no traceback.
  3. Every table block in the given Markdown files (README.md and docs/*.md) matches the
     committed results it names.

Usage: test_results_tables.py SCRIPT RESULTS_CSV FILE...   (RESULTS_CSV relative to the root)
"""
import csv
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          timeout=120)


def rewrite(script, page, text):
    """Writes @p text to @p page and runs the script on it: (its result, the page after)."""
    with open(page, "w") as f:
        f.write(text)
    r = run(script, page)
    with open(page) as f:
        return r, f.read()


def main():
    script, results, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    root = os.path.dirname(os.path.dirname(os.path.abspath(script)))
    with open(os.path.join(root, results), newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["step"] == "02-naive")
    block = (f"<!-- table {results} step=02-naive variant={row['variant']} dtype={row['dtype']} "
             f"rows={row['rows']} cols={row['cols']} columns=step,shape,gbps -->\n")
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.md")
        with open(page, "w") as f:
            f.write("# A page\n\n" + block + "| Step | Matrix | GB/s |\n|---|---|---|\n"
                    f"| 02-naive | {row['rows']} x {row['cols']} | 12345.6 |\n<!-- end -->\n")
        r = run(script, "--check", page)
        check(r.returncode == 1 and "out of date" in r.stderr,
              f"a stale table fails --check (got {r.returncode}: {r.stderr.strip()})")
        r = run(script, page)
        with open(page) as f:
            text = f.read()
        check(r.returncode == 0 and f"| {row['gbps']} |" in text and "12345.6" not in text,
              f"rewriting puts the CSV's {row['gbps']} GB/s in (exit {r.returncode})")
        check(run(script, "--check", page).returncode == 0, "the rewritten table passes --check")

        for bad, what in ((block.replace("columns=step", "columns=nosuch"), "an unknown column"),
                          (block.replace("step=02-naive", "step=99-none"), "a filter no row passes"),
                          (block.replace(results, "docs/results/missing.csv"), "a missing source")):
            with open(page, "w") as f:
                f.write(bad + "<!-- end -->\n")
            r = run(script, "--check", page)
            check(r.returncode == 2 and "results_tables.py:" in r.stderr
                  and "Traceback" not in r.stderr,
                  f"{what}: exit status 2 and one message (got {r.returncode}: "
                  f"{r.stderr.strip()})")

        # shape=RxC picks a matrix by both sides at once.
        shaped = block.replace(f"rows={row['rows']} cols={row['cols']}",
                               f"shape={row['rows']}x{row['cols']}")
        with open(page, "w") as f:
            f.write(shaped + "<!-- end -->\n")
        r = run(script, page)
        with open(page) as f:
            text = f.read()
        check(r.returncode == 0 and f"| {row['gbps']} |" in text, "shape=RxC selects the matrix")
        with open(page, "w") as f:
            f.write(shaped.replace(f"shape={row['rows']}x{row['cols']}",
                                   f"shape={row['rows']}x{row['cols']}1") + "<!-- end -->\n")
        check(run(script, page).returncode == 2, "shape=RxC with no such matrix fails")

        # A+B: the rows of both sources (two GPUs' results), a pivot column per device.
        with open(page, "w") as f:
            f.write(block.replace(results, results + "+" + results) + "<!-- end -->\n")
        r = run(script, page)
        with open(page) as f:
            lines = [l for l in f.read().splitlines() if l.startswith("| 02-naive")]
        check(r.returncode == 0 and len(lines) == 2, f"A+B reads both sources ({len(lines)} rows)")

        # record:FILE: FILE of each GPU's check of record, the H100's rows then the H200's.
        with open(page, "w") as f:
            f.write("<!-- table record:bench.csv step=references variant=memcpy dtype=float "
                    "shape=8192x8192 sweep=headline columns=device,gbps -->\n<!-- end -->\n")
        r = run(script, page)
        with open(page) as f:
            rows = [l for l in f.read().splitlines() if l.startswith("| NVIDIA")]
        check(r.returncode == 0 and len(rows) == 2 and "H100" in rows[0] and "H200" in rows[1],
              f"record:bench.csv reads both checks of record ({rows}, {r.stderr.strip()})")

        # A Markdown source of one GPU's folder: a first column GPU; spaces as underscores.
        with open(page, "w") as f:
            f.write("<!-- table record:ncu-8192.md part=2 step=03-shared dtype=float "
                    "columns=GPU,time_(us) -->\n<!-- end -->\n")
        r = run(script, page)
        with open(page) as f:
            lines = [l for l in f.read().splitlines() if l.startswith("| H")]
        check(r.returncode == 0 and len(lines) == 2 and lines[0].startswith("| H100 |")
              and lines[1].startswith("| H200 |"),
              f"an Nsight Compute page of record says whose rows are whose, and time_(us) "
              f"picks 'time (us)' ({lines}, {r.stderr.strip()})")

        # value: one number in a sentence, rewritten and checked like a table; digits and
        # scale; one row exactly; record-GPU:FILE is that GPU's record alone.
        inline = (f"<!-- value {results} step=02-naive variant={row['variant']} "
                  f"dtype={row['dtype']} shape={row['rows']}x{row['cols']} column=gbps -->")
        scaled = inline.replace("column=gbps", "column=gbps scale=0.001 digits=2")
        sentence = f"It moves {inline}12345.6<!-- end -->\nGB/s, {scaled}9<!-- end -->\nTB/s.\n"
        with open(page, "w") as f:
            f.write(sentence)
        stale = run(script, "--check", page)
        r, text = rewrite(script, page, sentence)
        tb = f"{float(row['gbps']) / 1000:.2f}"
        check(stale.returncode == 1 and r.returncode == 0
              and f"-->{row['gbps']}<!-- end -->\nGB/s" in text
              and f"-->{tb}<!-- end -->\nTB/s" in text and "12345.6" not in text,
              f"a value in a sentence fails --check when stale and is rewritten, scaled and "
              f"rounded ({stale.returncode}, {r.returncode}: {text!r})")
        r, _ = rewrite(script, page, f"It moves {inline}1<!-- end --> GB/s.\n")  # "962.0GB/s"
        check(r.returncode == 2 and "a space after <!-- end -->" in r.stderr,
              f"a space after a value's closing comment is refused ({r.returncode}: "
              f"{r.stderr.strip()})")
        every = inline.replace(f" shape={row['rows']}x{row['cols']}", "")  # each matrix's row
        r, _ = rewrite(script, page, every + "1<!-- end -->\n")
        check(r.returncode == 2 and "exactly one" in r.stderr,
              f"a value whose filters pass several rows fails ({r.returncode}: "
              f"{r.stderr.strip()})")
        r, text = rewrite(script, page, every.replace("column=gbps", "column=gbps of=max") +
                          "1<!-- end -->\n")
        best = max(float(x["gbps"]) for x in csv.DictReader(open(os.path.join(root, results)))
                   if x["step"] == "02-naive" and x["variant"] == row["variant"]
                   and x["dtype"] == row["dtype"])
        check(r.returncode == 0 and f"-->{best:g}<!-- end -->" in text,
              f"of=max gives the greatest of the rows that pass ({best:g}: {text!r})")
        r, text = rewrite(script, page, "<!-- value record-h200:bench.csv sweep=headline "
                          "step=references variant=memcpy dtype=float shape=8192x8192 "
                          "column=device -->x<!-- end -->\n")
        check(r.returncode == 0 and "-->NVIDIA H200<!-- end -->" in text,
              f"record-h200:FILE reads the H200's record alone ({r.stderr.strip()}: {text!r})")

    # A pivot over a source with a column gpus (step 18's CSV): one column per matrix and P.
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        source = os.path.join(tmp, "a2a.csv")
        with open(source, "w") as f:
            f.write("step,variant,dtype,rows,cols,gpus,median_ms,device\n"
                    "18-all-to-all,peer,float,37,53,1,0.5,\"G x1\"\n"
                    "18-all-to-all,peer,float,37,53,2,0.25,\"G x2\"\n")
        page = os.path.join(tmp, "page.md")
        with open(page, "w") as f:
            f.write(f"<!-- pivot {os.path.relpath(source, root)} value=median_ms -->\n"
                    "<!-- end -->\n")
        r = run(script, page)
        with open(page) as f:
            text = f.read()
        check(r.returncode == 0 and "37 x 53 float on 1 GPU (median ms)" in text
              and "37 x 53 float on 2 GPUs (median ms)" in text and "| 0.5 | 0.25 |" in text,
              f"a pivot's matrices say on how many GPUs ({r.returncode}: {text!r})")
        r, text = rewrite(script, page, f"<!-- value {os.path.relpath(source, root)} gpus=2 "
                          "column=median_ms digits=1 -->x<!-- end -->\n")  # 0.25: 0.3, not 0.2
        check(r.returncode == 0 and "-->0.3<!-- end -->" in text,
              f"a value's digits round halves up ({r.returncode}: {text!r})")

    r = run(script, "--check", *files)
    check(r.returncode == 0, f"the tables of {len(files)} pages match the committed results "
          f"({r.stderr.strip()})")
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
