//! `fairsort tree import` and the home's stored tree: any format the engine reads is validated
//! and stored in PBS `resource_group` layout; bad input changes nothing; `Home::tree_spec`
//! returns it with the home's usage applied and `unknown_shares` from the sched attributes.

use fairsort::fairshare::{NodeKind, Shares};
use fairsort::home::Home;
use predicates::prelude::*;

use crate::common::{data_str, fairsort_home};

#[test]
fn import_pbs_tree_then_read_it_back_with_usage() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    fairsort_home(h)
        .args(["tree", "import", &data_str("server/resource_group")])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("stored 6 nodes from"));
    let stored = std::fs::read_to_string(h.join("resource_group")).unwrap();
    assert!(stored.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["pbsuser3", "22", "group2", "40"]), "{stored}");
    std::fs::copy(data_str("server/usage.toml"), h.join("usage.toml")).unwrap();
    fairsort_home(h)
        .args(["qmgr", "-c", "set sched unknown_shares = 5"])
        .assert()
        .success();

    let spec = Home::open(Some(h))
        .unwrap()
        .tree_spec()
        .unwrap()
        .expect("a stored tree");
    assert_eq!(spec.unknown_shares, Some(5));
    let node = |n: &str| {
        spec.nodes
            .iter()
            .find(|x| x.name == n)
            .unwrap_or_else(|| panic!("{n} missing"))
    };
    assert_eq!(node("group2").kind, NodeKind::Account);
    assert_eq!(node("pbsuser3").parent.as_deref(), Some("group2"));
    assert_eq!(node("pbsuser3").shares, Shares::Count(40));
    assert_eq!(node("pbsuser3").usage, Some(1000.0));
    assert_eq!(node("pbsuser").usage, Some(100.0));
    assert!(
        matches!(node("pbsuser2").usage, None | Some(1.0)),
        "unlisted leaf: no usage recorded"
    );

    fairsort_home(h)
        .args(["tree", "show"])
        .assert()
        .success()
        .stdout(predicate::str::contains("pbsuser3"));
    let audit = std::fs::read_to_string(h.join("audit.log")).unwrap();
    assert!(audit.contains("\ttree import (6 nodes)\n"), "{audit}");
}

#[test]
fn import_slurm_tree() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    fairsort_home(h)
        .args([
            "tree",
            "import",
            &data_str("server/cluster.psv"),
            "--tree-format",
            "sacctmgr",
        ])
        .assert()
        .success();
    let spec = Home::open(Some(h))
        .unwrap()
        .tree_spec()
        .unwrap()
        .expect("a stored tree");
    let bob = spec.nodes.iter().find(|n| n.name == "bob").expect("bob");
    assert_eq!(
        (bob.parent.as_deref(), bob.shares),
        (Some("chem"), Shares::Count(3))
    );
}

#[test]
fn bad_tree_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    fairsort_home(h)
        .args(["tree", "import", &data_str("server/resource_group")])
        .assert()
        .success();
    let before = std::fs::read(h.join("resource_group")).unwrap();
    fairsort_home(h)
        .args([
            "tree",
            "import",
            &data_str("server/unknown_parent.rg"),
            "--tree-format",
            "pbs",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "unknown_parent.rg:2: Parent ginfo of pbsuser doesnt exist.",
        ));
    fairsort_home(h)
        .args(["tree", "import", "no/such/file"])
        .assert()
        .code(1);
    assert_eq!(std::fs::read(h.join("resource_group")).unwrap(), before);
}

#[test]
fn no_tree_yet_and_non_manager() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    assert!(Home::open(Some(h)).unwrap().tree_spec().unwrap().is_none());
    fairsort_home(h)
        .args(["tree", "show"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no share tree"));
    fairsort_home(h)
        .args(["qmgr", "-c", "set server managers = nobody@*"])
        .assert()
        .success();
    fairsort_home(h)
        .args(["tree", "import", &data_str("server/resource_group")])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("qmgr obj= svr=default: Unauthorized Request \nqmgr: Error (15007) returned from server\nfairsort: "))
        .stderr(predicate::str::ends_with(" is not a manager of this home; managers: nobody@*\n"));
    assert!(!h.join("resource_group").exists());
}

