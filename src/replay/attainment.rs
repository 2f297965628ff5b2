//! Share attainment over time: for each account (and user), its part of the core-seconds
//! delivered in each sampling interval (and from the start to the interval's end) against its
//! part of the shares. Computed from the schedule a replay produced (running jobs counted pro
//! rata within each interval), so two policies compare on the same grid.

use crate::replay::shares::Entities;
use crate::replay::sim::Outcome;
use crate::replay::trace::Trace;
use serde::Serialize;

/// The interval when none is given: a day for spans of 20 days or more, else the span / 50
/// (at least 1 s).
pub fn default_interval(span: i64) -> i64 {
    if span >= 20 * 86_400 {
        86_400
    } else {
        (span.max(1) + 49) / 50
    }
}

/// At most this many intervals: a longer series widens the interval (a multiple of the asked
/// one).
pub const MAX_INTERVALS: i64 = 2_000;

/// User series are left out when users × intervals would exceed this many values.
pub const MAX_USER_VALUES: usize = 4_000_000;

/// One entity's series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// Account name, or user name.
    pub name: String,
    /// The user's account (users only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// Its part of the shares.
    pub share: f64,
    /// Per interval: its part of the core-seconds delivered in the interval (0 when none was).
    pub usage_share: Vec<f64>,
    /// Per interval: its part of the core-seconds delivered from the start to the interval's end.
    pub cumulative_share: Vec<f64>,
}

/// Share attainment over the replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attainment {
    /// Interval length (s).
    pub interval: i64,
    /// Each interval's end (trace seconds); the first starts at the first submit.
    pub ends: Vec<i64>,
    /// Per account.
    pub accounts: Vec<Series>,
    /// Per user association (empty when there would be more than [`MAX_USER_VALUES`] values).
    pub users: Vec<Series>,
    /// Whether the user series were left out for their size.
    pub users_left_out: bool,
}

/// ⌈a / b⌉ for a ≥ 0, b ≥ 1.
fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

