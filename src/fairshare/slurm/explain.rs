//! `notes`: the lines `fairsort share --explain` prints for a Slurm algorithm — the path from
//! the root with each level's numbers, in the terms of that algorithm's documentation.

use crate::fairshare::slurm::depth_oblivious;
use crate::fairshare::slurm::fair_tree::NO_VAL;
use crate::fairshare::slurm::links::Links;
use crate::fairshare::slurm::ticket;
use crate::fairshare::{Algorithm, NodeId, ShareResult, Shares, Tree};

/// Formats a value as sshare does (6 decimals, `inf`), or `-` where sshare prints blank.
fn v(x: Option<f64>) -> String {
    match x {
        Some(x) if x == f64::INFINITY => "inf".to_string(),
        Some(x) => format!("{x:.6}"),
        None => "-".to_string(),
    }
}

fn shares(tree: &Tree, id: NodeId) -> String {
    match tree.node(id).shares {
        Shares::Parent => "parent".to_string(),
        Shares::Count(c) => c.to_string(),
    }
}

/// Explanation lines for `node` under the algorithm that produced `result`.
pub(crate) fn notes(tree: &Tree, result: &ShareResult, node: NodeId) -> Vec<String> {
    if node >= tree.len() || result.len() != tree.len() {
        return Vec::new();
    }
    let links = Links::new(tree);
    let path = tree.path(node);
    let mut out = Vec::new();
    match result.algorithm {
        Algorithm::Classic | Algorithm::DepthOblivious => {
            classic_like(tree, result, &links, &path, &mut out)
        }
        Algorithm::FairTree => fair_tree(tree, result, &links, &path, &mut out),
        Algorithm::Ticket => tickets(tree, result, &links, &path, &mut out),
        Algorithm::Pbs | Algorithm::Flux => {}
    }
    if links.is_parent[node] && node != 0 {
        let fp = links.fs_parent[node];
        out.push(format!(
            "{} has FairShare=parent: it is scored with {}'s values",
            tree.label(node),
            tree.label(fp)
        ));
    }
    out
}

fn level_head(tree: &Tree, links: &Links, id: NodeId) -> String {
    format!(
        "{}{} (shares {} of {})",
        "  ".repeat(tree.node(id).depth.saturating_sub(1)),
        tree.label(id),
        shares(tree, id),
        links.level_shares(id)
    )
}

fn classic_like(
    tree: &Tree,
    result: &ShareResult,
    links: &Links,
    path: &[NodeId],
    out: &mut Vec<String>,
) {
    let depth_oblivious = result.algorithm == Algorithm::DepthOblivious;
    out.push(if depth_oblivious {
        "depth-oblivious: R = R_parent * r_l^k, r_l = (U/S) / (sum of sibling U / S_parent), F = 2^(-R/d)".to_string()
    } else {
        "classic: S = product of shares/level_shares down the path, U_E = U + (U_E_parent - U) * shares/level_shares, F = 2^(-(U_E/S)/d)".to_string()
    });
    let sums = depth_oblivious::sibling_usage(links);
    for &id in path.iter().skip(1) {
        let row = result.row(id);
        let mut line = format!(
            "{}: S {}, U {}, U_E {}, F {}",
            level_head(tree, links, id),
            v(row.norm_shares),
            v(row.norm_usage),
            v(row.effective_usage),
            v(row.fairshare)
        );
        if let (Some(s), Some(ue)) = (row.norm_shares, row.effective_usage) {
            if s > 0.0 {
                line.push_str(&format!(", U_E/S {}", v(Some(ue / s))));
            }
        }
        let fp = links.fs_parent[id];
        if depth_oblivious && fp != 0 && !links.is_parent[id] {
            let p = result.row(fp);
            let step = match (
                row.norm_shares,
                p.norm_shares,
                p.effective_usage,
                row.norm_usage,
            ) {
                (Some(s), Some(sp), Some(uep), Some(u)) => {
                    depth_oblivious::step(s, sp, uep, u, sums[fp])
                }
                _ => None,
            };
            match step {
                Some(st) => line.push_str(&format!(
                    "; r_p {}, r_s {}, r_l {}, k {}",
                    v(Some(st.r_p)),
                    v(Some(st.r_s)),
                    v(Some(st.r_l)),
                    v(Some(st.k))
                )),
                None => line.push_str("; zero usage or shares: U_E = U"),
            }
        }
        out.push(line);
    }
}

