//! `fairsort order`: dry-run the job queue order — bind every job, evaluate the formula, sort,
//! apply the threshold, and explain (`--explain JOBID`) or compare formulas (`--against`).
//! A thin layer over `fairsort::queue`: it gathers the inputs (built-in example or flags), runs the
//! dry run and prints a table (default), `--json` or `--csv`.

use super::table::{Align, Table};
use super::{CliResult, Failure, Global};
use fairsort::fairshare::{self, Algorithm, Options, Tree, TreeSpec};
use fairsort::formats;
use fairsort::formula::{self, Program, ResourceTable};
use fairsort::pbs::{FairshareEntity as EntityKey, ResourceType};
use fairsort::queue::compare::{compare, Comparison};
use fairsort::queue::dry_run::{dry_run_with, order_options, prepare_shares, DryRun};
use fairsort::queue::explain::{explain_job, fmt};
use fairsort::queue::report::{cells, rows, OrderDocument, HEADERS};
use fairsort::queue::{
    example, read_jobs_bytes, EntityName, JobSet, JobsFormat, ResourceValue, Setup, ShareEngine,
    SortFormula,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;

/// Arguments of `fairsort order`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Use a built-in example cluster (share tree, queue, formula): `pbs` (default) or `slurm`.
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "pbs")]
    pub example: Option<String>,
    /// Jobs: `qstat -f -F json` output, a fairsort JSON or CSV job list; `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,
    /// Format of --jobs (default: detected): qstat, json, csv.
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
    pub entity: Option<EntityKey>,
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
}

/// Everything gathered from the example and the flags.
struct Inputs {
    title: Option<String>,
    formula: String,
    setup: Setup,
    algorithm: Algorithm,
    resources: ResourceTable,
}

fn user(msg: impl std::fmt::Display) -> Failure {
    Failure::user(msg.to_string())
}

fn read_input(path: &std::path::Path) -> Result<fairsort::queue::FileBytes, Failure> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| user(format!("cannot read stdin: {e}")))?;
        return Ok(fairsort::queue::FileBytes::Read(buf));
    }
    fairsort::queue::read_file(path)
        .map_err(|e| user(format!("cannot read {}: {e}", path.display())))
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

fn resource_type(name: &str) -> Option<ResourceType> {
    Some(match name.to_ascii_lowercase().as_str() {
        "long" | "int" | "integer" => ResourceType::Long,
        "float" => ResourceType::Float,
        "size" => ResourceType::Size,
        "time" => ResourceType::Time,
        "boolean" | "bool" => ResourceType::Boolean,
        "string" | "string_array" => ResourceType::String,
        _ => return None,
    })
}

/// Builtin resources, `--resource` definitions, then whatever else the jobs request.
fn resource_table(
    args: &Args,
    home: &[(String, String)],
    jobs: &JobSet,
) -> Result<ResourceTable, Failure> {
    let mut table = ResourceTable::builtin();
    for (name, kind) in home {
        if let Some(ty) = resource_type(kind) {
            if table.get(name).is_none() {
                table.define(name, ty).map_err(user)?;
            }
        }
    }
    for def in &args.resource {
        let (name, ty) = parse_assignment(def, "resource")?;
        let ty = resource_type(&ty).ok_or_else(|| {
            Failure::usage(format!(
                "--resource {name}: unknown type `{ty}` (expected long, float, size, time, boolean, string)"
            ))
        })?;
        table.define(&name, ty).map_err(user)?;
    }
    for sym in 0..jobs.resources.len() as u32 {
        let name = jobs.resources.name(sym);
        if table.get(name).is_some() {
            continue;
        }
        // The job set's columns record the first job whose value is text.
        let numeric = match jobs.columns.resources.get(sym as usize) {
            Some(col) if jobs.columns.covers(jobs.len()) => col.first_text.is_none(),
            _ => (jobs.jobs.iter())
                .all(|j| !matches!(jobs.resource(j, sym), Some(ResourceValue::Text(_)))),
        };
        let ty = if numeric {
            ResourceType::Float
        } else {
            ResourceType::String
        };
        table.define(name, ty).map_err(user)?;
    }
    Ok(table)
}

