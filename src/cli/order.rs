//! `fairsort order`: dry-run the job queue order — bind every job, evaluate the formula, sort,
//! apply the threshold, and explain (`--explain JOBID`) or compare formulas (`--against`).
//! A thin layer over `fairsort::order`: it gathers the inputs (built-in example or flags), runs the
//! dry run and prints a table (default), `--json` or `--csv`.

use super::table::{Align, StreamTable, Table};
use super::{CliResult, Failure, Global};
use fairsort::fairshare;
use fairsort::fairshare::{Algorithm, Tree};
use fairsort::formula::Program;
use fairsort::inputs as formats;
use fairsort::inputs::JobsFormat;
use fairsort::order::dry_run::DryRun;
use fairsort::order::explain::fmt;
use fairsort::order::report::{rows, OrderDocument, HEADERS};
use fairsort::pbs::defs::{FairshareEntity, ResourceType};
use fairsort::scenario::{
    AgainstRow, Base, Comparison, JobsInput, OrderExplanation, Scenario, ScenarioBuilder,
    ScenarioError, TermValue, Threshold,
};
use serde::Serialize;
use std::io::{Read, Write};
use std::path::PathBuf;

/// Arguments of `fairsort order`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Use a built-in example site: `pbs` (default: a PBS share tree, qstat queue and
    /// job_sort_formula); `slurm` is a Slurm site's multifactor priority, as sprio shows it
    /// (slurm.conf, squeue --json, sshare; `sprio` is the same); `slurm-tree` orders a Slurm
    /// account tree's jobs by a formula; `flux` is a flux-accounting site's mf_priority
    /// (accounting DB, flux jobs --json).
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "pbs")]
    pub example: Option<String>,
    /// Jobs: `qstat -f -F json` output, a fairsort JSON or CSV job list, `squeue --json` or
    /// `squeue` pipe output, `flux jobs --json` output (with --tree accounting.db); `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,
    /// Format of --jobs (default: detected): qstat, json, csv, squeue-json, squeue, flux-jobs.
    #[arg(long, value_name = "FORMAT")]
    pub jobs_format: Option<JobsFormat>,
    /// The job_sort_formula (overrides the example's).
    #[arg(long, value_name = "FORMULA")]
    pub formula: Option<String>,
    /// job_sort_formula_threshold: jobs at or below are not eligible this cycle.
    #[arg(long, value_name = "VALUE", allow_negative_numbers = true)]
    pub threshold: Option<f64>,
    /// Ignore the example's threshold.
    #[arg(long, conflicts_with = "threshold")]
    pub no_threshold: bool,
    /// Share tree file (PBS resource_group, sshare, sacctmgr, flux DB, fairsort TOML/JSON).
    #[arg(long, value_name = "FILE")]
    pub tree: Option<PathBuf>,
    /// Format of --tree (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = super::choices::parser::<formats::TreeFormat>())]
    pub tree_format: Option<formats::TreeFormat>,
    /// PBS usage file (binary `sched_priv/usage` or fairsort's text form) applied to --tree.
    #[arg(long, value_name = "FILE")]
    pub usage: Option<PathBuf>,
    /// PBS unknown_shares: shares of the `unknown` group (PBS trees; default 0).
    #[arg(long, value_name = "N")]
    pub unknown_shares: Option<u64>,
    /// PBS fairshare_entity: euser, egroup, Account_Name, queue, egroup:euser.
    #[arg(long, value_name = "ENTITY")]
    pub entity: Option<FairshareEntity>,
    /// Fair-share algorithm for --explain's fair-share section (the formula's keywords choose
    /// their own: fairshare_factor is PBS's, fairtree_factor Fair Tree's, ...).
    #[arg(long, value_name = "ALGORITHM", value_parser = super::choices::parser::<Algorithm>())]
    pub algorithm: Option<Algorithm>,
    /// PBS fair_share on: break formula ties by the fair-share path (usage/perc).
    #[arg(long, overrides_with = "no_fair_share")]
    pub fair_share: bool,
    /// PBS fair_share off.
    #[arg(long)]
    pub no_fair_share: bool,
    /// A queue's Priority (queue_priority), e.g. `--queue-priority express=100`; repeatable.
    #[arg(long, value_name = "QUEUE=N")]
    pub queue_priority: Vec<String>,
    /// Define a custom resource, e.g. `--resource foo=float` (long, float, size, time, ...).
    /// Resources the jobs request that are not defined are taken as float (numbers) or string.
    #[arg(long, value_name = "NAME=TYPE")]
    pub resource: Vec<String>,
    /// Reproduce PBS's rounding exactly (resources 4 decimals, fair-share 6, values as f32).
    #[arg(long)]
    pub pbs_compat: bool,
    /// Show only the first N jobs (all jobs are still ranked).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// JSON output.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV output.
    #[arg(long)]
    pub csv: bool,
    /// Explain one job: bound keywords, terms, fair share, why it is above the next job.
    #[arg(long, value_name = "JOBID", conflicts_with = "against")]
    pub explain: Option<String>,
    /// What-if: compare the order under the current formula with this one.
    #[arg(long, value_name = "FORMULA")]
    pub against: Option<String>,
    /// With --against: how many of the biggest movers to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub movers: usize,
    /// Slurm: compute the multifactor priority (sprio) from this slurm.conf; --jobs is
    /// `squeue --json` or `squeue` pipe output, --tree an sshare/sacctmgr capture.
    #[arg(long, value_name = "FILE")]
    pub slurm_conf: Option<PathBuf>,
    /// Slurm: `sacctmgr show qos -P` output (Name, Priority).
    #[arg(long, value_name = "FILE")]
    pub qos: Option<PathBuf>,
    /// Slurm: `sacctmgr show assoc -P` output with a Priority column (also the tree when no
    /// --tree is given and it has Share and ParentName columns).
    #[arg(long, value_name = "FILE")]
    pub assoc: Option<PathBuf>,
    /// Slurm: the second of the calculation, as epoch seconds or an ISO 8601 date-time (local
    /// time without a zone; default: now).
    #[arg(long, value_name = "TIME", value_parser = super::dates::parse_time)]
    pub at: Option<i64>,
    /// Slurm what-if: compare with changed weights, e.g.
    /// `PriorityWeightAge=5000,PriorityWeightFairshare=20000`; flux: `fairshare=1000,queue=100000`.
    #[arg(long, value_name = "LIST", conflicts_with = "explain")]
    pub against_weights: Option<String>,
    /// flux: where a job's queue factor comes from: `association` (default: mf_priority keeps
    /// one per association, from its latest job) or `job` (the job's own queue).
    #[arg(long, value_name = "SOURCE")]
    pub flux_queue_factor: Option<fairsort::flux::priority::QueueFactor>,
    /// flux: `db` (default: association_table.fairshare, as the plugin holds it) or `computed`
    /// (what `flux account-update-fshare` would store now, from the shares and usage).
    #[arg(long, value_name = "SOURCE")]
    pub flux_fairshare: Option<fairsort::flux::site::FairshareSource>,
}

