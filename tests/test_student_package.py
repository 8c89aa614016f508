#!/usr/bin/env python3
"""Tests scripts/student_package.py: it writes the student's package (without the built site)
and searches every file of it for every model answer of the lab, in three forms:

- the code: each line of each exercise's regions in steps/ and of the kernels of its plain
  CUDA file (the lines docs/check_student_site.py looks for: comments and spaces dropped,
  lines the exercise's start or its file outside the regions also has left out, and lines
  shorter than 12 characters, which say nothing), in every file compared without spaces;
- the prose and the numbers: FORMS, each a pattern that states an answer in words, a formula
  or a worked figure that only the answer gives, in every file with the page markup of
  formulas dropped and spaces made one;
- the files: no steps/*/plain.cu, no docs/lab.md, no tests/, no `\\if instructor` left in a
  page, every exercise's `TODO(lab <id>` stub in its file, and what the lab build needs there.

One exception, the lab's design: the starts of 05 and 06 hold moves built on 03's answer (05's
start its own moves, pass by pass, and a load phase that moves one element a pass; 06's step
04's moves, around which it asks for the slots of a vector). A line of an earlier answer that
a later exercise's start holds may appear in the files of that exercise and of the steps after
it (lab/start/<id>.txt, steps/<id>/, docs/<id>.md, ...), and nowhere else; the test lists
each such line. Likewise a line or a form of an answer that a later step's own code is built
on (SHOWN_FROM: step 12's load phase is 05's) may appear in that step's files and after.
docs/lab.md says so to the instructor.

The search must be able to fail: the test plants a model answer's line, and each form, into a
copy of the package and checks that the search finds each one.

Usage: test_student_package.py PROJECT_ROOT
Exit status: 0 passed, 1 an answer found (its file and form named) or a check failed.
"""
import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..")
spec = importlib.util.spec_from_file_location(
    "check_student_site", os.path.join(ROOT, "docs", "check_student_site.py"))
site_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(site_check)

# The answers in words, formulas and worked numbers: (exercise, pattern, what it gives away).
# Each pattern is matched, ignoring case, against a file's text with the markup of formulas
# (\f$, $, \, \cdot, \text, braces, backquotes) and `*` dropped and every run of spaces made
# one. Step names that the students are given (pad-32x33, the tile's size Tile::kTileElems)
# are not answers: the layout is.
FORMS = [
    ("02-naive", r"offset\( ?e\.col ?, ?e\.row ?, ?cols ?\)", "WriteRows reads in[col N + row]"),
    ("02-naive", r"offset\( ?e\.row ?, ?e\.col ?, ?rows ?\)", "WriteRows writes out[row M + col]"),
    ("02-naive", r"in\[ ?col ?n ?\+ ?row ?\]", "WriteRows' read, as an index"),
    ("02-naive", r"out\[ ?row ?m ?\+ ?col ?\]", "WriteRows' write, as an index"),
    ("03-shared", r"32 ?by ?\+ ?y ?, ?32 ?bx ?\+ ?x", "the input element of thread (x, y)"),
    ("03-shared", r"32 ?bx ?\+ ?y ?, ?32 ?by ?\+ ?x", "the output element of thread (x, y)"),
    ("04-padding", r"\b33 ?(r|x|y|\\ell|ℓ) ?\+", "the padded slot, 33 r + c"),
    ("04-padding", r"\b33 ?\( ?(r|x|y|\d*x|\\ell)\b", "the padded slot, 33 (y + j) + x"),
    ("04-padding", r"\b[rℓ] ?\( ?(k?tile|tile_) ?\+ ?1 ?\) ?\+ ?c", "the padded slot, r (TILE + 1) + c"),
    ("04-padding", r"\b33 ?(x|\\times)? ?\d+ ?\+ ?\d+ ?=", "a padded slot worked out, 33 x 19 + 5 ="),
    # 05's moves are in its start; its answer is the load phase: every load into registers,
    # then the registers into the tile.
    ("05-multi-element", r"\bt v ?\[ ?w ?:: ?kloadpasses ?\]",
     "the register array, T v[W::kLoadPasses]"),
    ("05-multi-element", r"\bv ?\[ ?p ?\] ?= ?in ?\[",
     "a load into the register array, v[p] = in[...]"),
    ("05-multi-element", r"\btile ?\[ ?m ?\. ?slot ?\] ?= ?v ?\[ ?p ?\]",
     "the register array into the tile, tile[m.slot] = v[p]"),
    ("06-float4", r"tile_slot(<padded>)? ?\( ?r ?, ?c ?\+ ?k ?\)", "a load's slot k"),
    ("06-float4", r"tile_slot(<padded>)? ?\( ?c ?\+ ?k ?, ?r ?\)", "a store's slot k"),
    ("07-swizzle", r"\( ?r ?/ ?group ?\) ?(%|mod|\\bmod)", "the XOR key, (r / group) mod"),
    ("07-swizzle", r"\( ?c ?/ ?chunk ?\) ?(\^|xor|\\oplus)", "the chunk XORed, (c / chunk) ^"),
    ("07-swizzle", r"chunk (\^|xor|\\oplus) (the )?row group", "chunk XOR row group"),
    ("08-diagonal", r"\bx ?= ?b ?/ ?gy\b", "column order, x = b / gy"),
    ("08-diagonal", r"\bb ?/ ?gy ?, ?b ?(%|mod|\\bmod) ?gy\b", "column order, (b / gy, b mod gy)"),
    ("08-diagonal", r"\bb ?(%|mod|\\bmod) ?gy ?, ?b ?/ ?gy\b", "column order, (b mod gy, b / gy)"),
    ("08-diagonal", r"blockidx\.x ?(%|/) ?gy\b", "column order in plain CUDA"),
    ("08-diagonal", r"\bx ?= ?(\\left ?)?\\lfloor ?b ?/ ?g_y\b", "column order, x = ⌊b / g_y⌋"),
]
# The forms that a later step's own code states as its base, and the step from which on the
# package may show them: step 12's load phase is 05's, with more passes.
SHOWN_FROM = {
    "the register array, T v[W::kLoadPasses]": "12-reads",
    "a load into the register array, v[p] = in[...]": "12-reads",
    "the register array into the tile, tile[m.slot] = v[p]": "12-reads",
}
# Files not searched: pictures and other binary files (a planted line is text).
BINARY = (".png", ".svg", ".pdf", ".gz", ".xz", ".ncu-rep")

failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


def prose(text):
    """@p text as FORMS are matched against it."""
    text = re.sub(r"\\f[$\[\]]|\$|\\[,;!]|\\cdot|\\text|\\mathrm|[{}`*]", " ", text)
    return re.sub(r"\s+", " ", text).lower()


def answers(root):
    """{exercise: ([code lines of its model answer], {line: the later step that holds it})},
    from the course's steps (docs/check_student_site.py's reading). A line is no answer when
    the exercise's own start, its file outside its regions, an earlier step or the harness
    gives it; one that a later step gives (its start, or its source outside its own regions)
    is the base of that step, and may appear in its files and after."""
    steps = sorted(d for d in os.listdir(os.path.join(root, "steps"))
                   if os.path.isdir(os.path.join(root, "steps", d)))
    harness = {site_check.code(l) for f in os.listdir(os.path.join(root, "common"))
               for l in open(os.path.join(root, "common", f), errors="replace").read().splitlines()}
    base = {}  # line: the first step that gives it
    for step in steps:
        start = os.path.join(root, "lab", "start", step + ".txt")
        texts = [open(start).read()] if os.path.exists(start) else []
        folder = os.path.join(root, "steps", step)
        for f in sorted(os.listdir(folder)):
            if f != "plain.cu" and os.path.isfile(os.path.join(folder, f)):
                t = open(os.path.join(folder, f), errors="replace").read()
                texts.append(re.sub(rf"// LAB BEGIN {re.escape(step)}\b.*?// LAB END", "", t,
                                    flags=re.S))
        for t in texts:
            for l in t.splitlines():
                base.setdefault(site_check.code(l), step)
    out = {}
    for start in sorted(os.listdir(os.path.join(root, "lab", "start"))):
        ex = start[:-4]
        folder = os.path.join(root, "steps", ex)
        files = [os.path.join(folder, f) for f in sorted(os.listdir(folder))
                 if f.endswith((".cu", ".cuh", ".hpp")) and f != "plain.cu"
                 and f"// LAB BEGIN {ex}" in open(os.path.join(folder, f)).read()]
        check(len(files) == 1, f"{ex}: one file of steps/{ex}/ holds its regions ({files})")
        text = open(files[0]).read()
        lines = {site_check.code(l) for body in site_check.regions(text, ex) for l in body}
        # The plain file's kernels, but for their first lines (a name and a launch bound).
        lines |= {l for l in site_check.kernel_lines(os.path.join(folder, "plain.cu"))
                  if not l.startswith("__global__")}
        lines = sorted(l for l in lines - harness if len(l) >= site_check.MIN_CHARS
                       and base.get(l, "99") > ex)
        out[ex] = (lines, {l: base[l] for l in lines if l in base})
    return out


