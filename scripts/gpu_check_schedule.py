#!/usr/bin/env python3
"""Runs the parts of the GPU check (scripts/gpu-check.sh) concurrently, spread over the GPUs,
and the parts that need no GPU beside them, then writes the check's summary.

A part is one command, `PART_COMMAND... NAME` (scripts/gpu-check.sh --part BUILD OUT NAME),
run with CUDA_VISIBLE_DEVICES set to its GPU (to nothing for a part that needs none), its own
TMPDIR, TT_THREADS set to its share of the host's cores (the cores over the GPUs plus the
slots for parts without a GPU), and its output in OUT/parts/NAME.log; a part without a GPU
runs at a lower priority (nice 10). It writes its own result lines ("ok    what
[12 s]", "FAIL  what (exit 1) [3 s]", "skip  what (why)") to OUT/parts/NAME.txt and exits 0
(every line ok or skip), 77 (skipped: its tool is missing), or anything else (failed).

The order: a part starts once every part it comes after (PARTS' `after`, when both run) has
ended; among the parts ready, the one with the longest path of estimated seconds to the end
of the check goes first. A part that times or counts something (the bench, Nsight Compute)
has its GPU to itself; the parts that do neither (the tests and the sanitizer, SHARING) may
run beside each other, up to SHARE on one GPU once no GPU is idle. The parts of two profiling tools (Nsight
Compute's and compute-sanitizer's, TOOLS) never run at the same time, on any GPUs, nor do the
parts that map much host memory (HOST_MEMORY), nor a sanitizer part and a part that times or
counts (ALONE). A part that needs every GPU of the host (EVERY: step 18, one process a GPU)
starts once no part holds any GPU, and holds them all. A part
still running after its time limit, or at the deadline of the whole check, is stopped (its whole
process group) and fails with a message. A part whose estimate does not fit in the time left
before the deadline does not start (it would only be stopped there, its time lost); once nothing
runs and nothing can start, the check ends, and what did not start is "not run", a failure too
(scripts/gpu-check.sh RESUME=1 runs it in the next call).

Summary (OUT/gpu-check.txt): the commit, the device, the GPUs, the dates, the wall time, the
host's highest load average (sampled every 5 s beside the parts then running, in
OUT/host-load.csv) and the parts run; then for each part, in the order of PARTS, a line saying where it ran and for
how long ("part  bench: ok on GPU 1, 64 s, from +0 s to +64 s") followed by its own result
lines; last the verdict. The log (OUT/gpu-check.log) is the parts' logs in the same order.

Usage: scripts/gpu_check_schedule.py --out OUT --gpus 0,1,2,3 [--parts "tests ncu ..."]
           [--deadline S] [--cpu-slots N] [--commit C] [--device D] [--table FILE]
           -- PART_COMMAND...
--table FILE replaces the table of parts by a JSON list of {name, gpu, estimate, after,
limit, shares, tool, memory, every} (the test of the schedule uses it; without limit, a part's limit is worked out as for
the table's own). --list prints the parts and groups and exits.
Exit status: 0 every part ok or skipped, 1 a part failed, timed out or did not run, 2 bad
usage (an unknown part, no GPU for a GPU part, no part command).
"""
import argparse
import datetime
import json
import os
import signal
import subprocess
import sys
import time

