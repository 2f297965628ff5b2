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

use crate::fairshare::tree::PBS_UNKNOWN;
use crate::fairshare::{compute, keyword_source, Algorithm, NodeKind, NodeSpec, Options};
use crate::fairshare::{pbs, Shares, Tree, TreeSpec};
use crate::mem::hash::SeededMap;
use crate::pbs::defs::Keyword;
use crate::replay::entities::Entities;
use crate::replay::error::ReplayError;

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
    /// The tree built once (no usage), for PBS's keywords (`fairshare::pbs::keyword_values`).
    tree: Tree,
    /// Scratch: usage per node id.
    leaf_usage: Vec<Option<f64>>,
}

/// The column of `fairshare::pbs::keyword_values` a PBS keyword reads.
fn pbs_index(keyword: &str) -> Option<usize> {
    match keyword.parse::<Keyword>().ok()? {
        Keyword::FairsharePerc | Keyword::FairSharePerc => Some(0),
        Keyword::FairshareTreeUsage => Some(1),
        Keyword::FairshareFactor => Some(2),
        _ => None,
    }
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
        let mut users: SeededMap<(Option<String>, String), usize> = SeededMap::default();
        let mut accounts: SeededMap<String, usize> = SeededMap::default();
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
        let mut per_leaf: SeededMap<usize, usize> = SeededMap::default();
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
        let leaf_usage = vec![None; tree.len()];
        Ok(SiteTree {
            spec,
            leaf_of,
            ids,
            shares,
            tree,
            leaf_usage,
        })
    }

    /// Per association: its part of the tree's shares.
    pub(crate) fn shares(&self) -> &[f64] {
        &self.shares
    }

    /// The tree built once, without usage (the same node ids as every build with usage).
    pub(crate) fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Per association: its tree node id.
    pub(crate) fn ids(&self) -> &[usize] {
        &self.ids
    }

    /// Every keyword's value per association, the tree built with the associations' `usage`
    /// on their leaves.
    pub(crate) fn values(
        &mut self,
        keywords: &[String],
        usage: &[f64],
        values: &mut [Vec<f64>],
    ) -> Result<(), ReplayError> {
        // PBS's keywords only: its arithmetic over the tree built once (bit-identical to the
        // general path below, `pbs_fast_path_is_bit_identical`), O(nodes) per recomputation.
        let cols: Option<Vec<usize>> = keywords.iter().map(|k| pbs_index(k)).collect();
        if let Some(cols) = cols {
            self.leaf_usage.iter_mut().for_each(|u| *u = None);
            for (&id, &u) in self.ids.iter().zip(usage) {
                if let Some(x) = self.leaf_usage.get_mut(id) {
                    *x = Some(x.unwrap_or(0.0) + u);
                }
            }
            let rows = pbs::keyword_values(&self.tree, &self.leaf_usage);
            for (&c, out) in cols.iter().zip(values.iter_mut()) {
                for (v, &id) in out.iter_mut().zip(&self.ids) {
                    *v = rows.get(id).and_then(|r| r.get(c)).copied().unwrap_or(0.0);
                }
            }
            return Ok(());
        }
        self.general_values(keywords, usage, values)
    }

    /// Every keyword's value through `fairshare::compute` on the tree built with `usage`.
    fn general_values(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::TreeSource;
    use crate::replay::trace::{Trace, TraceJob};

    #[test]
    fn pbs_fast_path_is_bit_identical() {
        // A three-level resource_group with an empty group, zero shares and users the tree
        // does not name (they go to `unknown`, here with 2 shares).
        let node = |n: &str, p: Option<&str>, kind, s| {
            NodeSpec::new(n, p.map(String::from), kind, Shares::Count(s))
        };
        let spec = TreeSpec {
            source: TreeSource::Pbs,
            root_name: "root".into(),
            root_usage: None,
            unknown_shares: Some(2),
            nodes: vec![
                node("phys", None, NodeKind::Account, 30),
                node("theory", Some("phys"), NodeKind::Account, 10),
                node("exp", Some("phys"), NodeKind::Account, 20),
                node("chem", None, NodeKind::Account, 0),
                node("empty", None, NodeKind::Account, 5),
                node("ann", Some("theory"), NodeKind::User, 1),
                node("bob", Some("theory"), NodeKind::User, 3),
                node("cy", Some("exp"), NodeKind::User, 1),
                node("dee", Some("chem"), NodeKind::User, 1),
            ],
        };
        let users = ["ann", "bob", "cy", "dee", "eve", "fay", "ann"];
        let jobs = users
            .iter()
            .enumerate()
            .map(|(i, u)| TraceJob {
                id: i.to_string(),
                submit: 0,
                run: 1,
                walltime: None,
                cores: 1,
                mem: 0,
                user: u.to_string(),
                // ann under two trace accounts: one PBS entity.
                account: if i == 6 { "x".into() } else { "g".into() },
                queue: String::new(),
                qos: String::new(),
            })
            .collect();
        let trace = Trace {
            jobs,
            ..Trace::default()
        };
        let e = Entities::of(&trace);
        let mut site = SiteTree::new(spec, &e).unwrap();
        let kws: Vec<String> = ["fairshare_perc", "fairshare_tree_usage", "fairshare_factor"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut seed: u64 = 5;
        for round in 0..300 {
            let usage: Vec<f64> = (0..e.assocs.len())
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    match seed >> 61 {
                        0 => 0.0,
                        1 => 1.0,
                        2 => 1e13,
                        _ => (seed >> 30) as f64 * if round % 2 == 0 { 1e-3 } else { 1.0 },
                    }
                })
                .collect();
            let mut fast = vec![vec![0.0; e.assocs.len()]; 3];
            let mut general = fast.clone();
            site.values(&kws, &usage, &mut fast).unwrap();
            site.general_values(&kws, &usage, &mut general).unwrap();
            for k in 0..3 {
                for a in 0..e.assocs.len() {
                    assert_eq!(
                        fast[k][a].to_bits(),
                        general[k][a].to_bits(),
                        "round {round} keyword {k} assoc {a}: {} vs {}",
                        fast[k][a],
                        general[k][a]
                    );
                }
            }
        }
    }
}
