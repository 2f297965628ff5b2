//! The PBS path of `fairsort order` (a qstat queue or fairsort's job lists, or a Slurm queue
//! with no slurm.conf): bind every job, evaluate the formula, sort, apply the threshold, and
//! explain (`--explain JOBID`) or compare formulas (`--against`). A thin layer over
//! `fairsort::order`: the Scenario of the example or home with the files and flags over it.

use super::report::{self, Body, SchedulerOrder};
use super::{Args, JobsIn};
use crate::cli::table::{Align, StreamTable, Table};
use crate::cli::{CliResult, Failure, Global};
use fairsort::fairshare;
use fairsort::fairshare::Tree;
use fairsort::formula::Program;
use fairsort::order::dry_run::DryRun;
use fairsort::order::explain::fmt;
use fairsort::order::report::{rows, OrderDocument, HEADERS};
use fairsort::pbs::defs::ResourceType;
use fairsort::scenario::sources::Sources;
use fairsort::scenario::{
    AgainstRow, Base, Comparison, JobsInput, OrderExplanation, Scenario, ScenarioBuilder,
    TermValue, Threshold,
};
use serde::Serialize;
use std::io::Write;

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
/// with the files and flags over it; `whole_tree`: the tree is built even for a plain order.
fn scenario(
    args: &Args,
    global: &Global,
    jobs: JobsIn,
    whole_tree: bool,
) -> Result<Scenario, Failure> {
    let base = match &args.example {
        Some(name) => Base::Example(name.clone()),
        None => Base::FindHome(global.home.clone()),
    };
    let mut b = ScenarioBuilder::new(base)
        .formula(args.formula.clone())
        .formula_file(args.formula_file.clone())
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
        .pbs_compat(args.pbs_compat)
        .at(args.at)
        .time_zone(crate::cli::dates::zone_or_system(&args.tz));
    // A plain order runs `order_once` and nothing else over the tree: a home's tree may stay
    // in its snapshot until then, and only the part the jobs need be built.
    if args.explain.is_none() && args.against.is_none() && !whole_tree {
        b = b.lazy_home_tree();
    }
    let input = match jobs {
        JobsIn::None => None,
        JobsIn::File(path) => Some(JobsInput::File(path)),
        JobsIn::Stdin(bytes) => Some(JobsInput::Bytes {
            name: "-".into(),
            bytes,
        }),
    };
    if let Some(input) = input {
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
    let sc = b.build()?;
    if args.at.is_some() && sc.cycle.is_none() {
        return Err(Failure::usage(
            "--at needs a PBS site's cycle (a home after `fairsort pbs import`, or --example pbs) or a Slurm site (--slurm-conf)",
        ));
    }
    Ok(sc)
}

/// Runs the PBS path of `fairsort order`.
pub(super) fn run(
    args: &Args,
    global: &Global,
    jobs: JobsIn,
    sink: &mut report::Sink<'_>,
) -> CliResult {
    // Two long steps on a large queue, reading and ordering it; the bar is gone before the
    // output starts (stdout may be the same terminal).
    let mut progress = crate::cli::progress::Progress::new(2, "order: reading the jobs");
    let mut sc = scenario(args, global, jobs, false)?;
    progress.stage(1, "order: ordering");
    crate::cli::usage::warn_unmatched(&sc.unmatched_usage);
    // A PBS site may sort without a formula (job_sort_key, fair share): its cycle's order then
    // uses no value, and the dry run's are 0.
    let no_formula = sc.formula.is_none() && sc.cycle.is_some();
    let program = if no_formula {
        sc.compile("0")?
    } else {
        sc.compile(sc.formula_source()?)?
    };
    // Not locked: a large table is written by every worker in turn (`parallel::write_ordered`).
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
    if let Some(other) = &args.against {
        let other = sc.compile(other)?;
        let cmp = sc.compare(&program, &other, args.top, args.movers)?;
        progress.finish();
        let order = PbsOrder {
            args,
            sc: &sc,
            program: &program,
            no_formula,
            result: None,
            explanation: None,
            place: None,
            warnings: &[],
            against: Some((&other, &cmp)),
        };
        report::emit(sink, &mut out, args, &order)?;
    } else {
        // The tree moves into the result: a 100k-user tree is not copied.
        let top = if args.explain.is_some() {
            None
        } else {
            args.top
        };
        let (result, cycle, warnings) = order_in_cycle(&mut sc, &program, no_formula, top)?;
        if !args.json {
            for w in &warnings {
                crate::cli::say::line(format_args!("warning: {w}"));
            }
        }
        progress.finish();
        let explanation = match &args.explain {
            Some(id) => Some(sc.explain(&program, &result, id)?),
            None => None,
        };
        let place = match (&cycle, &sc.cycle, &args.explain) {
            (Some(run), Some(site), Some(id)) => {
                let jobs = &sc.setup.jobs;
                jobs.find(id).map(|j| run.place(site, jobs, j as u32))
            }
            _ => None,
        };
        let order = PbsOrder {
            args,
            sc: &sc,
            program: &program,
            no_formula,
            result: Some(&result),
            explanation: explanation.as_ref(),
            place: place.as_ref(),
            warnings: &warnings,
            against: None,
        };
        report::emit(sink, &mut out, args, &order)?;
        // The process ends next: freeing a large tree node by node (twice: the scenario's and
        // the dry run's) would cost more than a small order itself.
        std::mem::forget(result);
    }
    out.flush()?;
    std::mem::forget(sc);
    Ok(())
}

/// The dry run of `program` (the first `top` rows), in the PBS site's cycle order when the
/// scenario has one, with what would crash or mislead pbs_sched on it.
fn order_in_cycle(
    sc: &mut Scenario,
    program: &Program,
    no_formula: bool,
    top: Option<usize>,
) -> Result<
    (
        DryRun,
        Option<fairsort::scenario::cycle::CycleRun>,
        Vec<String>,
    ),
    Failure,
> {
    let mut cycle = None;
    let mut warnings = Vec::new();
    let result = if sc.cycle.is_some() {
        let mut dry = sc.order_once(program, None)?;
        if !no_formula {
            warnings = sc.pbs_warnings(program, &dry);
        }
        cycle = sc.cycle_order(&dry, !no_formula)?;
        if let Some(c) = &cycle {
            fairsort::scenario::cycle::apply_cycle(&mut dry, &c.order, top);
        }
        dry
    } else {
        let dry = sc.order_once(program, top)?;
        warnings = sc.pbs_warnings(program, &dry);
        dry
    };
    warnings.extend(sc.blank_entity_warning());
    Ok((result, cycle, warnings))
}

/// A queue ordered as `fairsort order` prints it, for `fairsort report`.
pub(crate) struct Ordered {
    /// The site at that moment (its tree is built).
    pub(crate) sc: Scenario,
    /// The formula (`0` when the site sorts without one).
    pub(crate) program: Program,
    /// The site sorts without a formula.
    pub(crate) no_formula: bool,
    /// Every job ranked.
    pub(crate) dry: DryRun,
    /// What would crash or mislead pbs_sched on this formula and queue.
    pub(crate) warnings: Vec<String>,
    /// The site's share tree as `share` computes over it (the dry run's may add PBS's
    /// `unknown` group for the queue's entities the tree lacks).
    pub(crate) tree: Option<fairsort::fairshare::Tree>,
}

/// The PBS path's order of every job, as `run` computes it before printing.
pub(super) fn ordered(args: &Args, global: &Global, jobs: JobsIn) -> Result<Ordered, Failure> {
    let mut sc = scenario(args, global, jobs, true)?;
    crate::cli::usage::warn_unmatched(&sc.unmatched_usage);
    let no_formula = sc.formula.is_none() && sc.cycle.is_some();
    let program = if no_formula {
        sc.compile("0")?
    } else {
        sc.compile(sc.formula_source()?)?
    };
    // The dry run takes the tree (a copy of it here, once).
    let tree = sc.setup.tree.clone();
    let (dry, _, warnings) = order_in_cycle(&mut sc, &program, no_formula, None)?;
    Ok(Ordered {
        tree,
        sc,
        program,
        no_formula,
        dry,
        warnings,
    })
}

/// A PBS dry run (or comparison), for the one output path.
struct PbsOrder<'a> {
    args: &'a Args,
    sc: &'a Scenario,
    program: &'a Program,
    /// The site sorts without a formula (`program` is `0`).
    no_formula: bool,
    result: Option<&'a DryRun>,
    explanation: Option<&'a OrderExplanation>,
    /// Where the explained job stands in the PBS site's cycle.
    place: Option<&'a fairsort::scenario::cycle::CyclePlace>,
    /// What would crash or mislead the real pbs_sched on this formula and queue.
    warnings: &'a [String],
    against: Option<(&'a Program, &'a Comparison)>,
}

