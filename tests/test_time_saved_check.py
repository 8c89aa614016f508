#!/usr/bin/env python3
"""scripts/time_saved_check.py judges planted disagreements: a miss left out of the list, and
a listed row that a smaller prediction turns into a hit, each fail; the committed files pass.

Usage: test_time_saved_check.py SCRIPT CHAPTER MISSES RUN_DIR ...
"""
import os
import subprocess
import sys
import tempfile


def run(script, chapter, misses, runs):
    return subprocess.run([sys.executable, script, "--chapter", chapter, "--step", "13-lines",
                           "--against", "10-invariants", "--misses", misses, *runs],
                          capture_output=True, text=True).returncode


def main(script, chapter, misses, *runs):
    failures = []
    if run(script, chapter, misses, runs) != 0:
        failures.append("the committed chapter and misses do not pass")
    with open(misses) as f:
        lines = f.read().splitlines()
    with open(chapter) as f:
        page = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        short = os.path.join(tmp, "misses.csv")
        with open(short, "w") as f:  # one listed miss left out
            f.write("\n".join(lines[:-1]) + "\n")
        if run(script, chapter, short, runs) != 1:
            failures.append("a miss left out of the list was not caught")
        low = os.path.join(tmp, "chapter.md")
        with open(low, "w") as f:  # a prediction of -5%: every measurement a hit
            f.write(page.replace("| H200: time saved against step 10 | 3.7% |",
                                 "| H200: time saved against step 10 | -5.0% |"))
        if page == open(low).read():
            failures.append("the chapter's H200 prediction row was not found")
        elif run(script, low, misses, runs) != 1:
            failures.append("a listed row that is a hit was not caught")
    for line in failures:
        print("FAIL:", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
