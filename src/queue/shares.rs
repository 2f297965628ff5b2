//! Fair-share values for jobs: each job's entity resolved once to a node of the share tree
//! (PBS: by `fairshare_entity`, missing entities added under `unknown` with 1 share as PBS's
//! `find_alloc_ginfo` does; Slurm/flux trees: the job's (account, user) association), and the
//! algorithms' results the formula's fair-share keywords read.

use super::entity::EntityName;
use super::formula_api::SortFormula;
use super::job::JobSet;
use super::names::Sym;
use crate::fairshare::{keyword_source, Algorithm, NodeId, ShareResult, Shares, Tree, TreeSource};
use crate::pbs::FairshareEntity;
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, HashSet};

/// The share tree, each job's node in it, and the computed results.
#[derive(Debug, Clone)]
pub struct ShareContext {
    /// The tree (with PBS unknown entities added).
    pub tree: Tree,
    /// How job entities were chosen.
    pub entity: FairshareEntity,
    /// Per job (same index as `JobSet::jobs`): its entity's node, if any.
    pub job_nodes: Vec<Option<NodeId>>,
    /// Entities PBS would create under `unknown` (not in the tree file).
    pub unknown_entities: Vec<String>,
    /// Slurm/flux trees: the jobs' associations (`account/user`, or `user` without an account)
    /// that are not in the tree, in order of first job; their jobs get no fair-share values.
    pub unmatched_associations: Vec<String>,
    /// Results of the algorithms computed so far.
    pub results: Vec<ShareResult>,
}

/// True for trees that follow PBS's entity rules (`resource_group`, or any tree with an
/// `unknown_shares` setting).
pub fn is_pbs_tree(tree: &Tree) -> bool {
    // The rule of `TreeSpec::follows_pbs`, on a built tree.
    tree.source() == TreeSource::Pbs || tree.unknown_shares().is_some()
}

impl ShareContext {
    /// Resolves every job's entity, adding PBS's unknown entities to the tree.
    pub fn resolve(mut tree: Tree, jobs: &JobSet, entity: FairshareEntity) -> ShareContext {
        let pbs = is_pbs_tree(&tree);
        let mut cache = EntityCache::default();
        let mut unknown = Vec::new();
        let mut unmatched = Vec::new();
        let mut job_nodes = Vec::with_capacity(jobs.len());
        for job in &jobs.jobs {
            let key = if pbs {
                match entity {
                    FairshareEntity::Euser => (job.euser, None),
                    FairshareEntity::Egroup => (job.egroup, None),
                    FairshareEntity::AccountName => (job.account.unwrap_or(u32::MAX), None),
                    FairshareEntity::Queue => (job.queue, None),
                    FairshareEntity::EgroupEuser => (job.egroup, Some(job.euser)),
                }
            } else {
                (job.euser, Some(job.account.unwrap_or(u32::MAX)))
            };
            let node = *cache.entry(key, || {
                if pbs {
                    let name = entity.name_of(jobs, job);
                    let found = tree
                        .users_named(&name)
                        .first()
                        .copied()
                        .or_else(|| tree.find_account(&name).filter(|&n| n != tree.root()));
                    found.or_else(|| {
                        let parent = tree.find_account(crate::fairshare::tree::PBS_UNKNOWN)?;
                        unknown.push(name.clone());
                        Some(tree.add_user(parent, &name, Shares::Count(1)))
                    })
                } else {
                    let user = jobs.names.name(job.euser);
                    let account = job.account.map(|a| jobs.names.name(a));
                    let found = tree.find_user(account, user);
                    if found.is_none() {
                        unmatched.push(match account {
                            Some(a) => format!("{a}/{user}"),
                            None => user.to_string(),
                        });
                    }
                    found
                }
            });
            job_nodes.push(node);
        }
        ShareContext {
            tree,
            entity,
            job_nodes,
            unknown_entities: unknown,
            unmatched_associations: unmatched,
            results: Vec::new(),
        }
    }

    /// The result of one algorithm, if computed.
    pub fn result(&self, algorithm: Algorithm) -> Option<&ShareResult> {
        self.results.iter().find(|r| r.algorithm == algorithm)
    }
}

/// Each distinct entity key's node, looked up in the tree once: one-name keys (PBS entities but
/// `egroup:euser`) in a table indexed by symbol, pairs in a hash map (a million jobs' look-ups
/// without hashing in the common case).
#[derive(Default)]
struct EntityCache {
    single: Vec<Option<Option<NodeId>>>,
    pairs: FxHashMap<(Sym, Option<Sym>), Option<NodeId>>,
}

