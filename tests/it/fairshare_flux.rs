//! flux-accounting weighted walk: every vector of flux.md §6 (V1–V11) and seed 002, to the 6
//! decimals `flux account-update-fshare` writes (tolerance 5e-7), plus `--flux-compat`.

use approx::assert_abs_diff_eq;
use fairsort::fairshare::{
    compute, flux, Algorithm, NodeKind, NodeSpec, Options, ShareResult, Shares, Tree, TreeSource,
    TreeSpec,
};

/// `(parent, name, is_user, shares, usage)`; parent "root" is the root. Bank usage = Σ users.
type Row<'a> = (&'a str, &'a str, bool, u64, f64);

fn tree(rows: &[Row]) -> Tree {
    let nodes = rows
        .iter()
        .map(|&(parent, name, user, shares, usage)| {
            let kind = if user {
                NodeKind::User
            } else {
                NodeKind::Account
            };
            let mut n = NodeSpec::new(name, Some(parent.into()), kind, Shares::Count(shares));
            if user {
                n.usage = Some(usage);
            }
            n
        })
        .collect();
    Tree::build(TreeSpec {
        source: TreeSource::Flux,
        root_name: "root".into(),
        nodes,
        ..TreeSpec::default()
    })
    .expect("valid tree")
}

fn run(t: &Tree, compat: bool) -> ShareResult {
    let opts = Options {
        flux_compat: compat,
        ..Options::default()
    };
    compute(t, Algorithm::Flux, &opts).expect("flux runs")
}

/// Asserts the fairshare of each named user (unique names in these trees).
fn assert_fairshare(t: &Tree, r: &ShareResult, expected: &[(&str, f64)]) {
    for &(user, want) in expected {
        let id = t.find_user(None, user).expect(user);
        let got = r.row(id).fairshare.expect(user);
        assert_abs_diff_eq!(got, want, epsilon = 5e-7);
    }
    let users = t.users().len();
    assert_eq!(expected.len(), users, "every user is asserted");
}

fn v1() -> Vec<Row<'static>> {
    vec![
        ("root", "account1", false, 1000, 0.0),
        ("account1", "leaf.1.1", true, 10000, 100.0),
        ("account1", "leaf.1.2", true, 1000, 11.0),
        ("account1", "leaf.1.3", true, 100000, 10.0),
        ("root", "account2", false, 100, 0.0),
        ("account2", "leaf.2.1", true, 100000, 8.0),
        ("account2", "leaf.2.2", true, 10000, 3.0),
        ("root", "account3", false, 10, 0.0),
        ("account3", "leaf.3.1", true, 100, 0.0),
        ("account3", "leaf.3.2", true, 10, 1.0),
    ]
}

#[test]
fn v1_small_no_tie_and_its_weights() {
    let t = tree(&v1());
    let r = run(&t, false);
    assert_fairshare(
        &t,
        &r,
        &[
            ("leaf.3.1", 1.0),
            ("leaf.3.2", 0.857143),
            ("leaf.2.1", 0.714286),
            ("leaf.2.2", 0.571429),
            ("leaf.1.3", 0.428571),
            ("leaf.1.1", 0.285714),
            ("leaf.1.2", 0.142857),
        ],
    );
    // Weights as the seed prints them (6 significant digits).
    let w = |name: &str| {
        let id = t
            .find_account(name)
            .or_else(|| t.find_user(None, name))
            .unwrap();
        r.row(id).weight.unwrap()
    };
    assert_abs_diff_eq!(w("account3"), 1.1982, epsilon = 5e-5);
    assert_abs_diff_eq!(w("account2"), 1.08927, epsilon = 5e-6);
    assert_abs_diff_eq!(w("account1"), 0.990246, epsilon = 5e-7);
    assert_eq!(w("leaf.3.1"), flux::MAX_WEIGHT);
    assert_abs_diff_eq!(w("leaf.3.2"), 0.0909091, epsilon = 5e-8);
    assert_abs_diff_eq!(w("leaf.2.1"), 1.25, epsilon = 1e-12);
    assert_abs_diff_eq!(w("leaf.1.3"), 10.9009, epsilon = 5e-5);
    assert_abs_diff_eq!(w("leaf.1.2"), 0.0990991, epsilon = 5e-8);
    // Seed 002's final table: the root and banks carry no fairshare.
    assert_eq!(r.row(t.root()).fairshare, None);
    assert_eq!(r.row(t.find_account("account1").unwrap()).fairshare, None);
}

