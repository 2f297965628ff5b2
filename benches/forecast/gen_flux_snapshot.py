#!/usr/bin/env python3
"""A large flux snapshot for timing `fairsort forecast` on a flux instance: NODES ranks of 64
cores, RUNNING jobs on them (one rank each, started in the last day), PENDING jobs, written as
`flux jobs -a --json` (the fields of flux-core 0.88 the reader uses) and `flux resource R`
into OUTDIR (seeded: the same files every run).

    gen_flux_snapshot.py OUTDIR [--nodes 10000] [--running 10000] [--pending 100000] [--at EPOCH]
"""
import argparse, json, os, random

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--nodes", type=int, default=10000)
ap.add_argument("--running", type=int, default=10000)
ap.add_argument("--pending", type=int, default=100000)
ap.add_argument("--at", type=int, default=1796187464)
a = ap.parse_args()
rnd = random.Random(31)
os.makedirs(a.out, exist_ok=True)
users = ["u%04d" % i for i in range(2000)]
free = [64] * a.nodes
jobs = []
jid = 1 << 24
for i in range(a.running):
    n = i % a.nodes
    c = rnd.randint(1, max(1, min(free[n], 32)))
    if free[n] < c:
        continue
    free[n] -= c
    limit = rnd.choice([60, 120, 240, 720, 1440, 2880]) * 60
    st = a.at - rnd.randint(0, min(limit - 60, 86400))
    jobs.append({"id": jid, "userid": 5000 + i % 2000, "username": rnd.choice(users),
                 "urgency": 16, "priority": 16, "state": "RUN", "t_submit": st - 600.0,
                 "t_run": st + 0.5, "expiration": float(st + limit), "duration": float(limit),
                 "ncores": c, "ntasks": c, "nnodes": 1, "ranks": str(n),
                 "nodelist": "n%05d" % n, "exception": {"occurred": False}})
    jid += 1 << 16
for i in range(a.pending):
    c = rnd.choice([1, 2, 4, 8, 16, 32, 64])
    urg = rnd.choice([16] * 8 + [8, 24, 31])
    jobs.append({"id": jid, "userid": 5000 + i % 2000, "username": rnd.choice(users),
                 "urgency": urg, "priority": 4294967295 if urg == 31 else urg,
                 "state": "SCHED", "t_submit": a.at - 86400 + i * 0.5,
                 "duration": float(rnd.choice([10, 30, 60, 120, 240, 720, 1440]) * 60),
                 "ncores": c, "ntasks": c, "exception": {"occurred": False},
                 "annotations": {}})
    jid += 1 << 16
with open(os.path.join(a.out, "jobs.json"), "w") as f:
    json.dump({"jobs": jobs}, f)
R = {"version": 1, "execution": {"R_lite": [{"rank": "0-%d" % (a.nodes - 1),
     "children": {"core": "0-63"}}], "starttime": 0.0, "expiration": 0.0,
     "nodelist": ["n[%05d-%05d]" % (0, a.nodes - 1)]}}
with open(os.path.join(a.out, "R.json"), "w") as f:
    json.dump(R, f)
