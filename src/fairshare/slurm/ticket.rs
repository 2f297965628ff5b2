//! Slurm ticket-based fair share (`PriorityFlags=TICKET_BASED`, 13.12–14.11; seed 003,
//! slurm.md §4), as the 14.11 code does it: F = S / max(U_E, 0.01·S) with
//! U_E = max(U_N, 0.01·s/L) below the first level, then 2³²−1 tickets handed from the root
//! down to *active* associations in proportion to S·F among active siblings (truncated to
//! u32 at each level), and a user's factor = its tickets / the most tickets any user got.
//!
//! Where the seed and the code differ (the seed floors usage at 0.01 × the *global* S), the
//! code is followed; the seed's final example still holds (User2 ≈ 0.25).

use crate::fairshare::result::{Column, BLANK};
use crate::fairshare::slurm::links::Links;
use crate::fairshare::{Algorithm, NodeId, ShareResult, ShareRow, Tree};
use std::collections::HashSet;

/// `MIN_USAGE_FACTOR`.
const MIN_USAGE: f64 = 0.01;

/// F = S / max(U_E, 0.01·S), 0 when S <= 0 (`priority_p_calc_fs_factor`, ticket branch).
pub(crate) fn factor(s: f64, ue: f64) -> f64 {
    if s <= 0.0 {
        0.0
    } else {
        s / ue.max(MIN_USAGE * s)
    }
}

/// Which associations are active: the users named in `active` (a user name for every one of
/// its associations, or `account/user` for one), and every ancestor of an active user.
/// `None` means every user is active.
pub(crate) fn active_nodes(tree: &Tree, active: Option<&HashSet<String>>) -> Vec<bool> {
    let nodes = tree.nodes();
    let mut on = vec![false; nodes.len()];
    match active {
        None => {
            for (id, node) in nodes.iter().enumerate() {
                on[id] = node.is_user();
            }
        }
        Some(set) => {
            // Look the names up (O(|set|)) rather than formatting a label per user.
            for entry in set {
                let ids: &[NodeId] = match entry.split_once('/') {
                    Some((acct, user)) => {
                        match tree
                            .find_account(acct)
                            .and_then(|a| tree.find_user_in(a, user))
                        {
                            Some(id) => {
                                on[id] = true;
                                continue;
                            }
                            None => &[],
                        }
                    }
                    None => tree.users_named(entry),
                };
                for &id in ids {
                    on[id] = true;
                }
            }
        }
    }
    // Children have larger ids than their parents: one descending pass marks ancestors.
    for id in (1..nodes.len()).rev() {
        if on[id] {
            if let Some(p) = nodes[id].parent {
                on[p] = true;
            }
        }
    }
    if let Some(root) = on.first_mut() {
        *root = true;
    }
    on
}

/// Runs the ticket-based algorithm over the whole tree.
pub(crate) fn compute(tree: &Tree, active: Option<&HashSet<String>>) -> ShareResult {
    let links = Links::new(tree);
    let n = links.len();
    let s = links.classic_norm_shares();
    // Effective usage (`_ticket_based_set_usage_efctv`); `parent` nodes take their fs parent's
    // S and U_E (and so its F).
    let mut ue = vec![0.0; n];
    if n > 0 {
        ue[0] = 1.0;
    }
    for id in 1..n {
        let fp = links.fs_parent[id];
        ue[id] = if links.is_parent[id] && fp != 0 {
            ue[fp]
        } else if fp == 0 {
            links.usage_norm[id]
        } else {
            links.usage_norm[id].max(MIN_USAGE * links.local_share(id))
        };
    }
    // S of a node as scored (`classic_norm_shares` already gives `parent` nodes their fs
    // parent's S), and S·F, the weight tickets are split by.
    let weight = |id: NodeId| s[id] * factor(s[id], ue[id]);
    // Tickets, top-down over active fs children (`_distribute_tickets`).
    let on = active_nodes(tree, active);
    let mut sum_sf = vec![0.0; n];
    for id in 1..n {
        if on[id] {
            sum_sf[links.fs_parent[id]] += weight(id);
        }
    }
    let mut tickets = vec![0u32; n];
    if n > 0 {
        tickets[0] = u32::MAX; // the root's 2^32 - 1 tickets
    }
    let mut max_tickets = 0u32;
    for id in 1..n {
        if !on[id] {
            continue;
        }
        let fp = links.fs_parent[id];
        // Evaluated as Slurm does, in double, then truncated to u32; a zero sum (every active
        // sibling has zero shares) divides by zero in Slurm, which yields 0 tickets on x86-64.
        let t = f64::from(tickets[fp]) * s[id] * factor(s[id], ue[id]) / sum_sf[fp];
        tickets[id] = if t.is_finite() { t as u32 } else { 0 };
        if links.is_user[id] {
            max_tickets = max_tickets.max(tickets[id]);
        }
    }
    // A `parent` user's jobs are scored with its fs parent's tickets.
    let fairshare: Vec<f64> = (0..n)
        .map(|id| {
            if id == 0 || !links.is_user[id] {
                return BLANK;
            }
            let fs_assoc = if links.is_parent[id] {
                links.fs_parent[id]
            } else {
                id
            };
            if on[fs_assoc] && max_tickets > 0 {
                f64::from(tickets[fs_assoc]) / f64::from(max_tickets)
            } else {
                0.0
            }
        })
        .collect();
    let tickets: Vec<f64> = tickets.into_iter().map(f64::from).collect();
    let mut result = crate::fairshare::slurm::result(Algorithm::Ticket, links, s, ue, fairshare);
    result.set_column(Column::Tickets, tickets);
    result
}