/// openpbs.md §3.2: `tree import` takes a line whose parent is `unknown`; `tree show` prints
/// the stored `resource_group`, not the entities the home's usage adds (PBS never writes those
/// to the file), and `--json` places them under `unknown` with their usage.
#[test]
fn tree_show_prints_the_stored_file_and_json_places_usage_entities_under_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let mut rg = std::fs::read_to_string(data_str("share/resource_group")).unwrap();
    rg.push_str("guest 90 unknown 1\n");
    let rg = crate::common::write(h, "rg", &rg);
    fairsort_home(h)
        .args(["tree", "import"])
        .arg(&rg)
        .assert()
        .success()
        .stdout(predicate::str::contains("stored 7 nodes"));
    crate::common::write(
        h,
        "usage.toml",
        "version = 1\n[[entity]]\nname = \"pbsuser\"\nusage = 100.0\n[[entity]]\nname = \"stranger\"\nusage = 300.0\n",
    );
    let shown = fairsort_home(h)
        .args(["tree", "show"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let shown = String::from_utf8(shown).unwrap();
    assert!(shown.contains("guest 90 unknown 1\n"), "{shown}");
    assert!(!shown.contains("stranger"), "{shown}");
    let v = crate::common::json_of(
        &fairsort_home(h)
            .args(["tree", "show", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let stranger = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "stranger")
        .expect("stranger in the tree with usage");
    assert_eq!(stranger["parent"], "unknown");
    assert_eq!(stranger["shares"], 1);
    assert_eq!(stranger["usage"], 300.0);
}

/// A user association row of an sshare capture: (account, user) → RawUsage.
fn capture_usage(account: &str, user: &str) -> f64 {
    let text = std::fs::read_to_string(data_str("slurm/site_capture.psv")).unwrap();
    let rows = fairsort::slurm::parse_sshare_rows(&text).unwrap();
    rows.iter()
        .find(|r| r.account == account && r.user.as_deref() == Some(user))
        .and_then(|r| r.raw_usage)
        .unwrap()
}

/// A real `sshare -a -l -P` capture (the `root|root` user, a user in two accounts,
/// zero-usage accounts) is stored in Slurm's model: the root's name, every association with its
/// usage and shares, the accounts' stated usage, no PBS `unknown` group.
#[test]
fn sshare_capture_is_stored_in_its_own_model() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    fairsort_home(h)
        .args(["tree", "import", &data_str("slurm/site_capture.psv")])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("stored 11 nodes").and(predicate::str::contains("tree.toml")),
        );
    assert!(h.join("tree.toml").exists());
    assert!(!h.join("resource_group").exists());
    let spec = Home::open(Some(h))
        .unwrap()
        .tree_spec()
        .unwrap()
        .expect("a stored tree");
    assert_eq!(spec.root_name, "root");
    assert_eq!(spec.source, fairsort::fairshare::TreeSource::Slurm);
    assert_eq!(spec.unknown_shares, None);
    assert_eq!(spec.root_usage, Some(5_184_000.0));
    assert_eq!(spec.nodes.len(), 11);
    assert!(spec.nodes.iter().all(|n| n.name != "unknown"));
    let assoc = |account: Option<&str>, user: &str| {
        spec.nodes
            .iter()
            .find(|n| n.kind == NodeKind::User && n.name == user && n.parent.as_deref() == account)
            .unwrap_or_else(|| panic!("no association {account:?}/{user}"))
    };
    assert_eq!(assoc(None, "root").shares, Shares::Count(1));
    for (account, user) in [("physics", "alice"), ("theory", "alice"), ("chem", "dave")] {
        assert_eq!(
            assoc(Some(account), user).usage,
            Some(capture_usage(account, user))
        );
    }
    let account = |name: &str| {
        spec.nodes
            .iter()
            .find(|n| n.kind == NodeKind::Account && n.name == name)
            .unwrap_or_else(|| panic!("no account {name}"))
    };
    assert_eq!(account("theory").parent.as_deref(), Some("physics"));
    assert_eq!(account("theory").shares, Shares::Count(20));
    assert_eq!(account("idle").usage, Some(0.0));
    assert_eq!(account("physics").usage, Some(3_456_000.0));

    // A PBS tree imported next replaces it (and the other way round).
    fairsort_home(h)
        .args(["tree", "import", &data_str("server/resource_group")])
        .assert()
        .success();
    assert!(h.join("resource_group").exists() && !h.join("tree.toml").exists());
    let spec = Home::open(Some(h)).unwrap().tree_spec().unwrap().unwrap();
    assert_eq!(spec.source, fairsort::fairshare::TreeSource::Pbs);
    fairsort_home(h)
        .args(["tree", "import", &data_str("slurm/site_capture.psv")])
        .assert()
        .success();
    assert!(!h.join("resource_group").exists() && h.join("tree.toml").exists());
}

/// On a Slurm site, `share` and `order` work from the home with no flags, with the home's
/// `fairshare_algorithm` (Fair Tree here: the capture's own values come back).
#[test]
fn share_and_order_on_a_slurm_home_need_no_flags() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    fairsort_home(h)
        .args(["tree", "import", &data_str("slurm/site_capture.psv")])
        .assert()
        .success();
    fairsort_home(h)
        .args(["qmgr", "-c", "set sched fairshare_algorithm = fair-tree"])
        .assert()
        .success();
    let v = crate::common::json_of(
        &fairsort_home(h)
            .args(["share", "--json"])
            .assert()
            .success()
            .stderr("")
            .get_output()
            .stdout,
    );
    assert_eq!(v["algorithm"], "fair-tree");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["account"], "root");
    let fs = |account: &str, user: &str| {
        rows.iter()
            .find(|r| r["account"] == account && r["user"] == user)
            .and_then(|r| r["fairshare"].as_f64())
            .unwrap_or_else(|| panic!("no {account}/{user}"))
    };
    // The capture's FairShare column (N = 7 user associations).
    for (account, user, want) in [
        ("root", "root", 1.0),
        ("idle", "erin", 1.0),
        ("chem", "dave", 5.0 / 7.0),
        ("chem", "carol", 4.0 / 7.0),
        ("theory", "alice", 3.0 / 7.0),
        ("physics", "bob", 2.0 / 7.0),
        ("physics", "alice", 1.0 / 7.0),
    ] {
        approx::assert_abs_diff_eq!(fs(account, user), want, epsilon = 1e-12);
    }
    fairsort_home(h)
        .arg("share")
        .assert()
        .success()
        .stdout(predicate::str::contains("LevelFS"));

    fairsort_home(h)
        .args([
            "qmgr",
            "-c",
            "set server job_sort_formula = fairshare_factor",
        ])
        .assert()
        .success();
    let jobs = crate::common::write(
        h,
        "jobs.json",
        r#"[{"id":"1","user":"alice","account":"physics","qtime":1},
            {"id":"2","user":"alice","account":"theory","qtime":2},
            {"id":"3","user":"dave","account":"chem","qtime":3}]"#,
    );
    let v = crate::common::json_of(
        &fairsort_home(h)
            .args(["order", "--json", "--jobs"])
            .arg(&jobs)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let order: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["3", "2", "1"], "{v}");
}

