#!/usr/bin/env python3
"""Reading budgets and the chapter shape: what a student reads stays short, and every chapter
reads the same way.

Words of prose: everything but code blocks, HTML comments (the generators' markers), table
rows, pictures and Doxygen command lines, with the instructor's sections (`\\if instructor`
... `\\endif`) left out, as the student's edition leaves them out.

The README: at most 1,500 words of prose. A chapter (docs/NN-name.md):
  - its level-2 headings are, in this order: What changed, Predict, Measure, Explain, Check
    yourself, Deep dive (the main path is everything above Deep dive);
  - the main path has at most 2,500 words of prose in Part I (steps 01 to 08) and 3,000 after;
  - What changed has at most 180 words of prose and shows the code's own diff against the
    step before (a `diff` block of scripts/doc_outputs.py; chapters 01, 02 and 18, the first
    program, the first transpose and the first across GPUs, a `listing`);
  - the main path shows at least one picture, whose file exists;
  - Check yourself asks at least five numbered questions in the student's text, and its
    answers are in the instructor's edition only (an `\\if instructor` block there).
Both: every results table of the main path (a `table`, `pivot` or `spread` block of
scripts/results_tables.py) reads the checks of record (`record:FILE`, or the folders
docs/results/h100/COMMIT and docs/results/h200/COMMIT that docs/results/GPU/gpu-check.txt
names), and every results folder of one commit that the main path names is a folder of record:
earlier runs belong in a deep dive.

Usage: docs/check_budgets.py [--most 1500] README.md [CHAPTER.md ...]
Exit status: 0 all within budget and shape, 1 a page is not, 2 bad usage.
"""
import argparse
import importlib.util
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "results_tables", os.path.join(ROOT, "scripts", "results_tables.py"))
results_tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(results_tables)
HEADINGS = ["What changed", "Predict", "Measure", "Explain", "Check yourself", "Deep dive"]
WHAT_CHANGED_MOST = 180
FIRSTS = (1, 2, 18)  # chapters whose What changed shows a listing: nothing came before them
RESULTS_BLOCK = re.compile(r"<!--\s*(?:table|pivot|spread)\s+(\S+)(?:\s+(\S+))?")
RUN_FOLDER = re.compile(r"results/(h100|h200)/([0-9a-f]{7})\b")


def student(text):
    """The text as the student's edition has it."""
    return re.sub(r"\\if instructor.*?\\endif", "", text, flags=re.S)


def prose_words(text):
    text = student(text)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    kept = [line for line in text.splitlines()
            if not line.lstrip().startswith(("|", "![", "\\"))]
    return len(" ".join(kept).split())


def records():
    """{gpu: commit (7 characters)} of each GPU's check of record, as the tables read it."""
    found = {}
    for gpu in results_tables.RECORD_GPUS:
        try:
            found[gpu] = results_tables.record_folder(gpu).rsplit("/", 1)[1]
        except results_tables.BlockError:
            pass
    return found


def of_record(text, record):
    """Problems: results of the main path @p text that do not come from the checks of record."""
    problems = []
    for m in RESULTS_BLOCK.finditer(text):
        for source in filter(None, m.groups()):
            if "=" in source or source.startswith("record:"):
                continue
            for path in source.split("+"):
                run = RUN_FOLDER.search(path)
                if not run or record.get(run.group(1)) != run.group(2):
                    problems.append(f"a results table reads {path}, not a check of record "
                                    f"(use record:FILE)")
    for run in sorted(set(RUN_FOLDER.findall(student(text)))):
        if record.get(run[0]) != run[1]:
            problems.append(f"names results/{run[0]}/{run[1]}, not the {run[0]}'s check of "
                            f"record ({record.get(run[0], 'none')}): move it to the deep dive")
    return problems


def sections(text):
    """[(heading, body)] of the level-2 sections, in order (code blocks skipped)."""
    out, heading, body, fenced = [], None, [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            if heading is not None:
                out.append((heading, "\n".join(body)))
            heading, body = re.sub(r"\s*\{#.*\}\s*$", "", line[3:]).strip(), []
        elif heading is not None:
            body.append(line)
    if heading is not None:
        out.append((heading, "\n".join(body)))
    return out


def check_chapter(path, text, record):
    name = os.path.basename(path)
    number = int(name[:2])
    budget = 2500 if number <= 8 else 3000
    problems = []
    parts = sections(text)
    headings = [h for h, _ in parts]
    if headings != HEADINGS:
        return [f"its sections are {headings}; a chapter's are {HEADINGS}"]
    body = dict(parts)
    main = text[:text.index("\n## Deep dive")]
    words = prose_words(main)
    if words > budget:
        problems.append(f"its main path has {words} words of prose, over its budget of {budget}")
    changed = prose_words(body["What changed"])
    if changed > WHAT_CHANGED_MOST:
        problems.append(f"What changed has {changed} words of prose, over {WHAT_CHANGED_MOST}")
    # 01 and 02 have no transpose before them, and 18 (Part III) no program across GPUs
    kind = "listing" if number in FIRSTS else "diff"
    if f"<!-- {kind}: " not in body["What changed"]:
        problems.append(f"What changed shows no generated {kind} of the code (<!-- {kind}: ...)")
    pictures = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)|\\image\s+\w+\s+(\S+)", student(main))
    if not pictures:
        problems.append("its main path shows no picture")
    for md, image in pictures:
        picture = md or image
        if not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(path)), picture)):
            problems.append(f"its picture {picture} does not exist")
    questions = re.findall(r"^\d+\.\s", student(body["Check yourself"]), re.M)
    if len(questions) < 5:
        problems.append(f"Check yourself asks {len(questions)} numbered question(s), not 5")
    if "\\if instructor" not in body["Check yourself"]:
        problems.append("Check yourself has no answers for the instructor (\\if instructor)")
    problems += of_record(main, record)
    return problems, words, budget


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("readme")
    ap.add_argument("chapters", nargs="*")
    ap.add_argument("--most", type=int, default=1500)
    a = ap.parse_args()
    record = records()
    failed = False
    for path in [a.readme] + a.chapters:
        try:
            text = open(path, encoding="utf-8").read()
        except OSError as e:
            print(f"check_budgets: {e}", file=sys.stderr)
            return 2
        if path == a.readme:
            words, budget = prose_words(text), a.most
            problems = ([f"{words} words of prose, over its budget of {budget}"]
                        if words > budget else []) + of_record(text, record)
        else:
            if not re.match(r"\d\d-", os.path.basename(path)):
                print(f"check_budgets: {path} is not a chapter (NN-name.md)", file=sys.stderr)
                return 2
            result = check_chapter(path, text, record)
            if len(result) == 1:
                problems, words, budget = result, None, None
            else:
                problems, words, budget = result
        size = f": {words} words of prose, budget {budget}" if words is not None else ""
        print(f"{path}{size}: {'ok' if not problems else 'NOT OK'}")
        for p in problems:
            print(f"  {p}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
