//! `fairsort metrics`: the site's fair share, queue, forecast waits and usage state in the
//! Prometheus text format, for node_exporter's textfile collector (docs/metrics.md). The
//! inputs are `order`'s (an example, the home, or files: the queue's path computes the order
//! and the share tree it used), else `share`'s (a tree alone), and `forecast`'s node state;
//! `-o FILE` replaces the file atomically. A thin layer over `fairsort::metrics`.

use super::order::report::OrderMetrics;
use super::{CliResult, Failure, Global};
use fairsort::fairshare::{compute, Algorithm, Options, ShareResult, Tree};
use fairsort::home::Home;
use fairsort::inputs::{JobsFormat, TreeFormat};
use fairsort::metrics::{Metrics, ShareMetrics, SiteLabels, UsageState, Wait, DEFAULT_TOP};
use fairsort::scenario::{Base, ScenarioBuilder, ScenarioError};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `fairsort metrics`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A built-in example site (`pbs`, `slurm`, `slurm-tree`, `flux`): its tree, queue and
    /// formula or weights.
    #[arg(long, value_name = "NAME", value_parser = crate::cli::examples::parse)]
    pub example: Option<String>,
    /// The share tree (as `share --tree`); with no jobs, the metrics are the tree's alone.
    #[arg(long, value_name = "FILE")]
    pub tree: Option<PathBuf>,
    /// The tree's format (detected when omitted).
    #[arg(long, value_name = "F", value_parser = super::choices::parser::<TreeFormat>())]
    pub tree_format: Option<TreeFormat>,
    /// PBS usage applied to the tree (as `share --usage`).
    #[arg(long, value_name = "FILE")]
    pub usage: Option<PathBuf>,
    /// The fair-share algorithms to write (comma-separated, repeatable). Default: every
    /// algorithm the site uses (the home's or slurm.conf's, and those the formula's keywords
    /// read); required with --tree alone.
    #[arg(long, short, value_name = "A,...", value_delimiter = ',', value_parser = super::choices::parser::<Algorithm>())]
    pub algorithm: Vec<Algorithm>,
    /// The queue, as `order --jobs` takes it (qstat JSON, a job list, squeue, flux jobs).
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,
    /// The format of --jobs (detected when omitted).
    #[arg(long, value_name = "FORMAT")]
    pub jobs_format: Option<JobsFormat>,
    /// The job_sort_formula (as `order --formula`).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub formula: Option<String>,
    /// The job_sort_formula from a file (as `order --formula-file`).
    #[arg(long, value_name = "FILE", conflicts_with = "formula")]
    pub formula_file: Option<PathBuf>,
    /// A Slurm site's slurm.conf (as `order --slurm-conf` and `forecast --slurm-conf`).
    #[arg(long, value_name = "FILE")]
    pub slurm_conf: Option<PathBuf>,
    /// Slurm: `sacctmgr show qos -P` output.
    #[arg(long, value_name = "FILE")]
    pub qos: Option<PathBuf>,
    /// Slurm: `sacctmgr show assoc -P` output.
    #[arg(long, value_name = "FILE")]
    pub assoc: Option<PathBuf>,
    /// The moment of the order and the forecast (as `order --at`; default: now, or the
    /// snapshot's).
    #[arg(long, value_name = "TIME", value_parser = super::dates::parse_time)]
    pub at: Option<i64>,
    /// The site's time zone for qstat's dates (as `order --tz`).
    #[arg(long, value_name = "ZONE", value_parser = super::dates::parse_zone)]
    pub tz: Option<jiff::tz::TimeZone>,
    /// The nodes, as `forecast --node-state` takes them: with it, the forecast's waits.
    #[arg(long, value_name = "FILE", requires = "jobs")]
    pub node_state: Option<PathBuf>,
    /// Advance reservations for the forecast (`pbs_rstat -f`).
    #[arg(long, value_name = "FILE", requires = "node_state")]
    pub reservations: Option<PathBuf>,
    /// How many of the order's first jobs get rank and priority series (at most 1000).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_TOP, value_parser = parse_top)]
    pub top: usize,
    /// The `site` label (default: the example's name, else this host's name).
    #[arg(long, value_name = "NAME")]
    pub site: Option<String>,
    /// Write to FILE atomically (a temporary beside it, then a rename) instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs `fairsort metrics`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let started = Instant::now();
    let now = jiff::Timestamp::now().as_second();
    let (order, usage) = if args.example.is_some() || args.jobs.is_some() {
        let om = super::order::metrics(order_args(&args), global)?;
        let home = args.example.is_none() && args.tree.is_none();
        (om, if home { usage_state(global) } else { None })
    } else {
        tree_alone(&args, global)?
    };
    let waits = match &args.node_state {
        Some(_) => Some(waits(&args, global, &order)?),
        None => None,
    };
    let OrderMetrics {
        scheduler,
        jobs,
        tree,
        results,
        algorithms,
    } = order;
    let algorithms = if args.algorithm.is_empty() {
        algorithms
    } else {
        args.algorithm.clone()
    };
    let shares = match tree {
        Some(tree) => {
            let results = share_results(&tree, results, &algorithms)?;
            Some(Arc::new(ShareMetrics { tree, results }))
        }
        None => None,
    };
    let metrics = Metrics {
        site: SiteLabels {
            site: args
                .site
                .clone()
                .or_else(|| args.example.clone())
                .unwrap_or_else(host_name),
            scheduler: scheduler.to_string(),
        },
        shares,
        jobs,
        top: args.top,
        waits,
        usage: usage.unwrap_or_default(),
        now,
        started,
    };
    let written = match &args.output {
        Some(path) => fairsort::files::write_atomic_with(path, |out| {
            fairsort::metrics::write(&mut &mut *out, &metrics)
        })
        .map_err(|e| Failure::user(e.to_string())),
        None => {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
            fairsort::metrics::write(&mut out, &metrics)
                .and_then(|()| out.flush())
                .map_err(Failure::from)
        }
    };
    // The process ends next: a million nodes' names are not freed one by one.
    std::mem::forget(metrics);
    written?;
    // A file written for a collector is said in one line (what a service's journal keeps).
    if let Some(path) = &args.output {
        crate::outln!("{}", super::say::written(path, Some(started.elapsed())));
    }
    Ok(())
}

