//! Edge cases of the four Slurm algorithms through the public API: zero shares, zero usage
//! everywhere, `parent` shares on users and accounts, irregular depth, a user under several
//! accounts, ties, bad options — and no panic (or NaN) on arbitrary trees.

use approx::assert_abs_diff_eq;
use fairsort::fairshare::{
    slurm, Algorithm, NodeKind, NodeSpec, Options, ShareError, Shares, Tree, TreeSpec,
};
use proptest::prelude::*;
use std::collections::HashSet;

const SLURM: [Algorithm; 4] = [
    Algorithm::Classic,
    Algorithm::DepthOblivious,
    Algorithm::FairTree,
    Algorithm::Ticket,
];

fn acct(name: &str, parent: Option<&str>, s: Shares) -> NodeSpec {
    NodeSpec::new(name, parent.map(String::from), NodeKind::Account, s)
}

fn user(name: &str, parent: Option<&str>, s: Shares, usage: f64) -> NodeSpec {
    let mut n = NodeSpec::new(name, parent.map(String::from), NodeKind::User, s);
    n.usage = Some(usage);
    n
}

fn tree(nodes: Vec<NodeSpec>) -> Tree {
    Tree::build(TreeSpec {
        root_name: "root".into(),
        nodes,
        ..TreeSpec::default()
    })
    .unwrap()
}

fn c(n: u64) -> Shares {
    Shares::Count(n)
}

#[test]
fn zero_usage_everywhere() {
    let t = tree(vec![
        acct("a", None, c(1)),
        user("u1", Some("a"), c(1), 0.0),
        user("u2", Some("a"), c(3), 0.0),
        user("u3", None, c(2), 0.0),
    ]);
    let users = t.users();
    // Classic: U_E = 0 everywhere, F = 2^0 = 1; depth-oblivious too.
    for alg in [Algorithm::Classic, Algorithm::DepthOblivious] {
        let r = slurm::compute(&t, alg, &Options::default()).unwrap();
        for &u in &users {
            assert_eq!(r.row(u).fairshare, Some(1.0), "{alg}");
            assert_eq!(r.row(u).norm_usage, Some(0.0), "{alg}");
        }
    }
    // Fair Tree: every Level FS is +inf, all users tie at the top.
    let r = slurm::compute(&t, Algorithm::FairTree, &Options::default()).unwrap();
    for &u in &users {
        assert_eq!(r.row(u).fairshare, Some(1.0));
        assert_eq!(r.row(u).level_fs, Some(f64::INFINITY));
        assert_eq!(r.row(u).effective_usage, Some(0.0));
    }
    // Ticket: F = S / (0.01 S) = 100 at every level; tickets split by shares.
    let r = slurm::compute(&t, Algorithm::Ticket, &Options::default()).unwrap();
    let top = users
        .iter()
        .filter_map(|&u| r.row(u).fairshare)
        .fold(0.0, f64::max);
    assert_eq!(top, 1.0);
}

#[test]
fn zero_shares_give_zero_factor_and_lowest_rank() {
    let t = tree(vec![
        user("z", None, c(0), 5.0),
        user("y", None, c(1), 5.0),
        acct("za", None, c(0)),
        user("w", Some("za"), c(0), 0.0),
    ]);
    let z = t.find_user(None, "z").unwrap();
    let w = t.find_user(Some("za"), "w").unwrap();
    for alg in [Algorithm::Classic, Algorithm::DepthOblivious] {
        let r = slurm::compute(&t, alg, &Options::default()).unwrap();
        assert_eq!(r.row(z).fairshare, Some(0.0), "{alg}");
        assert_eq!(r.row(w).fairshare, Some(0.0), "{alg}");
        assert_eq!(r.row(w).norm_shares, Some(0.0), "{alg}");
    }
    let r = slurm::compute(&t, Algorithm::FairTree, &Options::default()).unwrap();
    // y (LF 2) ranks 3/3; z and the account za both have LF 0: z is a user, so it comes
    // first (2/3) and za's user w ties with it.
    assert_eq!(r.row(z).level_fs, Some(0.0));
    assert_abs_diff_eq!(r.row(z).fairshare.unwrap(), 2.0 / 3.0, epsilon = 1e-15);
    assert_abs_diff_eq!(r.row(w).fairshare.unwrap(), 2.0 / 3.0, epsilon = 1e-15);
    let r = slurm::compute(&t, Algorithm::Ticket, &Options::default()).unwrap();
    assert_eq!(r.row(z).fairshare, Some(0.0));
    assert_eq!(r.row(w).fairshare, Some(0.0));
}

