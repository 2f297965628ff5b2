//! `fairsort report`: one self-contained HTML file (docs/report.md). The inputs are those of
//! `order` (the queue and its site), `report replay` those of `replay`, `report forecast` those
//! of `forecast`, gathered by those commands' own code; the page is the library's
//! (`fairsort::report`); this file writes it atomically (`-o -`: standard output).

use super::order::pbs::Ordered;
use super::order::ReportQueue;
use super::{CliResult, Failure, Global};
use fairsort::fairshare::Options;
use fairsort::report::{self, Limits, Page, Policy};
use fairsort::scenario::sources::Sources;
use std::path::{Path, PathBuf};

/// Arguments of `fairsort report`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    /// A replay or a forecast instead of the queue.
    #[command(subcommand)]
    pub what: Option<What>,
    /// The queue's inputs, as `fairsort order` takes them.
    #[command(flatten)]
    pub order: super::order::Inputs,
    /// Where to write the page.
    #[command(flatten)]
    pub out: Out,
}

/// Where the page goes and how long its tables are.
#[derive(Debug, Clone, clap::Args)]
pub struct Out {
    /// The HTML file to write (atomically: a temporary file in its directory, then a rename);
    /// `-` writes to standard output.
    #[arg(long, short, value_name = "FILE.html")]
    pub output: Option<PathBuf>,
    /// At most this many rows per table (a note under a table counts the rows not shown).
    #[arg(long, value_name = "N", default_value_t = report::DEFAULT_ROWS as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub rows: u64,
}

/// The reports other than the queue's.
#[derive(Debug, clap::Subcommand)]
pub enum What {
    /// A replay (its inputs as `fairsort replay`'s); with --against both policies side by side.
    Replay(Box<ReplayArgs>),
    /// A forecast (its inputs as `fairsort forecast`'s).
    Forecast(Box<ForecastArgs>),
}

/// Arguments of `fairsort report replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// The replay's inputs.
    #[command(flatten)]
    pub replay: super::replay::Inputs,
    /// Where to write the page.
    #[command(flatten)]
    pub out: Out,
}

/// Arguments of `fairsort report forecast`.
#[derive(Debug, clap::Args)]
pub struct ForecastArgs {
    /// The forecast's inputs.
    #[command(flatten)]
    pub forecast: super::forecast::Inputs,
    /// Where to write the page.
    #[command(flatten)]
    pub out: Out,
}

/// Runs `fairsort report`.
pub fn run(args: Args, global: &Global) -> CliResult {
    match args.what {
        Some(What::Replay(r)) => replay(*r, global),
        Some(What::Forecast(f)) => forecast(*f, global),
        None => queue(args.order, args.out, global),
    }
}

/// The output file, required.
fn output(out: &Out) -> Result<&Path, Failure> {
    out.output
        .as_deref()
        .ok_or_else(|| Failure::usage("report needs -o FILE.html (or -o - for standard output)"))
}

/// The tables' bound of `--rows`.
fn limits(out: &Out) -> Limits {
    Limits {
        rows: usize::try_from(out.rows).unwrap_or(usize::MAX),
    }
}

fn report_failure(e: report::ReportError) -> Failure {
    Failure::user(e.to_string())
}

/// The `sources:` block as the page's header shows it.
fn sources_fact(s: &Sources, label: &str) -> (String, String) {
    let text = super::sources::header(s, label);
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.get(12..).unwrap_or(l).trim_end())
        .collect();
    ("sources".into(), lines.join("\n"))
}

/// Writes the page to the file (atomically) or to standard output.
fn write(path: &Path, page: &Page) -> CliResult {
    let html = report::render(page).map_err(report_failure)?;
    if path.as_os_str() == "-" {
        crate::out!("{html}");
        return Ok(());
    }
    fairsort::files::write_atomic(path, html.as_bytes())
        .map_err(|e| Failure::user(format!("cannot write {}: {}", e.path.display(), e.source)))?;
    crate::outln!("{}", super::say::written(path, None));
    Ok(())
}

/// `fairsort report`: the queue, the share tree and the factor curves.
fn queue(inputs: super::order::Inputs, out: Out, global: &Global) -> CliResult {
    let path = output(&out)?.to_path_buf();
    let limits = limits(&out);
    match super::order::report_queue(inputs, global)? {
        ReportQueue::Formula(o) => formula_queue(&path, *o, limits),
        ReportQueue::Json(doc, tree) => json_queue(&path, &doc, tree.as_deref(), limits),
    }
}

