//! `fairsort order --csv` on a Slurm site: the rows as CSV (one per pending job and partition),
//! ranked as the scheduler considers them, each factor weighted as `sprio -l` shows it; a
//! formula's order and a comparison have their own columns. `--top N` keeps the first N ranks.

use crate::cli::CliResult;
use fairsort::order::explain::fmt;
use fairsort::order::QueueOrder;
use fairsort::slurm::multifactor::{Factors, PriorityRow};
use fairsort::slurm::whatif::{RowValues, WhatIf};
use std::io::Write;

/// The TRES factors as one cell: `cpu=12.5;mem=3` (`;` between them, so the cell needs no
/// quoting).
/// The first `top` ranked jobs with their rows: (place from 0, the ranked entry, the row).
fn ranked<'a>(
    rows: &'a [PriorityRow],
    order: &'a QueueOrder,
    top: Option<usize>,
) -> impl Iterator<Item = (usize, &'a fairsort::order::Ranked, &'a PriorityRow)> {
    order
        .ranked
        .iter()
        .take(top.unwrap_or(usize::MAX))
        .filter_map(|r| Some((r, rows.get(r.job as usize)?)))
        .enumerate()
        .map(|(pos, (r, row))| (pos, r, row))
}

fn tres(f: &Factors) -> String {
    f.tres
        .iter()
        .map(|(n, v)| format!("{n}={}", fmt(*v)))
        .collect::<Vec<_>>()
        .join(";")
}

/// sprio's rows in rank order: rank, the job, PRIORITY and each weighted factor.
pub(super) fn priorities(
    out: &mut (dyn Write + Send),
    rows: &[PriorityRow],
    order: &QueueOrder,
    top: Option<usize>,
) -> CliResult {
    let mut w = csv::Writer::from_writer(&mut *out);
    w.write_record([
        "rank",
        "job_id",
        "partition",
        "user",
        "account",
        "qos",
        "priority",
        "site",
        "age",
        "assoc",
        "fairshare",
        "jobsize",
        "partition_factor",
        "qos_factor",
        "nice",
        "tres",
    ])?;
    for (pos, _, row) in ranked(rows, order, top) {
        let f = &row.weighted;
        w.write_record([
            (pos + 1).to_string(),
            row.id.clone(),
            row.partition.clone(),
            row.user.clone(),
            row.account.clone(),
            row.qos.clone(),
            row.priority.to_string(),
            fmt(f.site),
            fmt(f.age),
            fmt(f.assoc),
            fmt(f.fairshare),
            fmt(f.jobsize),
            fmt(f.partition),
            fmt(f.qos),
            fmt(f.nice),
            tres(f),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// A formula's order over the rows: rank, the job, the formula's value, sprio's PRIORITY.
pub(super) fn formula(
    out: &mut (dyn Write + Send),
    rows: &[PriorityRow],
    order: &QueueOrder,
    values: &RowValues,
    top: Option<usize>,
) -> CliResult {
    let mut w = csv::Writer::from_writer(&mut *out);
    w.write_record([
        "rank",
        "job_id",
        "partition",
        "user",
        "account",
        "value",
        "priority",
        "error",
    ])?;
    for (pos, r, row) in ranked(rows, order, top) {
        w.write_record([
            (pos + 1).to_string(),
            row.id.clone(),
            row.partition.clone(),
            row.user.clone(),
            row.account.clone(),
            fmt(r.value),
            row.priority.to_string(),
            values.errors.get(&r.job).cloned().unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// A comparison: both ranks, the move and both values of each row.
pub(super) fn against(
    out: &mut (dyn Write + Send),
    rows: &[PriorityRow],
    cmp: &WhatIf,
    top: Option<usize>,
) -> CliResult {
    let mut w = csv::Writer::from_writer(&mut *out);
    w.write_record([
        "rank",
        "rank_against",
        "moved",
        "job_id",
        "partition",
        "user",
        "value",
        "value_against",
        "error",
    ])?;
    for r in cmp.rows.iter().take(top.unwrap_or(usize::MAX)) {
        let Some(row) = rows.get(r.row) else {
            continue;
        };
        w.write_record([
            r.rank.to_string(),
            r.rank_against.to_string(),
            r.moved.to_string(),
            row.id.clone(),
            row.partition.clone(),
            row.user.clone(),
            fmt(r.value),
            fmt(r.value_against),
            r.error.clone().unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    Ok(())
}
