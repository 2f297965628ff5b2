#!/usr/bin/env python3
"""Derive expected.json for one forecast capture: what pbs_sched decided in the cycle.

For every job queued in before/qstat.json: `runs_now` (running in after/qstat.json), `start`
(its `stime` when it started, else `estimated.start_time` when pbs_sched calendared it, as
epoch seconds UTC), `top_job` (it has an estimate), and `reason` (its comment after the cycle
when it did not start). `at` is the cycle's start, from the log's `Starting Scheduling Cycle`.
"""
import argparse, calendar, json, os, re, sys, time


def epoch(ctime_text):
    # qstat prints times as ctime(3) in the server's time zone (UTC on the capture host)
    return calendar.timegm(time.strptime(ctime_text, "%a %b %d %H:%M:%S %Y"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--pbs-version", required=True)
    a = ap.parse_args()
    before = json.load(open(os.path.join(a.dir, "before/qstat.json")))["Jobs"]
    after = json.load(open(os.path.join(a.dir, "after/qstat.json")))["Jobs"]
    log = open(os.path.join(a.dir, "sched_log.txt")).read().splitlines()
    at = None
    for line in log:
        if line.endswith(";Starting Scheduling Cycle"):
            at = calendar.timegm(time.strptime(line.split(";")[0], "%m/%d/%Y %H:%M:%S"))
            break
    jobs = []
    for jid, b in before.items():
        if b.get("job_state") != "Q":
            continue
        x = after.get(jid, {})
        runs = x.get("job_state") == "R"
        est = x.get("estimated", {}).get("start_time")
        start = epoch(x["stime"]) if runs and "stime" in x else (epoch(est) if est else None)
        jobs.append({
            "id": jid,
            "name": b.get("Job_Name"),
            "runs_now": runs,
            "top_job": (not runs) and est is not None,
            "start": start,
            "reason": None if runs else x.get("comment"),
        })
    out = {
        "scenario": a.scenario,
        "pbs_version": a.pbs_version,
        "at": at,
        "jobs": jobs,
    }
    with open(os.path.join(a.dir, "expected.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
