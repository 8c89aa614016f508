#!/usr/bin/env python3
"""The GPU check's schedule (scripts/gpu_check_schedule.py) and its front (scripts/gpu-check.sh)
on this machine, with parts that only pretend: each fake part sleeps, fails, hangs or skips as
its name says, and writes down where and when it ran. What must hold:
  - every part runs exactly once, and two parts never share a GPU at the same time;
  - the parts of two profiling tools never run at the same time, nor two parts that map much
    host memory, nor a sanitizer part and one that times or counts; the prediction from the estimates runs this schedule;
  - a part that needs no GPU gets none (CUDA_VISIBLE_DEVICES empty), and waits for nothing;
  - a part waits for the parts it comes after; the longest path goes first;
  - a failure anywhere fails the check, and the other parts still run;
  - a part past its time limit is stopped, with its children, and fails with a message saying
    so; at the check's deadline what still runs is stopped and what has not started is "not
    run", a failure;
  - the summary names every part, its GPU and its time, the wall time, and the verdict;
  - gpu-check.sh refuses GPUs of different kinds and an unknown part; RESUME=1 runs what an
    earlier run's deadline left undone, once, into the same folder, and joins the chunks; the
    joiner of chunk summaries (scripts/gpu-check-summary.py) finds a part no chunk ran and
    does not let a second run hide a failure, and the parts' table is complete (every part
    that gpu-check.sh defines is scheduled, and no other).

Usage: test_gpu_check_schedule.py SCRIPTS_DIR"""
import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import time

scripts = sys.argv[1]
schedule = os.path.join(scripts, "gpu_check_schedule.py")
failed = []


def check(ok, what, detail=""):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failed.append(what)
        if detail:
            print("       " + detail.replace("\n", "\n       ")[:3000])


# The fake part: "NAME" behaves as its words say: sleep-S (sleep S seconds), fail, hang (and
# a child that hangs too), skip. It appends "name gpu start end pid" to the journal, writes
# its result line as a real part does, its TT_THREADS and niceness to OUT/NAME.env, and in
# hang mode leaves its child's pid behind.
FAKE = r'''#!/usr/bin/env python3
import os, subprocess, sys, time
journal, out, name = sys.argv[1], sys.argv[2], sys.argv[3]
gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "unset") or "none"
start = time.time()
words = name.split("_")
rc = 0
if "hang" in words:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(os.path.join(out, name + ".child"), "w") as f:
        f.write(str(child.pid))
    time.sleep(600)
for w in words:
    if w.startswith("sleep-"):
        time.sleep(float(w[6:]))
if "fail" in words:
    rc = 1
if "skip" in words:
    rc = 77
with open(journal, "a") as f:
    f.write(f"{name} {gpu} {start:.3f} {time.time():.3f} {os.getpid()}\n")
with open(os.path.join(out, name + ".env"), "w") as f:  # its share of threads, its priority
    f.write(f"{os.environ.get('TT_THREADS', 'unset')} {os.nice(0)}\n")
os.makedirs(os.path.join(out, "parts"), exist_ok=True)
with open(os.path.join(out, "parts", name + ".txt"), "w") as f:
    f.write({0: "ok   ", 1: "FAIL ", 77: "skip "}[rc] + f" {name} [1 s]\n")
sys.exit(rc)
'''


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has ended; it waits only for its parent to read its status.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


