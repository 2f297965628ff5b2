//! The queue section: the jobs in the order the dry run ranks them, each with its value, its
//! status and the value of each additive term of the formula (the data of `order --explain`'s
//! terms table, for every job shown).

use super::{Cell, Column, Limits, ReportError, Section, Table};
use crate::formula::Program;
use crate::order::dry_run::DryRun;
use crate::order::report::{rows, status_cell};
use crate::scenario::Scenario;

/// The queue of `sc` as `dry` ordered it under `program`: the first `limits.rows` jobs.
pub fn queue_section(
    sc: &Scenario,
    program: &Program,
    dry: &DryRun,
    limits: Limits,
) -> Result<Section, ReportError> {
    let jobs = &sc.setup.jobs;
    let shown = rows(jobs, &dry.order, Some(limits.rows));
    let mut columns = vec![
        Column::number("rank"),
        Column::text("job id"),
        Column::text("owner"),
        Column::text("queue"),
        Column::number("value"),
        Column::text("status"),
    ];
    let mut table_rows = Vec::with_capacity(shown.len());
    let mut terms: Option<Vec<String>> = None;
    for row in shown.iter() {
        let x = sc
            .explain(program, dry, row.id)
            .map_err(|e| ReportError::Data(e.to_string()))?;
        if terms.is_none() {
            let names: Vec<String> = x.terms.iter().map(|t| t.term.clone()).collect();
            columns.extend(names.iter().map(|n| Column::number(n)));
            terms = Some(names);
        }
        let mut status = String::new();
        status_cell(&row, &mut status);
        let mut cells = vec![
            Cell::count(row.rank as u64),
            Cell::text(row.id),
            Cell::text(row.owner),
            Cell::text(row.queue),
            Cell::value(row.value),
            Cell::text(status),
        ];
        cells.extend(x.terms.iter().map(|t| match &t.error {
            Some(e) => Cell::text(format!("error: {e}")),
            None => Cell::value(t.value),
        }));
        table_rows.push(cells);
    }
    let summary = dry.order.summary;
    let mut notes = vec![format!(
        "{} jobs, {} eligible this cycle{}; ranked first to last as the scheduler considers them. \
         Each term column is that term's value for the job (the formula's value is their sum).",
        summary.total,
        summary.eligible,
        match summary.below_threshold {
            0 => String::new(),
            n => format!(", {n} below the threshold"),
        }
    )];
    if !dry.order.errors.is_empty() {
        notes.push(format!(
            "{} evaluation error(s): those jobs are valued 0, as PBS does.",
            dry.order.errors.len()
        ));
    }
    Ok(Section {
        id: "queue".into(),
        title: "The queue in order".into(),
        notes,
        figures: Vec::new(),
        tables: vec![Table {
            id: "queue-jobs".into(),
            caption: format!("Jobs by rank under {}", program.source()),
            columns,
            rows: table_rows,
            total: summary.total,
        }],
    })
}
