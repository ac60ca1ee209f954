#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes example-sacct.txt: a synthetic `sacct --parsable2` export of a
16-node cluster (n01-n16, a 4x4 mesh in example-locality.conf), made by a
small FCFS scheduler that scatters jobs over free nodes the way a
topology-unaware scheduler does. Deterministic (fixed seed). It contains
what real exports contain: job steps, an array job, a pending job, a
cancelled job, UNLIMITED time limits and a SubmitLine holding '|' and a
newline. Run: python3 make-example.py > example-sacct.txt"""
import heapq
import random
import time

rng = random.Random(20240611)
T0 = 1700000000
NODES = ["n%02d" % i for i in range(1, 17)]
cols = ["JobID", "JobName", "User", "Partition", "Submit", "Start", "End",
        "Elapsed", "Timelimit", "State", "NNodes", "NCPUS", "NodeList",
        "SubmitLine"]


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(T0 + t))


def hms(s):
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return ("%d-" % d if d else "") + "%02d:%02d:%02d" % (h, m, s)


def hostlist(names):
    nums = sorted(int(n[1:]) for n in names)
    parts, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append("%02d" % nums[i] if i == j else
                     "%02d-%02d" % (nums[i], nums[j]))
        i = j + 1
    return "n" + parts[0] if len(parts) == 1 and "-" not in parts[0] \
        else "n[" + ",".join(parts) + "]"


jobs, t = [], 0
for i in range(240):
    t += int(rng.expovariate(1 / 2750.0))
    k = rng.choice([1, 1, 1, 2, 2, 2, 3, 4, 4, 4, 6, 8, 8, 12, 16])
    limit = rng.choice([1800, 3600, 7200, 14400, 28800])
    run = int(limit * rng.uniform(0.05, 1.1))
    jobs.append(dict(id=1000 + i, k=k, submit=t, limit=limit,
                     run=min(run, limit), timeout=run >= limit,
                     user="user%d" % rng.randint(1, 6)))

# FCFS, nodes picked at random among the free ones
free, running, now, q = set(NODES), [], 0, list(jobs)
while q:
    head = q[0]
    while running and (len(free) < head["k"] or running[0][0] <= max(now, head["submit"])):
        if len(free) >= head["k"] and running[0][0] > max(now, head["submit"]):
            break
        end, jid, nodes = heapq.heappop(running)
        now = max(now, end)
        free |= set(nodes)
    now = max(now, head["submit"])
    nodes = rng.sample(sorted(free), head["k"])
    free -= set(nodes)
    head["start"], head["nodes"] = now, nodes
    heapq.heappush(running, (now + head["run"], head["id"], nodes))
    q.pop(0)

print("|".join(cols))
for j in jobs:
    state = "TIMEOUT" if j["timeout"] else "COMPLETED"
    limit = "UNLIMITED" if j["id"] % 37 == 0 else hms(j["limit"])
    sub = "sbatch -N %d job.sh" % j["k"]
    if j["id"] == 1013:
        sub = "sbatch --wrap='srun ./a.out | tee out.log\n  echo done'"
    row = [str(j["id"]), "job%d" % j["id"], j["user"], "batch",
           iso(j["submit"]), iso(j["start"]), iso(j["start"] + j["run"]),
           hms(j["run"]), limit, state, str(j["k"]), str(4 * j["k"]),
           hostlist(j["nodes"]), sub]
    print("|".join(row))
    # steps of the job, which a replay ignores
    print("|".join([str(j["id"]) + ".batch", "batch", "", "",
                    iso(j["submit"]), iso(j["start"]),
                    iso(j["start"] + j["run"]), hms(j["run"]), "",
                    state, "1", "4", j["nodes"][0], ""]))
last = jobs[-1]["submit"]
print("|".join(["1240_[1-4]", "arr", "user1", "batch", iso(last + 60),
                "Unknown", "Unknown", "00:00:00", "01:00:00", "PENDING", "1",
                "4", "None assigned", "sbatch -a 1-4 a.sh"]))
print("|".join(["1241", "gone", "user2", "batch", iso(last + 90), "None",
                iso(last + 95), "00:00:00", "01:00:00", "CANCELLED by 0",
                "2", "8", "None assigned", "sbatch b.sh"]))
