//! The built-in example clusters behind `fairsort order --example`: seed 004's PBS share tree
//! with a queue in `qstat -f -F json` layout, and a Slurm-style account tree; both embedded with
//! `include_str!` from `examples/`, so the main job shows with no set-up.

use crate::fairshare::{Algorithm, TreeSpec};
use crate::jobs::job_set::JobSet;
use crate::native::read_job_list_json;
use crate::pbs::defs::FairshareEntity;
use crate::pbs::read_qstat_json;
use serde::Deserialize;
use std::collections::BTreeMap;

/// An example's scheduler settings (`cluster.toml`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSettings {
    /// Title shown in the header.
    pub name: String,
    /// `job_sort_formula`.
    pub formula: String,
    /// `job_sort_formula_threshold`.
    #[serde(default)]
    pub threshold: Option<f64>,
    /// PBS `fair_share` (fair-share path tie-break).
    #[serde(default)]
    pub fair_share: bool,
    /// PBS `fairshare_entity`.
    pub fairshare_entity: String,
    /// Algorithm behind the fair-share keywords' tie-break and explanations.
    pub algorithm: String,
    /// Queue priorities.
    #[serde(default)]
    pub queues: BTreeMap<String, i64>,
}

/// A whole example: settings, tree and jobs, parsed.
#[derive(Debug, Clone)]
pub struct Example {
    /// `pbs` or `slurm-tree`.
    pub key: &'static str,
    /// Settings.
    pub settings: ClusterSettings,
    /// Entity selection.
    pub entity: FairshareEntity,
    /// Algorithm.
    pub algorithm: Algorithm,
    /// The share tree.
    pub tree: TreeSpec,
    /// The queue.
    pub jobs: JobSet,
}

const PBS_TREE: &str = include_str!("../../examples/pbs_cluster/tree.toml");
const PBS_JOBS: &str = include_str!("../../examples/pbs_cluster/jobs.json");
const PBS_CLUSTER: &str = include_str!("../../examples/pbs_cluster/cluster.toml");
const SLURM_TREE: &str = include_str!("../../examples/slurm_cluster/tree.toml");
const SLURM_JOBS: &str = include_str!("../../examples/slurm_cluster/jobs.json");
const SLURM_CLUSTER: &str = include_str!("../../examples/slurm_cluster/cluster.toml");

/// The examples with a share tree, a queue and a formula (the command line's `--example` names
/// them alike; `slurm` there is a Slurm site's multifactor priority, `flux` a flux-accounting site).
pub const EXAMPLES: [&str; 2] = ["pbs", "slurm-tree"];

/// Loads an example by name (`pbs` or `slurm-tree`). The data is compiled in; an error here is a
/// bug in the embedded files and is reported as text, never a panic.
pub fn load(key: &str) -> Result<Example, String> {
    let (key, tree, jobs, cluster, qstat) = match key {
        "pbs" => ("pbs", PBS_TREE, PBS_JOBS, PBS_CLUSTER, true),
        "slurm-tree" => ("slurm-tree", SLURM_TREE, SLURM_JOBS, SLURM_CLUSTER, false),
        other => {
            return Err(format!(
                "unknown example `{other}` (expected one of: {})",
                EXAMPLES.join(", ")
            ))
        }
    };
    let settings: ClusterSettings =
        toml::from_str(cluster).map_err(|e| format!("example {key}: cluster.toml: {e}"))?;
    // The same reader as `--tree FILE`, so the example files are ones an admin can copy.
    let tree: TreeSpec = crate::native::tree::read_toml(tree)
        .map_err(|e| format!("example {key}: tree.toml: {e}"))?;
    let jobs = if qstat {
        read_qstat_json(jobs.as_bytes())
    } else {
        read_job_list_json(jobs.as_bytes())
    }
    .map_err(|e| format!("example {key}: jobs.json: {e}"))?;
    let entity = settings.fairshare_entity.parse()?;
    let algorithm = settings.algorithm.parse()?;
    Ok(Example {
        key,
        settings,
        entity,
        algorithm,
        tree,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::Tree;

    #[test]
    fn both_examples_load() {
        for k in EXAMPLES {
            let ex = load(k).unwrap();
            assert!(!ex.jobs.is_empty());
            Tree::build(ex.tree.clone()).unwrap();
        }
        let pbs = load("pbs").unwrap();
        assert_eq!(pbs.jobs.jobs[0].id, "108.pbs", "earliest qtime first");
        assert_eq!(pbs.settings.queues.get("express"), Some(&50));
        assert!(load("lsf").unwrap_err().contains("pbs, slurm-tree"));
    }
}
