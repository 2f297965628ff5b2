//! Acceptance: a PBS site imported from its own files gives, from its `qstat -f -F json`,
//! exactly the jobs real OpenPBS 23.06.06's pbs_sched considered, in its order, with its logged
//! values (`tests/data/pbs_cycles`). For each capture, through the commands an admin runs:
//! `fairsort init --home H`; `fairsort pbs import --home H --server print_server.txt --sched
//! list_sched.txt --sched-config sched_config --resource-group resource_group --usage
//! pbsfs.txt [--holidays holidays]`; `fairsort order --home H --jobs qstat.json --at EPOCH
//! --json`, EPOCH being the cycle's second from the scheduler's log.

use crate::common::{data, fairsort, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    data(&format!("pbs_cycles/{name}"))
}

/// Imports the capture's site into a new home in `tmp`; returns the home.
fn import(name: &str, tmp: &Path) -> PathBuf {
    let d = dir(name);
    let home = tmp.join("home");
    fairsort()
        .arg("--home")
        .arg(&home)
        .arg("init")
        .assert()
        .success();
    let mut c = fairsort();
    c.arg("--home").arg(&home).args(["pbs", "import"]);
    for (flag, file) in [
        ("--server", "print_server.txt"),
        ("--sched", "list_sched.txt"),
        ("--sched-config", "sched_config"),
        ("--resource-group", "resource_group"),
        ("--usage", "pbsfs.txt"),
        ("--holidays", "holidays"),
    ] {
        if d.join(file).exists() {
            c.arg(flag).arg(d.join(file));
        }
    }
    c.assert().success();
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

fn check(name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let home = import(name, tmp.path());
    let want = expected(name);
    let at = want["epoch"].as_i64().unwrap().to_string();
    let out = fairsort()
        .arg("--home")
        .arg(&home)
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
    let doc = json_of(&out.stdout);
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

scenarios!(
    by_queue_default,
    by_queue_off,
    by_queue_equal_prio,
    by_queue_no_formula,
    prime_non_prime,
    prime_non_prime_in_prime,
    round_robin,
    express_preempt_on,
    express_preempt_off,
    express_preempt_by_queue,
    express_prio_90,
    threshold,
    threshold_negative,
    nan_threshold,
    formula_errors,
    float_division_error,
    nan_inf,
    float32_ties,
    eligible_time,
    job_states,
    sort_key_no_formula,
    sort_key_priority,
    sort_key_with_formula,
    fairshare_no_formula,
    fairshare_with_formula,
    fairshare_factor_formula,
    fairshare_formula_no_fair_share,
    fairshare_egroup,
    unknown_shares_0,
    unknown_shares_10,
    unknown_shares_0_formula,
    unknown_shares_0_formula_no_touch,
    preempt_fairshare,
);