fn load_tree(args: &Args, base: Option<TreeSpec>) -> Result<Option<Tree>, Failure> {
    let mut spec = match &args.tree {
        Some(path) => Some(formats::read_tree(path, args.tree_format).map_err(user)?),
        None => base,
    };
    if let Some(path) = &args.usage {
        let Some(s) = spec.as_mut() else {
            return Err(Failure::usage(
                "--usage needs a share tree (--tree or --example)",
            ));
        };
        let bytes = read_input(path)?;
        let usage = if bytes.starts_with(b"PBS_MAG!") || std::str::from_utf8(&bytes).is_err() {
            formats::pbs::read_usage_binary(&bytes)
        } else {
            formats::pbs::read_usage_text(&String::from_utf8_lossy(&bytes))
        }
        .map_err(user)?;
        formats::pbs::apply_usage(s, &usage).map_err(user)?;
    }
    if let (Some(n), Some(s)) = (args.unknown_shares, spec.as_mut()) {
        s.unknown_shares = Some(n);
    }
    spec.map(|s| Tree::build(s).map_err(user)).transpose()
}

/// What the server home holds for a dry run, in the example's shape.
struct HomeInputs {
    settings: example::ClusterSettings,
    tree: Option<TreeSpec>,
    resources: Vec<(String, String)>,
}

/// Reads the server home if one exists (never creates one): attributes, queues, custom
/// resources, the share tree (`resource_group`) with the usage store applied.
fn load_home(global: &Global) -> Result<Option<HomeInputs>, Failure> {
    let Ok(dir) = fairsort::home::Home::resolve(global.home.as_deref()) else {
        return Ok(None);
    };
    if !dir.join(fairsort::home::dir::files::STATE).exists() {
        if global.home.is_some() {
            return Err(user(format!(
                "{} is not a fairsort server home (no {})",
                dir.display(),
                fairsort::home::dir::files::STATE
            )));
        }
        return Ok(None);
    }
    let home = fairsort::home::Home::open(Some(&dir)).map_err(user)?;
    let state = home.load().map_err(user)?;
    let sched = &state.sched;
    let settings = example::ClusterSettings {
        name: format!("server home {}", dir.display()),
        formula: state.server.job_sort_formula.clone().unwrap_or_default(),
        threshold: sched.job_sort_formula_threshold,
        fair_share: sched.fair_share,
        fairshare_entity: sched.fairshare_entity.as_str().to_string(),
        algorithm: sched.fairshare_algorithm.to_string(),
        queues: state
            .queues
            .keys()
            .map(|q| (q.clone(), state.queue_priority(q)))
            .collect(),
    };
    let tree_path = home.file(fairsort::home::dir::files::TREE);
    let tree = if tree_path.exists() {
        let text = std::fs::read_to_string(&tree_path)
            .map_err(|e| user(format!("cannot read {}: {e}", tree_path.display())))?;
        let mut spec = formats::pbs::parse_resource_group(&text, sched.unknown_shares)
            .map_err(|e| user(e.with_file(&tree_path.display().to_string())))?;
        let store = fairsort::home::load_store(&dir.join(fairsort::home::dir::files::USAGE))
            .map_err(user)?;
        for e in &store.entries {
            for n in spec.nodes.iter_mut() {
                let account_ok = e.account.is_none() || e.account == n.parent;
                if n.name == e.name && account_ok && n.kind == fairshare::NodeKind::User {
                    n.usage = Some(e.usage);
                }
            }
        }
        Some(spec)
    } else {
        None
    };
    let resources = state
        .resources
        .iter()
        .map(|(n, d)| (n.clone(), d.kind.clone()))
        .collect();
    Ok(Some(HomeInputs {
        settings,
        tree,
        resources,
    }))
}