# The parts, in the order of the summary: (name, needs a GPU, estimated seconds, parts it comes
# after). The estimates are each part's time on a host of four H200s in the check of 93ec62f
# (rounded up; docs/results/h200/93ec62f/gpu-check.txt), the chunk with the lighter load where
# a part ran in both, but for the parts changed since: the plain files' test (171 runs in 254 s
# at 665a20c; steps 12 to 17's files since add 114 runs, 12 of them past 2^31 elements), and the
# counters at 4099 x 8191, which read the profiles of ncu-4099x8191 (they did not there: its
# chunk ran on a fresh host) and profile only the variants named with --also; Nsight Compute's
# profiles at 8192 x 8192 and 4099 x 8191, which took 385 to 390 s beside compute-sanitizer,
# and the second 201 s after it had ended (2e9f33c; the first, the same kernels at a matrix of
# the same size, was stopped at the deadline); and the lab, 130 s (its GPU parts of exercises
# 05 to 08 at 2e9f33c, after the sanitizer, with 02 to 04's of 93ec62f). Where a part took
# longer on a host of one H200 in the check of c9c71df (the plain files' test, the model's
# facts on that host's CPUs, the sanitizer's parts three at once on the one GPU;
# docs/results/h200/c9c71df/gpu-check.txt), its estimate is that time, so that a part a call's
# deadline would stop does not start in that call. Parts that run
# at once on one host can each take several times as long (docs/results/h200/f6a71c5/README.md),
# so a part's time limit is LIMIT_FACTOR times its estimate, and never below MIN_LIMIT seconds.
# Nsight Compute's parts come after compute-sanitizer's (TOOLS: the two never run at once), so
# that the sanitizer parts, a GPU each, are done early (scripts/gpu_check_predict.py).
SANITIZERS = ("sanitizer-memcheck", "sanitizer-racecheck", "sanitizer-synccheck",
              "sanitizer-initcheck")
PARTS = [
    ("cpu-tests", False, 115, ()),
    ("hostile", True, 40, ()),
    ("gpu-tests", True, 170, ()),
    ("plain", True, 410, ()),
    ("lab", True, 130, ()),
    ("programs", True, 45, ()),
    ("latency", True, 5, ()),
    ("sectors", True, 35, SANITIZERS),
    ("sass", False, 55, ("latency",)),
    ("bench", True, 95, ()),
    ("variants", True, 50, ()),
    ("model-facts", False, 185, ()),
    ("model", True, 35, ("bench", "variants", "model-facts")),
    ("sweeps", True, 40, ()),
    ("plots", False, 10, ("bench", "variants", "sweeps")),
    ("ncu-8192", True, 210, SANITIZERS),
    ("ncu-4099x8191", True, 205, SANITIZERS),
    ("ncu-4100x8196", True, 125, SANITIZERS),
    ("ncu-3001x5003", True, 140, SANITIZERS),
    ("counters-8192x16384", True, 200, SANITIZERS),
    ("counters-4099x8191", True, 40, ("ncu-4099x8191",) + SANITIZERS),
    ("banks", True, 50, SANITIZERS),
    ("sanitizer-memcheck", True, 165, ()),
    ("sanitizer-racecheck", True, 230, ()),
    ("sanitizer-synccheck", True, 140, ()),
    ("sanitizer-initcheck", True, 105, ()),
    ("proofs", True, 75, ()),
    ("all-to-all", True, 110, ()),
]
LIMIT_FACTOR = 5
MIN_LIMIT = 300
# The parts that time nothing, count nothing and need no GPU memory of their own measuring (the
# hostile command lines, the plain files' test and the sanitizer): they may run beside each
# other, at most SHARE at once on one GPU, and never beside a part that times or counts
# (every other GPU part), which has its GPU to itself. The GPU tests are not among them: some
# fill the GPU's memory and check what is left (on a host of two H200s, run beside the
# sanitizer, two of them failed).
SHARING = {"hostile", "plain", "sanitizer-memcheck", "sanitizer-racecheck",
           "sanitizer-synccheck", "sanitizer-initcheck"}
SHARE = 3
# The parts that run a profiling tool: Nsight Compute's and compute-sanitizer's never run at
# the same time, on any GPUs. On hosts of four H200s, Nsight Compute's profiles took five to
# eight times as long while compute-sanitizer ran on another GPU as after it had ended (the
# same kernels at 8192 x 8192: 38 s against 5 s; docs/results/h200/665a20c/README.md).
TOOLS = {**{n: "ncu" for n in ("sectors", "ncu-8192", "ncu-4099x8191", "ncu-4100x8196",
                               "ncu-3001x5003", "counters-8192x16384", "counters-4099x8191",
                               "banks")},
         **{n: "sanitizer" for n in ("sanitizer-memcheck", "sanitizer-racecheck",
                                     "sanitizer-synccheck", "sanitizer-initcheck")}}
