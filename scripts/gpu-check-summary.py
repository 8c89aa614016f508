#!/usr/bin/env python3
"""Joins the summaries of scripts/gpu-check.sh run in chunks (PARTS="tests programs", then
PARTS=bench, ...: on one GPU the whole check can take longer than a command may run)
into one summary for a device, the file committed as docs/results/<device>/gpu-check.txt.

Every chunk must name the same commit and the same device; the joined summary lists each
chunk's parts, dates and wall time, every part's lines as the chunk wrote them, and the parts
of the whole check that no chunk ran ("not run"). A part may run again in a later chunk only
where the earlier chunk's deadline came first (it did not start, or was stopped there): the
later chunk's result then stands, and the summary says the part was resumed. A part that ran
to its end twice, or that failed and ran again, is a problem: a second try must not hide a
failure. Exit status: 0 when every part of the whole check ran and none failed, 1 otherwise
(a part that failed, was skipped for want of its tool or input, or did not run, or chunks of
different commits or devices), 2 on bad usage.

--resume SUMMARY prints the parts that SUMMARY's deadline left undone (not run, or stopped
at the deadline), one line, for scripts/gpu-check.sh RESUME=1.

Usage: scripts/gpu-check-summary.py CHUNK_SUMMARY... [--out FILE]
       scripts/gpu-check-summary.py --resume SUMMARY
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


DEADLINE = "the check's deadline"  # in the line of a part the deadline stopped or kept out


def read(path):
    """({header key: value}, {part: [its lines]}, {part: state}) of one chunk's summary: the
    header runs to the first blank line; the lines after the parts' are left out."""
    with open(path) as f:
        text = f.read().splitlines()
    head, lines, states = {}, {}, {}
    blank = text.index("") if "" in text else len(text)
    for line in text[:blank]:
        key, sep, value = line.partition(":")
        if sep:
            head[key.strip()] = value.strip()
    part = None
    for line in text[blank:]:
        if not line.strip() or line.startswith(("verdict:", "PROBLEM:", "chunk:")):
            continue
        m = PART.match(line)
        if m:
            part = m.group(1)
            lines[part], states[part] = [line], m.group(2)
        elif part and line.startswith("  "):
            lines[part].append(line)
    return head, lines, states


def undone(lines):
    """Whether a part's lines say the deadline kept it from starting or stopped it."""
    return DEADLINE in lines[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("summaries", nargs="*")
    ap.add_argument("--out")
    ap.add_argument("--resume", metavar="SUMMARY")
    a = ap.parse_args()
    if a.resume:
        try:
            _, lines, _ = read(a.resume)
        except OSError as e:
            print(f"gpu-check-summary: {e}", file=sys.stderr)
            return 2
        print(" ".join(p for p, l in lines.items() if undone(l)))
        return 0
    if not a.summaries:
        ap.error("no chunk summary given")
    chunks = [(p, *read(p)) for p in a.summaries]
    problems = []
    for key in ("commit", "device"):
        values = sorted({h.get(key, "?") for _, h, _, _ in chunks})
        if len(values) != 1:
            problems.append(f"the chunks name different {key}s: {', '.join(values)}")
    if any("+changes" in h.get("commit", "") for _, h, _, _ in chunks):
        problems.append("built from a tree with uncommitted changes to the code")
    states, lines, resumed = {}, {}, []
    for n, (path, _, chunk_lines, s) in enumerate(chunks, 1):
        for part, state in s.items():
            if part in states:
                if not undone(lines[part]):
                    problems.append(f"{part} ran in two chunks ({path} is the second)")
                    continue
                resumed.append(f"resumed  {part}: in chunk {n}, after an earlier chunk's "
                               f"deadline came first")
            states[part], lines[part] = state, chunk_lines[part]
    order = [p[0] for p in schedule.PARTS]
    missing = [p for p in order if p not in states]
    out = ["gpu-check summary, joined from chunks (scripts/gpu-check-summary.py)",
           f"commit:  {chunks[0][1].get('commit', '?')}",
           f"device:  {chunks[0][1].get('device', '?')}", ""]
    for _, h, _, _ in chunks:
        out.append(f"chunk:   PARTS=\"{h.get('parts', '?')}\" on {h.get('gpus', '?')} GPU(s), "
                   f"{h.get('date', '?')}, wall {h.get('wall', '?')}")
    out.append("")
    for part in sorted(lines, key=lambda p: order.index(p) if p in order else len(order)):
        out += lines[part]
    out += [f"not run  {p}" for p in missing] + resumed
    failed = [p for p, s in states.items() if s == "FAIL"]
    not_run = [p for p, s in states.items() if s == "not run"] + missing
    skipped = [p for p, s in states.items() if s == "skip"]
    out += [""] + [f"PROBLEM: {p}" for p in problems]
    # A part that could not run (its tool or its input missing) did not pass: the whole check
    # has run only when none was skipped.
    bad = failed or not_run or problems or skipped
    out.append("verdict: every part ran, none failed" if not bad else
               f"verdict: {len(failed)} part(s) failed, {len(skipped)} skipped, "
               f"{len(not_run)} not run")
    text = "\n".join(out) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print(text, end="")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
