//! Fair-share values for jobs: each job's entity resolved once to a node of the share tree
//! (PBS: by `fairshare_entity`, missing entities added under `unknown` with 1 share as PBS's
//! `find_alloc_ginfo` does; Slurm/flux trees: the job's (account, user) association), and the
//! algorithms' results the formula's fair-share keywords read.

use crate::fairshare::{keyword_source, Algorithm, NodeId, ShareResult, Shares, Tree, TreeSource};
use crate::jobs::entity::EntityName;
use crate::jobs::job_set::JobSet;
use crate::jobs::names::Sym;
use crate::mem::hash::SeededMap;
use crate::order::formula_api::SortFormula;
use crate::parallel::PARALLEL_MIN_JOBS;
use crate::pbs::defs::FairshareEntity;
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
    pub fn resolve(tree: Tree, jobs: &JobSet, entity: FairshareEntity) -> ShareContext {
        let pbs = is_pbs_tree(&tree);
        let mut pass = Resolve {
            tree,
            jobs,
            entity,
            pbs,
            cache: EntityCache::default(),
            unknown: Vec::new(),
            unmatched: Vec::new(),
        };
        let job_nodes =
            if pbs && entity != FairshareEntity::EgroupEuser && jobs.len() >= PARALLEL_MIN_JOBS {
                // Every name found in the tree is known before the pass, which then runs on every
                // worker; the jobs whose name is not in the tree are resolved after it, one by one
                // in job order, as before (so the unknown entities are added in the same order).
                pass.cache.single = (pbs_nodes_by_name(&pass.tree, jobs).into_iter())
                    .map(|found| found.map(Some))
                    .collect();
                let single = &pass.cache.single;
                let mut job_nodes = crate::parallel::map_slice(&jobs.jobs, |_, job| {
                    let sym = pbs_key(entity, job).0;
                    single.get(sym as usize).copied().flatten().flatten()
                });
                for (job, node) in jobs.jobs.iter().zip(job_nodes.iter_mut()) {
                    if node.is_none() {
                        *node = pass.node(job);
                    }
                }
                job_nodes
            } else {
                jobs.jobs.iter().map(|job| pass.node(job)).collect()
            };
        ShareContext {
            tree: pass.tree,
            entity,
            job_nodes,
            unknown_entities: pass.unknown,
            unmatched_associations: pass.unmatched,
            results: Vec::new(),
        }
    }

    /// The result of one algorithm, if computed.
    pub fn result(&self, algorithm: Algorithm) -> Option<&ShareResult> {
        self.results.iter().find(|r| r.algorithm == algorithm)
    }
}

/// The entity key of a job on a PBS tree: one name (its symbol), or group and user.
fn pbs_key(entity: FairshareEntity, job: &crate::jobs::job::Job) -> (Sym, Option<Sym>) {
    match entity {
        FairshareEntity::Euser => (job.euser, None),
        FairshareEntity::Egroup => (job.egroup, None),
        FairshareEntity::AccountName => (job.account().unwrap_or(u32::MAX), None),
        FairshareEntity::Queue => (job.queue, None),
        FairshareEntity::EgroupEuser => (job.egroup, Some(job.euser)),
    }
}

/// The state of [`ShareContext::resolve`]'s pass: the tree (growing by PBS's unknown
/// entities), the entity cache and what was not found.
struct Resolve<'a> {
    tree: Tree,
    jobs: &'a JobSet,
    entity: FairshareEntity,
    pbs: bool,
    cache: EntityCache,
    unknown: Vec<String>,
    unmatched: Vec<String>,
}

impl Resolve<'_> {
    /// The node of `job`'s entity (added under `unknown` on a PBS tree when missing).
    fn node(&mut self, job: &crate::jobs::job::Job) -> Option<NodeId> {
        let (pbs, entity, jobs) = (self.pbs, self.entity, self.jobs);
        let key = if pbs {
            pbs_key(entity, job)
        } else {
            (job.euser, Some(job.account().unwrap_or(u32::MAX)))
        };
        let (tree, unknown, unmatched) = (&mut self.tree, &mut self.unknown, &mut self.unmatched);
        *self.cache.entry(key, || {
            if pbs {
                let name = entity.name_of(jobs, job);
                let found = pbs_node(tree, &name);
                found.or_else(|| {
                    let parent = tree.find_account(crate::fairshare::tree::PBS_UNKNOWN)?;
                    unknown.push(name.clone());
                    Some(tree.add_user(parent, &name, Shares::Count(1)))
                })
            } else {
                let user = jobs.names.name(job.euser);
                let account = job.account().map(|a| jobs.names.name(a));
                let found = tree.find_user(account, user);
                if found.is_none() {
                    unmatched.push(match account {
                        Some(a) => format!("{a}/{user}"),
                        None => user.to_string(),
                    });
                }
                found
            }
        })
    }
}