fn gather(args: &Args, global: &Global) -> Result<Inputs, Failure> {
    let mut ex = match &args.example {
        Some(name) => Some(example::load(name).map_err(Failure::usage)?),
        None => None,
    };
    let mut home_resources = Vec::new();
    if ex.is_none() {
        if let Some(h) = load_home(global)? {
            home_resources = h.resources;
            let entity = h.settings.fairshare_entity.parse().map_err(user)?;
            let algorithm = h.settings.algorithm.parse().map_err(user)?;
            ex = Some(example::Example {
                key: "home",
                settings: h.settings,
                entity,
                algorithm,
                tree: h.tree.unwrap_or_default(),
                jobs: JobSet::default(),
            });
        }
    }
    let from_home = ex.as_ref().is_some_and(|e| e.key == "home");
    let jobs = match (&args.jobs, &ex) {
        (Some(path), _) => {
            let bytes = read_input(path)?;
            read_jobs_bytes(&path.to_string_lossy(), &bytes, args.jobs_format).map_err(user)?
        }
        (None, Some(ex)) if ex.key != "home" => ex.jobs.clone(),
        (None, _) => {
            return Err(Failure::usage(
                "no jobs: give --jobs FILE (qstat -f -F json, JSON or CSV list) or --example",
            ))
        }
    };
    let formula = match (&args.formula, &ex) {
        (Some(f), _) => f.clone(),
        (None, Some(ex)) if !ex.settings.formula.is_empty() => ex.settings.formula.clone(),
        (None, _) => {
            return Err(Failure::usage(
                "no formula: give --formula, or set job_sort_formula with `fairsort qmgr`",
            ))
        }
    };
    let base_tree = ex
        .as_ref()
        .map(|e| e.tree.clone())
        .filter(|t| !(from_home && t.nodes.is_empty()));
    let tree = load_tree(args, base_tree)?;
    let mut queues: BTreeMap<String, i64> = ex
        .as_ref()
        .map(|e| e.settings.queues.clone())
        .unwrap_or_default();
    for q in &args.queue_priority {
        let (name, v) = parse_assignment(q, "queue-priority")?;
        let p: i64 = v.parse().map_err(|_| {
            Failure::usage(format!("--queue-priority {name}: `{v}` is not an integer"))
        })?;
        queues.insert(name, p);
    }
    let threshold = if args.no_threshold {
        None
    } else {
        args.threshold
            .or(ex.as_ref().and_then(|e| e.settings.threshold))
    };
    if threshold.is_some_and(|t| !t.is_finite()) {
        return Err(Failure::usage("--threshold must be a finite number"));
    }
    let fair_share = if args.no_fair_share {
        false
    } else {
        args.fair_share || ex.as_ref().is_some_and(|e| e.settings.fair_share)
    };
    let entity = args
        .entity
        .or(ex.as_ref().map(|e| e.entity))
        .unwrap_or_default();
    let algorithm = args
        .algorithm
        .or(ex.as_ref().map(|e| e.algorithm))
        .unwrap_or(Algorithm::Pbs);
    let resources = resource_table(args, &home_resources, &jobs)?;
    Ok(Inputs {
        title: ex.map(|e| e.settings.name),
        formula,
        setup: Setup {
            jobs,
            tree,
            entity,
            options: Options::default(),
            fair_share,
            threshold,
            pbs_compat: args.pbs_compat,
            queues,
        },
        algorithm,
        resources,
    })
}

fn compile(src: &str, resources: &ResourceTable) -> Result<Program, Failure> {
    formula::compile(src, resources).map_err(|e| user(e.render(src)))
}

const ENGINE: ShareEngine = ShareEngine {
    compute: &fairshare::compute,
    compare_path: Some(&fairshare::pbs::compare_path),
};

