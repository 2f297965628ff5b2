//! `fairsort share` end to end: JSON keys and values, CSV, tables, --compare, --explain, errors.

use approx::assert_abs_diff_eq;
use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

use crate::common::{data_str, fairsort};

fn share(args: &[&str]) -> Command {
    let mut c = fairsort();
    c.arg("share").args(args);
    c
}

fn json(args: &[&str]) -> Value {
    let out = share(args)
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("valid JSON")
}

fn row<'a>(v: &'a Value, account: &str, user: Option<&str>) -> &'a Value {
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["account"] == account && r["user"] == user.map_or(Value::Null, Value::from))
        .unwrap_or_else(|| panic!("row {account}/{user:?}"))
}

fn pbs_args() -> Vec<String> {
    vec![
        "--tree".into(),
        data_str("share/resource_group"),
        "--usage".into(),
        data_str("share/usage.txt"),
    ]
}

/// openpbs.md §3.8/§4.1: the PBS tree and usage files reproduce pbsfs's figures (6 decimals).
#[test]
fn pbs_json_reproduces_section_4_1() {
    let mut args = pbs_args();
    args.extend(["--algorithm".into(), "pbs".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v = json(&args);
    assert_eq!(v["algorithm"], "pbs");
    let rows = v["rows"].as_array().unwrap();
    let order: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{}/{}",
                r["account"].as_str().unwrap(),
                r["user"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(order[0], "TREEROOT/");
    assert_eq!(order.len(), 8, "{order:?}");
    let root = &rows[0];
    assert_eq!(root["raw_usage"], 1201.0);
    assert_eq!(root["raw_shares"], Value::Null);
    assert_eq!(row(&v, "group2", None)["raw_usage"], 1001.0);
    for (group, user, perc, tu, f) in [
        ("group1", "pbsuser", 0.2, 0.125312, 0.647718),
        ("group1", "pbsuser1", 0.2, 0.125312, 0.647718),
        ("group2", "pbsuser2", 0.36, 0.500416, 0.381553),
        ("group2", "pbsuser3", 0.24, 0.832973, 0.090201),
    ] {
        let r = row(&v, group, Some(user));
        assert_abs_diff_eq!(r["fairshare_perc"].as_f64().unwrap(), perc, epsilon = 5e-7);
        assert_abs_diff_eq!(
            r["fairshare_tree_usage"].as_f64().unwrap(),
            tu,
            epsilon = 5e-7
        );
        assert_abs_diff_eq!(r["fairshare_factor"].as_f64().unwrap(), f, epsilon = 5e-7);
        assert_eq!(r["depth"], 2);
        for key in [
            "norm_shares",
            "norm_usage",
            "effective_usage",
            "fairshare",
            "level_fs",
        ] {
            assert!(r.get(key).is_some(), "{key}");
        }
        assert!(r.get("weight").is_none());
    }
}

#[test]
fn pbs_table_is_pbsfs_like() {
    let mut args = pbs_args();
    args.extend(["-a".into(), "pbs".into()]);
    share(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .assert()
        .success()
        .stdout(predicate::str::contains("TREEROOT"))
        .stdout(predicate::str::contains("fairshare_factor"))
        .stdout(predicate::str::contains("24.000%"))
        .stdout(predicate::str::contains("0.090201"));
}

#[test]
fn pbs_explain_walks_the_path() {
    let mut args = pbs_args();
    args.extend([
        "-a".into(),
        "pbs".into(),
        "--explain".into(),
        "pbsuser3".into(),
    ]);
    share(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .assert()
        .success()
        .stdout(predicate::function(|s: &str| {
            crate::common::table_part(s).starts_with("group2/pbsuser3 under pbs: 0.090201")
        }))
        .stdout(predicate::str::contains("usage 1001/"))
        .stdout(predicate::str::contains(
            "2^-(0.832973 / 0.240000) = 0.090201",
        ));
}

/// flux.md V2 through the native TOML format: ties interleave the two tied banks.
#[test]
fn flux_json_small_tie() {
    let tree = data_str("share/small_tie.toml");
    let v = json(&["--tree", &tree, "--algorithm", "flux"]);
    assert_eq!(v["algorithm"], "flux");
    for (bank, user, f) in [
        ("account3", "leaf.3.1", 1.0),
        ("account3", "leaf.3.2", 0.875),
        ("account1", "leaf.1.3", 0.75),
        ("account2", "leaf.2.3", 0.75),
        ("account1", "leaf.1.2", 0.5),
        ("account2", "leaf.2.2", 0.5),
        ("account1", "leaf.1.1", 0.5),
        ("account2", "leaf.2.1", 0.5),
    ] {
        let r = row(&v, bank, Some(user));
        assert_abs_diff_eq!(r["fairshare"].as_f64().unwrap(), f, epsilon = 5e-7);
        assert!(r["weight"].is_number());
    }
    let bank = row(&v, "account1", None);
    assert_eq!(bank["fairshare"], Value::Null);
    assert_eq!(bank["raw_usage"], 120.0);
    // Tree order: root, account1, its users, account2, ...
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[1]["account"], "account1");
    assert_eq!(rows[2]["user"], "leaf.1.1");
    assert_eq!(rows[5]["account"], "account2");
}

#[test]
fn flux_table_is_view_bank_layout() {
    let tree = data_str("share/small_tie.toml");
    let out = share(&["--tree", &tree, "-a", "flux"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = crate::common::table_part(&text).lines().collect();
    assert_eq!(
        lines[0],
        "Bank                            Username              Active           RawShares            RawUsage           Fairshare"
    );
    assert_eq!(
        lines[1],
        "root                                                    true                   1               133.0"
    );
    assert_eq!(
        lines[2],
        " account1                                               true                1000               120.0"
    );
    assert_eq!(
        lines[3],
        "  account1                      leaf.1.1                true               10000               100.0                 0.5"
    );
}

/// "parent" shares, a user in several banks, CSV with the JSON keys as header.
#[test]
fn csv_has_the_json_columns_and_parent_shares() {
    let tree = data_str("share/several_banks.json");
    let out = share(&["--tree", &tree, "-a", "flux", "--csv"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("account,user,depth,raw_shares,raw_usage,norm_shares,norm_usage,effective_usage,fairshare,level_fs,weight")
    );
    assert!(text.contains("\nS,,1,parent,5.0,"), "{text}");
    assert!(text.contains("\nB,alice,2,1,0.0,0.5,0.0,,1.0,,"), "{text}");
    assert!(text.contains("\nA,alice,2,1,10.0,0.25,"), "{text}");
}

#[test]
fn explain_needs_an_account_when_the_user_has_several() {
    let tree = data_str("share/several_banks.json");
    share(&["--tree", &tree, "-a", "flux", "--explain", "alice"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "several associations (A/alice, B/alice)",
        ));
    let out = share(&[
        "--tree",
        &tree,
        "-a",
        "flux",
        "--explain",
        "A/alice",
        "--json",
    ])
    .assert()
    .success()
    .get_output()
    .stdout
    .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["node"], "A/alice");
    assert_eq!(v["algorithm"], "flux");
    assert_eq!(v["path"].as_array().unwrap().len(), 3);
    assert_abs_diff_eq!(v["value"].as_f64().unwrap(), 0.75, epsilon = 1e-12);
    share(&["--tree", &tree, "-a", "flux", "--explain", "nobody"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no user association `nobody`"));
}

#[test]
fn errors_are_one_line_with_the_right_status() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().to_str().unwrap();
    share(&["--home", home, "-a", "pbs"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("run `fairsort init`"));
    fairsort().args(["--home", home, "init"]).assert().success();
    share(&["--home", home, "-a", "pbs"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no share tree: pass --tree FILE"));
    share(&[
        "--tree",
        &data_str("share/does-not-exist.toml"),
        "-a",
        "pbs",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("does-not-exist.toml"));
    share(&["--tree", &data_str("share/small_tie.toml")])
        .assert()
        .code(2);
    share(&[
        "--tree",
        &data_str("share/small_tie.toml"),
        "-a",
        "classic",
        "--dampening",
        "0",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("--dampening must be a number > 0"));
    share(&["--tree", &data_str("share/small_tie.toml"), "-a", "nope"])
        .assert()
        .code(2);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad_rg");
    std::fs::write(&bad, "g1 10 root 40\nu1 11 nowhere 5\n").unwrap();
    share(&[
        "--tree",
        bad.to_str().unwrap(),
        "--tree-format",
        "pbs",
        "-a",
        "pbs",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("bad_rg:2: ").and(predicate::str::contains("\n").count(1)));
}

#[test]
fn without_tree_uses_the_server_homes_tree() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().to_str().unwrap();
    fairsort().args(["--home", home, "init"]).assert().success();
    fairsort()
        .args([
            "tree",
            "import",
            "--home",
            home,
            &data_str("share/resource_group"),
        ])
        .assert()
        .success();
    let from_home = json(&[
        "--home",
        home,
        "-a",
        "pbs",
        "--usage",
        &data_str("share/usage.txt"),
    ]);
    let mut file_args = pbs_args();
    file_args.extend(["-a".to_string(), "pbs".to_string()]);
    let from_file = json(&file_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(from_home["rows"], from_file["rows"]);
    let u = row(&from_home, "group2", Some("pbsuser3"));
    assert_abs_diff_eq!(u["fairshare_perc"].as_f64().unwrap(), 0.24, epsilon = 1e-6);
}

/// openpbs.md §3.2/§3.6: usage of an entity that is not in `resource_group` counts under the
/// `unknown` group (1 share, `unknown_shares` 0) and in every ancestor up to the root, and a
/// `resource_group` line may name `unknown` as its parent.
#[test]
fn entities_not_in_resource_group_are_counted_under_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let usage = dir.path().join("usage.txt");
    std::fs::write(&usage, "pbsuser 100\nnewuser 30\n").unwrap();
    let tree = dir.path().join("resource_group");
    let mut rg = std::fs::read_to_string(data_str("share/resource_group")).unwrap();
    rg.push_str("guest 90 unknown 1\n");
    std::fs::write(&tree, rg).unwrap();
    let v = json(&[
        "--algorithm",
        "pbs",
        "--tree",
        tree.to_str().unwrap(),
        "--usage",
        usage.to_str().unwrap(),
    ]);
    let newuser = row(&v, "unknown", Some("newuser"));
    assert_abs_diff_eq!(newuser["raw_usage"].as_f64().unwrap(), 30.0);
    assert_abs_diff_eq!(newuser["fairshare_perc"].as_f64().unwrap(), 0.0);
    row(&v, "unknown", Some("guest"));
    // The root's usage includes the unknown entity's (PBS: 1 + the leaves' usage).
    let root = &v["rows"][0];
    assert_eq!(root["account"], "TREEROOT");
    assert_abs_diff_eq!(root["raw_usage"].as_f64().unwrap(), 1.0 + 100.0 + 30.0);
}

/// An account with no usage below it (PBS's empty `unknown` group, an account whose users
/// never ran) has usage +0, never `-0.0` / `-0.000000` (a sum of no floats is -0.0 in Rust).
#[test]
fn empty_accounts_print_no_negative_zero() {
    let dir = tempfile::tempdir().unwrap();
    let tree = crate::common::write(&dir, "rg", "busy 1 root 60\nann 2 busy 1\nidle 3 root 40\n");
    let usage = crate::common::write(&dir, "usage.txt", "ann 100\n");
    for algorithm in [
        "pbs",
        "classic",
        "depth-oblivious",
        "fair-tree",
        "ticket",
        "flux",
    ] {
        for layout in [None, Some("--json"), Some("--csv")] {
            let out = share(&[
                "--algorithm",
                algorithm,
                "--tree",
                tree.to_str().unwrap(),
                "--usage",
                usage.to_str().unwrap(),
            ])
            .args(layout)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
            let text = String::from_utf8(out).unwrap();
            assert!(!text.contains("-0.0"), "{algorithm} {layout:?}:\n{text}");
        }
    }
}
