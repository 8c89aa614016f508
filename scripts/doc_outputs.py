#!/usr/bin/env python3
"""Writes, or checks, the program outputs and machine code that the pages quote, so that a
quoted `--explain` or SASS listing is what the current build prints.

Kinds of block, each between a marker line and `<!-- end -->`:

  <!-- output: PROGRAM ARGS... | LINES -->
      the output of build/.../PROGRAM ARGS (a step, a program of course/ or common/, or a
      script of scripts/ whose name ends in .py), as a
      fenced code block under a first line `$ build/.../PROGRAM ARGS`; LINES picks lines
      (1-based, "1-12, 30-33"; empty: all), and "..." marks what was left out. Only programs
      that need no GPU may be quoted this way (--explain, --list, --help).

  <!-- sass: PROGRAM KERNEL | OPCODES -->
      the SASS instructions of KERNEL (its name as scripts/sass_check.py normalises it, e.g.
      transpose_multi<Multi<8,float>>) in PROGRAM, built for sm_90, whose opcode starts with
      one of OPCODES (default: LDG STS LDS STG BAR), in program order, with their predicates.
      Needs cuobjdump (scripts/sass_check.py says where it is found); without it these blocks
      are reported as unchecked, not passed.

  <!-- sasscheck: PROGRAM [COLUMN=VALUE ...] -->
      the rows of scripts/sass_check.py's table for PROGRAM (loads in flight, occupancy,
      bytes in flight a thread and an SM) whose columns have the given values (e.g.
      type=float shape=8192 x 8192, written with underscores for spaces), as a Markdown
      table. Needs cuobjdump too.

  <!-- listing: FILE | COMMAND PATTERN | ... -->
      lines of steps/FILE as a fenced C++ block, picked as Doxygen's \\dontinclude picks them:
      `skip P` moves to the next line holding P, `until P` shows the lines from there to the
      next one holding P, `line P` shows the next line holding P, `skipline P` both moves
      there and shows it; "// ..." marks lines left out between two shown. Every pattern must
      be found, in order. So a chapter shows its code wherever it is read, Markdown included,
      and the block fails the check when the source moves on.

  <!-- diff: OLD NEW | COMMAND PATTERN | ... -->
      what changed from steps/OLD to steps/NEW, as a fenced unified diff (two lines of
      context): whole files, or the lines the same commands pick from each (as `listing`
      picks them). So a chapter's *What changed* is the code's own diff against the step
      before, and fails the check when either file moves on.

  <!-- figure: PROGRAM ARGS... | FILE | CAPTION -->
      a picture a program draws (an SVG on its standard output: a step's
      `--explain --format svg`, or a script of scripts/ such as
      `make_diagrams.py --print warp-sectors.svg`): the block is the Markdown image line `![CAPTION](FILE)`, and
      FILE (relative to the page) holds what the program prints now. The check fails when
      the file is missing or differs, so a chapter's picture follows the code it draws.

It also checks any remaining Doxygen listing (`\\dontinclude FILE` followed by the same
commands) in the same way; Doxygen itself prints what follows silently when one is not.

Usage: scripts/doc_outputs.py [--check] BUILD_DIR PAGE.md ...
Exit status: 0 all written or current, 1 a block is out of date (with --check) or its command
failed, 2 bad usage.
"""
import argparse
import difflib
import importlib.util
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("sass_check", os.path.join(HERE, "sass_check.py"))
sass_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sass_check)

BLOCK = re.compile(r"^<!-- (output|sass|sasscheck|listing|diff|figure): (.*?) -->\n(.*?)^<!-- end -->\n",
                   re.M | re.S)
FENCE = "```\n"  # a fenced block: Doxygen reads it verbatim (no @ or \\ commands inside)


def program_path(build, name):
    for path in (os.path.join(build, "steps", name, name), os.path.join(build, "course", name),
                 os.path.join(build, "common", name)):
        if os.access(path, os.X_OK):
            return path
    raise RuntimeError(f"no program {name} in {build}")


def shown_path(build, path):
    """The path as a student types it: build/ + the part below the build folder."""
    return "build/" + os.path.relpath(path, build)


def pick(lines, spec):
    """The lines @p spec names ("1-12, 30"), with "..." where lines were left out."""
    if not spec.strip():
        return lines
    out, last = [], 0
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        lo, hi = int(lo), int(hi or lo)
        if lo > last + 1:
            out.append("...")
        out += lines[lo - 1:hi]
        last = hi
    if last < len(lines):
        out.append("...")
    return out


