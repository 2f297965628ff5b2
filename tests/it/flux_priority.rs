//! flux-accounting's `mf_priority` through `fairsort order --jobs flux-jobs.json --tree
//! accounting.db`: the plugin's own test cases (flux-accounting v0.60 `t/` sharness tests; each
//! test names its file) rebuilt as a database plus a `flux jobs --json` queue, and the command's
//! errors. The sharness tests submit one job per user in user-id order, so job ids here grow in
//! that order too; their expected queue order is what `flux jobs -A` printed. Priorities are
//! integers and compared exactly.

use crate::common::{fairsort, json_of};
use rusqlite::Connection;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The v38 schema of the built-in example (create-db's tables), emptied, with create-db's
/// default weights and `deny_unknown_queues = false`, then `sql`.
fn make_db(dir: &Path, name: &str, sql: &str) -> PathBuf {
    let path = dir.join(name);
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(include_str!("../../examples/flux_priority/accounting.sql"))
        .unwrap();
    conn.execute_batch(
        "DELETE FROM association_table; DELETE FROM bank_table; DELETE FROM queue_table;
         DELETE FROM priority_factor_weight_table; DELETE FROM config_table;
         INSERT INTO priority_factor_weight_table VALUES
           ('fairshare', 100000), ('queue', 10000), ('bank', 0), ('urgency', 1000);
         INSERT INTO config_table VALUES ('deny_unknown_queues', 'false');",
    )
    .unwrap();
    conn.execute_batch(sql).unwrap();
    path
}

/// `(userid, bank, default_bank, fairshare, queues)` rows as association_table inserts.
fn assocs(rows: &[(i64, &str, &str, f64, &str)]) -> String {
    rows.iter()
        .map(|(uid, bank, def, fs, queues)| {
            format!(
                "INSERT INTO association_table (creation_time, username, userid, bank, default_bank, \
                 fairshare, queues) VALUES (0, 'user{uid}', {uid}, '{bank}', '{def}', {fs}, '{queues}');\n"
            )
        })
        .collect()
}

/// One job of the queue: (id, userid, urgency, queue, bank).
type J<'a> = (u64, i64, i64, Option<&'a str>, Option<&'a str>);

fn jobs_json(jobs: &[J]) -> String {
    let list: Vec<Value> = jobs
        .iter()
        .map(|(id, uid, urg, queue, bank)| {
            let mut j = json!({"id": id, "userid": uid, "urgency": urg, "state": "SCHED",
                               "priority": 16, "t_submit": 1_764_000_000.0 + *id as f64});
            if let Some(q) = queue {
                j["queue"] = json!(q);
            }
            if let Some(b) = bank {
                j["bank"] = json!(b);
            }
            j
        })
        .collect();
    json!({ "jobs": list }).to_string()
}

fn write_jobs(dir: &Path, name: &str, jobs: &[J]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, jobs_json(jobs)).unwrap();
    p
}

fn order(db: &Path, jobs: &Path, extra: &[&str]) -> Value {
    let out = fairsort()
        .arg("order")
        .arg("--jobs")
        .arg(jobs)
        .arg("--tree")
        .arg(db)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out.stdout)
}

/// (userid, priority) of each listed job, in the order listed.
fn by_user(doc: &Value) -> Vec<(i64, Option<i64>)> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["userid"].as_i64().unwrap(), j["priority"].as_i64()))
        .collect()
}

fn job(doc: &Value, id: u64) -> &Value {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["id"] == id)
        .unwrap_or_else(|| panic!("no job {id}"))
}

/// One default-urgency job without queue or bank per user, in user order.
fn one_job_each(users: &[i64]) -> Vec<J<'static>> {
    users
        .iter()
        .enumerate()
        .map(|(i, &u)| (100 + i as u64, u, 16, None, None))
        .collect()
}

