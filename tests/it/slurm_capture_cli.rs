//! Acceptance through the CLI: `fairsort share --tree capture.psv --algorithm A [--dampening D]
//! --json` reproduces every NormShares, NormUsage, EffectvUsage, FairShare and LevelFS an
//! `sshare -a -l -P` capture prints, within 1.5e-6 (6 printed decimals), blanks as null and
//! `inf` as "inf". The captures are read with the crate's own sshare reader.

use fairsort::slurm::parse_sshare_rows;
use serde_json::Value;

use crate::common::{data_str, fairsort};

const TOL: f64 = 1.5e-6;

fn same(name: &str, col: &str, printed: Option<f64>, got: &Value) {
    match (printed, got) {
        (None, Value::Null) => {}
        (Some(p), Value::String(s)) if p == f64::INFINITY => assert_eq!(s, "inf", "{name} {col}"),
        (Some(p), Value::Number(n)) => {
            let g = n.as_f64().unwrap();
            assert!((g - p).abs() <= TOL, "{name} {col}: printed {p}, got {g}");
        }
        (p, g) => panic!("{name} {col}: printed {p:?}, got {g}"),
    }
}

fn check(capture: &str, args: &[&str]) {
    let path = data_str(&format!("slurm/{capture}"));
    let text = std::fs::read_to_string(&path).unwrap();
    let printed = parse_sshare_rows(&text).unwrap();
    let out = fairsort()
        .args(["share", "--tree", &path, "--json"])
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let json: Value = serde_json::from_slice(&out).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        printed.len(),
        "{capture}: one JSON row per sshare row"
    );
    let has_level_fs = text.lines().next().unwrap().contains("LevelFS");
    for p in &printed {
        let user = p.user.as_deref();
        let row = rows
            .iter()
            .find(|r| r["account"] == p.account.as_str() && r["user"].as_str() == user)
            .unwrap_or_else(|| panic!("{capture}: no row for {}/{user:?}", p.account));
        let name = format!("{}/{}", p.account, user.unwrap_or(""));
        same(&name, "NormShares", p.norm_shares, &row["norm_shares"]);
        same(&name, "NormUsage", p.norm_usage, &row["norm_usage"]);
        same(
            &name,
            "EffectvUsage",
            p.effective_usage,
            &row["effective_usage"],
        );
        same(&name, "FairShare", p.fairshare, &row["fairshare"]);
        if has_level_fs {
            same(&name, "LevelFS", p.level_fs, &row["level_fs"]);
        }
    }
}

#[test]
fn fair_tree_capture() {
    check("t2_fair_tree.psv", &["--algorithm", "fair-tree"]);
}

#[test]
fn classic_captures_dampening_1_and_2() {
    check("t1_classic_d1.psv", &["--algorithm", "classic"]);
    check(
        "t1_classic_d2.psv",
        &["--algorithm", "classic", "--dampening", "2"],
    );
    check("t1h_classic_parent.psv", &["--algorithm", "classic"]);
}

#[test]
fn depth_oblivious_capture() {
    check(
        "t1_depth_oblivious.psv",
        &["--algorithm", "depth-oblivious"],
    );
}

/// The site capture (tests/data/slurm/site_capture.psv, #14) is consistent: Fair Tree gives back
/// each value it prints (values worked by hand from slurm.md §3).
#[test]
fn site_capture_fair_tree() {
    check("site_capture.psv", &["--algorithm", "fair-tree"]);
}

/// The Account cells (leading spaces and name) of a table's rows, after the two header lines.
fn account_cells(table: &str) -> Vec<String> {
    let mut lines = crate::common::table_part(table).lines();
    let rule = lines.nth(1).unwrap();
    let width = rule.find(' ').unwrap();
    lines
        .map(|l| l.get(..width).unwrap_or(l).trim_end().to_string())
        .collect()
}

/// Slurm's `slurmdb_tree_name_get` (src/sshare/process.c): the Account column is indented
/// one space per depth: an account one space deeper than its parent, a user row (showing its
/// account) one space deeper than the account's row. The table indents exactly as the capture.
#[test]
fn sshare_table_indents_every_depth_as_slurm() {
    let path = data_str("slurm/site_capture.psv");
    let text = std::fs::read_to_string(&path).unwrap();
    let printed: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| l.split('|').next().unwrap().to_string())
        .collect();
    assert!(
        printed.contains(&"  theory".to_string()),
        "a depth-2 account"
    );
    assert!(printed.contains(&"   theory".to_string()), "its user row");
    for algorithm in ["fair-tree", "classic", "ticket"] {
        let out = fairsort()
            .args(["share", "--tree", &path, "--algorithm", algorithm])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let table = String::from_utf8(out).unwrap();
        assert_eq!(account_cells(&table), printed, "{algorithm}:\n{table}");
    }
}

/// The capture imported into a home prints, with every algorithm and layout, the root's
/// name, no invented `unknown` row and no negative zero.
#[test]
fn imported_capture_prints_no_unknown_row_nor_negative_zero() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    crate::common::fairsort_home(h)
        .args(["tree", "import", &data_str("slurm/site_capture.psv")])
        .assert()
        .success();
    for algorithm in [
        "pbs",
        "classic",
        "depth-oblivious",
        "fair-tree",
        "ticket",
        "flux",
    ] {
        for layout in [None, Some("--json"), Some("--csv")] {
            let out = crate::common::fairsort_home(h)
                .args(["share", "--algorithm", algorithm])
                .args(layout)
                .assert()
                .success()
                .get_output()
                .stdout
                .clone();
            let text = String::from_utf8(out).unwrap();
            assert!(!text.contains("unknown"), "{algorithm} {layout:?}:\n{text}");
            assert!(!text.contains("-0.0"), "{algorithm} {layout:?}:\n{text}");
            if layout.is_some() {
                assert!(text.contains("root"), "{algorithm} {layout:?}:\n{text}");
            }
        }
    }
}