fn user(msg: impl std::fmt::Display) -> Failure {
    Failure::user(msg.to_string())
}

fn scenario_failure(e: ScenarioError) -> Failure {
    if e.is_request() {
        Failure::usage(e.to_string())
    } else {
        Failure::user(e.to_string())
    }
}

fn parse_assignment(s: &str, what: &str) -> Result<(String, String), Failure> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        _ => Err(Failure::usage(format!(
            "--{what} expects NAME=VALUE, got `{s}`"
        ))),
    }
}

/// The Scenario of the command line: the example (`--example`) or the home if one exists,
/// with the files and flags over it.
fn scenario(args: &Args, global: &Global) -> Result<Scenario, Failure> {
    let base = match &args.example {
        // `slurm` is the multifactor site (order_slurm); its share tree is this example
        Some(name) if name == "slurm-tree" => Base::Example("slurm".to_string()),
        Some(name) => Base::Example(name.clone()),
        None => Base::FindHome(global.home.clone()),
    };
    let mut b = ScenarioBuilder::new(base)
        .formula(args.formula.clone())
        .require_formula()
        .threshold(match (args.no_threshold, args.threshold) {
            (true, _) => Threshold::Off,
            (false, Some(t)) => Threshold::Set(t),
            (false, None) => Threshold::Base,
        })
        .tree_file(args.tree.clone(), args.tree_format)
        .usage_file(args.usage.clone())
        .unknown_shares(args.unknown_shares)
        .entity(args.entity)
        .algorithm(args.algorithm)
        .fair_share(if args.no_fair_share {
            Some(false)
        } else if args.fair_share {
            Some(true)
        } else {
            None
        })
        .pbs_compat(args.pbs_compat);
    // A plain order runs `order_once` and nothing else over the tree: a home's tree may stay
    // in its snapshot until then, and only the part the jobs need be built (issue #16).
    if args.explain.is_none() && args.against.is_none() {
        b = b.lazy_home_tree();
    }
    if let Some(path) = &args.jobs {
        let input = if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| user(format!("cannot read stdin: {e}")))?;
            JobsInput::Bytes {
                name: "-".into(),
                bytes,
            }
        } else {
            JobsInput::File(path.clone())
        };
        b = b.jobs(input, args.jobs_format);
    }
    for q in &args.queue_priority {
        let (name, v) = parse_assignment(q, "queue-priority")?;
        let p: i64 = v.parse().map_err(|_| {
            Failure::usage(format!("--queue-priority {name}: `{v}` is not an integer"))
        })?;
        b = b.queue_priority(name, p);
    }
    for def in &args.resource {
        let (name, ty) = parse_assignment(def, "resource")?;
        let ty = ResourceType::from_flag(&ty).ok_or_else(|| {
            Failure::usage(format!(
                "--resource {name}: unknown type `{ty}` (expected long, float, size, time, boolean, string)"
            ))
        })?;
        b = b.resource(name, ty);
    }
    b.build().map_err(scenario_failure)
}

