//! Acceptance: `fairsort forecast` on a PBS site agrees with what a real OpenPBS 23.06.06
//! pbs_sched decided in one cycle on a node running jobs (`tests/data/pbs_forecast`): the jobs
//! it started, the estimated start of each top job (to the second), and every other job's
//! comment. For each capture, through the commands an admin runs: `fairsort init`, `fairsort
//! pbs import` of the site's files, then `fairsort forecast --home H --jobs
//! before/qstat.json --node-state before/pbsnodes.json --at EPOCH --json [--reservations
//! before/pbs_rstat.txt]`, EPOCH being the cycle's second from the scheduler's log.

use crate::common::{data, fairsort_home, import_pbs_capture, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    data(&format!("pbs_forecast/{name}"))
}

/// Every capture directory.
fn captures() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(data("pbs_forecast"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("expected.json").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `fairsort forecast` of capture directory `d` on `home`, at the cycle's second `want["at"]`.
fn forecast_cmd(home: &Path, d: &Path, want: &Value) -> assert_cmd::Command {
    let mut c = fairsort_home(home);
    c.args(["forecast", "--jobs"])
        .arg(d.join("before/qstat.json"))
        .arg("--node-state")
        .arg(d.join("before/pbsnodes.json"))
        .args(["--at", &want["at"].as_i64().unwrap_or(0).to_string()]);
    c
}

/// The capture's expected.json.
fn expected(d: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(d.join("expected.json")).unwrap()).unwrap()
}

/// The forecast JSON of capture `name`, and its expected.json.
fn forecast(name: &str) -> (Value, Value) {
    let d = dir(name);
    let want = expected(&d);
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    import_pbs_capture(&d, &home);
    let mut c = forecast_cmd(&home, &d, &want);
    c.arg("--json");
    let rstat = d.join("before/pbs_rstat.txt");
    if std::fs::metadata(&rstat).is_ok_and(|m| m.len() > 0) {
        c.arg("--reservations").arg(rstat);
    }
    let out = c.assert().success().get_output().stdout.clone();
    (json_of(&out), want)
}

#[test]
fn every_capture_is_forecast_as_pbs_sched_decided() {
    let names = captures();
    assert!(names.len() >= 11, "captures: {names:?}");
    let mut failures = Vec::new();
    let mut tops = 0;
    for name in &names {
        let (got, want) = forecast(name);
        let jobs = got["jobs"].as_array().unwrap();
        for w in want["jobs"].as_array().unwrap() {
            let id = w["id"].as_str().unwrap();
            let Some(g) = jobs.iter().find(|j| j["id"] == id) else {
                failures.push(format!("{name} {id}: not in the forecast"));
                continue;
            };
            let (gn, wn) = (&g["runs_now"], &w["runs_now"]);
            if gn != wn {
                failures.push(format!("{name} {id}: runs_now {gn}, pbs_sched {wn}"));
            }
            if g["top_job"] != w["top_job"] {
                failures.push(format!(
                    "{name} {id}: top_job {}, pbs_sched {}",
                    g["top_job"], w["top_job"]
                ));
            }
            if w["top_job"] == true {
                tops += 1;
                if g["start"] != w["start"] {
                    failures.push(format!(
                        "{name} {id}: start {}, pbs_sched's estimate {}",
                        g["start"], w["start"]
                    ));
                }
            }
            if wn == true && g["start"] != want["at"] {
                failures.push(format!(
                    "{name} {id}: starts now but start is {}",
                    g["start"]
                ));
            }
            if g["reason"] != w["reason"] {
                failures.push(format!(
                    "{name} {id}: reason {}, pbs_sched {}",
                    g["reason"], w["reason"]
                ));
            }
        }
        if !got["warnings"].as_array().unwrap().is_empty() {
            failures.push(format!("{name}: warnings {}", got["warnings"]));
        }
    }
    assert!(tops >= 10, "top jobs checked: {tops}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every pending job gets a predicted start no earlier than the snapshot, and a job pbs_sched
/// could never run gets none.
#[test]
fn every_waiting_job_has_a_start_after_the_snapshot() {
    for name in captures() {
        let (got, want) = forecast(&name);
        let at = want["at"].as_i64().unwrap();
        for j in got["jobs"].as_array().unwrap() {
            if j["state"] != "Q" || j["rank"].is_null() {
                continue;
            }
            let never = j["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("Can Never Run"));
            match j["start"].as_i64() {
                Some(s) => assert!(!never && s >= at, "{name} {}: {s} < {at}", j["id"]),
                None => assert!(never, "{name} {}: no start", j["id"]),
            }
        }
    }
}

#[test]
fn explain_one_job_names_what_it_waits_for() {
    let d = dir("depth1");
    let want = expected(&d);
    let conflict = want["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["reason"] == "Not Running: Job would conflict with reservation or top job")
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    import_pbs_capture(&d, &home);
    let out = forecast_cmd(&home, &d, &want)
        .args(["--utc", "--job"])
        .arg(conflict["id"].as_str().unwrap())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("why not now: Not Running: Job would conflict with reservation or top job"),
        "{text}"
    );
    assert!(
        text.contains("ahead of it in the order and not starting now: 2"),
        "{text}"
    );
    assert!(
        text.contains("with a walltime of at most 1h59m it would start now"),
        "{text}"
    );
}

#[test]
fn a_home_without_a_pbs_site_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let d = dir("depth1");
    fairsort_home(&home)
        .args(["forecast", "--jobs"])
        .arg(d.join("before/qstat.json"))
        .arg("--node-state")
        .arg(d.join("before/pbsnodes.json"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("fairsort pbs import"));
}

/// `--against FORMULA` orders the same snapshot by another formula: smallest jobs first under
/// `-ncpus`, where the site's `ncpus` put the largest first.
#[test]
fn against_another_formula_reorders_the_snapshot() {
    let d = dir("formula_order");
    let want = expected(&d);
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    import_pbs_capture(&d, &home);
    let first_cores = |extra: &[&str]| {
        let out = forecast_cmd(&home, &d, &want)
            .arg("--json")
            .args(extra)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let doc = json_of(&out);
        let first = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["rank"] == 1)
            .unwrap()
            .clone();
        first["cores"].as_u64().unwrap()
    };
    assert_eq!(first_cores(&[]), 6);
    assert_eq!(first_cores(&["--against=-ncpus"]), 1);
}

/// `--job` prints an explanation: with `--json`, `--csv` or `--top` it is refused, not ignored.
#[test]
fn explain_refuses_the_flags_it_cannot_honour() {
    let d = dir("depth1");
    for flag in [&["--json"][..], &["--csv"], &["--top", "2"]] {
        fairsort_home(&tempfile::tempdir().unwrap().path().join("h"))
            .args(["forecast", "--jobs"])
            .arg(d.join("before/qstat.json"))
            .arg("--node-state")
            .arg(d.join("before/pbsnodes.json"))
            .args(["--job", "1"])
            .args(flag)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("cannot be used with"));
    }
}
