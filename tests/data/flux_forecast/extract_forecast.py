#!/usr/bin/env python3
"""expected.json of one capture, from flux's own output only (README.md here):
the jobs fluxion started in its loop after the release, the jobs still pending with
fluxion's estimate (annotations.sched.t_estimate) and selection type, and the jobs it
rejected, with the exception flux raised."""
import json
import sys
from pathlib import Path


def jobs(path):
    return {j["id"]: j for j in json.loads(path.read_text())["jobs"]}


def main(d):
    d = Path(d)
    before, after = jobs(d / "before/jobs.json"), jobs(d / "after/jobs.json")
    policy = (d / "scenario.txt").read_text().split()[0]
    sched = lambda j: j.get("annotations", {}).get("sched", {})
    out = {
        "queue_policy": policy,
        "release_time": float((d / "release_time").read_text()),
        "before_time": float((d / "before/capture_time").read_text()),
        "after_time": float((d / "after/capture_time").read_text()),
        "running_before": [],
        "started_after_release": [],
        "pending": [],
        "rejected": [],
    }
    for i, b in sorted(before.items(), key=lambda kv: kv[1]["t_submit"]):
        a = after.get(i, {})
        row = {
            "id": i,
            "jobid": b["jobid"],
            "ncores": b.get("ncores"),
            "duration": b.get("duration"),
            "urgency": b.get("urgency"),
            "priority": b.get("priority"),
        }
        if b["state"] == "RUN":
            row["start"] = b.get("t_run")
            row["expiration"] = b.get("expiration")
            out["running_before"].append(row)
        elif b["state"] == "SCHED":
            if a.get("state") in ("RUN", "CLEANUP") or "t_run" in a:
                row["start"] = a.get("t_run")
                row["selection_type"] = sched(a).get("selection_type")
                out["started_after_release"].append(row)
            elif a.get("state") == "SCHED":
                t = sched(a).get("t_estimate")
                row["t_estimate"] = t
                row["start"] = None if t is None else int(t)
                row["selection_type"] = sched(a).get("selection_type")
                out["pending"].append(row)
            else:
                e = a.get("exception", {})
                row["state"] = a.get("state")
                row["result"] = a.get("result")
                row["exception_type"] = e.get("type")
                row["exception_note"] = e.get("note")
                out["rejected"].append(row)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
