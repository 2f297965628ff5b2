#!/usr/bin/env python3
"""The Python peer of `fairsort order`: what a site's script would do to dry-run PBS's job sort.

    peer_order.py --jobs QSTAT.json --tree resource_group --usage usage.txt --formula F
                  [--threshold X] [--fair-share] [--queue-priority Q=N]... [--pbs-compat]
                  [--csv | --json]

Reads `qstat -f -F json` with json.load, computes PBS fair share over the resource_group tree
(openpbs.md §3: C-float percentages and usage factors), binds each job's keywords, evaluates
job_sort_formula with Python's eval exactly as pbs_sched does (a globals dict per job, locals =
a namespace that did `from math import *`; any exception gives 0, a value that is not a float
gives -1), and sorts as PBS's cmp_sort: queued jobs first, value descending, the fair-share path
(compare_path) when fair_share is on, then submission order (qtime, id sequence number, id).
Prints the same rows as `fairsort order` (table, --csv, --json).

Default: exact values, as fairsort's default. --pbs-compat: PBS's text binding (resources with
at most 4 decimals, fair-share keywords as %f of a C float, value kept as a C float), as
`fairsort order --pbs-compat`. The formula is compiled once (PBS re-parses its text for every
job, which only makes PBS slower than this peer).
"""

import argparse
import calendar
import functools
import json
import math
import sys

from pbs_common import (compare_path, f32, fmt_value, pbs_fair_share, read_resource_group,
                        read_usage_text, resource_value, round_decimals, table)

MONTHS = {m: i + 1 for i, m in enumerate(
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])}

# PBS's built-in consumable resources: the globals dict holds each (0 when not requested).
CONSUMABLE = ["cput", "mem", "mpiprocs", "naccelerators", "ncpus", "nodect", "ompthreads",
              "pcput", "pmem", "pvmem", "vmem", "walltime", "accelerator_memory", "ngpus"]

THRESHOLD_COMMENT = "Not Running: Job is under job_sort_formula threshold value"

_qtime_cache = {}


def qtime_of(v):
    if isinstance(v, (int, float)):
        return v
    t = _qtime_cache.get(v)
    if t is None:
        # `Thu Jan  1 08:00:00 2026`
        _, mon, day, hms, year = v.split()
        h, m, s = hms.split(":")
        t = calendar.timegm((int(year), MONTHS[mon], int(day), int(h), int(m), int(s)))
        _qtime_cache[v] = t
    return t