with tempfile.TemporaryDirectory() as d:
    fake = os.path.join(d, "fake_part.py")
    with open(fake, "w") as f:
        f.write(FAKE)

    def run(table, gpus="0,1,2", extra=(), parts=""):
        out = tempfile.mkdtemp(dir=d)
        journal = os.path.join(out, "journal")
        tpath = os.path.join(out, "table.json")
        with open(tpath, "w") as f:
            json.dump([dict(name=n, gpu=g, estimate=e, after=list(a), limit=l,
                            shares=bool(more and more[0]),
                            tool=more[1] if len(more) > 1 else "",
                            memory=bool(len(more) > 2 and more[2]),
                            every=bool(len(more) > 3 and more[3]))
                       for n, g, e, a, l, *more in table], f)
        t0 = time.time()
        try:
            r = subprocess.run([sys.executable, schedule, "--out", out, "--gpus", gpus,
                                "--table", tpath, "--parts", parts, *extra, "--",
                                sys.executable, fake, journal, out],
                               capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired as e:  # the schedule hung: a failure, said below
            r = subprocess.CompletedProcess(e.cmd, None, str(e.stdout), str(e.stderr))
        took = time.time() - t0
        rows = []
        if os.path.exists(journal):
            for line in open(journal):
                n, g, s, e, pid = line.split()
                rows.append((n, g, float(s), float(e), int(pid)))
        text = open(os.path.join(out, "gpu-check.txt")).read() \
            if os.path.exists(os.path.join(out, "gpu-check.txt")) else ""
        return r, rows, text, out, took

    # 1. Six GPU parts and two without, on three GPUs: each once, never two on a GPU at once.
    table = [("a_sleep-0.6", True, 60, (), 30), ("b_sleep-0.2", True, 20, (), 30),
             ("c_sleep-0.4", True, 40, (), 30), ("d_sleep-0.3", True, 30, (), 30),
             ("e_sleep-0.5", True, 50, (), 30), ("f_sleep-0.1", True, 10, (), 30),
             ("cpu1_sleep-0.3", False, 30, (), 30), ("cpu2_sleep-0.3", False, 30, (), 30)]
    r, rows, text, out, _ = run(table)
    names = [n for n, *_ in rows]
    check(r.returncode == 0, "a check whose parts all pass exits 0", r.stderr + r.stdout)
    check(sorted(names) == sorted(n for n, *_ in table), "every part runs exactly once",
          str(names))
    overlap = [(x[0], y[0]) for x in rows for y in rows if x is not y and x[1] == y[1]
               and x[1] != "none" and x[2] < y[3] - 0.02 and y[2] < x[3] - 0.02]
    check(not overlap, "no two parts share a GPU at the same time", str(overlap))
    check({g for n, g, *_ in rows if n.startswith("cpu")} == {"none"}
          and all(g in ("0", "1", "2") for n, g, *_ in rows if not n.startswith("cpu")),
          "a part that needs no GPU sees none; the others see one GPU of the list",
          str(rows))
    shares = {n: open(os.path.join(out, n + ".env")).read().split() for n, *_ in rows}
    share = str(max(1, (os.cpu_count() or 2) // (3 + 2)))  # 3 GPUs, 2 slots without
    mine = os.nice(0)
    check(all(t == share for t, _ in shares.values())
          and all(int(nice) == mine + (10 if n.startswith("cpu") else 0)
                  for n, (_, nice) in shares.items()),
          f"each part gets TT_THREADS={share}, a share of the cores, and the parts without a "
          f"GPU run at nice 10", str(shares))
    first = sorted(rows, key=lambda x: x[2])
    gpu_first = [n for n, g, *_ in first if g != "none"][:3]
    check(sorted(gpu_first) == ["a_sleep-0.6", "c_sleep-0.4", "e_sleep-0.5"],
          "the longest parts start first", str(gpu_first))
    for n, *_ in table:
        m = re.search(rf"^part  {re.escape(n)}: ok on (GPU \d|no GPU), \d+ s, from \+\d+ s to "
                      rf"\+\d+ s$", text, re.M)
        check(m is not None, f"the summary says where {n} ran and for how long", text)
    check(re.search(r"^wall:\s+\d+ s$", text, re.M) is not None
          and re.search(r"^gpus:\s+3 \(0 1 2\)$", text, re.M) is not None
          and re.search(r"^busy:\s+\d+ s of parts on the GPUs, \d+ s of parts with none$", text,
                        re.M) is not None
          and re.search(r"^host:\s+\d+ CPUs, 1-minute load average up to \d+\.\d", text,
                        re.M) is not None
          and "verdict: every part ran, none failed" in text,
          "the summary gives the wall time, the GPUs, the host's load and the verdict", text)
    check(text.count("  ok    ") == len(table), "the summary holds each part's own lines", text)
    check(os.path.exists(os.path.join(out, "gpu-check.log"))
          and all(f"===== part {n}: ok" in open(os.path.join(out, "gpu-check.log")).read()
                  for n, *_ in table), "the log holds every part's log")

    # 2. Order: a part after another starts after it ends, even when it is the longest.
    table = [("x_sleep-0.4", True, 10, (), 30), ("y_sleep-0.1", True, 100, ("x_sleep-0.4",), 30),
             ("z_sleep-0.1", True, 5, (), 30), ("w_sleep-0.1", False, 5, ("z_sleep-0.1",), 30)]
    r, rows, text, _, _ = run(table, gpus="0,1")
    when = {n: (s, e) for n, _, s, e, _ in rows}
    check(r.returncode == 0 and when["y_sleep-0.1"][0] >= when["x_sleep-0.4"][1] - 0.01
          and when["w_sleep-0.1"][0] >= when["z_sleep-0.1"][1] - 0.01,
          "a part waits for the parts it comes after", str(when))
    # x comes before y (100 s): its path is the longest, so x goes first on one GPU.
    r, rows, text, _, _ = run(table, gpus="0")
    check([n for n, g, *_ in sorted(rows, key=lambda x: x[2]) if g != "none"][0] == "x_sleep-0.4",
          "the part with the longest path after it goes first", str(rows))
    # y alone: what it comes after is not in this run, so it does not wait.
    r, rows, text, _, _ = run(table, gpus="0", parts="y_sleep-0.1")
    check(r.returncode == 0 and [n for n, *_ in rows] == ["y_sleep-0.1"],
          "PARTS picks parts; a part whose predecessor is not picked runs at once", str(rows))

    # 2b. Two profiling tools never at once: the "ncu" parts (the longest first) and the
    # "san" parts on four GPUs, with a part of neither beside them.
    table = [("n1_sleep-0.5", True, 50, (), 30, False, "ncu"),
             ("n2_sleep-0.3", True, 30, (), 30, False, "ncu"),
             ("s1_sleep-0.3", True, 20, (), 30, True, "san"),
             ("s2_sleep-0.3", True, 20, (), 30, True, "san"),
             ("o_sleep-0.4", True, 10, (), 30)]
    r, rows, text, _, _ = run(table, gpus="0,1,2,3")
    tool = {n: t for n, _, _, _, _, _, t in table[:4]}
    clash = [(x[0], y[0]) for x in rows for y in rows if tool.get(x[0]) and tool.get(y[0])
             and tool[x[0]] != tool[y[0]] and x[2] < y[3] - 0.02 and y[2] < x[3] - 0.02]
    when = {n: (s, e) for n, _, s, e, _ in rows}
    check(r.returncode == 0 and len(rows) == 5 and not clash
          and when["o_sleep-0.4"][0] < when["n1_sleep-0.5"][1],
          "the parts of two profiling tools never run at once; the others run beside them",
          str(clash) + " " + str(when))

    # 2c. Two parts that map much host memory never at once, on four GPUs, with a part of
    # neither beside them.
    table = [("m1_sleep-0.4", True, 40, (), 30, False, "", True),
             ("m2_sleep-0.3", True, 30, (), 30, False, "", True),
             ("o_sleep-0.4", True, 10, (), 30)]
    r, rows, text, _, _ = run(table, gpus="0,1,2,3")
    when = {n: (s, e) for n, _, s, e, _ in rows}
    apart = (len(when) == 3 and (when["m1_sleep-0.4"][1] <= when["m2_sleep-0.3"][0] + 0.02
                                 or when["m2_sleep-0.3"][1] <= when["m1_sleep-0.4"][0] + 0.02))
    check(r.returncode == 0 and apart and when["o_sleep-0.4"][0] < when["m1_sleep-0.4"][1],
          "two parts that map much host memory never run at once; the others run beside them",
          str(when))

    # 2f. A part that needs every GPU (step 18) runs once no GPU part runs, on all of them at
    # once (CUDA_VISIBLE_DEVICES names each), with no GPU part beside it; a part without a GPU
    # may run beside it.
    table = [("e_sleep-0.3", True, 90, (), 30, False, "", False, True),
             ("g1_sleep-0.4", True, 40, (), 30), ("g2_sleep-0.2", True, 20, (), 30),
             ("g3_sleep-0.2", True, 20, (), 30, True), ("c_sleep-0.6", False, 60, (), 30)]
    r, rows, text, _, _ = run(table, gpus="0,1,2")
    when = {n: (s, e, g) for n, g, s, e, _ in rows}
    e = when.get("e_sleep-0.3")
    beside = [n for n, (s, t, g) in when.items() if g != "none" and n != "e_sleep-0.3"
              and e and s < e[1] - 0.02 and e[0] < t - 0.02]
    check(r.returncode == 0 and len(when) == 5 and e is not None and e[2] == "0,1,2"
          and not beside and when["c_sleep-0.6"][0] < e[1]
          and re.search(r"^part  e_sleep-0.3: ok on GPUs 0,1,2, ", text, re.M) is not None,
          "a part that needs every GPU holds them all, alone among the GPU parts",
          f"{when}\n{text}")

    # 2e. A sanitizer part never runs beside a part that times or counts, on any GPU, while a
    # part that shares runs beside it; the sanitizer's parts spread over idle GPUs first.
    table = [("s1_sleep-0.4", True, 40, (), 30, True, "sanitizer"),
             ("s2_sleep-0.4", True, 40, (), 30, True, "sanitizer"),
             ("t_sleep-0.3", True, 10, (), 30),
             ("h_sleep-0.3", True, 10, (), 30, True)]
    r, rows, text, _, _ = run(table, gpus="0,1,2,3")
    when = {n: (s, e, g) for n, g, s, e, _ in rows}
    ok = len(when) == 4 and r.returncode == 0
    check(ok and all(when["t_sleep-0.3"][0] >= when[s][1] - 0.02 for s in ("s1_sleep-0.4",
                                                                            "s2_sleep-0.4"))
          and when["h_sleep-0.3"][0] < when["s1_sleep-0.4"][1]
          and when["s1_sleep-0.4"][2] != when["s2_sleep-0.4"][2],
          "a part that times waits for the sanitizer's parts, which take a GPU each; a part "
          "that shares runs beside them", str(when))

    # 2d. The prediction (scripts/gpu_check_predict.py) runs the schedule itself on stand-ins:
    # two parts of 20 and 10 s on one GPU take 30 s one after another, on two GPUs 20 s.
    spec = importlib.util.spec_from_file_location("gpu_check_predict",
                                                  os.path.join(scripts, "gpu_check_predict.py"))
    predict_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(predict_mod)
    sched = predict_mod.schedule
    two = [sched.Part("long", True, 20), sched.Part("short", True, 10)]
    _, one_gpu = predict_mod.predict(1, 10.0, table=two)
    two = [sched.Part("long", True, 20), sched.Part("short", True, 10)]
    rows, two_gpus = predict_mod.predict(2, 10.0, table=two)
    check(27 <= one_gpu <= 36 and 18 <= two_gpus <= 26 and all(r[4] == "ok" for r in rows),
          f"the prediction: {one_gpu:.0f} s on one GPU, {two_gpus:.0f} s on two (30 and 20)")

    # 3. A failure anywhere fails the check; the others still run.
    table = [("p_sleep-0.2", True, 10, (), 30), ("q_fail", True, 5, (), 30),
             ("r_sleep-0.1", False, 5, (), 30), ("s_skip", True, 1, (), 30)]
    r, rows, text, _, _ = run(table, gpus="0,1")
    check(r.returncode == 1, "a failing part fails the check", r.stdout)
    check(sorted(n for n, *_ in rows) == sorted(n for n, *_ in table),
          "the other parts run all the same", str(rows))
    check(re.search(r"^part  q_fail: FAIL \(exit 1\) on GPU \d", text, re.M) is not None
          and "part  s_skip: skip" in text and "verdict: 1 part(s) failed" in text,
          "the summary names the failure, the skip and the verdict", text)
    table = [("s_skip", True, 1, (), 30)]
    r, rows, text, _, _ = run(table, gpus="0")
    check(r.returncode == 0 and "verdict: none failed, 1 skipped: s_skip" in text,
          "a skipped part does not fail the run, and the verdict says it was skipped", text)

    # 4. A hung part is stopped at its limit, with its children, and fails with a message.
    table = [("h_hang", True, 5, (), 1.5), ("k_sleep-0.2", True, 5, (), 30)]
    r, rows, text, out, took = run(table, gpus="0")
    child = int(open(os.path.join(out, "h_hang.child")).read())
    check(r.returncode == 1 and took < 30, "a part that hangs fails the check, in time",
          f"{took:.1f} s\n{r.stdout}")
    check(re.search(r"^part  h_hang: FAIL \(timed out: still running after its limit of 2 s\)",
                    text, re.M) is not None, "its line says it timed out, and after what limit",
          text)
    time.sleep(0.5)
    check(not alive(child), "its children are stopped with it", f"pid {child}")
    check([n for n, *_ in rows] == ["k_sleep-0.2"], "the next part on its GPU still runs",
          str(rows))

    # 5. The deadline: what runs is stopped (m, whose estimate was short), what has not started
    #    is "not run" (n, whose estimate of 5 s no longer fits).
    table = [("m_sleep-5", True, 0.5, (), 60), ("n_sleep-0.1", True, 5, (), 60)]
    r, rows, text, _, took = run(table, gpus="0", extra=("--deadline", "1"))
    check(r.returncode == 1 and took < 20 and "part  n_sleep-0.1: not run" in text
          and re.search(r"part  m_sleep-5: FAIL \(stopped at the check's deadline", text)
          and "verdict: 2 part(s) failed or did not run" in text,
          "at the deadline the check stops, and says what did not finish or run", text)

    # 5b. A part whose estimate does not fit in the time left before the deadline does not
    #     start (it would only be stopped there); the parts that fit run, and the check ends
    #     once nothing runs, not at the deadline.
    table = [("p_sleep-0.3", True, 1, (), 60), ("q_sleep-0.1", True, 100, (), 60),
             ("r_sleep-0.2", True, 2, ("q_sleep-0.1",), 60), ("s_sleep-0.3", True, 1, (), 60)]
    r, rows, text, _, took = run(table, gpus="0", extra=("--deadline", "30"))
    check(r.returncode == 1 and took < 15
          and sorted(n for n, *_ in rows) == ["p_sleep-0.3", "s_sleep-0.3"]
          and re.search(r"part  q_sleep-0.1: not run \(its estimate of 100 s did not fit in "
                        r"the \d+ s left before the check's deadline of 30 s\)", text)
          and re.search(r"part  r_sleep-0.2: not run \(the check's deadline of 30 s came "
                        r"first\)", text),
          "a part whose estimate does not fit before the deadline does not start, and the "
          "check ends without waiting for the deadline", f"{took:.1f} s\n{text}")

    # 6. Bad usage.
    r, _, _, _, _ = run([("a_sleep-0.1", True, 1, (), 10)], parts="nothing")
    check(r.returncode == 2 and "no part or group named 'nothing'" in r.stderr,
          "an unknown part is bad usage", r.stderr)
    r, _, _, _, _ = run([("a_sleep-0.1", True, 1, (), 10)], gpus="")
    check(r.returncode == 2 and "no GPU" in r.stderr, "GPU parts and no GPU is bad usage",
          r.stderr)

    # 1b. Parts that share: on one GPU, up to three sharing parts run at once, and a part that
    #     times never runs beside any; the sharing parts overlap (the check is shorter).
    table = [("s1_sleep-0.6", True, 60, (), 30, True), ("s2_sleep-0.6", True, 60, (), 30, True),
             ("s3_sleep-0.6", True, 60, (), 30, True), ("s4_sleep-0.6", True, 60, (), 30, True),
             ("t1_sleep-0.3", True, 70, (), 30), ("t2_sleep-0.3", True, 10, (), 30)]
    r, rows, text, out, took = run(table, gpus="0")
    check(r.returncode == 0 and len(rows) == len(table), "sharing parts run, each once",
          r.stderr + r.stdout)
    at_once = lambda x, y: x[2] < y[3] - 0.02 and y[2] < x[3] - 0.02  # noqa: E731
    beside_timer = [(x[0], y[0]) for x in rows for y in rows if x is not y
                    and x[0].startswith("t") and at_once(x, y)]
    check(not beside_timer, "a part that times has its GPU to itself", str(beside_timer))
    most = max(sum(1 for y in rows if y[0].startswith("s") and y[2] <= x[2] < y[3])
               for x in rows if x[0].startswith("s"))
    check(most == 3, f"up to three sharing parts at once on one GPU ({most})", str(rows))
    # From the parts' own times, not the wall clock's, which a busy machine stretches.
    shared = [x for x in rows if x[0].startswith("s")]
    span = max(x[3] for x in shared) - min(x[2] for x in shared)
    alone = sum(x[3] - x[2] for x in shared)
    check(span < 0.75 * alone, f"the sharing parts overlap: they span {span:.1f} s, "
          f"{alone:.1f} s one by one")
    listing = subprocess.run([sys.executable, schedule, "--list"], capture_output=True,
                             text=True).stdout
    check("sanitizer-racecheck: GPU, shared" in listing and "bench: GPU," in listing
          and "bench: GPU, shared" not in listing,
          "the sanitizer shares its GPU; the bench does not")

    # 7. The real table: every part gpu-check.sh defines is scheduled, and nothing else;
    #    groups name parts of the table; every `after` names a part.
    r = subprocess.run([sys.executable, schedule, "--list"], capture_output=True, text=True)
    listed = re.findall(r"^([a-z0-9x-]+): ", r.stdout, re.M)
    src = open(os.path.join(scripts, "gpu-check.sh")).read()
    body = src[src.index('case $NAME in'):src.index('esac')]
    defined = set(re.findall(r"^    ([a-z0-9x*-]+)\)", body, re.M))
    sanitizers = {n for n in listed if n.startswith("sanitizer-")}
    check(r.returncode == 0 and set(listed) - sanitizers == defined - {"sanitizer-*", "*"}
          and len(sanitizers) == 4,
          "the schedule's parts are the parts gpu-check.sh defines", f"{listed}\n{defined}")

    # 8. gpu-check.sh with a stand-in nvidia-smi: GPUs of two kinds are refused, an unknown
    #    part is bad usage, and one kind runs the parts it is asked for on its GPUs.
    bindir = os.path.join(d, "bin")
    os.makedirs(bindir)
    smi = os.path.join(bindir, "nvidia-smi")
    with open(smi, "w") as f:
        f.write("#!/bin/sh\n"
                "case \"$*\" in\n"
                "  *index*) printf '0\\n1\\n' ;;\n"
                "  *'-i 0,1'*) printf 'NVIDIA H100 80GB HBM3, 580\\nNVIDIA H200, 580\\n' ;;\n"
                "  *'-i 1'*) printf 'NVIDIA H200, 580\\n' ;;\n"
                "  *) exit 6 ;;\n"
                "esac\n")
    os.chmod(smi, stat.S_IRWXU)
    build = os.path.join(d, "build")
    os.makedirs(os.path.join(build, "tests"))
    gpu_tests = os.path.join(build, "tests", "gpu_tests")
    with open(gpu_tests, "w") as f:
        f.write("#!/bin/sh\nsleep ${FAKE_SLEEP:-0}\nexit 0\n")
    os.chmod(gpu_tests, stat.S_IRWXU)
    os.makedirs(os.path.join(build, "steps", "02-naive"))
    plain = os.path.join(build, "steps", "02-naive", "02-naive-plain")
    with open(plain, "w") as f:
        f.write("#!/bin/sh\necho \"02-naive-plain: $1 x $2 float: exact, 1.0 GB/s\"\n")
    os.chmod(plain, stat.S_IRWXU)
    with open(os.path.join(build, "build-info.txt"), "w") as f:
        f.write("commit 0123456789ab\n")
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env.pop("GPUS", None)
    front = os.path.join(scripts, "gpu-check.sh")
    out = os.path.join(d, "front")
    r = subprocess.run(["bash", front, build, out], capture_output=True, text=True, env=env)
    check(r.returncode == 2 and "different kinds" in r.stderr,
          "gpu-check.sh refuses GPUs of different kinds", r.stderr + r.stdout)
    env["GPUS"] = "1"
    env["PARTS"] = "gpu-tests"
    r = subprocess.run(["bash", front, build, out], capture_output=True, text=True, env=env)
    summary = open(os.path.join(out, "gpu-check.txt")).read() \
        if os.path.exists(os.path.join(out, "gpu-check.txt")) else ""
    check(r.returncode == 0 and "commit:  0123456789ab" in summary
          and "device:  NVIDIA H200, 580" in summary
          and re.search(r"^part  gpu-tests: ok on GPU 1, ", summary, re.M)
          and "  ok    gpu tests, past 2^31 elements [" in summary,
          "one kind: the part runs on the GPU named, and the summary names commit and device",
          r.stderr + r.stdout + summary)
    env["PARTS"] = "bogus"
    r = subprocess.run(["bash", front, build, out], capture_output=True, text=True, env=env)
    check(r.returncode == 2 and "bogus" in r.stderr, "gpu-check.sh: an unknown part is bad usage",
          r.stderr)

    # 8b. RESUME=1: the parts a deadline left undone run again into the same folder, and the
    #     chunks are joined; what the first run finished is not run again.
    resume_out = os.path.join(d, "re-sume")  # a dash in the path, as gpu-check/ has
    # Estimates that fit in the deadline, so that the parts start and one is stopped there.
    short = os.path.join(d, "short-table.json")
    with open(short, "w") as f:
        json.dump([dict(name=n, gpu=True, estimate=0.1, after=[], limit=60, shares=shares,
                        tool="", memory=memory, every=False)
                   for n, shares, memory in (("hostile", True, False), ("gpu-tests", False, True),
                                             ("plain", True, True))], f)
    first_env = dict(env, PARTS="hostile gpu-tests plain", DEADLINE="2", FAKE_SLEEP="30",
                     TABLE=short)
    hostile = os.path.join(build, "tests", "hostile_tests")
    with open(hostile, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(hostile, stat.S_IRWXU)
    r = subprocess.run(["bash", front, build, resume_out], capture_output=True, text=True,
                       env=first_env, timeout=120)
    first_summary = open(os.path.join(resume_out, "gpu-check.txt")).read()
    check(r.returncode == 1 and "stopped at the check's deadline" in first_summary
          and re.search(r"^part  hostile: ok", first_summary, re.M)
          and re.search(r"^part  plain: ok", first_summary, re.M),
          "a deadline stops the GPU tests in the first run; hostile and plain end",
          first_summary)
    resume_env = dict(env, RESUME="1", FAKE_SLEEP="0", TABLE=short)
    resume_env.pop("PARTS")
    r = subprocess.run(["bash", front, build, resume_out], capture_output=True, text=True,
                       env=resume_env, timeout=120)
    joined = open(os.path.join(resume_out, "gpu-check.txt")).read()
    chunks = sorted(os.listdir(os.path.join(resume_out, "chunks")))
    check("resuming gpu-tests\n" in r.stdout and "resumed  gpu-tests" in joined
          and "resumed  plain" not in joined and "resumed  hostile" not in joined
          and re.search(r"^part  gpu-tests: ok", joined, re.M)
          and re.search(r"^part  hostile: ok", joined, re.M)
          and re.search(r"^part  plain: ok", joined, re.M)
          and chunks == ["chunk-1.txt", "chunk-2.log", "chunk-2.txt"]
          and "PROBLEM" not in joined,
          "RESUME=1 runs what the deadline left, once, and joins the two chunks",
          r.stdout + r.stderr + joined + str(chunks))
    r = subprocess.run(["bash", front, build, resume_out], capture_output=True, text=True,
                       env=resume_env, timeout=120)
    check(r.returncode == 2 and "nothing to resume" in r.stderr,
          "RESUME=1 with nothing left undone is bad usage", r.stderr)
    r = subprocess.run(["bash", front, build, resume_out], capture_output=True, text=True,
                       env=dict(resume_env, PARTS="plain"), timeout=120)
    check(r.returncode == 2 and "no PARTS" in r.stderr, "RESUME=1 refuses PARTS", r.stderr)

    # 8c. A part that a call's deadline kept from starting is "not run" in the joined verdict,
    #     not "failed" (it has not run yet; RESUME=1 runs it).
    kept = os.path.join(d, "kept-out.txt")
    with open(kept, "w") as f:
        f.write(re.sub(r"^part  gpu-tests: ok.*$", "part  gpu-tests: not run (its estimate of "
                       "170 s did not fit in the 9 s left before the check's deadline of 560 s)",
                       summary, flags=re.M))
    r = subprocess.run([sys.executable, os.path.join(scripts, "gpu-check-summary.py"), kept],
                       capture_output=True, text=True)
    check(r.returncode == 1 and re.search(r"^verdict: 0 part\(s\) failed, 0 skipped, \d+ not run",
                                          r.stdout, re.M) is not None,
          "the joiner counts a part the deadline kept out as not run, not as failed", r.stdout)

    # 9. The joiner: two chunks of one commit and device, and the parts no chunk ran.
    joiner = os.path.join(scripts, "gpu-check-summary.py")
    first = os.path.join(d, "chunk1.txt")
    with open(first, "w") as f:
        f.write(summary)
    r = subprocess.run([sys.executable, joiner, first], capture_output=True, text=True)
    check(r.returncode == 1 and "not run  bench" in r.stdout and "not run  gpu-tests"
          not in r.stdout, "the joiner lists the parts no chunk ran, and fails", r.stdout)
    second = os.path.join(d, "chunk2.txt")
    with open(second, "w") as f:
        f.write(summary.replace("0123456789ab", "ba9876543210").replace("gpu-tests", "bench"))
    r = subprocess.run([sys.executable, joiner, first, second], capture_output=True, text=True)
    check(r.returncode == 1 and "different commits" in r.stdout,
          "the joiner refuses chunks of different commits", r.stdout)
    # A part that failed, run again in a later chunk and passed: the failure is not hidden.
    failed_first = os.path.join(d, "failed1.txt")
    with open(failed_first, "w") as f:
        f.write(re.sub(r"^part  gpu-tests: ok", "part  gpu-tests: FAIL (exit 1)", summary,
                       flags=re.M))
    r = subprocess.run([sys.executable, joiner, failed_first, first], capture_output=True,
                       text=True)
    check(r.returncode == 1 and "gpu-tests ran in two chunks" in r.stdout
          and "resumed  gpu-tests" not in r.stdout,
          "the joiner does not let a second run hide a failure", r.stdout)
print(f"{len(failed)} failed" if failed else "all passed")
sys.exit(1 if failed else 0)