#[test]
fn t1002_small_no_tie() {
    // t/t1002-mf-priority-small-no-tie.t with t/expected/sample_payloads/small_no_tie.json.
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        &assocs(&[
            (5011, "account1", "account1", 0.285714, ""),
            (5012, "account1", "account1", 0.142857, ""),
            (5013, "account1", "account1", 0.428571, ""),
            (5021, "account2", "account2", 0.714286, ""),
            (5022, "account2", "account2", 0.571429, ""),
            (5031, "account3", "account3", 1.0, ""),
            (5032, "account3", "account3", 0.857143, ""),
        ]),
    );
    let users = [5011, 5012, 5013, 5021, 5022, 5031, 5032];
    let jobs = write_jobs(dir.path(), "q.json", &one_job_each(&users));
    let doc = order(&db, &jobs, &[]);
    assert_eq!(
        by_user(&doc),
        [
            (5031, Some(100_000)),
            (5032, Some(85_714)),
            (5021, Some(71_429)),
            (5022, Some(57_143)),
            (5013, Some(42_857)),
            (5011, Some(28_571)),
            (5012, Some(14_286)),
        ]
    );
}

#[test]
fn t1003_small_tie_keeps_submission_order() {
    // t/t1003-mf-priority-small-tie.t, t/expected/sample_payloads/small_tie.json: equal
    // priorities stay in submission order (flux-core: priority, then job id).
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        &assocs(&[
            (5011, "account1", "account1", 0.5, ""),
            (5012, "account1", "account1", 0.5, ""),
            (5013, "account1", "account1", 0.75, ""),
            (5021, "account2", "account2", 0.5, ""),
            (5022, "account2", "account2", 0.5, ""),
            (5023, "account2", "account2", 0.75, ""),
            (5031, "account3", "account3", 1.0, ""),
            (5032, "account3", "account3", 0.875, ""),
        ]),
    );
    let users = [5011, 5012, 5013, 5021, 5022, 5023, 5031, 5032];
    let jobs = write_jobs(dir.path(), "q.json", &one_job_each(&users));
    let order: Vec<i64> = by_user(&order(&db, &jobs, &[]))
        .iter()
        .map(|x| x.0)
        .collect();
    assert_eq!(order, [5031, 5032, 5013, 5023, 5011, 5012, 5021, 5022]);
}

#[test]
fn t1004_small_tie_all() {
    // t/t1004-mf-priority-small-tie-all.t, t/expected/sample_payloads/small_tie_all.json.
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for (k, bank) in [(1, "account1"), (2, "account2"), (3, "account3")] {
        for u in 1..=3 {
            let fs = if u == 3 { 1.0 } else { 0.666667 };
            rows.push((5000 + 10 * k + u, bank, bank, fs, ""));
        }
    }
    let db = make_db(dir.path(), "a.db", &assocs(&rows));
    let users: Vec<i64> = rows.iter().map(|r| r.0).collect();
    let jobs = write_jobs(dir.path(), "q.json", &one_job_each(&users));
    let got = by_user(&order(&db, &jobs, &[]));
    let order: Vec<i64> = got.iter().map(|x| x.0).collect();
    assert_eq!(
        order,
        [5013, 5023, 5033, 5011, 5012, 5021, 5022, 5031, 5032]
    );
    // 0.666667 × 100000 = 66666.7 → 66667.
    assert_eq!(got[3].1, Some(66_667));
    assert_eq!(got[0].1, Some(100_000));
}

