//! flux-accounting's weighted walk (seed 002, flux.md §1), as the C++ `flux
//! account-update-fshare` computes it: sibling weights (shares/S)/(usage/U), zero shares → 0,
//! zero usage → 2^64, sort by weight with "user before bank" on `is_equal` ties, the tie-aware
//! walk that merges tied sibling banks into a virtual bank, and fairshare = rank/N.
//!
//! One documented difference is an option: the C++ truncates the sibling usage sum U to an
//! integer after every addition (its accumulator is a `uint64_t` pair). With integer usages
//! (what flux-accounting's database normally holds) that changes nothing; with fractional
//! usages it does. fairsort sums exactly by default and truncates with `Options.flux_compat`
//! (`--flux-compat`), which reproduces the C++ bit for bit on fractional usages too.

use crate::fairshare::algorithm::{Algorithm, Options};
use crate::fairshare::key_sort::SiblingSort;
use crate::fairshare::node::NodeId;
use crate::fairshare::node_columns::NodeColumns;
use crate::fairshare::result::{Column, ShareError, ShareResult, BLANK};
use crate::fairshare::spec::Shares;
use crate::fairshare::tree::Tree;

/// The weight of a zero-usage node with shares: `(double)UINT64_MAX + 1.0` (= 2^64).
pub const MAX_WEIGHT: f64 = 18_446_744_073_709_551_616.0;

/// Usage below this counts as zero (flux.md §1.2).
const ZERO_USAGE: f64 = 1e-9;

/// flux's `is_equal`: |a−b| < DBL_EPSILON × max(|a|, |b|, 1).
pub(crate) fn is_equal(a: f64, b: f64) -> bool {
    (a - b).abs() < f64::EPSILON * a.abs().max(b.abs()).max(1.0)
}

/// Shares as flux counts them (`parent` is a Slurm notion: 0 shares here).
fn shares(s: Shares) -> u64 {
    match s {
        Shares::Count(c) => c,
        Shares::Parent => 0,
    }
}

/// Sets the weight of every child in `kids` (one parent's children) against its siblings
/// (`calc_set_children_weight`).
fn set_children_weights(cols: &NodeColumns, kids: &[NodeId], compat: bool, weight: &mut [f64]) {
    let mut s_sum: u64 = 0;
    let mut u_sum = 0.0f64;
    let mut u_trunc: u64 = 0;
    for &c in kids {
        let usage = cols.raw_usage[c];
        s_sum = s_sum.wrapping_add(shares(cols.shares[c]));
        u_sum += usage;
        // C++: uint64 + double → double, stored back into a uint64 (truncation).
        u_trunc = (u_trunc as f64 + usage) as u64;
    }
    let u_total = if compat { u_trunc as f64 } else { u_sum };
    for &c in kids {
        let usage = cols.raw_usage[c];
        let sh = shares(cols.shares[c]);
        weight[c] = if sh == 0 {
            0.0
        } else if usage.abs() < ZERO_USAGE {
            MAX_WEIGHT
        } else {
            let s_w = sh as f64 / s_sum as f64;
            let u_w = usage / u_total;
            s_w / u_w
        };
    }
}

/// Sorts nodes by weight, descending; on `is_equal` weights a user comes before a bank
/// (`sort_weighted_children`). Done as a total order (exact weight, then users first, then list
/// order) followed by a pass that puts users first inside each run of `is_equal` neighbours, so
/// the result is what the C++ comparator asks for without relying on it being transitive.
fn sort_weighted(sorter: &mut SiblingSort, list: &mut [NodeId], is_user: &[bool], weight: &[f64]) {
    sorter.sort(list, weight, is_user);
    users_first_in_ties(list, is_user, weight);
}

/// Inside each run of `is_equal` neighbours, users before banks (stable).
fn users_first_in_ties(list: &mut [NodeId], is_user: &[bool], weight: &[f64]) {
    let mut start = 0;
    while start < list.len() {
        let mut end = start + 1;
        while end < list.len() && is_equal(weight[list[end - 1]], weight[list[end]]) {
            end += 1;
        }
        if end - start > 1 {
            // Stable: users keep their order, banks keep theirs.
            list[start..end].sort_by_key(|&id| !is_user[id]);
        }
        start = end;
    }
}

/// Every node's children sorted by weight, in one flat vector: the children of `id` are
/// `list[start[id]..start[id + 1]]`.
struct SortedChildren {
    start: Vec<usize>,
    list: Vec<NodeId>,
}

impl SortedChildren {
    /// Every node's children in ascending id (= input) order, from the parent column
    /// (parents have smaller ids than their children; the root is its own parent).
    fn of_parents(parent: &[NodeId]) -> SortedChildren {
        let n = parent.len();
        let mut start = vec![0usize; n + 1];
        for &p in parent.iter().skip(1) {
            if let Some(c) = start.get_mut(p) {
                *c += 1;
            }
        }
        // Inclusive prefix sums make start[p] the end of p's list; placing ids backwards
        // leaves it at the start.
        for i in 1..=n {
            start[i] += start[i - 1];
        }
        let mut list = vec![0; n.saturating_sub(1)];
        for (id, &p) in parent.iter().enumerate().skip(1).rev() {
            if let Some(c) = start.get_mut(p) {
                *c -= 1;
                if let Some(slot) = list.get_mut(*c) {
                    *slot = id;
                }
            }
        }
        SortedChildren { start, list }
    }

