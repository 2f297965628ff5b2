//! Slurm classic multifactor fair share (`PriorityFlags=NO_FAIR_TREE`), slurm.md §1:
//! product-normalised shares S, effective usage mixed top-down with the fs parent's,
//! and F = 2^(-(U_E/S)/d) with d = `FairShareDampeningFactor`.

use crate::fairshare::slurm::links::Links;
use crate::fairshare::{Algorithm, ShareResult, Tree};

/// Effective usage top-down (`_set_usage_efctv`): children of root take U_N; `parent` nodes and
/// nodes whose siblings have no shares take the fs parent's U_E; else
/// U_E = U_N + (U_E(fs parent) - U_N) * s / L.
pub(crate) fn effective_usage(links: &Links) -> Vec<f64> {
    effective_usage_by(links, |id, fp, un, ue| {
        if links.level_shares(id) <= 0.0 {
            ue[fp]
        } else {
            un + (ue[fp] - un) * links.raw_shares[id] / links.level_shares(id)
        }
    })
}

/// Effective usage top-down as Slurm walks it (classic and depth-oblivious): the root's is 1, a
/// child of the root takes its U_N, a `parent` node its fs parent's U_E; any other node's is
/// `rule(id, fs parent, U_N, U_E so far)` (ids are top-down: the fs parent's is known).
pub(crate) fn effective_usage_by(
    links: &Links,
    mut rule: impl FnMut(usize, usize, f64, &[f64]) -> f64,
) -> Vec<f64> {
    let n = links.len();
    let mut ue = vec![0.0; n];
    if n > 0 {
        ue[0] = 1.0;
    }
    for id in 1..n {
        let fp = links.fs_parent[id];
        let un = links.usage_norm[id];
        ue[id] = if fp == 0 {
            un
        } else if links.is_parent[id] {
            ue[fp]
        } else {
            rule(id, fp, un, &ue)
        };
    }
    ue
}

/// F = 2^(-(U_E/S)/d), 0 when S <= 0 (`_set_assoc_fs_factor`).
pub(crate) fn factor(s: f64, ue: f64, dampening: f64) -> f64 {
    if s <= 0.0 {
        0.0
    } else {
        (-(ue / s) / dampening).exp2()
    }
}

/// The sshare columns of every association from S and U_E (shared with depth-oblivious, which
/// differs only in U_E). A `parent` node is scored with its fs parent's S and U_E. Takes the
/// working vectors and the links by value: they become the result's columns without a copy.
pub(crate) fn rows(
    algorithm: Algorithm,
    links: Links,
    mut s: Vec<f64>,
    mut ue: Vec<f64>,
    dampening: f64,
) -> ShareResult {
    let n = links.len();
    debug_assert!(s.len() == n && ue.len() == n);
    if links.any_parent() {
        // Children of a `parent` node have a non-`parent` fs parent, so no value read below
        // is one being patched.
        for id in 1..n {
            if links.is_parent[id] {
                let fp = links.fs_parent[id];
                s[id] = s[fp];
                ue[id] = ue[fp];
            }
        }
    }
    // sshare before 25.11 prints F on every row under classic, the root included
    // (S = U_E = 1 there, so 2^(-1/d)).
    let fairshare: Vec<f64> = s
        .iter()
        .zip(&ue)
        .map(|(&sv, &uev)| factor(sv, uev, dampening))
        .collect();
    crate::fairshare::slurm::result(algorithm, links, s, ue, fairshare)
}

