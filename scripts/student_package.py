#!/usr/bin/env python3
"""Writes the student's package: the course as the students receive it for the lab, with no
model answer in any file of it.

It is every file git tracks, as the working tree has it, with these changes:

- every exercise's file (steps/<id>/, the one with its `// LAB BEGIN <id>` regions) holds the
  exercise's stubs, lab/start/<id>.txt, and every step's plain CUDA file (steps/*/plain.cu)
  is left out (lab/student_tree.cmake): a later step's plain file restates in plain CUDA the
  answers it is built on (the padded tile, the swizzle, the column order);
- the pages (README.md, docs/**/*.md) are the student's edition's: each `\\if instructor`
  section is cut out, its `\\else` part kept, and the source listings are drawn again from the
  stubbed steps (docs/student_pages.py);
- left out: the instructor's guide, docs/lab.md (the model answers' table, the proof); the
  course's tests, tests/ (they test the model answers, and fail on the stubs; the lab's proof
  sets there are wrong submissions, each one line from an answer); CI, .ci/ (it runs those);
  and the scripts of EXCLUDED_SCRIPTS (each says why);
- added: lab/student-package.txt, which says what the package is; CMake reads it and then
  registers none of the tests of the model answers (TT_LAB_PACKAGE, lab/lab.cmake);
- unless --no-site, the student's edition of the site, built from the package itself (target
  docs-student, which needs the toolchain the course needs), in site/ (open
  site/html/index.html).

A student builds the lab from it as docs/lab-student.md says. tests/test_student_package.py
writes a package and searches every file of it for every model answer.

Usage: scripts/student_package.py OUT [--tar] [--no-site] [--cuda-arch ARCH]
  OUT          the package's folder (replaced if it is an earlier package, else must not exist)
  --tar        also write OUT.tar.gz, the package in one file
  --no-site    leave out the built site (the pages are in docs/ all the same)
  --cuda-arch  the architecture the site's build is configured for (default 90; the site
               compiles no CUDA, but configuring the project needs one)
Exit status: 0 written, 1 a step failed (its output shown), 2 bad usage.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MARKER = "lab/student-package.txt"

# Tracked paths (a folder ends in /) the package leaves out, and why.
EXCLUDED = {
    "docs/lab.md": "the instructor's guide: the model answers' table and the grader's proof",
    "tests/": "the course's tests test the model answers (on the stubs they fail), and the "
              "lab's proof sets in tests/lab/ are wrong submissions a line away from an answer",
    ".ci/": "CI: it runs the course's tests and the lab's proof sets",
}
# Scripts that restate an answer, or that work only on what is left out.
EXCLUDED_SCRIPTS = {
    "scripts/plain_check.py": "checks the steps' plain CUDA files, left out",
    "scripts/pack-lab-proofs.sh": "builds the proof sets of tests/lab/, left out",
    "scripts/lab_proofs.py": "grades the proof sets of tests/lab/, left out",
    "scripts/gpu-check.sh": "the instructor's GPU check: runs the course's tests and the proof",
    "scripts/gpu_check_schedule.py": "the GPU check's schedule",
    "scripts/gpu_check_predict.py": "predicts the GPU check's time from its schedule",
    "scripts/gpu-check-summary.py": "the GPU check's summary",
    "scripts/make_diagrams.py": "draws the course's pictures from the answers (the column order)",
    "scripts/student_package.py": "this script: it needs the model answers",
}
EXCLUDED.update(EXCLUDED_SCRIPTS)
PLAIN = re.compile(r"^steps/[^/]+/plain\.cu$")
# The GPU checks' raw logs: --explain of every step prints each access's index expression.
LOGS = re.compile(r"^docs/results/(.*/)?logs/")

MARKER_TEXT = """\
The transpose course as the students receive it for the lab (docs/lab-student.md): each
exercise's file in steps/ holds the exercise's stubs, where the course holds its model answer.

Start with docs/lab-student.md, or with the student's edition of the site (site/html/index.html
when the package has it, else `cmake --build build-lab --target docs-student`). The programs
of an ordinary build (README.md) run the stubs until you write your answers; the lab build
(-DTT_LAB=ON) builds them from your work folder, lab/work/.

Left out of this package:
"""


def run(cmd, **kw):
    """Runs @p cmd; on failure prints its output and exits 1."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode != 0:
        print(p.stdout, file=sys.stderr)
        sys.exit(f"student_package: failed ({p.returncode}): {' '.join(cmd)}")
    return p.stdout


