//! The replay's report: per user and per account, jobs, core-hours, wait (mean, median, p95),
//! bounded slowdown (τ = 10 s) and share of usage against share of shares; overall
//! utilisation, Jain's fairness index over the users' mean bounded slowdowns, and the longest
//! waits.

use crate::replay::shares::Entities;
use crate::replay::sim::{Cluster, Outcome};
use crate::replay::trace::Trace;
use serde::Serialize;

/// τ of the bounded slowdown: max(1, (wait + run) / max(run, τ)).
pub const SLOWDOWN_TAU: f64 = 10.0;

/// How many of the longest waits the report lists.
pub const LONGEST: usize = 10;

/// One user's or account's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntityStats {
    /// User name (`account/user` is in `account`) or account name.
    pub name: String,
    /// The account (users only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// Jobs run.
    pub jobs: u64,
    /// Core-hours used.
    pub core_hours: f64,
    /// Mean wait (s).
    pub wait_mean: f64,
    /// Median wait (s).
    pub wait_median: f64,
    /// 95th percentile wait (s, nearest rank).
    pub wait_p95: f64,
    /// Mean bounded slowdown.
    pub slowdown: f64,
    /// Its part of all core-seconds used.
    pub usage_share: f64,
    /// Its part of the shares (accounts equal, users equal within their account).
    pub share: f64,
}

/// One long wait.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LongWait {
    /// Trace id.
    pub id: String,
    /// User.
    pub user: String,
    /// Wait (s).
    pub wait: i64,
}

/// The summary of one replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Jobs in the trace.
    pub jobs: u64,
    /// Jobs run.
    pub jobs_run: u64,
    /// Trace ids of jobs larger than the cluster (skipped).
    pub too_large: Vec<String>,
    /// Cores of the cluster.
    pub cores: u64,
    /// First submit (trace seconds).
    pub first_submit: i64,
    /// Last end (trace seconds).
    pub last_end: i64,
    /// Core-seconds used / (cores × (last end − first submit)).
    pub utilisation: f64,
    /// Mean wait over all jobs (s).
    pub wait_mean: f64,
    /// Mean bounded slowdown over all jobs.
    pub slowdown: f64,
    /// Jain's index over the users' mean bounded slowdowns (1 = all equal).
    pub jain: f64,
    /// Scheduling passes.
    pub passes: u64,
    /// Jobs started by backfill.
    pub backfilled: u64,
    /// Fair-share recomputations.
    pub share_updates: u64,
    /// Formula evaluations that raised (valued 0).
    pub formula_errors: u64,
    /// The first evaluation that raised: its job and the error.
    pub first_formula_error: Option<FormulaErrorAt>,
    /// Per user.
    pub users: Vec<EntityStats>,
    /// Per account.
    pub accounts: Vec<EntityStats>,
    /// The longest waits, longest first (ties: trace order).
    pub longest_waits: Vec<LongWait>,
}

/// Where a replay's formula first raised, for the report's one line about its errors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormulaErrorAt {
    /// The job's trace id.
    pub job: String,
    /// The error.
    pub message: String,
}

#[derive(Default)]
struct Acc {
    waits: Vec<f64>,
    slowdowns: f64,
    core_seconds: f64,
}

impl Acc {
    fn stats(
        &mut self,
        name: String,
        account: Option<String>,
        total: f64,
        share: f64,
    ) -> EntityStats {
        self.waits.sort_by(f64::total_cmp);
        let n = self.waits.len();
        let mean = if n == 0 {
            0.0
        } else {
            self.waits.iter().sum::<f64>() / n as f64
        };
        EntityStats {
            name,
            account,
            jobs: n as u64,
            core_hours: self.core_seconds / 3600.0,
            wait_mean: mean,
            wait_median: median(&self.waits),
            wait_p95: percentile(&self.waits, 0.95),
            slowdown: if n == 0 {
                0.0
            } else {
                self.slowdowns / n as f64
            },
            usage_share: if total > 0.0 {
                self.core_seconds / total
            } else {
                0.0
            },
            share,
        }
    }
}

/// The median of sorted values (mean of the two middle ones for an even count; 0 if none).
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    let hi = sorted.get(n / 2).copied().unwrap_or(0.0);
    if n % 2 == 1 {
        hi
    } else {
        (sorted.get(n / 2 - 1).copied().unwrap_or(0.0) + hi) / 2.0
    }
}

/// Nearest-rank percentile of sorted values (`p` in 0..=1; 0 if none).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted
        .get(rank.clamp(1, sorted.len()) - 1)
        .copied()
        .unwrap_or(0.0)
}

