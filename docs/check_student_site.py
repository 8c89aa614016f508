#!/usr/bin/env python3
"""Checks that the student's edition of the site shows no model answer of the lab.

For every exercise of the lab (lab/start/<id>.txt), the code lines of the model answer's
regions (steps/<id>/<file>, between `// LAB BEGIN <id>` and `// LAB END`) and of the kernels
of the step's plain CUDA file (steps/<id>/plain.cu, the same answer without the course's code,
which the student does not receive; comments dropped,
and lines that the exercise's start or the file outside its regions also has left out, since
the student sees those anyway, and lines of the harness, common/) must appear in no page of
the student's edition, compared without spaces after the HTML tags are stripped. A line that
a later step's source holds (outside its own exercise's regions, where it is an exercise), or that a later exercise's
start holds (step 04's tile is step 03's moves with a new layout: chapter 04 shows 03's
moves), is the base of that later step, not hidden by this edition; such lines are listed
as notes, with the step that shows them. The same lines must appear in the
instructor's edition, where the chapters list the model answers: that shows that the check
reads listings the way the site renders them, so that it can fail. And each exercise's
`TODO(lab <id>` marker must appear in the student's edition (its listings are the stubs).

Usage: docs/check_student_site.py STUDENT_HTML INSTRUCTOR_HTML SOURCE_DIR
Exit status: 0 no answer shown, 1 an answer shown (its line and page named) or a control failed.
"""
import glob
import html
import os
import re
import sys

MIN_CHARS = 12  # shorter lines ("return m;", "}") say nothing about an answer


def regions(text, exercise):
    """The bodies of the regions of @p exercise in @p text, as lists of lines."""
    out, cur = [], None
    for line in text.splitlines():
        if re.match(rf"^\s*// LAB BEGIN {re.escape(exercise)}\b", line):
            cur = []
        elif cur is not None and re.match(r"^\s*// LAB END", line):
            out.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def code(line):
    """The line without its comment and without spaces ("" for a comment or blank line)."""
    line = re.sub(r"//.*$", "", line)
    return re.sub(r"\s+", "", line)


def kernel_lines(path):
    """The code lines of the kernels (`__global__` functions) of a plain CUDA file, which does
    what the exercise's regions do without the course's code: the answer too (none without
    the file)."""
    if not os.path.exists(path):
        return set()
    out, inside = set(), False
    for line in open(path).read().splitlines():
        if line.startswith("__global__"):
            inside = True
        if inside:
            out.add(code(line))
            if line.startswith("}"):
                inside = False
    return out


def page_texts(folder):
    texts = {}
    for path in glob.glob(os.path.join(folder, "**", "*.html"), recursive=True):
        if os.sep + "mathjax" + os.sep in path:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            raw = f.read()
        text = html.unescape(re.sub(r"<[^>]+>", "", raw))
        texts[os.path.relpath(path, folder)] = re.sub(r"\s+", "", text)
    return texts


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    student, instructor, root = sys.argv[1:]
    pages_s, pages_i = page_texts(student), page_texts(instructor)
    if not pages_s or not pages_i:
        print("FAIL: no HTML pages in the student's or the instructor's edition")
        return 1
    failures, notes, checked = [], [], 0
    # What every student sees anyway: the harness, and each step's file outside its own
    # exercise's regions and the exercises' starts (by the step that holds them).
    harness = {code(l) for f in glob.glob(os.path.join(root, "common", "*"))
               for l in open(f, errors="replace").read().splitlines()}
    base = {}
    for step in sorted(glob.glob(os.path.join(root, "steps", "[0-9][0-9]-*"))):
        sid = os.path.basename(step)
        start = os.path.join(root, "lab", "start", sid + ".txt")
        if os.path.exists(start):
            for l in open(start).read().splitlines():
                base.setdefault(code(l), sid)
        for f in glob.glob(os.path.join(step, "*")):
            if os.path.basename(f) == "plain.cu":  # the answer in plain CUDA: not received
                continue
            t = open(f, errors="replace").read()
            t = re.sub(rf"// LAB BEGIN {re.escape(sid)}\b.*?// LAB END", "", t, flags=re.S)
            for l in t.splitlines():
                base.setdefault(code(l), sid)
    for start in sorted(glob.glob(os.path.join(root, "lab", "start", "*.txt"))):
        ex = os.path.basename(start)[:-4]
        files = [f for f in glob.glob(os.path.join(root, "steps", ex, "*"))
                 if f.endswith((".cu", ".cuh", ".hpp")) and f"// LAB BEGIN {ex}" in open(f).read()]
        if len(files) != 1:
            failures.append(f"{ex}: {len(files)} files of steps/{ex}/ hold its regions, not 1")
            continue
        text = open(files[0]).read()
        outside = {code(l) for l in re.sub(r"// LAB BEGIN.*?// LAB END", "", text,
                                           flags=re.S).splitlines()}
        given = {code(l) for body in regions(open(start).read(), ex) for l in body}
        answer = {code(l) for body in regions(text, ex) for l in body}
        # The plain file's kernel, but for the lines every student receives elsewhere anyway
        # (a barrier, a pragma, a parameter list).
        answer |= kernel_lines(os.path.join(root, "steps", ex, "plain.cu")) - set(base)
        lines = sorted(l for l in answer - given - outside - harness if len(l) >= MIN_CHARS)
        if not lines:
            failures.append(f"{ex}: no line of the model answer to look for")
            continue
        later = {l: base[l] for l in lines if base.get(l, ex) > ex}
        notes += [f"{ex}: '{l}' is the base of {s}, whose chapter and later ones show it"
                  for l, s in later.items()]

        def allowed(page, line):  # the chapter of the later step that holds it, and after
            m = re.match(r"step(\d\d)\.html$", page)
            return line in later and m is not None and m.group(1) >= later[line][:2]

        for line in lines:
            checked += 1
            shown = [p for p, t in pages_s.items() if line in t and not allowed(p, line)]
            if shown:
                failures.append(f"{ex}: the student's edition shows the model answer's "
                                f"'{line}' in {', '.join(sorted(shown)[:3])}")
        if not any(l in t for l in lines for t in pages_i.values()):
            failures.append(f"{ex}: no line of the model answer is found in the instructor's "
                            f"edition either: the check cannot see listings")
        marker = f"TODO(lab{ex}"
        if not any(marker in t for t in pages_s.values()):
            failures.append(f"{ex}: the student's edition shows no 'TODO(lab {ex}' stub")
    for n in notes:
        print("note:", n)
    for f in failures:
        print("FAIL:", f)
    print(f"{checked} lines of the model answers looked for in {len(pages_s)} pages of the "
          f"student's edition")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
