//! `Links`: what every Slurm algorithm needs before it starts — the "fs parent" of each
//! association (Slurm's `fs_assoc_ptr`, which skips `FairShare=parent` accounts), the children
//! lists under that re-parenting, `level_shares` and the global normalised usage.
//! (slurm.md §0; `assoc_mgr.c:_set_assoc_parent_and_user`, `_get_children_level_shares`.)

use crate::fairshare::key_sort::SiblingSort;
use crate::fairshare::{NodeId, Shares, Tree};
use crate::parallel::PARALLEL_MIN_JOBS;

/// Per-node arrays indexed by `NodeId`, built in O(n) with one pass over the tree's nodes and
/// no per-node allocation (a pass over 1M users is dominated by memory traffic).
#[derive(Debug, Clone)]
pub(crate) struct Links {
    /// The fs parent: the nearest ancestor whose shares are not `parent` (root: 0, itself).
    pub fs_parent: Vec<NodeId>,
    /// Own shares are `parent` (never true for the root).
    pub is_parent: Vec<bool>,
    /// The node is a user association.
    pub is_user: Vec<bool>,
    /// `shares_raw` as a float; 0 for `parent` nodes (they add nothing to `level_shares`).
    pub raw_shares: Vec<f64>,
    /// Sum of `raw_shares` over each node's fs children (its children's `level_shares`).
    child_shares: Vec<f64>,
    /// `usage_raw / usage_raw(root)`, clamped to <= 1; 0 when the root has no usage.
    pub usage_norm: Vec<f64>,
    /// Offsets into `child_list` (len n + 1): fs children of node `p` are
    /// `child_list[child_start[p]..child_start[p + 1]]`, in tree order.
    child_start: Vec<usize>,
    child_list: Vec<NodeId>,
    /// Number of user associations (Slurm's `g_user_assoc_count`).
    pub user_count: usize,
    /// Whether any node has `parent` shares.
    any_parent: bool,
}

impl Links {
    /// Computes the links of a tree. Relies on `Tree`'s guarantees that a child's id is larger
    /// than its parent's (one ascending pass is a top-down walk) and that the children of a
    /// node have consecutive ids in input order.
    pub fn new(tree: &Tree) -> Links {
        let nodes = tree.nodes();
        let cols = tree.columns();
        let n = cols.len();
        let root_usage = cols.raw_usage.first().copied().unwrap_or(0.0);
        let mut fs_parent = vec![0; n];
        let mut is_parent = vec![false; n];
        let is_user = cols.is_user.clone();
        let mut raw_shares = vec![0.0; n];
        let mut usage_norm = vec![0.0; n];
        let mut child_shares = vec![0.0; n];
        let mut child_start = vec![0usize; n + 1];
        let user_count = is_user.iter().filter(|&&u| u).count();
        let mut reparented = false;
        if root_usage > 0.0 {
            for (norm, &u) in usage_norm.iter_mut().zip(&cols.raw_usage) {
                *norm = (u / root_usage).min(1.0);
            }
        }
        // Parents have smaller ids than their children: one ascending pass is top-down.
        for id in 1..n {
            let p = cols.parent[id];
            let fp = if is_parent[p] {
                reparented = true;
                fs_parent[p]
            } else {
                p
            };
            fs_parent[id] = fp;
            match cols.shares[id] {
                Shares::Parent => is_parent[id] = true,
                Shares::Count(c) => {
                    raw_shares[id] = c as f64;
                    child_shares[fp] += c as f64;
                }
            }
            child_start[fp] += 1;
        }
        // Inclusive prefix sums make child_start[p] the end of p's list; placing ids backwards
        // then leaves it at the start, with each list in ascending id (input) order.
        for i in 1..=n {
            child_start[i] += child_start[i - 1];
        }
        let mut child_list = vec![0; child_start[n]];
        for (id, &fp) in fs_parent.iter().enumerate().skip(1).rev() {
            child_start[fp] -= 1;
            child_list[child_start[fp]] = id;
        }
        if reparented {
            // Children of `parent` accounts join their fs parent's list where their account
            // stands (tree order), not after the direct children.
            let mut stack: Vec<NodeId> = Vec::new();
            for (p, node) in nodes.iter().enumerate() {
                if p != 0 && is_parent[p] {
                    continue;
                }
                let mut slot = child_start[p];
                stack.extend(node.children.iter().rev());
                while let Some(c) = stack.pop() {
                    if let Some(x) = child_list.get_mut(slot) {
                        *x = c;
                    }
                    slot += 1;
                    if is_parent[c] {
                        stack.extend(nodes[c].children.iter().rev());
                    }
                }
            }
        }
        let any_parent = is_parent.iter().any(|&p| p);
        Links {
            fs_parent,
            is_parent,
            is_user,
            raw_shares,
            child_shares,
            usage_norm,
            child_start,
            child_list,
            user_count,
            any_parent,
        }
    }