/// `order`'s arguments for the inputs of `args` (the flags that print are left off).
fn order_args(args: &Args) -> super::order::Args {
    let mut o = super::order::Args::of(super::order::Inputs {
        example: args.example.clone(),
        jobs: args.jobs.clone(),
        jobs_format: args.jobs_format,
        formula: args.formula.clone(),
        formula_file: args.formula_file.clone(),
        tree: args.tree.clone(),
        tree_format: args.tree_format,
        usage: args.usage.clone(),
        slurm_conf: args.slurm_conf.clone(),
        qos: args.qos.clone(),
        assoc: args.assoc.clone(),
        at: args.at,
        tz: args.tz.clone(),
        ..Default::default()
    });
    o.json = true;
    o.movers = 0;
    o
}

/// The tree alone (no queue): `--tree` with `--usage`, else the home's tree with its usage,
/// and the home's algorithm; the home's usage state.
fn tree_alone(args: &Args, global: &Global) -> Result<(OrderMetrics, Option<UsageState>), Failure> {
    let base = match &args.tree {
        Some(_) => Base::None,
        None => Base::Home(
            Home::existing(global.home.as_deref()).map_err(|e| Failure::user(e.to_string()))?,
        ),
    };
    let from_home = matches!(base, Base::Home(_));
    let no_tree = "no share tree: pass --tree FILE, --jobs FILE or --example NAME, or store a tree in the home with `fairsort tree import FILE`";
    let sc = ScenarioBuilder::new(base)
        .jobs_optional()
        .tree_file(args.tree.clone(), args.tree_format)
        .usage_file(args.usage.clone())
        .build()
        .map_err(|e| match e {
            ScenarioError::Request(_) => Failure::usage(no_tree),
            other => Failure::user(other.to_string()),
        })?;
    super::usage::warn_unmatched(&sc.unmatched_usage);
    if !from_home && args.algorithm.is_empty() {
        return Err(Failure::usage(
            "--algorithm is required with --tree alone (the site's algorithm is the home's)",
        ));
    }
    let tree = sc.setup.tree.ok_or_else(|| Failure::usage(no_tree))?;
    let scheduler = fairsort::home::SiteKind::of_tree(tree.source())
        .map_or(sc.sources.scheduler, |k| k.as_str());
    let usage = if from_home { usage_state(global) } else { None };
    Ok((
        OrderMetrics {
            scheduler,
            jobs: Vec::new(),
            tree: Some(tree),
            results: Vec::new(),
            algorithms: vec![sc.algorithm],
        },
        usage,
    ))
}

