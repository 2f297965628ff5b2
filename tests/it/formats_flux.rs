//! flux-accounting SQLite reader/writer against flux.md §1.1, §3 and the vectors of §6, with
//! databases built in the test using flux-accounting's schema (create_db.py, v38 columns used by
//! the reader).

use std::path::{Path, PathBuf};

use fairsort::fairshare::spec::{NodeKind, Shares, TreeSource, TreeSpec};
use fairsort::flux::db::{read_db, write_usage};
use fairsort::inputs::{detect_format, read_tree, TreeFormat};
use rusqlite::Connection;

use crate::common::flux_db::make_db;

/// (name, parent, kind, shares, usage).
type Row = (String, Option<String>, NodeKind, u64, Option<f64>);

/// Each node as a `Row`, in reader order.
fn rows(t: &TreeSpec) -> Vec<Row> {
    t.nodes
        .iter()
        .map(|n| {
            let s = match n.shares {
                Shares::Count(c) => c,
                Shares::Parent => u64::MAX,
            };
            (n.name.clone(), n.parent.clone(), n.kind, s, n.usage)
        })
        .collect()
}

fn acct(name: &str, parent: Option<&str>, shares: u64) -> Row {
    (
        name.into(),
        parent.map(Into::into),
        NodeKind::Account,
        shares,
        None,
    )
}

fn user(name: &str, parent: Option<&str>, shares: u64, usage: f64) -> Row {
    (
        name.into(),
        parent.map(Into::into),
        NodeKind::User,
        shares,
        Some(usage),
    )
}

/// V1 small_no_tie (also the base of V2, V5, V7).
fn v1(dir: &Path, name: &str, leaf_2_1: (i64, f64)) -> PathBuf {
    make_db(
        dir,
        name,
        &[
            ("root", "", 1000, 1),
            ("account1", "root", 1000, 1),
            ("account2", "root", 100, 1),
            ("account3", "root", 10, 1),
        ],
        &[
            ("leaf.1.1", "account1", 10000, 100.0, 1),
            ("leaf.1.2", "account1", 1000, 11.0, 1),
            ("leaf.1.3", "account1", 100000, 10.0, 1),
            ("leaf.2.1", "account2", leaf_2_1.0, leaf_2_1.1, 1),
            ("leaf.2.2", "account2", 10000, 3.0, 1),
            ("leaf.3.1", "account3", 100, 0.0, 1),
            ("leaf.3.2", "account3", 10, 1.0, 1),
        ],
    )
}

#[test]
fn v1_small_no_tie_tree() {
    let dir = tempfile::tempdir().unwrap();
    let p = v1(dir.path(), "v1.db", (100000, 8.0));
    let t = read_tree(&p, None).unwrap();
    assert_eq!(
        detect_format(&p, &std::fs::read(&p).unwrap()[..100]),
        Some(TreeFormat::FluxDb)
    );
    assert_eq!(
        (t.source, t.root_name.as_str(), t.root_usage),
        (TreeSource::Flux, "root", None)
    );
    assert_eq!(
        rows(&t),
        vec![
            acct("account1", None, 1000),
            user("leaf.1.1", Some("account1"), 10000, 100.0),
            user("leaf.1.2", Some("account1"), 1000, 11.0),
            user("leaf.1.3", Some("account1"), 100000, 10.0),
            acct("account2", None, 100),
            user("leaf.2.1", Some("account2"), 100000, 8.0),
            user("leaf.2.2", Some("account2"), 10000, 3.0),
            acct("account3", None, 10),
            user("leaf.3.1", Some("account3"), 100, 0.0),
            user("leaf.3.2", Some("account3"), 10, 1.0),
        ]
    );
    // Bank usage (root 133) is the walker's sum of active users: 121 + 11 + 1.
    let total: f64 = t.nodes.iter().filter_map(|n| n.usage).sum();
    assert_eq!(total, 133.0);
}

