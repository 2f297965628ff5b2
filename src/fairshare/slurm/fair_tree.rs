//! Slurm Fair Tree (the default since 19.05; seed 001, slurm.md §3, `fair_tree.c`): Level FS
//! = S/U per association among its siblings, siblings sorted by Level FS (users before accounts
//! on ties), users ranked in that depth-first order, F = rank / number of user associations.
//!
//! Ties follow the real code by default: an account tied with the previous sibling passes
//! "tied" to its first child, and tied sibling accounts are walked one after the other (the
//! documented merge never runs in Slurm: `_count_tied_accounts` always returns 0). With
//! `merge_ties` the documented rule 3 is applied: tied sibling accounts have their children
//! lists merged and sorted together before descending.

use crate::fairshare::key_sort::SiblingSort;
use crate::fairshare::result::{Column, BLANK};
use crate::fairshare::slurm::links::Links;
use crate::fairshare::{Algorithm, NodeId, ShareResult, Tree};

/// Slurm's NO_VAL as a Level FS: a `parent` account's value, and the walk's initial "previous".
pub(crate) const NO_VAL: f64 = 4_294_967_294.0;

/// Fair Tree's S: `shares_raw / level_shares` (a `parent` node: its fs parent's); the root's
/// is 0, as sshare prints it.
pub(crate) fn shares(links: &Links, id: NodeId) -> f64 {
    if id == 0 {
        0.0
    } else if links.is_parent[id] {
        // An fs parent is never `parent` itself, so one step is enough.
        let fp = links.fs_parent[id];
        if fp == 0 {
            0.0
        } else {
            links.local_share(fp)
        }
    } else {
        links.local_share(id)
    }
}

/// Fair Tree's U (sshare EffectvUsage): `usage_raw / usage_raw(fs parent)`, 0 when the fs
/// parent has no usage; the root's is 1.
pub(crate) fn usage(tree: &Tree, links: &Links, id: NodeId) -> f64 {
    if id == 0 {
        return 1.0;
    }
    let usage = &tree.columns().raw_usage;
    let parent_usage = usage[links.fs_parent[id]];
    if parent_usage > 0.0 {
        usage[id] / parent_usage
    } else {
        0.0
    }
}

/// Level FS of every association (`_calc_assoc_fs`): +inf for a `parent` user, NO_VAL for a
/// `parent` account (and the root), 0 for S = 0 (checked first), else S/U (U = 0 gives +inf).
pub(crate) fn level_fs(tree: &Tree, links: &Links) -> Vec<f64> {
    let usage = &tree.columns().raw_usage;
    let mut lf = vec![NO_VAL; links.len()];
    for (id, &own) in usage.iter().enumerate().skip(1) {
        lf[id] = if links.is_parent[id] {
            if links.is_user[id] {
                f64::INFINITY
            } else {
                NO_VAL
            }
        } else {
            let s = links.local_share(id);
            if s == 0.0 {
                0.0
            } else {
                let pu = usage[links.fs_parent[id]];
                let u = if pu > 0.0 { own / pu } else { 0.0 };
                s / u
            }
        };
    }
    lf
}

/// One sibling array being walked.
struct Frame {
    /// Either a node's (sorted) fs children or a merged list (merge_ties only).
    items: Items,
    i: usize,
    prev: f64,
    account_tied: bool,
}

enum Items {
    Children(NodeId),
    Merged(Vec<NodeId>),
}

/// Ranks every user association (`_calc_tree_fs`, iteratively: depth is unbounded input);
/// returns F = rank / N per node (NaN for accounts). Sorts `links`' children lists in place.
pub(crate) fn rank_users(links: &mut Links, lf: &[f64], merge_ties: bool) -> Vec<f64> {
    let n = links.len();
    links.sort_children(lf);
    let links = &*links;
    let is_user = &links.is_user;
    let total = links.user_count as f64;
    let mut fs = vec![f64::NAN; n];
    let mut rank = links.user_count;
    let mut rnt = links.user_count;
    let mut stack = vec![Frame {
        items: Items::Children(0),
        i: 0,
        prev: NO_VAL,
        account_tied: false,
    }];
    while let Some(frame) = stack.last_mut() {
        let list: &[NodeId] = match &frame.items {
            Items::Children(p) => links.children(*p),
            Items::Merged(v) => v,
        };
        let Some(&id) = list.get(frame.i) else {
            stack.pop();
            continue;
        };
        let tied = if frame.i == 0 && frame.account_tied {
            true
        } else {
            frame.prev == lf[id]
        };
        frame.prev = lf[id];
        if is_user[id] {
            if !tied {
                rank = rnt;
            }
            fs[id] = rank as f64 / total;
            rnt = rnt.saturating_sub(1);
            frame.i += 1;
            continue;
        }
        let items = if merge_ties {
            // Documented rule 3: this account and the following sibling accounts with the
            // same Level FS descend together, their children merged and sorted as one list.
            let tied_accounts = list
                .get(frame.i + 1..)
                .unwrap_or(&[])
                .iter()
                .take_while(|&&s| !is_user[s] && lf[s] == lf[id])
                .count();
            let mut merged = Vec::new();
            for &acct in list.get(frame.i..=frame.i + tied_accounts).unwrap_or(&[]) {
                merged.extend_from_slice(links.children(acct));
            }
            SiblingSort::default().sort(&mut merged, lf, is_user);
            frame.i += 1 + tied_accounts;
            Items::Merged(merged)
        } else {
            frame.i += 1;
            Items::Children(id)
        };
        stack.push(Frame {
            items,
            i: 0,
            prev: NO_VAL,
            account_tied: tied,
        });
    }
    fs
}