impl PbsOrder<'_> {
    fn result(&self) -> Result<&DryRun, Failure> {
        self.result
            .ok_or_else(|| Failure::user("internal: no dry run for this report"))
    }

    fn explanation(&self) -> Result<(&DryRun, &OrderExplanation), Failure> {
        match self.explanation {
            Some(e) => Ok((self.result()?, e)),
            None => Err(Failure::user("internal: no explanation for this report")),
        }
    }

    fn against(&self) -> Result<(&Program, &Comparison), Failure> {
        self.against
            .ok_or_else(|| Failure::user("internal: no comparison for this report"))
    }
}

impl SchedulerOrder for PbsOrder<'_> {
    fn metrics(&self) -> Result<report::OrderMetrics, Failure> {
        let dry = self.result()?;
        let jobs = &self.sc.setup.jobs;
        let shares = dry.shares.as_ref();
        let sym = |name: &str| jobs.resources.get(name);
        let (ncpus, walltime) = (sym("ncpus"), sym("walltime"));
        let number = |j: &fairsort::jobs::Job, s: Option<fairsort::jobs::Sym>| match s
            .and_then(|s| jobs.resource(j, s))
        {
            Some(fairsort::jobs::ResourceValue::Number(n)) => Some(n),
            _ => None,
        };
        // The job's account: its Account_Name, else the group of its fair-share entity.
        let account = |i: usize, j: &fairsort::jobs::Job| -> String {
            if let Some(a) = j.account() {
                return jobs.names.name(a).to_string();
            }
            let node = shares.and_then(|sh| Some((sh, (*sh.job_nodes.get(i)?)?)));
            node.and_then(|(sh, n)| sh.tree.parent(n).map(|p| sh.tree.node(p).name.clone()))
                .unwrap_or_default()
        };
        let mut rank = vec![None; jobs.len()];
        for (pos, r) in dry.order.ranked.iter().enumerate() {
            if let Some(slot) = rank.get_mut(r.job as usize) {
                *slot = Some((pos + 1, r.value));
            }
        }
        let out = jobs
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let ranked = rank.get(i).copied().flatten();
                fairsort::metrics::QueueJob {
                    id: j.id.as_str().to_string(),
                    user: jobs.user(j).to_string(),
                    account: account(i, j),
                    queue: jobs.queue(j).to_string(),
                    phase: match j.state {
                        fairsort::jobs::JobState::Queued => fairsort::metrics::Phase::Pending,
                        fairsort::jobs::JobState::Running => fairsort::metrics::Phase::Running,
                        _ => fairsort::metrics::Phase::Other,
                    },
                    cores: number(j, ncpus).unwrap_or(1.0),
                    walltime: number(j, walltime),
                    rank: ranked.map(|(r, _)| r),
                    value: ranked.map(|(_, v)| v),
                }
            })
            .collect();
        let mut algorithms = vec![self.sc.algorithm];
        for r in shares.map(|s| s.results.as_slice()).unwrap_or_default() {
            if !algorithms.contains(&r.algorithm) {
                algorithms.push(r.algorithm);
            }
        }
        Ok(report::OrderMetrics {
            scheduler: self.sc.sources.scheduler,
            jobs: out,
            tree: shares.map(|s| s.tree.clone()),
            results: shares.map(|s| s.results.clone()).unwrap_or_default(),
            algorithms,
        })
    }

    fn sources(&self) -> &Sources {
        &self.sc.sources
    }

    fn header(&self, body: &Body<'_>) -> Result<String, Failure> {
        Ok(match body {
            Body::Order => header(self.sc, self.program, self.no_formula, self.result()?),
            Body::Explain(_) | Body::Against => String::new(),
        })
    }

    fn text(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        match body {
            Body::Order => order_table(out, self.args, self.sc, self.result()?),
            Body::Explain(_) => {
                let (result, e) = self.explanation()?;
                explain_text(out, self.sc, self.program, result, e)?;
                match self.place {
                    Some(p) => cycle_text(out, p),
                    None => Ok(()),
                }
            }
            Body::Against => {
                let (other, cmp) = self.against()?;
                against_text(out, self.program, other, cmp)
            }
        }
    }

    fn json(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        let sources = self.sources();
        match body {
            Body::Order => {
                let result = self.result()?;
                let doc = OrderDocument {
                    formula: (!self.no_formula).then(|| self.program.source()),
                    threshold: self.sc.setup.threshold,
                    pbs_compat: self.sc.setup.pbs_compat,
                    total: result.order.summary.total,
                    jobs: rows(&self.sc.setup.jobs, &result.order, self.args.top),
                };
                #[derive(Serialize)]
                struct Doc<'a> {
                    #[serde(flatten)]
                    order: OrderDocument<'a>,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    cycle: Option<CycleJson<'a>>,
                    #[serde(skip_serializing_if = "<[String]>::is_empty")]
                    warnings: &'a [String],
                }
                let cycle = self.sc.cycle.as_ref().map(|c| CycleJson::of(c, result));
                let warnings = self.warnings;
                report::json(
                    out,
                    &Doc {
                        order: doc,
                        cycle,
                        warnings,
                    },
                    sources,
                )
            }
            Body::Explain(_) => {
                let (_, x) = self.explanation()?;
                #[derive(Serialize)]
                struct Doc<'a> {
                    formula: &'a str,
                    #[serde(flatten)]
                    job: &'a fairsort::order::JobExplanation,
                    terms: &'a [TermValue],
                    entity: &'a str,
                    fair_share: Option<&'a fairshare::explain::Explanation>,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    cycle: Option<&'a fairsort::scenario::cycle::CyclePlace>,
                }
                let doc = Doc {
                    formula: self.program.source(),
                    job: &x.job,
                    terms: &x.terms,
                    entity: &x.entity,
                    fair_share: x.fair_share.as_ref(),
                    cycle: self.place,
                };
                report::json(out, &doc, sources)
            }
            Body::Against => {
                let (other, cmp) = self.against()?;
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
                    formula: self.program.source(),
                    against: other.source(),
                    spearman: cmp.spearman,
                    kendall: cmp.kendall,
                    total: cmp.total,
                    jobs: &cmp.rows,
                    movers: &cmp.movers,
                };
                report::json(out, &doc, sources)
            }
        }
    }

    fn csv(&self, out: &mut (dyn Write + Send), body: &Body<'_>) -> CliResult {
        match body {
            Body::Order => order_csv(out, self.args, self.sc, self.result()?),
            // An explanation has no rows: its text, as before `--csv` meant anything here.
            Body::Explain(_) => {
                let (result, e) = self.explanation()?;
                explain_text(out, self.sc, self.program, result, e)?;
                match self.place {
                    Some(p) => cycle_text(out, p),
                    None => Ok(()),
                }
            }
            Body::Against => against_csv(out, &self.against()?.1.rows),
        }
    }
}

