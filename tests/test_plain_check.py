#!/usr/bin/env python3
"""Tests of scripts/plain_check.py on plain files changed on purpose, compiled here (no GPU).
Step 09's plain file names its two kernels in `// plain_check: KERNEL ROWSxCOLS` lines, each
compared with the kernel the step runs at that shape; step 08's names none (one kernel and
its fallback, compared at 8192 x 8192). The check passes on both as they are, and fails when:
  1. step 09's skewed kernel drops a global load (and its shared store): 8 passes, not 9;
  2. it adds shared accesses (a shared load and store after its barrier);
  3. its whole-sector kernel drops one of its two 16-byte loads (checked at 8192 x 8192);
  4. a kernel of the program is named in no plain_check line;
  5. a plain_check line names the skewed kernel at 8192 x 8192, where the step runs its
     whole-sector kernel instead;
  6. a plain_check line names a kernel the program does not have;
  7. the file has no plain_check line, so the rule of one kernel and its fallback applies, and
     the program has two;
and it counts no access on the always-false predicate (`@!PT`, the assembler's padding).
Each case runs a copy of the script (and of scripts/sass_check.py and arch_check.py) beside a
copy of the changed plain.cu, on a build of links to the real step programs and course/bench.

Usage: test_plain_check.py BUILD_DIR [NVCC]
Exit status: 0 all passed, 1 a case failed, 77 skipped (no nvcc or cuobjdump, or the build
lacks course/bench or the programs of steps 08 and 09).
"""
import concurrent.futures
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCRIPTS = os.path.join(ROOT, "scripts")
spec = importlib.util.spec_from_file_location("sass_check",
                                              os.path.join(SCRIPTS, "sass_check.py"))
sass_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sass_check)

STEP09, STEP08 = "09-alignment", "08-diagonal"
failures = []


