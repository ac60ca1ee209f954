#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""turnaround.py - how long a live cluster's nodes take to come back.

Reads jobcomp/filetxt records (JobId= ... StartTime= EndTime= NodeList=)
and, for every job that did not start at its submit, takes its start less
the last end of a job before it on any of its nodes: the time between a
node's job ending and the node's next job starting, when a job was
waiting for it (Epilog, the node completing, the scheduler's next pass).
Prints the count, mean, median and 90th percentile in seconds (jobcomp's
times have one-second resolution). locality-replay and locality-advise
model it with --turnaround S; bench/live-advise.sh prints it beside the
figure it gave the advisor.

  turnaround.py JOBCOMP

Exit status 2, with one line naming file and line, on a record it cannot
read.
"""
import datetime
import re
import sys

FIELD = re.compile(r"(\w+)=(\S*)")
RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


class BadRecord(Exception):
    pass


def hostnames(text):
    """Slurm's hostlist ("n[001-003,007],m2") as a list of names."""
    names, depth, part = [], 0, ""
    for ch in text + ",":
        if ch == "," and depth == 0:
            if part:
                names.extend(_expand(part))
            part = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        if depth < 0 or depth > 1:
            raise BadRecord(f"NodeList '{text}': unbalanced brackets")
        part += ch
    if depth:
        raise BadRecord(f"NodeList '{text}': unbalanced brackets")
    return names


def _expand(part):
    if "[" not in part:
        return [part]
    prefix, rest = part.split("[", 1)
    body, suffix = rest.split("]", 1)
    if "[" in suffix:
        raise BadRecord(f"NodeList part '{part}': one bracket group only")
    out = []
    for item in body.split(","):
        m = RANGE.match(item)
        if not m:
            raise BadRecord(f"NodeList part '{part}': bad range '{item}'")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        width = len(lo)
        if int(hi) < int(lo):
            raise BadRecord(f"NodeList part '{part}': range '{item}' runs backwards")
        out.extend(f"{prefix}{i:0{width}d}{suffix}" for i in range(int(lo), int(hi) + 1))
    return out


def die(text):
    print(f"turnaround.py: {text}", file=sys.stderr)
    sys.exit(2)


def stamp(rec, key):
    try:
        return datetime.datetime.strptime(rec[key], "%Y-%m-%dT%H:%M:%S").timestamp()
    except (KeyError, ValueError) as e:
        raise BadRecord(f"{key}: missing or not a time ({e})") from None


def read_jobs(path):
    jobs = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            rec = dict(FIELD.findall(line))
            try:
                if "JobId" not in rec:
                    raise BadRecord("no JobId=")
                jobs.append((stamp(rec, "SubmitTime"), stamp(rec, "StartTime"),
                             stamp(rec, "EndTime"),
                             set(hostnames(rec.get("NodeList", "")))))
            except BadRecord as e:
                die(f"{path}:{lineno}: {e}")
    return jobs


def turnarounds(jobs):
    """start - last earlier end on the job's nodes, for jobs that waited."""
    gaps = []
    for submit, start, _, nodes in jobs:
        if start <= submit or not nodes:
            continue
        ends = [e for _, s, e, n in jobs if s < start and e <= start and n & nodes]
        if ends:
            gaps.append(start - max(ends))
    return gaps


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    try:
        jobs = read_jobs(sys.argv[1])
    except OSError as e:
        die(f"{sys.argv[1]}: {e.strerror}")
    gaps = sorted(turnarounds(jobs))
    if not gaps:
        print(f"turnaround: no job of {len(jobs)} waited for nodes a job had used")
        return
    n = len(gaps)
    print(f"turnaround: {n} of {len(jobs)} jobs waited for nodes; start less the "
          f"last end on their nodes: mean {sum(gaps) / n:.2f} s, median "
          f"{gaps[(n - 1) // 2]:.0f} s, p90 {gaps[max(0, -(-9 * n // 10) - 1)]:.0f} s")


if __name__ == "__main__":
    main()