# The tools whose parts slow down every CUDA process of the host, on any GPU: while one of
# their parts runs, no part that times or counts runs (those that share may). On a host of four
# H200s, beside compute-sanitizer on other GPUs, the lab's GPU parts of exercises 02 to 04 took
# 97 to 127 s, against 12 to 18 s alone (docs/results/h200/2e9f33c/README.md).
ALONE = {"sanitizer"}
# The parts that touch much host memory for the first time: the plain files' runs past 2^31
# elements (17 GB of host memory each, several at once) and the GPU tests, whose many small
# CUDA calls wait while the host maps that memory (on a host of four H200s their first case took
# 65 to 73 s beside the plain files' test, 2.3 s alone: docs/results/h200/665a20c/probes/). They
# never run at the same time.
HOST_MEMORY = {"plain", "gpu-tests"}
# The parts that run one process on each GPU of the host (step 18's all-to-all, which also
# times): they start once no part holds a GPU, hold every GPU, and no GPU part runs beside
# them. The estimate: on a host of two H200s, step 18 at 2 shapes, 2 types and P = 1 and 2
# took 5 to 7 s a run, its memcheck and racecheck on 2 GPUs 24 and 14 s
# (docs/results/h200-x2/01c2a72/).
EVERY = {"all-to-all"}
# The names that stand for several parts: the parts of earlier versions of the check.
GROUPS = {
    "tests": ["cpu-tests", "hostile", "gpu-tests", "plain", "lab"],
    "sweeps": ["sweeps", "plots"],
    "models": ["model-facts", "model"],
    "ncu": ["ncu-8192", "ncu-4099x8191"],
    "ncu-more": ["ncu-4100x8196", "ncu-3001x5003"],
    "counters": ["counters-8192x16384", "counters-4099x8191", "banks"],
    "sanitizer": ["sanitizer-memcheck", "sanitizer-racecheck", "sanitizer-synccheck",
                  "sanitizer-initcheck"],
}


class Part:
    def __init__(self, name, gpu, estimate, after=(), limit=None, shares=None, tool=None,
                 memory=None, every=None):
        self.name, self.gpu, self.estimate = name, bool(gpu), float(estimate)
        self.after = tuple(after)
        self.shares = self.gpu and (name in SHARING if shares is None else bool(shares))
        self.tool = TOOLS.get(name) if tool is None else (tool or None)
        self.memory = name in HOST_MEMORY if memory is None else bool(memory)
        self.every = self.gpu and (name in EVERY if every is None else bool(every))
        self.limit = float(limit) if limit is not None else max(MIN_LIMIT,
                                                                  LIMIT_FACTOR * self.estimate)
        self.state = "waiting"  # waiting, running, ok, skip, FAIL, not run
        self.where = None  # the GPU's index, "CPU", or the indices of every GPU (EVERY)
        self.start = self.end = None
        self.proc = None
        self.why = ""


def load_table(path):
    if not path:
        return [Part(*row) for row in PARTS]
    with open(path) as f:
        rows = json.load(f)
    return [Part(r["name"], r["gpu"], r["estimate"], r.get("after", ()), r.get("limit"),
                 r.get("shares", False), r.get("tool", ""), r.get("memory", False),
                 r.get("every", False))
            for r in rows]


def expand(words, table):
    """The parts that @p words name (parts or groups), in the table's order; ValueError for a
    word that names neither."""
    names = {p.name for p in table}
    wanted = set()
    for w in words:
        if w in GROUPS and all(n in names for n in GROUPS[w]):
            wanted.update(GROUPS[w])
        elif w in names:
            wanted.add(w)
        else:
            raise ValueError(f"no part or group named '{w}' (parts: {' '.join(sorted(names))}; "
                             f"groups: {' '.join(sorted(GROUPS))})")
    return [p for p in table if p.name in wanted]


