#!/usr/bin/env python3
"""The oracle: evaluate job_sort_formula lines the way PBS's scheduler does.

Reads JSON lines {"f": formula, "b": {name: value}}; writes JSON lines
{"kind": "value"|"error"|"syntax"|"skip", "value": repr(float) or null, "error": str or null,
 "repr": repr(result) or null, "type": type name or null}.
Binding as PBS: fairshare_perc, fair_share_perc, fairshare_tree_usage, fairshare_factor and
fairsort's fair-share keywords are floats (%f); other values are ints when integral.
"value" is the value PBS sorts by: the scheduler reads the result with PyFloat_AsDouble outside
its try, so a result that is no real number (complex) or an int beyond the double range gives
-1.0 without an error (openpbs.md §1.4b); "repr" is Python's own result.
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
    except Timeout:
        return {"kind": "skip", "value": None, "error": None}
    except (MemoryError, RecursionError):
        return {"kind": "skip", "value": None, "error": None}
    except Exception as ex:  # PBS: any exception -> 0 and str(ex)
        return {"kind": "error", "value": None, "error": str(ex)}
    finally:
        signal.alarm(0)
    try:
        text = repr(r)
    except ValueError:  # an int of more than 4300 digits
        text = None
    try:
        v = -1.0 if isinstance(r, complex) else float(r)  # PyFloat_AsDouble
    except OverflowError:
        v = -1.0
    return {"kind": "value", "value": repr(v), "error": None, "repr": text,
            "type": type(r).__name__}


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    case = json.loads(line)
    print(json.dumps(run(case["f"], case.get("b", {}))), flush=False)