/// Runs Fair Tree over the whole tree.
pub(crate) fn compute(tree: &Tree, merge_ties: bool) -> ShareResult {
    let mut links = Links::new(tree);
    let mut lf = level_fs(tree, &links);
    let mut fs = rank_users(&mut links, &lf, merge_ties);
    let n = links.len();
    let norm_shares: Vec<f64> = (0..n).map(|id| shares(&links, id)).collect();
    let effective: Vec<f64> = (0..n).map(|id| usage(tree, &links, id)).collect();
    for id in 0..n {
        if id == 0 || !links.is_user[id] {
            fs[id] = BLANK;
        }
        // sshare hides a `parent` association's Level FS (and the root's).
        if id == 0 || links.is_parent[id] {
            lf[id] = BLANK;
        }
    }
    let mut result =
        crate::fairshare::slurm::result(Algorithm::FairTree, links, norm_shares, effective, fs);
    result.set_column(Column::LevelFs, lf);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::slurm::testtrees::{id, t1, t1h, t2, ties, TOL};
    use approx::assert_abs_diff_eq;

    /// Table 3: every printed column of the official test24.4 output.
    #[test]
    fn table3_t2_all_rows() {
        let t = t2();
        let r = compute(&t, false);
        let inf = f64::INFINITY;
        // name, NormShares, NormUsage, EffectvUsage, FairShare (None = blank), LevelFS.
        type Row = (&'static str, f64, f64, f64, Option<f64>, Option<f64>);
        let rows: [Row; 34] = [
            ("u1", 0.048077, 0.0, 0.0, Some(1.0), Some(inf)),
            (
                "u2",
                0.048077,
                0.041667,
                0.041667,
                Some(0.666667),
                Some(1.153846),
            ),
            ("aA", 0.192308, 0.1875, 0.1875, None, Some(1.025641)),
            ("aAA", 0.75, 0.083333, 0.444444, None, Some(1.6875)),
            ("uAA1", 1.0, 0.083333, 1.0, Some(0.619048), Some(1.0)),
            ("aAB", 0.25, 0.104167, 0.555556, None, Some(0.45)),
            ("uAB1", 0.5, 0.104167, 1.0, Some(0.523810), Some(0.5)),
            ("uAB2", 0.5, 0.0, 0.0, Some(0.571429), Some(inf)),
            ("aB", 0.288462, 0.104167, 0.104167, None, Some(2.769231)),
            ("aBA", 0.416667, 0.104167, 1.0, None, Some(0.416667)),
            ("uBA1", 1.0, 0.104167, 1.0, Some(0.714286), Some(1.0)),
            ("aBB", 0.583333, 0.0, 0.0, None, Some(inf)),
            ("uBB1", 1.0, 0.0, 0.0, Some(0.761905), Some(inf)),
            ("aC", 0.0, 0.125, 0.125, None, Some(0.0)),
            ("uC1", 0.0, 0.125, 1.0, Some(0.047619), Some(0.0)),
            ("aD", 0.240385, 0.458333, 0.458333, None, Some(0.524476)),
            ("uD1", 0.240385, 0.083333, 0.181818, Some(0.476190), None),
            (
                "uD2",
                0.235294,
                0.083333,
                0.181818,
                Some(0.238095),
                Some(1.294118),
            ),
            (
                "uD3",
                0.294118,
                0.104167,
                0.227273,
                Some(0.333333),
                Some(1.294118),
            ),
            ("aDA", 0.240385, 0.1875, 0.409091, None, None),
            ("uDA1", 0.240385, 0.041667, 0.090909, Some(0.476190), None),
            (
                "uDA2",
                0.176471,
                0.041667,
                0.090909,
                Some(0.380952),
                Some(1.941176),
            ),
            (
                "uDA3",
                0.294118,
                0.104167,
                0.227273,
                Some(0.333333),
                Some(1.294118),
            ),
            ("aE", 0.048077, 0.0, 0.0, None, Some(inf)),
            ("aE1", 0.5, 0.0, 0.0, Some(1.0), Some(inf)),
            ("aE2", 0.5, 0.0, 0.0, Some(1.0), Some(inf)),
            ("aF", 0.096154, 0.0, 0.0, None, Some(inf)),
            ("uF1", 0.333333, 0.0, 0.0, Some(1.0), Some(inf)),
            ("uF2", 0.666667, 0.0, 0.0, Some(1.0), Some(inf)),
            ("aG", 0.038462, 0.083333, 0.083333, None, Some(0.461538)),
            ("uG1", 0.5, 0.041667, 0.5, Some(0.190476), Some(1.0)),
            ("aGA", 0.5, 0.041667, 0.5, None, Some(1.0)),
            ("uGA1", 0.5, 0.016667, 0.4, Some(0.190476), Some(1.25)),
            ("uGA2", 0.5, 0.025, 0.6, Some(0.095238), Some(0.833333)),
        ];
        for (name, ns, nu, eu, fsv, lf) in rows {
            let row = r.row(id(&t, name));
            assert_abs_diff_eq!(row.norm_shares.unwrap(), ns, epsilon = TOL);
            assert_abs_diff_eq!(row.norm_usage.unwrap(), nu, epsilon = TOL);
            assert_abs_diff_eq!(row.effective_usage.unwrap(), eu, epsilon = TOL);
            match (row.fairshare, fsv) {
                (Some(g), Some(w)) => assert_abs_diff_eq!(g, w, epsilon = TOL),
                (g, w) => assert_eq!(g, w, "{name} FairShare"),
            }
            match (row.level_fs, lf) {
                (Some(g), Some(w)) if w.is_infinite() => assert_eq!(g, w, "{name}"),
                (Some(g), Some(w)) => assert_abs_diff_eq!(g, w, epsilon = TOL),
                (g, w) => assert_eq!(g, w, "{name} LevelFS"),
            }
        }
        let root = r.row(0);
        assert_eq!(
            (root.norm_shares, root.norm_usage, root.effective_usage),
            (Some(0.0), None, Some(1.0))
        );
        assert_eq!((root.fairshare, root.level_fs), (None, None));
    }

    /// uD2 and uD3 are both 22/17 exactly but round apart; Slurm (and f64) rank uD3 higher.
    #[test]
    fn exact_rational_ties_break_by_rounding_as_in_slurm() {
        let t = t2();
        let r = compute(&t, false);
        let lf = |n: &str| r.row(id(&t, n)).level_fs.unwrap();
        assert!(lf("uD2") < lf("uD3"));
        assert_eq!(r.row(id(&t, "uD2")).fairshare, Some(5.0 / 21.0));
        assert_eq!(r.row(id(&t, "uD3")).fairshare, Some(7.0 / 21.0));
    }

    #[test]
    fn table4_t1_and_t1h() {
        let t = t1();
        let r = compute(&t, false);
        for (name, f) in [
            ("User1", 0.666667),
            ("User2", 0.333333),
            ("User3", 0.5),
            ("User4", 0.833333),
            ("User5", 1.0),
            ("User6", 0.166667),
        ] {
            assert_abs_diff_eq!(r.row(id(&t, name)).fairshare.unwrap(), f, epsilon = TOL);
        }
        for (name, lf) in [
            ("AccountA", 0.888889),
            ("AccountB", 1.6875),
            ("AccountC", 0.45),
            ("AccountD", 2.4),
            ("AccountE", 0.416667),
            ("AccountG", 0.0),
        ] {
            assert_abs_diff_eq!(r.row(id(&t, name)).level_fs.unwrap(), lf, epsilon = TOL);
        }
        assert_eq!(r.row(id(&t, "AccountF")).level_fs, Some(f64::INFINITY));

        let t = t1h();
        let r = compute(&t, false);
        for (name, f) in [
            ("User1", 0.833333),
            ("User2", 0.666667),
            ("User3", 0.75),
            ("User4", 0.916667),
            ("User5", 1.0),
            ("User6", 0.083333),
            ("UHRA1", 0.583333),
            ("UHRA2", 0.166667),
            ("UHRA3", 0.333333),
            ("UHTAStd1", 0.583333),
            ("UHTAStd2", 0.416667),
            ("UHTAStd3", 0.333333),
        ] {
            assert_abs_diff_eq!(r.row(id(&t, name)).fairshare.unwrap(), f, epsilon = TOL);
        }
        assert_abs_diff_eq!(
            r.row(id(&t, "AccountH")).level_fs.unwrap(),
            0.636364,
            epsilon = TOL
        );
    }

    #[test]
    fn table7_tied_accounts_real_walk_and_documented_merge() {
        let t = ties();
        let f = |r: &ShareResult, n: &str| r.row(id(&t, n)).fairshare.unwrap();
        let real = compute(&t, false);
        assert_eq!(
            ["a1", "a2", "b1", "b2"].map(|n| f(&real, n)),
            [1.0, 0.75, 0.75, 0.75]
        );
        let merged = compute(&t, true);
        assert_eq!(
            ["a1", "a2", "b1", "b2"].map(|n| f(&merged, n)),
            [1.0, 0.25, 0.75, 0.75]
        );
        assert_abs_diff_eq!(
            real.row(id(&t, "a2")).level_fs.unwrap(),
            0.666667,
            epsilon = TOL
        );
    }
}