impl EntityCache {
    /// The node of `key`, found with `find` the first time.
    fn entry(
        &mut self,
        key: (Sym, Option<Sym>),
        find: impl FnOnce() -> Option<NodeId>,
    ) -> &Option<NodeId> {
        match key {
            (sym, None) if sym != Sym::MAX => {
                let i = sym as usize;
                if self.single.len() <= i {
                    self.single.resize(i + 1, None);
                }
                match self.single.get_mut(i) {
                    Some(slot) => slot.get_or_insert_with(find),
                    None => self.pairs.entry(key).or_insert_with(find),
                }
            }
            _ => self.pairs.entry(key).or_insert_with(find),
        }
    }
}

/// The algorithms a formula's keywords need (plus PBS's when `fair_share` sorting is on).
pub(crate) fn algorithms_needed(formula: &dyn SortFormula, fair_share: bool) -> Vec<Algorithm> {
    let mut set: BTreeSet<usize> = BTreeSet::new();
    for k in formula.keywords() {
        if let Some((a, _)) = keyword_source(k) {
            set.insert(Algorithm::ALL.iter().position(|x| *x == a).unwrap_or(0));
        }
    }
    if fair_share {
        set.insert(0);
    }
    set.into_iter()
        .filter_map(|i| Algorithm::ALL.get(i).copied())
        .collect()
}

/// Users with at least one runnable job: ticket-based fair-share's active users. Each user's
/// name is copied once (marked by symbol first), not once per job.
pub fn active_users(jobs: &JobSet) -> HashSet<String> {
    let mut seen = vec![false; jobs.names.len()];
    let mut users = HashSet::new();
    for j in jobs.jobs.iter().filter(|j| j.state.is_runnable()) {
        match seen.get_mut(j.euser as usize) {
            Some(true) => {}
            Some(slot) => {
                *slot = true;
                users.insert(jobs.names.name(j.euser).to_string());
            }
            None => {
                users.insert(jobs.names.name(j.euser).to_string());
            }
        }
    }
    users
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::{NodeKind, NodeSpec, TreeSpec};
    use crate::queue::read_job_list_json;

    fn pbs_tree() -> Tree {
        let n = |name: &str, parent: Option<&str>, kind, shares| {
            NodeSpec::new(
                name,
                parent.map(str::to_string),
                kind,
                Shares::Count(shares),
            )
        };
        Tree::build(TreeSpec {
            source: TreeSource::Pbs,
            root_name: "TREEROOT".into(),
            root_usage: None,
            unknown_shares: Some(0),
            nodes: vec![
                n("group1", None, NodeKind::Account, 40),
                n("bob", Some("group1"), NodeKind::User, 50),
            ],
        })
        .unwrap()
    }

    #[test]
    fn pbs_entities_and_unknown() {
        let jobs = read_job_list_json(
            br#"[{"id":"1","user":"bob","group":"group1","qtime":1},
                 {"id":"2","user":"zed","qtime":2},
                 {"id":"3","user":"zed","qtime":3}]"#,
        )
        .unwrap();
        let ctx = ShareContext::resolve(pbs_tree(), &jobs, FairshareEntity::Euser);
        let bob = ctx.job_nodes[0].unwrap();
        assert_eq!(ctx.tree.node(bob).name, "bob");
        let zed = ctx.job_nodes[1].unwrap();
        assert_eq!(ctx.job_nodes[2], Some(zed));
        let parent = ctx.tree.parent(zed).unwrap();
        assert_eq!(ctx.tree.node(parent).name, "unknown");
        assert_eq!(ctx.unknown_entities, ["zed"]);
        // egroup entity: a group node matches.
        let ctx = ShareContext::resolve(pbs_tree(), &jobs, FairshareEntity::Egroup);
        assert_eq!(ctx.tree.node(ctx.job_nodes[0].unwrap()).name, "group1");
    }

    #[test]
    fn active_users_are_those_with_queued_jobs() {
        let jobs = read_job_list_json(
            br#"[{"id":"1","user":"a","state":"Q"},{"id":"2","user":"b","state":"R"}]"#,
        )
        .unwrap();
        let active = active_users(&jobs);
        assert!(active.contains("a") && !active.contains("b"));
    }
}
