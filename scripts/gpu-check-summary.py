#!/usr/bin/env python3
"""Joins the summaries of scripts/gpu-check.sh run in chunks (PARTS="tests programs", then
PARTS=bench, ...: on one GPU the whole check can take longer than a command may run)
into one summary for a device, the file committed as docs/results/<device>/gpu-check.txt.

Every chunk must name the same commit and the same device; the joined summary lists each
chunk's parts, dates and wall time, every part's lines as the chunk wrote them, and the parts
of the whole check that no chunk ran ("not run"). Exit status: 0 when every part of the whole
check ran and none failed, 1 otherwise (a part that failed, was skipped for want of its tool
or input, or did not run, or chunks of different commits or devices), 2 on bad usage.

Usage: scripts/gpu-check-summary.py CHUNK_SUMMARY... [--out FILE]
"""
import argparse
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("schedule",
                                              os.path.join(HERE, "gpu_check_schedule.py"))
schedule = importlib.util.module_from_spec(spec)
spec.loader.exec_module(schedule)

PART = re.compile(r"^part\s+(\S+): (ok|FAIL|skip|not run)\b")


def read(path):
    """({header key: value}, [body lines], {part: state}) of one chunk's summary: the header
    runs to the first blank line, the verdict line is left out."""
    with open(path) as f:
        text = f.read().splitlines()
    head, body, states = {}, [], {}
    blank = text.index("") if "" in text else len(text)
    for line in text[:blank]:
        key, sep, value = line.partition(":")
        if sep:
            head[key.strip()] = value.strip()
    for line in text[blank:]:
        if not line.strip() or line.startswith("verdict:"):
            continue
        body.append(line)
        m = PART.match(line)
        if m:
            states[m.group(1)] = m.group(2)
    return head, body, states


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("summaries", nargs="+")
    ap.add_argument("--out")
    a = ap.parse_args()
    chunks = [(p, *read(p)) for p in a.summaries]
    problems = []
    for key in ("commit", "device"):
        values = sorted({h.get(key, "?") for _, h, _, _ in chunks})
        if len(values) != 1:
            problems.append(f"the chunks name different {key}s: {', '.join(values)}")
    if any("+changes" in h.get("commit", "") for _, h, _, _ in chunks):
        problems.append("built from a tree with uncommitted changes to the code")
    states = {}
    for path, _, _, s in chunks:
        for part, state in s.items():
            if part in states:
                problems.append(f"{part} ran in two chunks ({path} is the second)")
            states[part] = state
    missing = [p[0] for p in schedule.PARTS if p[0] not in states]
    out = ["gpu-check summary, joined from chunks (scripts/gpu-check-summary.py)",
           f"commit:  {chunks[0][1].get('commit', '?')}",
           f"device:  {chunks[0][1].get('device', '?')}", ""]
    for _, h, _, _ in chunks:
        out.append(f"chunk:   PARTS=\"{h.get('parts', '?')}\" on {h.get('gpus', '?')} GPU(s), "
                   f"{h.get('date', '?')}, wall {h.get('wall', '?')}")
    out.append("")
    for _, _, body, _ in chunks:
        out += body
    out += [f"not run  {p}" for p in missing]
    failed = [p for p, s in states.items() if s in ("FAIL", "not run")]
    skipped = [p for p, s in states.items() if s == "skip"]
    out += [""] + [f"PROBLEM: {p}" for p in problems]
    # A part that could not run (its tool or its input missing) did not pass: the whole check
    # has run only when none was skipped.
    bad = failed or missing or problems or skipped
    out.append("verdict: every part ran, none failed" if not bad else
               f"verdict: {len(failed)} part(s) failed, {len(skipped)} skipped, "
               f"{len(missing)} not run")
    text = "\n".join(out) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print(text, end="")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
