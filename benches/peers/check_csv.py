#!/usr/bin/env python3
"""Compares two CSV outputs (fairsort's and a peer's) of `order` or `share`.

    check_csv.py A.csv B.csv [--key COL,...] [--rel 1e-9]

Same header, same rows in the same order on the key columns (text equality); every other
column equal as text, or as numbers within a relative tolerance. Prints one line and exits 1
on the first difference (with the line number) or when the files differ in length."""
import csv
import sys


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def main():
    args = sys.argv[1:]
    rel = 1e-9
    keys = None
    if "--rel" in args:
        k = args.index("--rel")
        rel = float(args[k + 1])
        del args[k:k + 2]
    if "--key" in args:
        k = args.index("--key")
        keys = args[k + 1].split(",")
        del args[k:k + 2]
    a_path, b_path = args
    worst = 0.0
    with open(a_path, newline="") as fa, open(b_path, newline="") as fb:
        ra, rb = csv.reader(fa), csv.reader(fb)
        ha, hb = next(ra), next(rb)
        if ha != hb:
            print("check: headers differ: %s / %s" % (ha, hb))
            return 1
        key_idx = [ha.index(k) for k in keys] if keys else []
        n = 1
        for x, y in zip(ra, rb):
            n += 1
            for i in key_idx:
                if x[i] != y[i]:
                    print("check: line %d: %s %r != %r" % (n, ha[i], x[i], y[i]))
                    return 1
            for i, (u, v) in enumerate(zip(x, y)):
                if u == v:
                    continue
                fu, fv = num(u), num(v)
                if fu is None or fv is None:
                    print("check: line %d: %s %r != %r" % (n, ha[i], u, v))
                    return 1
                d = abs(fu - fv) / max(abs(fu), abs(fv), 1e-300)
                worst = max(worst, d)
                if d > rel:
                    print("check: line %d: %s %r != %r (relative %.3g)" % (n, ha[i], u, v, d))
                    return 1
        rest_a = sum(1 for _ in ra)
        rest_b = sum(1 for _ in rb)
        if rest_a or rest_b:
            print("check: lengths differ after line %d (%d / %d more rows)" % (n, rest_a, rest_b))
            return 1
    print("check: %d rows agree (largest relative difference %.3g)" % (n - 1, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
