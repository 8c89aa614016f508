#!/usr/bin/env python3
"""Tests of scripts/lab_proofs.py, the grading of the lab's proof sets on a GPU: it reads every
set of tests/lab/sets.cmake, and against a stand-in grader (a shell script that prints the
grade lines a real grader prints) it passes when each GPU part a set names fails, fails when
one passes or the grader prints no grade, and reports a grader without a GPU as skipped.

Usage: test_lab_proofs.py SCRIPT"""
import os
import stat
import subprocess
import sys
import tempfile

script = sys.argv[1]
failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


# Every set of sets.cmake is read, with the exercises its entries name.
r = run("--list", "wrong-c")
check(r.returncode == 0 and r.stdout.split() == ["02-naive", "03-shared", "04-padding",
                                                  "05-multi-element", "08-diagonal"],
      f"wrong-c lists 02, 03, 04, 05 and 08: {r.stdout!r}")
check(run("--list", "no-such-set").returncode == 2, "an unknown set is bad usage")


def packed(tmp, verdicts):
    """PROOFS/wrong-c with a grader that prints @p verdicts (or nothing, when None) for every
    exercise."""
    grader_dir = os.path.join(tmp, "wrong-c", "lab")
    os.makedirs(grader_dir, exist_ok=True)
    grader = os.path.join(grader_dir, "lab-grade")
    with open(grader, "w") as f:
        f.write("#!/bin/sh\n")
        if verdicts is not None:
            f.write(f'echo "grade $2: {verdicts} score=0/4 result=failed"\n')
    os.chmod(grader, os.stat(grader).st_mode | stat.S_IXUSR)
    return tmp


with tempfile.TemporaryDirectory() as tmp:
    check(run(tmp).returncode == 77, "no set packed: skipped (77)")
    # wrong-c names gpu-exact for 05 and 08 only: every other GPU verdict is reported, not
    # judged.
    r = run(packed(tmp, "gpu-exact=failed gpu-speed=passed gpu-sanitizer=failed"))
    check(r.returncode == 0, f"the named GPU part fails: passes: {r.stdout}")
    rows = [l for l in r.stdout.splitlines() if l.startswith("| wrong-c |")]
    check(len(rows) == 2 and "05-multi-element" in rows[0] and "08-diagonal" in rows[1],
          f"only the submissions with a named GPU part are graded by default: {rows}")
    r = run(tmp, "--every-part")
    rows = [l for l in r.stdout.splitlines() if l.startswith("| wrong-c |")]
    check(r.returncode == 0 and len(rows) == 5, f"--every-part grades all five: {rows}")
    r = run(packed(tmp, "gpu-exact=passed gpu-speed=passed gpu-sanitizer=passed"), "--markdown",
            os.path.join(tmp, "t.md"))
    check(r.returncode == 1 and "05-multi-element" in r.stdout and "gpu-exact is passed" in r.stdout,
          f"a named GPU part that passes fails the proof: {r.stdout}")
    check(os.path.isfile(os.path.join(tmp, "t.md")), "the table is written with --markdown")
    r = run(packed(tmp, None))
    check(r.returncode == 1 and "no grade" in r.stdout, f"a grader with no grade fails: {r.stdout}")
    r = run(packed(tmp, "gpu-exact=skipped gpu-speed=skipped gpu-sanitizer=skipped"))
    check(r.returncode == 77, f"graders without a GPU: skipped (77), not passed: {r.returncode}")

print(f"{len(failed)} failure(s)" if failed else "all passed")
sys.exit(1 if failed else 0)
