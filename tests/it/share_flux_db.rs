//! `fairsort share --tree DB --algorithm flux --json` over flux-accounting SQLite databases built
//! with flux-accounting's schema: the `fairshare` column `flux account-update-fshare` writes
//! (flux.md §6, 6 decimals; tolerance 1e-6), with ties, zero shares, zero usage, a user in
//! several banks, inactive rows, and `--flux-compat` on fractional usages.

use approx::assert_abs_diff_eq;
use serde_json::Value;
use std::path::Path;

use crate::common::fairsort;
use crate::common::flux_db::{make_db, Bank};

/// `(account, user) -> fairshare` of every user row of `share --json`.
fn fairshares(db: &Path, extra: &[&str]) -> Vec<(String, String, f64)> {
    let out = fairsort()
        .args(["share", "--tree"])
        .arg(db)
        .args(["--algorithm", "flux", "--json"])
        .args(extra)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["algorithm"], "flux");
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["user"].is_null())
        .map(|r| {
            (
                r["account"].as_str().unwrap().to_string(),
                r["user"].as_str().unwrap().to_string(),
                r["fairshare"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn assert_values(got: &[(String, String, f64)], want: &[(&str, &str, f64)]) {
    assert_eq!(
        got.len(),
        want.len(),
        "one row per active association: {got:?}"
    );
    for (bank, user, value) in want {
        let row = got
            .iter()
            .find(|(b, u, _)| b == bank && u == user)
            .unwrap_or_else(|| panic!("no row {bank}/{user} in {got:?}"));
        assert_abs_diff_eq!(row.2, *value, epsilon = 1e-6);
    }
}

const V2_BANKS: &[Bank] = &[
    ("root", "", 1000, 1),
    ("account1", "root", 1000, 1),
    ("account2", "root", 100, 1),
    ("account3", "root", 10, 1),
];

/// flux.md V2 small_tie: account1 and account2 tie, their users interleave.
#[test]
fn v2_ties_across_banks() {
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "FluxAccounting.db",
        V2_BANKS,
        &[
            ("leaf.1.1", "account1", 10000, 100.0, 1),
            ("leaf.1.2", "account1", 1000, 10.0, 1),
            ("leaf.1.3", "account1", 100000, 10.0, 1),
            ("leaf.2.1", "account2", 10000, 10.0, 1),
            ("leaf.2.2", "account2", 1000, 1.0, 1),
            ("leaf.2.3", "account2", 100000, 1.0, 1),
            ("leaf.3.1", "account3", 100, 0.0, 1),
            ("leaf.3.2", "account3", 10, 1.0, 1),
        ],
    );
    assert_values(
        &fairshares(&db, &[]),
        &[
            ("account3", "leaf.3.1", 1.0),
            ("account3", "leaf.3.2", 0.875),
            ("account1", "leaf.1.3", 0.75),
            ("account2", "leaf.2.3", 0.75),
            ("account1", "leaf.1.2", 0.5),
            ("account2", "leaf.2.2", 0.5),
            ("account1", "leaf.1.1", 0.5),
            ("account2", "leaf.2.1", 0.5),
        ],
    );
}

/// flux.md V5: zero-share users rank last; plus an inactive association that flux skips.
#[test]
fn v5_zero_shares_and_inactive_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "FluxAccounting.db",
        V2_BANKS,
        &[
            ("leaf.1.1", "account1", 10000, 100.0, 1),
            ("leaf.1.2", "account1", 1000, 10.0, 1),
            ("leaf.1.3", "account1", 100000, 10.0, 1),
            ("leaf.2.1", "account2", 0, 10.0, 1),
            ("leaf.2.2", "account2", 0, 1.0, 1),
            ("leaf.2.3", "account2", 100000, 1.0, 1),
            ("leaf.3.1", "account3", 100, 0.0, 1),
            ("leaf.3.2", "account3", 10, 1.0, 1),
            ("gone", "account3", 1000, 5000.0, 0),
        ],
    );
    assert_values(
        &fairshares(&db, &[]),
        &[
            ("account3", "leaf.3.1", 1.0),
            ("account3", "leaf.3.2", 0.875),
            ("account2", "leaf.2.3", 0.75),
            ("account1", "leaf.1.3", 0.625),
            ("account1", "leaf.1.2", 0.5),
            ("account1", "leaf.1.1", 0.5),
            ("account2", "leaf.2.1", 0.25),
            ("account2", "leaf.2.2", 0.25),
        ],
    );
}

/// A user in two banks is two associations with their own values; zero usage everywhere
/// (t1099) gives the C++ walk's values, not the Python emulator's all-1.0.
#[test]
fn several_banks_and_zero_usage() {
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "FluxAccounting.db",
        &[
            ("root", "", 1, 1),
            ("A", "root", 1, 1),
            ("B", "root", 1, 1),
            ("C", "root", 1, 1),
            ("D", "C", 1, 1),
        ],
        &[
            ("user1", "A", 1, 0.0, 1),
            ("user2", "B", 1, 0.0, 1),
            ("user3", "D", 1, 0.0, 1),
        ],
    );
    assert_values(
        &fairshares(&db, &[]),
        &[
            ("A", "user1", 1.0),
            ("B", "user2", 1.0),
            ("D", "user3", 1.0 / 3.0),
        ],
    );

    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "FluxAccounting.db",
        &[("root", "", 1, 1), ("A", "root", 1, 1), ("B", "root", 1, 1)],
        &[
            ("u", "A", 1, 10.0, 1),
            ("u", "B", 1, 1.0, 1),
            ("v", "A", 1, 1.0, 1),
        ],
    );
    let got = fairshares(&db, &[]);
    assert_eq!(got.iter().filter(|(_, u, _)| u == "u").count(), 2);
    let u_a = got.iter().find(|(b, u, _)| b == "A" && u == "u").unwrap().2;
    let u_b = got.iter().find(|(b, u, _)| b == "B" && u == "u").unwrap().2;
    assert!(
        u_b > u_a,
        "the light association ranks above the heavy one: {got:?}"
    );
}

/// Fractional usages: the C++ sums sibling usage into an integer, so 0.5 + 0.6 = 0 and both
/// tie at weight 0 (`--flux-compat`); the exact sum (default) separates them.
#[test]
fn flux_compat_on_fractional_usage() {
    let dir = tempfile::tempdir().unwrap();
    let db = make_db(
        dir.path(),
        "FluxAccounting.db",
        &[("root", "", 1, 1), ("A", "root", 1, 1)],
        &[
            ("X", "A", 1, 0.5, 1),
            ("Y", "A", 2, 0.6, 1),
            ("W", "A", 1, 0.0, 1),
        ],
    );
    assert_values(
        &fairshares(&db, &["--flux-compat"]),
        &[
            ("A", "W", 1.0),
            ("A", "X", 2.0 / 3.0),
            ("A", "Y", 2.0 / 3.0),
        ],
    );
    assert_values(
        &fairshares(&db, &[]),
        &[
            ("A", "W", 1.0),
            ("A", "Y", 2.0 / 3.0),
            ("A", "X", 1.0 / 3.0),
        ],
    );
}