/// A flux-accounting database is stored as a flux tree and `share` uses it with the home's
/// algorithm.
#[test]
fn flux_home_keeps_its_banks_and_uses_the_home_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let db = crate::common::flux_db::make_db(
        h,
        "flux.db",
        &[("root", "", 1, 1), ("A", "root", 1, 1), ("B", "root", 1, 1)],
        &[
            ("u1", "A", 1, 100.0, 1),
            ("u1", "B", 1, 10.0, 1),
            ("u2", "B", 1, 0.0, 1),
        ],
    );
    fairsort_home(h)
        .args(["tree", "import"])
        .arg(&db)
        .assert()
        .success();
    assert!(h.join("tree.toml").exists());
    fairsort_home(h)
        .args(["qmgr", "-c", "set sched fairshare_algorithm = flux"])
        .assert()
        .success();
    let out = fairsort_home(h)
        .arg("share")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        crate::common::table_part(&out).starts_with("Bank "),
        "{out}"
    );
    assert!(!out.contains("unknown"), "{out}");
    let spec = Home::open(Some(h)).unwrap().tree_spec().unwrap().unwrap();
    assert_eq!(spec.source, fairsort::fairshare::TreeSource::Flux);
    let u1: Vec<_> = spec.nodes.iter().filter(|n| n.name == "u1").collect();
    assert_eq!(u1.len(), 2, "u1 in both banks");
}
