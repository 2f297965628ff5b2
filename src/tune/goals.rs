//! The goals an admin tunes for, named as admins say them: objectives (`share-error`,
//! `p95-wait:g1`, …) and constraints (`p95-wait<=12h`), measured on a replay's report.

use crate::replay::{Outcome, Report, Trace};
use crate::tune::error::TuneError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A figure of a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Metric {
    /// Σ over accounts of (delivered share − target share)², the residual LLNL proposes for
    /// flux's fair share; for one account, its own squared residual. The delivered share is
    /// the account's part of the core-seconds run while jobs were still being submitted
    /// ([`Measured::delivered`]).
    ShareError,
    /// The largest |delivered share − target share| over the accounts.
    MaxShareError,
    /// Mean wait (s).
    MeanWait,
    /// 95th percentile wait (s, nearest rank).
    P95Wait,
    /// Longest wait (s).
    MaxWait,
    /// Mean bounded slowdown.
    BoundedSlowdown,
    /// Core-seconds used over cores × span (higher is better).
    Utilisation,
    /// Jain's index over the users' mean bounded slowdowns (higher is better).
    Jain,
}

/// Every metric with its name, in the order outputs list them.
pub const METRICS: [(Metric, &str); 8] = [
    (Metric::ShareError, "share-error"),
    (Metric::MaxShareError, "max-share-error"),
    (Metric::MeanWait, "mean-wait"),
    (Metric::P95Wait, "p95-wait"),
    (Metric::MaxWait, "max-wait"),
    (Metric::BoundedSlowdown, "bounded-slowdown"),
    (Metric::Utilisation, "utilisation"),
    (Metric::Jain, "jain"),
];

impl Metric {
    /// Its name as the flags write it.
    pub fn name(self) -> &'static str {
        METRICS
            .iter()
            .find(|(m, _)| *m == self)
            .map_or("", |(_, n)| n)
    }

    /// Whether larger values are better (utilisation, Jain's index).
    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Utilisation | Metric::Jain)
    }

    /// Whether its values are durations (seconds).
    pub fn is_duration(self) -> bool {
        matches!(self, Metric::MeanWait | Metric::P95Wait | Metric::MaxWait)
    }
}

/// A metric, overall or for one account (`p95-wait:g1`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Goal {
    /// The figure.
    pub metric: Metric,
    /// The account it is measured on; `None`: over all jobs (or all accounts).
    pub account: Option<String>,
}

impl Goal {
    /// Parses `METRIC` or `METRIC:ACCOUNT`.
    pub fn parse(s: &str) -> Result<Goal, TuneError> {
        let s = s.trim();
        let (name, account) = match s.split_once(':') {
            Some((n, a)) if !a.trim().is_empty() => (n.trim(), Some(a.trim().to_string())),
            Some(_) => {
                return Err(TuneError::Goal(format!(
                    "`{s}`: an account name is missing after `:`"
                )))
            }
            None => (s, None),
        };
        let metric = METRICS
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(m, _)| *m)
            .ok_or_else(|| {
                let names: Vec<&str> = METRICS.iter().map(|(_, n)| *n).collect();
                TuneError::Goal(format!(
                    "unknown metric `{name}` (expected {}, optionally `:ACCOUNT`)",
                    names.join(", ")
                ))
            })?;
        if account.is_some() && matches!(metric, Metric::Utilisation | Metric::Jain) {
            return Err(TuneError::Goal(format!(
                "`{s}`: {name} is measured over the whole cluster, not per account"
            )));
        }
        Ok(Goal { metric, account })
    }

    /// Its name (`p95-wait`, `p95-wait:g1`).
    pub fn name(&self) -> String {
        match &self.account {
            Some(a) => format!("{}:{a}", self.metric.name()),
            None => self.metric.name().to_string(),
        }
    }

    /// Its value in one replay.
    pub fn value(&self, m: &Measured) -> Result<f64, TuneError> {
        let r = &m.report;
        let account = |name: &str| {
            r.accounts
                .iter()
                .position(|a| a.name == name)
                .ok_or_else(|| {
                    TuneError::Goal(format!(
                        "{}: the trace has no account `{name}`",
                        self.name()
                    ))
                })
        };
        let residual = |a: &crate::replay::EntityStats| {
            m.delivered.get(&a.name).copied().unwrap_or(0.0) - a.share
        };
        Ok(match (self.metric, self.account.as_deref()) {
            (Metric::ShareError, None) => r.accounts.iter().map(|a| residual(a).powi(2)).sum(),
            (Metric::ShareError, Some(n)) => residual(&r.accounts[account(n)?]).powi(2),
            (Metric::MaxShareError, None) => r
                .accounts
                .iter()
                .map(|a| residual(a).abs())
                .fold(0.0, f64::max),
            (Metric::MaxShareError, Some(n)) => residual(&r.accounts[account(n)?]).abs(),
            (Metric::MeanWait, None) => r.wait_mean,
            (Metric::BoundedSlowdown, None) => r.slowdown,
            (Metric::Utilisation, _) => r.utilisation,
            (Metric::Jain, _) => r.jain,
            (Metric::MeanWait, Some(n)) => r.accounts[account(n)?].wait_mean,
            (Metric::BoundedSlowdown, Some(n)) => r.accounts[account(n)?].slowdown,
            (Metric::P95Wait | Metric::MaxWait, a) => {
                let waits = match a {
                    None => &m.waits,
                    Some(n) => m.account_waits.get(n).ok_or_else(|| {
                        TuneError::Goal(format!("{}: the trace has no account `{n}`", self.name()))
                    })?,
                };
                if self.metric == Metric::MaxWait {
                    waits.last().copied().unwrap_or(0.0)
                } else {
                    nearest_rank(waits, 0.95)
                }
            }
        })
    }

    /// The value as the search minimises it (negated where higher is better).
    pub fn score(&self, value: f64) -> f64 {
        if self.metric.higher_is_better() {
            -value
        } else {
            value
        }
    }
}

