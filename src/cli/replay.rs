//! `fairsort replay`: replay a workload trace (SWF, PBS accounting log, sacct -P) on a cluster
//! model under a job_sort_formula, with EASY backfill and fair share evolving over time; print
//! waits and shares per user and account, optionally against a second formula
//! (docs/replay.md). A thin layer over `fairsort::replay`.

use super::eval::formula_failure;
use super::table::{Align, Table};
use super::{CliResult, Failure, Global};
use fairsort::formula::{self, Program, ResourceTable};
use fairsort::replay::{
    read_trace, replay, summarize, Backfill, Cluster, EntityStats, Options, Outcome, Report, Trace,
    TraceFormat,
};
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `fairsort replay`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The trace: SWF, a PBS accounting log (or directory of daily logs), or `sacct -P` output.
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// Trace format: swf, pbs or sacct (default: detected from the first line).
    #[arg(long, value_name = "FORMAT")]
    pub trace_format: Option<String>,
    /// Nodes of the cluster model (default: the SWF header's MaxNodes).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Cores per node (default: MaxProcs / MaxNodes from the SWF header, else 1).
    #[arg(long)]
    pub cores_per_node: Option<u64>,
    /// The job_sort_formula to replay.
    #[arg(long, value_name = "FORMULA")]
    pub formula: String,
    /// A second formula replayed on the same trace, shown side by side.
    #[arg(long, value_name = "FORMULA")]
    pub against: Option<String>,
    /// Backfill: easy (default) or none.
    #[arg(long, default_value = "easy")]
    pub backfill: String,
    /// Usage half-life in seconds (default 7 days).
    #[arg(long, default_value_t = 604_800.0, value_name = "SECONDS")]
    pub half_life: f64,
    /// Print JSON: the summary and every job's id, submit, start and end.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV: one row per user and per account.
    #[arg(long)]
    pub csv: bool,
}

fn compile(src: &str, json: bool) -> Result<Program, Failure> {
    formula::compile(src, &ResourceTable::builtin()).map_err(|e| formula_failure(src, &e, json))
}

fn cluster(args: &Args, trace: &Trace) -> Result<Cluster, Failure> {
    let (nodes, cpn) = match (args.nodes, args.cores_per_node) {
        (Some(n), c) => (n, c.unwrap_or(1)),
        (None, c) => match (trace.max_nodes, trace.max_procs) {
            (Some(n), p) if n > 0 => (n, c.or(p.map(|p| (p / n).max(1))).unwrap_or(1)),
            (_, Some(p)) if c.is_none() => (p, 1),
            _ => {
                return Err(Failure::usage(
                    "give --nodes (and --cores-per-node): the trace does not state its size",
                ))
            }
        },
    };
    if nodes == 0 || cpn == 0 {
        return Err(Failure::usage(
            "--nodes and --cores-per-node must be at least 1",
        ));
    }
    Ok(Cluster {
        nodes,
        cores_per_node: cpn,
    })
}

/// Runs `fairsort replay`.
pub fn run(args: Args, _global: &Global) -> CliResult {
    let format = match &args.trace_format {
        Some(f) => Some(f.parse::<TraceFormat>().map_err(Failure::usage)?),
        None => None,
    };
    let backfill: Backfill = args.backfill.parse().map_err(Failure::usage)?;
    let a = compile(&args.formula, args.json)?;
    let b = match &args.against {
        Some(f) => Some(compile(f, args.json)?),
        None => None,
    };
    let trace = read_trace(&args.trace, format).map_err(|e| Failure::user(e.to_string()))?;
    let cluster = cluster(&args, &trace)?;
    let opts = Options {
        cluster,
        backfill,
        half_life: args.half_life,
    };
    let run_one = |p: &Program| -> Result<(Outcome, Report), Failure> {
        let o = replay(&trace, p, &opts).map_err(|e| Failure::user(e.to_string()))?;
        let r = summarize(&trace, &o, cluster);
        Ok((o, r))
    };
    let (oa, ra) = run_one(&a)?;
    let other = match &b {
        Some(p) => Some(run_one(p)?),
        None => None,
    };
    if args.json {
        let jobs = |o: &Outcome| -> Vec<serde_json::Value> {
            (trace.jobs.iter().zip(&o.placements))
                .filter_map(|(j, p)| {
                    let p = p.as_ref()?;
                    Some(json!({"id": j.id, "submit": j.submit, "start": p.start, "end": p.end}))
                })
                .collect()
        };
        let mut out = json!({
            "formula": args.formula,
            "backfill": args.backfill,
            "nodes": cluster.nodes,
            "cores_per_node": cluster.cores_per_node,
            "left_out": trace.left_out.iter().map(|(r, n)| json!({"reason": r, "jobs": n})).collect::<Vec<_>>(),
            "summary": ra,
            "jobs": jobs(&oa),
        });
        if let (Some((ob, rb)), Some(f)) = (&other, &args.against) {
            out["against"] = json!({"formula": f, "summary": rb, "jobs": jobs(ob)});
        }
        crate::outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(());
    }
    if args.csv {
        return print_csv(&ra, other.as_ref().map(|(_, r)| r));
    }
    print_text(&args, &trace, cluster, &ra, other.as_ref().map(|(_, r)| r))?;
    Ok(())
}