def owner(path):
    """The step a package file belongs to ("05-multi-element" for steps/05-multi-element/x.cu,
    lab/start/05-multi-element.txt, docs/05-multi-element.md), or None."""
    m = re.match(r"(?:steps/|lab/start/|docs/|site/steps/)(\d\d-[a-z0-9-]+)", path)
    if m:
        return m.group(1).removesuffix(".md").removesuffix(".txt")
    m = re.match(r"site/html/step(\d\d)\.html$", path)
    return m.group(1) if m else None


def search(package, found_answers, only=None):
    """Every (file, exercise, what) of the package (or of its file @p only) that shows a model
    answer."""
    hits = []
    for dirpath, _, names in os.walk(package):
        for name in names:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, package).replace(os.sep, "/")
            if name.endswith(BINARY) or only not in (None, rel):
                continue
            with open(path, "rb") as f:
                raw = f.read()
            if b"\0" in raw:
                continue
            text = raw.decode("utf-8", errors="replace")
            if name.endswith(".html"):  # the built site: its text as a reader sees it
                text = html.unescape(re.sub(r"<[^>]+>", "", text))
            flat, words, mine = re.sub(r"\s+", "", text), prose(text), owner(rel)
            for ex, (lines, later) in found_answers.items():
                for l in lines:
                    if l in flat and not (l in later and mine and mine[:2] >= later[l][:2]):
                        hits.append((rel, ex, f"the code line '{l}'"))
            for ex, pattern, what in FORMS:
                m = re.search(pattern, words)
                if m and not (what in SHOWN_FROM and mine and mine[:2] >= SHOWN_FROM[what][:2]):
                    hits.append((rel, ex, f"{what}: '{m.group(0)}'"))
    return hits