fn v2() -> Vec<Row<'static>> {
    vec![
        ("root", "account1", false, 1000, 0.0),
        ("account1", "leaf.1.1", true, 10000, 100.0),
        ("account1", "leaf.1.2", true, 1000, 10.0),
        ("account1", "leaf.1.3", true, 100000, 10.0),
        ("root", "account2", false, 100, 0.0),
        ("account2", "leaf.2.1", true, 10000, 10.0),
        ("account2", "leaf.2.2", true, 1000, 1.0),
        ("account2", "leaf.2.3", true, 100000, 1.0),
        ("root", "account3", false, 10, 0.0),
        ("account3", "leaf.3.1", true, 100, 0.0),
        ("account3", "leaf.3.2", true, 10, 1.0),
    ]
}

#[test]
fn v2_small_tie_interleaves_tied_banks() {
    let t = tree(&v2());
    let r = run(&t, false);
    assert_fairshare(
        &t,
        &r,
        &[
            ("leaf.3.1", 1.0),
            ("leaf.3.2", 0.875),
            ("leaf.1.3", 0.75),
            ("leaf.2.3", 0.75),
            ("leaf.1.2", 0.5),
            ("leaf.2.2", 0.5),
            ("leaf.1.1", 0.5),
            ("leaf.2.1", 0.5),
        ],
    );
}

#[test]
fn v3_small_tie_all() {
    let mut rows = Vec::new();
    for (bank, shares, m) in [
        ("account1", 1000, 1.0),
        ("account2", 100, 0.1),
        ("account3", 10000, 10.0),
    ] {
        rows.push(("root", bank, false, shares, 0.0));
        rows.push((bank, "", true, 10000, 100.0 * m));
        rows.push((bank, "", true, 1000, 10.0 * m));
        rows.push((bank, "", true, 100000, 10.0 * m));
    }
    let names = [
        "leaf.1.1", "leaf.1.2", "leaf.1.3", "leaf.2.1", "leaf.2.2", "leaf.2.3", "leaf.3.1",
        "leaf.3.2", "leaf.3.3",
    ];
    for (r, name) in rows.iter_mut().filter(|r| r.2).zip(names) {
        r.1 = name;
    }
    let t = tree(&rows);
    let r = run(&t, false);
    let mut expected: Vec<(&str, f64)> = names.iter().map(|&n| (n, 0.666667)).collect();
    for e in expected.iter_mut().filter(|e| e.0.ends_with(".3")) {
        e.1 = 1.0;
    }
    assert_fairshare(&t, &r, &expected);
}

#[test]
fn v4_tied_user_and_bank_user_first() {
    let t = tree(&[
        ("root", "leaf.0.1", true, 100, 12.0),
        ("root", "account1", false, 1000, 0.0),
        ("account1", "leaf.1.1", true, 10000, 100.0),
        ("account1", "leaf.1.2", true, 1000, 10.0),
        ("account1", "leaf.1.3", true, 100000, 10.0),
        ("root", "account3", false, 10, 0.0),
        ("account3", "leaf.3.1", true, 100, 0.0),
        ("account3", "leaf.3.2", true, 10, 1.0),
    ]);
    let r = run(&t, false);
    assert_fairshare(
        &t,
        &r,
        &[
            ("leaf.3.1", 1.0),
            ("leaf.3.2", 0.833333),
            ("leaf.0.1", 0.666667),
            ("leaf.1.3", 0.5),
            ("leaf.1.2", 0.333333),
            ("leaf.1.1", 0.333333),
        ],
    );
}

#[test]
fn v5_zero_shares_are_walked_last() {
    let mut rows = v2();
    for r in rows.iter_mut() {
        if r.1 == "leaf.2.1" || r.1 == "leaf.2.2" {
            r.3 = 0;
        }
    }
    let t = tree(&rows);
    let r = run(&t, false);
    assert_fairshare(
        &t,
        &r,
        &[
            ("leaf.3.1", 1.0),
            ("leaf.3.2", 0.875),
            ("leaf.2.3", 0.75),
            ("leaf.1.3", 0.625),
            ("leaf.1.2", 0.5),
            ("leaf.1.1", 0.5),
            ("leaf.2.1", 0.25),
            ("leaf.2.2", 0.25),
        ],
    );
    let id = t.find_user(None, "leaf.2.1").unwrap();
    assert_eq!(r.row(id).weight, Some(0.0));
}

