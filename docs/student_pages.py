#!/usr/bin/env python3
"""Writes the pages of the student's edition: each page as it is, but for its source listings
and diffs (`<!-- listing: FILE | ... -->` and `<!-- diff: OLD NEW | ... -->` blocks,
scripts/doc_outputs.py), which are drawn again from the steps as the student receives them,
each exercise's region holding its stub (lab/student_tree.cmake). A block of a file the
student does not receive (a step's plain CUDA file, which restates the exercises' answers in
plain CUDA) becomes a line saying that the instructor's edition shows it. In the student's
package (scripts/student_package.py), whose pages are written here and whose steps lack those
files, such a block is already that line, and stays so; a link to such a file keeps only its
text. The pages keep their places relative to the project's root, so that their links to each
other still hold.

Usage: docs/student_pages.py PROJECT_ROOT STUDENT_STEPS OUT_DIR PAGE...
Exit status: 0 written, 1 a block's file or pattern is found neither in STUDENT_STEPS nor in
the project's steps/.
"""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "doc_outputs", os.path.join(HERE, "..", "scripts", "doc_outputs.py"))
doc_outputs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(doc_outputs)


# A Markdown link to a step's plain CUDA file, which the student does not receive.
WITHHELD_LINK = re.compile(r"\[([^\]]+)\]\((?:\.\./)*steps/[^/)]+/plain\.cu\)")


def note(kind, path):
    """What a block of a file the student does not receive shows instead."""
    return (f"*This {kind} shows `steps/{path}`, a step in plain CUDA, which restates the "
            f"exercises' answers: the instructor's edition has it.*\n")


def main(argv):
    if len(argv) < 4:
        print(__doc__.split("\n\n")[-1].strip(), file=sys.stderr)
        return 2
    root, steps, out, pages = argv[0], argv[1], argv[2], argv[3:]
    failed = []

    def render(m):
        kind, spec = m.group(1), m.group(2)
        if kind not in ("listing", "diff"):
            return m.group(0)
        files = spec.split(" | ")[0].split()
        missing = [f for f in files if not os.path.exists(os.path.join(steps, f))]
        withheld = [f for f in missing if os.path.exists(os.path.join(root, "steps", f))
                    or m.group(3) == note(kind, f)]
        if withheld:
            return f"<!-- {kind}: {spec} -->\n{note(kind, withheld[0])}<!-- end -->\n"
        try:
            make = doc_outputs.listing_block if kind == "listing" else doc_outputs.diff_block
            body = make(steps, spec)
        except RuntimeError as e:
            failed.append(f"{page}: {e}")
            return m.group(0)
        return f"<!-- {kind}: {spec} -->\n{body}<!-- end -->\n"

    for page in pages:
        with open(page) as f:
            text = doc_outputs.BLOCK.sub(render, f.read())
        # A link to a file the student does not receive keeps its text, not its target.
        text = WITHHELD_LINK.sub(r"\1", text)
        target = os.path.join(out, os.path.relpath(os.path.abspath(page), os.path.abspath(root)))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            f.write(text)
    for f in failed:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