/// A queue ordered by a formula, its share tree and factor curves.
fn formula_queue(path: &Path, o: Ordered, limits: Limits) -> CliResult {
    for w in &o.warnings {
        super::say::line(format_args!("warning: {w}"));
    }
    let mut sections =
        vec![report::queue_section(&o.sc, &o.program, &o.dry, limits).map_err(report_failure)?];
    let tree = (o.tree.as_ref()).or(o.dry.shares.as_ref().map(|c| &c.tree));
    if let Some(tree) = tree {
        sections.extend(
            report::share_sections(tree, &Options::default(), limits).map_err(report_failure)?,
        );
    }
    let title = match &o.sc.title {
        Some(t) => format!("fairsort report: {t}"),
        None => "fairsort report".to_string(),
    };
    let formula = if o.no_formula {
        "none (pbs_sched sorts by job_sort_key, fair share, then job order)".to_string()
    } else {
        o.program.source().to_string()
    };
    let mut facts = vec![("formula".to_string(), formula)];
    if let Some(t) = o.sc.setup.threshold {
        facts.push(("threshold".into(), format!("{t}")));
    }
    facts.push(sources_fact(&o.sc.sources, "formula"));
    for w in &o.warnings {
        facts.push(("warning".into(), w.clone()));
    }
    let page = Page {
        title,
        facts,
        sections,
    };
    write(path, &page)?;
    // The process ends next: freeing a large tree node by node costs more than the page.
    std::mem::forget(o);
    Ok(())
}

/// A Slurm or flux queue from its `order --json` document, with the share tree it used.
fn json_queue(
    path: &Path,
    doc: &serde_json::Value,
    tree: Option<&fairsort::fairshare::Tree>,
    limits: Limits,
) -> CliResult {
    let sources = doc.get("sources").and_then(|s| s.as_object());
    let scheduler = (sources.and_then(|s| s.get("scheduler")))
        .and_then(|s| s.as_str())
        .unwrap_or("");
    // Each source as `tree: file --tree sshare.txt (...)`: its members that are set.
    let lines: Vec<String> = (sources.into_iter().flatten())
        .filter_map(|(k, v)| {
            let parts: Vec<String> = (v.as_object()?.iter())
                .filter(|(_, x)| !x.is_null())
                .map(|(_, x)| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                .collect();
            Some(format!("{k:<10}{}", parts.join(" ")))
        })
        .collect();
    let facts = vec![("sources".to_string(), lines.join("\n"))];
    let mut sections = vec![report::json_queue_section(doc, scheduler, limits)];
    if let Some(tree) = tree {
        sections.extend(
            report::share_sections(tree, &Options::default(), limits).map_err(report_failure)?,
        );
    }
    let page = Page {
        title: format!("fairsort report: a {scheduler} queue"),
        facts,
        sections,
    };
    write(path, &page)
}

/// `fairsort report replay`.
fn replay(args: ReplayArgs, global: &Global) -> CliResult {
    let path = output(&args.out)?.to_path_buf();
    let limits = limits(&args.out);
    let r = super::replay::replays(&args.replay, false, global)?;
    for w in &r.warnings {
        super::say::line(format_args!("warning: {w}"));
    }
    let policies: Vec<Policy> = (r.runs.iter())
        .map(|run| Policy {
            label: run.label,
            formula: &run.formula,
            outcome: &run.outcome,
            report: &run.report,
            attainment: &run.attainment,
        })
        .collect();
    let sections = report::replay_sections(&r.trace, &policies, limits).map_err(report_failure)?;
    let mut facts = vec![
        ("trace".to_string(), args.replay.trace.display().to_string()),
        (
            "cluster".into(),
            format!(
                "{} nodes x {} cores ({} cores)",
                r.cluster.nodes,
                r.cluster.cores_per_node,
                r.cluster.cores()
            ),
        ),
        ("backfill".into(), args.replay.model.backfill.clone()),
        ("half-life".into(), super::sources::duration(r.half_life)),
    ];
    facts.push(sources_fact(&r.sources, "formula"));
    facts.extend(
        r.warnings
            .iter()
            .map(|w| ("warning".to_string(), w.clone())),
    );
    let title = match &args.replay.against {
        Some(b) => format!("fairsort replay: {} against {b}", r.formula_a),
        None => format!("fairsort replay: {}", r.formula_a),
    };
    write(
        &path,
        &Page {
            title,
            facts,
            sections,
        },
    )
}

/// `fairsort report forecast`.
fn forecast(args: ForecastArgs, global: &Global) -> CliResult {
    let path = output(&args.out)?.to_path_buf();
    let limits = limits(&args.out);
    let fc = super::forecast::forecast(&args.forecast, global)?;
    let facts = vec![
        ("jobs".to_string(), args.forecast.jobs.display().to_string()),
        (
            "nodes".to_string(),
            args.forecast.node_state.display().to_string(),
        ),
        ("policy".to_string(), fc.policy.clone()),
    ];
    write(
        &path,
        &Page {
            title: "fairsort forecast".into(),
            facts,
            sections: vec![report::forecast_section(&fc, limits)],
        },
    )
}
