#!/usr/bin/env python3
"""Tests docs/check_budgets.py on a chapter written here, then checks the course's own pages.

  1. A chapter in the course's shape passes.
  2. Each way of breaking the shape fails, with a message that names it: padded past its
     budget, a long What changed, no diff, no picture, a missing picture file, too few
     questions, answers shown to the student, a section missing or out of order, a results
     table or a results folder that is not of record in the main path.
  3. What is below Deep dive is not judged: padding and earlier runs there pass.
  4. The README and the chapters given pass.

Usage: test_check_budgets.py SCRIPT README.md CHAPTER.md...
"""
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)


GOOD = """# 05 - A chapter {#step05}

## What changed

One sentence about the change.

<!-- diff: 04-padding/plain.cu 05-multi-element/plain.cu -->
```diff
-old
+new
```
<!-- end -->

## Predict

![A picture.](images/picture.svg)

Some prose about the prediction.

## Measure

<!-- pivot record:bench.csv sweep=headline value=pct_copy -->
| Step | Variant |
|---|---|
<!-- end -->

## Explain

Why.

## Check yourself

1. Which bank?
2. How many sectors?
3. How many bytes in flight?
4. Run it and explain.
5. Run it again and explain.

\\if instructor
Answers: bank 0; 4 sectors; 16 KiB.
\\endif

## Deep dive

Everything else.
"""


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          timeout=120)


def main():
    script, readme, chapters = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "images"))
        open(os.path.join(tmp, "images", "picture.svg"), "w").close()
        page = os.path.join(tmp, "05-test.md")

        def judge(text):
            with open(page, "w") as f:
                f.write(text)
            return run(script, readme, page)

        r = judge(GOOD)
        check(r.returncode == 0, f"a chapter in the shape passes ({r.stdout.strip()})")
        padding = "word " * 2600
        below = GOOD.replace("Everything else.", padding + "results/h200/0000000 earlier run")
        r = judge(below)
        check(r.returncode == 0, f"the deep dive is not judged ({r.stdout.strip()})")
        broken = [
            ("padded past its budget", GOOD.replace("Why.", padding), "over its budget"),
            ("a long What changed", GOOD.replace("One sentence", "word " * 200), "What changed"),
            ("no diff", GOOD.replace("<!-- diff:", "<!-- listing:"), "no generated diff"),
            ("no picture", GOOD.replace("![A picture.](images/picture.svg)", ""), "no picture"),
            ("a missing picture file", GOOD.replace("picture.svg)", "gone.svg)"), "not exist"),
            ("four questions", GOOD.replace("5. Run it again and explain.\n", ""), "4 numbered"),
            ("answers shown to the student", GOOD.replace("\\if instructor\n", "")
             .replace("\\endif\n", ""), "no answers"),
            ("a section out of order", GOOD.replace("## Measure", "## Measure_")
             .replace("## Explain", "## Measure").replace("## Measure_", "## Explain"),
             "its sections are"),
            ("no Check yourself", GOOD.replace("## Check yourself", "## Questions"),
             "its sections are"),
            ("a table not of record", GOOD.replace("record:bench.csv",
                                                   "docs/results/h200/0000000/bench.csv"),
             "not a check of record"),
            ("the first run's table", GOOD.replace("record:bench.csv", "docs/results/bench.csv"),
             "not a check of record"),
            ("an earlier run named in the main path",
             GOOD.replace("Why.", "See results/h100/0000000/bench.csv."), "move it"),
        ]
        for what, text, message in broken:
            r = judge(text)
            check(r.returncode == 1 and message in r.stdout,
                  f"{what} fails (exit {r.returncode}: {r.stdout.strip()})")
        r = run(script, readme, os.path.join(tmp, "notachapter.md"))
        check(r.returncode == 2, f"a page that cannot be read: exit 2 (got {r.returncode})")

    r = run(script, readme, *chapters)
    check(r.returncode == 0, f"the README and {len(chapters)} chapters:\n{r.stdout.strip()}")
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