/// The node of a PBS entity name: a user of that name, else an account other than the root.
fn pbs_node(tree: &Tree, name: &str) -> Option<NodeId> {
    (tree.users_named(name).first().copied())
        .or_else(|| tree.find_account(name).filter(|&n| n != tree.root()))
}

/// [`pbs_node`] of every name of `jobs.names` (users, groups, accounts and queues alike), by
/// symbol, in parts on every worker: the 100 000 look-ups of a 100 000-user tree were half of
/// `resolve`, on one thread while the other cores waited. Names that are no job's entity are
/// looked up for nothing (a few hundred groups and queues: cheaper than finding the used ones).
fn pbs_nodes_by_name(tree: &Tree, jobs: &JobSet) -> Vec<Option<NodeId>> {
    let find = |syms: std::ops::Range<usize>| -> Vec<Option<NodeId>> {
        syms.map(|s| pbs_node(tree, jobs.names.name(s as Sym)))
            .collect()
    };
    let ranges = crate::parallel::ranges(jobs.names.len(), NAMES_MIN, 1);
    crate::parallel::concat(crate::parallel::map_ranges(ranges, find))
}

/// Below this many names [`pbs_nodes_by_name`] looks them up on the calling thread.
const NAMES_MIN: usize = 1 << 12;

/// Each distinct entity key's node, looked up in the tree once: one-name keys (PBS entities but
/// `egroup:euser`) in a table indexed by symbol, pairs in a hash map (a million jobs' look-ups
/// without hashing in the common case).
#[derive(Default)]
struct EntityCache {
    single: Vec<Option<Option<NodeId>>>,
    pairs: SeededMap<(Sym, Option<Sym>), Option<NodeId>>,
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
    use crate::native::read_job_list_json;

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
    fn names_looked_up_first_give_the_same_nodes_and_unknowns() {
        // A set large enough for the names to be looked up on every worker first: the nodes,
        // the unknown entities (in order of first job) and the tree's new users are those of
        // the one-thread pass over a small set of the same jobs, entity by entity.
        let n = PARALLEL_MIN_JOBS + 10;
        let user = |i: usize| match i % 5 {
            0 => "bob".to_string(),
            1 => format!("new{}", (i * 7) % 13),
            2 => "group1".to_string(), // an account's name as a user
            _ => format!("u{}", i % 3),
        };
        let list: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    r#"{{"id":"{i}","user":"{}","group":"{}","queue":"q{}","qtime":{i}}}"#,
                    user(i),
                    if i % 4 == 0 { "group1" } else { "g2" },
                    i % 3
                )
            })
            .collect();
        let jobs = read_job_list_json(format!("[{}]", list.join(",")).as_bytes()).unwrap();
        for entity in FairshareEntity::ALL {
            let big = ShareContext::resolve(pbs_tree(), &jobs, entity);
            // The same jobs one by one: each resolve stays below the two-thread size.
            let mut tree = pbs_tree();
            let mut nodes = Vec::new();
            let mut unknown = Vec::new();
            for k in 0..jobs.len() {
                let one = JobSet {
                    jobs: vec![jobs.jobs[k].clone()],
                    names: jobs.names.clone(),
                    ..JobSet::default()
                };
                let ctx = ShareContext::resolve(tree, &one, entity);
                tree = ctx.tree;
                nodes.push(ctx.job_nodes[0]);
                unknown.extend(ctx.unknown_entities);
            }
            assert_eq!(big.job_nodes, nodes, "{entity:?}");
            assert_eq!(big.unknown_entities, unknown, "{entity:?}");
            assert_eq!(big.tree.len(), tree.len(), "{entity:?}");
            assert!(!big.unknown_entities.is_empty() || entity != FairshareEntity::Euser);
        }
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