/// Runs `fairsort order`.
pub fn run(mut args: Args, global: &Global) -> CliResult {
    if args.example.is_none() && args.jobs.is_none() && invoked_as_demo(std::env::args()) {
        args.example = Some("pbs".to_string());
    }
    if let Some(base) = super::order_slurm::base(&args, global)? {
        return super::order_slurm::run(&args, base);
    }
    if super::order_flux::wanted(&args) {
        return super::order_flux::run(&args);
    }
    if args.flux_queue_factor.is_some() || args.flux_fairshare.is_some() {
        return Err(Failure::usage(
            "--flux-queue-factor and --flux-fairshare need flux jobs (--jobs flux-jobs.json --tree accounting.db, or --example flux)",
        ));
    }
    if args.qos.is_some()
        || args.assoc.is_some()
        || args.at.is_some()
        || args.against_weights.is_some()
    {
        return Err(Failure::usage(
            "--qos, --assoc, --at and --against-weights need --slurm-conf (or --example slurm); --against-weights also works with flux jobs",
        ));
    }
    // Two long steps on a large queue, reading and ordering it; the bar is gone before the
    // output starts (stdout may be the same terminal).
    let mut progress = super::progress::Progress::new(2, "order: reading the jobs");
    let mut sc = scenario(&args, global)?;
    progress.stage(1, "order: ordering");
    super::usage::warn_unmatched(&sc.unmatched_usage);
    let program = sc
        .compile(sc.formula_source().map_err(scenario_failure)?)
        .map_err(scenario_failure)?;
    // Not locked: a large table is written by two threads in turn (`chunks::write_ordered`).
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
    if let Some(other) = &args.against {
        let other = sc.compile(other).map_err(scenario_failure)?;
        let cmp = sc
            .compare(&program, &other, args.top, args.movers)
            .map_err(scenario_failure)?;
        progress.finish();
        print_against(&mut out, &args, &program, &other, &cmp)?;
    } else {
        // The tree moves into the result: a 100k-user tree is not copied (issue #16).
        let top = if args.explain.is_some() {
            None
        } else {
            args.top
        };
        let result = sc.order_once(&program, top).map_err(scenario_failure)?;
        progress.finish();
        if let Some(id) = &args.explain {
            let e = sc
                .explain(&program, &result, id)
                .map_err(scenario_failure)?;
            print_explain(&mut out, &args, &sc, &program, &result, &e)?;
        } else {
            print_order(&mut out, &args, &sc, &program, &result)?;
        }
        // The process ends next: freeing a large tree node by node (twice: the scenario's and
        // the dry run's) would cost more than a small order itself (issue #16).
        std::mem::forget(result);
    }
    out.flush()?;
    std::mem::forget(sc);
    Ok(())
}

