//! A replay's sections: the overall figures of each policy side by side, waits per account and
//! per user, share attainment over time, and (with a second policy) the jobs whose wait moved
//! most. The pictures are the replay's own (`replay::attainment_svg`, `replay::waits_svg`).

use super::{Cell, Column, Figure, Limits, ReportError, Section, Table};
use crate::replay::{attainment_svg, waits_svg, Attainment, EntityStats, Outcome, Report, Trace};
use std::collections::HashMap;

/// One replayed policy: its label (`A`, `B`), what ordered it, and its results.
#[derive(Debug, Clone, Copy)]
pub struct Policy<'a> {
    /// `A`, `B`.
    pub label: &'a str,
    /// The formula (or the scheduler's priority) it replayed.
    pub formula: &'a str,
    /// Where each job ran.
    pub outcome: &'a Outcome,
    /// Its summary.
    pub report: &'a Report,
    /// Its share attainment over time.
    pub attainment: &'a Attainment,
}

impl Policy<'_> {
    fn name(&self) -> String {
        format!("{} ({})", self.label, self.formula)
    }
}

/// Every run job's wait (s), in trace order.
fn waits(trace: &Trace, o: &Outcome) -> Vec<f64> {
    (trace.jobs.iter().zip(&o.placements))
        .filter_map(|(j, p)| p.map(|p| p.start.saturating_sub(j.submit) as f64))
        .collect()
}

