#!/usr/bin/env python3
"""A large PBS snapshot for timing `fairsort forecast`: NODES vnodes of 64 cpus / 256gb,
RUNNING jobs placed on them (each on one vnode, started in the last day), PENDING queued jobs,
written as `qstat -f -F json` and `pbsnodes -av -F json` into OUTDIR (seeded: the same files
every run).

    gen_snapshot.py OUTDIR [--nodes 10000] [--running 10000] [--pending 100000] [--at EPOCH]
"""
import argparse, json, os, random, time

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--nodes", type=int, default=10000)
ap.add_argument("--running", type=int, default=10000)
ap.add_argument("--pending", type=int, default=100000)
ap.add_argument("--at", type=int, default=1796187464)
a = ap.parse_args()
rnd = random.Random(31)
os.makedirs(a.out, exist_ok=True)


def ctime(t):
    return time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(t)).replace(" 0", "  ", 1) if False else time.strftime("%a %b %e %H:%M:%S %Y", time.gmtime(t))


def hms(s):
    return "%02d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60)


users = ["u%04d" % i for i in range(2000)]
free = [64] * a.nodes
assigned_mem = [0] * a.nodes
jobs = {}
seq = 1
for i in range(a.running):
    n = i % a.nodes
    c = rnd.randint(1, max(1, min(free[n], 32)))
    if free[n] < c:
        continue
    free[n] -= c
    assigned_mem[n] += c * 2
    wt = rnd.choice([3600, 7200, 4 * 3600, 12 * 3600, 24 * 3600, 48 * 3600])
    st = a.at - rnd.randint(0, min(wt - 60, 86400))
    u = rnd.choice(users)
    jobs["%d.pbs" % seq] = {
        "Job_Name": "r%d" % seq, "Job_Owner": u + "@h", "euser": u, "egroup": "g" + u[-1],
        "job_state": "R", "queue": "workq", "qtime": ctime(st - 600), "stime": ctime(st),
        "Resource_List": {"ncpus": c, "mem": "%dgb" % (2 * c), "walltime": hms(wt),
                          "select": "1:ncpus=%d:mem=%dgb" % (c, 2 * c), "place": "pack"},
    }
    seq += 1
for i in range(a.pending):
    c = rnd.choice([1, 1, 2, 4, 8, 16, 32, 64])
    wt = rnd.choice([600, 1800, 3600, 7200, 4 * 3600, 12 * 3600, 24 * 3600])
    u = rnd.choice(users)
    jobs["%d.pbs" % seq] = {
        "Job_Name": "p%d" % seq, "Job_Owner": u + "@h", "euser": u, "egroup": "g" + u[-1],
        "job_state": "Q", "queue": "workq", "qtime": ctime(a.at - a.pending + i),
        "Resource_List": {"ncpus": c, "mem": "%dgb" % (2 * c), "walltime": hms(wt),
                          "select": "1:ncpus=%d:mem=%dgb" % (c, 2 * c), "place": "pack"},
    }
    seq += 1
with open(os.path.join(a.out, "qstat.json"), "w") as f:
    json.dump({"timestamp": a.at, "pbs_version": "23.06.06", "pbs_server": "h", "Jobs": jobs}, f, indent=1)
nodes = {}
for n in range(a.nodes):
    nodes["n%05d" % n] = {
        "state": "free" if free[n] else "job-busy",
        "resources_available": {"ncpus": 64, "mem": "256gb"},
        "resources_assigned": {"ncpus": 64 - free[n], "mem": "%dgb" % assigned_mem[n]},
    }
with open(os.path.join(a.out, "pbsnodes.json"), "w") as f:
    json.dump({"timestamp": a.at, "nodes": nodes}, f, indent=1)
print("wrote", a.out, len(jobs), "jobs", a.nodes, "nodes")
