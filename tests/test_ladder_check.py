#!/usr/bin/env python3
"""scripts/ladder_check.py on CSVs written here: a climbing ladder passes, a drop beyond the
threshold fails unless listed, a listed row that is not a drop fails, small matrices, steps
before 05 and drops within the threshold do not count.

Usage: test_ladder_check.py SCRIPT"""
import os
import subprocess
import sys
import tempfile

script = sys.argv[1]
failed = []


def check(ok, what):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failed.append(what)


HEAD = "sweep,step,variant,dtype,rows,cols,gbps,fits_l2,device\n"


def bench(rows):
    return HEAD + "".join(f"headline,{s},v,{t},{m},{n},{g},false,GPU X\n" for s, t, m, n, g in rows)


with tempfile.TemporaryDirectory() as d:
    def run(text, explained=None, *extra):
        p = os.path.join(d, "bench.csv")
        with open(p, "w") as f:
            f.write(text)
        args = [sys.executable, script, p, *extra]
        if explained is not None:
            e = os.path.join(d, "explained.csv")
            with open(e, "w") as f:
                f.write("device,dtype,rows,cols,step,reason\n" + explained)
            args += ["--explained", e]
        return subprocess.run(args, capture_output=True, text=True)

    climb = [("05-a", "float", 8192, 8192, 100), ("06-b", "float", 8192, 8192, 99.5),
             ("07-c", "float", 8192, 8192, 101), ("02-z", "float", 8192, 8192, 500),
             ("08-d", "float", 1024, 1024, 10)]
    check(run(bench(climb)).returncode == 0, "a ladder that climbs (or dips within 1%) passes; "
          "steps before 05 and small matrices do not count")
    drop = climb + [("08-d", "double", 4096, 4096, 100), ("09-e", "double", 4096, 4096, 97)]
    r = run(bench(drop))
    check(r.returncode == 1 and "NOT EXPLAINED" in r.stdout, "a 3% drop fails unexplained")
    r = run(bench(drop), "GPU X,double,4096,4096,09-e,a counter says why\n")
    check(r.returncode == 0 and "explained: a counter says why" in r.stdout, "a listed drop passes")
    r = run(bench(drop), "GPU X,double,4096,4096,09-e,why\nGPU X,float,8192,8192,06-b,no\n")
    check(r.returncode == 1 and "not a drop" in r.stdout, "a listed row that is not a drop fails")
    check(run(bench(drop), None, "--report").returncode == 0, "--report prints and exits 0")

    # --checks: each GPU's summary names the commit whose folder holds the bench to read.
    res = os.path.join(d, "results")
    for gpu, commit, rows in (("a", "1234567", drop), ("b", "89abcde", climb)):
        os.makedirs(os.path.join(res, gpu, commit))
        os.makedirs(os.path.join(res, gpu, "0000000"))  # an older check, with no drop
        with open(os.path.join(res, gpu, "gpu-check.txt"), "w") as f:
            f.write(f"gpu-check summary\ncommit:  {commit}ffff\ndevice:  X\n\nok    bench [1 s]\n")
        with open(os.path.join(res, gpu, commit, "bench.csv"), "w") as f:
            f.write(bench(rows))
        with open(os.path.join(res, gpu, "0000000", "bench.csv"), "w") as f:
            f.write(bench(climb))
    r = subprocess.run([sys.executable, script, "--checks", res], capture_output=True, text=True)
    check(r.returncode == 1 and "NOT EXPLAINED" in r.stdout and "1234567" in r.stdout
          and "0000000" not in r.stdout, "--checks reads the bench of the commit each summary "
          "names, and finds its drop")
    os.remove(os.path.join(res, "b", "89abcde", "bench.csv"))
    r = subprocess.run([sys.executable, script, "--checks", res], capture_output=True, text=True)
    check(r.returncode == 2 and "missing" in r.stderr, "--checks fails when the named bench is "
          "missing")
    r = subprocess.run([sys.executable, script], capture_output=True, text=True)
    check(r.returncode == 2, "no bench at all is bad usage")
print(f"{len(failed)} failed" if failed else "all passed")
sys.exit(1 if failed else 0)