/// The sections of the replay of `trace` under `policies` (one or two).
pub fn replay_sections(
    trace: &Trace,
    policies: &[Policy<'_>],
    limits: Limits,
) -> Result<Vec<Section>, ReportError> {
    let plot_error = |what| {
        move |e: crate::replay::PlotError| ReportError::Plot {
            what,
            message: e.to_string(),
        }
    };
    let names: Vec<String> = policies.iter().map(Policy::name).collect();
    let series: Vec<(&str, Vec<f64>)> = (names.iter().zip(policies))
        .map(|(n, p)| (n.as_str(), waits(trace, p.outcome)))
        .collect();
    let waits_picture = waits_svg(&series).map_err(plot_error("the waits"))?;
    let panels: Vec<(&str, &Attainment)> = (names.iter().zip(policies))
        .map(|(n, p)| (n.as_str(), p.attainment))
        .collect();
    let attainment_picture = attainment_svg(&panels).map_err(plot_error("the attainment"))?;
    let mut sections = vec![summary(trace, policies)];
    sections.push(Section {
        id: "replay-waits".into(),
        title: "Waits per account and per user".into(),
        notes: vec![
            "Waits in seconds; usage is each one's part of the core-seconds used, share its part \
             of the shares."
                .into(),
        ],
        figures: vec![Figure {
            caption: "The fraction of jobs that waited at most x hours, per policy".into(),
            svg: waits_picture,
        }],
        tables: vec![
            entity_table(
                "replay-accounts",
                "Per account",
                policies,
                |r| &r.accounts,
                limits,
            ),
            entity_table("replay-users", "Per user", policies, |r| &r.users, limits),
        ],
    });
    sections.push(Section {
        id: "replay-attainment".into(),
        title: "Share attainment over time".into(),
        notes: vec![
            "Each account's part of the core-seconds delivered per interval over its part of the \
             shares (1: exactly its share), one panel per policy."
                .into(),
        ],
        figures: vec![Figure {
            caption: "Usage share / share per account over time".into(),
            svg: attainment_picture,
        }],
        tables: Vec::new(),
    });
    if let [a, b] = policies {
        sections.push(movers(trace, a, b, limits));
    }
    Ok(sections)
}

/// The overall figures, one column per policy (and B − A).
fn summary(trace: &Trace, policies: &[Policy<'_>]) -> Section {
    let mut columns = vec![Column::text("figure")];
    columns.extend(policies.iter().map(|p| Column::number(p.label)));
    let two = policies.len() == 2;
    if two {
        columns.push(Column::number("B-A"));
    }
    type Figure = (&'static str, fn(&Report) -> f64, fn(f64) -> Cell);
    let figures: [Figure; 7] = [
        ("utilisation", |r| r.utilisation, Cell::percent),
        (
            "mean wait (s)",
            |r| r.wait_mean,
            |v| Cell::number(v, format!("{v:.0}")),
        ),
        (
            "mean bounded slowdown",
            |r| r.slowdown,
            |v| Cell::number(v, format!("{v:.2}")),
        ),
        (
            "Jain's index",
            |r| r.jain,
            |v| Cell::number(v, format!("{v:.3}")),
        ),
        (
            "jobs run",
            |r| r.jobs_run as f64,
            |v| Cell::number(v, format!("{v}")),
        ),
        (
            "backfilled",
            |r| r.backfilled as f64,
            |v| Cell::number(v, format!("{v}")),
        ),
        (
            "passes",
            |r| r.passes as f64,
            |v| Cell::number(v, format!("{v}")),
        ),
    ];
    let rows = (figures.iter())
        .map(|(name, get, cell)| {
            let mut row = vec![Cell::text(*name)];
            row.extend(policies.iter().map(|p| cell(get(p.report))));
            if let [a, b] = policies {
                row.push(cell(get(b.report) - get(a.report)));
            }
            row
        })
        .collect::<Vec<_>>();
    let mut notes: Vec<String> = policies
        .iter()
        .map(|p| format!("{}: {}", p.label, p.formula))
        .collect();
    if let Some(p) = policies.first() {
        notes.push(format!(
            "{} jobs in the trace, {} cores; {} larger than the cluster (skipped).",
            trace.jobs.len(),
            p.report.cores,
            p.report.too_large.len()
        ));
    }
    Section {
        id: "replay".into(),
        title: if two {
            "The two policies side by side".into()
        } else {
            "The replay".into()
        },
        notes,
        figures: Vec::new(),
        tables: vec![Table {
            id: "replay-summary".into(),
            caption: "Overall".into(),
            total: rows.len(),
            columns,
            rows,
        }],
    }
}

/// Per account or per user: jobs, share, each policy's mean wait and usage share (and B − A).
fn entity_table(
    id: &str,
    caption: &str,
    policies: &[Policy<'_>],
    of: fn(&Report) -> &Vec<EntityStats>,
    limits: Limits,
) -> Table {
    let key = |e: &EntityStats| (e.account.clone().unwrap_or_default(), e.name.clone());
    let others: Vec<HashMap<(String, String), &EntityStats>> = (policies.iter().skip(1))
        .map(|p| of(p.report).iter().map(|e| (key(e), e)).collect())
        .collect();
    let users = id.ends_with("users");
    let mut columns = vec![Column::text("name")];
    if users {
        columns.push(Column::text("account"));
    }
    columns.extend([Column::number("jobs"), Column::number("share")]);
    for p in policies {
        columns.push(Column::number(&format!("wait {}", p.label)));
    }
    if policies.len() == 2 {
        columns.push(Column::number("wait B-A"));
    }
    for p in policies {
        columns.push(Column::number(&format!("usage {}", p.label)));
    }
    let Some(first) = policies.first() else {
        return Table::default();
    };
    let all = of(first.report);
    let wait = |v: f64| Cell::number(v, format!("{v:.0}"));
    let rows = (all.iter().take(limits.rows))
        .map(|e| {
            let k = key(e);
            let rest: Vec<Option<&EntityStats>> =
                others.iter().map(|m| m.get(&k).copied()).collect();
            let mut row = vec![Cell::text(e.name.as_str())];
            if users {
                row.push(Cell::text(e.account.clone().unwrap_or_default()));
            }
            row.extend([Cell::count(e.jobs), Cell::percent(e.share)]);
            row.push(wait(e.wait_mean));
            row.extend(
                rest.iter()
                    .map(|o| o.map_or_else(Cell::default, |o| wait(o.wait_mean))),
            );
            if let [Some(b)] = rest.as_slice() {
                row.push(wait(b.wait_mean - e.wait_mean));
            } else if policies.len() == 2 {
                row.push(Cell::default());
            }
            row.push(Cell::percent(e.usage_share));
            row.extend(
                rest.iter()
                    .map(|o| o.map_or_else(Cell::default, |o| Cell::percent(o.usage_share))),
            );
            row
        })
        .collect();
    Table {
        id: id.into(),
        caption: caption.into(),
        columns,
        rows,
        total: all.len(),
    }
}

/// The jobs whose wait differs most between the two policies (ties in trace order).
fn movers(trace: &Trace, a: &Policy<'_>, b: &Policy<'_>, limits: Limits) -> Section {
    let mut moved: Vec<(usize, i64, i64)> = (trace.jobs.iter().enumerate())
        .filter_map(|(i, j)| {
            let pa = a.outcome.placements.get(i).copied().flatten()?;
            let pb = b.outcome.placements.get(i).copied().flatten()?;
            Some((i, pa.start - j.submit, pb.start - j.submit))
        })
        .collect();
    let total = moved.iter().filter(|(_, wa, wb)| wa != wb).count();
    moved.sort_by_key(|&(i, wa, wb)| (std::cmp::Reverse((wb - wa).unsigned_abs()), i));
    moved.truncate(limits.rows.min(total));
    let rows = (moved.iter())
        .filter_map(|&(i, wa, wb)| {
            let j = trace.jobs.get(i)?;
            let secs = |v: i64| Cell::number(v as f64, v.to_string());
            Some(vec![
                Cell::text(j.id.as_str()),
                Cell::text(j.user.as_str()),
                Cell::text(j.account.as_str()),
                Cell::count(j.cores),
                secs(j.submit),
                secs(wa),
                secs(wb),
                secs(wb - wa),
            ])
        })
        .collect();
    Section {
        id: "replay-movers".into(),
        title: "The jobs that moved most".into(),
        notes: vec![format!(
            "{total} jobs wait a different time under B than under A; the largest changes first \
             (negative: B starts the job sooner)."
        )],
        figures: Vec::new(),
        tables: vec![Table {
            id: "replay-moved".into(),
            caption: "Waits under A and B (s)".into(),
            columns: vec![
                Column::text("job"),
                Column::text("user"),
                Column::text("account"),
                Column::number("cores"),
                Column::number("submit"),
                Column::number("wait A"),
                Column::number("wait B"),
                Column::number("wait B-A"),
            ],
            rows,
            total,
        }],
    }
}
