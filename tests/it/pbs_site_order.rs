//! Acceptance: a PBS site imported from its own files gives, from its `qstat -f -F json`,
//! exactly the jobs real OpenPBS 23.06.06's pbs_sched considered, in its order, with its logged
//! values (`tests/data/pbs_cycles`). For each capture, through the commands an admin runs:
//! `fairsort init --home H`; `fairsort pbs import --home H --server print_server.txt --sched
//! list_sched.txt --sched-config sched_config --resource-group resource_group --usage
//! pbsfs.txt [--holidays holidays]`; `fairsort order --home H --jobs qstat.json --at EPOCH
//! --json`, EPOCH being the cycle's second from the scheduler's log.

use crate::common::{data, fairsort_home, import_pbs_capture, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    data(&format!("pbs_cycles/{name}"))
}

/// Imports the capture's site into a new home in `tmp`; returns the home.
fn import(name: &str, tmp: &Path) -> PathBuf {
    let home = tmp.join("home");
    import_pbs_capture(&dir(name), &home);
    home
}

fn expected(name: &str) -> Value {
    serde_json::from_slice(&std::fs::read(dir(name).join("expected.json")).unwrap()).unwrap()
}

/// `printf`'s text of a logged value against the reported number.
fn same_value(logged: &str, got: f64) -> bool {
    let want: f64 = logged.parse().unwrap();
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() {
        return want == got;
    }
    (want - got).abs() <= 5e-4_f64.max(want.abs() * 1e-6)
}

/// The status `order --json` gives a job pbs_sched left out, for the reason it logged.
fn status_for(reason: &str) -> &'static str {
    if reason == "Job has zero shares for fairshare" {
        "zero shares"
    } else if reason == "Queue not started" {
        "queue not started"
    } else if reason.contains("is under threshold") {
        "below threshold"
    } else if reason.contains("job_state") {
        "not queued"
    } else {
        "?"
    }
}

/// `order --home H --jobs qstat.json --at EPOCH --json` of the imported capture.
fn order_json(name: &str) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let home = import(name, tmp.path());
    let want = expected(name);
    let at = want["epoch"].as_i64().unwrap().to_string();
    let out = fairsort_home(&home)
        .args(["order", "--jobs"])
        .arg(dir(name).join("qstat.json"))
        .args(["--at", &at, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out.stdout)
}

fn check(name: &str) {
    let want = expected(name);
    let doc = order_json(name);
    // pbs_sched survived these cycles: nothing to warn about.
    assert!(doc.get("warnings").is_none(), "{name}: {}", doc["warnings"]);
    let jobs = doc["jobs"].as_array().unwrap();
    let considered: Vec<&Value> = jobs.iter().filter(|j| j["eligible"] == true).collect();
    let got: Vec<&str> = considered
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    let wanted = want["considered"].as_array().unwrap();
    let want_ids: Vec<&str> = wanted.iter().map(|j| j["job"].as_str().unwrap()).collect();
    assert_eq!(got, want_ids, "{name}: the jobs considered, in order");
    // The considered jobs come first.
    assert!(
        jobs.iter()
            .take(considered.len())
            .all(|j| j["eligible"] == true),
        "{name}: considered jobs first"
    );
    for (j, w) in considered.iter().zip(wanted) {
        if let Some(logged) = w["formula"].as_str() {
            // JSON has no number for inf and nan: `order --json` writes printf's text.
            let v = match &j["value"] {
                Value::String(t) => t.parse().unwrap(),
                v => v.as_f64().unwrap(),
            };
            assert!(
                same_value(logged, v),
                "{name} {}: value {v}, logged {logged}",
                w["job"]
            );
        }
    }
    for nc in want["not_considered"].as_array().unwrap() {
        let id = nc["job"].as_str().unwrap();
        let reason = nc["reason"].as_str().unwrap_or("");
        let row = jobs
            .iter()
            .find(|j| j["id"] == id)
            .unwrap_or_else(|| panic!("{name}: {id} listed"));
        assert_eq!(row["eligible"], false, "{name} {id}");
        let status = row["status"].as_str().unwrap();
        match status_for(reason) {
            "not queued" => assert!(
                status.starts_with("state ") || status == "running" || status == "held",
                "{name} {id}: {status} for `{reason}`"
            ),
            s => assert_eq!(status, s, "{name} {id}: for `{reason}`"),
        }
    }
    assert_eq!(
        jobs.len(),
        wanted.len() + want["not_considered"].as_array().unwrap().len(),
        "{name}: every job listed once"
    );
}

macro_rules! scenarios {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check(stringify!($name)); })*
    };
}

crate::pbs_cycle_scenarios!(scenarios);

/// The job whose evaluation brought the real pbs_sched down (the last one its log shows).
fn crash_job(name: &str) -> String {
    let log = std::fs::read_to_string(dir(name).join("sched_log.txt")).unwrap();
    log.lines()
        .rev()
        .filter_map(|l| {
            let f: Vec<&str> = l.splitn(6, ';').collect();
            (f.len() == 6 && f[3] == "Job" && f[5].to_lowercase().starts_with("formula evaluation"))
                .then(|| f[4].to_string())
        })
        .next()
        .unwrap()
}

/// Where the real pbs_sched crashed, the imported site's order warns, naming the job it
/// crashed on and the PBS version.
#[test]
fn order_warns_where_pbs_sched_crashed() {
    for name in [
        "crash_complex",
        "crash_complex_after_5min",
        "crash_bigint",
        "crash_first_error",
    ] {
        // Not `crash_unknown_last` and `crash_unknown_shares_formula`: after `pbsfs -s`
        // (`usage.touch`) pbs_sched re-sorted the jobs before evaluating them
        // (`init_scheduling_cycle`) and evaluated frank's, submitted last, first; a dry run
        // follows the server's order (docs/order.md).
        let doc = order_json(name);
        let warnings = doc["warnings"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no warnings"));
        let job = crash_job(name);
        let named: Vec<&str> = (warnings.iter())
            .filter_map(|w| w.as_str())
            .filter(|w| w.contains(&format!("job {job}")) && w.contains("OpenPBS 23.06"))
            .collect();
        assert_eq!(named.len(), 1, "{name}: {warnings:?}");
    }
}
