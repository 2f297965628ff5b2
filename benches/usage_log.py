#!/usr/bin/env python3
"""Writes a PBS accounting log like `benches/usage.rs` generates (Q, S and E records per job,
50 000 users), for timing `fairsort usage record` by hand (docs/perf.md, "usage record").

    python3 benches/usage_log.py LOG [BYTES] [--first-job N]

BYTES defaults to 525 000 000. `--first-job` starts the job numbers elsewhere, to append new jobs
to an existing log (`>>`-style: the file is appended to when it exists and --append is given).
"""

import sys


def lines(job):
    user = (job * 2_654_435_761) % (1 << 64) % 50_000
    t = 1_713_000_000 + job
    h, m, s = (job // 3600) % 24, (job // 60) % 60, job % 60
    date = f"04/13/2024 {h:02}:{m:02}:{s:02}"
    cput = job % 86_400
    g, n, e = user % 100, job % 4096, t + 3600
    ch, cm, cs = cput // 3600, (cput // 60) % 60, cput % 60
    common = (
        f"user=user{user} group=grp{g} project=_pbs_project_default jobname=job{job} "
        f"queue=workq ctime={t} qtime={t} etime={t} start={t} exec_host=node{n}/0*4 "
        f"exec_vnode=(node{n}:ncpus=4:mem=8388608kb) Resource_List.mem=8gb "
        f"Resource_List.ncpus=4 Resource_List.nodect=1 Resource_List.place=pack "
        f"Resource_List.select=1:ncpus=4:mem=8gb Resource_List.walltime=04:00:00"
    )
    return (
        f"{date};Q;{job}.pbs-server;queue=workq\n"
        f"{date};S;{job}.pbs-server;{common} resource_assigned.mem=8388608kb "
        f"resource_assigned.ncpus=4\n"
        f"{date};E;{job}.pbs-server;{common} session={job} end={e} Exit_status=0 "
        f"resources_used.cpupercent=398 resources_used.cput={ch:02}:{cm:02}:{cs:02} "
        f"resources_used.mem=7340032kb resources_used.ncpus=4 resources_used.vmem=7340032kb "
        f"resources_used.walltime=01:00:00 run_count=1\n"
    )


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    first = 1
    mode = "w"
    for i, a in enumerate(argv):
        if a == "--first-job":
            first = int(argv[i + 1])
            args.remove(argv[i + 1])
        if a == "--append":
            mode = "a"
    if not args:
        sys.exit(__doc__)
    path = args[0]
    target = int(args[1]) if len(args) > 1 else 525_000_000
    written = 0
    job = first - 1
    with open(path, mode, buffering=1 << 20) as f:
        while written < target:
            job += 1
            text = lines(job)
            f.write(text)
            written += len(text)
    print(f"{path}: {written} bytes, jobs {first}..{job}")


if __name__ == "__main__":
    main(sys.argv)
