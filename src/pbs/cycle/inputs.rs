//! The engine's per-job inputs from the core's pieces, as `fairsort order` computes them: the
//! fair-share facts from a dry run's `ShareContext` and ranks, the `job_sort_key` columns
//! through the formula binder (same units: KB, seconds; `--pbs-compat` rounding).

use crate::fairshare::{Algorithm, Column};
use crate::jobs::error::BindError;
use crate::jobs::job_set::JobSet;
use crate::order::bind::{Binder, MissingShares};
use crate::order::shares::ShareContext;
use crate::pbs::cycle::consider::CycleShares;
use crate::pbs::cycle::rules::SortKey;

/// The fair-share facts of every job from PBS's fair share in `ctx` (None when it was not
/// computed) and the path ranks of `order::sort::fair_share_ranks` (all 0 when None):
/// zero shares when the entity's tree percentage is 0 (`query_jobs`, `NO_FAIRSHARES`); over
/// its share when the root's usage × its tree percentage is below its usage (`fairshare.cpp`
/// `over_fs_usage`). A job without an entity node has neither.
pub fn cycle_shares(ctx: &ShareContext, rank: Option<&[u32]>) -> Option<CycleShares> {
    let result = ctx.result(Algorithm::Pbs)?;
    let root_usage = result.get(Column::Usage, ctx.tree.root()).unwrap_or(0.0);
    let n = ctx.job_nodes.len();
    let mut out = CycleShares {
        rank: rank.map(<[u32]>::to_vec).unwrap_or_else(|| vec![0; n]),
        zero_shares: vec![false; n],
        over_share: vec![false; n],
    };
    for (i, node) in ctx.job_nodes.iter().enumerate() {
        let Some(node) = *node else { continue };
        let perc = result.get(Column::FairsharePerc, node).unwrap_or(0.0);
        let usage = result.get(Column::Usage, node).unwrap_or(0.0);
        out.zero_shares[i] = perc == 0.0;
        out.over_share[i] = root_usage * perc < usage;
    }
    Some(out)
}

/// Why the `job_sort_key` columns could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SortKeyError {
    /// `fair_share_perc` without a share tree.
    #[error(transparent)]
    MissingShares(#[from] MissingShares),
    /// A job's value is not a number.
    #[error(transparent)]
    Bind(#[from] BindError),
}

/// The keys the binder does not read: `preempt_priority` (the engine reads the level) and
/// `sort_priority` (a node key: 0 for every job).
fn bound(key: &SortKey) -> bool {
    !matches!(key.name.as_str(), "preempt_priority" | "sort_priority")
}

/// The formula keyword a `job_sort_key` reads (`sort.cpp` `find_resresv_amount`): a resource
/// request (0 when not requested), else `job_priority` the job's `Priority`,
/// `fair_share_perc` its entity's tree percentage.
fn keyword(key: &SortKey) -> &str {
    match key.name.as_str() {
        "fair_share_perc" => "fairshare_perc",
        other => other,
    }
}

/// One column per `keys` entry (value per job), for [`crate::pbs::cycle::CycleInput`]; the
/// `preempt_priority` key's column is empty (the engine reads the level), `sort_priority`'s is
/// all 0.
pub fn sort_key_columns(
    keys: &[SortKey],
    jobs: &JobSet,
    shares: Option<&ShareContext>,
    pbs_compat: bool,
) -> Result<Vec<Vec<f64>>, SortKeyError> {
    let names: Vec<String> = (keys.iter())
        .filter(|k| bound(k))
        .map(|k| keyword(k).to_string())
        .collect();
    let no_queue = |_: &str| None;
    let binder = Binder::new(&names, jobs, &no_queue, shares, pbs_compat)?;
    let bound = binder.bind(jobs)?;
    let mut columns = bound.columns.iter();
    Ok(keys
        .iter()
        .map(|k| match k.name.as_str() {
            "preempt_priority" => Vec::new(),
            "sort_priority" => vec![0.0; jobs.len()],
            _ => columns.next().map(|c| c.to_vec()).unwrap_or_default(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::qstat::read_qstat_json;

    #[test]
    fn sort_key_columns_in_pbs_units() {
        let set = read_qstat_json(
            br#"{"Jobs":{"1.s":{"Job_Owner":"a@h","Priority":7,"qtime":1,
                 "Resource_List":{"mem":"2mb","walltime":"01:00:00"}}}}"#,
        )
        .unwrap();
        let keys = [
            "mem",
            "preempt_priority",
            "sort_priority",
            "job_priority",
            "walltime",
        ]
        .map(|n| SortKey {
            name: n.into(),
            high: true,
        });
        let cols = sort_key_columns(&keys, &set, None, true).unwrap();
        assert_eq!(
            cols,
            [vec![2048.0], vec![], vec![0.0], vec![7.0], vec![3600.0]]
        );
        let fs = [SortKey {
            name: "fair_share_perc".into(),
            high: true,
        }];
        assert!(matches!(
            sort_key_columns(&fs, &set, None, true),
            Err(SortKeyError::MissingShares(_))
        ));
    }
}