def seq_of(job_id):
    head = job_id.split(".", 1)[0]
    idx = -1
    if "[" in head:
        head, rest = head.split("[", 1)
        rest = rest.rstrip("]")
        idx = int(rest) if rest.isdigit() else -1
    return (int(head) if head.isdigit() else 2 ** 64 - 1), idx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--usage")
    ap.add_argument("--formula", required=True)
    ap.add_argument("--threshold", type=float)
    ap.add_argument("--fair-share", action="store_true")
    ap.add_argument("--unknown-shares", type=int, default=0)
    ap.add_argument("--queue-priority", action="append", default=[])
    ap.add_argument("--pbs-compat", action="store_true")
    ap.add_argument("--csv", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    compat = a.pbs_compat
    qprio = {}
    for qp in a.queue_priority:
        q, n = qp.split("=", 1)
        qprio[q] = int(n)

    # The share tree and usage.
    tree = read_resource_group(a.tree, a.unknown_shares)
    if a.usage:
        read_usage_text(tree, a.usage)

    # The jobs.
    with open(a.jobs) as f:
        doc = json.load(f)
    jobs = []
    for jid, j in doc["Jobs"].items():
        owner = j.get("Job_Owner", "")
        user = j.get("euser") or owner.split("@", 1)[0]
        jobs.append((qtime_of(j.get("qtime", 0)), seq_of(jid), jid, user, j))
    del doc
    jobs.sort(key=lambda x: (x[0], x[1], x[2]))  # submission order

    # Entities not in the tree go under `unknown` with 1 share, as find_alloc_ginfo does.
    for job in jobs:
        if job[3] not in tree.index:
            tree.add(job[3], tree.unknown, 1)
    perc, uf, factor, usage = pbs_fair_share(tree)
    if compat:
        b_perc = [round_decimals(p, 6) for p in perc]
        b_uf = [round_decimals(u, 6) for u in uf]
        b_factor = [0.0 if perc[i] == 0.0 else round_decimals(2.0 ** -f32(uf[i] / perc[i]), 6)
                    for i in range(len(perc))]
    else:
        b_perc, b_uf, b_factor = perc, uf, factor

    # Fair-share ranks of the job entities (compare_path), dense: equal paths share a rank.
    fs_rank = {}
    if a.fair_share:
        nodes = sorted({tree.index[j[3]] for j in jobs})
        cmp = functools.cmp_to_key(lambda x, y: compare_path(tree, perc, usage, x, y))
        nodes.sort(key=cmp)
        r = 0
        for k, n in enumerate(nodes):
            if k and compare_path(tree, perc, usage, nodes[k - 1], n) != 0:
                r += 1
            fs_rank[n] = r

    # Evaluate, as pbs_sched: eval(formula, globals_dict, locals) with `from math import *`.
    main_ns = {"__builtins__": __builtins__}
    exec("from math import *", main_ns)
    code = compile(a.formula, "<job_sort_formula>", "eval")
    base = {name: 0 for name in CONSUMABLE}
    results = []
    for qt, seq, jid, user, j in jobs:
        g = dict(base)
        for name, v in j.get("Resource_List", {}).items():
            x = resource_value(name, v)
            if x is not None:
                g[name] = round_decimals(x, 4) if compat else x
        node = tree.index[user]
        g["fairshare_perc"] = g["fair_share_perc"] = b_perc[node]
        g["fairshare_tree_usage"] = b_uf[node]
        g["fairshare_factor"] = b_factor[node]
        el = j.get("eligible_time")
        g["eligible_time"] = (resource_value("walltime", el) or 0) if el is not None else 0
        if compat:
            g["eligible_time"] = int(g["eligible_time"])
        g["queue_priority"] = qprio.get(j.get("queue", ""), 0)
        g["job_priority"] = int(j.get("Priority", 0))
        g["accrue_type"] = int(j.get("accrue_type", 0))
        err = None
        try:
            v = eval(code, g, main_ns)
            try:
                v = float(v)
            except (TypeError, OverflowError):
                v = -1.0
        except Exception as ex:  # PBS: any exception -> 0, "Zero value will be used"
            v, err = 0.0, str(ex)
        if compat:
            v = f32(v)
        runnable = j.get("job_state") == "Q"
        key_v = -v if v == v else math.inf
        results.append((0 if runnable else 1, key_v, fs_rank.get(node, 2 ** 32), len(results),
                        v, err, jid, user, j.get("queue", ""), j.get("job_state", "")))
    results.sort()

    # Print.
    rows = []
    for rank, (nr, _, _, _, v, err, jid, user, queue, state) in enumerate(results, 1):
        below = nr == 0 and a.threshold is not None and v <= a.threshold
        if below:
            status = "below threshold"
        elif nr == 0:
            status = "eligible"
        else:
            status = {"R": "running", "H": "held"}.get(state, "state " + state)
        rows.append((rank, jid, user, queue, v, status, err, nr == 0 and not below, below))
    out = sys.stdout
    if a.json:
        out.write(json.dumps({
            "formula": a.formula, "threshold": a.threshold, "pbs_compat": compat,
            "total": len(rows),
            "jobs": [{"rank": r[0], "id": r[1], "owner": r[2], "queue": r[3], "value": r[4],
                      "error": r[6], "eligible": r[7], "status": r[5],
                      "comment": THRESHOLD_COMMENT if r[8] else None} for r in rows]},
            indent=2))
        out.write("\n")
    elif a.csv:
        import csv
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["rank", "job_id", "owner", "queue", "value", "status", "error"])
        w.writerows((r[0], r[1], r[2], r[3], fmt_value(r[4]), r[5], r[6] or "") for r in rows)
    else:
        out.write("peer_order: formula %s\njobs: %d\n\n" % (a.formula, len(rows)))
        cells = []
        for r in rows:
            st = r[5] if r[6] is None else "%s (error, 0 used: %s)" % (r[5], r[6])
            cells.append([str(r[0]), r[1], r[2], r[3], fmt_value(r[4]), st])
        table(["rank", "job id", "owner", "queue", "value", "status"],
              ["r", "l", "l", "l", "r", "l"], cells, out)


if __name__ == "__main__":
    main()
