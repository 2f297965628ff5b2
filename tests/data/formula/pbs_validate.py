#!/usr/bin/env python3
"""The oracle for validation: PBS's server's `validate_job_formula` (src/server/sched_func.c).

Reads one formula per line; writes one JSON line per formula: the PBS error code the server
returns (15123 syntax, 15124 unknown name, 15125 non-numeric resource) or null when it accepts.
As the server: `from math import *` in the namespace; `exec('ans=<formula>', globals1, ns)`
with every resource and the 8 keywords = 1 (SyntaxError -> 15123, NameError -> 15124, any other
exception ignored), then, if that passed, the same with only the numeric resources (NameError ->
15125). Resources: OpenPBS's built-ins (master_resc_def_all.xml), as in src/pbs/resources.rs.
"""
import json
import sys

NUMERIC = (
    "accelerator_memory cpupercent cput energy file hbmem hpm max_walltime mem min_walltime "
    "mpiprocs naccelerators nchunk ncpus nice nodect ompthreads pcap_accelerator pcap_node pcput "
    "pmem pvmem soft_walltime ssinodes start_time vmem walltime"
).split()
OTHER = (
    "accelerator accelerator_group accelerator_model aoe arch eoe exec_vnode host nodemask nodes "
    "partition pgov place preempt_targets pstate resc select site software vnode vntype"
).split()
KEYWORDS = (
    "eligible_time queue_priority job_priority fairshare_perc fair_share_perc "
    "fairshare_tree_usage fairshare_factor accrue_type"
).split()


def validate(formula):
    globals1 = {k: 1 for k in NUMERIC + OTHER + KEYWORDS}
    globals2 = {k: 1 for k in NUMERIC + KEYWORDS}
    ns = {}
    exec("from math import *", ns)
    try:
        exec("ans=" + formula, globals1, ns)
    except SyntaxError:
        return 15123
    except NameError:
        return 15124
    except Exception:
        pass
    try:
        exec("ans=" + formula, globals2, ns)
    except NameError:
        return 15125
    except Exception:
        pass
    return None


for line in sys.stdin:
    print(json.dumps(validate(line.rstrip("\n"))), flush=False)
