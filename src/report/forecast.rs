//! The forecast's section: each job in the scheduler's order with its predicted start and, for
//! the ones that wait, why (`fairsort forecast`'s table).

use super::{Cell, Column, Limits, Section, Table};
use crate::forecast::Forecast;

/// A moment as UTC text (`2026-01-02T03:04:05Z`), or the epoch seconds if out of range.
fn moment(at: i64) -> String {
    jiff::Timestamp::from_second(at)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| at.to_string())
}

/// The forecast `fc`: its first `limits.rows` jobs.
pub fn forecast_section(fc: &Forecast, limits: Limits) -> Section {
    let when = |v: Option<i64>| match v {
        Some(s) => Cell::number(s as f64, moment(s)),
        None => Cell::text("never"),
    };
    let rows = (fc.jobs.iter().take(limits.rows))
        .map(|j| {
            vec![
                j.rank.map_or_else(Cell::default, |r| Cell::count(r as u64)),
                Cell::text(j.id.as_str()),
                Cell::text(j.state.as_str()),
                Cell::text(j.queue.as_str()),
                Cell::text(j.user.as_str()),
                Cell::count(j.cores),
                Cell::number(j.walltime as f64, j.walltime.to_string()),
                Cell::maybe(j.priority),
                Cell::text(if j.runs_now { "yes" } else { "" }),
                when(j.start),
                when(j.end),
                Cell::text(j.reason.clone().unwrap_or_default()),
            ]
        })
        .collect();
    let mut notes = vec![format!(
        "From {} ({}): {} cores, {} free; {} running jobs. Starts and ends are UTC.",
        moment(fc.at),
        fc.policy,
        fc.cores,
        fc.free_cores,
        fc.running
    )];
    notes.extend(fc.warnings.iter().cloned());
    Section {
        id: "forecast".into(),
        title: "The forecast".into(),
        notes,
        figures: Vec::new(),
        tables: vec![Table {
            id: "forecast-jobs".into(),
            caption: "Pending jobs in the scheduler's order: when each starts, and why it waits"
                .into(),
            columns: vec![
                Column::number("rank"),
                Column::text("job id"),
                Column::text("state"),
                Column::text("queue"),
                Column::text("user"),
                Column::number("cores"),
                Column::number("walltime (s)"),
                Column::number("priority"),
                Column::text("starts now"),
                Column::number("start"),
                Column::number("end"),
                Column::text("why it waits"),
            ],
            rows,
            total: fc.jobs.len(),
        }],
    }
}