/// Runs classic over the whole tree.
pub(crate) fn compute(tree: &Tree, dampening: f64) -> ShareResult {
    let links = Links::new(tree);
    let s = links.classic_norm_shares();
    let ue = effective_usage(&links);
    rows(Algorithm::Classic, links, s, ue, dampening)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::slurm::testtrees::{id, t1, t1h, t2, TOL};
    use approx::assert_abs_diff_eq;

    fn check(tree: &Tree, r: &ShareResult, name: &str, want: [f64; 4]) {
        let row = r.row(id(tree, name));
        let got = [
            row.norm_shares.unwrap(),
            row.norm_usage.unwrap(),
            row.effective_usage.unwrap(),
            row.fairshare.unwrap(),
        ];
        for (g, w) in got.iter().zip(want) {
            assert_abs_diff_eq!(*g, w, epsilon = TOL);
        }
    }

    #[test]
    fn table1_t1() {
        let t = t1();
        let r = compute(&t, 1.0);
        for (name, want) in [
            ("AccountA", [0.4, 0.45, 0.45, 0.458502]),
            ("AccountB", [0.3, 0.2, 0.3875, 0.408479]),
            ("User1", [0.3, 0.2, 0.3875, 0.408479]),
            ("AccountC", [0.1, 0.25, 0.3, 0.125]),
            ("User2", [0.05, 0.25, 0.275, 0.022097]),
            ("User3", [0.05, 0.0, 0.15, 0.125]),
            ("AccountD", [0.6, 0.25, 0.25, 0.749154]),
            ("AccountE", [0.25, 0.25, 0.25, 0.5]),
            ("User4", [0.25, 0.25, 0.25, 0.5]),
            ("AccountF", [0.35, 0.0, 0.145833, 0.749154]),
            ("User5", [0.35, 0.0, 0.145833, 0.749154]),
            ("AccountG", [0.0, 0.3, 0.3, 0.0]),
            ("User6", [0.0, 0.3, 0.3, 0.0]),
        ] {
            check(&t, &r, name, want);
        }
        let root = r.row(0);
        assert_eq!(root.norm_shares, Some(1.0));
        assert_eq!(root.norm_usage, None);
        assert_eq!(root.effective_usage, Some(1.0));
        assert_eq!(root.level_fs, None);
        assert_eq!(root.fairshare, Some(0.5));
    }

    #[test]
    fn table2_parent_shares() {
        let t = t1h();
        let r = compute(&t, 1.0);
        for (name, want) in [
            ("User1", [0.2, 0.095238, 0.184524, 0.527550]),
            ("User2", [0.033333, 0.119048, 0.130952, 0.065672]),
            ("User3", [0.033333, 0.0, 0.071429, 0.226431]),
            ("User4", [0.166667, 0.119048, 0.119048, 0.609507]),
            ("User5", [0.233333, 0.0, 0.069444, 0.813594]),
            ("User6", [0.0, 0.142857, 0.142857, 0.0]),
            ("UHRA1", [0.333333, 0.095238, 0.523810, 0.336475]),
            ("UHRA2", [0.078431, 0.095238, 0.196078, 0.176777]),
            ("UHRA3", [0.098039, 0.119048, 0.238095, 0.185749]),
            ("UHTAStd1", [0.333333, 0.047619, 0.523810, 0.336475]),
            ("UHTAStd2", [0.058824, 0.047619, 0.131653, 0.211966]),
            ("UHTAStd3", [0.098039, 0.119048, 0.238095, 0.185749]),
            // Accounts: NormShares/EffU from the real run, F by the formula.
            ("AccountA", [0.266667, 0.214286, 0.214286, 0.572929]),
            ("AccountB", [0.2, 0.095238, 0.184524, 0.527550]),
            ("AccountC", [0.066667, 0.119048, 0.142857, 0.226431]),
            ("AccountD", [0.4, 0.119048, 0.119048, 0.813594]),
            ("AccountE", [0.166667, 0.119048, 0.119048, 0.609507]),
            ("AccountF", [0.233333, 0.0, 0.069444, 0.813594]),
            ("AccountH", [0.333333, 0.523810, 0.523810, 0.336475]),
            ("AccountHTA", [0.333333, 0.214286, 0.523810, 0.336475]),
        ] {
            check(&t, &r, name, want);
        }
    }

    #[test]
    fn t2_real_run() {
        let t = t2();
        let r = compute(&t, 1.0);
        let f = |n: &str| r.row(t.users_named(n)[0]).fairshare.unwrap();
        for (name, want) in [
            ("u2", 0.548412),
            ("uAA1", 0.460271),
            ("uAB1", 0.036736),
            ("uAB2", 0.164938),
            ("uBA1", 0.548412),
            ("uBB1", 0.778565),
            ("uC1", 0.0),
            ("uD1", 0.266708),
            ("uDA1", 0.266708),
            ("uD2", 0.122145),
            ("uD3", 0.129707),
            ("uDA2", 0.152243),
            ("uDA3", 0.129707),
            ("aE1", 1.0),
            ("aE2", 1.0),
            ("uF1", 1.0),
            ("uF2", 1.0),
            ("uG1", 0.105112),
            ("uGA1", 0.057645),
            ("uGA2", 0.042689),
        ] {
            assert_abs_diff_eq!(f(name), want, epsilon = TOL);
        }
        let s = |n: &str| r.row(t.users_named(n)[0]).norm_shares.unwrap();
        assert_abs_diff_eq!(s("uAA1"), 0.144231, epsilon = TOL);
        assert_abs_diff_eq!(s("uD2"), 0.056561, epsilon = TOL);
        assert_abs_diff_eq!(s("uDA2"), 0.042421, epsilon = TOL);
        assert_abs_diff_eq!(s("uGA1"), 0.009615, epsilon = TOL);
    }

    #[test]
    fn dampening_divides_the_exponent() {
        let t = t1();
        let r = compute(&t, 2.0);
        let u1 = t.users_named("User1")[0];
        // 2^(-(0.3875/0.3)/2)
        assert_abs_diff_eq!(r.row(u1).fairshare.unwrap(), 0.639124, epsilon = TOL);
    }
}