#[test]
fn t1015_urgency_orders_equal_fair_shares() {
    // t/t1015-mf-priority-urgency.t, t/expected/sample_payloads/same_fairshare.json (all 0.5):
    // urgencies 9 4 1 6 5 7 2 → 5011 5031 5021 5022 5012 5032 5013.
    let dir = tempfile::tempdir().unwrap();
    let users = [
        (5011, "account1", 9),
        (5012, "account1", 4),
        (5013, "account1", 1),
        (5021, "account2", 6),
        (5022, "account2", 5),
        (5031, "account3", 7),
        (5032, "account3", 2),
    ];
    let rows: Vec<_> = users.iter().map(|&(u, b, _)| (u, b, b, 0.5, "")).collect();
    let db = make_db(dir.path(), "a.db", &assocs(&rows));
    let jobs: Vec<J> = users
        .iter()
        .enumerate()
        .map(|(i, &(u, _, urg))| (100 + i as u64, u, urg, None, None))
        .collect();
    let jobs = write_jobs(dir.path(), "q.json", &jobs);
    let got = by_user(&order(&db, &jobs, &[]));
    assert_eq!(
        got,
        [
            (5011, Some(43_000)),
            (5031, Some(41_000)),
            (5021, Some(40_000)),
            (5022, Some(39_000)),
            (5012, Some(38_000)),
            (5032, Some(36_000)),
            (5013, Some(35_000)),
        ]
    );
}

#[test]
fn t1001_basic_banks_urgency_hold_expedite() {
    // t/t1001-mf-priority-basic.t: two banks of one user (fair shares 0.45321 and 0.11345,
    // default bank account3), urgency weight 1 (the test's rec_fac_update payload).
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        &(assocs(&[
            (1000, "account3", "account3", 0.45321, "standby,special"),
            (1000, "account2", "account3", 0.11345, "standby"),
        ]) + "INSERT INTO queue_table (queue, priority) VALUES ('default', 0);
              UPDATE priority_factor_weight_table SET weight = 1 WHERE factor = 'urgency';"),
    );
    let jobs = write_jobs(
        dir.path(),
        "q.json",
        &[
            (1, 1000, 16, None, Some("account3")),
            (2, 1000, 15, None, Some("account3")),
            (3, 1000, 0, None, Some("account3")),
            (4, 1000, 31, None, Some("account3")),
            (5, 1000, 16, None, Some("account2")),
            (6, 1000, 16, None, None),
            (7, 1000, 16, None, Some("account1")),
        ],
    );
    let doc = order(&db, &jobs, &[]);
    let p = |id| job(&doc, id)["priority"].as_i64();
    assert_eq!(p(1), Some(45321));
    assert_eq!(p(2), Some(45320));
    assert_eq!(p(3), Some(0));
    assert_eq!(job(&doc, 3)["status"], "held");
    assert_eq!(p(4), Some(4_294_967_295));
    assert_eq!(p(5), Some(11345));
    assert_eq!(p(6), Some(45321));
    assert_eq!(job(&doc, 6)["bank"], "account3");
    // "submit a job using a bank the user does not belong to".
    assert_eq!(p(7), None);
    assert_eq!(job(&doc, 7)["status"], "rejected");
    assert_eq!(
        job(&doc, 7)["reason"],
        "cannot find user/bank or user/default bank entry for uid: 1000"
    );
}

fn t1013_site(dir: &Path) -> PathBuf {
    make_db(
        dir,
        "a.db",
        &(assocs(&[
            (
                5011,
                "account1",
                "account1",
                0.5,
                "standby,bronze,silver,gold,expedite",
            ),
            (5011, "account2", "account1", 0.5, "standby"),
        ]) + "INSERT INTO queue_table (queue, priority) VALUES ('standby', 0),
                ('expedite', 10000), ('bronze', 200), ('silver', 300), ('gold', 400),
                ('default', 1000);"),
    )
}

#[test]
fn t1013_queue_priorities() {
    // t/t1013-mf-priority-queues.t: each job's priority as it entered the PRIORITY state
    // (the test checks before any reprioritisation): --flux-queue-factor job.
    let dir = tempfile::tempdir().unwrap();
    let db = t1013_site(dir.path());
    let jobs = write_jobs(
        dir.path(),
        "q.json",
        &[
            (1, 5011, 16, None, None),
            (2, 5011, 16, Some("expedite"), Some("account2")),
            (3, 5011, 16, Some("standby"), Some("account1")),
            (4, 5011, 16, Some("expedite"), Some("account1")),
            (5, 5011, 16, Some("bronze"), None),
            (6, 5011, 16, Some("silver"), None),
            (7, 5011, 16, Some("gold"), None),
            (8, 5011, 16, Some("foo"), None),
        ],
    );
    let doc = order(&db, &jobs, &["--flux-queue-factor", "job"]);
    let p = |id| job(&doc, id)["priority"].as_i64();
    assert_eq!(p(1), Some(50_000)); // "users can run jobs without specifying a queue"
    assert_eq!(p(3), Some(50_000)); // standby "should not increase job priority"
    assert_eq!(p(4), Some(100_050_000)); // expedite
    assert_eq!(p(8), Some(50_000)); // a queue flux-accounting does not know: factor 0
    assert_eq!(
        job(&doc, 2)["reason"],
        "queue \"expedite\" not valid for user; valid queues for user: standby"
    );
    let ids: Vec<u64> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_u64().unwrap())
        .collect();
    // "check order of job queue": expedite gold silver bronze standby.
    let pos = |id| ids.iter().position(|&x| x == id).unwrap();
    assert!(pos(4) < pos(7) && pos(7) < pos(6) && pos(6) < pos(5) && pos(5) < pos(3));
}