/// Whether the command line names the subcommand by its alias `demo` (`fairsort demo` =
/// `fairsort order --example`): the first word that is neither an option nor `--home`'s value.
fn invoked_as_demo(argv: impl Iterator<Item = String>) -> bool {
    let mut words = argv.skip(1);
    while let Some(w) = words.next() {
        if w == "--home" {
            words.next();
        } else if !w.starts_with('-') {
            return w == "demo";
        }
    }
    false
}

fn tree_kind(tree: &Tree) -> &'static str {
    match tree.source() {
        fairshare::TreeSource::Pbs => "PBS",
        fairshare::TreeSource::Slurm => "Slurm",
        fairshare::TreeSource::Flux => "flux",
        fairshare::TreeSource::Native => "fairsort",
    }
}

fn header(sc: &Scenario, program: &Program, result: &DryRun) -> String {
    let s = &sc.setup;
    let mut h = String::new();
    if let Some(t) = &sc.title {
        h.push_str(&format!("fairsort order: {t}\n"));
    }
    h.push_str(&format!("formula:    {}\n", program.source()));
    if let Some(t) = s.threshold {
        h.push_str(&format!(
            "threshold:  {} (a queued job at or below it is not eligible this cycle)\n",
            fmt(t)
        ));
    } else if result.order.ranked.iter().any(|r| r.below_threshold) {
        // Only shown when it matters: PBS's unset threshold is INT_MIN, not "none".
        h.push_str(&format!(
            "threshold:  unset, which PBS applies as INT_MIN ({})\n",
            fmt(fairsort::pbs::defs::threshold::UNSET)
        ));
    }
    if let Some(ctx) = &result.shares {
        let algs: Vec<String> = ctx
            .results
            .iter()
            .map(|r| r.algorithm.to_string())
            .collect();
        let mut line = format!(
            "fair share: {} tree, {} nodes; {}; values from {}",
            tree_kind(&ctx.tree),
            sc.share_tree_len(ctx.tree.len()),
            if fairsort::order::shares::is_pbs_tree(&ctx.tree) {
                format!("entity {}", s.entity)
            } else {
                "entity = the job's (account, user) association".to_string()
            },
            if algs.is_empty() {
                "(none used)".to_string()
            } else {
                algs.join(", ")
            }
        );
        if s.fair_share {
            line.push_str("; fair_share on (ties by usage/perc path)");
        }
        h.push_str(&line);
        h.push('\n');
        if !ctx.unknown_entities.is_empty() {
            let shown: Vec<&str> = ctx
                .unknown_entities
                .iter()
                .take(5)
                .map(String::as_str)
                .collect();
            h.push_str(&format!(
                "note:       {} entit{} not in the tree, placed under `unknown` with 1 share as PBS does: {}{}\n",
                ctx.unknown_entities.len(),
                if ctx.unknown_entities.len() == 1 { "y" } else { "ies" },
                shown.join(", "),
                if ctx.unknown_entities.len() > 5 { ", ..." } else { "" }
            ));
        }
    }
    if let Some(ctx) = result
        .shares
        .as_ref()
        .filter(|c| !c.unmatched_associations.is_empty())
    {
        let jobs = ctx.job_nodes.iter().filter(|n| n.is_none()).count();
        let names = &ctx.unmatched_associations;
        let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
        h.push_str(&format!(
            "note:       {jobs} job{} of {} association{} not in the tree get no fair-share values (0): {}{}\n",
            if jobs == 1 { "" } else { "s" },
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if names.len() > 5 { ", ..." } else { "" }
        ));
    }
    if s.pbs_compat {
        h.push_str("rounding:   --pbs-compat (PBS's text binding and 32-bit float values)\n");
    }
    let summary = result.order.summary;
    let (total, eligible, below) = (summary.total, summary.eligible, summary.below_threshold);
    let errors = result.order.errors.len();
    let mut line = format!("jobs:       {total} ({eligible} eligible");
    if below > 0 {
        line.push_str(&format!(", {below} below threshold"));
    }
    let other = total - eligible - below;
    if other > 0 {
        line.push_str(&format!(", {other} not queued"));
    }
    if errors > 0 {
        line.push_str(&format!(", {errors} evaluation error(s): value 0 used"));
    }
    line.push_str(")\n");
    h.push_str(&line);
    h
}

