#!/usr/bin/env python3
"""The Python peer of `fairsort share`: fair-share values over a whole tree, as a site's script
would compute them (standard library only).

    peer_share.py --algorithm A (--tree sshare.psv | --tree resource_group --usage usage.txt)
                  [--json | --csv]

Algorithms: pbs (PBS resource_group + `name usage` text, openpbs.md §3, C floats), classic,
depth-oblivious, fair-tree, ticket (every user active) and flux (flux-accounting's weighted
walk) over an `sshare -a -l -P` capture (slurm.md §0-4, flux.md §1). Not handled, because the
generated trees have none: `FairShare=parent`, Fair Tree's and flux's tied *accounts* (flux
merges tied banks into a virtual bank; Fair Tree passes the tie to the next account's first
user), zero-usage flux users. Rows are the tree in pre-order (PBS: file order, `unknown` last),
with the same columns as `fairsort share` (--csv, --json; the table is sshare's/pbsfs's columns).
"""

import argparse
import json
import math
import sys

from pbs_common import pbs_fair_share, read_resource_group, read_usage_text, table

NO_VAL = 4294967294.0
DBL_EPSILON = sys.float_info.epsilon


class SlurmTree:
    def __init__(self):
        self.account = []   # account name (user rows: their account)
        self.user = []      # user name or None
        self.parent = []
        self.shares = []
        self.usage = []
        self.depth = []
        self.children = []


def read_sshare(path):
    t = SlurmTree()
    stack = []  # account node per depth
    with open(path) as f:
        header = f.readline().rstrip("\n").split("|")
        col = {h.replace(" ", ""): i for i, h in enumerate(header)}
        ca, cu, cs, cr = col["Account"], col["User"], col["RawShares"], col["RawUsage"]
        for line in f:
            c = line.rstrip("\n").split("|")
            acct = c[ca]
            name = acct.lstrip(" ")
            depth = len(acct) - len(name)
            user = c[cu] or None
            i = len(t.account)
            if user is None:
                del stack[depth:]
                stack.append(i)
                parent = stack[depth - 1] if depth else -1
            else:
                depth -= 1  # a user row names its account one level deeper
                parent = stack[depth]
                depth += 1
            t.account.append(name)
            t.user.append(user)
            t.parent.append(parent)
            t.shares.append(int(c[cs]) if c[cs] else None)
            t.usage.append(float(c[cr]) if c[cr] else 0.0)
            t.depth.append(depth)
            t.children.append([])
            if parent >= 0:
                t.children[parent].append(i)
    return t


def level_shares(t):
    """Σ of the siblings' raw shares, per node (root: its own, unused)."""
    n = len(t.account)
    lv = [0] * n
    for i in range(n):
        kids = t.children[i]
        if kids:
            s = 0
            for c in kids:
                s += t.shares[c]
            for c in kids:
                lv[c] = s
    return lv


def norm_shares_classic(t, lv):
    n = len(t.account)
    S = [1.0] * n
    for i in range(1, n):  # parents come before children
        S[i] = 0.0 if lv[i] == 0 else S[t.parent[i]] * (t.shares[i] / lv[i])
    return S


def norm_usage(t):
    root = t.usage[0]
    out = [0.0 if root == 0 else min(u / root, 1.0) for u in t.usage]
    out[0] = None  # sshare prints no NormUsage on root
    return out


def classic(t, d=1.0):
    lv = level_shares(t)
    S = norm_shares_classic(t, lv)
    UN = norm_usage(t)
    n = len(S)
    UE = [1.0] * n
    F = [0.0] * n
    for i in range(n):
        p = t.parent[i]
        if p == 0:
            UE[i] = UN[i]
        elif p > 0:
            UE[i] = UE[p] if lv[i] == 0 else UN[i] + (UE[p] - UN[i]) * (t.shares[i] / lv[i])
        F[i] = 0.0 if S[i] <= 0 else 2.0 ** (-(UE[i] / S[i]) / d)
    return {"norm_shares": S, "norm_usage": UN, "effective_usage": UE, "fairshare": F}


def depth_oblivious(t, d=1.0):
    lv = level_shares(t)
    S = norm_shares_classic(t, lv)
    UN = norm_usage(t)
    n = len(S)
    UE = [1.0] * n
    F = [0.0] * n
    sib_usage = {}
    for i in range(n):
        kids = t.children[i]
        if kids:
            s = 0.0
            for c in kids:
                s += UN[c]
            sib_usage[i] = s
    for i in range(n):
        p = t.parent[i]
        if p == 0:
            UE[i] = UN[i]
        elif p > 0:
            U = UN[i]
            if S[i] != 0 and S[p] != 0 and UE[p] != 0 and U != 0:
                rp = UE[p] / S[p]
                rs = sib_usage[p] / S[p]
                rl = (U / S[i]) / rs
                if rp == 0 or rl == 0 or math.log(rp) * math.log(rl) >= 0:
                    k = 1.0
                else:
                    k = 1.0 / (1.0 + (5.0 * math.log(rp)) ** 2)
                UE[i] = rp * rl ** k * S[i]
            else:
                UE[i] = U
        F[i] = 0.0 if S[i] <= 0 else 2.0 ** (-(UE[i] / S[i]) / d)
    return {"norm_shares": S, "norm_usage": UN, "effective_usage": UE, "fairshare": F}


