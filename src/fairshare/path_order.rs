//! PBS's `compare_path` for many pairs of the same entity nodes: the `fair_share` tie-break of a
//! large queue sorts up to one node per user with it (100 000 entities: ~1.7 million
//! comparisons), and [`crate::fairshare::pbs::compare_path`] builds both root paths and two whole result
//! rows per call. [`PathOrder`] reads each node's `usage / fairshare_perc` and each prepared
//! node's root path once, then compares without allocating — with exactly `compare_path`'s
//! answers.

use crate::fairshare::node::NodeId;
use crate::fairshare::pbs::{compare_path, MIN_USAGE};
use crate::fairshare::result::{Column, ShareResult};
use crate::fairshare::tree::Tree;
use std::cmp::Ordering;

/// Node not prepared (its comparisons go to `compare_path`).
const NONE: u32 = u32::MAX;

/// `compare_path` over a fixed tree and PBS result, prepared for a set of nodes.
#[derive(Debug)]
pub struct PathOrder<'t> {
    tree: &'t Tree,
    result: &'t ShareResult,
    /// Per tree node: `fairshare_perc > 0`.
    positive: Vec<bool>,
    /// Per tree node: `usage / fairshare_perc` (when positive).
    ratio: Vec<f64>,
    /// Per tree node: which prepared path is its own (`NONE`: not prepared).
    slot: Vec<u32>,
    /// Where each prepared path starts in `paths` (one more entry than paths).
    starts: Vec<usize>,
    /// The prepared root-to-node paths, one after the other.
    paths: Vec<NodeId>,
}

/// [`PathOrder::new`] as a free function (generic over the tree's lifetime, as the dry run's
/// engine table needs it).
pub fn prepare<'t>(tree: &'t Tree, result: &'t ShareResult, nodes: &[NodeId]) -> PathOrder<'t> {
    PathOrder::new(tree, result, nodes)
}

impl<'t> PathOrder<'t> {
    /// Prepares comparisons between any of `nodes` (`result` is a PBS result over `tree`).
    pub fn new(tree: &'t Tree, result: &'t ShareResult, nodes: &[NodeId]) -> PathOrder<'t> {
        let n = tree.len();
        let mut positive = vec![false; n];
        let mut ratio = vec![0.0; n];
        for (id, (pos, r)) in positive.iter_mut().zip(&mut ratio).enumerate() {
            let perc = result.get(Column::FairsharePerc, id).unwrap_or(0.0);
            if perc > 0.0 {
                *pos = true;
                *r = result.get(Column::Usage, id).unwrap_or(MIN_USAGE) / perc;
            }
        }
        let mut slot = vec![NONE; n];
        let mut starts = vec![0];
        let mut paths = Vec::new();
        for &node in nodes {
            match slot.get_mut(node) {
                Some(s) if *s == NONE => {
                    let start = paths.len();
                    let mut cur = Some(node);
                    while let Some(c) = cur {
                        paths.push(c);
                        cur = tree.parent(c);
                    }
                    if let Some(p) = paths.get_mut(start..) {
                        p.reverse();
                    }
                    *s = (starts.len() - 1) as u32;
                    starts.push(paths.len());
                }
                _ => {}
            }
        }
        PathOrder {
            tree,
            result,
            positive,
            ratio,
            slot,
            starts,
            paths,
        }
    }

    /// The root-to-node path of a prepared node.
    fn path(&self, node: NodeId) -> Option<&[NodeId]> {
        let s = *self.slot.get(node)? as usize;
        let (&a, &b) = (self.starts.get(s)?, self.starts.get(s + 1)?);
        self.paths.get(a..b)
    }

    /// `compare_path(tree, result, a, b)`.
    pub fn compare(&self, a: NodeId, b: NodeId) -> Ordering {
        let (Some(pa), Some(pb)) = (self.path(a), self.path(b)) else {
            return compare_path(self.tree, self.result, a, b);
        };
        for (&x, &y) in pa.iter().zip(pb) {
            if x == y {
                continue;
            }
            let px = self.positive.get(x).copied().unwrap_or(false);
            let py = self.positive.get(y).copied().unwrap_or(false);
            match (px, py) {
                (false, true) => return Ordering::Greater,
                (true, false) => return Ordering::Less,
                (false, false) => return Ordering::Equal,
                (true, true) => {}
            }
            let vx = self.ratio.get(x).copied().unwrap_or(0.0);
            let vy = self.ratio.get(y).copied().unwrap_or(0.0);
            if vx < vy {
                return Ordering::Less;
            }
            if vy < vx {
                return Ordering::Greater;
            }
        }
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
    use crate::fairshare::{pbs, Options};

    /// A PBS tree of `groups` nested groups (random parents, so depths differ) with users under
    /// random groups or the root; shares 0..3 (zero shares give zero percentages), usages
    /// missing or small (so ties are common).
    fn tree(seed: u64, groups: usize, users: usize) -> Tree {
        let mut x = seed | 1;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let mut nodes = Vec::new();
        for g in 0..groups {
            let parent = match next(3) {
                0 if g > 0 => Some(format!("group{}", next(g as u64))),
                _ => None,
            };
            let mut n = NodeSpec::new(
                format!("group{g}"),
                parent,
                NodeKind::Account,
                Shares::Count(next(4)),
            );
            n.id = Some(g as i64 + 10);
            nodes.push(n);
        }
        for u in 0..users {
            let parent = match next(5) {
                0 => None,
                _ => Some(format!("group{}", next(groups as u64))),
            };
            let mut n = NodeSpec::new(
                format!("user{u}"),
                parent,
                NodeKind::User,
                Shares::Count(next(4)),
            );
            n.id = Some((groups + u) as i64 + 10);
            n.usage = match next(3) {
                0 => None,
                _ => Some(next(4) as f64 * 10.0),
            };
            nodes.push(n);
        }
        Tree::build(TreeSpec {
            source: TreeSource::Pbs,
            root_name: "root".into(),
            root_usage: None,
            unknown_shares: Some(next(2)),
            nodes,
        })
        .unwrap()
    }

    #[test]
    fn answers_as_compare_path_for_every_pair() {
        for seed in 1..40u64 {
            let t = tree(seed * 7919, 1 + (seed as usize % 9), 30);
            let r = pbs::compute(&t, &Options::default()).unwrap();
            // Every node but one prepared (the last goes through compare_path itself).
            let all: Vec<NodeId> = (0..t.len()).collect();
            let prepared = &all[..all.len() - 1];
            let order = PathOrder::new(&t, &r, prepared);
            let mut decided = 0;
            for &a in &all {
                for &b in &all {
                    let want = compare_path(&t, &r, a, b);
                    assert_eq!(order.compare(a, b), want, "seed {seed}: {a} vs {b}");
                    decided += usize::from(want != Ordering::Equal);
                }
            }
            assert!(
                decided > 0,
                "seed {seed}: the trees must not tie everywhere"
            );
        }
    }
}