fn print_order(
    out: &mut (impl Write + Send),
    args: &Args,
    sc: &Scenario,
    program: &Program,
    result: &DryRun,
) -> CliResult {
    let jobs = &sc.setup.jobs;
    let rows = rows(jobs, &result.order, args.top);
    if args.json {
        let doc = OrderDocument {
            formula: program.source(),
            threshold: sc.setup.threshold,
            pbs_compat: sc.setup.pbs_compat,
            total: result.order.summary.total,
            jobs: rows,
        };
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)?;
        return Ok(());
    }
    if args.csv {
        let mut w = csv::Writer::from_writer(&mut *out);
        w.write_record([
            "rank", "job_id", "owner", "queue", "value", "status", "error",
        ])?;
        w.flush()?;
        drop(w);
        super::order_rows::write_csv(out, &rows)?;
        return Ok(());
    }
    write!(out, "{}", header(sc, program, result))?;
    writeln!(out)?;
    let mut t = StreamTable::new(&[
        (HEADERS[0], Align::Right),
        (HEADERS[1], Align::Left),
        (HEADERS[2], Align::Left),
        (HEADERS[3], Align::Left),
        (HEADERS[4], Align::Right),
        (HEADERS[5], Align::Left),
    ]);
    for (i, w) in super::order_rows::widths(jobs, &rows)
        .into_iter()
        .enumerate()
    {
        t.widen(i, w);
    }
    t.write_header(out)?;
    super::order_rows::write_table(out, &t, jobs, &rows)?;
    if rows.len() < result.order.summary.total {
        writeln!(
            out,
            "... {} more (showing the top {})",
            result.order.summary.total - rows.len(),
            rows.len()
        )?;
    }
    Ok(())
}

fn print_explain(
    out: &mut impl Write,
    args: &Args,
    sc: &Scenario,
    program: &Program,
    result: &DryRun,
    x: &OrderExplanation,
) -> CliResult {
    let e = &x.job;
    let term_values = &x.terms;
    let share = &x.fair_share;
    let entity = &x.entity;
    if args.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            formula: &'a str,
            #[serde(flatten)]
            job: &'a fairsort::order::JobExplanation,
            terms: &'a [TermValue],
            entity: &'a str,
            fair_share: Option<&'a fairshare::explain::Explanation>,
        }
        let doc = Doc {
            formula: program.source(),
            job: e,
            terms: term_values,
            entity,
            fair_share: share.as_ref(),
        };
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)?;
        return Ok(());
    }
    let total = result.order.ranked.len();
    let status = if e.below_threshold {
        format!("not eligible: {}", fairsort::order::THRESHOLD_COMMENT)
    } else if e.eligible {
        "eligible".to_string()
    } else {
        "not queued".to_string()
    };
    writeln!(
        out,
        "job {}: rank {} of {total}, value {} ({status})",
        e.id,
        e.rank,
        fmt(e.value)
    )?;
    writeln!(out, "formula: {}", program.source())?;
    if let Some(err) = &e.error {
        writeln!(
            out,
            "evaluation error: {err} (PBS: Formula evaluation for job had an error.  Zero value will be used: {err})"
        )?;
    }
    writeln!(out, "\nkeywords:")?;
    let mut t = Table::new(&[
        ("keyword", Align::Left),
        ("value", Align::Right),
        ("from", Align::Left),
    ]);
    for b in &e.keywords {
        // Six decimals, as PBS prints fair-share keywords (`%f`); integers stay integers.
        let v = if b.value.fract() == 0.0 {
            format!("{}", b.value)
        } else {
            format!("{:.6}", b.value).trim_end_matches('0').to_string()
        };
        t.row(vec![b.keyword.clone(), v, b.source.clone()]);
    }
    write!(out, "{}", t.render())?;
    writeln!(out, "\nterms:")?;
    let mut t = Table::new(&[("term", Align::Left), ("value", Align::Right)]);
    for tv in term_values {
        let v = match &tv.error {
            Some(err) => format!("error: {err}"),
            None => fmt(tv.value),
        };
        t.row(vec![tv.term.clone(), v]);
    }
    write!(out, "{}", t.render())?;
    match &share {
        Some(s) => {
            writeln!(
                out,
                "\nfair share of entity `{entity}` ({}):",
                sc.setup.entity
            )?;
            write!(out, "{}", fairshare::explain::render(s))?;
        }
        None if result.shares.is_some() => {
            writeln!(
                out,
                "\nfair share: entity `{entity}` is not in the share tree"
            )?;
        }
        None => {}
    }
    match &e.next {
        Some(n) => writeln!(
            out,
            "\nabove the next job {} (value {}): {}",
            n.id,
            fmt(n.value),
            n.reason
        )?,
        None => writeln!(out, "\nlast in the queue")?,
    }
    Ok(())
}