#[test]
fn a_user_in_several_accounts_is_scored_per_association() {
    let t = tree(vec![
        acct("a", None, c(1)),
        acct("b", None, c(1)),
        user("u", Some("a"), c(1), 10.0),
        user("u", Some("b"), c(1), 1.0),
        user("v", Some("b"), c(1), 10.0),
    ]);
    let ua = t.find_user(Some("a"), "u").unwrap();
    let ub = t.find_user(Some("b"), "u").unwrap();
    for alg in SLURM {
        let r = slurm::compute(&t, alg, &Options::default()).unwrap();
        assert_ne!(r.row(ua).fairshare, r.row(ub).fairshare, "{alg}");
    }
    // Ticket: naming `b/u` activates only that association.
    let active: HashSet<String> = ["b/u".to_string()].into();
    let opts = Options {
        active_users: Some(active),
        ..Options::default()
    };
    let r = slurm::compute(&t, Algorithm::Ticket, &opts).unwrap();
    assert_eq!(r.row(ub).fairshare, Some(1.0));
    assert_eq!(r.row(ua).fairshare, Some(0.0));
}

#[test]
fn irregular_depth_and_parent_chains() {
    // root -> a -> b(parent) -> c(parent) -> u(parent), x(2); a -> y(1); plus a shallow user.
    let t = tree(vec![
        acct("a", None, c(3)),
        acct("b", Some("a"), Shares::Parent),
        acct("c", Some("b"), Shares::Parent),
        user("u", Some("c"), Shares::Parent, 4.0),
        user("x", Some("c"), c(2), 4.0),
        user("y", Some("a"), c(1), 2.0),
        user("s", None, c(1), 10.0),
    ]);
    let a = t.find_account("a").unwrap();
    let u = t.find_user(Some("c"), "u").unwrap();
    let x = t.find_user(Some("c"), "x").unwrap();
    let y = t.find_user(Some("a"), "y").unwrap();
    // Classic: x's fs parent is a (b and c are `parent`): level_shares = 2 + 1.
    let r = slurm::compute(&t, Algorithm::Classic, &Options::default()).unwrap();
    assert_abs_diff_eq!(
        r.row(x).norm_shares.unwrap(),
        0.75 * 2.0 / 3.0,
        epsilon = 1e-12
    );
    assert_eq!(r.row(u).fairshare, r.row(a).fairshare);
    assert_eq!(r.row(u).norm_shares, r.row(a).norm_shares);
    // Fair Tree: u (parent user, +inf) ranks first under a; x before y? x LF = (2/3)/(4/10),
    // y LF = (1/3)/(2/10): both 5/3 — a genuine tie between two users.
    let r = slurm::compute(&t, Algorithm::FairTree, &Options::default()).unwrap();
    assert_eq!(r.row(u).level_fs, None);
    assert!(r.row(u).fairshare > r.row(x).fairshare);
    let lx = r.row(x).level_fs.unwrap();
    let ly = r.row(y).level_fs.unwrap();
    if lx == ly {
        assert_eq!(r.row(x).fairshare, r.row(y).fairshare);
    }
    for alg in SLURM {
        let r = slurm::compute(&t, alg, &Options::default()).unwrap();
        for id in t.users() {
            let f = r.row(id).fairshare.unwrap();
            assert!((0.0..=1.0).contains(&f) || id == u, "{alg} {f}");
        }
    }
    // Ticket: a `parent` user is scored with its fs parent's tickets (Slurm 14.11's
    // `_get_fairshare_priority`), which can exceed the best user's: a factor above 1.
    let r = slurm::compute(&t, Algorithm::Ticket, &Options::default()).unwrap();
    let (ta, tu) = (r.row(a).tickets.unwrap(), r.row(u).tickets.unwrap());
    assert!(ta > tu);
    assert!(r.row(u).fairshare.unwrap() > 1.0);
}

