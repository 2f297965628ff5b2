//! `fairsort usage` end to end: recording exactly once, malformed lines reported and skipped,
//! the references' decay vectors through the store, set/reset/show, and exports.

use approx::assert_relative_eq;
use predicates::prelude::*;
use std::path::Path;

use crate::common::{data, fairsort_home};

fn show(home: &Path) -> serde_json::Value {
    let out = fairsort_home(home)
        .args(["usage", "show", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn usage_of(v: &serde_json::Value, name: &str) -> Option<f64> {
    v["entity"]
        .as_array()?
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["usage"].as_f64())
}

#[test]
fn recording_the_same_log_twice_charges_once() {
    let home = tempfile::tempdir().unwrap();
    let logs = data("usage/pbs_logs");
    fairsort_home(home.path())
        .args(["usage", "record"])
        .arg(&logs)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "charged 3 job(s), total 1300; 0 already charged",
        ));
    // PBS usage starts at 1: alice 1 + 1000 + 200, bob 1 + 100 (cput in seconds)
    let v = show(home.path());
    assert_eq!(usage_of(&v, "alice"), Some(1201.0));
    assert_eq!(usage_of(&v, "bob"), Some(101.0));
    fairsort_home(home.path())
        .args(["usage", "record"])
        .arg(&logs)
        .arg(logs.join("20240414"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "charged 0 job(s), total 0; 4 already charged",
        ));
    assert_eq!(show(home.path()), v);
}

#[test]
fn corrupt_line_is_reported_and_good_lines_charged() {
    let home = tempfile::tempdir().unwrap();
    let log = data("usage/corrupt.log");
    fairsort_home(home.path())
        .args(["usage", "record"])
        .arg(&log)
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "{}:2: bad value `ten` for resources_used.cput (record skipped)",
            log.display()
        )))
        .stdout(predicate::str::contains(
            "charged 2 job(s), total 900; 0 already charged; 1 malformed",
        ));
    let v = show(home.path());
    assert_eq!(usage_of(&v, "carol"), Some(601.0));
    assert_eq!(usage_of(&v, "dave"), Some(301.0));
}

#[test]
fn strict_mode_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    fairsort_home(home.path())
        .args(["usage", "record", "--strict"])
        .arg(data("usage/corrupt.log"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing recorded (--strict)"));
    assert!(show(home.path())["entity"]
        .as_array()
        .is_none_or(|a| a.is_empty()));
}

#[test]
fn pbs_decay_1000_to_125_after_three_periods() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fairsort_home(h)
        .args(["usage", "set", "pbsuser3", "1000"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "decay", "--at", "1713000000"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "decay", "--json", "--at"])
        .arg((1_713_000_000 + 3 * 86_400 + 1).to_string())
        .assert()
        .success()
        .stdout(predicate::str::contains("\"periods\": 3"));
    assert_eq!(usage_of(&show(h), "pbsuser3"), Some(125.0));
}

#[test]
fn slurm_decay_per_calc_period_and_sacct_billing() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fairsort_home(h)
        .args([
            "usage",
            "reset",
            "--model",
            "slurm",
            "--at",
            "2024-04-13T12:00:00",
        ])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "record", "--billing-weights", "CPU=1.0,Mem=0.25G"])
        .arg(data("usage/sacct.txt"))
        .assert()
        .success()
        .stdout(predicate::str::contains("charged 2 job(s)"));
    fairsort_home(h)
        .args(["usage", "decay", "--at", "2024-04-13T11:00:00"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot be decayed backwards"));
    let v = show(h);
    // 1 CPU + 60 GiB -> 16 billing x 3600 s; 16 CPU + 1 GiB -> 16.25 x 1800 s.
    let alice = v["entity"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "alice")
        .unwrap();
    assert_eq!(alice["account"], "physics");
    assert_relative_eq!(alice["usage"].as_f64().unwrap(), 57_600.0, epsilon = 1e-9);
    fairsort_home(h)
        .args(["usage", "decay", "--at", "2024-04-13T12:05:00"])
        .assert()
        .success();
    let bob = usage_of(&show(h), "bob").unwrap();
    // slurm.md §5: δ^300 = 0.999656308878 for H = 7 days (tolerance 1e-6 relative on the product)
    assert_relative_eq!(bob, 16.25 * 1800.0 * 0.999656308878, max_relative = 1e-9);
}

#[test]
fn flux_bins_through_the_store_t1015() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fairsort_home(h)
        .args(["usage", "reset", "--model", "flux", "--at", "0"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "set", "bankA/u1", "100"])
        .assert()
        .success();
    for (week, want) in [(1, 50.0), (2, 25.0), (3, 12.5)] {
        fairsort_home(h)
            .args(["usage", "decay", "--at"])
            .arg((week * 604_800).to_string())
            .assert()
            .success();
        assert_eq!(usage_of(&show(h), "u1"), Some(want));
    }
    fairsort_home(h)
        .args(["usage", "show"])
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(r"(?m)^bankA +u1 +12\.500000 +0 0 0 12\.500000$").unwrap(),
        );
}

