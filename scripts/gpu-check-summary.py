#!/usr/bin/env python3
"""Joins the summaries of scripts/gpu-check.sh run in chunks (PARTS="tests programs", then
PARTS=bench, ...: each chunk fits in one 10-minute call on a lent GPU) into one summary for a
device, the file committed as docs/results/<device>/gpu-check.txt.

Every chunk must name the same commit and the same device; the joined summary lists each
chunk's parts and dates, every part's line as the chunk wrote it, and the parts of the whole
check that no chunk ran ("not run"). Exit status: 0 when every part of the whole check ran and
none failed, 1 otherwise (a FAIL, a part skipped for want of its tool or input, a missing part,
or chunks of different commits or devices), 2 on bad usage.

Usage: scripts/gpu-check-summary.py CHUNK_SUMMARY... [--out FILE]
"""
import argparse
import os
import re
import sys


def all_parts():
    """The parts of the whole check: PARTS's default in scripts/gpu-check.sh, in its order."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu-check.sh")) as f:
        return re.search(r"PARTS=\$\{PARTS:-([^}]*)\}", f.read()).group(1).split()


def read(path):
    head, lines = {}, []
    with open(path) as f:
        body = False
        for line in f.read().splitlines():
            if not body and ":" in line and not line.startswith(("ok ", "FAIL", "skip")):
                key, _, value = line.partition(":")
                head[key.strip()] = value.strip()
            elif line.strip() and line != "gpu-check summary":
                body = True
                lines.append(line)
    return head, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("summaries", nargs="+")
    ap.add_argument("--out")
    a = ap.parse_args()
    chunks = [(p, *read(p)) for p in a.summaries]
    problems = []
    for key in ("commit", "device"):
        values = sorted({h.get(key, "?") for _, h, _ in chunks})
        if len(values) != 1:
            problems.append(f"the chunks name different {key}s: {', '.join(values)}")
    if any("+changes" in h.get("commit", "") for _, h, _ in chunks):
        problems.append("built from a tree with uncommitted changes to the code")
    ran = [p for _, h, _ in chunks for p in h.get("parts", "").split()]
    missing = [p for p in all_parts() if p not in ran]
    out = ["gpu-check summary, joined from chunks (scripts/gpu-check-summary.py)",
           f"commit:  {chunks[0][1].get('commit', '?')}",
           f"device:  {chunks[0][1].get('device', '?')}", ""]
    for path, h, lines in chunks:
        out.append(f"chunk:   PARTS=\"{h.get('parts', '?')}\", {h.get('date', '?')}")
    out.append("")
    for _, _, lines in chunks:
        out += lines
    out += [f"not run  {p}" for p in missing]
    failed = [l for _, _, lines in chunks for l in lines if l.startswith("FAIL")]
    skipped = [l for _, _, lines in chunks for l in lines if l.startswith("skip")]
    out += [""] + [f"PROBLEM: {p}" for p in problems]
    # A part that could not run (its tool or its input missing) did not pass: the whole check
    # has run only when none was skipped.
    verdict = ("every part ran, none failed" if not (failed or missing or problems or skipped)
               else f"{len(failed)} part(s) failed, {len(skipped)} skipped, {len(missing)} "
                    f"not run")
    out.append(f"verdict: {verdict}")
    text = "\n".join(l for l in out) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print(text, end="")
    return 0 if not (failed or missing or problems or skipped) else 1


if __name__ == "__main__":
    sys.exit(main())
