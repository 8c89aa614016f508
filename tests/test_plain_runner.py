#!/usr/bin/env python3
"""tests/test_plain.py, the runner of the plain files, on fake plain programs (no GPU):
  1. every program runs on every shape exactly once, the large shapes with --large, and the
     runs overlap: the wall time is well under the sum of the runs';
  2. a run that is not exact fails the test and is named;
  3. a plain program may refuse a shape only where its step's program refuses it too;
     programs that find no device (exit 3) make it exit 77, skipped; a program that needs a
     newer GPU (exit 6) is named as skipped, never as exact;
  4. a build without plain programs: exit 2;
  5. the large runs at once stay within the GPU's free memory and PLAIN_LARGE_AT_ONCE.

Usage: test_plain_runner.py PATH/TO/test_plain.py"""
import os
import re
import stat
import subprocess
import sys
import tempfile
import time

runner = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(runner)))
from test_plain import LARGE, SHAPES  # noqa: E402  the runner's own shapes: each runs once

RUNS = len(SHAPES) + len(LARGE)  # a program's runs with --large
failures = []


def check(ok, what, detail=""):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("       " + detail[-3000:])


def fake_build(root, programs, body):
    """ROOT/steps/NAME/NAME-plain for each NAME, a shell script running @p body."""
    for name in programs:
        d = os.path.join(root, "steps", name)
        os.makedirs(d)
        exe = os.path.join(d, f"{name}-plain")
        with open(exe, "w") as f:
            f.write("#!/bin/sh\n" + body.replace("NAME", name))
        os.chmod(exe, stat.S_IRWXU)


def run(build, *args, env=None):
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, runner, build, *args], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})), timeout=300)
    return r, time.monotonic() - t0


EXACT = ('case "$1" in 46349) sleep 1.5;; *) sleep 0.3;; esac\n'
         'echo "NAME-plain: $1 x $2 float: exact, 1.0 GB/s (median of 50 launches)"\n')
names = ["02-a", "03-b", "04-c"]

with tempfile.TemporaryDirectory() as d:
    fake_build(d, names, EXACT)
    r, wall = run(d, "--large", env={"TT_THREADS": "8"})
    runs = re.findall(r"^ok     (\S+) (\d+) x (\d+):", r.stdout, re.M)
    check(r.returncode == 0 and "all exact" in r.stdout, "exact programs pass", r.stdout + r.stderr)
    check(len(runs) == 3 * RUNS and len(set(runs)) == len(runs)
          and ("03-b-plain", "46349", "46349") in runs and ("04-c-plain", "1", "2147483647") in runs,
          f"every program on every shape once, the large ones too ({len(runs)} runs)", r.stdout)
    serial = 3 * ((RUNS - 1) * 0.3 + 1.5)
    check(wall < serial / 2, f"the runs overlap: {wall:.1f} s against {serial:.1f} s one by one",
          r.stdout)
    r, _ = run(d, env={"TT_THREADS": "8"})
    check(r.returncode == 0 and "46349" not in r.stdout, "without --large, no large shape", r.stdout)

with tempfile.TemporaryDirectory() as d:
    # A GPU with 20 GB free holds one large run (17.2 GB and a quarter to spare): one at once.
    fake_build(d, names, EXACT)
    tools = os.path.join(d, "bin")
    os.makedirs(tools)
    with open(os.path.join(tools, "nvidia-smi"), "w") as f:
        f.write("#!/bin/sh\necho 20000\n")
    os.chmod(os.path.join(tools, "nvidia-smi"), stat.S_IRWXU)
    r, _ = run(d, "--large", env={"TT_THREADS": "8", "PATH": tools + os.pathsep + os.environ["PATH"]})
    check(r.returncode == 0 and "and 1 large at once" in r.stdout,
          "the GPU's free memory bounds the large runs at once", r.stdout)