/// Share attainment of `outcome` sampled every `interval` seconds (default: [`default_interval`]).
pub fn attainment(trace: &Trace, outcome: &Outcome, interval: Option<i64>) -> Attainment {
    let e = Entities::of(trace);
    let mut first = i64::MAX;
    let mut last = i64::MIN;
    for (j, p) in trace.jobs.iter().zip(&outcome.placements) {
        if let Some(p) = p {
            first = first.min(j.submit);
            last = last.max(p.end);
        }
    }
    if first == i64::MAX {
        first = 0;
        last = 0;
    }
    let span = last.saturating_sub(first).max(1);
    let mut step = interval.unwrap_or_else(|| default_interval(span)).max(1);
    let mut n = ceil_div(span, step);
    if n > MAX_INTERVALS {
        step = step.saturating_mul(ceil_div(n, MAX_INTERVALS));
        n = ceil_div(span, step);
    }
    let n = n.max(1) as usize;
    let with_users = e.assocs.len().saturating_mul(n) <= MAX_USER_VALUES;
    let mut acc = vec![vec![0.0f64; n]; e.accounts.len()];
    let mut usr = if with_users {
        vec![vec![0.0f64; n]; e.assocs.len()]
    } else {
        Vec::new()
    };
    let mut all = vec![0.0f64; n];
    for (i, (job, p)) in trace.jobs.iter().zip(&outcome.placements).enumerate() {
        let Some(p) = p else { continue };
        if p.end <= p.start {
            continue;
        }
        let a = e.job_assoc.get(i).copied().unwrap_or(0);
        let g = e.assocs.get(a).map_or(0, |x| x.0);
        let k0 = (p.start.saturating_sub(first) / step).max(0) as usize;
        let mut k = k0;
        while k < n {
            let lo = first.saturating_add(step.saturating_mul(k as i64));
            let hi = lo.saturating_add(step);
            if lo >= p.end {
                break;
            }
            let overlap = p.end.min(hi).saturating_sub(p.start.max(lo)).max(0);
            let cs = job.cores as f64 * overlap as f64;
            for v in [acc.get_mut(g), usr.get_mut(a), Some(&mut all)]
                .into_iter()
                .flatten()
            {
                if let Some(x) = v.get_mut(k) {
                    *x += cs;
                }
            }
            k += 1;
        }
    }
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
    let series = |name: String, account: Option<String>, share: f64, used: &[f64]| {
        let mut cum = 0.0;
        let mut cum_all = 0.0;
        let mut usage_share = Vec::with_capacity(n);
        let mut cumulative_share = Vec::with_capacity(n);
        for (u, t) in used.iter().zip(&all) {
            cum += u;
            cum_all += t;
            usage_share.push(if *t > 0.0 { u / t } else { 0.0 });
            cumulative_share.push(if cum_all > 0.0 { cum / cum_all } else { 0.0 });
        }
        Series {
            name,
            account,
            share,
            usage_share,
            cumulative_share,
        }
    };
    let accounts = e
        .accounts
        .iter()
        .zip(&acc)
        .zip(&account_share)
        .map(|((name, used), s)| series(name.clone(), None, *s, used))
        .collect();
    let users = usr
        .iter()
        .zip(&e.assocs)
        .zip(&shares)
        .map(|((used, (a, name)), s)| series(name.clone(), e.accounts.get(*a).cloned(), *s, used))
        .collect();
    Attainment {
        interval: step,
        ends: (1..=n as i64)
            .map(|k| first.saturating_add(step.saturating_mul(k)))
            .collect(),
        accounts,
        users,
        users_left_out: !with_users,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::sim::Placement;
    use crate::replay::trace::TraceJob;

    fn job(id: &str, submit: i64, cores: u64, user: &str, account: &str) -> TraceJob {
        TraceJob {
            id: id.into(),
            submit,
            run: 0,
            walltime: None,
            cores,
            mem: 0,
            user: user.into(),
            account: account.into(),
            queue: "q".into(),
            qos: String::new(),
        }
    }

    #[test]
    fn splits_running_jobs_across_intervals() {
        // Interval 100 s from t=0. a runs 2 cores over 50..150 (100 core-s in each of the first
        // two intervals); b runs 1 core over 0..100 (100 core-s in the first).
        let trace = Trace {
            jobs: vec![job("1", 0, 2, "x", "a"), job("2", 0, 1, "y", "b")],
            ..Trace::default()
        };
        let outcome = Outcome {
            placements: vec![
                Some(Placement {
                    start: 50,
                    end: 150,
                }),
                Some(Placement { start: 0, end: 100 }),
            ],
            too_large: vec![],
            passes: 0,
            share_updates: 0,
            formula_errors: 0,
            first_formula_error: None,
            visits: 0,
            backfilled: 0,
            shares: vec![],
        };
        let at = attainment(&trace, &outcome, Some(100));
        assert_eq!(at.ends, [100, 200]);
        let a = &at.accounts[0];
        assert_eq!(a.share, 0.5);
        assert_eq!(a.usage_share, [0.5, 1.0]);
        assert_eq!(a.cumulative_share[1], 200.0 / 300.0);
        assert_eq!(at.accounts[1].usage_share, [0.5, 0.0]);
        assert_eq!(at.users[1].account.as_deref(), Some("b"));
        assert!(!at.users_left_out);
    }

    #[test]
    fn long_series_widen_the_interval() {
        let trace = Trace {
            jobs: vec![job("1", 0, 1, "x", "a")],
            ..Trace::default()
        };
        let outcome = Outcome {
            placements: vec![Some(Placement {
                start: 0,
                end: 10 * MAX_INTERVALS + 5,
            })],
            too_large: vec![],
            passes: 0,
            share_updates: 0,
            formula_errors: 0,
            first_formula_error: None,
            visits: 0,
            backfilled: 0,
            shares: vec![],
        };
        // 1 s asked: 20 005 intervals; widened to 11 s, 1 819 intervals.
        let at = attainment(&trace, &outcome, Some(1));
        assert_eq!(at.interval, 11);
        assert_eq!(at.ends.len(), 1_819);
        assert!(at.ends.len() as i64 <= MAX_INTERVALS);
        assert!(at.accounts[0].usage_share.iter().all(|&u| u == 1.0));
    }

    #[test]
    fn default_interval_is_a_day_for_long_spans() {
        assert_eq!(default_interval(365 * 86_400), 86_400);
        assert_eq!(default_interval(400), 8);
        assert_eq!(default_interval(0), 1);
    }
}