fn print_against(
    out: &mut impl Write,
    args: &Args,
    a_prog: &Program,
    b_prog: &Program,
    cmp: &Comparison,
) -> CliResult {
    let shown = &cmp.rows;
    let movers = &cmp.movers;
    if args.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            formula: &'a str,
            against: &'a str,
            spearman: Option<f64>,
            kendall: Option<f64>,
            total: usize,
            jobs: &'a [AgainstRow],
            movers: &'a [AgainstRow],
        }
        let doc = Doc {
            formula: a_prog.source(),
            against: b_prog.source(),
            spearman: cmp.spearman,
            kendall: cmp.kendall,
            total: cmp.total,
            jobs: shown,
            movers,
        };
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)?;
        return Ok(());
    }
    let moved = |d: i64| match d.cmp(&0) {
        std::cmp::Ordering::Greater => format!("+{d}"),
        std::cmp::Ordering::Less => d.to_string(),
        std::cmp::Ordering::Equal => "=".to_string(),
    };
    if args.csv {
        let mut w = csv::Writer::from_writer(&mut *out);
        w.write_record([
            "rank",
            "rank_against",
            "moved",
            "job_id",
            "owner",
            "queue",
            "value",
            "value_against",
            "status",
        ])?;
        for r in shown {
            w.write_record([
                r.rank.to_string(),
                r.rank_against.to_string(),
                r.moved.to_string(),
                r.id.to_string(),
                r.owner.to_string(),
                r.queue.to_string(),
                r.value.to_string(),
                r.value_against.to_string(),
                r.status.to_string(),
            ])?;
        }
        w.flush()?;
        return Ok(());
    }
    writeln!(out, "current:  {}", a_prog.source())?;
    writeln!(out, "against:  {}", b_prog.source())?;
    writeln!(out)?;
    let table = |rows: &[AgainstRow]| {
        let mut t = Table::new(&[
            ("rank", Align::Right),
            ("against", Align::Right),
            ("moved", Align::Right),
            ("job id", Align::Left),
            ("owner", Align::Left),
            ("queue", Align::Left),
            ("value", Align::Right),
            ("value against", Align::Right),
            ("status", Align::Left),
        ]);
        for r in rows {
            t.row(vec![
                r.rank.to_string(),
                r.rank_against.to_string(),
                moved(r.moved),
                r.id.to_string(),
                r.owner.to_string(),
                r.queue.to_string(),
                fmt(r.value),
                fmt(r.value_against),
                r.status.clone(),
            ]);
        }
        t.render()
    };
    write!(out, "{}", table(shown))?;
    if shown.len() < cmp.total {
        writeln!(out, "... {} more", cmp.total - shown.len())?;
    }
    writeln!(out)?;
    if movers.is_empty() {
        writeln!(out, "no job changes rank")?;
    } else {
        writeln!(out, "biggest movers (+ = earlier under --against):")?;
        for r in movers {
            writeln!(
                out,
                "  {:<12} {:>4} -> {:<4} ({})",
                r.id,
                r.rank,
                r.rank_against,
                moved(r.moved)
            )?;
        }
    }
    correlation_line(out, cmp.spearman, cmp.kendall)
}

/// The last line of an `--against` report: both rank correlations (`n/a` when undefined).
pub(super) fn correlation_line(
    out: &mut impl Write,
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

#[cfg(test)]
mod tests {
    use super::invoked_as_demo;

    fn argv(words: &[&str]) -> impl Iterator<Item = String> {
        std::iter::once("fairsort")
            .chain(words.iter().copied())
            .map(String::from)
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn demo_is_recognised_after_global_options_only() {
        assert!(invoked_as_demo(argv(&["demo"])));
        assert!(invoked_as_demo(argv(&["--home", "/h", "demo", "--json"])));
        assert!(!invoked_as_demo(argv(&["order", "demo"])));
        assert!(!invoked_as_demo(argv(&["--home", "demo", "order"])));
        assert!(!invoked_as_demo(argv(&[])));
    }
}