def priorities(parts):
    """{name: estimated seconds from the part's start to the end of the check}: its own
    estimate plus the longest such path among the parts that come after it."""
    by_name = {p.name: p for p in parts}
    later = {p.name: [q for q in parts if p.name in q.after] for p in parts}
    memo = {}

    def path(name):
        if name not in memo:
            memo[name] = by_name[name].estimate + max(
                (path(q.name) for q in later[name]), default=0.0)
        return memo[name]

    return {p.name: path(p.name) for p in parts}


def stop(part):
    """Ends the part's whole process group: TERM, then KILL after a few seconds."""
    try:
        os.killpg(part.proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _ in range(50):
        if part.proc.poll() is not None:
            break
        time.sleep(0.1)
    try:
        os.killpg(part.proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    part.proc.wait()


def run(parts, gpus, cpu_slots, command, out, deadline, log=print):
    """Runs @p parts to the end (or the deadline); sets each part's state, where and times."""
    os.makedirs(os.path.join(out, "parts"), exist_ok=True)
    rank = priorities(parts)
    chosen = {p.name for p in parts}
    t0 = time.monotonic()
    holders = {g: [] for g in gpus}  # the parts running on each GPU
    free_cpu = cpu_slots
    # The host's load beside the parts that ran then, every 5 s (OUT/host-load.csv): where
    # parts on different GPUs slow each other down, this says whether the CPUs were the cause.
    load = open(os.path.join(out, "host-load.csv"), "w")
    load.write("seconds,load1,running\n")
    sampled = -5.0
    threads = max(1, (os.cpu_count() or 2) // (len(gpus) + cpu_slots))

    def place(p):
        """A GPU for @p p now, or None: an idle GPU, or else, for a part that shares, one that
        only sharing parts hold (fewer than SHARE): the sanitizer's parts spread over the GPUs
        before they double up."""
        if p.every:
            return ",".join(gpus) if not any(holders.values()) else None
        idle = next((g for g in gpus if not holders[g]), None)
        if idle is not None or not p.shares:
            return idle
        return next((g for g in gpus if len(holders[g]) < SHARE
                     and all(q.shares for q in holders[g])), None)

    while True:
        now = time.monotonic() - t0
        # Ended, timed out, or past the deadline.
        for p in parts:
            if p.state != "running":
                continue
            rc = p.proc.poll()
            over = now - p.start > p.limit
            late = deadline is not None and now > deadline
            if rc is None and (over or late):
                stop(p)
                p.state = "FAIL"
                p.why = (f"timed out: still running after its limit of {p.limit:.0f} s"
                         if over else f"stopped at the check's deadline of {deadline:.0f} s")
                rc = p.proc.returncode
            elif rc is None:
                continue
            else:
                p.state = "ok" if rc == 0 else "skip" if rc == 77 else "FAIL"
                p.why = "" if rc in (0, 77) else f"exit {rc}"
            p.end = time.monotonic() - t0
            p.proc = None
            if p.gpu:
                for g in p.where.split(","):
                    holders[g].remove(p)
            else:
                free_cpu += 1
            log(f"gpu-check: {p.name} {p.state}{' (' + p.why + ')' if p.why else ''} "
                f"after {p.end - p.start:.0f} s")
        done = {p.name for p in parts if p.state not in ("waiting", "running")}
        if deadline is not None and now > deadline:
            for p in parts:
                if p.state == "waiting":
                    p.state = "not run"
                    p.why = f"the check's deadline of {deadline:.0f} s came first"
        waiting = [p for p in parts if p.state == "waiting"]
        if not waiting and all(p.state != "running" for p in parts):
            load.close()
            return time.monotonic() - t0
        if now - sampled >= 5:
            sampled = now
            running = " ".join(p.name for p in parts if p.state == "running")
            load.write(f"{now:.0f},{os.getloadavg()[0]:.1f},{running}\n")
            load.flush()
        ready = [p for p in waiting if all(a in done or a not in chosen for a in p.after)]
        ready.sort(key=lambda p: (-rank[p.name], parts.index(p)))
        for p in ready:
            if p.tool and any(q.state == "running" and q.tool not in (None, p.tool)
                              for q in parts):
                continue  # another profiling tool runs: this one waits for it to end
            if p.memory and any(q.state == "running" and q.memory for q in parts):
                continue  # another part that maps much host memory runs
            running = [q for q in parts if q.state == "running"]
            if p.gpu and not p.shares and any(q.tool in ALONE for q in running):
                continue  # a part that times or counts waits for the sanitizer to end
            if p.tool in ALONE and any(q.gpu and not q.shares for q in running):
                continue  # and the sanitizer for it
            if deadline is not None and now + p.estimate > deadline:
                continue  # it would be stopped at the deadline: it waits for the next run
            if p.gpu and place(p) is not None:
                p.where = place(p)
                for g in p.where.split(","):
                    holders[g].append(p)
            elif not p.gpu and free_cpu > 0:
                free_cpu -= 1
                p.where = "CPU"
            else:
                continue
            env = dict(os.environ)
            env["CUDA_VISIBLE_DEVICES"] = "" if p.where == "CPU" else str(p.where)
            env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"  # the same numbers as nvidia-smi's
            tmp = os.path.join(out, "tmp", p.name)  # Nsight Compute keeps its lock file here
            os.makedirs(tmp, exist_ok=True)
            env["TMPDIR"] = tmp
            # A share of the host's cores for the part's own threads (common/'s host_threads(),
            # the scripts' pools), and the parts without a GPU at a lower priority: on a host
            # of four H200s, parts that each started a thread a core put the load average at
            # ten times the cores, and the profiles beside them took four to eight times as long.
            env["TT_THREADS"] = str(threads)
            with open(os.path.join(out, "parts", p.name + ".log"), "w") as f:
                p.proc = subprocess.Popen(command + [p.name], stdout=f, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, env=env,
                                          start_new_session=True,
                                          preexec_fn=(lambda: os.nice(10))
                                          if p.where == "CPU" else None)
            p.state, p.start = "running", time.monotonic() - t0
            where = ("no GPU" if p.where == "CPU" else
                     f"GPUs {p.where}" if "," in p.where else f"GPU {p.where}")
            log(f"gpu-check: {p.name} started on {where} at +{p.start:.0f} s")
        # Nothing runs and nothing could start: what waits could only be stopped at the deadline
        # (or waits for a part that could not start), so the check ends now, not at the deadline.
        if deadline is not None and not any(p.state == "running" for p in parts):
            left = deadline - now
            for p in parts:
                if p.state == "waiting":
                    p.state = "not run"
                    p.why = (f"its estimate of {p.estimate:.0f} s did not fit in the {left:.0f} s "
                             f"left before the check's deadline of {deadline:.0f} s"
                             if p.estimate > left else
                             f"the check's deadline of {deadline:.0f} s came first")
            continue
        time.sleep(0.05)


def own_lines(out, part):
    """The part's own result lines (OUT/parts/NAME.txt), indented under its line."""
    path = os.path.join(out, "parts", part.name + ".txt")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return ["  " + line.rstrip() for line in f if line.strip()]


def host_load(out):
    """(seconds, load) of the highest load average sampled in OUT/host-load.csv, or None."""
    try:
        with open(os.path.join(out, "host-load.csv")) as f:
            rows = [line.split(",", 2) for line in f.read().splitlines()[1:]]
    except OSError:
        return None
    return max(((float(t), float(l)) for t, l, _ in rows), key=lambda x: x[1], default=None)


def summary(parts, gpus, out, wall, started, ended, commit, device):
    ran = [p for p in parts if p.end is not None]
    on_gpus = sum(p.end - p.start for p in ran if p.gpu)
    beside = sum(p.end - p.start for p in ran if not p.gpu)
    lines = ["gpu-check summary",
             f"commit:  {commit}",
             f"device:  {device}",
             f"gpus:    {len(gpus)} ({' '.join(str(g) for g in gpus)})",
             f"date:    {started} to {ended}",
             f"wall:    {wall:.0f} s",
             f"busy:    {on_gpus:.0f} s of parts on the GPUs, {beside:.0f} s of parts with none",
             f"parts:   {' '.join(p.name for p in parts)}",
             ""]
    for p in parts:
        where = ("no GPU" if p.where == "CPU" else
                 f"GPUs {p.where}" if p.where and "," in p.where else f"GPU {p.where}")
        if p.state == "not run":
            lines.append(f"part  {p.name}: not run ({p.why})")
        else:
            took = p.end - p.start
            why = f" ({p.why})" if p.why else ""
            lines.append(f"part  {p.name}: {p.state}{why} on {where}, {took:.0f} s, "
                         f"from +{p.start:.0f} s to +{p.end:.0f} s")
        lines += own_lines(out, p)
    peak = host_load(out)
    if peak:
        lines.insert(7, f"host:    {os.cpu_count()} CPUs, 1-minute load average up to "
                        f"{peak[1]:.1f} (at +{peak[0]:.0f} s; OUT/host-load.csv)")
    failed = [p.name for p in parts if p.state in ("FAIL", "not run")]
    skipped = [p.name for p in parts if p.state == "skip"]
    lines.append("")
    if failed:
        lines.append(f"verdict: {len(failed)} part(s) failed or did not run: {' '.join(failed)}")
    elif skipped:
        lines.append(f"verdict: none failed, {len(skipped)} skipped: {' '.join(skipped)}")
    else:
        lines.append("verdict: every part ran, none failed")
    return "\n".join(lines) + "\n", bool(failed)


def utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    command = []
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--gpus", default="", help="GPU indices, comma-separated")
    ap.add_argument("--parts", default="", help="parts or groups (default: every part)")
    ap.add_argument("--deadline", type=float, help="seconds: stop what still runs then")
    ap.add_argument("--cpu-slots", type=int, default=2)
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--device", default="unknown")
    ap.add_argument("--table")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    table = load_table(a.table)
    if a.list:
        for p in table:
            after = f", after {' '.join(p.after)}" if p.after else ""
            kind = "GPU, shared" if p.shares else "GPU" if p.gpu else "no GPU"
            kind += f", {p.tool}" if p.tool else ""
            kind += ", host memory" if p.memory else ""
            kind += ", every GPU" if p.every else ""
            print(f"{p.name}: {kind}, about {p.estimate:.0f} s alone, "
                  f"limit {p.limit:.0f} s{after}")
        for g, names in GROUPS.items():
            print(f"group {g}: {' '.join(names)}")
        return 0
    if not a.out or not command:
        ap.error("--out and a part command after -- are needed")
    try:
        parts = expand(a.parts.split() or [p.name for p in table], table)
    except ValueError as e:
        print(f"gpu-check: {e}", file=sys.stderr)
        return 2
    gpus = [g for g in a.gpus.replace(" ", "").split(",") if g]
    if any(p.gpu for p in parts) and not gpus:
        print("gpu-check: no GPU to run the GPU parts on", file=sys.stderr)
        return 2
    if a.cpu_slots < 1:
        ap.error("--cpu-slots: at least 1")
    started = utc()
    wall = run(parts, gpus, a.cpu_slots, command, a.out, a.deadline)
    text, failed = summary(parts, gpus, a.out, wall, started, utc(), a.commit, a.device)
    with open(os.path.join(a.out, "gpu-check.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "gpu-check.log"), "w") as log:
        for p in parts:
            path = os.path.join(a.out, "parts", p.name + ".log")
            log.write(f"\n===== part {p.name}: {p.state}\n")
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    log.write(f.read())
    print("\n" + text, end="")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