#[test]
fn v6_minimal_tree_has_no_users() {
    let t = tree(&[]);
    let r = run(&t, false);
    assert_eq!(r.len(), 1);
    assert_eq!(r.row(0).fairshare, None);
    let t = tree(&[("root", "empty", false, 1, 0.0)]);
    let r = run(&t, false);
    assert!(r.rows().all(|row| row.fairshare.is_none()));
}

#[test]
fn v7_after_a_usage_change() {
    let mut rows = v1();
    for r in rows.iter_mut().filter(|r| r.1 == "leaf.2.1") {
        r.4 = 55.0;
    }
    let t = tree(&rows);
    let r = run(&t, false);
    assert_fairshare(
        &t,
        &r,
        &[
            ("leaf.3.1", 1.0),
            ("leaf.3.2", 0.857143),
            ("leaf.1.3", 0.714286),
            ("leaf.1.1", 0.571429),
            ("leaf.1.2", 0.428571),
            ("leaf.2.2", 0.285714),
            ("leaf.2.1", 0.142857),
        ],
    );
}

#[test]
fn v8_multi_level_irregular_depth() {
    let t = tree(&[
        ("root", "A", false, 1, 0.0),
        ("A", "user1", true, 1, 20.0),
        ("A", "user2", true, 1, 20.0),
        ("A", "user3", true, 1, 10.0),
        ("root", "B", false, 1, 0.0),
        ("B", "user4", true, 1, 13.0),
        ("B", "user5", true, 1, 12.0),
        ("root", "C", false, 1, 0.0),
        ("C", "D", false, 1, 0.0),
        ("D", "user6", true, 1, 25.0),
        ("C", "E", false, 1, 0.0),
        ("E", "user7", true, 1, 10.0),
    ]);
    let r = run(&t, false);
    assert_fairshare(
        &t,
        &r,
        &[
            ("user5", 1.0),
            ("user4", 0.857143),
            ("user7", 0.714286),
            ("user6", 0.571429),
            ("user3", 0.428571),
            ("user1", 0.285714),
            ("user2", 0.285714),
        ],
    );
}

#[test]
fn v9_huge_usage() {
    let t = tree(&[
        ("root", "A", false, 333333, 0.0),
        ("A", "user_A", true, 1, 9_000_000_000.0),
        ("root", "B", false, 333333, 0.0),
        ("B", "user_B", true, 1, 1_500_000_000.0),
    ]);
    for compat in [false, true] {
        let r = run(&t, compat);
        assert_fairshare(&t, &r, &[("user_B", 1.0), ("user_A", 0.5)]);
    }
    let t = tree(&[
        ("root", "A", false, 1, 0.0),
        ("A", "u", true, 1, 19115069644.16),
    ]);
    assert_fairshare(&t, &run(&t, false), &[("u", 1.0)]);
}

#[test]
fn v10_bank_info_example_with_norm_columns() {
    let t = tree(&[
        ("root", "A", false, 7, 0.0),
        ("A", "user1", true, 3, 5000.0),
        ("A", "user2", true, 4, 3500.0),
        ("root", "B", false, 3, 0.0),
        ("B", "user3", true, 1, 1500.0),
    ]);
    let r = run(&t, false);
    assert_fairshare(
        &t,
        &r,
        &[("user3", 1.0), ("user2", 0.666667), ("user1", 0.333333)],
    );
    let row = |name: &str| {
        let id = t
            .find_account(name)
            .or_else(|| t.find_user(None, name))
            .unwrap();
        r.row(id).clone()
    };
    for (name, ns, nu) in [
        ("A", 0.7, 0.85),
        ("B", 0.3, 0.15),
        ("user1", 0.3, 0.5),
        ("user2", 0.4, 0.35),
        ("user3", 0.3, 0.15),
    ] {
        assert_abs_diff_eq!(row(name).norm_shares.unwrap(), ns, epsilon = 1e-12);
        assert_abs_diff_eq!(row(name).norm_usage.unwrap(), nu, epsilon = 1e-12);
    }
}