/// The `p` quantile of sorted `xs` by nearest rank (0 for none).
fn nearest_rank(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let k = ((p * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
    xs[k - 1]
}

/// What the goals are measured on: a replay's report and its waits, sorted, overall and per
/// account.
#[derive(Debug, Clone)]
pub struct Measured {
    /// The report.
    pub report: Report,
    /// Every run job's wait (s), ascending.
    pub waits: Vec<f64>,
    /// Per account, its jobs' waits, ascending.
    pub account_waits: BTreeMap<String, Vec<f64>>,
    /// Per account, its part of the core-seconds run from the first submit to the last: what
    /// the policy delivered while there was a queue to order. (Over the whole replay every
    /// job runs in the end, so each account's part is its part of the work whatever the
    /// policy; the drain after the last submit is left out.)
    pub delivered: BTreeMap<String, f64>,
}

impl Measured {
    /// The measures of `outcome`, a replay of `trace` summed up in `report`.
    pub fn new(trace: &Trace, outcome: &Outcome, report: Report) -> Measured {
        let mut waits = Vec::new();
        let mut account_waits: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let first = trace.jobs.iter().map(|j| j.submit).min().unwrap_or(0);
        let last = trace.jobs.iter().map(|j| j.submit).max().unwrap_or(0);
        let mut delivered: BTreeMap<String, f64> = BTreeMap::new();
        let mut total = 0.0;
        for (j, p) in trace.jobs.iter().zip(&outcome.placements) {
            if let Some(p) = p {
                let w = p.start.saturating_sub(j.submit) as f64;
                waits.push(w);
                account_waits.entry(j.account.clone()).or_default().push(w);
                let ran = (p.end.min(last) - p.start.max(first)).max(0) as f64 * j.cores as f64;
                *delivered.entry(j.account.clone()).or_default() += ran;
                total += ran;
            }
        }
        if total > 0.0 {
            for v in delivered.values_mut() {
                *v /= total;
            }
        }
        waits.sort_by(f64::total_cmp);
        for v in account_waits.values_mut() {
            v.sort_by(f64::total_cmp);
        }
        Measured {
            report,
            waits,
            account_waits,
            delivered,
        }
    }
}

/// How a constraint compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bound {
    /// The value must be at most the limit.
    AtMost,
    /// The value must be at least the limit.
    AtLeast,
}

/// A constraint: `METRIC<=VALUE` or `METRIC>=VALUE`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Constraint {
    /// What is bounded.
    pub goal: Goal,
    /// Which way.
    pub bound: Bound,
    /// The limit (seconds for waits, a fraction for utilisation and shares).
    pub limit: f64,
    /// As written.
    pub text: String,
}

