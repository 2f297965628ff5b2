//! A PBS site's dry run in the order its scheduler considers jobs: the rules of one pbs_sched
//! cycle (from the home's imported site, or the shipped `sched_config` for the example) applied
//! to the dry run's values with `pbs::cycle::consider`, and the dry run's order rewritten to
//! it, so every report (table, CSV, JSON, `--top`) shows the cycle's order.

use crate::order::dry_run::DryRun;
use crate::order::sort::{Held, Ranked};
use crate::pbs::cycle::{
    consider, cycle_shares, sort_key_columns, CycleInput, CycleOrder, CycleRules, Phase,
    PreemptClass, Skipped,
};
use crate::scenario::{Scenario, ScenarioError};
use serde::Serialize;

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

/// A cycle's order and the `job_sort_key` values that went into it.
#[derive(Debug, Clone, PartialEq)]
pub struct CycleRun {
    /// The order.
    pub order: CycleOrder,
    /// One column per `job_sort_key`: the key's value per job.
    pub keys: Vec<Vec<f64>>,
}

/// Where one job stands in the cycle, and why (`order --explain` on a PBS site).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CyclePlace {
    /// 1-based position among the jobs pbs_sched considers (`None`: not considered).
    pub considered: Option<usize>,
    /// How many it considers.
    pub of: usize,
    /// Why it is not considered, in pbs_sched's words.
    pub not_considered: Option<String>,
    /// Its preemption level (higher first) and classes.
    pub preempt_level: Option<i64>,
    /// The classes of that level (`express_queue`, `normal_jobs`, ...).
    pub preempt_classes: Vec<String>,
    /// Its queue and the queue's Priority.
    pub queue: String,
    /// The queue's Priority.
    pub queue_priority: Option<i64>,
    /// How the walk reached it (`express pass`, `its queue's turn`, `round robin`, `whole
    /// complex`).
    pub reached_by: Option<&'static str>,
    /// The formula value as pbs_sched keeps it (a C float).
    pub value: Option<f64>,
    /// Its fair-share rank (1 = most deserving), when `fair_share` is on.
    pub fair_share_rank: Option<u32>,
    /// Each `job_sort_key`: (`NAME HIGH|LOW`, the job's value).
    pub sort_keys: Vec<(String, f64)>,
    /// The next job considered and the rule that put this one before it.
    pub before: Option<Before>,
}

/// Why a considered job comes before the next one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Before {
    /// The next job's id.
    pub next: String,
    /// The first rule of the walk or the comparison that tells them apart, in words.
    pub because: String,
}

impl CycleRun {
    /// Where job `job` (index into the jobs) stands.
    pub fn place(&self, site: &CycleSite, jobs: &crate::jobs::JobSet, job: u32) -> CyclePlace {
        let at = self.order.considered.iter().position(|c| c.job == job);
        let c = at.map(|i| &self.order.considered[i]);
        let reason = self
            .order
            .not_considered
            .iter()
            .find(|x| x.job == job)
            .map(|x| skipped_text(&x.reason));
        let queue = jobs
            .jobs
            .get(job as usize)
            .map(|j| jobs.queue(j).to_string())
            .unwrap_or_default();
        let sort_keys = (site.rules.sort_keys.iter().zip(&self.keys))
            .map(|(k, col)| {
                let name = format!("{} {}", k.name, if k.high { "HIGH" } else { "LOW" });
                let v = match k.name.as_str() {
                    "preempt_priority" => c.map_or(0.0, |c| c.preemption.level as f64),
                    _ => col.get(job as usize).copied().unwrap_or(0.0),
                };
                (name, v)
            })
            .collect();
        CyclePlace {
            considered: at.map(|i| i + 1),
            of: self.order.considered.len(),
            not_considered: reason,
            preempt_level: c.map(|c| c.preemption.level),
            preempt_classes: c.map_or_else(Vec::new, |c| {
                (c.preemption.status.classes().iter())
                    .map(|k| class_name(*k).to_string())
                    .collect()
            }),
            queue,
            queue_priority: c.map(|c| c.queue_priority),
            reached_by: c.map(|c| match c.phase {
                Phase::Express => "the express pass (by_queue: express jobs before any queue)",
                Phase::Queue => "its queue's turn (by_queue)",
                Phase::RoundRobin => "its queue's turn in the round robin",
                Phase::Whole => "the whole complex, one sorted list",
            }),
            value: c.and_then(|c| c.value),
            fair_share_rank: c.and_then(|c| c.fair_share_rank).map(|r| r + 1),
            sort_keys,
            before: at.and_then(|i| self.before(site, jobs, i)),
        }
    }