fn tree_kind(tree: &Tree) -> &'static str {
    match tree.source() {
        fairshare::TreeSource::Pbs => "PBS",
        fairshare::TreeSource::Slurm => "Slurm",
        fairshare::TreeSource::Flux => "flux",
        fairshare::TreeSource::Native => "fairsort",
    }
}

fn header(sc: &Scenario, program: &Program, no_formula: bool, result: &DryRun) -> String {
    let s = &sc.setup;
    let mut h = String::new();
    if let Some(t) = &sc.title {
        h.push_str(&format!("fairsort order: {t}\n"));
    }
    if no_formula {
        h.push_str(
            "formula:    none (pbs_sched sorts by job_sort_key, fair share, then job order)\n",
        );
    } else {
        h.push_str(&format!("formula:    {}\n", program.source()));
    }
    if let Some(c) = &sc.cycle {
        h.push_str(&format!("cycle:      {}\n", cycle_line(c)));
    }
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
    let held =
        |h: fairsort::order::sort::Held| result.order.held.values().filter(|x| **x == h).count();
    let mut other = total.saturating_sub(eligible + below);
    for (h, what) in [
        (fairsort::order::sort::Held::ZeroShares, "with zero shares"),
        (
            fairsort::order::sort::Held::QueueStopped,
            "in queues not started",
        ),
        (fairsort::order::sort::Held::RouteQueue, "in route queues"),
    ] {
        let n = held(h);
        if n > 0 {
            line.push_str(&format!(", {n} {what}"));
            other = other.saturating_sub(n);
        }
    }
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

/// The table of the order (after the header).
fn order_table(
    out: &mut (dyn Write + Send),
    args: &Args,
    sc: &Scenario,
    result: &DryRun,
) -> CliResult {
    let jobs = &sc.setup.jobs;
    let rows = rows(jobs, &result.order, args.top);
    let mut t = StreamTable::new(&[
        (HEADERS[0], Align::Right),
        (HEADERS[1], Align::Left),
        (HEADERS[2], Align::Left),
        (HEADERS[3], Align::Left),
        (HEADERS[4], Align::Right),
        (HEADERS[5], Align::Left),
    ]);
    for (i, w) in fairsort::order::rows::widths(jobs, &rows)
        .into_iter()
        .enumerate()
    {
        t.widen(i, w);
    }
    let mut out = out;
    t.write_header(&mut out)?;
    let widths = std::array::from_fn(|i| t.width(i));
    fairsort::order::rows::write_table(&mut out, &widths, jobs, &rows)?;
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

/// The order as CSV rows.
fn order_csv(
    out: &mut (dyn Write + Send),
    args: &Args,
    sc: &Scenario,
    result: &DryRun,
) -> CliResult {
    let rows = rows(&sc.setup.jobs, &result.order, args.top);
    let mut w = csv::Writer::from_writer(&mut *out);
    w.write_record([
        "rank", "job_id", "owner", "queue", "value", "status", "error",
    ])?;
    w.flush()?;
    drop(w);
    let mut out = out;
    fairsort::order::rows::write_csv(&mut out, &rows)?;
    Ok(())
}

/// One job's explanation as text.
fn explain_text(
    out: &mut (dyn Write + Send),
    sc: &Scenario,
    program: &Program,
    result: &DryRun,
    x: &OrderExplanation,
) -> CliResult {
    let e = &x.job;
    let term_values = &x.terms;
    let share = &x.fair_share;
    let entity = &x.entity;
    let total = result.order.ranked.len();
    let held = (sc.setup.jobs.find(&e.id)).and_then(|j| result.order.held(j as u32));
    let status = if e.below_threshold {
        format!("not eligible: {}", fairsort::order::THRESHOLD_COMMENT)
    } else if e.eligible {
        "eligible".to_string()
    } else if let Some(h) = held {
        let r = fairsort::order::sort::Ranked {
            job: 0,
            value: 0.0,
            eligible: false,
            below_threshold: false,
        };
        let st =
            fairsort::order::report::status_held(&r, fairsort::jobs::JobState::Queued, Some(h));
        format!("not eligible: {st}")
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
        // On a PBS site the cycle's rules (below) place the job, not its value alone.
        Some(_) if sc.cycle.is_some() => {}
        Some(n) => writeln!(
            out,
            "\nabove the next job {} (value {}): {}",
            n.id,
            fmt(n.value),
            n.reason
        )?,
        None if sc.cycle.is_some() => {}
        None => writeln!(out, "\nlast in the queue")?,
    }
    Ok(())
}

/// A comparison as text.
fn against_text(
    out: &mut (dyn Write + Send),
    a_prog: &Program,
    b_prog: &Program,
    cmp: &Comparison,
) -> CliResult {
    let shown = &cmp.rows;
    let moved = report::moved;
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
    report::movers(
        out,
        cmp.movers
            .iter()
            .map(|r| (r.id.to_string(), r.rank, r.rank_against, r.moved)),
    )?;
    report::correlation_line(out, cmp.spearman, cmp.kendall)
}

/// A comparison's rows as CSV.
fn against_csv(out: &mut (dyn Write + Send), shown: &[AgainstRow]) -> CliResult {
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
    Ok(())
}

/// The header's account of the cycle's rules: how pbs_sched walks the queues, what sorts them,
/// when, and where the rules come from.
fn cycle_line(c: &fairsort::scenario::cycle::CycleSite) -> String {
    let r = &c.rules;
    let walk = if r.round_robin {
        "round_robin (one job per queue of a Priority in turn)"
    } else if r.by_queue {
        "by_queue (queue by queue, highest Priority first)"
    } else {
        "the whole complex as one queue"
    };
    let mut parts = vec![format!("the order pbs_sched considers jobs in: {walk}")];
    if r.preemptive_sched {
        parts.push(format!(
            "preemption levels (express queues at Priority >= {})",
            r.preempt_queue_prio
        ));
    }
    if !r.sort_keys.is_empty() {
        let keys: Vec<String> = (r.sort_keys.iter())
            .map(|k| format!("{} {}", k.name, if k.high { "HIGH" } else { "LOW" }))
            .collect();
        parts.push(format!("job_sort_key {}", keys.join(", ")));
    }
    if r.fair_share {
        parts.push("fair_share".into());
    }
    let period = if c.prime {
        "prime time"
    } else {
        "non-prime time"
    };
    parts.push(match c.at {
        Some(at) => format!("{period} at {at}"),
        None => period.to_string(),
    });
    parts.push(format!("rules from {}", c.from));
    parts.join("; ")
}

/// The cycle of `order --json` on a PBS site: when it runs and the rules that ordered it.
#[derive(Serialize)]
struct CycleJson<'a> {
    /// The cycle's second (epoch), when known.
    at: Option<i64>,
    /// In prime time.
    prime: bool,
    /// How many jobs pbs_sched considers (the first rows, `eligible` true).
    considered: usize,
    by_queue: bool,
    round_robin: bool,
    fair_share: bool,
    preemptive_sched: bool,
    preempt_queue_prio: i64,
    /// `job_sort_key` lines as `NAME HIGH|LOW`.
    job_sort_key: Vec<String>,
    /// The threshold applied (`INT_MIN` when unset, as pbs_sched applies it).
    threshold: f64,
    /// The queues in the order the walk takes them: (name, Priority).
    queues: Vec<(&'a str, i64)>,
    /// Where the rules come from.
    rules_from: &'a str,
}

impl<'a> CycleJson<'a> {
    fn of(c: &'a fairsort::scenario::cycle::CycleSite, result: &DryRun) -> CycleJson<'a> {
        let r = &c.rules;
        let mut queues: Vec<(&str, i64)> = (r.queues.iter())
            .filter(|q| q.kind == fairsort::pbs::cycle::QueueKind::Execution)
            .map(|q| (q.name.as_str(), q.priority))
            .collect();
        queues.sort_by_key(|q| std::cmp::Reverse(q.1));
        CycleJson {
            at: c.at,
            prime: c.prime,
            considered: result.order.summary.eligible,
            by_queue: r.by_queue,
            round_robin: r.round_robin,
            fair_share: r.fair_share,
            preemptive_sched: r.preemptive_sched,
            preempt_queue_prio: r.preempt_queue_prio,
            job_sort_key: (r.sort_keys.iter())
                .map(|k| format!("{} {}", k.name, if k.high { "HIGH" } else { "LOW" }))
                .collect(),
            threshold: r.threshold.unwrap_or(fairsort::pbs::defs::threshold::UNSET),
            queues,
            rules_from: &c.from,
        }
    }
}

/// `--explain` on a PBS site: where pbs_sched's cycle puts the job, and what placed it there.
fn cycle_text(
    out: &mut (dyn Write + Send),
    p: &fairsort::scenario::cycle::CyclePlace,
) -> CliResult {
    writeln!(out, "\npbs_sched's cycle:")?;
    match (p.considered, &p.not_considered) {
        (Some(n), _) => writeln!(out, "  considered:      {n} of {}", p.of)?,
        (None, Some(why)) => writeln!(out, "  not considered:  {why}")?,
        (None, None) => writeln!(out, "  not considered")?,
    }
    if let Some(l) = p.preempt_level {
        writeln!(
            out,
            "  preemption:      level {l} ({}); higher levels are considered first",
            p.preempt_classes.join(", ")
        )?;
    }
    match p.queue_priority {
        Some(pr) => writeln!(out, "  queue:           {} (Priority {pr})", p.queue)?,
        None => writeln!(out, "  queue:           {}", p.queue)?,
    }
    if let Some(by) = p.reached_by {
        writeln!(out, "  reached by:      {by}")?;
    }
    if let Some(v) = p.value {
        writeln!(out, "  formula value:   {} (as a C float)", fmt(v))?;
    }
    if let Some(r) = p.fair_share_rank {
        writeln!(
            out,
            "  fair-share rank: {r} (1: the most deserving entity's path)"
        )?;
    }
    for (k, v) in &p.sort_keys {
        writeln!(out, "  job_sort_key:    {k} = {}", fmt(*v))?;
    }
    match (&p.before, p.considered) {
        (Some(b), _) => writeln!(out, "  before {}: {}", b.next, b.because)?,
        (None, Some(_)) => writeln!(out, "  the last job considered")?,
        (None, None) => {}
    }
    Ok(())
}