def run_program(build, words):
    """(path, standard output) of program words[0] (a program of the build, or a script of
    scripts/ such as make_diagrams.py) run with words[1:]; RuntimeError when it fails."""
    if words[0].endswith(".py"):
        path = os.path.join(HERE, words[0])
        if not os.path.exists(path):
            raise RuntimeError(f"no script {words[0]} in scripts/")
        command = [sys.executable, path]
    else:
        path = program_path(build, words[0])
        command = [path]
    r = subprocess.run(command + words[1:], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(words)} exited {r.returncode}: {r.stderr.strip()}")
    return path, r.stdout


def output_block(build, spec):
    command, _, lines = spec.partition("|")
    words = command.split()
    path, printed = run_program(build, words)
    shown = f"scripts/{words[0]}" if words[0].endswith(".py") else shown_path(build, path)
    body = ["$ " + " ".join([shown] + words[1:])]
    body += pick(printed.rstrip("\n").split("\n"), lines)
    return FENCE + "".join(l + "\n" for l in body) + FENCE


_sass_cache = {}


def sass_block(build, spec, cuobjdump):
    head, _, opcodes = spec.partition("|")
    program, kernel = head.split(None, 1)
    wanted = tuple(opcodes.split()) or ("LDG", "STS", "LDS", "STG", "BAR")
    path = program_path(build, program)
    if path not in _sass_cache:
        functions = sass_check.sass_listing(cuobjdump, path, "sm_90")
        names = sass_check.demangle(list(functions))
        _sass_cache[path] = {sass_check.normalise(names[k]): v for k, v in functions.items()}
    code = _sass_cache[path].get(sass_check.normalise(kernel))
    if code is None:
        raise RuntimeError(f"kernel {kernel} not in the sm_90 SASS of {program}")
    body = [ins for ins in code if sass_check.opcode(ins).startswith(wanted)]
    return FENCE + "".join(l + "\n" for l in body) + FENCE


def pick_source(lines, commands):
    """The lines that @p commands ([(command, pattern)], Doxygen's \\dontinclude commands)
    show of @p lines, with "// ..." where lines are left out between two shown; ValueError
    naming the first pattern not found."""
    shown, cursor, last = [], 0, None
    for cmd, arg in commands:
        start = cursor + (1 if cmd in ("line", "skipline") and cursor else 0)
        found = next((i for i in range(start, len(lines)) if arg in lines[i]), None)
        if found is None:
            raise ValueError(f"{cmd} {arg}: not found after line {cursor + 1}")
        if cmd == "until":
            span = range(cursor, found + 1)
        elif cmd in ("line", "skipline"):
            span = range(found, found + 1)
        else:
            span = range(0)
        for i in span:
            if last is not None and i > last + 1:
                shown.append("// ...")
            shown.append(lines[i])
            last = i
        cursor = found + (1 if cmd in ("until", "line", "skipline") else 0)
    return shown


def figure_block(build, spec, page, write):
    """The image line of a figure block; the picture written (or compared, when not @p write)
    next to @p page. Returns (block, whether the picture on disk was current)."""
    parts = [w.strip() for w in spec.split(" | ")]
    if len(parts) != 3 or not parts[0] or not parts[1] or not parts[2]:
        raise RuntimeError("expected PROGRAM ARGS... | FILE | CAPTION")
    command, name, caption = parts
    _, drawn = run_program(build, command.split())
    if not drawn.strip():
        raise RuntimeError(f"{command} drew nothing")
    target = os.path.join(os.path.dirname(os.path.abspath(page)), name)
    try:
        current = open(target).read() == drawn
    except OSError:
        current = False
    if write and not current:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            f.write(drawn)
    return f"![{caption}]({name})\n", current


def source_lines(root, name, commands):
    """The lines of steps/NAME that COMMANDS pick (all of them without commands)."""
    path = os.path.join(root, name)
    if not os.path.exists(path):
        raise RuntimeError(f"no file {name} under steps/")
    lines = open(path).read().splitlines()
    try:
        return pick_source(lines, commands) if commands else lines
    except ValueError as e:
        raise RuntimeError(f"{name}: {e}") from None


def parse_commands(parts, usage):
    commands = [tuple(p.split(None, 1)) for p in parts]
    if any(len(c) != 2 or c[0] not in ("skip", "until", "line", "skipline") for c in commands):
        raise RuntimeError(f"expected {usage} (skip, until, line, skipline)")
    return commands


def listing_block(root, spec):
    name, *parts = [w.strip() for w in spec.split(" | ")]
    commands = parse_commands(parts, "FILE | COMMAND PATTERN | ...")
    if not commands:
        raise RuntimeError("expected FILE | COMMAND PATTERN | ... (skip, until, line, skipline)")
    return "```cpp\n" + "".join(l + "\n" for l in source_lines(root, name, commands)) + "```\n"