impl Constraint {
    /// Parses `METRIC<=VALUE` or `METRIC>=VALUE` (`<` and `>` read as `<=` and `>=`); `value`
    /// reads the limit of a duration metric (`12h`); other limits are numbers or percentages
    /// (`85%`).
    pub fn parse(
        s: &str,
        duration: &dyn Fn(&str) -> Result<f64, String>,
    ) -> Result<Constraint, TuneError> {
        let (at, bound, len) = match (s.find("<="), s.find(">="), s.find('<'), s.find('>')) {
            (Some(i), _, _, _) => (i, Bound::AtMost, 2),
            (_, Some(i), _, _) => (i, Bound::AtLeast, 2),
            (_, _, Some(i), _) => (i, Bound::AtMost, 1),
            (_, _, _, Some(i)) => (i, Bound::AtLeast, 1),
            _ => {
                return Err(TuneError::Goal(format!(
                    "--subject-to `{s}`: expected METRIC<=VALUE or METRIC>=VALUE"
                )))
            }
        };
        let goal = Goal::parse(&s[..at])?;
        let v = s[at + len..].trim();
        let limit = if goal.metric.is_duration() {
            duration(v)
        } else if let Some(p) = v.strip_suffix('%') {
            p.trim()
                .parse::<f64>()
                .map(|x| x / 100.0)
                .map_err(|e| e.to_string())
        } else {
            v.parse::<f64>().map_err(|e| e.to_string())
        }
        .map_err(|e| TuneError::Goal(format!("--subject-to `{s}`: `{v}`: {e}")))?;
        if !limit.is_finite() {
            return Err(TuneError::Goal(format!(
                "--subject-to `{s}`: the limit must be finite"
            )));
        }
        Ok(Constraint {
            goal,
            bound,
            limit,
            text: s.trim().to_string(),
        })
    }

    /// How far `value` is outside the bound, relative to the limit (0 when it holds).
    pub fn violation(&self, value: f64) -> f64 {
        let over = match self.bound {
            Bound::AtMost => value - self.limit,
            Bound::AtLeast => self.limit - value,
        };
        if over <= 0.0 {
            0.0
        } else {
            over / self.limit.abs().max(1e-9)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: &str) -> Result<f64, String> {
        match s.strip_suffix('h') {
            Some(h) => h
                .parse::<f64>()
                .map(|x| x * 3600.0)
                .map_err(|e| e.to_string()),
            None => s.parse::<f64>().map_err(|e| e.to_string()),
        }
    }

    #[test]
    fn goals_and_constraints_read_as_admins_write_them() {
        let g = Goal::parse("p95-wait:g1").unwrap();
        assert_eq!(
            (g.metric, g.account.as_deref()),
            (Metric::P95Wait, Some("g1"))
        );
        assert_eq!(g.name(), "p95-wait:g1");
        assert!(Goal::parse("wait").is_err());
        assert!(Goal::parse("jain:g1").is_err());
        let c = Constraint::parse("p95-wait<=12h", &secs).unwrap();
        assert_eq!((c.bound, c.limit), (Bound::AtMost, 43_200.0));
        assert_eq!(c.violation(43_200.0), 0.0);
        assert!((c.violation(86_400.0) - 1.0).abs() < 1e-12);
        let c = Constraint::parse("utilisation >= 85%", &secs).unwrap();
        assert_eq!((c.bound, c.limit), (Bound::AtLeast, 0.85));
        assert!(c.violation(0.80) > 0.0);
        assert!(Constraint::parse("mean-wait=3", &secs).is_err());
        assert!(Constraint::parse("mean-wait<=soon", &secs).is_err());
    }

    #[test]
    fn nearest_rank_quantiles() {
        let xs: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(nearest_rank(&xs, 0.95), 19.0);
        assert_eq!(nearest_rank(&[5.0], 0.95), 5.0);
        assert_eq!(nearest_rank(&[], 0.95), 0.0);
        assert_eq!(Goal::parse("jain").unwrap().score(0.9), -0.9);
    }
}
