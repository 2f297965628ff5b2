//! A PBS site's dry run in the order its scheduler considers jobs: the rules of one pbs_sched
//! cycle (from the home's imported site, or the shipped `sched_config` for the example) applied
//! to the dry run's values with `pbs::cycle::consider`, and the dry run's order rewritten to
//! it, so every report (table, CSV, JSON, `--top`) shows the cycle's order.

use crate::order::dry_run::DryRun;
use crate::order::sort::{Held, Ranked};
use crate::pbs::cycle::{
    consider, cycle_shares, sort_key_columns, CycleInput, CycleOrder, CycleRules, Skipped,
};
use crate::scenario::{Scenario, ScenarioError};

/// The cycle a PBS site's order follows.
#[derive(Debug, Clone, PartialEq)]
pub struct CycleSite {
    /// The rules in force for the cycle's period.
    pub rules: CycleRules,
    /// Whether the cycle runs in prime time.
    pub prime: bool,
    /// The epoch second the cycle runs at (`--at`, else the snapshot's time, else now for a
    /// home; `None` for the example when not given: its rules have no prime time).
    pub at: Option<i64>,
    /// Where the rules come from, for the report (`the home's pbs.toml`, `the shipped
    /// sched_config`).
    pub from: String,
}

impl Scenario {
    /// The order pbs_sched considers the dry run's jobs in, when the Scenario is a PBS site
    /// with a cycle (`None` otherwise). `formula`: whether the site sorts by a formula (the
    /// dry run's values), else by `job_sort_key` and the fair-share tree walk only.
    pub fn cycle_order(
        &self,
        dry: &DryRun,
        formula: bool,
    ) -> Result<Option<CycleOrder>, ScenarioError> {
        let Some(site) = &self.cycle else {
            return Ok(None);
        };
        let jobs = &self.setup.jobs;
        let values = formula.then(|| {
            let mut v = vec![0.0; jobs.len()];
            for r in &dry.order.ranked {
                if let Some(slot) = v.get_mut(r.job as usize) {
                    *slot = r.value;
                }
            }
            v
        });
        let shares = dry
            .shares
            .as_ref()
            .and_then(|ctx| cycle_shares(ctx, dry.options.fair_share_rank.as_deref()));
        let keys = sort_key_columns(
            &site.rules.sort_keys,
            jobs,
            dry.shares.as_ref(),
            self.setup.pbs_compat,
        )
        .map_err(ScenarioError::input)?;
        let input = CycleInput {
            jobs,
            values: values.as_deref(),
            sort_keys: &keys,
            shares: shares.as_ref(),
        };
        Ok(Some(consider(&input, &site.rules)))
    }
}

/// Rewrites `dry`'s order to `cycle`'s: the considered jobs first, in the cycle's order, with
/// the value the scheduler keeps (a C float); then the others in the dry run's order, each
/// with why it is not considered. `top` cuts the list as `--top` does.
pub fn apply_cycle(dry: &mut DryRun, cycle: &CycleOrder, top: Option<usize>) {
    let order = &mut dry.order;
    let n = order.ranked.len();
    let mut value = vec![0.0; n.max(1)];
    let mut seen = vec![false; n];
    for r in &order.ranked {
        if let Some(slot) = value.get_mut(r.job as usize) {
            *slot = r.value;
        }
    }
    let mut ranked: Vec<Ranked> = Vec::with_capacity(n);
    for c in &cycle.considered {
        let Some(s) = seen.get_mut(c.job as usize) else {
            continue;
        };
        *s = true;
        ranked.push(Ranked {
            job: c.job,
            value: c
                .value
                .unwrap_or_else(|| value.get(c.job as usize).copied().unwrap_or(0.0)),
            eligible: true,
            below_threshold: false,
        });
    }
    let mut below = 0;
    order.held.clear();
    for nc in &cycle.not_considered {
        match nc.reason {
            Skipped::ZeroShares => {
                order.held.insert(nc.job, Held::ZeroShares);
            }
            Skipped::QueueStopped => {
                order.held.insert(nc.job, Held::QueueStopped);
            }
            Skipped::RouteQueue => {
                order.held.insert(nc.job, Held::RouteQueue);
            }
            Skipped::BelowThreshold { .. } | Skipped::NotQueued(_) => {}
        }
    }
    let below_of: std::collections::HashSet<u32> = (cycle.not_considered.iter())
        .filter(|x| matches!(x.reason, Skipped::BelowThreshold { .. }))
        .map(|x| x.job)
        .collect();
    for r in &order.ranked {
        if seen.get(r.job as usize).copied().unwrap_or(true) {
            continue;
        }
        let is_below = below_of.contains(&r.job);
        below += usize::from(is_below);
        ranked.push(Ranked {
            job: r.job,
            value: r.value,
            eligible: false,
            below_threshold: is_below,
        });
    }
    order.summary.eligible = cycle.considered.len();
    order.summary.below_threshold = below;
    if let Some(t) = top {
        ranked.truncate(t);
    }
    order.ranked = ranked;
}
