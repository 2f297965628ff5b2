//! `job_sort_formula_threshold` as PBS: stored as PBS stores it (a C float, printed
//! with at most 4 decimals and read back by the scheduler), unset = `INT_MIN`, and with
//! `--pbs-compat` a job exactly at the threshold is classified as PBS classifies it.

use serde_json::Value;

use crate::common::{fairsort, qmgr, write};

fn order(dir: &std::path::Path, formula: &str, extra: &[&str]) -> Value {
    let jobs = write(
        dir,
        "jobs.csv",
        "id,user,state,qtime\n1,a,Q,1700000000\n2,b,Q,1700000001\n",
    );
    let out = fairsort()
        .args(["order", "--json", "--jobs"])
        .arg(&jobs)
        .arg(format!("--formula={formula}"))
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn below(doc: &Value) -> Vec<bool> {
    doc["jobs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|j| j["eligible"].as_bool() == Some(false))
        .collect()
}

#[test]
fn a_job_exactly_at_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    // both jobs are worth 0.1 (a Python float); the threshold is 0.1
    let exact = order(dir.path(), "0.1", &["--threshold", "0.1"]);
    assert_eq!(below(&exact), [true, true], "default mode: 0.1 <= 0.1");
    // PBS keeps the value as the float 0.100000001 and the threshold as the double 0.1
    let pbs = order(dir.path(), "0.1", &["--threshold", "0.1", "--pbs-compat"]);
    assert_eq!(below(&pbs), [false, false], "PBS runs them");
    // 0.20000001 is stored as the float 0.2000000179, printed "0.2" for the scheduler: the
    // threshold is the double 0.2, below PBS's value of a job worth 0.2 (0.2000000030)
    let pbs = order(
        dir.path(),
        "0.2",
        &["--threshold", "0.20000001", "--pbs-compat"],
    );
    assert_eq!(pbs["threshold"], 0.2);
    assert_eq!(below(&pbs), [false, false], "PBS runs them");
    // an integral value at the threshold is held back in both modes (§4.3)
    let pbs = order(dir.path(), "7", &["--threshold", "7", "--pbs-compat"]);
    assert_eq!(below(&pbs), [true, true]);
}

#[test]
fn the_threshold_is_stored_as_pbs_stores_it() {
    let dir = tempfile::tempdir().unwrap();
    // at most 4 decimals: 0.123456 is 0.1235, so a job worth 0.1234 is below it
    let doc = order(dir.path(), "0.1234", &["--threshold", "0.123456"]);
    assert_eq!(doc["threshold"], 0.1235);
    assert_eq!(below(&doc), [true, true]);
    let h = tempfile::tempdir().unwrap();
    qmgr(h.path(), "set sched job_sort_formula_threshold = 0.123456").success();
    let out = qmgr(h.path(), "list sched").success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("    job_sort_formula_threshold = 0.1235\n"),
        "{text}"
    );
    qmgr(h.path(), "set sched job_sort_formula_threshold = 1e39").code(166);
}

#[test]
fn unset_is_int_min() {
    let dir = tempfile::tempdir().unwrap();
    let doc = order(dir.path(), "-3000000000", &[]);
    assert_eq!(below(&doc), [true, true], "at or below INT_MIN");
    let doc = order(dir.path(), "-2147483647", &[]);
    assert_eq!(below(&doc), [false, false]);
    // the table says why jobs are held back without a threshold
    let jobs = dir.path().join("jobs.csv");
    let out = fairsort()
        .args(["order", "--jobs"])
        .arg(&jobs)
        .arg("--formula=-3e9")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("threshold:  unset, which PBS applies as INT_MIN (-2147483648)\n"),
        "{text}"
    );
}
