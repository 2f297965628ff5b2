#!/usr/bin/env python3
"""Derive expected.json from one captured pbs_sched cycle.

Reads DIR/sched_log.txt (the scheduler log lines of one cycle, `Starting Scheduling Cycle`
to `Leaving Scheduling Cycle`) and DIR/qstat.json (`qstat -f -F json` right after it) and
writes DIR/expected.json:

  considered      the jobs in the order pbs_sched logged `Considering job to run`, each with
                  its `Formula Evaluation` value as printed (null when none was logged), the
                  formula error message if one was logged, and the other messages logged for it
  not_considered  every other job in qstat.json or in the log, with the messages logged for it
                  (`reason` is the first of them, or "no message (job_state S)")
  epoch           the time of the `Starting Scheduling Cycle` line (log times are local time
                  of the PBS host; the capture host runs in UTC)
"""
import argparse
import json
import os
import re
import time

FORMULA = re.compile(r"^Formula Evaluation = (.*)$")
ERROR = re.compile(r"^Formula evaluation for job had an error\.  Zero value will be used: (.*)$")
THRESHOLD = re.compile(r"^Job's formula value (.*) is under threshold (.*)$")


def parse_log(path):
    recs = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(";", 5)
            if len(parts) == 6:
                ts, code, _who, cls, obj, msg = parts
                recs.append({"time": ts, "code": code, "class": cls, "object": obj, "message": msg})
    return recs


def epoch_of(ts):
    return int(time.mktime(time.strptime(ts, "%m/%d/%Y %H:%M:%S")))


def job_facts(jobs, jobid):
    """Name, user, group, queue and state from qstat.json (subjobs fall back to the array)."""
    j = jobs.get(jobid)
    if j is None and "[" in jobid:
        j = jobs.get(re.sub(r"\[\d+\]", "[]", jobid))
    if j is None:
        return {}
    return {
        "name": j.get("Job_Name"),
        "user": j.get("euser") or j.get("Job_Owner", "").split("@")[0],
        "group": j.get("egroup"),
        "queue": j.get("queue"),
        "state": j.get("job_state"),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--scenario")
    ap.add_argument("--pbs-version")
    ap.add_argument("--sched", choices=["alive", "dead"], default="alive")
    a = ap.parse_args()

    recs = parse_log(os.path.join(a.dir, "sched_log.txt"))
    with open(os.path.join(a.dir, "qstat.json"), encoding="utf-8") as f:
        qstat = json.load(f)
    jobs = qstat.get("Jobs", {})

    start = next((r for r in recs if r["message"] == "Starting Scheduling Cycle"), None)
    end = next((r for r in recs if r["message"] == "Leaving Scheduling Cycle"), None)

    per_job = {}  # jobid -> facts, in first-logged order
    order = []
    for r in recs:
        if r["class"] != "Job" or not r["object"]:
            continue
        jid = r["object"]
        e = per_job.setdefault(jid, {"formula": None, "formula_error": None, "messages": []})
        m = r["message"]
        if m == "Considering job to run":
            order.append(jid)
            e.setdefault("considered_at", len(order))
        elif FORMULA.match(m):
            e["formula"] = FORMULA.match(m).group(1)
        else:
            if ERROR.match(m):
                e["formula_error"] = ERROR.match(m).group(1)
            e["messages"].append(m)

    cycle_notes = [
        r["message"]
        for r in recs
        if not (r["class"] == "Job" and r["object"])
        and r["message"] not in ("Starting Scheduling Cycle", "Leaving Scheduling Cycle")
    ]

    def entry(jid):
        e = per_job.get(jid, {"formula": None, "formula_error": None, "messages": []})
        out = {"job": jid}
        out.update(job_facts(jobs, jid))
        out["formula"] = e["formula"]
        if e["formula_error"] is not None:
            out["formula_error"] = e["formula_error"]
        out["messages"] = e["messages"]
        return out

    considered = [entry(j) for j in order]
    seen = set(order)
    rest = [j for j in per_job if j not in seen]
    rest += [j for j in jobs if j not in seen and j not in per_job]
    not_considered = []
    for jid in rest:
        e = entry(jid)
        e["reason"] = e["messages"][0] if e["messages"] else "no message (job_state %s)" % e.get("state")
        not_considered.append(e)

    out = {
        "scenario": a.scenario,
        "pbs_version": a.pbs_version,
        "cycle_start": start["time"] if start else None,
        "epoch": epoch_of(start["time"]) if start else None,
        "cycle_complete": end is not None,
        "sched_alive_after_cycle": a.sched == "alive",
        "qstat_timestamp": qstat.get("timestamp"),
        "considered": considered,
        "not_considered": not_considered,
        "cycle_notes": cycle_notes,
    }
    with open(os.path.join(a.dir, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
