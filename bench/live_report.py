#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""live_report.py - the tables of bench/live-bench.sh.

Reads, for each configuration run on the live cluster, its jobcomp/filetxt
records and locality-eval's per-job lines for them, and prints one table:
mean and p95 over multi-node jobs of each job's mean pairwise hops, the
mean's ratio to the first row (select/linear) and to the ideal (the most
compact placement the core finds for each job's size on an empty machine),
mean wait, makespan and, given the machine's node count (--nodes),
idle_fit: the node-seconds left idle while some queued job would have
fitted on the idle nodes by count. A last row, "bound", puts every
multi-node job at its size's ideal: no placement does better, so its
x_first is the least ratio to select/linear any policy can reach on that
run. Replay rows
(locality-replay's per-job CSV for the same workload) follow, for
comparing live with replay.

With --run rows instead (bench/live-topo.sh: jobs that share nodes), one
wider table: jobs submitted and started, mean and p95 hops over
multi-node jobs with their ratios to the first row and to the ideal
(and the first row's bound, as above),
nodes per started job (mean), mean and p95 wait, makespan, and the jobs
that never started (IDS lists the submitted jobs, "label jobid"; IDS.refused,
if present, those sbatch refused; both count as submitted). When a row
started fewer jobs than another, two lines per such row compare every
row's mean hops over the multi-node jobs that row started and its mean
wait over all the jobs that row started (matched by job name). When the
jobs are of several kinds (workload.sh gen --mixed names them c, x and
g: core, whole-node and GPU), a line per row gives each kind's mean wait
and ratio to the ideal; and a line per row gives the mean wait of the
jobs that ran on 1, 2-4 and 5 or more nodes.

  live_report.py [--ideal FILE] [--title TEXT] [--nodes N]
                 --live NAME JOBCOMP EVAL ... --replay NAME CSV ...
  live_report.py [--ideal FILE] [--title TEXT] --run NAME JOBCOMP EVAL IDS ...
  live_report.py [--ideal FILE] [--title TEXT] --medians --run NAME ... ...

With --medians, --run rows that share a NAME are rounds of one
configuration (bench/live-topo.sh --repeat): one line per configuration
gives each figure's median over its rounds and their range, the ratios
(x_first, wait_x) taken to the first configuration in the same round.
"""
import os
import argparse
import csv
import datetime
import statistics
import sys


def percentile(values, q):
    """Nearest-rank percentile (the core's metrics use the same rule)."""
    if not values:
        return float("nan")
    v = sorted(values)
    rank = max(1, -(-len(v) * q // 100))
    return v[int(rank) - 1]


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def ratio(a, b):
    return a / b if b else float("nan")


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()


def read_jobcomp(path):
    """JobId -> (submit, start, end, node count) of completed jobs."""
    jobs = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
            try:
                jobs[kv["JobId"]] = (parse_time(kv["SubmitTime"]),
                                     parse_time(kv["StartTime"]),
                                     parse_time(kv["EndTime"]),
                                     int(kv["NodeCnt"]))
            except (KeyError, ValueError):
                continue
    return jobs


def read_eval(path):
    """JobId -> mean pairwise hops, from locality-eval's per-job lines."""
    hops = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and not line.startswith(("summary:", "#")):
                try:
                    hops[w[0]] = float(w[2])
                except ValueError:
                    pass
    return hops


def read_ideal(path):
    ideal = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            k, h = line.split()
            ideal[int(k)] = float(h)
    return ideal


def row(name, per_job, ideal, waits, makespan):
    """per_job: (k, hops) of every job; figures over multi-node jobs."""
    multi = [(k, h) for k, h in per_job if k > 1]
    hops = [h for _, h in multi]
    best = [ideal.get(k) for k, _ in multi]
    known = best and None not in best
    to_ideal = (mean(hops) / mean(best)) if known else float("nan")
    return {"name": name, "jobs": len(per_job), "multi": len(multi),
            "mean": mean(hops), "p95": percentile(hops, 95),
            "ideal": to_ideal, "wait": mean(waits), "makespan": makespan,
            "bound": best if known else None}


def idle_with_fit(jobs, nodes):
    """Node-seconds left idle while some queued job would have fitted on
    the idle nodes by count: capacity held back by reservations and
    declined placements (jobcomp's times are whole seconds, and a node
    also idles while its job launches and completes)."""
    if not jobs or not nodes:
        return float("nan")
    first = int(min(j[0] for j in jobs.values()))
    last = int(max(j[2] for j in jobs.values()))
    idle = 0
    for t in range(first, last):
        busy = sum(j[3] for j in jobs.values() if j[1] <= t < j[2])
        queued = [j[3] for j in jobs.values() if j[0] <= t < j[1]]
        if queued and min(queued) <= nodes - busy:
            idle += nodes - busy
    return idle


def live_row(name, jobcomp, evalf, ideal, nodes):
    jobs, hops = read_jobcomp(jobcomp), read_eval(evalf)
    per_job = [(j[3], hops[i]) for i, j in jobs.items() if i in hops]
    waits = [j[1] - j[0] for j in jobs.values()]
    span = (max(j[2] for j in jobs.values()) - min(j[0] for j in jobs.values())
            if jobs else float("nan"))
    r = row(name, per_job, ideal, waits, span)
    r["idle"] = idle_with_fit(jobs, nodes)
    return r


def replay_row(name, path, ideal, nodes):
    per_job, waits, jobs = [], [], {}
    with open(path, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            k = int(r["requested_nodes"])
            per_job.append((k, float(r["mean_pairwise_hops"]) if k > 1 else 0.0))
            sub, start, end = float(r["submit"]), float(r["start"]), float(r["end"])
            waits.append(start - sub)
            jobs[len(jobs)] = (sub, start, end, k)
    span = (max(j[2] for j in jobs.values()) -
            min(j[0] for j in jobs.values()) if jobs else float("nan"))
    r = row(name, per_job, ideal, waits, span)
    r["idle"] = idle_with_fit(jobs, nodes)
    return r


def print_table(title, rows, base):
    print(title)
    w = max([30] + [len(r["name"]) for r in rows])
    print("%-*s %5s %5s %7s %7s %8s %8s %8s %9s %8s" % (
        w, "row", "jobs", "multi", "hops", "p95", "x_first", "x_ideal",
        "wait_s", "makespan", "idle_fit"))
    for r in rows:
        x_first = ratio(r["mean"], base["mean"]) if base else float("nan")
        ideal = "%8.3f" % r["ideal"] if r["ideal"] == r["ideal"] else "%8s" % "-"
        idle = "%8d" % r["idle"] if r["idle"] == r["idle"] else "%8s" % "-"
        print("%-*s %5d %5d %7.3f %7.2f %8.3f %s %8.1f %9.0f %s" % (
            w, r["name"], r["jobs"], r["multi"], r["mean"], r["p95"], x_first,
            ideal, r["wait"], r["makespan"], idle))
    if base and base["bound"]:
        b = base["bound"]
        print("%-*s %5d %5d %7.3f %7.2f %8.3f %8.3f %8s %9s %8s" % (
            w, "bound (each size's ideal)", base["jobs"], base["multi"],
            mean(b), percentile(b, 95), mean(b) / base["mean"], 1.0,
            "-", "-", "-"))


def count_lines(path):
    if not os.path.exists(path):
        return 0
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for line in f if line.strip())


def read_names(path):
    """JobId -> job name (Name=) of jobcomp records."""
    names = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
            if "JobId" in kv and "Name" in kv:
                names[kv["JobId"]] = kv["Name"]
    return names


def run_row(name, jobcomp, evalf, ids, ideal):
    """A --run row: started jobs are jobcomp records with nodes."""
    jobs = {i: j for i, j in read_jobcomp(jobcomp).items() if j[3] > 0}
    hops = read_eval(evalf)
    names = read_names(jobcomp)
    by_name = {names[i]: (j[3], hops[i]) for i, j in jobs.items()
               if i in hops and i in names}
    per_job = [(j[3], hops[i]) for i, j in jobs.items() if i in hops]
    waits = [j[1] - j[0] for j in jobs.values()]
    span = (max(j[2] for j in jobs.values()) - min(j[0] for j in jobs.values())
            if jobs else float("nan"))
    r = row(name, per_job, ideal, waits, span)
    r["wait95"] = percentile(waits, 95)
    r["nodes"] = mean([j[3] for j in jobs.values()])
    r["refused"] = count_lines(ids + ".refused")
    r["submitted"] = count_lines(ids) + r["refused"]
    r["started"] = len(jobs)
    r["unstarted"] = r["submitted"] - len(jobs)
    r["by_name"] = by_name
    r["wait_by_name"] = {names[i]: j[1] - j[0] for i, j in jobs.items()
                         if i in names}
    r["waits_by_nodes"] = [(j[3], j[1] - j[0]) for j in jobs.values()]
    return r


def print_common(rows):
    """Each row's mean hops over the multi-node jobs a row that started
    fewer jobs did start, and its mean wait over all the jobs that row
    started: the comparison its refusals do not flatter."""
    most = max(r["started"] for r in rows)
    for few in rows:
        if few["started"] == most:
            continue
        common = [n for n, (k, _) in few["by_name"].items() if k > 1 and
                  all(n in r["by_name"] for r in rows)]
        figures = ", ".join(
            "%s %.3f" % (r["name"], mean([r["by_name"][n][1] for n in common]))
            for r in rows)
        print("on the %d multi-node jobs %s started, hops: %s" % (
            len(common), few["name"], figures))
        started = [n for n in few["wait_by_name"]
                   if all(n in r["wait_by_name"] for r in rows)]
        figures = ", ".join(
            "%s %.1f" % (r["name"],
                         mean([r["wait_by_name"][n] for n in started]))
            for r in rows)
        print("on the %d jobs %s started, wait (s): %s" % (
            len(started), few["name"], figures))


# The kinds of workload.sh gen --mixed, by the first letter of a job's name.
KINDS = (("c", "core"), ("x", "whole"), ("g", "GPU"))


def print_kinds(rows, ideal):
    """Per row, each kind's mean wait and hops over the ideal (its
    multi-node jobs), when the jobs are of more than one kind: where a
    row's wait or hops come from."""
    for r in rows:
        parts = []
        for letter, kind in KINDS:
            waits = [w for n, w in r["wait_by_name"].items()
                     if n.startswith(letter)]
            if not waits:
                continue
            multi = [(k, h) for n, (k, h) in r["by_name"].items()
                     if n.startswith(letter) and k > 1]
            best = [ideal.get(k) for k, _ in multi]
            if multi and None not in best:
                x = "%.3f" % (mean([h for _, h in multi]) / mean(best))
            else:
                x = "-"
            parts.append("%s %d: wait %.1f s, x_ideal %s" % (
                kind, len(waits), mean(waits), x))
        if len(parts) < 2:
            return
        print("by kind, %s: %s" % (r["name"], "; ".join(parts)))


# The job sizes print_sizes groups waits by: nodes run on, first to last.
SIZES = ((1, 1, "1 node"), (2, 4, "2-4 nodes"), (5, None, "5+ nodes"))


def print_sizes(rows):
    """Per row, the mean wait of the jobs that ran on 1, 2-4 and 5 or
    more nodes: which sizes a row's wait comes from."""
    for r in rows:
        parts = []
        for lo, hi, label in SIZES:
            waits = [w for k, w in r["waits_by_nodes"]
                     if k >= lo and (hi is None or k <= hi)]
            if waits:
                parts.append("%s %d: wait %.1f s" % (label, len(waits),
                                                     mean(waits)))
        print("by size, %s: %s" % (r["name"], "; ".join(parts)))


def print_run_table(title, rows, ideal=None):
    print(title)
    # The row names set the first column's width (locality+KEY=VAL rows).
    w = max([26] + [len(r["name"]) for r in rows])
    print("%-*s %5s %5s %5s %6s %5s %7s %7s %6s %6s %6s %8s %9s" % (
        w, "row", "jobs", "start", "multi", "hops", "p95", "x_first",
        "x_ideal", "nodes", "wait", "w_p95", "makespan", "unstarted"))
    base = rows[0] if rows else None
    for r in rows:
        x_first = ratio(r["mean"], base["mean"])
        x_ideal = "%7.3f" % r["ideal"] if r["ideal"] == r["ideal"] else "%7s" % "-"
        bad = "%d" % r["unstarted"]
        if r["refused"]:
            bad += " (%d refused)" % r["refused"]
        print("%-*s %5d %5d %5d %6.3f %5.2f %7.3f %s %6.2f %6.1f %6.0f %8.0f %9s" % (
            w, r["name"], r["submitted"], r["started"], r["multi"], r["mean"],
            r["p95"], x_first, x_ideal, r["nodes"], r["wait"], r["wait95"],
            r["makespan"], bad))
    if base and base["bound"]:
        b = base["bound"]
        print("%-*s %5s %5s %5d %6.3f %5.2f %7.3f %7.3f %6s %6s %6s %8s %9s" % (
            w, "bound (each size's ideal)", "-", "-", base["multi"], mean(b),
            percentile(b, 95), mean(b) / base["mean"], 1.0, "-", "-", "-",
            "-", "-"))
    if rows:
        print_common(rows)
        print_kinds(rows, ideal or {})
        print_sizes(rows)


def spread(values, fmt):
    """The median of VALUES and their range: "1.62 (1.60-1.70)"; "-"
    when a round lacks the figure (NaN: no ideal known for a size)."""
    if any(v != v for v in values):
        return "-"
    mid = statistics.median(values)
    if len(values) == 1:
        return fmt % mid
    return (fmt + " (" + fmt + "-" + fmt + ")") % (mid, min(values),
                                                   max(values))


def print_medians(title, rows):
    """Rows that share a name are rounds of one configuration, run in
    turn (round 1 of every row, then round 2, ...): one line per
    configuration with each figure's median over its rounds and their
    range. x_first and wait_x are ratios to the first configuration's
    figure in the same round, so they compare rows run side by side."""
    rounds = {}
    for r in rows:
        rounds.setdefault(r["name"], []).append(r)
    counts = {len(v) for v in rounds.values()}
    if len(counts) != 1:
        raise ValueError("--medians: the rows have unequal round counts (%s)"
                         % ", ".join("%s %d" % (n, len(v))
                                     for n, v in rounds.items()))
    n = counts.pop()
    base = next(iter(rounds.values()))
    print("%s: medians of %d rounds (min-max)" % (title, n))
    w = max([26] + [len(name) for name in rounds])
    print("%-*s %-21s %-21s %-21s %-18s %-18s %5s %9s" % (
        w, "row", "hops", "x_first", "x_ideal", "wait", "wait_x", "nodes",
        "unstarted"))
    for name, rs in rounds.items():
        print("%-*s %-21s %-21s %-21s %-18s %-18s %5.2f %9d" % (
            w, name, spread([r["mean"] for r in rs], "%.3f"),
            spread([ratio(r["mean"], b["mean"]) for r, b in zip(rs, base)],
                   "%.3f"),
            spread([r["ideal"] for r in rs], "%.3f"),
            spread([r["wait"] for r in rs], "%.1f"),
            spread([ratio(r["wait"], b["wait"]) for r, b in zip(rs, base)],
                   "%.2f"),
            statistics.median([r["nodes"] for r in rs]),
            sum(r["unstarted"] for r in rs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ideal", help="k and ideal mean hops, one pair a line")
    ap.add_argument("--title", default="")
    ap.add_argument("--nodes", type=int, default=0,
                    help="the live machine's node count (for idle_fit)")
    ap.add_argument("--live", nargs=3, action="append", default=[],
                    metavar=("NAME", "JOBCOMP", "EVAL"))
    ap.add_argument("--replay", nargs=2, action="append", default=[],
                    metavar=("NAME", "CSV"))
    ap.add_argument("--run", nargs=4, action="append", default=[],
                    metavar=("NAME", "JOBCOMP", "EVAL", "IDS"))
    ap.add_argument("--medians", action="store_true",
                    help="--run rows that share a NAME are rounds: print "
                    "each figure's median over them")
    a = ap.parse_args()
    ideal = read_ideal(a.ideal) if a.ideal else {}
    if a.run and a.medians:
        rows = [run_row(n, j, e, i, ideal) for n, j, e, i in a.run]
        try:
            print_medians(a.title + " (live)", rows)
        except ValueError as err:
            print("live_report.py: %s" % err, file=sys.stderr)
            return 2
        return 0
    if a.run:
        print_run_table(a.title + " (live)",
                        [run_row(n, j, e, i, ideal) for n, j, e, i in a.run],
                        ideal)
        return 0
    live = [live_row(n, j, e, ideal, a.nodes) for n, j, e in a.live]
    print_table(a.title + " (live)", live, live[0] if live else None)
    if a.replay:
        rep = [replay_row(n, c, ideal, a.nodes) for n, c in a.replay]
        print()
        print_table(a.title + " (replay, same workload)", rep,
                    rep[0] if rep else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