/// The pre-ticket factor S / max(U_E, 0.01·S) of a row (for `--explain`).
pub(crate) fn row_factor(row: &ShareRow) -> Option<f64> {
    Some(factor(row.norm_shares?, row.effective_usage?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::slurm::testtrees::{id, t1, TOL};
    use approx::assert_abs_diff_eq;

    fn set(names: &[&str]) -> HashSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn table6_factors() {
        let t = t1();
        let r = compute(&t, None);
        for (name, ue, f) in [
            ("AccountA", 0.45, 0.8889),
            ("AccountB", 0.2, 1.5),
            ("AccountC", 0.25, 0.4),
            ("AccountD", 0.25, 2.4),
            ("AccountE", 0.25, 1.0),
            ("AccountF", 0.005833, 60.0),
            ("User1", 0.2, 1.5),
            ("User2", 0.25, 0.2),
            ("User3", 0.005, 10.0),
            ("User4", 0.25, 1.0),
            ("User5", 0.01, 35.0),
            ("User6", 0.3, 0.0),
        ] {
            let row = r.row(id(&t, name));
            assert_abs_diff_eq!(row.effective_usage.unwrap(), ue, epsilon = TOL);
            assert_abs_diff_eq!(row_factor(&row).unwrap(), f, epsilon = 5e-5);
        }
    }

    #[test]
    fn table6_doc_case_user2_user5() {
        let t = t1();
        let active = set(&["User2", "User5"]);
        let r = compute(&t, Some(&active));
        let tk = |n: &str| r.row(id(&t, n)).tickets.unwrap();
        for n in ["AccountA", "AccountC", "User2"] {
            assert_eq!(tk(n), 850_488_573.0, "{n}");
        }
        for n in ["AccountD", "AccountF", "User5"] {
            assert_eq!(tk(n), 3_444_478_721.0, "{n}");
        }
        let f = |n: &str| r.row(id(&t, n)).fairshare.unwrap();
        assert_eq!(f("User5"), 1.0);
        assert_abs_diff_eq!(f("User2"), 0.246914, epsilon = TOL);
        for n in ["User1", "User3", "User4", "User6"] {
            assert_eq!(f(n), 0.0, "{n} is inactive");
            assert_eq!(tk(n), 0.0);
        }
    }

    #[test]
    fn table6_all_active_and_user1_user3() {
        let t = t1();
        let r = compute(&t, None);
        for (name, tickets, f) in [
            ("User1", 781_060_934.0, 0.229457),
            ("User2", 1_361_326.0, 0.000400),
            ("User3", 68_066_311.0, 0.019996),
            ("User4", 40_523_279.0, 0.011905),
            ("User5", 3_403_955_441.0, 1.0),
            ("User6", 0.0, 0.0),
        ] {
            let row = r.row(id(&t, name));
            assert_eq!(row.tickets.unwrap(), tickets, "{name}");
            assert_abs_diff_eq!(row.fairshare.unwrap(), f, epsilon = TOL);
        }
        let active = set(&["AccountB/User1", "User3"]);
        let r = compute(&t, Some(&active));
        let f = |n: &str| r.row(id(&t, n)).fairshare.unwrap();
        assert_eq!(f("User1"), 1.0);
        assert_abs_diff_eq!(f("User3"), 0.088889, epsilon = TOL);
        for n in ["User2", "User4", "User5", "User6"] {
            assert_eq!(f(n), 0.0);
        }
    }
}
