//! The site's share tree in a replay (the home's, or `--tree FILE`): fair share over its shares
//! instead of accounts → users with 1 share each (docs/replay.md, "The site's share tree").
//!
//! Each trace association (account, user) is matched to a leaf once, before the replay:
//! * a PBS tree (`resource_group`): the entity is the user (PBS's default `fairshare_entity`,
//!   `euser`), found anywhere in the tree; a user the tree does not name goes under PBS's
//!   `unknown` group with 1 share, as the PBS scheduler puts it (the group has the tree's
//!   `unknown_shares`, PBS's default 0);
//! * any other tree (Slurm, flux, native): the user under the trace's account; a user missing
//!   under an account the tree has is added there with 1 share, an account the tree lacks is
//!   added under the root with 1 share (fairsort's choice: Slurm with
//!   `AccountingStorageEnforce=associations` would have refused such jobs).
//!
//! The tree's own usage is cleared: the replay charges the trace's jobs from zero.

use super::shares::Entities;
use super::sim::ReplayError;
use crate::fairshare::tree::PBS_UNKNOWN;
use crate::fairshare::{compute, keyword_source, Algorithm, NodeKind, NodeSpec, Options};
use crate::fairshare::{Shares, Tree, TreeSpec};
use rustc_hash::FxHashMap;

/// The site's tree with every trace association matched to a leaf.
#[derive(Debug, Clone)]
pub(crate) struct SiteTree {
    /// The tree as given plus the added leaves, usage cleared.
    spec: TreeSpec,
    /// Per association: the index in `spec.nodes` of its leaf.
    leaf_of: Vec<usize>,
    /// Per association: its tree node id (the same at every build of `spec`).
    ids: Vec<usize>,
    /// Per association: its part of the tree's shares (its leaf's, split evenly among the
    /// associations matched to the same leaf).
    shares: Vec<f64>,
}

fn shares_err(e: impl std::fmt::Display) -> ReplayError {
    ReplayError::Shares(e.to_string())
}

impl SiteTree {
    /// Matches the associations of `e` to leaves of `spec`, adding the missing ones.
    pub(crate) fn new(mut spec: TreeSpec, e: &Entities) -> Result<SiteTree, ReplayError> {
        spec.root_usage = None;
        for n in &mut spec.nodes {
            n.usage = None;
        }
        let pbs = spec.follows_pbs();
        let mut users: FxHashMap<(Option<String>, String), usize> = FxHashMap::default();
        let mut accounts: FxHashMap<String, usize> = FxHashMap::default();
        for (i, n) in spec.nodes.iter().enumerate() {
            match n.kind {
                NodeKind::Account => {
                    accounts.entry(n.name.clone()).or_insert(i);
                }
                NodeKind::User => {
                    let key = if pbs {
                        (None, n.name.clone())
                    } else {
                        (n.parent.clone(), n.name.clone())
                    };
                    users.entry(key).or_insert(i);
                }
            }
        }
        let mut leaf_of = Vec::with_capacity(e.assocs.len());
        for (a, user) in &e.assocs {
            let account = e.accounts.get(*a).cloned().unwrap_or_default();
            let key = if pbs {
                (None, user.clone())
            } else {
                (Some(account.clone()), user.clone())
            };
            let leaf = match users.get(&key) {
                Some(&i) => i,
                None => {
                    let parent = if pbs {
                        PBS_UNKNOWN.to_string()
                    } else {
                        if !accounts.contains_key(&account) {
                            spec.nodes.push(NodeSpec::new(
                                account.clone(),
                                None,
                                NodeKind::Account,
                                Shares::Count(1),
                            ));
                            accounts.insert(account.clone(), spec.nodes.len() - 1);
                        }
                        account
                    };
                    spec.nodes.push(NodeSpec::new(
                        user.clone(),
                        Some(parent),
                        NodeKind::User,
                        Shares::Count(1),
                    ));
                    users.insert(key, spec.nodes.len() - 1);
                    spec.nodes.len() - 1
                }
            };
            leaf_of.push(leaf);
        }
        let tree = Tree::build(spec.clone()).map_err(shares_err)?;
        let ids: Vec<usize> = leaf_of
            .iter()
            .map(|&l| {
                let n = spec.nodes.get(l);
                let parent = n.and_then(|n| n.parent.as_deref());
                let name = n.map_or("", |n| n.name.as_str());
                let found = if pbs {
                    tree.find_user(None, name)
                } else {
                    tree.find_user(Some(parent.unwrap_or(&tree.node(0).name)), name)
                };
                found.ok_or_else(|| shares_err(format!("`{name}` is not in the built tree")))
            })
            .collect::<Result<_, _>>()?;
        let frac = fractions(&tree);
        let mut per_leaf: FxHashMap<usize, usize> = FxHashMap::default();
        for &l in &leaf_of {
            *per_leaf.entry(l).or_insert(0) += 1;
        }
        let shares = leaf_of
            .iter()
            .zip(&ids)
            .map(|(l, &id)| {
                frac.get(id).copied().unwrap_or(0.0)
                    / per_leaf.get(l).copied().unwrap_or(1).max(1) as f64
            })
            .collect();
        Ok(SiteTree {
            spec,
            leaf_of,
            ids,
            shares,
        })
    }

