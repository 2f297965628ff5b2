#!/usr/bin/env python3
"""The Python peer of `fairsort usage record`: charge the finished jobs of PBS accounting logs
once, as a site's script would (standard library only).

    peer_usage.py --store DIR LOG...        # record
    peer_usage.py --store DIR --show        # entity,usage CSV, sorted by name

For each `E` record (`date;E;jobid;key=value ...`): the entity is `user=` (fairshare_entity
euser), the charge is fairshare_usage_res `cput` in seconds (resources_used.cput, else
Resource_List.cput, else 0). A job is charged once: a ledger (one line per charged job, keyed by
job id and end time, appended and fsynced) is read first, and jobs in it are skipped. Usage
starts at PBS's 1 per entity; the totals are written to DIR/usage.json atomically (temporary
file, fsync, rename). Prints `charged N job(s), total T; R already charged; M malformed
record(s) skipped`, like fairsort.
"""

import argparse
import json
import os
import sys


def seconds(text):
    secs = 0
    for p in text.split(":"):
        secs = secs * 60 + (int(p) if p.isdigit() else float(p))
    return secs


def attributes(msg):
    """PBS's `key=value key="quoted value" ...`."""
    if '"' not in msg:
        return dict(kv.split("=", 1) for kv in msg.split() if "=" in kv)
    out = {}
    i, n = 0, len(msg)
    while i < n:
        while i < n and msg[i] == " ":
            i += 1
        j = msg.find("=", i)
        if j < 0:
            break
        key = msg[i:j]
        if j + 1 < n and msg[j + 1] == '"':
            k = msg.find('"', j + 2)
            if k < 0:
                raise ValueError("unterminated quote")
            out[key] = msg[j + 2:k]
            i = k + 1
        else:
            k = msg.find(" ", j + 1)
            k = n if k < 0 else k
            out[key] = msg[j + 1:k]
            i = k
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--show", action="store_true")
    ap.add_argument("logs", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.store, exist_ok=True)
    store_path = os.path.join(a.store, "usage.json")
    ledger_path = os.path.join(a.store, "usage.ledger")
    store = {"ledger_bytes": 0, "usage": {}}
    if os.path.exists(store_path):
        with open(store_path) as f:
            store = json.load(f)
    usage = store["usage"]
    if a.show:
        w = sys.stdout.write
        w("entity,usage\n")
        for name in sorted(usage):
            w("%s,%s\n" % (name, repr(usage[name])))
        return

    # Jobs already charged: the committed part of the ledger.
    charged = set()
    if os.path.exists(ledger_path):
        with open(ledger_path, "rb") as f:
            data = f.read(store["ledger_bytes"]).decode()
        for line in data.splitlines():
            _src, jid, end, _rest = line.split("\t", 3)
            charged.add((jid, end))

    new_lines = []
    n_charged = n_already = n_bad = 0
    total = 0.0
    paths = []
    for p in a.logs:
        if os.path.isdir(p):
            paths += [os.path.join(p, x) for x in sorted(os.listdir(p)) if not x.startswith(".")]
        else:
            paths.append(p)
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                parts = line.rstrip("\n").split(";", 3)
                if len(parts) != 4:
                    n_bad += 1
                    print("peer_usage: %s:%d: not a record (record skipped)" % (path, lineno),
                          file=sys.stderr)
                    continue
                if parts[1] != "E":
                    continue
                jid = parts[2]
                try:
                    at = attributes(parts[3])
                    user = at["user"]
                    end = at["end"]
                    used = at.get("resources_used.cput") or at.get("Resource_List.cput")
                    charge = seconds(used) if used else 0
                except (KeyError, ValueError) as e:
                    n_bad += 1
                    print("peer_usage: %s:%d: %s (record skipped)" % (path, lineno, e),
                          file=sys.stderr)
                    continue
                key = (jid, end)
                if key in charged:
                    n_already += 1
                    continue
                charged.add(key)
                charge = max(charge, 0)
                usage[user] = usage.get(user, 1.0) + charge
                total += charge
                n_charged += 1
                new_lines.append("pbs\t%s\t%s\t%s\t-\t%s\n" % (jid, end, user, charge))

    # Commit: append to the ledger (cut to its committed length first), sync, then replace the
    # store atomically with the new committed length.
    with open(ledger_path, "ab") as f:
        f.truncate(store["ledger_bytes"])
        f.write("".join(new_lines).encode())
        f.flush()
        os.fsync(f.fileno())
        store["ledger_bytes"] = f.tell()
    tmp = store_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(store, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, store_path)
    print("charged %d job(s), total %s; %d already charged; %d malformed record(s) skipped" % (
        n_charged, "%.0f" % total if total == int(total) else total, n_already, n_bad))


if __name__ == "__main__":
    main()