#[test]
fn after_a_reprioritisation_the_association_has_one_queue_factor() {
    // mf_priority.cpp: new_cb stores get_queue_info on the Association (b->queue_factor),
    // priority_calculation reads it back; after `flux account-priority-update` every pending job
    // of (5011, account1) has the factor of its latest job (8, queue foo, unknown: 0).
    let dir = tempfile::tempdir().unwrap();
    let db = t1013_site(dir.path());
    let jobs = write_jobs(
        dir.path(),
        "q.json",
        &[
            (4, 5011, 16, Some("expedite"), Some("account1")),
            (7, 5011, 16, Some("gold"), None),
            (8, 5011, 16, Some("foo"), None),
        ],
    );
    let doc = order(&db, &jobs, &[]);
    assert_eq!(doc["queue_factor"], "association");
    for id in [4, 7, 8] {
        assert_eq!(job(&doc, id)["priority"], 50_000);
    }
    assert_eq!(job(&doc, 4)["queue_from"]["id"], 8);
    assert_eq!(job(&doc, 4)["queue_from"]["queue"], "foo");
    assert_eq!(job(&doc, 8)["queue_from"], Value::Null);
    // Drop job 8: gold (400 × 10000) is now the latest for both.
    let jobs = write_jobs(
        dir.path(),
        "q2.json",
        &[
            (4, 5011, 16, Some("expedite"), Some("account1")),
            (7, 5011, 16, Some("gold"), None),
        ],
    );
    let doc = order(&db, &jobs, &[]);
    assert_eq!(job(&doc, 4)["priority"], 4_050_000);
    assert_eq!(job(&doc, 7)["priority"], 4_050_000);
}

#[test]
fn t1054_bank_priorities() {
    // t/t1054-mf-priority-bank-priorities.t: only the bank factor (weight 100); banks A 1,
    // B 2, C 3.5 → 100, 200, 350.
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        &(assocs(&[
            (50001, "A", "A", 0.5, ""),
            (50001, "B", "A", 0.5, ""),
            (50001, "C", "A", 0.5, ""),
        ]) + "INSERT INTO bank_table (bank, parent_bank, shares, priority) VALUES
                ('root', '', 1, 0), ('A', 'root', 1, 1), ('B', 'root', 1, 2), ('C', 'root', 1, 3.5);
              UPDATE priority_factor_weight_table SET weight = 0;
              UPDATE priority_factor_weight_table SET weight = 100 WHERE factor = 'bank';"),
    );
    let jobs = write_jobs(
        dir.path(),
        "q.json",
        &[
            (1, 50001, 16, None, None),
            (2, 50001, 16, None, Some("B")),
            (3, 50001, 16, None, Some("C")),
        ],
    );
    let doc = order(&db, &jobs, &[]);
    assert_eq!(
        by_user(&doc).iter().map(|x| x.1).collect::<Vec<_>>(),
        [Some(350), Some(200), Some(100)]
    );
    assert_eq!(job(&doc, 3)["factors"]["bank"], 350.0);
}