    /// Per association: its part of the tree's shares.
    pub(crate) fn shares(&self) -> &[f64] {
        &self.shares
    }

    /// Every keyword's value per association, the tree built with the associations' `usage`
    /// on their leaves.
    pub(crate) fn values(
        &self,
        keywords: &[String],
        usage: &[f64],
        values: &mut [Vec<f64>],
    ) -> Result<(), ReplayError> {
        let mut spec = self.spec.clone();
        for (&l, &u) in self.leaf_of.iter().zip(usage) {
            if let Some(n) = spec.nodes.get_mut(l) {
                n.usage = Some(n.usage.unwrap_or(0.0) + u);
            }
        }
        let tree = Tree::build(spec).map_err(shares_err)?;
        let mut results: Vec<(Algorithm, crate::fairshare::ShareResult)> = Vec::new();
        for (k, out) in keywords.iter().zip(values.iter_mut()) {
            let Some((alg, get)) = keyword_source(k) else {
                continue;
            };
            if !results.iter().any(|(a, _)| *a == alg) {
                let r = compute(&tree, alg, &Options::default()).map_err(shares_err)?;
                results.push((alg, r));
            }
            let Some((_, r)) = results.iter().find(|(a, _)| *a == alg) else {
                continue;
            };
            for (v, &id) in out.iter_mut().zip(&self.ids) {
                *v = get(&r.row(id)).unwrap_or(0.0);
            }
        }
        Ok(())
    }
}

/// Each node's part of the tree's shares: the root 1, a child its parent's × its shares / the
/// sum of its siblings' (Slurm's `parent` shares: its parent's part, outside the sum).
fn fractions(tree: &Tree) -> Vec<f64> {
    let mut frac = vec![0.0; tree.len()];
    if let Some(f) = frac.first_mut() {
        *f = 1.0;
    }
    for p in tree.preorder() {
        let fp = frac.get(p).copied().unwrap_or(0.0);
        let kids = tree.children(p);
        let sum: f64 = kids
            .iter()
            .map(|&c| match tree.node(c).shares {
                Shares::Count(n) => n as f64,
                Shares::Parent => 0.0,
            })
            .sum();
        for &c in kids {
            let f = match tree.node(c).shares {
                Shares::Count(n) if sum > 0.0 => fp * n as f64 / sum,
                Shares::Count(_) => 0.0,
                Shares::Parent => fp,
            };
            if let Some(x) = frac.get_mut(c) {
                *x = f;
            }
        }
    }
    frac
}