fn h(s: f64) -> String {
    format!("{s:.0}")
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn entity_table(rows: &[EntityStats], users: bool) -> String {
    let mut cols = vec![("NAME", Align::Left)];
    if users {
        cols.push(("ACCOUNT", Align::Left));
    }
    cols.extend([
        ("JOBS", Align::Right),
        ("CORE_H", Align::Right),
        ("WAIT_MEAN", Align::Right),
        ("WAIT_MEDIAN", Align::Right),
        ("WAIT_P95", Align::Right),
        ("SLOWDOWN", Align::Right),
        ("USAGE", Align::Right),
        ("SHARE", Align::Right),
    ]);
    let mut t = Table::new(&cols);
    for r in rows {
        let mut cells = vec![r.name.clone()];
        if users {
            cells.push(r.account.clone().unwrap_or_default());
        }
        cells.extend([
            r.jobs.to_string(),
            format!("{:.1}", r.core_hours),
            h(r.wait_mean),
            h(r.wait_median),
            h(r.wait_p95),
            format!("{:.2}", r.slowdown),
            pct(r.usage_share),
            pct(r.share),
        ]);
        t.row(cells);
    }
    t.render()
}

fn print_text(
    args: &Args,
    trace: &Trace,
    cluster: Cluster,
    a: &Report,
    b: Option<&Report>,
) -> CliResult {
    crate::outln!(
        "replay of {} jobs on {} nodes x {} cores ({} cores), backfill {}",
        a.jobs,
        cluster.nodes,
        cluster.cores_per_node,
        cluster.cores(),
        args.backfill
    );
    for (reason, n) in &trace.left_out {
        crate::outln!("left out of the trace: {n} jobs ({reason})");
    }
    if !a.too_large.is_empty() {
        crate::outln!(
            "skipped, larger than the cluster: {} jobs ({})",
            a.too_large.len(),
            a.too_large
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let Some(b) = b else {
        crate::outln!("formula: {}", args.formula);
        crate::outln!(
            "utilisation {}, mean wait {} s, mean bounded slowdown {:.2}, Jain's index {:.3}, backfilled {}",
            pct(a.utilisation),
            h(a.wait_mean),
            a.slowdown,
            a.jain,
            a.backfilled
        );
        crate::outln!("\nper user:\n{}", entity_table(&a.users, true));
        crate::outln!("per account:\n{}", entity_table(&a.accounts, false));
        let mut t = Table::new(&[
            ("ID", Align::Left),
            ("USER", Align::Left),
            ("WAIT", Align::Right),
        ]);
        for w in &a.longest_waits {
            t.row(vec![w.id.clone(), w.user.clone(), w.wait.to_string()]);
        }
        crate::outln!("longest waits:\n{}", t.render());
        return Ok(());
    };
    crate::outln!("A: {}", args.formula);
    crate::outln!("B: {}", args.against.as_deref().unwrap_or(""));
    let mut t = Table::new(&[
        ("", Align::Left),
        ("A", Align::Right),
        ("B", Align::Right),
        ("B-A", Align::Right),
    ]);
    let mut row = |name: &str, x: f64, y: f64, f: fn(f64) -> String| {
        t.row(vec![name.to_string(), f(x), f(y), f(y - x)]);
    };
    row("utilisation", a.utilisation, b.utilisation, pct);
    row("mean wait (s)", a.wait_mean, b.wait_mean, h);
    row("mean bounded slowdown", a.slowdown, b.slowdown, |x| {
        format!("{x:.2}")
    });
    row("Jain's index", a.jain, b.jain, |x| format!("{x:.3}"));
    crate::outln!("\n{}", t.render());
    for (title, xs, ys, users) in [
        ("per user", &a.users, &b.users, true),
        ("per account", &a.accounts, &b.accounts, false),
    ] {
        let mut cols = vec![("NAME", Align::Left)];
        if users {
            cols.push(("ACCOUNT", Align::Left));
        }
        cols.extend([
            ("JOBS", Align::Right),
            ("SHARE", Align::Right),
            ("WAIT_A", Align::Right),
            ("WAIT_B", Align::Right),
            ("WAIT_B-A", Align::Right),
            ("USAGE_A", Align::Right),
            ("USAGE_B", Align::Right),
        ]);
        let mut t = Table::new(&cols);
        for (x, y) in xs.iter().zip(ys.iter()) {
            let mut cells = vec![x.name.clone()];
            if users {
                cells.push(x.account.clone().unwrap_or_default());
            }
            cells.extend([
                x.jobs.to_string(),
                pct(x.share),
                h(x.wait_mean),
                h(y.wait_mean),
                h(y.wait_mean - x.wait_mean),
                pct(x.usage_share),
                pct(y.usage_share),
            ]);
            t.row(cells);
        }
        crate::outln!("{title}:\n{}", t.render());
    }
    Ok(())
}

fn print_csv(a: &Report, b: Option<&Report>) -> CliResult {
    let mut w = csv::Writer::from_writer(std::io::stdout());
    let mut header = vec![
        "policy",
        "kind",
        "name",
        "account",
        "jobs",
        "core_hours",
        "wait_mean",
        "wait_median",
        "wait_p95",
        "slowdown",
        "usage_share",
        "share",
    ];
    header.shrink_to_fit();
    let _ = w.write_record(&header);
    let policies = [("A", Some(a)), ("B", b)];
    for (policy, r) in policies {
        let Some(r) = r else { continue };
        for (kind, rows) in [("user", &r.users), ("account", &r.accounts)] {
            for x in rows {
                let _ = w.write_record([
                    policy.to_string(),
                    kind.to_string(),
                    x.name.clone(),
                    x.account.clone().unwrap_or_default(),
                    x.jobs.to_string(),
                    x.core_hours.to_string(),
                    x.wait_mean.to_string(),
                    x.wait_median.to_string(),
                    x.wait_p95.to_string(),
                    x.slowdown.to_string(),
                    x.usage_share.to_string(),
                    x.share.to_string(),
                ]);
            }
        }
    }
    w.flush()?;
    Ok(())
}