fn run_one(inputs: &Inputs, formula: &Program, others: &[&Program]) -> Result<DryRun, Failure> {
    let mut all: Vec<&dyn SortFormula> = vec![formula];
    all.extend(others.iter().map(|p| *p as &dyn SortFormula));
    let shares = prepare_shares(&inputs.setup, &all, &ENGINE).map_err(user)?;
    let options = order_options(&inputs.setup, shares.as_ref(), &ENGINE);
    dry_run_with(&inputs.setup, formula, shares, options).map_err(user)
}

/// Runs `fairsort order`.
pub fn run(mut args: Args, global: &Global) -> CliResult {
    if args.example.is_none() && args.jobs.is_none() && invoked_as_demo(std::env::args()) {
        args.example = Some("pbs".to_string());
    }
    let inputs = gather(&args, global)?;
    let program = compile(&inputs.formula, &inputs.resources)?;
    let mut out = std::io::stdout().lock();
    if let Some(other) = &args.against {
        let other = compile(other, &inputs.resources)?;
        let a = run_one(&inputs, &program, &[&other])?;
        let b = dry_run_with(&inputs.setup, &other, a.shares.clone(), a.options.clone())
            .map_err(user)?;
        let cmp = compare(&a.order, &b.order);
        return print_against(&mut out, &args, &inputs, &program, &other, &a, &b, &cmp);
    }
    let result = run_one(&inputs, &program, &[])?;
    if let Some(id) = &args.explain {
        return print_explain(&mut out, &args, &inputs, &program, &result, id);
    }
    print_order(&mut out, &args, &inputs, &program, &result)
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

fn header(inputs: &Inputs, program: &Program, result: &DryRun) -> String {
    let s = &inputs.setup;
    let mut h = String::new();
    if let Some(t) = &inputs.title {
        h.push_str(&format!("fairsort order: {t}\n"));
    }
    h.push_str(&format!("formula:    {}\n", program.source()));
    if let Some(t) = s.threshold {
        h.push_str(&format!(
            "threshold:  {} (a queued job at or below it is not eligible this cycle)\n",
            fmt(t)
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
            ctx.tree.len(),
            if fairsort::queue::shares::is_pbs_tree(&ctx.tree) {
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
    if s.pbs_compat {
        h.push_str("rounding:   --pbs-compat (PBS's text binding and 32-bit float values)\n");
    }
    let total = result.order.ranked.len();
    let eligible = result.order.ranked.iter().filter(|r| r.eligible).count();
    let below = result
        .order
        .ranked
        .iter()
        .filter(|r| r.below_threshold)
        .count();
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
    out: &mut impl Write,
    args: &Args,
    inputs: &Inputs,
    program: &Program,
    result: &DryRun,
) -> CliResult {
    let jobs = &inputs.setup.jobs;
    let rows = rows(jobs, &result.order, args.top);
    if args.json {
        let doc = OrderDocument {
            formula: program.source().to_string(),
            threshold: inputs.setup.threshold,
            pbs_compat: inputs.setup.pbs_compat,
            total: result.order.ranked.len(),
            jobs: rows,
        };
        serde_json::to_writer_pretty(&mut *out, &doc).map_err(user)?;
        writeln!(out)?;
        return Ok(());
    }
    if args.csv {
        let mut w = csv::Writer::from_writer(&mut *out);
        w.write_record([
            "rank", "job_id", "owner", "queue", "value", "status", "error",
        ])
        .map_err(user)?;
        for r in &rows {
            let mut c = cells(r);
            if let Some(status) = c.get_mut(5) {
                *status = r.status.clone();
            }
            c.push(r.error.clone().unwrap_or_default());
            w.write_record(&c).map_err(user)?;
        }
        w.flush()?;
        return Ok(());
    }
    write!(out, "{}", header(inputs, program, result))?;
    writeln!(out)?;
    let mut t = Table::new(&[
        (HEADERS[0], Align::Right),
        (HEADERS[1], Align::Left),
        (HEADERS[2], Align::Left),
        (HEADERS[3], Align::Left),
        (HEADERS[4], Align::Right),
        (HEADERS[5], Align::Left),
    ]);
    for r in &rows {
        t.row(cells(r));
    }
    write!(out, "{}", t.render())?;
    if rows.len() < result.order.ranked.len() {
        writeln!(
            out,
            "... {} more (showing the top {})",
            result.order.ranked.len() - rows.len(),
            rows.len()
        )?;
    }
    Ok(())
}

/// One additive term's value for the explained job.
#[derive(Debug, Serialize)]
struct TermValue {
    term: String,
    value: f64,
    error: Option<String>,
}

fn print_explain(
    out: &mut impl Write,
    args: &Args,
    inputs: &Inputs,
    program: &Program,
    result: &DryRun,
    id: &str,
) -> CliResult {
    let jobs = &inputs.setup.jobs;
    let idx = jobs
        .find(id)
        .ok_or_else(|| user(format!("no job `{id}` in the queue")))?;
    let e = explain_job(
        jobs,
        &result.binder,
        program.keywords(),
        &result.order,
        &result.options,
        idx,
    )
    .map_err(user)?
    .ok_or_else(|| user(format!("no job `{id}` in the queue")))?;
    // Each additive term, evaluated on the job's bound keywords.
    let terms = formula::additive_terms(program.source(), &inputs.resources).map_err(user)?;
    let mut slots = Vec::new();
    let term_values: Vec<TermValue> = terms
        .iter()
        .map(|t| {
            slots.clear();
            for k in t.program.keywords() {
                let v = e
                    .keywords
                    .iter()
                    .find(|b| &b.keyword == k)
                    .map(|b| b.value)
                    .unwrap_or(0.0);
                slots.push(v);
            }
            let ev = t.program.eval(&slots);
            TermValue {
                term: format!("{}{}", if t.sign < 0.0 { "- " } else { "+ " }, t.text),
                value: t.sign * ev.value,
                error: ev.error,
            }
        })
        .collect();
    // The fair-share explanation of the job's entity.
    let share = result.shares.as_ref().and_then(|ctx| {
        let node = ctx.job_nodes.get(idx).copied().flatten()?;
        let alg = ctx
            .result(inputs.algorithm)
            .or_else(|| ctx.results.first())?;
        Some(fairshare::explain::explain(&ctx.tree, alg, node))
    });
    let entity = {
        let job = jobs.jobs.get(idx);
        job.map(|j| inputs.setup.entity.name_of(jobs, j))
            .unwrap_or_default()
    };
    if args.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            formula: &'a str,
            #[serde(flatten)]
            job: &'a fairsort::queue::JobExplanation,
            terms: &'a [TermValue],
            entity: &'a str,
            fair_share: Option<&'a fairshare::explain::Explanation>,
        }
        let doc = Doc {
            formula: program.source(),
            job: &e,
            terms: &term_values,
            entity: &entity,
            fair_share: share.as_ref(),
        };
        serde_json::to_writer_pretty(&mut *out, &doc).map_err(user)?;
        writeln!(out)?;
        return Ok(());
    }
    let total = result.order.ranked.len();
    let status = if e.below_threshold {
        format!("not eligible: {}", fairsort::queue::THRESHOLD_COMMENT)
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
    for tv in &term_values {
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
                inputs.setup.entity
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

#[allow(clippy::too_many_arguments)]
fn print_against(
    out: &mut impl Write,
    args: &Args,
    inputs: &Inputs,
    a_prog: &Program,
    b_prog: &Program,
    a: &DryRun,
    b: &DryRun,
    cmp: &Comparison,
) -> CliResult {
    let jobs = &inputs.setup.jobs;
    let b_values: Vec<f64> = {
        let mut v = vec![0.0; jobs.len()];
        for r in &b.order.ranked {
            if let Some(s) = v.get_mut(r.job as usize) {
                *s = r.value;
            }
        }
        v
    };
    let a_values: Vec<f64> = {
        let mut v = vec![0.0; jobs.len()];
        for r in &a.order.ranked {
            if let Some(s) = v.get_mut(r.job as usize) {
                *s = r.value;
            }
        }
        v
    };
    let id = |j: u32| {
        jobs.jobs
            .get(j as usize)
            .map(|x| x.id.as_str())
            .unwrap_or("")
    };
    let owner = |j: u32| {
        jobs.jobs
            .get(j as usize)
            .map(|x| jobs.user(x))
            .unwrap_or("")
    };
    #[derive(Serialize)]
    struct Row<'a> {
        id: &'a str,
        owner: &'a str,
        rank: u32,
        rank_against: u32,
        moved: i64,
        value: f64,
        value_against: f64,
    }
    let make = |m: &fairsort::queue::Move| Row {
        id: id(m.job),
        owner: owner(m.job),
        rank: m.rank_a,
        rank_against: m.rank_b,
        moved: m.delta(),
        value: a_values.get(m.job as usize).copied().unwrap_or(0.0),
        value_against: b_values.get(m.job as usize).copied().unwrap_or(0.0),
    };
    let n = args.top.unwrap_or(usize::MAX);
    let shown: Vec<Row> = cmp.moves.iter().take(n).map(make).collect();
    let movers: Vec<Row> = cmp.biggest_movers(args.movers).iter().map(make).collect();
    if args.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            formula: &'a str,
            against: &'a str,
            spearman: Option<f64>,
            kendall: Option<f64>,
            total: usize,
            jobs: &'a [Row<'a>],
            movers: &'a [Row<'a>],
        }
        let doc = Doc {
            formula: a_prog.source(),
            against: b_prog.source(),
            spearman: cmp.spearman,
            kendall: cmp.kendall,
            total: cmp.moves.len(),
            jobs: &shown,
            movers: &movers,
        };
        serde_json::to_writer_pretty(&mut *out, &doc).map_err(user)?;
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
            "value",
            "value_against",
        ])
        .map_err(user)?;
        for r in &shown {
            w.write_record([
                r.rank.to_string(),
                r.rank_against.to_string(),
                r.moved.to_string(),
                r.id.to_string(),
                r.owner.to_string(),
                r.value.to_string(),
                r.value_against.to_string(),
            ])
            .map_err(user)?;
        }
        w.flush()?;
        return Ok(());
    }
    writeln!(out, "current:  {}", a_prog.source())?;
    writeln!(out, "against:  {}", b_prog.source())?;
    writeln!(out)?;
    let table = |rows: &[Row]| {
        let mut t = Table::new(&[
            ("rank", Align::Right),
            ("against", Align::Right),
            ("moved", Align::Right),
            ("job id", Align::Left),
            ("owner", Align::Left),
            ("value", Align::Right),
            ("value against", Align::Right),
        ]);
        for r in rows {
            t.row(vec![
                r.rank.to_string(),
                r.rank_against.to_string(),
                moved(r.moved),
                r.id.to_string(),
                r.owner.to_string(),
                fmt(r.value),
                fmt(r.value_against),
            ]);
        }
        t.render()
    };
    write!(out, "{}", table(&shown))?;
    if shown.len() < cmp.moves.len() {
        writeln!(out, "... {} more", cmp.moves.len() - shown.len())?;
    }
    writeln!(out)?;
    if movers.is_empty() {
        writeln!(out, "no job changes rank")?;
    } else {
        writeln!(out, "biggest movers (+ = earlier under --against):")?;
        for r in &movers {
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
    let num = |v: Option<f64>| v.map(|x| format!("{x:.4}")).unwrap_or_else(|| "n/a".into());
    writeln!(
        out,
        "rank correlation: Spearman {}, Kendall tau {} (1 = same order, -1 = reversed)",
        num(cmp.spearman),
        num(cmp.kendall)
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