def main():
    found = answers(ROOT)
    for ex, (lines, later) in found.items():
        check(lines, f"{ex}: no line of its model answer to look for")
        for l, other in later.items():
            print(f"note: {ex}: '{l}' is the base of {other}: the package shows it in its "
                  f"files and after")
    # Every form must find its answer in the course itself (a form that finds nothing there
    # tests nothing): in the steps' sources, the chapters or the instructor's guide.
    course_text = ""
    for d in ("steps", "docs"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            if "results" in dirpath.split(os.sep):
                continue
            for n in names:
                if n.endswith((".md", ".cu", ".cuh", ".hpp")):
                    course_text += open(os.path.join(dirpath, n), errors="replace").read()
    course_words = prose(course_text)
    for ex, pattern, what in FORMS:
        check(re.search(pattern, course_words), f"{ex}: the form '{what}' finds nothing in the "
              f"course's steps and pages: it cannot find an answer")

    with tempfile.TemporaryDirectory() as tmp:
        package = os.path.join(tmp, "package")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "student_package.py"),
                            package, "--no-site"], capture_output=True, text=True)
        check(r.returncode == 0, f"student_package.py failed: {r.stdout}{r.stderr}")
        if r.returncode != 0:
            return 1

        # The files: what the package leaves out, and what the lab build needs of it.
        for dirpath, _, names in os.walk(package):
            for n in names:
                rel = os.path.relpath(os.path.join(dirpath, n), package)
                check(n != "plain.cu", f"the package has {rel}")
                if n.endswith(".md"):
                    check("\\if instructor" not in open(os.path.join(dirpath, n)).read(),
                          f"{rel} keeps an instructor's section")
        for gone in ("docs/lab.md", "tests", ".ci"):
            check(not os.path.exists(os.path.join(package, gone)), f"the package has {gone}")
        for need in ("CMakeLists.txt", "lab/lab.cmake", "lab/grade/main.cpp",
                     "lab/student-package.txt", "docs/lab-student.md", "docs/CMakeLists.txt",
                     "scripts/sass_check.py", "scripts/doc_outputs.py", "common/kernel.hpp"):
            check(os.path.isfile(os.path.join(package, need)), f"the package lacks {need}")
        for ex in found:
            stubbed = [f for f in os.listdir(os.path.join(package, "steps", ex))
                       if f"TODO(lab {ex}" in open(os.path.join(package, "steps", ex, f)).read()]
            check(stubbed, f"{ex}: no file of the package's steps/{ex}/ holds its stub")

        # The answers.
        hits = search(package, found)
        for rel, ex, what in hits:
            check(False, f"{rel} shows {ex}'s model answer: {what}")

        # The search can fail: a model answer's line planted into a copy of a package file, and
        # each form, written as a page would write it, are each found where they were put.
        copy = os.path.join(tmp, "planted")
        target = os.path.join(copy, "docs", "lab-student.md")
        os.makedirs(os.path.dirname(target))
        shutil.copy(os.path.join(package, "docs", "lab-student.md"), target)
        original = open(target).read()
        for ex, (lines, _) in found.items():
            if not lines:
                continue
            # A line as the model answer has it, with its own spaces: the first of the region.
            text = open(next(os.path.join(ROOT, "steps", ex, f) for f in
                             os.listdir(os.path.join(ROOT, "steps", ex))
                             if f != "plain.cu" and f"// LAB BEGIN {ex}" in
                             open(os.path.join(ROOT, "steps", ex, f)).read())).read()
            line = next(l for body in site_check.regions(text, ex) for l in body
                        if site_check.code(l) in lines)
            with open(target, "w") as f:
                f.write(original + "\n```cpp\n" + line + "\n```\n")
            planted = search(copy, {ex: found[ex]}, "docs/lab-student.md")
            check(planted, f"{ex}: a model answer's line planted into the handout is not found: "
                           f"{line.strip()!r}")
        samples = {
            "WriteRows reads in[col N + row]": "`tt::offset(e.col, e.row, cols)`",
            "WriteRows writes out[row M + col]": "`tt::offset(e.row, e.col, rows)`",
            "WriteRows' read, as an index": "it reads `in[col * N + row]`",
            "WriteRows' write, as an index": "and writes `out[row * M + col]`",
            "the input element of thread (x, y)": "reads input element (32 by + y, 32 bx + x)",
            "the output element of thread (x, y)": "writes output element (32 bx + y, 32 by + x)",
            "the padded slot, 33 r + c": "element (r, c) is word \\f$ 33 r + c \\f$",
            "the padded slot, 33 (y + j) + x": "word \\f$ 33 (y + j) + x \\f$",
            "the padded slot, r (TILE + 1) + c": "returns \\f$ r \\, (\\text{TILE} + 1) + c \\f$",
            "a padded slot worked out, 33 x 19 + 5 =": "word 33 x 19 + 5 = 632",
            "the register array, T v[W::kLoadPasses]": "first `T v[W::kLoadPasses];`, then",
            "a load into the register array, v[p] = in[...]": "each pass: `v[p] = in[m.global]`",
            "the register array into the tile, tile[m.slot] = v[p]": "then `tile[m.slot] = v[p]`",
            "a load's slot k": "slot k is `tile_slot(r, c + k)`",
            "a store's slot k": "slot k is `tile_slot(c + k, r)`",
            "the XOR key, (r / group) mod": "XOR `(r / group) mod (width / chunk)`",
            "the chunk XORed, (c / chunk) ^": "`((c / chunk) ^ key) * chunk`",
            "chunk XOR row group": "| chunk XOR row group | V | V |",
            "column order, x = b / gy": "`x = b / gy`",
            "column order, (b / gy, b mod gy)": "tile (b / gy, b % gy)",
            "column order, (b mod gy, b / gy)": "tile (b mod gy, b / gy)",
            "column order in plain CUDA": "const int r0 = blockIdx.x % gy * 64;",
            "column order, x = ⌊b / g_y⌋": "*Column order*, \\f$ x = \\lfloor b / g_y \\rfloor \\f$",
        }
        check(set(samples) == {w for _, _, w in FORMS}, "every form has a sample to plant")
        for ex, pattern, what in FORMS:
            with open(target, "w") as f:
                f.write(original + "\n" + samples.get(what, "") + "\n")
            planted = [h for h in search(copy, {}, "docs/lab-student.md")
                       if h[2].startswith(what + ":")]
            check(planted, f"{ex}: '{samples.get(what)}' planted into the handout is not found "
                           f"by the form '{what}'")
        with open(target, "w") as f:
            f.write(original)
        check(not search(copy, found, "docs/lab-student.md"), "the handout, restored, shows an answer")

    n = sum(len(lines) for lines, _ in found.values())
    print(f"{n} lines of the model answers and {len(FORMS)} forms looked for in the package")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