#[test]
fn v11_emulator_vectors_that_match_the_cpp() {
    let t = tree(&[
        ("root", "account1", false, 1000, 0.0),
        ("account1", "only.user", true, 1000, 100.0),
    ]);
    assert_fairshare(&t, &run(&t, false), &[("only.user", 1.0)]);

    let t = tree(&[
        ("root", "level1", false, 1000, 0.0),
        ("level1", "level2", false, 1000, 0.0),
        ("level2", "level3", false, 1000, 0.0),
        ("level3", "deep.user1", true, 1000, 50.0),
        ("level3", "deep.user2", true, 1000, 50.0),
    ]);
    assert_fairshare(
        &t,
        &run(&t, false),
        &[("deep.user1", 1.0), ("deep.user2", 1.0)],
    );

    let t = tree(&[
        ("root", "bank", false, 1000, 0.0),
        ("bank", "user.a", true, 1000, 100.0),
        ("bank", "user.b", true, 1000, 100.0),
        ("bank", "user.c", true, 1000, 100.0),
    ]);
    assert_fairshare(
        &t,
        &run(&t, false),
        &[("user.a", 1.0), ("user.b", 1.0), ("user.c", 1.0)],
    );

    // t1099: the C++ (not the Python emulator) gives user3 1/3.
    let t = tree(&[
        ("root", "A", false, 1, 0.0),
        ("A", "user1", true, 1, 0.0),
        ("root", "B", false, 1, 0.0),
        ("B", "user2", true, 1, 0.0),
        ("root", "C", false, 1, 0.0),
        ("C", "D", false, 1, 0.0),
        ("D", "user3", true, 1, 0.0),
    ]);
    assert_fairshare(
        &t,
        &run(&t, false),
        &[("user1", 1.0), ("user2", 1.0), ("user3", 0.333333)],
    );
}

#[test]
fn a_user_in_several_banks_gets_one_value_per_association() {
    let t = tree(&[
        ("root", "A", false, 1, 0.0),
        ("A", "alice", true, 1, 10.0),
        ("A", "bob", true, 1, 30.0),
        ("root", "B", false, 1, 0.0),
        ("B", "alice", true, 1, 0.0),
    ]);
    let r = run(&t, false);
    // N counts associations: 3. B (usage 0) first: alice@B 1.0; then A: alice 2/3, bob 1/3.
    let a_b = t.find_user(Some("B"), "alice").unwrap();
    let a_a = t.find_user(Some("A"), "alice").unwrap();
    let bob = t.find_user(Some("A"), "bob").unwrap();
    assert_abs_diff_eq!(r.row(a_b).fairshare.unwrap(), 1.0, epsilon = 5e-7);
    assert_abs_diff_eq!(r.row(a_a).fairshare.unwrap(), 0.666667, epsilon = 5e-7);
    assert_abs_diff_eq!(r.row(bob).fairshare.unwrap(), 0.333333, epsilon = 5e-7);
}

/// Fractional usages: the C++ truncates U after every addition (0.5 + 0.6 → 0), so X and Y
/// both get weight 0 and tie; the exact sum (default) separates them.
#[test]
fn flux_compat_truncates_fractional_sibling_usage() {
    let t = tree(&[
        ("root", "A", false, 1, 0.0),
        ("A", "X", true, 1, 0.5),
        ("A", "Y", true, 2, 0.6),
        ("A", "W", true, 1, 0.0),
    ]);
    let compat = run(&t, true);
    assert_fairshare(&t, &compat, &[("W", 1.0), ("X", 0.666667), ("Y", 0.666667)]);
    let exact = run(&t, false);
    assert_fairshare(&t, &exact, &[("W", 1.0), ("Y", 0.666667), ("X", 0.333333)]);

    // 1.5, 2.5, 3.7 sum to 6 in the C++ (7.7 exactly).
    let t = tree(&[
        ("root", "A", false, 1, 0.0),
        ("A", "a", true, 1, 1.5),
        ("A", "b", true, 1, 2.5),
        ("A", "c", true, 1, 3.7),
    ]);
    let a = t.find_user(None, "a").unwrap();
    let w_compat = run(&t, true).row(a).weight.unwrap();
    let w_exact = run(&t, false).row(a).weight.unwrap();
    assert_eq!(w_compat, (1.0 / 3.0) / (1.5 / 6.0));
    assert_eq!(w_exact, (1.0 / 3.0) / (1.5 / 7.7));
}

#[test]
fn deep_chains_walk_without_recursion() {
    let names: Vec<String> = (0..20_000).map(|i| format!("b{i}")).collect();
    let mut rows: Vec<Row> = vec![("root", names[0].as_str(), false, 1, 0.0)];
    for i in 1..names.len() {
        rows.push((names[i - 1].as_str(), names[i].as_str(), false, 1, 0.0));
    }
    rows.push((names[names.len() - 1].as_str(), "u", true, 1, 3.0));
    let t = tree(&rows);
    assert_fairshare(&t, &run(&t, false), &[("u", 1.0)]);
}