#[test]
fn t1056_urgency_factor_and_what_if() {
    // t/t1056-mf-priority-urgency-factor.t: only urgency (weight 1000): 17 → 1000, 15 → 0
    // (negative); then `edit-factor --factor=fairshare --weight=100` (here as the what-if):
    // 18 → 2050, 17 → 1050.
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        &(assocs(&[(5001, "A", "A", 0.5, "")])
            + "UPDATE priority_factor_weight_table SET weight = 0 WHERE factor != 'urgency';"),
    );
    let jobs = write_jobs(
        dir.path(),
        "q.json",
        &[
            (1, 5001, 17, None, None),
            (2, 5001, 15, None, None),
            (3, 5001, 18, None, None),
        ],
    );
    let doc = order(&db, &jobs, &[]);
    assert_eq!(job(&doc, 1)["priority"], 1000);
    assert_eq!(job(&doc, 2)["priority"], 0);
    assert_eq!(job(&doc, 2)["factors"]["urgency"], -1000);
    let w = order(&db, &jobs, &["--against-weights", "fairshare=100"]);
    let row = |id: u64| {
        w["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(row(3)["priority"], 2000);
    assert_eq!(row(3)["priority_against"], 2050);
    assert_eq!(row(1)["priority_against"], 1050);
    assert_eq!(w["weights_against"]["fairshare"], 100);
}

#[test]
fn t1029_default_bank_is_the_last_rows() {
    // t/t1029-mf-priority-default-bank.t: a job without a bank runs under the default bank;
    // `edit-user --default-bank=account2` moves it.
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        &(assocs(&[
            (5001, "account1", "account1", 0.5, ""),
            (5001, "account2", "account1", 0.25, ""),
        ]) + "INSERT INTO bank_table (bank, parent_bank, shares, priority) VALUES
                ('root', '', 1, 0), ('account1', 'root', 1, 0), ('account2', 'root', 1, 0);"),
    );
    let jobs = write_jobs(dir.path(), "q.json", &[(1, 5001, 16, None, None)]);
    let doc = order(&db, &jobs, &[]);
    assert_eq!(job(&doc, 1)["bank"], "account1");
    assert_eq!(job(&doc, 1)["priority"], 50_000);
    Connection::open(&db)
        .unwrap()
        .execute_batch(
            "UPDATE association_table SET default_bank = 'account2' WHERE userid = 5001;",
        )
        .unwrap();
    let doc = order(&db, &jobs, &[]);
    assert_eq!(job(&doc, 1)["bank"], "account2");
    assert_eq!(job(&doc, 1)["priority"], 25_000);
}

#[test]
fn t1097_unknown_queues_and_deny_unknown_queues() {
    // t/t1097-mf-priority-unknown-queues.t: queue foo is unknown to flux-accounting: accepted
    // (queue factor 0) until `edit-config deny_unknown_queues=true`.
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        &(assocs(&[(50001, "A", "A", 0.5, "pdebug")])
            + "INSERT INTO queue_table (queue, priority) VALUES ('pdebug', 0);"),
    );
    let jobs = write_jobs(
        dir.path(),
        "q.json",
        &[
            (1, 50001, 16, Some("pdebug"), None),
            (2, 50001, 16, Some("foo"), None),
        ],
    );
    let doc = order(&db, &jobs, &["--flux-queue-factor", "job"]);
    assert_eq!(job(&doc, 2)["priority"], 50_000);
    Connection::open(&db)
        .unwrap()
        .execute_batch("UPDATE config_table SET value = 'true' WHERE key = 'deny_unknown_queues';")
        .unwrap();
    let doc = order(&db, &jobs, &["--flux-queue-factor", "job"]);
    assert_eq!(job(&doc, 1)["priority"], 50_000);
    assert_eq!(job(&doc, 2)["status"], "rejected");
    assert_eq!(
        job(&doc, 2)["reason"],
        "queue \"foo\" is unknown to flux-accounting and deny-unknown-queues is enabled"
    );
}

