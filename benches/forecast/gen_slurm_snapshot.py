#!/usr/bin/env python3
"""A large Slurm snapshot for timing `fairsort forecast --slurm-conf`: NODES nodes of 64 cpus /
256000 MB, RUNNING jobs on them (one node each, started in the last day), PENDING jobs, written
as `squeue --json` and `sinfo --json` (the fields of Slurm 22.05 the reader uses) and a
slurm.conf with the backfill defaults into OUTDIR (seeded: the same files every run).

    gen_slurm_snapshot.py OUTDIR [--nodes 10000] [--running 10000] [--pending 100000] [--at EPOCH]
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
mem = [0] * a.nodes
jobs = []
jid = 1
for i in range(a.running):
    n = i % a.nodes
    c = rnd.randint(1, max(1, min(free[n], 32)))
    if free[n] < c:
        continue
    free[n] -= c
    mem[n] += 2000 * c
    limit = rnd.choice([60, 120, 240, 720, 1440, 2880])
    st = a.at - rnd.randint(0, min(limit * 60 - 60, 86400))
    jobs.append({"job_id": jid, "user_name": rnd.choice(users), "account": "", "partition": "batch",
                 "job_state": "RUNNING", "submit_time": st - 600, "start_time": st,
                 "end_time": st + limit * 60, "time_limit": limit, "priority": 1000,
                 "cpus": c, "node_count": 1, "memory_per_node": 2000 * c, "memory_per_cpu": None,
                 "nodes": "n%05d" % n, "state_reason": "None", "state_description": ""})
    jid += 1
for i in range(a.pending):
    c = rnd.choice([1, 1, 2, 4, 8, 16, 32, 64])
    limit = rnd.choice([10, 30, 60, 120, 240, 720, 1440])
    jobs.append({"job_id": jid, "user_name": rnd.choice(users), "account": "", "partition": "batch",
                 "job_state": "PENDING", "submit_time": a.at - a.pending + i, "start_time": 0,
                 "end_time": 0, "time_limit": limit, "priority": rnd.randint(1, 100000),
                 "cpus": c, "node_count": 1, "memory_per_node": 2000 * c, "memory_per_cpu": None,
                 "nodes": "", "state_reason": "Priority", "state_description": ""})
    jid += 1
with open(os.path.join(a.out, "squeue.json"), "w") as f:
    json.dump({"meta": {}, "errors": [], "jobs": jobs}, f)
nodes = [{"name": "n%05d" % n, "cpus": 64, "real_memory": 256000, "alloc_cpus": 64 - free[n],
          "alloc_memory": mem[n], "state": "mixed" if free[n] else "allocated", "state_flags": [],
          "partitions": ["batch"]} for n in range(a.nodes)]
with open(os.path.join(a.out, "sinfo.json"), "w") as f:
    json.dump({"meta": {}, "errors": [], "nodes": nodes}, f)
with open(os.path.join(a.out, "slurm.conf"), "w") as f:
    f.write("SchedulerType=sched/backfill\nSchedulerParameters=bf_resolution=60,bf_window=1440,bf_max_job_test=500\n"
            "NodeName=n[00000-%05d] CPUs=64 RealMemory=256000\nPartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE\n" % (a.nodes - 1))
print("wrote", a.out, len(jobs), "jobs", a.nodes, "nodes")