def excluded(path):
    """Why the package leaves @p path out, or None."""
    if PLAIN.match(path):
        return "a step's kernel in plain CUDA, which restates the exercises' answers"
    if LOGS.match(path):
        return ("the GPU checks' raw logs, of the model answers: --explain prints each "
                "access's index expression")
    for prefix, why in EXCLUDED.items():
        if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
            return why
    return None


def strip_instructor(text, name):
    """@p text without its `\\if instructor` sections; an `\\else` part is kept."""
    out, state = [], None  # None: outside; "if": in the instructor's part; "else": its else
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        word = line.strip()
        if word == "\\if instructor":
            if state is not None:
                sys.exit(f"student_package: {name}:{n}: an '\\if instructor' inside another")
            state = "if"
        elif state is not None and word == "\\else":
            state = "else"
        elif state is not None and word == "\\endif":
            state = None
        elif state is not None and word.startswith("\\if"):
            sys.exit(f"student_package: {name}:{n}: a nested '{word}' in an instructor section")
        elif state != "if":
            out.append(line)
    if state is not None:
        sys.exit(f"student_package: {name}: an '\\if instructor' without its '\\endif'")
    return "".join(out)


def tracked_files():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    return [f for f in out.split("\0") if f and os.path.isfile(os.path.join(ROOT, f))]


def make(out, site, arch):
    files = tracked_files()
    if not files:
        sys.exit("student_package: git lists no files: run it in the course's repository")
    left_out = {}
    with tempfile.TemporaryDirectory(prefix="student-package-") as tmp:
        # The steps as the student receives them: the exercises' regions hold their stubs.
        steps = os.path.join(tmp, "steps")
        run(["cmake", f"-DSOURCE={ROOT}", f"-DOUT={steps}", "-P",
             os.path.join(ROOT, "lab", "student_tree.cmake")])
        # The pages of the student's edition, their listings drawn from those steps.
        pages = [f for f in files if f.endswith(".md") and not excluded(f)
                 and (f == "README.md" or f.startswith("docs/"))]
        drawn = os.path.join(tmp, "pages")
        run([sys.executable, os.path.join(ROOT, "docs", "student_pages.py"), ROOT, steps,
             drawn] + [os.path.join(ROOT, p) for p in pages])

        os.makedirs(out)
        for f in files:
            why = excluded(f)
            if why:
                left_out.setdefault(why, []).append(f)
                continue
            src = os.path.join(ROOT, f)
            if f.startswith("steps/"):
                src = os.path.join(steps, f[len("steps/"):])
            elif f in pages:
                src = os.path.join(drawn, f)
            dst = os.path.join(out, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if f in pages:
                with open(src) as fin, open(dst, "w") as fout:
                    fout.write(strip_instructor(fin.read(), f))
            else:
                shutil.copy2(src, dst)
    with open(os.path.join(out, MARKER), "w") as f:
        f.write(MARKER_TEXT)
        for why, paths in sorted(left_out.items(), key=lambda kv: kv[1][0]):
            shown = paths if len(paths) <= 3 else paths[:2] + [f"... ({len(paths)} files)"]
            f.write(f"- {', '.join(shown)}: {why}.\n")
    if site:
        build_site(out, arch)


def build_site(out, arch):
    """The student's edition of the site, built from the package itself into OUT/site/."""
    with tempfile.TemporaryDirectory(prefix="student-site-") as build:
        run(["cmake", "-S", out, "-B", build, f"-DCMAKE_CUDA_ARCHITECTURES={arch}",
             "-DBUILD_TESTING=OFF"])
        run(["cmake", "--build", build, "--target", "docs-student"])
        student = os.path.join(build, "docs", "student")
        for part in ("html", "steps", "common"):  # the pages link to ../steps, ../common
            shutil.copytree(os.path.join(student, part), os.path.join(out, "site", part))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--tar", action="store_true")
    ap.add_argument("--no-site", action="store_true")
    ap.add_argument("--cuda-arch", default="90")
    args = ap.parse_args(argv)
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        if not os.path.isfile(os.path.join(out, MARKER)):
            print(f"student_package: {args.out} exists and is not a student package",
                  file=sys.stderr)
            return 2
        shutil.rmtree(out)
    inside = os.path.relpath(out, ROOT)
    if not inside.startswith("..") and not re.match(r"(build[^/]*|out)/", inside):
        # Inside the repository only under a build or out folder, which git ignores.
        print("student_package: write the package outside the repository, or under its "
              "build*/ or out/", file=sys.stderr)
        return 2
    make(out, not args.no_site, args.cuda_arch)
    if args.tar:
        with tarfile.open(out + ".tar.gz", "w:gz") as tar:
            tar.add(out, arcname=os.path.basename(out))
    print(f"student package: {args.out}" + (f" and {args.out}.tar.gz" if args.tar else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