#[test]
fn doc_job_priorities_example() {
    // doc/components/job-priorities.rst: bank weight 10; user2 in A (300) and C (−5) with equal
    // fair share 0.5 → 53000 and 49950.
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        &(assocs(&[(2, "A", "A", 0.5, ""), (2, "C", "A", 0.5, "")])
            + "INSERT INTO bank_table (bank, parent_bank, shares, priority) VALUES
                ('root', '', 1, 0), ('A', 'root', 1, 300), ('C', 'root', 1, -5);
              UPDATE priority_factor_weight_table SET weight = 10 WHERE factor = 'bank';"),
    );
    let jobs = write_jobs(
        dir.path(),
        "q.json",
        &[(1, 2, 16, None, Some("A")), (2, 2, 16, None, Some("C"))],
    );
    let doc = order(&db, &jobs, &[]);
    assert_eq!(job(&doc, 1)["priority"], 53_000);
    assert_eq!(job(&doc, 2)["priority"], 49_950);
}

#[test]
fn older_schemas_take_update_db_defaults() {
    // A v0.45 database (no priority_factor_weight_table, no bank_table.priority): what
    // `flux account-priority-update` sends after `flux account-update-db` — default weights.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v045.db");
    Connection::open(&db)
        .unwrap()
        .execute_batch(
            "CREATE TABLE association_table (creation_time, mod_time, active, username, userid,
               bank, default_bank, shares, job_usage, fairshare, max_running_jobs,
               max_active_jobs, max_nodes, max_cores, queues, projects, default_project);
             CREATE TABLE bank_table (bank_id, bank, active, parent_bank, shares, job_usage);
             CREATE TABLE queue_table (queue, min_nodes_per_job, max_nodes_per_job,
               max_time_per_job, priority, max_running_jobs);
             INSERT INTO association_table VALUES (0, 0, 1, 'u', 7, 'A', 'A', 1, 0, 0.25, 5, 7,
               1, 1, 'batch', '*', '*');
             INSERT INTO queue_table VALUES ('batch', 1, 1, 60, 3, 100);",
        )
        .unwrap();
    let jobs = write_jobs(dir.path(), "q.json", &[(1, 7, 16, Some("batch"), None)]);
    let doc = order(&db, &jobs, &[]);
    assert_eq!(doc["weights"]["fairshare"], 100_000);
    assert_eq!(job(&doc, 1)["priority"], 55_000); // 25000 + 3 × 10000
}