fn fair_tree(
    tree: &Tree,
    result: &ShareResult,
    links: &Links,
    path: &[NodeId],
    out: &mut Vec<String>,
) {
    out.push(
        "fair-tree: Level FS = S/U among siblings; siblings are ranked by Level FS (higher first), users are ranked depth-first, F = rank / user associations".to_string(),
    );
    let lf = |id: NodeId| -> f64 {
        let r = result.row(id);
        match r.level_fs {
            Some(x) => x,
            None if links.is_parent[id] && tree.node(id).is_user() => f64::INFINITY,
            None => NO_VAL,
        }
    };
    for &id in path.iter().skip(1) {
        let row = result.row(id);
        let mine = lf(id);
        let siblings = links.children(links.fs_parent[id]);
        // Ahead: a higher Level FS, or an equal one on a user when this is an account
        // (users sort before accounts on ties).
        let me_user = links.is_user[id];
        let mut ahead: Vec<NodeId> = siblings
            .iter()
            .copied()
            .filter(|&s| lf(s) > mine || (lf(s) == mine && links.is_user[s] && !me_user))
            .collect();
        ahead.sort_by(|&a, &b| lf(b).total_cmp(&lf(a)));
        let tied = siblings
            .iter()
            .filter(|&&s| s != id && lf(s) == mine)
            .count();
        let mut line = format!(
            "{}: S {}, U {}, Level FS {} -> {} of {} siblings",
            level_head(tree, links, id),
            v(row.norm_shares),
            v(row.effective_usage),
            v(row.level_fs),
            ahead.len() + 1,
            siblings.len()
        );
        if tied > 0 {
            line.push_str(&format!(" ({tied} tied)"));
        }
        if !ahead.is_empty() {
            let names: Vec<String> = ahead
                .iter()
                .take(3)
                .map(|&a| format!("{} {}", tree.label(a), v(Some(lf(a)))))
                .collect();
            let more = if ahead.len() > 3 { ", ..." } else { "" };
            line.push_str(&format!("; ahead: {}{more}", names.join(", ")));
        }
        out.push(line);
    }
    if let Some(&last) = path.last() {
        if let Some(f) = result.row(last).fairshare {
            let n = links.user_count as f64;
            out.push(format!(
                "rank {} of {} user associations: FairShare {}",
                (f * n).round(),
                links.user_count,
                v(Some(f))
            ));
        }
    }
    out.push(
        "to compare two users, find their first common ancestor and compare the Level FS of the two accounts (or users) just below it".to_string(),
    );
}

fn tickets(
    tree: &Tree,
    result: &ShareResult,
    links: &Links,
    path: &[NodeId],
    out: &mut Vec<String>,
) {
    out.push(
        "ticket: F = S / max(U_E, 0.01*S); tickets split among active siblings by S*F; factor = tickets / most tickets of any user".to_string(),
    );
    for &id in path.iter().skip(1) {
        let row = result.row(id);
        out.push(format!(
            "{}: S {}, U {}, U_E {}, F {}, tickets {}",
            level_head(tree, links, id),
            v(row.norm_shares),
            v(row.norm_usage),
            v(row.effective_usage),
            v(ticket::row_factor(&row)),
            row.tickets
                .map(|t| format!("{t:.0}"))
                .unwrap_or_else(|| "-".into())
        ));
    }
    if let Some(&last) = path.last() {
        if let Some(f) = result.row(last).fairshare {
            out.push(format!(
                "FairShare {} (0 for a user without pending jobs)",
                v(Some(f))
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::slurm::compute;
    use crate::fairshare::slurm::testtrees::t2;
    use crate::fairshare::Options;

    #[test]
    fn fair_tree_notes_name_the_rank_and_the_accounts_ahead() {
        let t = t2();
        let r = compute(&t, Algorithm::FairTree, &Options::default()).unwrap();
        let uga2 = t.find_user(Some("aGA"), "uGA2").unwrap();
        let lines = notes(&t, &r, uga2);
        assert!(
            lines.iter().any(|l| l.starts_with("aG (shares 8 of 208)")
                && l.contains("Level FS 0.461538 -> 8 of 9 siblings")),
            "{lines:#?}"
        );
        assert!(
            lines.iter().any(|l| l.contains("rank 2 of 21")),
            "{lines:#?}"
        );
    }

    #[test]
    fn depth_oblivious_notes_show_the_r_chain() {
        let t = t2();
        let r = compute(&t, Algorithm::DepthOblivious, &Options::default()).unwrap();
        let uda2 = t.find_user(Some("aDA"), "uDA2").unwrap();
        let lines = notes(&t, &r, uda2);
        assert!(lines.iter().any(|l| l.contains("k 0.087626")), "{lines:#?}");
        assert!(lines[0].starts_with("depth-oblivious"), "{lines:#?}");
    }

    #[test]
    fn parent_users_are_explained() {
        let t = t2();
        let r = compute(&t, Algorithm::Classic, &Options::default()).unwrap();
        let ud1 = t.find_user(Some("aD"), "uD1").unwrap();
        let lines = notes(&t, &r, ud1);
        assert_eq!(
            lines.last().map(String::as_str),
            Some("aD/uD1 has FairShare=parent: it is scored with aD's values")
        );
    }
}
