#!/usr/bin/env python3
"""The oracle: evaluate job_sort_formula lines the way PBS's scheduler does.

Reads JSON lines {"f": formula, "b": {name: value}}; writes JSON lines
{"kind": "value"|"error"|"syntax"|"skip", "value": repr(float) or null, "error": str or null}.
Binding as PBS: fairshare_perc, fair_share_perc, fairshare_tree_usage, fairshare_factor and
fairsort's fair-share keywords are floats (%f); other values are ints when integral.
A complex result is an error ("must be real number, not complex"), as PyFloat_AsDouble says.
"""
import json
import math
import signal
import sys

FLOAT_KEYWORDS = {
    "fairshare_perc", "fair_share_perc", "fairshare_tree_usage", "fairshare_factor",
    "fairtree_factor", "level_fs", "classic_factor", "depth_oblivious_factor",
    "ticket_factor", "flux_fairshare",
}
MAIN = {}
exec("from math import *", MAIN)


class Timeout(Exception):
    pass


def alarm(_sig, _frame):
    raise Timeout()


signal.signal(signal.SIGALRM, alarm)


# Every keyword and built-in numeric resource is always bound (0 when not given), as PBS does.
DEFAULTS = {k: 0.0 for k in FLOAT_KEYWORDS}
DEFAULTS.update({k: 0 for k in (
    "eligible_time queue_priority job_priority accrue_type accelerator_memory cpupercent cput "
    "energy file hbmem hpm max_walltime mem min_walltime mpiprocs naccelerators nchunk ncpus "
    "nice nodect ompthreads pcap_accelerator pcap_node pcput pmem pvmem soft_walltime ssinodes "
    "start_time vmem walltime").split()})


def bind(b):
    g = dict(DEFAULTS)
    for k, v in b.items():
        v = float(v)
        if k in FLOAT_KEYWORDS or not v.is_integer():
            g[k] = v
        else:
            g[k] = int(v)
    return g


def run(f, b):
    try:
        code = compile(f, "<formula>", "eval")
    except SyntaxError:
        return {"kind": "syntax", "value": None, "error": None}
    signal.alarm(2)
    try:
        r = eval(code, bind(b), dict(MAIN))
        if isinstance(r, complex):
            raise TypeError("must be real number, not complex")
        v = float(r)
        return {"kind": "value", "value": repr(v), "error": None}
    except Timeout:
        return {"kind": "skip", "value": None, "error": None}
    except (MemoryError, RecursionError):
        return {"kind": "skip", "value": None, "error": None}
    except Exception as ex:  # PBS: any exception -> 0 and str(ex)
        return {"kind": "error", "value": None, "error": str(ex)}
    finally:
        signal.alarm(0)


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    case = json.loads(line)
    print(json.dumps(run(case["f"], case.get("b", {}))), flush=False)