#[test]
fn the_example_queue() {
    // examples/flux_priority: weights 100000/10000/10/1000; hand arithmetic in docs/flux.md.
    let out = fairsort()
        .args(["order", "--example", "flux", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json_of(&out.stdout);
    let got: Vec<(String, Option<i64>, String)> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["user"].as_str().unwrap().to_string(),
                j["priority"].as_i64(),
                j["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(&str, Option<i64>, &str)> = vec![
        ("erin", Some(4_294_967_295), "expedited"),
        ("dave", Some(151_000), "pending"), // 50000 + 10×10000 + 100×10
        ("alice", Some(134_333), "pending"), // batch job, debug factor of alice's latest job
        ("alice", Some(134_333), "pending"), // 33333.3 + 100000 + 1000
        ("dave", Some(66_667), "pending"),  // chemistry, his default bank
        ("frank", Some(49_950), "pending"), // disabled association, job still pending
        ("carol", Some(33_333), "pending"), // 83333.3 − 5×10000
        ("bob", Some(21_667), "pending"),   // 16666.7 + 1000 + 4×1000
        ("carol", Some(0), "held"),
        ("gina", None, "rejected"),
        ("bob", None, "rejected"),
    ];
    let got_ref: Vec<(&str, Option<i64>, &str)> = got
        .iter()
        .map(|(u, p, s)| (u.as_str(), *p, s.as_str()))
        .collect();
    assert_eq!(got_ref, want);
    assert_eq!(doc["not_pending"], 1);
    assert_eq!(
        doc["jobs"][2]["queue_from"]["jobid"],
        doc["jobs"][3]["jobid"]
    );
}

#[test]
fn the_input_priority_is_never_used() {
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(dir.path(), "a.db", &assocs(&[(5001, "A", "A", 0.5, "")]));
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    std::fs::write(
        &a,
        r#"{"jobs":[{"id":1,"userid":5001,"urgency":16,"priority":16}]}"#,
    )
    .unwrap();
    std::fs::write(
        &b,
        r#"{"jobs":[{"id":1,"userid":5001,"urgency":16,"priority":987654}]}"#,
    )
    .unwrap();
    let (da, db_) = (order(&db, &a, &[]), order(&db, &b, &[]));
    assert_eq!(da, db_);
    assert_eq!(job(&da, 1)["priority"], 50_000);
}

#[test]
fn table_explain_and_f58_ids() {
    let out = fairsort()
        .args(["order", "--example", "flux"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.starts_with("RANK"))
        .expect("table header");
    assert!(lines[head].contains("PRIORITY") && lines[head].contains("URGENCY"));
    assert!(lines[head + 1].contains("ƒ2LAUcNq3DH") && lines[head + 1].contains("4294967295"));
    assert!(text.contains("cannot find user/bank or user/default bank entry for uid: 5010"));
    // --explain takes f58 or decimal ids.
    for id in ["ƒ2LJqSgNf91", "f2LJqSgNf91", "9900237174865920"] {
        let out = fairsort()
            .args(["order", "--example", "flux", "--explain", id])
            .output()
            .unwrap();
        assert!(out.status.success(), "{id}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("= round(134333.3) = 134333"), "{text}");
        assert!(text.contains("rank 3 of 9"), "{text}");
    }
}

#[test]
fn errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(dir.path(), "a.db", &assocs(&[(5001, "A", "A", 0.5, "")]));
    let jobs = write_jobs(dir.path(), "q.json", &[(1, 5001, 16, None, None)]);
    let run = |args: &[&std::ffi::OsStr]| fairsort().arg("order").args(args).output().unwrap();
    let os = |s: &str| std::ffi::OsString::from(s);
    // No database: usage error.
    let out = run(&[&os("--jobs"), jobs.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tree accounting.db"));
    // A database the plugin cannot use: names the file and the columns.
    let old = dir.path().join("old.db");
    Connection::open(&old)
        .unwrap()
        .execute_batch("CREATE TABLE association_table (username, bank, shares, fairshare);")
        .unwrap();
    let out = run(&[
        &os("--jobs"),
        jobs.as_os_str(),
        &os("--tree"),
        old.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("old.db") && e.contains("userid, default_bank"),
        "{e}"
    );
    // A bad job field: names the file, the job and the field.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"jobs":[{"id":58,"userid":5001,"urgency":99}]}"#).unwrap();
    let out = run(&[
        &os("--jobs"),
        bad.as_os_str(),
        &os("--tree"),
        db.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("bad.json") && e.contains("ƒ21") && e.contains("urgency"),
        "{e}"
    );
    // --explain of a job that is not there.
    let out = run(&[
        &os("--jobs"),
        jobs.as_os_str(),
        &os("--tree"),
        db.as_os_str(),
        &os("--explain"),
        &os("12345"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no job `12345`"));
    // PBS/Slurm flags and bad what-if weights: usage errors.
    for extra in [
        vec!["--formula", "1"],
        vec!["--against-weights", "age=3"],
        vec!["--against-weights", "queue=1e9"],
    ] {
        let mut a: Vec<std::ffi::OsString> = vec![
            os("--jobs"),
            jobs.clone().into(),
            os("--tree"),
            db.clone().into(),
        ];
        a.extend(extra.iter().map(|s| os(s)));
        let refs: Vec<&std::ffi::OsStr> = a.iter().map(|s| s.as_os_str()).collect();
        let out = run(&refs);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
    }
    // --flux-queue-factor without flux jobs.
    let out = run(&[
        &os("--example"),
        &os("pbs"),
        &os("--flux-queue-factor"),
        &os("job"),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn recomputed_fair_share_chains_update_fshare_into_the_plugin() {
    // t/t1036-hierarchy-small-no-tie-db.t's tree (small_no_tie: shares and usage, fair shares
    // not yet computed: create-db's 0.5) → `flux account-update-fshare` → t1002's queue.
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "a.db",
        "INSERT INTO bank_table (bank, parent_bank, shares) VALUES ('root', '', 1000),
           ('account1', 'root', 1000), ('account2', 'root', 100), ('account3', 'root', 10);
         INSERT INTO association_table (creation_time, username, userid, bank, default_bank,
           shares, job_usage) VALUES
           (0, 'leaf.1.1', 5011, 'account1', 'account1', 10000, 100),
           (0, 'leaf.1.2', 5012, 'account1', 'account1', 1000, 11),
           (0, 'leaf.1.3', 5013, 'account1', 'account1', 100000, 10),
           (0, 'leaf.2.1', 5021, 'account2', 'account2', 100000, 8),
           (0, 'leaf.2.2', 5022, 'account2', 'account2', 10000, 3),
           (0, 'leaf.3.1', 5031, 'account3', 'account3', 100, 0),
           (0, 'leaf.3.2', 5032, 'account3', 'account3', 10, 1);",
    );
    let users = [5011, 5012, 5013, 5021, 5022, 5031, 5032];
    let jobs = write_jobs(dir.path(), "q.json", &one_job_each(&users));
    let stored = order(&db, &jobs, &[]);
    assert!(by_user(&stored).iter().all(|x| x.1 == Some(50_000)));
    let doc = order(&db, &jobs, &["--flux-fairshare", "computed"]);
    assert_eq!(doc["fairshare"], "computed");
    assert_eq!(
        by_user(&doc),
        [
            (5031, Some(100_000)),
            (5032, Some(85_714)),
            (5021, Some(71_429)),
            (5022, Some(57_143)),
            (5013, Some(42_857)),
            (5011, Some(28_571)),
            (5012, Some(14_286)),
        ]
    );
}

#[test]
fn docs_show_the_example_as_it_prints() {
    // docs/flux.md quotes `fairsort order --example flux` and one --explain verbatim.
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/flux.md")).unwrap();
    for args in [
        vec!["order", "--example", "flux"],
        vec!["order", "--example", "flux", "--explain", "ƒ2LJqSgNf91"],
    ] {
        let out = fairsort().args(&args).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            doc.contains(&text),
            "docs/flux.md is out of date for {args:?}:\n{text}"
        );
    }
}

#[test]
fn stdin_needs_the_format_named() {
    // `--jobs -` cannot be sniffed before it is read: `--jobs-format flux-jobs` names it.
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(dir.path(), "a.db", &assocs(&[(5001, "A", "A", 0.25, "")]));
    let out = fairsort()
        .args([
            "order",
            "--jobs",
            "-",
            "--jobs-format",
            "flux-jobs",
            "--json",
            "--tree",
        ])
        .arg(&db)
        .write_stdin(jobs_json(&[(1, 5001, 17, None, None)]))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(job(&json_of(&out.stdout), 1)["priority"], 26_000);
    // An empty queue is still a flux run when named so.
    let out = fairsort()
        .args([
            "order",
            "--jobs",
            "-",
            "--jobs-format",
            "flux-jobs",
            "--json",
            "--tree",
        ])
        .arg(&db)
        .write_stdin(r#"{"jobs": []}"#)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(json_of(&out.stdout)["jobs"], json!([]));
}
