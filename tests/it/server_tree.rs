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
            "unknown_parent.rg: line 2: Parent ginfo of pbsuser doesnt exist.",
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
