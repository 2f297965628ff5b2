//! Acceptance: `fairsort forecast` on a flux instance's snapshot agrees with what a real
//! fluxion (flux-sched 0.54.0 on flux-core 0.88.0) decided (`tests/data/flux_forecast`, one
//! broker with 8 cores running sleep jobs):
//! - from the snapshot taken with the queue stopped (`before/`), at the moment it was started:
//!   the jobs fluxion started in that loop are the ones the forecast starts, and no other; the
//!   jobs it reserved are the forecast's top jobs, at fluxion's `t_estimate` to the second; the
//!   jobs it rejected are the forecast's never-starting ones, with flux's exception note;
//! - from the snapshot after the loop (`after/`): nothing more starts, and the reservations are
//!   the same.

use crate::common::{data, fairsort, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn captures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data("flux_forecast"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.json").exists())
        .collect();
    v.sort();
    v
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// `fairsort forecast --json` of `side` (`before` or `after`) of capture `d` at `at`.
fn forecast(d: &Path, side: &str, policy: Option<&str>, at: i64) -> Value {
    let mut cmd = fairsort();
    cmd.arg("forecast")
        .arg("--jobs")
        .arg(d.join(side).join("jobs.json"))
        .arg("--node-state")
        .arg(d.join(side).join("R.json"))
        .args(["--at", &at.to_string(), "--json"]);
    if let Some(p) = policy {
        cmd.args(["--queue-policy", p]);
    }
    json_of(&cmd.assert().success().get_output().stdout.clone())
}

fn job<'a>(doc: &'a Value, jobid: &Value) -> &'a Value {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| &j["id"] == jobid)
        .unwrap_or_else(|| panic!("{jobid} is not in the forecast"))
}

fn list<'a>(want: &'a Value, key: &str) -> &'a Vec<Value> {
    want[key].as_array().unwrap()
}

/// What one capture's forecast from `side` gets wrong against fluxion, with the counts of
/// starts and estimates checked.
fn check(d: &Path, side: &str, at: i64, policy: Option<&str>) -> (Vec<String>, usize, usize) {
    let want = read_json(&d.join("expected.json"));
    let got = forecast(d, side, policy, at);
    let name = d.file_name().unwrap().to_string_lossy().into_owned();
    let mut failures = Vec::new();
    let (mut starts, mut estimates) = (0, 0);
    if side == "before" {
        for s in list(&want, "started_after_release") {
            starts += 1;
            if job(&got, &s["jobid"])["runs_now"] != true {
                failures.push(format!(
                    "{name} {}: fluxion started it, the forecast does not",
                    s["jobid"]
                ));
            }
        }
    }
    for p in list(&want, "pending") {
        let g = job(&got, &p["jobid"]);
        if g["runs_now"] == true {
            failures.push(format!(
                "{name} {side} {}: the forecast starts it, fluxion did not",
                p["jobid"]
            ));
        }
        let reserved = p["selection_type"] == "reserved";
        if g["top_job"] != reserved {
            failures.push(format!(
                "{name} {side} {}: top_job {}, fluxion's selection_type {}",
                p["jobid"], g["top_job"], p["selection_type"]
            ));
        }
        if !p["start"].is_null() {
            estimates += 1;
            if g["start"] != p["start"] {
                failures.push(format!(
                    "{name} {side} {}: start {}, fluxion's t_estimate {}",
                    p["jobid"], g["start"], p["start"]
                ));
            }
            if g["reason"] != "reserved" {
                failures.push(format!(
                    "{name} {side} {}: reason {}",
                    p["jobid"], g["reason"]
                ));
            }
        }
    }
    if side == "before" {
        for r in list(&want, "rejected") {
            let g = job(&got, &r["jobid"]);
            if g["runs_now"] == true || g["reason"] != r["exception_note"] || !g["start"].is_null()
            {
                failures.push(format!(
                    "{name} {}: fluxion rejected it ({}), the forecast says {} / {}",
                    r["jobid"], r["exception_note"], g["runs_now"], g["reason"]
                ));
            }
        }
    }
    (failures, starts, estimates)
}

#[test]
fn the_jobs_fluxion_started_and_reserved_are_the_forecast_s() {
    let (mut failures, mut starts, mut estimates) = (Vec::new(), 0, 0);
    for d in captures() {
        let want = read_json(&d.join("expected.json"));
        let at = want["release_time"].as_f64().unwrap().floor() as i64;
        let (f, s, e) = check(&d, "before", at, want["queue_policy"].as_str());
        failures.extend(f);
        starts += s;
        estimates += e;
    }
    assert!(captures().len() >= 8, "captures: {}", captures().len());
    assert!(starts >= 6, "starts checked: {starts}");
    assert!(estimates >= 8, "estimates checked: {estimates}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn after_the_loop_nothing_more_starts_and_the_reservations_hold() {
    let mut failures = Vec::new();
    for d in captures() {
        let want = read_json(&d.join("expected.json"));
        let at = want["after_time"].as_f64().unwrap().floor() as i64;
        failures.extend(check(&d, "after", at, want["queue_policy"].as_str()).0);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Without `--queue-policy` the forecast is fluxion's default, easy.
#[test]
fn easy_is_the_default_policy() {
    let d = data("flux_forecast").join("easy_plain_backfill");
    let want = read_json(&d.join("expected.json"));
    let at = want["release_time"].as_f64().unwrap().floor() as i64;
    assert_eq!(
        forecast(&d, "before", None, at),
        forecast(&d, "before", Some("easy"), at)
    );
    let fcfs = forecast(&d, "before", Some("fcfs"), at);
    assert!(fcfs["policy"].as_str().unwrap().contains("fcfs"));
}

#[test]
fn flux_flags_and_inputs_are_refused_where_they_do_not_belong() {
    let d = data("flux_forecast").join("easy_plain_backfill");
    // a PBS or Slurm flag on a flux snapshot: bad usage
    fairsort()
        .arg("forecast")
        .arg("--jobs")
        .arg(d.join("before/jobs.json"))
        .arg("--node-state")
        .arg(d.join("before/R.json"))
        .args(["--backfill-depth", "2"])
        .assert()
        .code(2);
    // an unknown policy
    fairsort()
        .arg("forecast")
        .arg("--jobs")
        .arg(d.join("before/jobs.json"))
        .arg("--node-state")
        .arg(d.join("before/R.json"))
        .args(["--queue-policy", "lifo"])
        .assert()
        .code(2);
    // the nodes file that is not R: bad input, at the file
    let out = fairsort()
        .arg("forecast")
        .arg("--jobs")
        .arg(d.join("before/jobs.json"))
        .arg("--node-state")
        .arg(d.join("before/jobs.json"))
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(err.contains("R_lite"), "{err}");
    // the table and one job's explanation
    let table = fairsort()
        .arg("forecast")
        .arg("--jobs")
        .arg(d.join("before/jobs.json"))
        .arg("--node-state")
        .arg(d.join("before/R.json"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8_lossy(&table);
    assert!(table.contains("fluxion queue-policy easy"), "{table}");
    assert!(table.contains("reserved"), "{table}");
}
