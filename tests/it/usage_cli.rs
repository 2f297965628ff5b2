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
    let u = fairsort::pbs::read_usage_binary(&std::fs::read(&out).unwrap()).unwrap();
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

/// A home with the openpbs.md §4.1 tree (share/resource_group) and `tree import`ed.
fn pbs_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    fairsort_home(home.path())
        .args(["tree", "import"])
        .arg(data("share/resource_group"))
        .assert()
        .success();
    home
}

/// openpbs.md §3.2/§3.6: alice and bob (the logs' users) are not in `resource_group`. PBS
/// creates each with 1 share under `unknown`, counts their usage there and in every ancestor, and
/// writes them to the usage file: `usage record` says so, `usage show` places them under
/// `unknown`, `usage export` writes them, and `share` (from the home, no flags) lists them under
/// `unknown` with the root's usage including theirs.
#[test]
fn pbs_entities_not_in_resource_group_are_recorded_shown_and_exported_under_unknown() {
    let home = pbs_home();
    let h = home.path();
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success()
        .stderr(
            "note: 2 entities are not in the share tree; PBS counts their usage under \
             `unknown` with 1 share each: alice, bob\n",
        );
    fairsort_home(h)
        .args(["usage", "set", "pbsuser3", "1000"])
        .assert()
        .success();
    let table = fairsort_home(h)
        .args(["usage", "show"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).unwrap();
    let row = |name: &str| -> Vec<String> {
        let line = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row in\n{table}"));
        line.split_whitespace().map(str::to_string).collect()
    };
    assert!(
        table.lines().nth(1).unwrap().trim_end().ends_with("Group"),
        "{table}"
    );
    assert_eq!(row("alice"), ["alice", "1201", "unknown"]);
    assert_eq!(row("bob"), ["bob", "101", "unknown"]);
    assert_eq!(row("pbsuser3"), ["pbsuser3", "1000", "group2"]);
    fairsort_home(h)
        .args(["usage", "show", "--csv"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "account,entity,usage,bins,group\n,alice,1201,,unknown\n,bob,101,,unknown\n,pbsuser3,1000,,group2\n",
        ));

    let out = h.join("pbs_usage");
    fairsort_home(h)
        .args(["usage", "export", "--pbs"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("wrote 3 entities"));
    let u = fairsort::pbs::read_usage_binary(&std::fs::read(&out).unwrap()).unwrap();
    assert!(u.entries.contains(&("alice".to_string(), 1201.0)), "{u:?}");

    // From the home with no flags (the home's algorithm, pbs) and from the exported file.
    for args in [
        vec!["share".to_string(), "--json".to_string()],
        vec![
            "share".to_string(),
            "--json".to_string(),
            "-a".to_string(),
            "pbs".to_string(),
            "--tree".to_string(),
            data("share/resource_group").display().to_string(),
            "--usage".to_string(),
            out.display().to_string(),
        ],
    ] {
        let v = crate::common::json_of(
            &fairsort_home(h)
                .args(&args)
                .assert()
                .success()
                .stderr("")
                .get_output()
                .stdout,
        );
        let rows = v["rows"].as_array().unwrap();
        let alice = rows
            .iter()
            .find(|r| r["account"] == "unknown" && r["user"] == "alice")
            .unwrap_or_else(|| panic!("{args:?}: alice is not under unknown"));
        assert_relative_eq!(alice["raw_usage"].as_f64().unwrap(), 1201.0);
        assert_relative_eq!(alice["fairshare_factor"].as_f64().unwrap(), 0.0);
        let unknown = rows
            .iter()
            .find(|r| r["account"] == "unknown" && r["user"].is_null())
            .unwrap();
        // PBS: a group's usage is 1 + its leaves' usage.
        assert_relative_eq!(unknown["raw_usage"].as_f64().unwrap(), 1.0 + 1201.0 + 101.0);
        assert_relative_eq!(
            rows[0]["raw_usage"].as_f64().unwrap(),
            1.0 + 1201.0 + 101.0 + 1000.0
        );
    }
}

/// A Slurm home: the server/cluster.psv associations (physics/alice, chem/bob).
fn slurm_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    fairsort_home(home.path())
        .args(["tree", "import", "--tree-format", "sacctmgr"])
        .arg(data("server/cluster.psv"))
        .assert()
        .success();
    home
}

const SACCT_STRANGERS: &str = "\
JobID|User|Account|Start|End|Elapsed|AllocCPUS|AllocTRES|State
600|alice|physics|2024-04-13T10:00:00|2024-04-13T11:00:00|01:00:00|1|billing=1,cpu=1|COMPLETED
601|carol|physics|2024-04-13T10:00:00|2024-04-13T11:00:00|01:00:00|4|billing=4,cpu=4|COMPLETED
602|carol|physics|2024-04-13T12:00:00|2024-04-13T13:00:00|01:00:00|4|billing=4,cpu=4|COMPLETED
603|alice|chem|2024-04-13T10:00:00|2024-04-13T10:30:00|00:30:00|2|billing=2,cpu=2|COMPLETED
604|dave|nowhere|2024-04-13T10:00:00|2024-04-13T10:00:10|00:00:10|1|billing=1,cpu=1|COMPLETED
";

/// Usage of users with no association in the tree (carol in physics, alice in chem, dave in
/// an account the tree lacks) is recorded but reported by `usage record`, and `share` and `order`
/// from the home say once that it was not counted; the counted association is unchanged.
#[test]
fn slurm_usage_of_no_association_is_reported_never_dropped_silently() {
    let home = slurm_home();
    let h = home.path();
    let sacct = crate::common::write(h, "sacct.txt", SACCT_STRANGERS);
    let warning = "warning: 4 usage records (3 users, usage 32410.0) have no association in \
                   the tree and were not counted: carol (28800.0), alice (3600.0), dave (10.0)\n";
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(&sacct)
        .assert()
        .success()
        .stdout(predicate::str::contains("charged 5 job(s)"))
        .stderr(warning);
    // Kept in the store (counted once the association exists), never silently dropped.
    let v = show(h);
    assert_eq!(v["entity"].as_array().unwrap().len(), 4);
    // The store holds one record per association: 3 records, carol's two jobs in one.
    let stored = "warning: 3 usage records (3 users, ";
    let share = fairsort_home(h)
        .args(["share", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(share.stderr).unwrap();
    assert!(stderr.starts_with(stored), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(": carol (28801.0), alice (3601.0), dave (11.0)\n"),
        "{stderr}"
    );
    let rows = crate::common::json_of(&share.stdout)["rows"].clone();
    let alice = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["account"] == "physics" && r["user"] == "alice")
        .unwrap()
        .clone();
    assert_relative_eq!(alice["raw_usage"].as_f64().unwrap(), 3601.0);
    assert!(
        !rows.to_string().contains("carol"),
        "no association invented"
    );

    let jobs = crate::common::write(
        h,
        "jobs.json",
        r#"[{"id":"1","user":"alice","account":"physics","qtime":1}]"#,
    );
    // Importing the tree again says it too.
    fairsort_home(h)
        .args(["tree", "import", "--tree-format", "sacctmgr"])
        .arg(data("server/cluster.psv"))
        .assert()
        .success()
        .stderr(predicate::str::starts_with(stored).and(predicate::str::contains("\n").count(1)));
    fairsort_home(h)
        .args(["order", "--formula", "fairshare_factor", "--jobs"])
        .arg(&jobs)
        .assert()
        .success()
        .stderr(predicate::str::starts_with(stored).and(predicate::str::contains("\n").count(1)));
}

/// A share tree that cannot be read does not stop recording: it is said once, and `share`
/// reports it as the error it is.
#[test]
fn an_unreadable_tree_does_not_stop_usage_record() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    crate::common::write(h, "tree.toml", "version = 1\n[[accounts]]\nnam = \"x\"\n");
    fairsort_home(h)
        .args(["usage", "record"])
        .arg(data("usage/pbs_logs"))
        .assert()
        .success()
        .stderr(
            predicate::str::contains("tree.toml").and(predicate::str::contains(
                "usage is not checked against the share tree",
            )),
        );
    assert_eq!(usage_of(&show(h), "alice"), Some(1201.0));
    fairsort_home(h)
        .args(["share", "-a", "pbs"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("tree.toml"));
}

#[test]
fn a_charged_log_is_skipped_by_its_mark_and_an_appended_one_charges_the_new_jobs() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("20240413");
    let job = |j: u32| {
        format!(
            "04/13/2024 11:00:00;E;{j}.srv;user=u{} end={} resources_used.cput=00:00:10\n",
            j % 3,
            1_713_000_000 + j
        )
    };
    let mut text: String = (1..=50).map(job).collect();
    text += "04/13/2024 11:00:00;E;bad.srv;user=x resources_used.cput=abc\n";
    std::fs::write(&log, &text).unwrap();
    let record = |want: &str| {
        fairsort_home(h)
            .args(["usage", "record"])
            .arg(&log)
            .assert()
            .success()
            .stdout(predicate::str::contains(want.to_string()))
            .stderr(predicate::str::contains(":51: bad value `abc`"));
    };
    record("charged 50 job(s), total 500; 0 already charged; 1 malformed");
    let store = std::fs::read_to_string(h.join("usage.toml")).unwrap();
    assert!(
        store.contains("[[charged]]") && store.contains("lines = 50"),
        "{store}"
    );
    let v = show(h);
    // again: the prefix before the malformed line is skipped, the malformed line reported again
    record("charged 0 job(s), total 0; 50 already charged; 1 malformed");
    assert_eq!(show(h), v);
    // appended: only the new jobs
    text += &(51..=60).map(job).collect::<String>();
    std::fs::write(&log, &text).unwrap();
    record("charged 10 job(s), total 100; 50 already charged; 1 malformed");
    // forgetting the jobs forgets the marks
    fairsort_home(h)
        .args(["usage", "reset", "--forget-jobs"])
        .assert()
        .success();
    let store = std::fs::read_to_string(h.join("usage.toml")).unwrap();
    assert!(!store.contains("[[charged]]"), "{store}");
    record("charged 60 job(s), total 600; 0 already charged; 1 malformed");
}

#[test]
fn a_log_charged_to_its_end_is_recorded_again_without_the_ledger() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let logs = data("usage/pbs_logs");
    fairsort_home(h)
        .args(["usage", "record", "--json"])
        .arg(&logs)
        .assert()
        .success();
    let first = std::fs::read_to_string(h.join("usage.toml")).unwrap();
    let out = fairsort_home(h)
        .args(["usage", "record", "--json"])
        .arg(&logs)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["charged"], 0);
    assert_eq!(v["repeated"], 3);
    // nothing changed: the store is not rewritten
    assert_eq!(
        std::fs::read_to_string(h.join("usage.toml")).unwrap(),
        first
    );
}
