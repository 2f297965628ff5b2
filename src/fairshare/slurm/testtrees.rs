//! The reference trees of slurm.md §7 (T1 = test24.1, T1+H = test_130_2, T2 = test24.4, the
//! tie tree of Table 7), built as `TreeSpec`s for the unit tests of every Slurm algorithm.

use crate::fairshare::{NodeId, NodeKind, NodeSpec, Shares, Tree, TreeSource, TreeSpec};

/// sshare prints 6 decimals: agreement to half a unit of the last place.
pub(crate) const TOL: f64 = 5e-7;

/// The account named `name`, else the first user so named.
pub(crate) fn id(t: &Tree, name: &str) -> NodeId {
    t.find_account(name)
        .or_else(|| t.users_named(name).first().copied())
        .unwrap()
}

/// `P` stands for `FairShare=parent` in the tables below.
pub(crate) const P: i64 = -1;

fn shares(s: i64) -> Shares {
    if s < 0 {
        Shares::Parent
    } else {
        Shares::Count(s as u64)
    }
}

/// An account row: (name, parent, shares).
pub(crate) fn acct(name: &str, parent: &str, s: i64) -> NodeSpec {
    let parent = (parent != "root").then(|| parent.to_string());
    NodeSpec::new(name, parent, NodeKind::Account, shares(s))
}

/// A user row: (name, account, shares, raw usage).
pub(crate) fn user(name: &str, parent: &str, s: i64, usage: f64) -> NodeSpec {
    let parent = (parent != "root").then(|| parent.to_string());
    let mut n = NodeSpec::new(name, parent, NodeKind::User, shares(s));
    n.usage = Some(usage);
    n
}

/// Builds a Slurm tree from rows.
pub(crate) fn build(nodes: Vec<NodeSpec>) -> Tree {
    Tree::build(TreeSpec {
        source: TreeSource::Slurm,
        root_name: "root".into(),
        root_usage: None,
        unknown_shares: None,
        nodes,
    })
    .expect("reference tree is valid")
}

fn t1_rows() -> Vec<NodeSpec> {
    vec![
        acct("AccountA", "root", 40),
        acct("AccountB", "AccountA", 30),
        user("User1", "AccountB", 1, 20.0),
        acct("AccountC", "AccountA", 10),
        user("User2", "AccountC", 1, 25.0),
        user("User3", "AccountC", 1, 0.0),
        acct("AccountD", "root", 60),
        acct("AccountE", "AccountD", 25),
        user("User4", "AccountE", 1, 25.0),
        acct("AccountF", "AccountD", 35),
        user("User5", "AccountF", 1, 0.0),
        acct("AccountG", "root", 0),
        user("User6", "AccountG", 0, 30.0),
    ]
}

/// T1: the doc's "Fair-share Example" as test24.1 (root usage 100).
pub(crate) fn t1() -> Tree {
    build(t1_rows())
}

/// T1 plus the `FairShare=parent` subtree of test_130_2 (root usage 210).
pub(crate) fn t1h() -> Tree {
    let mut rows = t1_rows();
    rows.extend([
        acct("AccountH", "root", 50),
        acct("AccountHTA", "AccountH", P),
        user("UHTAStd1", "AccountHTA", P, 10.0),
        user("UHTAStd2", "AccountHTA", 30, 10.0),
        user("UHTAStd3", "AccountHTA", 50, 25.0),
        user("UHRA1", "AccountH", P, 20.0),
        user("UHRA2", "AccountH", 40, 20.0),
        user("UHRA3", "AccountH", 50, 25.0),
    ]);
    build(rows)
}

/// T2: test24.4, the official Fair Tree test (21 user associations, root usage 240).
pub(crate) fn t2() -> Tree {
    build(vec![
        user("u1", "root", 10, 0.0),
        user("u2", "root", 10, 10.0),
        acct("aA", "root", 40),
        acct("aAA", "aA", 30),
        user("uAA1", "aAA", 1, 20.0),
        acct("aAB", "aA", 10),
        user("uAB1", "aAB", 1, 25.0),
        user("uAB2", "aAB", 1, 0.0),
        acct("aB", "root", 60),
        acct("aBA", "aB", 25),
        user("uBA1", "aBA", 1, 25.0),
        acct("aBB", "aB", 35),
        user("uBB1", "aBB", 1, 0.0),
        acct("aC", "root", 0),
        user("uC1", "aC", 0, 30.0),
        acct("aD", "root", 50),
        acct("aDA", "aD", P),
        user("uDA1", "aDA", P, 10.0),
        user("uDA2", "aDA", 30, 10.0),
        user("uDA3", "aDA", 50, 25.0),
        user("uD1", "aD", P, 20.0),
        user("uD2", "aD", 40, 20.0),
        user("uD3", "aD", 50, 25.0),
        acct("aE", "root", 10),
        user("aE1", "aE", 10, 0.0),
        user("aE2", "aE", 10, 0.0),
        acct("aF", "root", 20),
        user("uF1", "aF", 10, 0.0),
        user("uF2", "aF", 20, 0.0),
        acct("aG", "root", 8),
        user("uG1", "aG", 10, 10.0),
        acct("aGA", "aG", 10),
        user("uGA1", "aGA", 20, 4.0),
        user("uGA2", "aGA", 20, 6.0),
    ])
}

/// Table 7: two tied sibling accounts, root → A{a1(1,1), a2(1,3)}, B{b1(1,2), b2(1,2)}.
pub(crate) fn ties() -> Tree {
    build(vec![
        acct("A", "root", 1),
        user("a1", "A", 1, 1.0),
        user("a2", "A", 1, 3.0),
        acct("B", "root", 1),
        user("b1", "B", 1, 2.0),
        user("b2", "B", 1, 2.0),
    ])
}
