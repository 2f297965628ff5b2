#!/usr/bin/env python3
"""Writes a scenario's expected.json from its captured files (capture.sh calls it).

    extract_forecast.py SCENARIO_DIR > SCENARIO_DIR/expected.json

Every value comes from Slurm's own output:
  - after/squeue.json: the jobs after the backfill passes (start_time of a pending job is
    Slurm's estimate; 0 means none);
  - after/scontrol_show_job.txt: StartTime= (ISO, UTC; `Unknown` = none), Reason=, JobState=,
    Scheduler= (Main or Backfill: which scheduler last looked at the job);
  - after/squeue_start.txt: START_TIME of `squeue --start` (ISO, UTC; `N/A` = none);
  - before/squeue.json: which jobs were pending (held) before the release;
  - after/sdiag.txt: the last backfill cycle's time;
  - before/scontrol_show_config.txt: SchedulerParameters.
"""
import calendar
import json
import re
import sys
import time
from pathlib import Path


def iso_epoch(s):
    """`2026-12-02T06:59:48` (UTC) -> epoch; `Unknown`, `N/A`, `None` -> None."""
    if not s or s in ("Unknown", "N/A", "None", "(null)"):
        return None
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))


def scontrol_jobs(path):
    jobs = {}
    for line in Path(path).read_text().splitlines():
        fields = dict(re.findall(r"(?:^|\s)([A-Za-z][\w:/]*)=(\S*)", line))
        if "JobId" in fields:
            jobs[int(fields["JobId"])] = fields
    return jobs


def squeue_start(path):
    """JOBID -> START_TIME of `squeue --start` (text columns, header first)."""
    out = {}
    lines = Path(path).read_text().splitlines()
    if not lines:
        return out
    head = lines[0].split()
    col = head.index("START_TIME")
    for line in lines[1:]:
        cells = line.split()
        if len(cells) > col:
            out[int(cells[0])] = cells[col]
    return out


def sdiag_last_cycle(path):
    text = Path(path).read_text()
    part = text.split("Backfilling stats", 1)[-1]
    m = re.search(r"Last cycle when: .*\((\d+)\)", part)
    return int(m.group(1)) if m else None


def scheduler_parameters(path):
    for line in Path(path).read_text().splitlines():
        k, _, v = line.partition("=")
        if k.strip() == "SchedulerParameters":
            return v.strip()
    return None


def mem_mb(j):
    if j.get("memory_per_node") is not None:
        return j["memory_per_node"] * max(j.get("node_count") or 1, 1)
    if j.get("memory_per_cpu") is not None:
        return j["memory_per_cpu"] * (j.get("cpus") or 0)
    return None


def main(scn):
    scn = Path(scn)
    after = json.loads((scn / "after/squeue.json").read_text())
    before = json.loads((scn / "before/squeue.json").read_text())
    sc = scontrol_jobs(scn / "after/scontrol_show_job.txt")
    st = squeue_start(scn / "after/squeue_start.txt")
    was_pending = {j["job_id"] for j in before["jobs"] if j["job_state"] == "PENDING"}
    pending, started, running = [], [], []
    for j in sorted(after["jobs"], key=lambda j: j["job_id"]):
        jid = j["job_id"]
        s = sc.get(jid, {})
        if j["job_state"] == "PENDING":
            pending.append({
                "id": jid,
                "user": j["user_name"],
                "partition": j["partition"],
                "cpus": j["cpus"],
                "node_count": j["node_count"],
                "mem_mb": mem_mb(j),
                "time_limit_minutes": j["time_limit"],
                "priority": j["priority"],
                "state": j["job_state"],
                "reason": j["state_reason"],
                "start": j["start_time"] or None,
                "scontrol_start": iso_epoch(s.get("StartTime")),
                "squeue_start": iso_epoch(st.get(jid)),
                "scontrol_reason": s.get("Reason"),
                "scheduler": s.get("Scheduler"),
                "sched_nodes": s.get("SchedNodeList") or None,
            })
        elif j["job_state"] == "RUNNING":
            row = {
                "id": jid,
                "user": j["user_name"],
                "cpus": j["cpus"],
                "start": j["start_time"],
                "end": j["end_time"],
                "scheduler": s.get("Scheduler"),
            }
            (started if jid in was_pending else running).append(row)
    out = {
        "slurm": after["meta"]["Slurm"]["release"],
        "scenario": (scn / "scenario.txt").read_text().strip()
        if (scn / "scenario.txt").exists() else None,
        "release_time": int((scn / "release_time").read_text()),
        "capture_time": int((scn / "after/capture_time").read_text()),
        "last_backfill_cycle": sdiag_last_cycle(scn / "after/sdiag.txt"),
        "scheduler_parameters": scheduler_parameters(scn / "before/scontrol_show_config.txt"),
        "running_before": running,
        "started_after_release": started,
        "pending": pending,
    }
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