/// Each algorithm's result over `tree`: one the order computed already, else computed now.
fn share_results(
    tree: &Tree,
    mut have: Vec<ShareResult>,
    algorithms: &[Algorithm],
) -> Result<Vec<ShareResult>, Failure> {
    let mut out = Vec::with_capacity(algorithms.len());
    for &a in algorithms {
        match have.iter().position(|r| r.algorithm == a) {
            Some(k) => out.push(have.swap_remove(k)),
            None => out.push(
                compute(tree, a, &Options::default()).map_err(|e| Failure::user(e.to_string()))?,
            ),
        }
    }
    Ok(out)
}

/// The forecast's pending jobs with their waits from the snapshot's moment, their account
/// taken from the order's job of the same id.
fn waits(args: &Args, global: &Global, order: &OrderMetrics) -> Result<Vec<Wait>, Failure> {
    let (Some(jobs), Some(nodes)) = (&args.jobs, &args.node_state) else {
        return Ok(Vec::new());
    };
    if args.example.is_some() {
        return Err(Failure::usage(
            "--node-state forecasts a site's own snapshot (--jobs with the home's PBS site, or --slurm-conf): an example has no nodes",
        ));
    }
    let fargs = super::forecast::Inputs {
        jobs: jobs.clone(),
        node_state: nodes.clone(),
        reservations: args.reservations.clone(),
        at: args.at,
        tz: args.tz.clone(),
        backfill_depth: None,
        strict_ordering: None,
        against: None,
        against_weights: None,
        slurm_conf: args.slurm_conf.clone(),
        queue_policy: None,
    };
    let fc = super::forecast::forecast(&fargs, global)?;
    let accounts: std::collections::HashMap<&str, &str> = order
        .jobs
        .iter()
        .map(|j| (j.id.as_str(), j.account.as_str()))
        .collect();
    Ok(fc
        .jobs
        .iter()
        .filter(|j| !j.is_running())
        .map(|j| Wait {
            queue: j.queue.clone(),
            account: accounts
                .get(j.id.as_str())
                .copied()
                .unwrap_or("")
                .to_string(),
            seconds: j.start.map(|s| (s - fc.at).max(0) as f64),
        })
        .collect())
}

/// The home's last usage record and decay (`None` when no home can be read).
fn usage_state(global: &Global) -> Option<UsageState> {
    let home = Home::find(global.home.as_deref()).ok().flatten()?;
    let view = home.site_view().ok()?;
    let usage = view.usage?;
    let last_record = usage
        .last_record
        .and_then(|a| a.time.parse::<jiff::Timestamp>().ok())
        .map(|t| t.as_second());
    Some(UsageState {
        last_record,
        last_decay: usage.last_decay,
    })
}

/// `--top`: a count up to [`MAX_TOP`](fairsort::metrics::MAX_TOP), which bounds the `job`
/// label's values.
fn parse_top(s: &str) -> Result<usize, String> {
    let max = fairsort::metrics::MAX_TOP;
    match s.trim().parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("expected a count from 0 to {max}")),
    }
}

/// This host's name, for the `site` label.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}
