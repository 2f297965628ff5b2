//! From a case's cluster (share tree, jobs, settings) to the [`Scenario`] it runs on: the one
//! type `fairsort order` and `fairsort share` assemble their inputs into, so a case orders and
//! computes exactly as they do. Also the job-id helpers the order and compare cases share.

use crate::fairshare::{Algorithm, NodeKind, Tree, TreeSpec};
use crate::formula::{compile, Program, ResourceTable};
use crate::ftest::case::{QueueSetup, TreeDef, TreeOrigin};
use crate::jobs::JobSet;
use crate::native::read_job_list_json;
use crate::order::dry_run::DryRun;
use crate::scenario::{Base, Scenario, ScenarioBuilder, Threshold};
use crate::usage::{apply_usage, UsageRecord};
use std::collections::BTreeSet;
use toml::Value;

/// Reads a case's tree (inline or a file in any supported format) and applies its
/// `unknown_shares` and usage. On a PBS tree a name of no entity in the tree is what PBS makes
/// of it: an entity with 1 share under the `unknown` group, its usage counted there and in every
/// ancestor (the one usage application, `usage::apply_usage`); on another tree it is an error.
pub fn tree_spec(def: &TreeDef) -> Result<TreeSpec, String> {
    let mut spec = match &def.origin {
        TreeOrigin::Inline(text) => {
            crate::native::tree::read_toml(text).map_err(|e| e.to_string())?
        }
        TreeOrigin::File { path, format } => {
            crate::inputs::read_tree(path, *format).map_err(|e| e.to_string())?
        }
    };
    if def.unknown_shares.is_some() {
        spec.unknown_shares = def.unknown_shares;
    }
    let pbs = spec.follows_pbs();
    for (who, usage) in &def.usage {
        if pbs && !who.contains('/') {
            let record = UsageRecord {
                account: None,
                name: who,
                usage: *usage,
            };
            apply_usage(&mut spec, [record]).map_err(|e| e.to_string())?;
            continue;
        }
        let (account, user) = match who.split_once('/') {
            Some((a, u)) => (Some(a), u),
            None => (None, who.as_str()),
        };
        let mut found = false;
        for n in spec.nodes.iter_mut() {
            let account_ok = account.is_none() || n.parent.as_deref() == account;
            if n.kind == NodeKind::User && n.name == user && account_ok {
                n.usage = Some(*usage);
                found = true;
            }
        }
        if !found {
            return Err(format!("usage: no user `{who}` in the tree"));
        }
    }
    Ok(spec)
}

/// The Scenario of a `[[share]]` case: only its tree (built), and the algorithm.
pub(crate) fn share_scenario(def: &TreeDef, algorithm: Algorithm) -> Result<Scenario, String> {
    ScenarioBuilder::new(Base::None)
        .tree_spec(tree_spec(def)?)
        .jobs_optional()
        .algorithm(Some(algorithm))
        .build()
        .map_err(|e| e.to_string())
}

/// A case's tree, built as the Scenario builds it.
pub fn load_tree(def: &TreeDef) -> Result<Tree, String> {
    share_scenario(def, Algorithm::Pbs)?
        .setup
        .tree
        .ok_or_else(|| "no tree".to_string())
}

/// The Scenario of an `[[order]]` or `[[compare]]` case: its jobs, tree and settings, nothing
/// from the home, and `resources` (the context's and the file's) as the whole table.
pub(crate) fn queue_scenario(
    q: &QueueSetup,
    resources: &ResourceTable,
) -> Result<Scenario, String> {
    let jobs = read_job_list_json(&q.jobs_json).map_err(|e| format!("jobs: {e}"))?;
    let mut b = ScenarioBuilder::new(Base::None)
        .job_set(jobs)
        .entity(Some(q.entity))
        .fair_share(Some(q.fair_share))
        .threshold(q.threshold.map_or(Threshold::Off, Threshold::Set))
        .pbs_compat(q.pbs_compat)
        .resource_table(resources.clone());
    if let Some(def) = &q.tree {
        b = b.tree_spec(tree_spec(def)?);
    }
    for (queue, priority) in &q.queues {
        b = b.queue_priority(queue.clone(), *priority);
    }
    b.build().map_err(|e| e.to_string())
}

/// Compiles a case's formula, or says why it was rejected.
pub(crate) fn compiled(text: &str, resources: &ResourceTable) -> Result<Program, String> {
    compile(text, resources).map_err(|e| format!("formula `{text}` rejected: {e}"))
}

/// The job ids of a dry run, in rank order.
pub(crate) fn ids_of(jobs: &JobSet, run: &DryRun) -> Vec<String> {
    run.order
        .ranked
        .iter()
        .map(|r| job_id(jobs, r.job))
        .collect()
}

/// The id of job number `job`.
pub(crate) fn job_id(jobs: &JobSet, job: u32) -> String {
    jobs.jobs
        .get(job as usize)
        .map_or_else(|| format!("#{job}"), |j| j.id.to_string())
}

/// Job ids as a TOML array (an `expect` part).
pub(crate) fn strings(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::String(s.clone())).collect())
}

/// The complaint about a job id the queue does not have.
pub(crate) fn no_job(id: &str) -> String {
    format!("no job `{id}` in the queue")
}

/// A set of job ids as `a, b, c`.
pub(crate) fn join(s: &BTreeSet<&String>) -> String {
    s.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(", ")
}
