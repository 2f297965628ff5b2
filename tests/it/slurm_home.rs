//! A home holding a Slurm site (`fairsort slurm import`): `order --jobs squeue.json` there needs
//! no flags and gives exactly what the files give; only managers may import; bad input changes
//! nothing (file and audit log); the association capture serves as the tree when the home has
//! none.

use crate::common::{data_str, fairsort, fairsort_home, json_of, qmgr, without_sources};
use serde_json::Value;

const AT: &str = "1764000000";

fn files_run(extra: &[&str]) -> Value {
    let d = |f: &str| data_str(&format!("slurm_priority/{f}"));
    let out = fairsort()
        .args([
            "order",
            "--slurm-conf",
            &d("slurm.conf"),
            "--jobs",
            &d("squeue.json"),
        ])
        .args([
            "--qos",
            &d("qos.psv"),
            "--assoc",
            &d("assoc.psv"),
            "--at",
            AT,
            "--json",
        ])
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

fn import(home: &std::path::Path, qos: &str) -> std::process::Output {
    let d = |f: &str| data_str(&format!("slurm_priority/{f}"));
    fairsort_home(home)
        .args(["slurm", "import", "--conf", &d("slurm.conf")])
        .args(["--qos", qos, "--assoc", &d("assoc.psv")])
        .output()
        .unwrap()
}

fn home_order(home: &std::path::Path, extra: &[&str]) -> Value {
    let out = fairsort_home(home)
        .args([
            "order",
            "--jobs",
            &data_str("slurm_priority/squeue.json"),
            "--at",
            AT,
            "--json",
        ])
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

#[test]
fn order_on_a_slurm_home_needs_no_flags() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let out = import(h, &data_str("slurm_priority/qos.psv"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // No tree imported: the association capture (Share, ParentName) is the tree.
    let sacctmgr_tree = files_run(&[]);
    assert_eq!(
        without_sources(home_order(h, &[])),
        without_sources(sacctmgr_tree)
    );
    // With the sshare tree imported, the home gives what --tree sshare.psv gives.
    fairsort_home(h)
        .args(["tree", "import", &data_str("slurm_priority/sshare.psv")])
        .assert()
        .success();
    let with_tree = files_run(&["--tree", &data_str("slurm_priority/sshare.psv")]);
    assert_eq!(
        without_sources(home_order(h, &[])),
        without_sources(with_tree)
    );
    // The what-if works there too.
    let d = home_order(h, &["--formula", "qos_factor"]);
    assert_eq!(d["jobs"].as_array().unwrap().len(), 7);
    // `--example` still means the example, not the home.
    let out = fairsort_home(h)
        .args(["order", "--example", "pbs", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // `slurm show` prints the stored texts.
    let out = fairsort_home(h).args(["slurm", "show"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("# slurm.conf") && text.contains("PriorityWeightAge"),
        "{text}"
    );
    let audit = std::fs::read_to_string(h.join("audit.log")).unwrap();
    assert!(
        audit.contains("slurm import (slurm.conf, qos, assoc)"),
        "{audit}"
    );
}

#[test]
fn bad_input_and_non_managers_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    assert!(import(h, &data_str("slurm_priority/qos.psv"))
        .status
        .success());
    let stored = std::fs::read(h.join("slurm.toml")).unwrap();
    let audit = std::fs::read(h.join("audit.log")).unwrap();
    let bad = crate::common::write(h, "qos_bad.psv", "Name|Priority\nnormal|high\n");
    let out = import(h, bad.to_str().unwrap());
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("qos_bad.psv:2: ") && e.contains("high"), "{e}");
    assert_eq!(std::fs::read(h.join("slurm.toml")).unwrap(), stored);
    assert_eq!(std::fs::read(h.join("audit.log")).unwrap(), audit);
    qmgr(h, "set server managers = nobody@*").success();
    let audit = std::fs::read(h.join("audit.log")).unwrap();
    let out = import(h, &data_str("slurm_priority/qos.psv"));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a manager"));
    assert_eq!(std::fs::read(h.join("slurm.toml")).unwrap(), stored);
    assert_eq!(std::fs::read(h.join("audit.log")).unwrap(), audit);
    // A hand-damaged file is named with its path, never silently ignored.
    std::fs::write(h.join("slurm.toml"), "conf = 5\n").unwrap();
    let out = fairsort_home(h)
        .args(["order", "--jobs", &data_str("slurm_priority/squeue.json")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("slurm.toml"));
}