#[test]
fn v5_zero_shares_and_v7_updated_usage() {
    let dir = tempfile::tempdir().unwrap();
    let t = read_db(&v1(dir.path(), "v5.db", (0, 10.0))).unwrap();
    assert_eq!(
        t.nodes
            .iter()
            .find(|n| n.name == "leaf.2.1")
            .map(|n| (n.shares, n.usage)),
        Some((Shares::Count(0), Some(10.0)))
    );
    // V7: set leaf.2.1 usage 55 with the writer, then read it back.
    let p = v1(dir.path(), "v7.db", (100000, 8.0));
    write_usage(
        &p,
        &[
            ("account2".into(), Some("leaf.2.1".into()), 55.0),
            ("account2".into(), None, 58.0),
        ],
    )
    .unwrap();
    let t = read_db(&p).unwrap();
    assert_eq!(
        t.nodes
            .iter()
            .find(|n| n.name == "leaf.2.1")
            .and_then(|n| n.usage),
        Some(55.0)
    );
    let bank_usage: f64 = Connection::open(&p)
        .unwrap()
        .query_row(
            "SELECT job_usage FROM bank_table WHERE bank='account2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(bank_usage, 58.0);
}

#[test]
fn write_usage_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = v1(dir.path(), "w.db", (100000, 8.0));
    let e = write_usage(
        &p,
        &[
            ("account2".into(), Some("leaf.2.1".into()), 1.0),
            ("account9".into(), Some("nobody".into()), 2.0),
        ],
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        format!(
            "{}: no association (nobody, account9); nothing written",
            p.display()
        )
    );
    assert_eq!(
        read_db(&p)
            .unwrap()
            .nodes
            .iter()
            .find(|n| n.name == "leaf.2.1")
            .and_then(|n| n.usage),
        Some(8.0)
    );
    let e = write_usage(&p, &[("account2".into(), None, f64::NAN)])
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("usage of bank account2 is NaN"), "{e}");
}

#[test]
fn v6_root_only_and_v11_single_user() {
    let dir = tempfile::tempdir().unwrap();
    let t = read_db(&make_db(dir.path(), "v6.db", &[("root", "", 1000, 1)], &[])).unwrap();
    assert!(t.nodes.is_empty());
    let t = read_db(&make_db(
        dir.path(),
        "v11.db",
        &[("root", "", 1000, 1), ("account1", "root", 1000, 1)],
        &[("only.user", "account1", 1000, 100.0, 1)],
    ))
    .unwrap();
    assert_eq!(
        rows(&t),
        vec![
            acct("account1", None, 1000),
            user("only.user", Some("account1"), 1000, 100.0)
        ]
    );
}

#[test]
fn v8_multi_level_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    let p = make_db(
        dir.path(),
        "v8.db",
        &[
            ("root", "", 1, 1),
            ("C", "root", 1, 1),
            ("A", "root", 1, 1),
            ("B", "root", 1, 1),
            ("E", "C", 1, 1),
            ("D", "C", 1, 1),
        ],
        &[
            ("user3", "A", 1, 10.0, 1),
            ("user1", "A", 1, 20.0, 1),
            ("user2", "A", 1, 20.0, 1),
            ("user4", "B", 1, 13.0, 1),
            ("user5", "B", 1, 12.0, 1),
            ("user6", "D", 1, 25.0, 1),
            ("user7", "E", 1, 10.0, 1),
        ],
    );
    let names: Vec<_> = read_db(&p)
        .unwrap()
        .nodes
        .iter()
        .map(|n| n.name.clone())
        .collect();
    assert_eq!(
        names,
        ["A", "user1", "user2", "user3", "B", "user4", "user5", "C", "D", "user6", "E", "user7"]
    );
}

#[test]
fn v9_huge_usage_and_v10_bank_info() {
    let dir = tempfile::tempdir().unwrap();
    let t = read_db(&make_db(
        dir.path(),
        "v9.db",
        &[
            ("root", "", 1, 1),
            ("A", "root", 333333, 1),
            ("B", "root", 333333, 1),
        ],
        &[
            ("user_A", "A", 1, 9_000_000_000.0, 1),
            ("user_B", "B", 1, 1_500_000_000.0, 1),
        ],
    ))
    .unwrap();
    assert_eq!(
        t.nodes
            .iter()
            .find(|n| n.name == "user_A")
            .and_then(|n| n.usage),
        Some(9e9)
    );
    let t = read_db(&make_db(
        dir.path(),
        "v10.db",
        &[("root", "", 1, 1), ("A", "root", 7, 1), ("B", "root", 3, 1)],
        &[
            ("user1", "A", 3, 5000.0, 1),
            ("user2", "A", 4, 3500.0, 1),
            ("user3", "B", 1, 1500.0, 1),
        ],
    ))
    .unwrap();
    assert_eq!(t.nodes.len(), 5);
}