    /// Why the `i`th job considered comes before the next one: the walk's pass, its queue's
    /// turn, then `cmp_sort`'s keys in order.
    fn before(&self, site: &CycleSite, jobs: &crate::jobs::JobSet, i: usize) -> Option<Before> {
        let a = self.order.considered.get(i)?;
        let b = self.order.considered.get(i + 1)?;
        let next = jobs.jobs.get(b.job as usize)?.id.to_string();
        let queue_of = |c: &crate::pbs::cycle::Considered| {
            jobs.jobs
                .get(c.job as usize)
                .map(|j| jobs.queue(j).to_string())
                .unwrap_or_default()
        };
        let because = if a.phase == Phase::Express && b.phase != Phase::Express {
            "the express pass comes before any queue's turn (by_queue)".to_string()
        } else if a.phase == Phase::RoundRobin && a.queue != b.queue {
            format!(
                "the round robin's turn: queue {} (Priority {}) before queue {} (Priority {})",
                queue_of(a),
                a.queue_priority,
                queue_of(b),
                b.queue_priority
            )
        } else if a.phase == Phase::Queue && a.queue != b.queue {
            format!(
                "its queue's turn first: {} (Priority {}) before {} (Priority {})",
                queue_of(a),
                a.queue_priority,
                queue_of(b),
                b.queue_priority
            )
        } else if a.preemption.level != b.preemption.level {
            format!(
                "a higher preemption level: {} against {}",
                a.preemption.level, b.preemption.level
            )
        } else if let (Some(x), Some(y)) = (a.value, b.value) {
            if x > y {
                format!(
                    "a higher formula value (as C floats): {} against {}",
                    crate::order::explain::fmt(x),
                    crate::order::explain::fmt(y)
                )
            } else {
                self.after_value(site, a, b, x.is_nan() || y.is_nan())
            }
        } else {
            self.after_value(site, a, b, false)
        };
        Some(Before { next, because })
    }

    /// The rules after the formula value: the fair-share path, the `job_sort_key`s, the
    /// server's order (`nan`: a NaN value, equal to every value).
    fn after_value(
        &self,
        site: &CycleSite,
        a: &crate::pbs::cycle::Considered,
        b: &crate::pbs::cycle::Considered,
        nan: bool,
    ) -> String {
        let prefix = if nan {
            "a NaN value ties with every value, then "
        } else {
            "equal values, then "
        };
        if let (Some(x), Some(y)) = (a.fair_share_rank, b.fair_share_rank) {
            if x != y {
                return format!(
                    "{prefix}its entity's fair-share path: rank {} against {}",
                    x + 1,
                    y + 1
                );
            }
        }
        for (k, col) in site.rules.sort_keys.iter().zip(&self.keys) {
            let (x, y) = match k.name.as_str() {
                "preempt_priority" => (a.preemption.level as f64, b.preemption.level as f64),
                _ => (
                    col.get(a.job as usize).copied().unwrap_or(0.0),
                    col.get(b.job as usize).copied().unwrap_or(0.0),
                ),
            };
            if x != y {
                return format!(
                    "{prefix}job_sort_key {} {}: {} against {}",
                    k.name,
                    if k.high { "HIGH" } else { "LOW" },
                    crate::order::explain::fmt(x),
                    crate::order::explain::fmt(y)
                );
            }
        }
        format!("{prefix}the server's order (submitted earlier)")
    }
}

/// A preemption class as `preempt_prio` names it.
fn class_name(c: PreemptClass) -> &'static str {
    match c {
        PreemptClass::ExpressQueue => "express_queue",
        PreemptClass::StarvingJobs => "starving_jobs",
        PreemptClass::FairShare => "fairshare",
        PreemptClass::QueueSoftlimits => "queue_softlimits",
        PreemptClass::ServerSoftlimits => "server_softlimits",
        PreemptClass::NormalJobs => "normal_jobs",
    }
}

/// Why a job is not considered, as pbs_sched logs it.
pub fn skipped_text(s: &Skipped) -> String {
    match s {
        Skipped::NotQueued(c) => format!("Job not in a runnable state (job_state {c})"),
        Skipped::RouteQueue => "Its queue is a route queue (the server moves its jobs)".into(),
        Skipped::QueueStopped => "Queue not started".into(),
        Skipped::ZeroShares => "Job has zero shares for fairshare".into(),
        Skipped::BelowThreshold { value, threshold } => format!(
            "Job's formula value {} is under threshold {}",
            crate::order::explain::fmt(*value),
            crate::order::explain::fmt(*threshold)
        ),
    }
}

impl Scenario {
    /// The order pbs_sched considers the dry run's jobs in, when the Scenario is a PBS site
    /// with a cycle (`None` otherwise). `formula`: whether the site sorts by a formula (the
    /// dry run's values), else by `job_sort_key` and the fair-share tree walk only.
    pub fn cycle_order(
        &self,
        dry: &DryRun,
        formula: bool,
    ) -> Result<Option<CycleRun>, ScenarioError> {
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
        let order = consider(&input, &site.rules);
        Ok(Some(CycleRun { order, keys }))
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
    let mut below_of = vec![false; n];
    for x in &cycle.not_considered {
        if let (Skipped::BelowThreshold { .. }, Some(b)) =
            (&x.reason, below_of.get_mut(x.job as usize))
        {
            *b = true;
        }
    }
    for r in &order.ranked {
        if seen.get(r.job as usize).copied().unwrap_or(true) {
            continue;
        }
        let is_below = below_of.get(r.job as usize).copied().unwrap_or(false);
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