#[test]
fn reset_and_forget_jobs() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let logs = data("usage/pbs_logs");
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(&logs)
        .assert()
        .success();
    fairsort_home(h).args(["usage", "reset"]).assert().success();
    assert_eq!(usage_of(&show(h), "alice"), None);
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(&logs)
        .assert()
        .success()
        .stdout(predicate::str::contains("charged 0 job(s)"));
    fairsort_home(h)
        .args(["usage", "reset", "--forget-jobs"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(&logs)
        .assert()
        .success()
        .stdout(predicate::str::contains("charged 3 job(s)"));
}

#[test]
fn errors_are_one_line_with_the_right_status() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fairsort_home(h)
        .args(["usage", "set", "alice", "-5"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "usage must be a finite number >= 0",
        ));
    fairsort_home(h)
        .args(["usage", "decay", "--at", "tomorrow"])
        .assert()
        .code(2);
    fairsort_home(h)
        .args(["usage", "decay", "--decay-factor", "1.5"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "Valid values are between 0 and 1.",
        ));
    fairsort_home(h)
        .args(["usage", "decay", "--decay-time", "86400"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("Invalid time 86400"));
    fairsort_home(h)
        .args(["usage", "record", "--entity", "user"])
        .arg(data("usage/corrupt.log"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "fairshare_entity user is erroneous",
        ));
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(data("usage/no-such-file"))
        .assert()
        .code(1);
}

#[test]
fn export_pbs_binary_round_trips() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "set", "unknown", "5"])
        .assert()
        .success();
    let out = home.path().join("sched_priv/usage");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    fairsort_home(h)
        .args(["usage", "export", "--touch", "--pbs"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("wrote 2 entities"));
    let u = fairsort::formats::pbs::read_usage_binary(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(u.version, 2);
    assert_eq!(
        u.entries,
        vec![("alice".to_string(), 1201.0), ("bob".to_string(), 101.0)]
    );
    assert!(out.with_file_name("usage.touch").exists());
}

#[test]
fn usage_res_formula_charges_used_then_requested_resources() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fairsort_home(h)
        .args(["usage", "record", "--usage-res", "ncpus*walltime"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success();
    // 2 cpus (requested) x 2400 s used; 4 x 600; 1 x 300; PBS usage starts at 1.
    let v = show(h);
    assert_eq!(usage_of(&v, "alice"), Some(1.0 + 4800.0 + 300.0));
    assert_eq!(usage_of(&v, "bob"), Some(1.0 + 2400.0));
    fairsort_home(h)
        .args(["usage", "record", "--usage-res", "ncpus*(walltime"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("fairshare_usage_res: ").and(predicate::str::contains("^")),
        );
}

#[test]
fn pbs_decay_settings_come_from_the_home_and_changes_are_audited() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fairsort_home(h)
        .args(["qmgr", "-c", "set sched fairshare_decay_time = 00:00:10"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "set", "pbsuser3", "1000"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "decay", "--at", "1000"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["usage", "decay", "--at", "1031"])
        .assert()
        .success();
    assert_eq!(usage_of(&show(h), "pbsuser3"), Some(125.0));
    let audit = std::fs::read_to_string(h.join("audit.log")).unwrap();
    assert!(audit.contains("usage set pbsuser3 1000"), "{audit}");
    assert!(audit.contains("usage decay --at 1031"), "{audit}");
}

#[test]
fn only_managers_change_usage() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fairsort_home(h).args(["usage", "show"]).assert().success();
    let state = h.join("server.toml");
    let text = std::fs::read_to_string(&state).unwrap();
    let start = text.find("managers = [").unwrap();
    let end = start + text[start..].find(']').unwrap() + 1;
    let changed = format!(
        "{}managers = [\"nobody-here@nohost\"]{}",
        &text[..start],
        &text[end..]
    );
    std::fs::write(&state, changed).unwrap();
    fairsort_home(h)
        .args(["usage", "set", "alice", "5"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("Unauthorized Request"));
    fairsort_home(h).args(["usage", "show"]).assert().success();
    assert_eq!(usage_of(&show(h), "alice"), None);
}
