//! The one output path of `fairsort order`, whatever the scheduler: the flags choose what is
//! printed (the order, one job's explanation, a comparison) and how (a text report, `--json`,
//! `--csv`); every text report starts with its header and the `sources:` block naming where
//! each input came from, and every JSON document carries the same as its `sources` object.
//! Each scheduler's path gives its rows through [`SchedulerOrder`].

use super::Args;
use crate::cli::{CliResult, Failure};
use fairsort::scenario::sources::Sources;
use serde::Serialize;
use std::io::Write;

/// What the flags ask to print.
pub(super) enum Body<'a> {
    /// The order (`--top` rows of it).
    Order,
    /// One job's explanation (`--explain JOBID`).
    Explain(&'a str),
    /// A comparison (`--against`, `--against-weights`).
    Against,
}

/// How.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// A text report.
    Text,
    /// `--json`.
    Json,
    /// `--csv`.
    Csv,
}

/// One scheduler's computed order, printed by [`print`].
pub(super) trait SchedulerOrder {
    /// Where each input came from.
    fn sources(&self) -> &Sources;
    /// What the header calls the formula's line in the sources (`formula`, or `weights`).
    fn formula_label(&self) -> &'static str {
        "formula"
    }
    /// The text header's lines before the sources (may be empty).
    fn header(&self, body: &Body<'_>) -> Result<String, Failure>;
    /// The text report's body.
    fn text(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult;
    /// The JSON document (written with [`json`], which adds the sources).
    fn json(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult;
    /// The CSV rows (`--csv`); not every scheduler has them.
    fn csv(&self, _out: &mut (dyn Write + Send), _body: &Body<'_>) -> CliResult {
        Err(Failure::usage(
            "--csv does not apply to this scheduler's order",
        ))
    }
    /// What `fairsort metrics` takes of the order: its jobs, the share tree and the
    /// algorithms the site uses over it.
    fn metrics(&self) -> Result<OrderMetrics, Failure>;
}

/// An order as `fairsort metrics` writes it.
pub(crate) struct OrderMetrics {
    /// `pbs`, `slurm` or `flux`.
    pub scheduler: &'static str,
    /// Every job, ranked or not.
    pub jobs: Vec<fairsort::metrics::QueueJob>,
    /// The share tree the order used, if any.
    pub tree: Option<fairsort::fairshare::Tree>,
    /// Results already computed over that tree (the formula's keywords').
    pub results: Vec<fairsort::fairshare::ShareResult>,
    /// Every algorithm the site uses (its own, and the formula's keywords').
    pub algorithms: Vec<fairsort::fairshare::Algorithm>,
}

/// Where a computed order goes: printed as the flags ask, or handed to `fairsort metrics`.
pub(crate) enum Sink<'a> {
    /// Printed on standard output.
    Print,
    /// Kept for the metrics.
    Metrics(&'a mut Option<OrderMetrics>),
    /// Printed on `out` and kept (a report's queue and its share tree).
    Both(&'a mut Option<OrderMetrics>),
}

/// Prints `order` (on `out`) or keeps what the metrics take of it, as `sink` says.
pub(super) fn emit(
    sink: &mut Sink<'_>,
    out: &mut (dyn Write + Send),
    args: &Args,
    order: &dyn SchedulerOrder,
) -> CliResult {
    match sink {
        Sink::Print => print(out, args, order),
        Sink::Metrics(kept) => {
            **kept = Some(order.metrics()?);
            Ok(())
        }
        Sink::Both(kept) => {
            print(out, args, order)?;
            **kept = Some(order.metrics()?);
            Ok(())
        }
    }
}

/// What the flags ask for.
pub(super) fn body(args: &Args) -> Body<'_> {
    if args.against.is_some() || args.against_weights.is_some() {
        Body::Against
    } else if let Some(id) = &args.explain {
        Body::Explain(id)
    } else {
        Body::Order
    }
}

/// How the flags ask for it.
pub(super) fn format(args: &Args) -> Format {
    if args.json {
        Format::Json
    } else if args.csv {
        Format::Csv
    } else {
        Format::Text
    }
}

/// Prints `order` as the flags ask, on `out`.
pub(super) fn print(
    out: &mut (dyn Write + Send),
    args: &Args,
    order: &dyn SchedulerOrder,
) -> CliResult {
    let body = body(args);
    match format(args) {
        Format::Json => order.json(out, &body),
        Format::Csv => order.csv(out, &body),
        Format::Text => {
            write!(out, "{}", order.header(&body)?)?;
            write!(
                out,
                "{}",
                crate::cli::sources::header(order.sources(), order.formula_label())
            )?;
            writeln!(out)?;
            order.text(out, &body)
        }
    }
}

/// A JSON document with the inputs' sources as its `sources` member (after the document's own).
#[derive(Serialize)]
struct WithSources<'a, T: Serialize> {
    #[serde(flatten)]
    doc: &'a T,
    sources: &'a Sources,
}

/// Writes `doc` (a JSON object) pretty-printed with its `sources`, and a newline.
pub(super) fn json<T: Serialize>(
    out: &mut (dyn Write + Send),
    doc: &T,
    sources: &Sources,
) -> CliResult {
    serde_json::to_writer_pretty(&mut *out, &WithSources { doc, sources })?;
    writeln!(out)?;
    Ok(())
}

/// A rank change as a comparison prints it: `+3`, `-2`, `=`.
pub(super) fn moved(d: i64) -> String {
    match d.cmp(&0) {
        std::cmp::Ordering::Greater => format!("+{d}"),
        std::cmp::Ordering::Less => d.to_string(),
        std::cmp::Ordering::Equal => "=".to_string(),
    }
}

/// The last line of a comparison: both rank correlations (`n/a` when undefined).
pub(super) fn correlation_line(
    out: &mut (dyn Write + Send),
    spearman: Option<f64>,
    kendall: Option<f64>,
) -> CliResult {
    let num = |v: Option<f64>| v.map(|x| format!("{x:.4}")).unwrap_or_else(|| "n/a".into());
    writeln!(
        out,
        "rank correlation: Spearman {}, Kendall tau {} (1 = same order, -1 = reversed)",
        num(spearman),
        num(kendall)
    )?;
    Ok(())
}

/// The movers' lines of a comparison: `(label, rank, rank against, moved)` each.
pub(super) fn movers(
    out: &mut (dyn Write + Send),
    movers: impl ExactSizeIterator<Item = (String, u32, u32, i64)>,
) -> CliResult {
    if movers.len() == 0 {
        writeln!(out, "no job changes rank")?;
        return Ok(());
    }
    writeln!(out, "biggest movers (+ = earlier under --against):")?;
    for (label, rank, against, d) in movers {
        writeln!(
            out,
            "  {label:<12} {rank:>4} -> {against:<4} ({})",
            moved(d)
        )?;
    }
    Ok(())
}
