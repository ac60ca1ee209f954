#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""replay-vs-live.py - a live run and its replay, job by job, by job size.

Puts each job of a live run (bench/live-bench.sh, live-topo.sh: the files
PREFIX.jobcomp, PREFIX.eval and PREFIX.ids of its live/ directory) beside
the same job in a replay of its workload (locality-replay's per-row CSV),
and prints per node-count class the jobs, their mean wait live and
replayed, and their mean pairwise hops live and replayed (jobs of two
nodes or more). It says where a prediction misses: which job sizes, and
whether in waits or placements.

  replay-vs-live.py PREFIX REPLAY_CSV

Jobs are matched by name: the live job jN is the replay's job N (the
SWF's job number, as workload.sh to-swf writes them). A live job with no
replayed twin is counted on a last line, never dropped silently. Exit
status 2, with one line naming file and line, on input it cannot read.
"""
import csv
import datetime
import re
import sys

FIELD = re.compile(r"(\w+)=(\S*)")
CLASSES = [(1, 1), (2, 4), (5, 8), (9, 16), (17, None)]


class BadInput(Exception):
    pass


def _seconds(path, lineno, text):
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise BadInput(f"{path}:{lineno}: '{text}' is not a time")


def _job_number(path, lineno, name):
    if not re.fullmatch(r"j\d+", name):
        raise BadInput(f"{path}:{lineno}: job name '{name}' is not jN")
    return int(name[1:])


def read_live(prefix):
    """{N: [nodes, wait_s, hops or None]} from PREFIX.{jobcomp,ids,eval}."""
    jobs, by_id = {}, {}
    path = prefix + ".jobcomp"
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            rec = dict(FIELD.findall(line))
            need = ("Name", "NodeCnt", "StartTime", "SubmitTime")
            if any(k not in rec for k in need):
                raise BadInput(f"{path}:{lineno}: not a jobcomp record "
                               f"(needs {', '.join(need)})")
            n = _job_number(path, lineno, rec["Name"])
            if not rec["NodeCnt"].isdigit():
                raise BadInput(f"{path}:{lineno}: NodeCnt "
                               f"'{rec['NodeCnt']}' is not a count")
            wait = (_seconds(path, lineno, rec["StartTime"]) -
                    _seconds(path, lineno, rec["SubmitTime"]))
            jobs[n] = [int(rec["NodeCnt"]), wait, None]
    path = prefix + ".ids"
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != 2 or not parts[1].isdigit():
                raise BadInput(f"{path}:{lineno}: not 'jN JOBID'")
            by_id[parts[1]] = _job_number(path, lineno, parts[0])
    path = prefix + ".eval"
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            # the header, and the summary lines after the jobs
            if len(parts) < 7 or parts[0] not in by_id:
                continue
            try:
                hops = float(parts[2])
            except ValueError:
                raise BadInput(f"{path}:{lineno}: avg_hops '{parts[2]}' "
                               "is not a number")
            n = by_id[parts[0]]
            if n in jobs:
                jobs[n][2] = hops
    return jobs


def read_replay(path):
    """{N: (wait_s, hops)} from locality-replay's per-row CSV."""
    out = {}
    with open(path, newline="") as f:
        rows = csv.DictReader(f)
        need = ("job_id", "submit", "start", "mean_pairwise_hops")
        if rows.fieldnames is None or any(k not in rows.fieldnames
                                          for k in need):
            raise BadInput(f"{path}:1: not a locality-replay row CSV "
                           f"(needs {', '.join(need)})")
        for row in rows:
            lineno = rows.line_num
            try:
                n = int(row["job_id"])
                wait = int(row["start"]) - int(row["submit"])
                hops = float(row["mean_pairwise_hops"])
            except (TypeError, ValueError):
                raise BadInput(f"{path}:{lineno}: job_id, submit, start "
                               "or mean_pairwise_hops is not a number")
            out[n] = (wait, hops)
    return out


def _label(lo, hi):
    if hi is None:
        return f"{lo}+"
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _mean(xs):
    return f"{sum(xs) / len(xs):.3f}" if xs else "-"


def report(live, replay):
    lines = ["nodes   jobs  wait_live  wait_replay  hops_live  hops_replay"]
    unmatched = sorted(n for n in live if n not in replay)
    for lo, hi in CLASSES + [(1, None)]:
        sel = [n for n, (k, _, _) in live.items() if n in replay and
               k >= lo and (hi is None or k <= hi)]
        if not sel:
            continue
        multi = [n for n in sel if live[n][0] > 1 and live[n][2] is not None]
        label = "all" if (lo, hi) == (1, None) else _label(lo, hi)
        lines.append(
            f"{label:<6} {len(sel):5d}  {_mean([live[n][1] for n in sel]):>9}"
            f"  {_mean([replay[n][0] for n in sel]):>11}"
            f"  {_mean([live[n][2] for n in multi]):>9}"
            f"  {_mean([replay[n][1] for n in multi]):>11}")
    if unmatched:
        lines.append(f"{len(unmatched)} live jobs have no replayed twin: "
                     + " ".join(f"j{n}" for n in unmatched[:10]) +
                     (" ..." if len(unmatched) > 10 else ""))
    return "\n".join(lines)


def main(argv):
    if len(argv) != 3:
        print("usage: replay-vs-live.py PREFIX REPLAY_CSV", file=sys.stderr)
        return 1
    try:
        print(report(read_live(argv[1]), read_replay(argv[2])))
    except BadInput as e:
        print(f"replay-vs-live.py: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"replay-vs-live.py: {e.filename}: {e.strerror}",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
