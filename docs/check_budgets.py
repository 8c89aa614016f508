#!/usr/bin/env python3
"""Reading budgets: the README's prose, as a student reads it, stays within its word budget.

Words of prose: everything but code blocks, HTML comments (the tables' generator markers),
table rows, pictures and Doxygen command lines, with the instructor's sections
(`\\if instructor` ... `\\endif`) left out, as the student's edition leaves them out.

The chapters get their budgets (Part I at most 2,500 words above *Deep dive*, Part II 3,000,
each with a figure and a *Check yourself* section) as they take the course's chapter shape;
until then this checks the README alone.

Usage: docs/check_budgets.py README.md [--most 1500]
Exit status: 0 within budget, 1 over it, 2 bad usage.
"""
import argparse
import re
import sys


def prose_words(text):
    text = re.sub(r"\\if instructor.*?\\endif", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    kept = [line for line in text.splitlines()
            if not line.lstrip().startswith(("|", "![", "\\"))]
    return len(" ".join(kept).split())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("readme")
    ap.add_argument("--most", type=int, default=1500)
    a = ap.parse_args()
    try:
        text = open(a.readme, encoding="utf-8").read()
    except OSError as e:
        print(f"check_budgets: {e}", file=sys.stderr)
        return 2
    n = prose_words(text)
    ok = n <= a.most
    print(f"{a.readme}: {n} words of prose, budget {a.most}: {'ok' if ok else 'OVER'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