#[test]
fn bad_options_and_foreign_algorithms_are_errors() {
    let t = tree(vec![user("u", None, c(1), 1.0)]);
    for d in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let opts = Options {
            dampening: d,
            ..Options::default()
        };
        let e = slurm::compute(&t, Algorithm::Classic, &opts).unwrap_err();
        assert!(matches!(e, ShareError::BadOption(_)), "{d}");
    }
    for alg in [Algorithm::Pbs, Algorithm::Flux] {
        let e = slurm::compute(&t, alg, &Options::default()).unwrap_err();
        assert_eq!(e.to_string(), format!("`{alg}` is not a Slurm algorithm"));
    }
}

#[test]
fn explain_notes_are_given_for_every_algorithm() {
    let t = tree(vec![
        acct("a", None, c(1)),
        user("u", Some("a"), c(1), 3.0),
        user("v", Some("a"), c(1), 1.0),
    ]);
    let u = t.find_user(Some("a"), "u").unwrap();
    for alg in SLURM {
        let r = slurm::compute(&t, alg, &Options::default()).unwrap();
        let lines = slurm::notes(&t, &r, u);
        assert!(lines.len() >= 3, "{alg}: {lines:?}");
        assert!(lines.iter().any(|l| l.contains("a/u")), "{alg}: {lines:?}");
    }
}

/// Random trees: accounts under random earlier accounts, users anywhere, shares including 0
/// and `parent`, usage including 0.
fn arb_tree() -> impl Strategy<Value = Tree> {
    let node = (0usize..1000, 0u64..6, 0u64..4, any::<bool>());
    prop::collection::vec(node, 1..60).prop_map(|spec| {
        let mut nodes = Vec::new();
        let mut accounts: Vec<String> = Vec::new();
        for (i, (pick, shares, usage, is_acct)) in spec.into_iter().enumerate() {
            let parent = if accounts.is_empty() || pick % 4 == 0 {
                None
            } else {
                Some(accounts[pick % accounts.len()].clone())
            };
            let s = if shares == 5 {
                Shares::Parent
            } else {
                Shares::Count(shares)
            };
            if is_acct {
                let name = format!("a{i}");
                nodes.push(acct(&name, parent.as_deref(), s));
                accounts.push(name);
            } else {
                nodes.push(user(&format!("u{i}"), parent.as_deref(), s, usage as f64));
            }
        }
        tree(nodes)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn never_panics_and_factors_are_in_range(t in arb_tree(), merge in any::<bool>()) {
        for alg in SLURM {
            let opts = Options { merge_ties: merge, ..Options::default() };
            let r = slurm::compute(&t, alg, &opts).unwrap();
            prop_assert_eq!(r.len(), t.len());
            let users = t.users();
            for &id in &users {
                let f = r.row(id).fairshare.unwrap();
                // Only ticket's `parent` users may exceed 1 (they get their fs parent's tickets).
                let parent_user = t.node(id).shares == Shares::Parent;
                let in_range = (0.0..=1.0).contains(&f) || (alg == Algorithm::Ticket && parent_user);
                prop_assert!(in_range && f >= 0.0, "{} {}", alg, f);
                prop_assert!(!r.row(id).effective_usage.unwrap().is_nan());
            }
            if alg == Algorithm::FairTree && !users.is_empty() {
                let top = users.iter().filter_map(|&u| r.row(u).fairshare).fold(0.0, f64::max);
                prop_assert_eq!(top, 1.0);
            }
            for id in 0..t.len() {
                let _ = slurm::notes(&t, &r, id);
            }
        }
    }
}