def check(ok, what, detail=""):
    print(("ok     " if ok else "FAILED ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("       " + detail[-3000:].replace("\n", "\n       "))


def changed(text, old, new, count=1):
    """@p text with @p old replaced by @p new, which must occur @p count times: a change that
    no longer applies to the plain file fails the test rather than passing unnoticed."""
    if text.count(old) != count:
        raise SystemExit(f"test_plain_check: {old!r} occurs {text.count(old)} times in "
                         f"steps/{STEP09}/plain.cu, not {count}: update this test")
    return text.replace(old, new)


def in_kernel(text, kernel, old, new, count=1):
    """@p text with @p old replaced by @p new inside kernel @p kernel only (from its name to
    the next kernel or to launch())."""
    start = text.index(kernel + "(const float*")
    end = min(i for i in (text.find("__global__", start), text.find("static void launch", start))
              if i >= 0)
    return text[:start] + changed(text[start:end], old, new, count) + text[end:]


def never_run():
    """An instruction on the always-false predicate (`@!PT`) is not an access; one on a real
    predicate is (no compiler needed)."""
    spec = importlib.util.spec_from_file_location("plain_check",
                                                  os.path.join(SCRIPTS, "plain_check.py"))
    plain_check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain_check)
    got = plain_check.accesses(["@!PT LDS RZ, [RZ] ;", "LDGSTS.E.BYPASS.128 [R1], [R2.64] ;",
                                "@P0 LDS R3, [R4] ;", "EXIT ;"])
    check(got == {"LDGSTS.128": 1, "LDS": 1},
          "an @!PT instruction is left out, an @P0 one counted", str(got))


def main():
    never_run()
    build = os.path.abspath(sys.argv[1])
    nvcc = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else shutil.which("nvcc")
    cuobjdump = sass_check.find_cuobjdump(None)
    needed = [os.path.join(build, "course", "bench")] + [
        os.path.join(build, "steps", s, s) for s in (STEP08, STEP09)]
    missing = [p for p in needed if not os.access(p, os.X_OK)]
    if not nvcc or not cuobjdump or not sass_check.disassembler_works(cuobjdump) or missing:
        print("skipped: " + ("no nvcc" if not nvcc else "no working cuobjdump" if not cuobjdump
                             else f"the build lacks {', '.join(missing)}" if missing
                             else "no nvdisasm beside cuobjdump"))
        return 1 if failures else 77
    # The plain programs are compiled for the first architecture the step's program holds.
    listing = subprocess.run([cuobjdump, "-lelf", needed[2]], capture_output=True, text=True)
    archs = sorted(set(re.findall(r"\.(sm_\d+)[a-z]?\.cubin", listing.stdout)))
    if not archs:
        print(f"skipped: no machine code in {needed[2]}")
        return 77
    arch = archs[0]
    plain09 = open(os.path.join(ROOT, "steps", STEP09, "plain.cu")).read()
    plain08 = open(os.path.join(ROOT, "steps", STEP08, "plain.cu")).read()
    skewed_line = "// plain_check: transpose_skewed 4099x8191\n"
    swizzled_line = "// plain_check: transpose_swizzled 8192x8192\n"
    # name: (step 09's plain.cu, step 08's too, the output expected, a failure expected)
    cases = {
        "as they are": (plain09, True, None, False),
        "the skewed kernel drops a global load": (
            in_kernel(plain09, "transpose_skewed", "p < 9;", "p < 8;", 2), False,
            r"FAIL: 09-alignment \(sm_\d+\): plain transpose_skewed \{'LDG': 8, ", True),
        "the skewed kernel adds shared accesses": (
            in_kernel(plain09, "transpose_skewed", "__syncthreads();\n",
                      "__syncthreads();\n  tile[t] += tile[t + 4096];\n"), False,
            r"FAIL: 09-alignment \(sm_\d+\): plain transpose_skewed \{'LDG': 9, 'LDS': 10, "
            r"'STG': 8, 'STS': 10\}", True),
        "the whole-sector kernel drops a 16-byte load": (
            in_kernel(plain09, "transpose_swizzled", "for (int p = 0; p < 2; ++p) {  // both",
                      "for (int p = 0; p < 1; ++p) {  // both"), False,
            r"FAIL: 09-alignment \(sm_\d+\): plain transpose_swizzled \{'LDG.128': 1, .* at "
            r"8192 x 8192", True),
        "a kernel named in no plain_check line": (
            changed(plain09, skewed_line, ""), False,
            r"FAIL: 09-alignment: the plain program's kernel transpose_skewed is named in no",
            True),
        "the skewed kernel at a shape where the step runs another kernel": (
            changed(plain09, skewed_line, skewed_line.replace("4099x8191", "8192x8192")), False,
            r"FAIL: 09-alignment \(sm_\d+\): plain transpose_skewed \{'LDG': 9, .*\}, step's "
            r"transpose_vec<WholeSectors<", True),
        "a plain_check line naming no kernel of the program": (
            changed(plain09, skewed_line, skewed_line + "// plain_check: transpose_gone 64x64\n"),
            False, r"FAIL: 09-alignment: plain.cu names transpose_gone", True),
        "no plain_check line: one kernel and its fallback": (
            changed(changed(plain09, skewed_line, ""), swizzled_line, ""), False,
            r"FAIL: 09-alignment: 2 kernel\(s\) in the plain program besides transpose_fallback",
            True),
    }
    with tempfile.TemporaryDirectory() as d:
        # The programs: each distinct plain.cu once (the cases that change only comment
        # lines share the program built from the file as it is).
        def code(text):
            return re.sub(r"^//.*\n", "", text, flags=re.M)

        def compile_one(n, text, name):
            src = os.path.join(d, f"{name}-{n}.cu")
            with open(src, "w") as f:
                f.write(text)
            exe = src[:-3]
            r = subprocess.run([nvcc, "-std=c++17", "-O3", "-lineinfo", f"-arch={arch}", src,
                                "-o", exe], capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"test_plain_check: nvcc failed on {name}:\n{r.stderr}")
            return exe

        jobs = {code(plain08): (plain08, STEP08)}
        for text, _, _, _ in cases.values():
            jobs.setdefault(code(text), (text, STEP09))
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            futures = {k: pool.submit(compile_one, n, t, name)
                       for n, (k, (t, name)) in enumerate(jobs.items())}
            programs = {k: f.result() for k, f in futures.items()}

        for i, (what, (text, with08, expect, fails)) in enumerate(cases.items()):
            tree = os.path.join(d, f"case{i}")
            os.makedirs(os.path.join(tree, "scripts"))
            for s in ("plain_check.py", "sass_check.py", "arch_check.py"):
                shutil.copy(os.path.join(SCRIPTS, s), os.path.join(tree, "scripts", s))
            os.makedirs(os.path.join(tree, "build", "course"))
            os.symlink(needed[0], os.path.join(tree, "build", "course", "bench"))
            for step, source in ((STEP09, text), (STEP08, plain08)):
                if step == STEP08 and not with08:
                    continue
                os.makedirs(os.path.join(tree, "steps", step))
                with open(os.path.join(tree, "steps", step, "plain.cu"), "w") as f:
                    f.write(source)
                out = os.path.join(tree, "build", "steps", step)
                os.makedirs(out)
                os.symlink(os.path.join(build, "steps", step, step), os.path.join(out, step))
                shutil.copy(programs[code(source)], os.path.join(out, f"{step}-plain"))
            r = subprocess.run([sys.executable, os.path.join(tree, "scripts", "plain_check.py"),
                                os.path.join(tree, "build"), "--cuobjdump", cuobjdump],
                               capture_output=True, text=True)
            output = r.stdout + r.stderr
            if fails:
                m = re.search(expect, output)
                check(r.returncode == 1 and m is not None, f"fails: {what}", output)
                if m:
                    print("       " + output[m.start():output.find("\n", m.start())])
            else:
                ok = (r.returncode == 0 and "every plain file makes its step's memory accesses"
                      in output and len(re.findall(r"^09-alignment ", output, re.M)) == 2
                      and len(re.findall(r"^08-diagonal ", output, re.M)) == 1)
                check(ok, f"passes: steps 08 and 09 {what}", output)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