def fair_tree(t):
    lv = level_shares(t)
    n = len(t.account)
    S = [0.0] * n
    U = [1.0] * n
    LF = [None] * n
    for i in range(1, n):
        p = t.parent[i]
        S[i] = 0.0 if lv[i] == 0 else t.shares[i] / lv[i]
        pu = t.usage[p]
        U[i] = 0.0 if pu == 0 else t.usage[i] / pu
        LF[i] = 0.0 if S[i] == 0 else (math.inf if U[i] == 0 else S[i] / U[i])
    N = sum(1 for u in t.user if u is not None)
    F = [None] * n
    state = {"rnt": N, "rank": N}

    def walk(kids, account_tied):
        # LF descending, users before accounts on ties, else tree order (a stable sort).
        order = sorted(kids, key=lambda c: (-LF[c], t.user[c] is None))
        prev = NO_VAL
        for k, c in enumerate(order):
            tied = account_tied if k == 0 and account_tied else prev == LF[c]
            if t.user[c] is not None:
                if not tied:
                    state["rank"] = state["rnt"]
                F[c] = state["rank"] / N
                state["rnt"] -= 1
            else:
                walk(t.children[c], tied)
            prev = LF[c]

    walk(t.children[0], False)
    return {"norm_shares": S, "norm_usage": norm_usage(t), "effective_usage": U,
            "fairshare": F, "level_fs": LF}


def ticket(t):
    lv = level_shares(t)
    S = norm_shares_classic(t, lv)
    UN = norm_usage(t)
    n = len(S)
    UE = [1.0] * n
    Fn = [0.0] * n
    for i in range(1, n):
        p = t.parent[i]
        UE[i] = UN[i] if p == 0 else max(UN[i], 0.01 * (t.shares[i] / lv[i] if lv[i] else 0.0))
        Fn[i] = 0.0 if S[i] <= 0 else S[i] / max(UE[i], 0.01 * S[i])
    T = [0.0] * n
    T[0] = 4294967295.0
    for i in range(n):
        kids = t.children[i]
        if not kids:
            continue
        tot = 0.0
        for c in kids:
            tot += S[c] * Fn[c]
        for c in kids:
            T[c] = 0.0 if tot == 0 else float(int(T[i] * (S[c] * Fn[c] / tot)))
    mx = max((T[i] for i in range(n) if t.user[i] is not None), default=0.0)
    F = [None if t.user[i] is None else (T[i] / mx if mx > 0 else 0.0) for i in range(n)]
    return {"norm_shares": S, "norm_usage": UN, "effective_usage": UE, "fairshare": F,
            "tickets": T}


def flux(t):
    """flux-accounting's weighted walk: sibling weights (shares/S)/(usage/U), sorted
    descending (users first on equal weights), depth first; fairshare = rank/N, tied users
    (flux's is_equal) share a rank (standard competition ranking from the top)."""
    n = len(t.account)
    W = [None] * n
    for i in range(n):
        kids = t.children[i]
        if not kids:
            continue
        S = 0
        U = 0.0
        for c in kids:
            S += t.shares[c]
            U += t.usage[c]
        for c in kids:
            if t.shares[c] == 0:
                W[c] = 0.0
            elif abs(t.usage[c]) < 1e-9:
                W[c] = 18446744073709551616.0
            else:
                W[c] = (t.shares[c] / S) / (t.usage[c] / U)
    N = sum(1 for u in t.user if u is not None)
    F = [None] * n

    def eq(a, b):
        return abs(a - b) < DBL_EPSILON * max(abs(a), abs(b), 1.0)

    state = {"rank": N, "stride": 0}

    def walk(i):
        kids = sorted(t.children[i], key=lambda c: (-W[c], t.user[c] is None))
        for k, c in enumerate(kids):
            if t.user[c] is None:
                walk(c)
                continue
            F[c] = state["rank"] / N
            nxt = kids[k + 1] if k + 1 < len(kids) else None
            if nxt is not None and t.user[nxt] is not None and eq(W[c], W[nxt]):
                state["stride"] += 1
            else:
                state["rank"] -= 1 + state["stride"]
                state["stride"] = 0

    walk(0)
    root_u = t.usage[0]
    lv = level_shares(t)
    NS = norm_shares_classic(t, lv)
    NU = [1.0] + [t.usage[i] / root_u if root_u else 0.0 for i in range(1, n)]
    return {"norm_shares": NS, "norm_usage": NU, "fairshare": F, "weight": W}


COLUMNS = ["account", "user", "depth", "raw_shares", "raw_usage", "norm_shares", "norm_usage",
           "effective_usage", "fairshare", "level_fs"]
