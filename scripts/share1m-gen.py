#!/usr/bin/env python3
"""1M-user share trees for `fairsort share` (1000 accounts x 1000 users), as benches/formats.rs."""
import os, sqlite3, sys
A, U = 1000, 1000
d = sys.argv[1] if len(sys.argv) > 1 else "/tmp/share1m"
os.makedirs(d, exist_ok=True)
# PBS resource_group + text usage file
with open(f"{d}/resource_group", "w") as f:
    i = 2
    for a in range(A):
        f.write(f"acct{a} {i} root {1 + a % 7}\n"); i += 1
    for a in range(A):
        for u in range(U):
            f.write(f"u{a}_{u} {i} acct{a} {1 + u % 5}\n"); i += 1
with open(f"{d}/usage.txt", "w") as f:
    for a in range(A):
        for u in range(U):
            if (a + u) % 3:
                f.write(f"u{a}_{u} {(a * 7 + u * 13) % 100000 + (u % 4) * 0.25}\n")
# sshare -a -l -P
with open(f"{d}/sshare.psv", "w") as f:
    f.write("Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins\n")
    f.write("root|||0.000000|123456789||1.000000||||cpu=0\n")
    for a in range(A):
        f.write(f" acct{a}||{1 + a % 7}|0.001000|123456|0.001000|0.001000||1.000000||cpu=0\n")
        for u in range(U):
            f.write(f"  acct{a}|u{u}|{1 + u % 5}|0.001000|{(u * 3 + a) % 5000}|0.000001|0.001000|0.500000|1.000000||cpu=0\n")
# flux-accounting DB
db = f"{d}/flux.db"
if os.path.exists(db):
    os.remove(db)
c = sqlite3.connect(db)
c.executescript("""
CREATE TABLE association_table (
    creation_time bigint(20) NOT NULL, mod_time bigint(20) DEFAULT 0 NOT NULL,
    active int(11) DEFAULT 1 NOT NULL, username tinytext NOT NULL, userid int(11) DEFAULT 65534 NOT NULL,
    bank tinytext NOT NULL, default_bank tinytext NOT NULL, shares int(11) DEFAULT 1 NOT NULL,
    job_usage real DEFAULT 0.0 NOT NULL, fairshare real DEFAULT 0.5 NOT NULL,
    max_running_jobs int(11) DEFAULT 5 NOT NULL, max_active_jobs int(11) DEFAULT 7 NOT NULL,
    queues tinytext DEFAULT '' NOT NULL, projects tinytext DEFAULT '*' NOT NULL,
    PRIMARY KEY (username, bank));
CREATE TABLE bank_table (
    bank_id integer PRIMARY KEY AUTOINCREMENT, bank text NOT NULL, active int(11) DEFAULT 1 NOT NULL,
    parent_bank text DEFAULT '', shares int NOT NULL, job_usage real DEFAULT 0.0 NOT NULL,
    priority real DEFAULT 0.0, ignore_older_than bigint DEFAULT 0 NOT NULL);
""")
c.execute("INSERT INTO bank_table (bank, parent_bank, shares, active) VALUES ('root', '', 1, 1)")
c.executemany("INSERT INTO bank_table (bank, parent_bank, shares, active) VALUES (?, 'root', ?, 1)",
              ((f"acct{a}", 1 + a % 7) for a in range(A)))
c.executemany("INSERT INTO association_table (creation_time, username, bank, default_bank, shares, job_usage, active) VALUES (0, ?, ?, ?, ?, ?, 1)",
              ((f"u{u}", f"acct{a}", f"acct{a}", 1 + u % 5, float((u * 3 + a) % 5000) + (u % 2) * 0.5)
               for a in range(A) for u in range(U)))
c.commit(); c.close()