with tempfile.TemporaryDirectory() as d:
    # PLAIN_LARGE_AT_ONCE bounds them too: each large run notes its start and end, and no two
    # of them overlap.
    fake_build(d, names, 'case "$1" in 46349|1) echo "start $(date +%s%N)" >>"' + d +
               '/large-$1-NAME"; sleep 0.5; echo "end $(date +%s%N)" >>"' + d +
               '/large-$1-NAME";; esac\n' + EXACT)
    r, _ = run(d, "--large", env={"TT_THREADS": "8", "PLAIN_LARGE_AT_ONCE": "1"})
    spans = []
    for f in os.listdir(d):
        if f.startswith("large-"):
            marks = dict(line.split() for line in open(os.path.join(d, f)))
            spans.append((int(marks["start"]), int(marks["end"])))
    spans.sort()
    apart = all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    check(r.returncode == 0 and "and 1 large at once" in r.stdout and len(spans) == 6 and apart,
          f"PLAIN_LARGE_AT_ONCE=1: the {len(spans)} large runs one after another", r.stdout)

with tempfile.TemporaryDirectory() as d:
    fake_build(d, names, EXACT.replace(
        'echo "NAME', '[ "NAME$1" = "03-b17" ] && { echo "NAME-plain: WRONG"; exit 1; }\necho "NAME'))
    r, _ = run(d, env={"TT_THREADS": "4"})
    check(r.returncode == 1 and re.search(r"^FAILED 03-b-plain 17 x 83", r.stdout, re.M)
          and "1 failed" in r.stdout, "a run that is not exact fails and is named", r.stdout)

# A plain program that refuses 1 x 2147483647 (exit 2): right where its step's program refuses
# it too, wrong where the step's program takes it.
REFUSES = ('[ "$1" = 1 ] && [ "$2" = 2147483647 ] && { echo "usage: too many blocks" >&2; exit 2; }\n'
           + EXACT)
for step_takes in (False, True):
    with tempfile.TemporaryDirectory() as d:
        fake_build(d, names, REFUSES)
        for name in names:
            with open(os.path.join(d, "steps", name, name), "w") as f:
                f.write("#!/bin/sh\n" + ("exit 0\n" if step_takes else
                                         'echo "NAME: error: too many blocks" >&2\nexit 2\n'))
            os.chmod(os.path.join(d, "steps", name, name), stat.S_IRWXU)
        r, _ = run(d, "--large", env={"TT_THREADS": "8"})
        if step_takes:
            check(r.returncode == 1 and re.search(r"^FAILED 02-a-plain 1 x 2147483647", r.stdout, re.M),
                  "a refusal its step's program does not share fails", r.stdout)
        else:
            check(r.returncode == 0 and "refused, as its step's program does" in r.stdout,
                  "a refusal its step's program shares passes", r.stdout)

with tempfile.TemporaryDirectory() as d:
    fake_build(d, names, 'echo "no CUDA device" >&2\nexit 3\n')
    r, _ = run(d, "--large")
    check(r.returncode == 77 and "skipped" in r.stdout, "no device: skipped (77)", r.stdout)

with tempfile.TemporaryDirectory() as d:
    fake_build(d, names, EXACT.replace(
        'echo "NAME', '[ "NAME" = "03-b" ] && { echo "needs 9.0" >&2; exit 6; }\necho "NAME'))
    r, _ = run(d, env={"TT_THREADS": "8"})
    check(r.returncode == 0 and re.search(r"^skip   03-b-plain 17 x 83: needs 9.0", r.stdout, re.M)
          and not re.search(r"^ok     03-b-plain", r.stdout, re.M) and "all exact" not in r.stdout
          and "03-b-plain need a newer GPU" in r.stdout,
          "a program that needs a newer GPU (exit 6) is skipped and named, not passed", r.stdout)

with tempfile.TemporaryDirectory() as d:
    fake_build(d, names, 'echo "needs 9.0" >&2\nexit 6\n')
    r, _ = run(d)
    check(r.returncode == 77, "every program too new for the GPU: skipped (77)", r.stdout)

with tempfile.TemporaryDirectory() as d:
    r, _ = run(d)
    check(r.returncode == 2, "no plain program: exit 2", r.stdout)

print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