    /// The bounds of `id`'s list in `list` (empty for an unknown id).
    fn range(&self, id: NodeId) -> (usize, usize) {
        match (self.start.get(id), self.start.get(id + 1)) {
            (Some(&a), Some(&b)) => (a, b),
            _ => (0, 0),
        }
    }

    fn of(&self, id: NodeId) -> &[NodeId] {
        match (self.start.get(id), self.start.get(id + 1)) {
            (Some(&a), Some(&b)) => self.list.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// A list being walked: a node's sorted children, or the merged children of a run of tied
/// sibling banks (`build_tie_aware_children`'s virtual bank), re-sorted by their own weights.
enum List {
    Children(NodeId),
    Merged(Vec<NodeId>),
}

/// `is_equal` neighbours of the same type (user/bank) at `j` and `j + 1`.
fn tied_with_next(items: &[NodeId], j: usize, is_user: &[bool], weight: &[f64]) -> bool {
    match (items.get(j), items.get(j + 1)) {
        (Some(&a), Some(&b)) => is_user[a] == is_user[b] && is_equal(weight[a], weight[b]),
        _ => false,
    }
}

/// The weighted walk over `tree`: `weight` on every node but the root, `fairshare` = rank/N on
/// user associations, plus `norm_shares`/`norm_usage` as flux's `bank-info` prints them
/// (shares over same-type siblings times the parent's; usage over the root's).
pub fn compute(tree: &Tree, opts: &Options) -> Result<ShareResult, ShareError> {
    let cols = tree.columns();
    let len = cols.len();
    let is_user = &cols.is_user;
    let mut weight = vec![0.0f64; len];
    let mut sorter = SiblingSort::default();
    let mut sorted = SortedChildren::of_parents(&cols.parent);
    for id in 0..len {
        let (from, to) = sorted.range(id);
        let Some(kids) = sorted.list.get_mut(from..to) else {
            continue;
        };
        if kids.is_empty() {
            continue;
        }
        set_children_weights(cols, kids, opts.flux_compat, &mut weight);
        sort_weighted(&mut sorter, kids, is_user, &weight);
    }

    let n_users = is_user.iter().filter(|&&u| u).count() as u64;
    let mut fairshare = vec![BLANK; len];
    let mut rank = n_users;
    let mut stride = 0u64;
    // Depth-first over the tie-aware lists (`build_tie_aware_children`, walked in place),
    // with an explicit stack (depth is unbounded input).
    let mut stack: Vec<(List, usize)> = vec![(List::Children(tree.root()), 0)];
    while let Some((list, i)) = stack.last_mut() {
        let items: &[NodeId] = match list {
            List::Children(p) => sorted.of(*p),
            List::Merged(v) => v,
        };
        let Some(&id) = items.get(*i) else {
            stack.pop();
            continue;
        };
        if is_user[id] {
            fairshare[id] = rank as f64 / n_users as f64;
            if tied_with_next(items, *i, is_user, &weight) {
                stride += 1;
            } else {
                rank = rank.saturating_sub(1 + stride);
                stride = 0;
            }
            *i += 1;
            continue;
        }
        // A bank, and the run of banks tied with it one after the other.
        let mut end = *i;
        while tied_with_next(items, end, is_user, &weight) {
            end += 1;
        }
        let next = if end == *i {
            List::Children(id)
        } else {
            let mut merged = Vec::new();
            for &bank in items.get(*i..=end).unwrap_or(&[]) {
                merged.extend_from_slice(sorted.of(bank));
            }
            sort_weighted(&mut sorter, &mut merged, is_user, &weight);
            List::Merged(merged)
        };
        *i = end + 1;
        stack.push((next, 0));
    }

    let root = tree.root();
    let root_usage = cols.raw_usage.get(root).copied().unwrap_or(0.0);
    let norm_usage: Vec<f64> = cols
        .raw_usage
        .iter()
        .map(|&u| {
            if root_usage > 0.0 {
                u / root_usage
            } else {
                0.0
            }
        })
        .collect();
    // Shares over same-type siblings times the parent's (parents have smaller ids).
    let mut norm_shares = vec![0.0f64; len];
    if let Some(r) = norm_shares.get_mut(root) {
        *r = 1.0;
    }
    for id in 0..len {
        let kids = sorted.of(id);
        if kids.is_empty() {
            continue;
        }
        let parent_norm = norm_shares[id];
        let (mut user_sum, mut bank_sum) = (0u64, 0u64);
        for &c in kids {
            let s = shares(cols.shares[c]);
            if is_user[c] {
                user_sum = user_sum.saturating_add(s);
            } else {
                bank_sum = bank_sum.saturating_add(s);
            }
        }
        for &c in kids {
            let sum = if is_user[c] { user_sum } else { bank_sum };
            norm_shares[c] = if sum == 0 {
                0.0
            } else {
                shares(cols.shares[c]) as f64 / sum as f64 * parent_norm
            };
        }
    }
    if let Some(w) = weight.get_mut(root) {
        *w = BLANK;
    }
    let mut result = ShareResult::new(Algorithm::Flux, len);
    result.set_column(Column::NormShares, norm_shares);
    result.set_column(Column::NormUsage, norm_usage);
    result.set_column(Column::Fairshare, fairshare);
    result.set_column(Column::Weight, weight);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_equal_is_relative_above_one_and_absolute_below() {
        assert!(is_equal(0.1081081081081081, 0.10810810810810811));
        assert!(!is_equal(0.1, 0.1 + 1e-15));
        assert!(is_equal(1e20, 1e20 + 1e4));
        assert!(is_equal(MAX_WEIGHT, u64::MAX as f64 + 1.0));
    }
}
