"""What the Python peers share: PBS units, C float arithmetic, the PBS share tree and PBS fair
share (openpbs.md §3), written the way a site's own script would (standard library only)."""

import re
import struct

_F = struct.Struct("f")


def f32(x):
    """x rounded to a C float (IEEE binary32), as PBS stores percentages and usage factors."""
    try:
        return _F.unpack(_F.pack(x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


# ----------------------------------------------------------------------------------------------
# PBS units (res_to_num): sizes in kb, times in seconds
_SIZE = re.compile(r"^(\d+)([kmgtKMGT]?)([bwBW]?)$")
_MULT = {"": 1, "k": 1, "m": 1024, "g": 1024 ** 2, "t": 1024 ** 3}


def pbs_size(text):
    m = _SIZE.match(text)
    if not m:
        return None
    n, p, u = int(m.group(1)), m.group(2).lower(), m.group(3).lower()
    if p == "":
        if u == "b" or u == "":
            return -(-n // 1024) if u == "b" else n
        return -(-n * 8 // 1024)  # bare words
    kb = n * _MULT[p]
    return kb * 8 if u == "w" else kb


def pbs_time(text):
    parts = text.split(":")
    if len(parts) > 3:
        return None
    try:
        secs = 0.0
        for p in parts:
            secs = secs * 60 + float(p)
    except ValueError:
        return None
    return int(secs) if secs == int(secs) else secs


TIME_RESOURCES = {"walltime", "cput", "pcput", "min_walltime", "max_walltime", "soft_walltime"}
SIZE_RESOURCES = {"mem", "vmem", "pmem", "pvmem", "file"}


def resource_value(name, v):
    """A Resource_List value as a number in PBS units, or None for text (select, place, …)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if name in TIME_RESOURCES:
        return pbs_time(v)
    if name in SIZE_RESOURCES:
        return pbs_size(v)
    try:
        f = float(v)
        return int(f) if f == int(f) and "." not in v else f
    except ValueError:
        return None


# ----------------------------------------------------------------------------------------------
# The PBS tree: resource_group + usage
class Tree:
    """Nodes in pre-order: names, parent index, shares, children lists; node 0 is TREEROOT."""

    def __init__(self):
        self.name = ["TREEROOT"]
        self.parent = [-1]
        self.shares = [0]
        self.children = [[]]
        self.usage = [None]  # input usage (leaves), None = not given
        self.index = {"TREEROOT": 0}

    def add(self, name, parent, shares, usage=None):
        i = len(self.name)
        self.name.append(name)
        self.parent.append(parent)
        self.shares.append(shares)
        self.children.append([])
        self.usage.append(usage)
        self.children[parent].append(i)
        self.index[name] = i
        return i

    def path(self, i):
        p = []
        while i >= 0:
            p.append(i)
            i = self.parent[i]
        p.reverse()
        return p


def read_resource_group(path, unknown_shares=0):
    t = Tree()
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s[0] in "#*":
                continue
            name, _id, parent, shares = s.split()[:4]
            p = 0 if parent == "root" else t.index[parent]
            t.add(name, p, int(shares))
    t.unknown = t.add("unknown", 0, unknown_shares)
    return t


def read_usage_text(tree, path):
    with open(path) as f:
        for line in f:
            s = line.split("#", 1)[0].split()
            if not s:
                continue
            name, usage = s[0], float(s[1])
            i = tree.index.get(name)
            if i is None:
                i = tree.add(name, tree.unknown, 1)
            tree.usage[i] = usage


def pbs_usages(tree):
    """Each node's PBS usage: leaves their usage (missing = 1), groups 1 + Σ leaves ≠ 1."""
    n = len(tree.name)
    out = [1.0] * n
    total = [0.0] * n
    # Children have larger indexes than their parents, except entities added under `unknown`
    # later; walk in reverse post-order to be safe.
    order = []
    stack = [0]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(tree.children[i])
    for i in reversed(order):
        kids = tree.children[i]
        if not kids and i != 0:
            u = tree.usage[i] if tree.usage[i] is not None else 1.0
            out[i] = u
            total[i] = 0.0 if u == 1.0 else u
        else:
            s = 0.0
            for c in kids:
                s += total[c]
            total[i] = s
            out[i] = 1.0 + s
    return out


def pbs_fair_share(tree):
    """PBS's tree_percentage, usage_factor (C floats) and fairshare_factor of every node, and
    each node's usage, as calc_fair_share_perc / calc_usage_factor compute them."""
    n = len(tree.name)
    usage = pbs_usages(tree)
    perc = [0.0] * n
    uf = [0.0] * n
    perc[0] = 1.0
    root_usage = usage[0]
    stack = [0]
    while stack:
        i = stack.pop()
        kids = tree.children[i]
        if not kids:
            continue
        s = 0
        for c in kids:
            s += tree.shares[c]
        sf = f32(s)
        ptp = perc[i]
        zero = f32(sf * ptp) == 0.0
        puf = uf[i]
        for c in kids:
            if zero:
                gp = tp = 0.0
            else:
                gp = f32(f32(tree.shares[c]) / sf)
                tp = f32(gp * ptp)
            ratio = usage[c] / root_usage
            u = f32(1.0 if ratio != ratio else min(ratio, 1.0))
            perc[c] = tp
            uf[c] = u if i == 0 else f32(u + f32(f32(puf - u) * gp))
        stack.extend(kids)
    factor = [0.0 if perc[i] == 0.0 else 2.0 ** -f32(uf[i] / perc[i]) for i in range(n)]
    return perc, uf, factor, usage


def compare_path(tree, perc, usage, a, b):
    """PBS's compare_path: at the first differing node of the two root paths, the smaller
    usage / tree_percentage wins; a node with percentage 0 loses to a positive one."""
    pa, pb = tree.path(a), tree.path(b)
    for x, y in zip(pa, pb):
        if x == y:
            continue
        px, py = perc[x], perc[y]
        if px <= 0.0 or py <= 0.0:
            if px > 0.0:
                return -1
            if py > 0.0:
                return 1
            return 0
        vx, vy = usage[x] / px, usage[y] / py
        if vx < vy:
            return -1
        if vy < vx:
            return 1
    return 0


def round_decimals(x, d):
    """printf("%.*f") read back (exact decimal rounding, as glibc and CPython do)."""
    if x != x or x in (float("inf"), float("-inf")) or x == int(x):
        return x
    return float("%.*f" % (d, x))


def fmt_value(v):
    """A value as PBS logs it: at most 4 decimals, trailing zeros cut."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    s = ("%.4f" % v).rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def table(headers, aligns, rows, out):
    """An aligned text table: columns two spaces apart, a dashed rule under the header."""
    widths = [len(h) for h in headers]
    for r in rows:
        for k, c in enumerate(r):
            if len(c) > widths[k]:
                widths[k] = len(c)

    def line(cells):
        parts = []
        for k, c in enumerate(cells):
            parts.append(c.rjust(widths[k]) if aligns[k] == "r" else c.ljust(widths[k]))
        return "  ".join(parts).rstrip() + "\n"

    out.write(line(headers))
    out.write(line(["-" * w for w in widths]))
    buf = []
    for r in rows:
        buf.append(line(r))
        if len(buf) >= 65536:
            out.write("".join(buf))
            buf = []
    out.write("".join(buf))