#[test]
fn inactive_rows_are_skipped_as_flux_does() {
    let dir = tempfile::tempdir().unwrap();
    let p = make_db(
        dir.path(),
        "inactive.db",
        &[
            ("root", "", 1, 1),
            ("live", "root", 2, 1),
            ("gone", "root", 3, 0), // inactive bank: skipped with its subtree
            ("gone_child", "gone", 1, 1), // never reached
            ("hollow", "root", 4, 1), // has only an inactive sub-bank: its users are not read
            ("hollow_sub", "hollow", 1, 0),
        ],
        &[
            ("alice", "live", 1, 5.0, 1),
            ("bob", "live", 1, 7.0, 0), // inactive association
            ("carol", "gone_child", 1, 1.0, 1),
            ("dave", "hollow", 1, 2.0, 1),
            ("alice", "hollow", 1, 3.0, 1),
        ],
    );
    let t = read_db(&p).unwrap();
    assert_eq!(
        rows(&t),
        vec![
            acct("hollow", None, 4),
            acct("live", None, 2),
            user("alice", Some("live"), 1, 5.0)
        ]
    );
}

#[test]
fn users_in_several_banks_and_users_under_root() {
    let dir = tempfile::tempdir().unwrap();
    let p = make_db(
        dir.path(),
        "multi.db",
        &[("root", "", 1, 1), ("A", "root", 1, 1), ("B", "root", 1, 1)],
        &[("u", "A", 1, 1.0, 1), ("u", "B", 2, 2.0, 1)],
    );
    let t = read_db(&p).unwrap();
    assert_eq!(
        rows(&t),
        vec![
            acct("A", None, 1),
            user("u", Some("A"), 1, 1.0),
            acct("B", None, 1),
            user("u", Some("B"), 2, 2.0)
        ]
    );
    let p = make_db(
        dir.path(),
        "flat.db",
        &[("top", "", 1, 1)],
        &[("x", "top", 3, 4.0, 1)],
    );
    let t = read_db(&p).unwrap();
    assert_eq!(
        (t.root_name.as_str(), rows(&t)),
        ("top", vec![user("x", None, 3, 4.0)])
    );
}

#[test]
fn bad_databases_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = make_db(dir.path(), "noroot.db", &[("a", "b", 1, 1)], &[]);
    assert_eq!(
        read_db(&p).unwrap_err().to_string(),
        format!(
            "{}: bank_table has no root bank (a bank with parent_bank '')",
            p.display()
        )
    );
    let p = make_db(
        dir.path(),
        "neg.db",
        &[("root", "", 1, 1), ("a", "root", -5, 1)],
        &[],
    );
    assert_eq!(
        read_db(&p).unwrap_err().to_string(),
        format!("{}: bank a: shares -5 is negative", p.display())
    );
    let p = make_db(
        dir.path(),
        "negu.db",
        &[("root", "", 1, 1), ("a", "root", 1, 1)],
        &[("u", "a", 1, -1.0, 1)],
    );
    assert!(read_db(&p)
        .unwrap_err()
        .to_string()
        .ends_with("association (u, a): job_usage -1 is negative"));
    let p = dir.path().join("empty.db");
    Connection::open(&p)
        .unwrap()
        .execute_batch("CREATE TABLE t(x);")
        .unwrap();
    assert!(read_db(&p)
        .unwrap_err()
        .to_string()
        .contains("no such table: bank_table"));
    let missing = dir.path().join("missing.db");
    assert!(read_tree(&missing, Some(TreeFormat::FluxDb)).is_err());
    assert!(!missing.exists(), "reading must not create a database");
}
