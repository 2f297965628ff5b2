//! Acceptance: `fairsort forecast --slurm-conf` agrees with what a real Slurm 22.05.8 backfill
//! scheduler decided (`tests/data/slurm_forecast`, one 8-cpu node running sleep jobs):
//! - from the state right after its backfill cycle (`after/`): every pending job's estimated
//!   start (`start_time`, `squeue --start`) to the second, its reason code, and that no
//!   pending job could still start;
//! - from the snapshot just before the cycle (`before/`, its held jobs released with the
//!   priorities slurmctld gave them): the jobs the backfill started are those the forecast
//!   starts, and no other.

use crate::common::{data, fairsort, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn captures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data("slurm_forecast"))
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

/// `fairsort forecast --slurm-conf ... --json` of `squeue` at `at`.
fn forecast(d: &Path, squeue: &Path, nodes: &str, at: i64) -> Value {
    let out = fairsort()
        .args(["forecast", "--slurm-conf"])
        .arg(d.join("before/slurm.conf"))
        .arg("--jobs")
        .arg(squeue)
        .arg("--node-state")
        .arg(d.join(nodes))
        .args(["--at", &at.to_string(), "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    json_of(&out)
}

fn job<'a>(doc: &'a Value, id: &Value) -> Option<&'a Value> {
    let id = id.to_string();
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["id"] == id.as_str())
}

#[test]
fn estimates_and_reasons_after_the_cycle_are_slurm_s() {
    let mut failures = Vec::new();
    let mut estimates = 0;
    for d in captures() {
        let want = read_json(&d.join("expected.json"));
        let at = want["last_backfill_cycle"].as_i64().unwrap();
        let got = forecast(&d, &d.join("after/squeue.json"), "after/sinfo.json", at);
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        for p in want["pending"].as_array().unwrap() {
            let Some(g) = job(&got, &p["id"]) else {
                failures.push(format!("{name} {}: missing", p["id"]));
                continue;
            };
            if g["runs_now"] != false {
                failures.push(format!(
                    "{name} {}: starts now, Slurm did not start it",
                    p["id"]
                ));
            }
            if g["start"] != p["start"] {
                failures.push(format!(
                    "{name} {}: start {}, Slurm {}",
                    p["id"], g["start"], p["start"]
                ));
            }
            if g["reason"] != p["reason"] {
                failures.push(format!(
                    "{name} {}: reason {}, Slurm {}",
                    p["id"], g["reason"], p["reason"]
                ));
            }
            estimates += usize::from(!p["start"].is_null());
        }
    }
    assert!(estimates >= 15, "estimates checked: {estimates}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_jobs_the_backfill_started_are_the_forecast_s() {
    let mut failures = Vec::new();
    let mut started = 0;
    for d in captures() {
        let want = read_json(&d.join("expected.json"));
        let after = read_json(&d.join("after/squeue.json"));
        // before/ holds the pending jobs (`sbatch -H`, priority 0): release them with the
        // priority slurmctld gave each once released, as `scontrol release` did.
        let mut before = read_json(&d.join("before/squeue.json"));
        for j in before["jobs"].as_array_mut().unwrap() {
            let Some(a) = after["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["job_id"] == j["job_id"])
            else {
                continue;
            };
            if j["state_reason"] == "JobHeldUser" {
                j["priority"] = a["priority"].clone();
                j["state_reason"] = Value::from("None");
            }
        }
        let tmp = tempfile::tempdir().unwrap();
        let released = tmp.path().join("squeue.json");
        std::fs::write(&released, serde_json::to_vec(&before).unwrap()).unwrap();
        // the backfill cycle ran when the jobs it started began
        let starts: Vec<i64> = want["started_after_release"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["start"].as_i64().unwrap())
            .collect();
        let at = starts
            .iter()
            .copied()
            .min()
            .unwrap_or(want["last_backfill_cycle"].as_i64().unwrap());
        let got = forecast(&d, &released, "before/sinfo.json", at);
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        for s in want["started_after_release"].as_array().unwrap() {
            started += 1;
            if job(&got, &s["id"]).map(|g| &g["runs_now"]) != Some(&Value::Bool(true)) {
                failures.push(format!(
                    "{name} {}: Slurm started it, the forecast does not",
                    s["id"]
                ));
            }
        }
        for p in want["pending"].as_array().unwrap() {
            let g = job(&got, &p["id"]).unwrap();
            if g["runs_now"] == true {
                failures.push(format!(
                    "{name} {}: the forecast starts it, Slurm did not",
                    p["id"]
                ));
            }
            // Its estimate is checked from after/: Slurm's is from its second cycle, which saw
            // the jobs the first one started running (the unlimited job's will-run answer moves).
        }
    }
    assert!(started >= 6, "started jobs checked: {started}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pbs_flags_are_refused_on_a_slurm_forecast() {
    let d = data("slurm_forecast/plain_backfill");
    fairsort()
        .args(["forecast", "--slurm-conf"])
        .arg(d.join("before/slurm.conf"))
        .arg("--jobs")
        .arg(d.join("after/squeue.json"))
        .arg("--node-state")
        .arg(d.join("after/sinfo.json"))
        .args(["--backfill-depth", "3"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--backfill-depth is a PBS site's",
        ));
}

/// `--against-weights` recomputes each pending job's priority with the multifactor engine of
/// `order --slurm-conf`: under the site's own weights it is slurmctld's, for every job of every
/// capture; without the job-size weight only the partition's (and nice) is left.
#[test]
fn against_weights_recomputes_slurmctld_s_priorities() {
    let mut checked = 0;
    for d in captures() {
        let want = read_json(&d.join("expected.json"));
        let at = want["last_backfill_cycle"].as_i64().unwrap();
        let run = |weights: &str| {
            let out = fairsort()
                .args(["forecast", "--slurm-conf"])
                .arg(d.join("before/slurm.conf"))
                .arg("--jobs")
                .arg(d.join("after/squeue.json"))
                .arg("--node-state")
                .arg(d.join("after/sinfo.json"))
                .args([
                    "--at",
                    &at.to_string(),
                    "--json",
                    "--against-weights",
                    weights,
                ])
                .assert()
                .success()
                .get_output()
                .stdout
                .clone();
            json_of(&out)
        };
        let own = run("PriorityWeightJobSize=1000,PriorityWeightPartition=1000");
        let no_size = run("PriorityWeightJobSize=0");
        for p in want["pending"].as_array().unwrap() {
            let g = job(&own, &p["id"]).unwrap();
            assert_eq!(
                g["priority"].as_f64(),
                p["priority"].as_f64(),
                "{d:?} {}",
                p["id"]
            );
            let n = job(&no_size, &p["id"]).unwrap()["priority"]
                .as_f64()
                .unwrap();
            assert!(
                n <= 1000.0 && n < p["priority"].as_f64().unwrap(),
                "{d:?} {}: {n}",
                p["id"]
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked}");
}