/// Jain's fairness index (Σx)² / (n Σx²); 1 for no values.
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * s2)
    }
}

/// Sums up a replay.
pub fn summarize(trace: &Trace, outcome: &Outcome, cluster: Cluster) -> Report {
    let e = Entities::of(trace);
    let mut users: Vec<Acc> = (0..e.assocs.len()).map(|_| Acc::default()).collect();
    let mut accounts: Vec<Acc> = (0..e.accounts.len()).map(|_| Acc::default()).collect();
    let mut all = Acc::default();
    let mut first = i64::MAX;
    let mut last = i64::MIN;
    let mut waits: Vec<(i64, usize)> = Vec::new();
    for (i, (job, p)) in trace.jobs.iter().zip(&outcome.placements).enumerate() {
        let Some(p) = p else { continue };
        first = first.min(job.submit);
        last = last.max(p.end);
        let wait = p.start.saturating_sub(job.submit) as f64;
        let run = p.end.saturating_sub(p.start) as f64;
        let sd = ((wait + run) / run.max(SLOWDOWN_TAU)).max(1.0);
        let cs = job.cores as f64 * run;
        let a = e.job_assoc.get(i).copied().unwrap_or(0);
        let acc = e.assocs.get(a).map_or(0, |x| x.0);
        for x in [users.get_mut(a), accounts.get_mut(acc), Some(&mut all)]
            .into_iter()
            .flatten()
        {
            x.waits.push(wait);
            x.slowdowns += sd;
            x.core_seconds += cs;
        }
        waits.push((p.start.saturating_sub(job.submit), i));
    }
    let total = all.core_seconds;
    let site = outcome.shares.len() == e.assocs.len() && !e.assocs.is_empty();
    let shares = if site {
        outcome.shares.clone()
    } else {
        e.user_shares()
    };
    let na = e.accounts.len().max(1) as f64;
    // An account's share: the sum of its associations' in the site tree, else 1 / accounts.
    let mut account_share = vec![if site { 0.0 } else { 1.0 / na }; e.accounts.len()];
    if site {
        for ((a, _), s) in e.assocs.iter().zip(&shares) {
            if let Some(x) = account_share.get_mut(*a) {
                *x += s;
            }
        }
    }
    let user_stats: Vec<EntityStats> = users
        .iter_mut()
        .zip(&e.assocs)
        .zip(&shares)
        .map(|((u, (a, name)), s)| u.stats(name.clone(), e.accounts.get(*a).cloned(), total, *s))
        .collect();
    let account_stats: Vec<EntityStats> = accounts
        .iter_mut()
        .zip(&e.accounts)
        .zip(&account_share)
        .map(|((x, name), s)| x.stats(name.clone(), None, total, *s))
        .collect();
    let overall = all.stats(String::new(), None, total, 1.0);
    let slowdowns: Vec<f64> = user_stats
        .iter()
        .filter(|u| u.jobs > 0)
        .map(|u| u.slowdown)
        .collect();
    waits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let longest_waits = waits
        .iter()
        .take(LONGEST)
        .filter_map(|&(w, i)| {
            let j = trace.jobs.get(i)?;
            Some(LongWait {
                id: j.id.clone(),
                user: j.user.clone(),
                wait: w,
            })
        })
        .collect();
    let span = if last > first {
        last.saturating_sub(first) as f64
    } else {
        0.0
    };
    Report {
        jobs: trace.jobs.len() as u64,
        jobs_run: overall.jobs,
        too_large: (outcome.too_large.iter())
            .filter_map(|&i| trace.jobs.get(i).map(|j| j.id.clone()))
            .collect(),
        cores: cluster.cores(),
        first_submit: if first == i64::MAX { 0 } else { first },
        last_end: if last == i64::MIN { 0 } else { last },
        utilisation: if span > 0.0 {
            total / (cluster.cores() as f64 * span)
        } else {
            0.0
        },
        wait_mean: overall.wait_mean,
        slowdown: overall.slowdown,
        jain: jain(&slowdowns),
        passes: outcome.passes,
        backfilled: outcome.backfilled,
        share_updates: outcome.share_updates,
        formula_errors: outcome.formula_errors,
        first_formula_error: (outcome.first_formula_error.as_ref()).map(|(j, m)| FormulaErrorAt {
            job: trace
                .jobs
                .get(*j)
                .map_or_else(String::new, |x| x.id.clone()),
            message: m.clone(),
        }),
        users: user_stats,
        accounts: account_stats,
        longest_waits,
    }
}