EXTRA = {"ticket": ["tickets"], "flux": ["weight"],
         "pbs": ["fairshare_perc", "fairshare_tree_usage", "fairshare_factor"]}


def slurm_rows(t, cols):
    n = len(t.account)
    for i in range(n):
        row = {"account": t.account[i] if t.user[i] is None else t.account[t.parent[i]],
               "user": t.user[i], "depth": t.depth[i],
               "raw_shares": t.shares[i], "raw_usage": t.usage[i]}
        for k, v in cols.items():
            row[k] = v[i]
        yield row


def pbs_rows(tree_path, usage_path):
    tree = read_resource_group(tree_path)
    if usage_path:
        read_usage_text(tree, usage_path)
    perc, uf, factor, usage = pbs_fair_share(tree)
    depth = [0] * len(tree.name)
    order = []
    stack = [0]
    while stack:
        i = stack.pop()
        order.append(i)
        for c in reversed(tree.children[i]):
            depth[c] = depth[i] + 1
            stack.append(c)
    for i in order:
        p = tree.parent[i]
        leaf = i != 0 and i != tree.unknown and not tree.children[i]
        yield {"account": tree.name[p] if leaf else tree.name[i],
               "user": tree.name[i] if leaf else None, "depth": depth[i],
               "raw_shares": None if i == 0 else tree.shares[i], "raw_usage": usage[i],
               "norm_shares": perc[i], "norm_usage": 1.0 if i == 0 else usage[i] / usage[0],
               "effective_usage": None if i == 0 else uf[i],
               "fairshare": None if i == 0 else factor[i],
               "fairshare_perc": perc[i], "fairshare_tree_usage": None if i == 0 else uf[i],
               "fairshare_factor": None if i == 0 else factor[i]}


def cell(v):
    if v is None:
        return ""
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return v if isinstance(v, str) else repr(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--usage")
    ap.add_argument("-a", "--algorithm", required=True,
                    choices=["pbs", "classic", "depth-oblivious", "fair-tree", "ticket", "flux"])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--csv", action="store_true")
    a = ap.parse_args()
    alg = a.algorithm
    if alg == "pbs":
        rows = pbs_rows(a.tree, a.usage)
    else:
        t = read_sshare(a.tree)
        fn = {"classic": classic, "depth-oblivious": depth_oblivious, "fair-tree": fair_tree,
              "ticket": ticket, "flux": flux}[alg]
        rows = slurm_rows(t, fn(t))
    cols = COLUMNS + EXTRA.get(alg, [])
    out = sys.stdout
    if a.json:
        def fix(r):
            full = {c: r.get(c) for c in cols}
            for k, v in full.items():
                if isinstance(v, float) and math.isinf(v):
                    full[k] = "inf"
            return full
        out.write('{\n  "algorithm": "%s",\n  "rows": ' % alg)
        out.write(json.dumps([fix(r) for r in rows], indent=2, sort_keys=True)
                  .replace("\n", "\n  "))
        out.write("\n}\n")
    elif a.csv:
        out.write(",".join(cols) + "\n")
        buf = []
        for r in rows:
            buf.append(",".join(cell(r.get(c)) for c in cols) + "\n")
            if len(buf) >= 65536:
                out.write("".join(buf))
                buf = []
        out.write("".join(buf))
    else:
        def f6(v):
            return "" if v is None else ("inf" if math.isinf(v) else "%.6f" % v)
        cells = []
        if alg == "pbs":
            heads = ["Entity", "Shares", "Usage", "fairshare_perc", "fairshare_tree_usage",
                     "fairshare_factor"]
            for r in rows:
                name = r["user"] or r["account"]
                cells.append([" " * r["depth"] + name,
                              "-1" if r["raw_shares"] is None else str(r["raw_shares"]),
                              "%.0f" % r["raw_usage"], f6(r["fairshare_perc"]),
                              f6(r["fairshare_tree_usage"]), f6(r["fairshare_factor"])])
        else:
            extra = EXTRA.get(alg, [])
            heads = ["Account", "User", "RawShares", "NormShares", "RawUsage", "NormUsage",
                     "EffectvUsage", "FairShare", "LevelFS"] + [e.capitalize() for e in extra]
            for r in rows:
                d = r["depth"]
                cells.append([" " * d + r["account"], r["user"] or "",
                              "" if r["raw_shares"] is None else str(r["raw_shares"]),
                              f6(r.get("norm_shares")), "%.0f" % r["raw_usage"],
                              f6(r.get("norm_usage")), f6(r.get("effective_usage")),
                              f6(r.get("fairshare")), f6(r.get("level_fs"))] +
                             [f6(r.get(e)) for e in extra])
        table(heads, ["l"] + ["r"] * (len(heads) - 1) if alg == "pbs" else
              ["l", "l"] + ["r"] * (len(heads) - 2), cells, out)


if __name__ == "__main__":
    main()
