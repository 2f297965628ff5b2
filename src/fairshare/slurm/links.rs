//! `Links`: what every Slurm algorithm needs before it starts — the "fs parent" of each
//! association (Slurm's `fs_assoc_ptr`, which skips `FairShare=parent` accounts), the children
//! lists under that re-parenting, `level_shares` and the global normalised usage.
//! (slurm.md §0; `assoc_mgr.c:_set_assoc_parent_and_user`, `_get_children_level_shares`.)

use crate::fairshare::{NodeId, Shares, Tree};

/// Per-node arrays indexed by `NodeId`, built in O(n) with no per-node allocation.
#[derive(Debug, Clone)]
pub(crate) struct Links {
    /// The fs parent: the nearest ancestor whose shares are not `parent` (root: 0, itself).
    pub fs_parent: Vec<NodeId>,
    /// Own shares are `parent` (never true for the root).
    pub is_parent: Vec<bool>,
    /// `shares_raw` as a float; 0 for `parent` nodes (they add nothing to `level_shares`).
    pub raw_shares: Vec<f64>,
    /// Sum of `raw_shares` over the fs parent's children list (the same for every sibling).
    pub level_shares: Vec<f64>,
    /// `usage_raw / usage_raw(root)`, clamped to <= 1; 0 when the root has no usage.
    pub usage_norm: Vec<f64>,
    /// Offsets into `child_list` (len n + 1): fs children of node `p` are
    /// `child_list[child_start[p]..child_start[p + 1]]`, in tree (preorder) order.
    child_start: Vec<usize>,
    child_list: Vec<NodeId>,
    /// Number of user associations (Slurm's `g_user_assoc_count`).
    pub user_count: usize,
}

impl Links {
    /// Computes the links of a tree. Relies on `Tree`'s guarantee that a child's id is larger
    /// than its parent's, so one ascending pass is a top-down walk.
    pub fn new(tree: &Tree) -> Links {
        let nodes = tree.nodes();
        let n = nodes.len();
        let mut fs_parent = vec![0; n];
        let mut is_parent = vec![false; n];
        let mut raw_shares = vec![0.0; n];
        let mut user_count = 0;
        for (id, node) in nodes.iter().enumerate().skip(1) {
            let p = node.parent.unwrap_or(0);
            fs_parent[id] = if is_parent[p] { fs_parent[p] } else { p };
            match node.shares {
                Shares::Parent => is_parent[id] = true,
                Shares::Count(c) => raw_shares[id] = c as f64,
            }
            if node.is_user() {
                user_count += 1;
            }
        }
        // Children lists under the fs re-parenting (CSR), and their share sums.
        let mut child_start = vec![0usize; n + 1];
        let mut child_sum = vec![0.0; n];
        for id in 1..n {
            child_start[fs_parent[id] + 1] += 1;
            child_sum[fs_parent[id]] += raw_shares[id];
        }
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        let mut fill = child_start.clone();
        let mut child_list = vec![0; n.saturating_sub(1)];
        // Fill in tree order, so siblings keep their input (sshare lineage) order.
        for id in tree.preorder().into_iter().skip(1) {
            let slot = &mut fill[fs_parent[id]];
            child_list[*slot] = id;
            *slot += 1;
        }
        let mut level_shares = vec![0.0; n];
        for id in 1..n {
            level_shares[id] = child_sum[fs_parent[id]];
        }
        level_shares[0] = raw_shares[0];
        let root_usage = nodes[0].raw_usage;
        let usage_norm = nodes
            .iter()
            .map(|node| {
                if root_usage > 0.0 {
                    (node.raw_usage / root_usage).min(1.0)
                } else {
                    0.0
                }
            })
            .collect();
        Links {
            fs_parent,
            is_parent,
            raw_shares,
            level_shares,
            usage_norm,
            child_start,
            child_list,
            user_count,
        }
    }

    /// The fs children of `p` (its children list after `parent` re-parenting).
    pub fn children(&self, p: NodeId) -> &[NodeId] {
        match (self.child_start.get(p), self.child_start.get(p + 1)) {
            (Some(&a), Some(&b)) => self.child_list.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Number of nodes, root included.
    pub fn len(&self) -> usize {
        self.fs_parent.len()
    }

    /// `shares_raw / level_shares`, 0 when no sibling has shares (a `parent` node gives 0 here;
    /// callers substitute the fs parent's values).
    pub fn local_share(&self, id: NodeId) -> f64 {
        let l = self.level_shares[id];
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::slurm::testtrees::{t1, t2};

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
        assert_eq!(l.level_shares[uda2], 170.0);
        assert_eq!(l.level_shares[ad], 208.0);
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