def diff_block(root, spec):
    names, *parts = [w.strip() for w in spec.split(" | ")]
    if len(names.split()) != 2:
        raise RuntimeError("expected OLD NEW | COMMAND PATTERN | ...")
    old, new = names.split()
    commands = parse_commands(parts, "OLD NEW | COMMAND PATTERN | ...")
    diff = list(difflib.unified_diff(source_lines(root, old, commands),
                                     source_lines(root, new, commands), old, new, n=2,
                                     lineterm=""))
    if not diff:
        raise RuntimeError(f"{old} and {new} do not differ")
    return "```diff\n" + "".join(l + "\n" for l in diff) + "```\n"


def check_listings(page, text, root):
    """Problems with the \\dontinclude listings of @p text (files under @p root)."""
    groups = []  # [file name, [(command, pattern)]]
    for raw in text.splitlines():
        m = re.match(r"\\(dontinclude|skip|until|line|skipline)\s+(.*)$", raw.strip())
        if m and m.group(1) == "dontinclude":
            groups.append([m.group(2).strip(), []])
        elif m and groups:
            groups[-1][1].append((m.group(1), m.group(2).strip()))
    problems = []
    for name, commands in groups:
        path = os.path.join(root, name)
        if not os.path.exists(path):
            problems.append(f"{page}: \\dontinclude {name}: no such file under steps/")
            continue
        try:
            pick_source(open(path).read().splitlines(), commands)
        except ValueError as e:
            problems.append(f"{page}: \\{e} in {name}")
    return problems


def sasscheck_block(build, spec):
    words = spec.split()
    program, filters = words[0], [w.split("=", 1) for w in words[1:]]
    r = subprocess.run([sys.executable, os.path.join(HERE, "sass_check.py"), build, "--only",
                        program], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"sass_check.py --only {program} exited {r.returncode}")
    table = [l for l in r.stdout.splitlines() if l.startswith("|")]
    head, rule, rows = table[0], table[1], table[2:]
    names = [c.strip() for c in head.strip("|").split("|")]
    keep = [head, rule]
    for row in rows:
        cells = dict(zip(names, (c.strip() for c in row.strip("|").split("|"))))
        if all(cells.get(k) == v.replace("_", " ") for k, v in filters):
            keep.append(row)
    return "".join(l + "\n" for l in keep)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="fail on a block that is out of date")
    ap.add_argument("build")
    ap.add_argument("pages", nargs="+")
    a = ap.parse_args()
    cuobjdump = sass_check.find_cuobjdump(None)
    if cuobjdump and not sass_check.disassembler_works(cuobjdump):
        cuobjdump = None  # it cannot print SASS without nvdisasm: those blocks stay unchecked
    stale, failed, unchecked, blocks = [], [], 0, 0
    for page in a.pages:
        text = open(page).read()

        def render(m):
            nonlocal unchecked, blocks
            kind, spec, old = m.group(1), m.group(2), m.group(3)
            blocks += 1
            try:
                if kind in ("sass", "sasscheck") and not cuobjdump:
                    unchecked += 1
                    return m.group(0)
                if kind == "output":
                    new = output_block(a.build, spec)
                elif kind == "listing":
                    new = listing_block(os.path.join(os.path.dirname(HERE), "steps"), spec)
                elif kind == "diff":
                    new = diff_block(os.path.join(os.path.dirname(HERE), "steps"), spec)
                elif kind == "figure":
                    new, current = figure_block(a.build, spec, page, not a.check)
                    if not current:
                        stale.append(f"{page}: {kind}: {spec} (the picture)")
                elif kind == "sass":
                    new = sass_block(a.build, spec, cuobjdump)
                else:
                    new = sasscheck_block(a.build, spec)
            except RuntimeError as e:
                failed.append(f"{page}: {kind}: {spec}: {e}")
                return m.group(0)
            if new != old:
                stale.append(f"{page}: {kind}: {spec}")
            return f"<!-- {kind}: {spec} -->\n{new}<!-- end -->\n"

        failed += check_listings(page, text, os.path.join(os.path.dirname(HERE), "steps"))
        new_text = BLOCK.sub(render, text)
        if not a.check and new_text != text:
            with open(page, "w") as f:
                f.write(new_text)
    for f in failed:
        print("FAIL:", f)
    if a.check:
        for s in stale:
            print("out of date:", s)
        if stale:
            print("rewrite them with: scripts/doc_outputs.py BUILD_DIR README.md docs/*.md")
    print(f"{blocks} block(s); {len(stale)} out of date; {unchecked} SASS block(s) unchecked "
          f"(no cuobjdump)" if a.check else f"{blocks} block(s) written")
    return 1 if failed or (a.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