    /// Whether any node has `parent` shares (most trees have none: callers skip their fix-ups).
    pub fn any_parent(&self) -> bool {
        self.any_parent
    }

    /// Consumes the links, keeping only the normalised usage (it becomes a result column).
    pub fn into_usage_norm(self) -> Vec<f64> {
        self.usage_norm
    }

    /// The fs children of `p` (its children list after `parent` re-parenting).
    pub fn children(&self, p: NodeId) -> &[NodeId] {
        match (self.child_start.get(p), self.child_start.get(p + 1)) {
            (Some(&a), Some(&b)) => self.child_list.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Sorts every fs children list by `value` descending, users first on equal values,
    /// otherwise in tree order (Fair Tree's sibling order). A large tree's lists are sorted in
    /// parts of whole lists (cut at the list boundaries nearest to even shares of the entries)
    /// on every worker.
    pub fn sort_children(&mut self, value: &[f64]) {
        let total = self.child_list.len();
        let starts = &self.child_start;
        let is_user = &self.is_user;
        let mut cuts = vec![0];
        for r in crate::parallel::ranges(total, PARALLEL_MIN_JOBS, 1)
            .iter()
            .skip(1)
        {
            let at = starts.get(starts.partition_point(|&s| s < r.start));
            let cut = at.copied().unwrap_or(total).min(total);
            if cuts.last().is_some_and(|&c| cut > c) {
                cuts.push(cut);
            }
        }
        cuts.push(total);
        cuts.dedup();
        let ranges: Vec<_> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
        let parts = crate::parallel::split_mut(&mut self.child_list, &ranges);
        let parts: Vec<_> = ranges.iter().map(|r| r.start).zip(parts).collect();
        crate::parallel::run_parts(parts, |(offset, list)| {
            // The lists inside the part: those starting from `offset` up to its end.
            let end = offset + list.len();
            let first = starts.partition_point(|&s| s < offset);
            let last = starts.partition_point(|&s| s <= end);
            let starts = starts.get(first..last).unwrap_or_default();
            sort_lists(list, offset, starts, value, is_user);
        });
    }

    /// Number of nodes, root included.
    pub fn len(&self) -> usize {
        self.fs_parent.len()
    }

    /// `level_shares` of a node: the raw shares of all its fs siblings, itself included
    /// (the root's: its own raw shares, which nothing uses).
    pub fn level_shares(&self, id: NodeId) -> f64 {
        if id == 0 {
            return self.raw_shares[0];
        }
        self.child_shares[self.fs_parent[id]]
    }

    /// `shares_raw / level_shares`, 0 when no sibling has shares (a `parent` node gives 0 here;
    /// callers substitute the fs parent's values).
    pub fn local_share(&self, id: NodeId) -> f64 {
        let l = self.level_shares(id);
        if l > 0.0 {
            self.raw_shares[id] / l
        } else {
            0.0
        }
    }

    /// Classic normalised shares S: the product of local shares up the fs-parent chain
    /// (`_normalize_assoc_shares_traditional`); a `parent` node takes its fs parent's S; root 1.
    pub fn classic_norm_shares(&self) -> Vec<f64> {
        let n = self.len();
        let mut s = vec![0.0; n];
        if n > 0 {
            s[0] = 1.0;
        }
        for id in 1..n {
            let fp = self.fs_parent[id];
            s[id] = if self.is_parent[id] {
                s[fp]
            } else {
                self.local_share(id) * s[fp]
            };
        }
        s
    }
}

/// Sorts the children lists that lie within `list`, the part of the flat children vector that
/// starts at `offset` (lists never straddle its ends).
fn sort_lists(
    list: &mut [NodeId],
    offset: usize,
    starts: &[usize],
    value: &[f64],
    is_user: &[bool],
) {
    let mut sorter = SiblingSort::default();
    let end = offset + list.len();
    for w in starts.windows(2) {
        let (a, b) = (w[0], w[1]);
        if b - a < 2 || a < offset || b > end {
            continue;
        }
        if let Some(seg) = list.get_mut(a - offset..b - offset) {
            sorter.sort(seg, value, is_user);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::slurm::testtrees::{t1, t2};

    #[test]
    fn the_sort_in_parts_equals_one_thread_sort_on_a_large_tree() {
        use crate::fairshare::slurm::testtrees::{acct, build, user};
        let mut nodes = Vec::new();
        let mut x: u64 = 7;
        for a in 0..7 {
            nodes.push(acct(&format!("a{a}"), "root", 1 + a));
            // Uneven list lengths, so the cut falls between lists of different sizes.
            for u in 0..(4_000 + 3_000 * a) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                nodes.push(user(
                    &format!("u{u}"),
                    &format!("a{a}"),
                    1 + (x % 5) as i64,
                    (x % 7) as f64,
                ));
            }
        }
        let tree = build(nodes);
        assert!(tree.len() > PARALLEL_MIN_JOBS);
        // Few distinct values: many ties, so stability matters.
        let value: Vec<f64> = (0..tree.len()).map(|i| ((i * 7919) % 13) as f64).collect();
        let mut parallel = Links::new(&tree);
        parallel.sort_children(&value);
        let mut serial = Links::new(&tree);
        let starts = serial.child_start.clone();
        let is_user = serial.is_user.clone();
        sort_lists(&mut serial.child_list, 0, &starts, &value, &is_user);
        assert_eq!(parallel.child_list, serial.child_list);
        for id in 0..tree.len() {
            let kids = parallel.children(id);
            assert!(kids.windows(2).all(|w| value[w[0]] >= value[w[1]]));
        }
    }

    #[test]
    fn parent_accounts_hand_their_children_to_the_grandparent() {
        let t = t2();
        let l = Links::new(&t);
        let ad = t.find_account("aD").unwrap();
        let ada = t.find_account("aDA").unwrap();
        let names: Vec<&str> = l
            .children(ad)
            .iter()
            .map(|&c| t.node(c).name.as_str())
            .collect();
        assert_eq!(names, ["aDA", "uDA1", "uDA2", "uDA3", "uD1", "uD2", "uD3"]);
        assert!(l.children(ada).is_empty());
        let uda2 = t.find_user(Some("aDA"), "uDA2").unwrap();
        assert_eq!(l.fs_parent[uda2], ad);
        assert_eq!(l.level_shares(uda2), 170.0);
        assert_eq!(l.level_shares(ad), 208.0);
        assert_eq!(l.user_count, 21);
    }

    #[test]
    fn classic_shares_multiply_down_the_tree() {
        let t = t1();
        let l = Links::new(&t);
        let s = l.classic_norm_shares();
        let u2 = t.find_user(Some("AccountC"), "User2").unwrap();
        assert!((s[u2] - 0.05).abs() < 1e-12);
        assert!((l.usage_norm[u2] - 0.25).abs() < 1e-12);
    }
}
