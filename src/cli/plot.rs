//! `fairsort plot KIND -o FILE.svg`: pictures of fair share and job order as SVG (docs/plot.md).
//! The inputs are `share`'s and `order`'s (`--example`, `--tree`, `--usage`, `--jobs`,
//! `--formula`, ...); the drawing is the library's (`fairsort::plot`), this file gathers the
//! inputs and writes the file (`-o -`: standard output).

use super::choices::{parser, Choice};
use super::{CliResult, Failure, Global};
use fairsort::fairshare::{Options, Tree};
use fairsort::inputs::JobsFormat;
use fairsort::inputs::TreeFormat;
use fairsort::pbs::defs::{FairshareEntity, ResourceType};
use fairsort::plot;
use fairsort::plot::PlotKind;
use fairsort::scenario::{Base, JobsInput, Scenario, ScenarioBuilder, Threshold};
use std::path::PathBuf;

/// Arguments of `fairsort plot`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to draw.
    #[arg(value_name = "KIND", value_parser = parser::<PlotKind>())]
    pub kind: PlotKind,
    /// The SVG file to write; `-` writes to standard output.
    #[arg(long, short, value_name = "FILE.svg")]
    pub output: PathBuf,
    /// Use a built-in example cluster (share tree, queue, formula): `pbs` (default) or
    /// `slurm-tree` (a Slurm account tree), the names of `order --example`.
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "pbs", value_parser = crate::cli::examples::parse)]
    pub example: Option<String>,
    /// Share tree file (PBS resource_group, sshare, sacctmgr, flux DB, fairsort TOML/JSON).
    #[arg(long, value_name = "FILE")]
    pub tree: Option<PathBuf>,
    /// Format of --tree (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = parser::<TreeFormat>())]
    pub tree_format: Option<TreeFormat>,
    /// PBS usage file (binary `sched_priv/usage` or fairsort's text form) applied to the tree.
    #[arg(long, value_name = "FILE")]
    pub usage: Option<PathBuf>,
    /// factors: the user whose factor is drawn, USER or ACCOUNT/USER (default: the first user
    /// of the tree).
    #[arg(long, value_name = "USER")]
    pub user: Option<String>,
    /// Slurm FairShareDampeningFactor (classic).
    #[arg(long, value_name = "D", default_value_t = 1.0)]
    pub dampening: f64,
    /// Fair Tree: merge tied sibling accounts as Slurm's documentation describes.
    #[arg(long)]
    pub merge_ties: bool,
    /// flux: truncate sibling usage sums to integers as flux-accounting's C++ does.
    #[arg(long)]
    pub flux_compat: bool,
    /// against: the formula to compare the current one with (as `order --against`).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub against: Option<String>,
    /// Jobs: `qstat -f -F json` output, a fairsort JSON or CSV job list, `squeue --json` or
    /// `squeue` pipe output.
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,
    /// Format of --jobs (default: detected): qstat, json, csv, squeue-json, squeue.
    #[arg(long, value_name = "FORMAT")]
    pub jobs_format: Option<JobsFormat>,
    /// The job_sort_formula (overrides the example's or the home's).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub formula: Option<String>,
    /// job_sort_formula_threshold.
    #[arg(long, value_name = "VALUE", allow_negative_numbers = true)]
    pub threshold: Option<f64>,
    /// PBS unknown_shares: shares of the `unknown` group (PBS trees; default 0).
    #[arg(long, value_name = "N")]
    pub unknown_shares: Option<u64>,
    /// PBS fairshare_entity: euser, egroup, Account_Name, queue, egroup:euser.
    #[arg(long, value_name = "ENTITY")]
    pub entity: Option<FairshareEntity>,
    /// A queue's Priority (queue_priority), e.g. `--queue-priority express=100`; repeatable.
    #[arg(long, value_name = "QUEUE=N")]
    pub queue_priority: Vec<String>,
    /// Define a custom resource, e.g. `--resource foo=float`.
    #[arg(long, value_name = "NAME=TYPE")]
    pub resource: Vec<String>,
    /// Reproduce PBS's rounding exactly (resources 4 decimals, fair-share 6, values as f32).
    #[arg(long)]
    pub pbs_compat: bool,
    /// attainment, waits: the trace to replay, as `fairsort replay --trace` (SWF, PBS
    /// accounting log, sacct -P, flux-accounting database).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// attainment, waits: order by Slurm's multifactor priority under this slurm.conf instead
    /// of a formula (as `fairsort replay --slurm-conf`).
    #[arg(long, value_name = "FILE", conflicts_with = "formula")]
    pub slurm_conf: Option<PathBuf>,
    /// attainment, waits: order by flux-accounting's priority under this database (as
    /// `fairsort replay --flux-db`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["formula", "slurm_conf"])]
    pub flux_db: Option<PathBuf>,
    /// attainment, waits: with --slurm-conf, `sacctmgr show qos -P` output for the QOS factor.
    #[arg(long, value_name = "FILE", requires = "slurm_conf")]
    pub qos: Option<PathBuf>,
    /// attainment, waits: the trace's format and the cluster model (as `fairsort replay`).
    #[command(flatten)]
    pub model: super::replay::Model,
}

impl Choice for PlotKind {
    fn all() -> &'static [Self] {
        &PlotKind::ALL
    }
    fn name(self) -> &'static str {
        PlotKind::name(self)
    }
    fn help(self) -> &'static str {
        self.summary()
    }
}

/// Runs `fairsort plot`.
pub fn run(args: Args, global: &Global) -> CliResult {
    if args.kind.is_replay() {
        return replay_plot(args, global);
    }
    if args.trace.is_some() {
        return Err(Failure::usage(
            "--trace goes with `plot attainment` and `plot waits`",
        ));
    }
    if args.against.is_some() != (args.kind == PlotKind::Against) {
        return Err(Failure::usage(match args.kind {
            PlotKind::Against => {
                "plot against needs --against FORMULA (the formula to compare with)"
            }
            _ => "--against goes with `plot against`",
        }));
    }
    if args.user.is_some() && args.kind != PlotKind::Factors {
        return Err(Failure::usage("--user goes with `plot factors`"));
    }
    let sc = scenario(&args, global)?;
    super::usage::warn_unmatched(&sc.unmatched_usage);
    let svg = match args.kind {
        PlotKind::Factors => {
            let tree = tree_of(&sc)?;
            let curves = plot::factor_curves(tree, args.user.as_deref(), &options(&args)?)
                .map_err(plot_failure)?;
            for (a, why) in &curves.skipped {
                crate::cli::say::line(format_args!("fairsort: note: {a} left out: {why}"));
            }
            plot::factors_svg(&curves)
        }
        PlotKind::Tree => plot::tree_svg(tree_of(&sc)?),
        PlotKind::Attainment | PlotKind::Waits => return replay_plot(args, global),
        PlotKind::Against => {
            let current = sc.compile(sc.formula_source()?)?;
            let other = sc.compile(args.against.as_deref().unwrap_or_default())?;
            let cmp = sc.compare(&current, &other, None, 8)?;
            plot::against_svg(&cmp, current.source(), other.source())
        }
    }
    .map_err(plot_failure)?;
    super::svg::write(&args.output, &svg)
}

/// `plot attainment|waits`: the replay of `fairsort replay` with the same inputs, writing only
/// that picture.
fn replay_plot(args: Args, global: &Global) -> CliResult {
    let Some(trace) = args.trace else {
        return Err(Failure::usage(format!(
            "plot {} needs --trace FILE (the jobs to replay, as `fairsort replay --trace`)",
            args.kind
        )));
    };
    let to = |kind: PlotKind| (args.kind == kind).then(|| args.output.clone());
    super::replay::plot(
        super::replay::Args {
            inputs: super::replay::Inputs {
                trace,
                model: args.model,
                formula: args.formula,
                slurm_conf: args.slurm_conf,
                flux_db: args.flux_db,
                qos: args.qos,
                tree: args.tree,
                tree_format: args.tree_format,
                against: args.against,
            },
            json: false,
            csv: false,
            attainment_csv: false,
            plot_attainment: to(PlotKind::Attainment),
            plot_waits: to(PlotKind::Waits),
        },
        global,
    )
}

fn tree_of(sc: &Scenario) -> Result<&Tree, Failure> {
    sc.setup.tree.as_ref().ok_or_else(|| {
        Failure::usage(
            "no share tree: give --tree FILE or --example, or store one in the home with `fairsort tree import FILE`",
        )
    })
}

fn plot_failure(e: plot::PlotError) -> Failure {
    Failure::user(e.to_string())
}

fn options(args: &Args) -> Result<Options, Failure> {
    if !(args.dampening.is_finite() && args.dampening > 0.0) {
        return Err(Failure::usage(format!(
            "--dampening must be a number > 0, got {}",
            args.dampening
        )));
    }
    Ok(Options {
        dampening: args.dampening,
        merge_ties: args.merge_ties,
        flux_compat: args.flux_compat,
        ..Options::default()
    })
}

fn assignment<'a>(s: &'a str, flag: &str) -> Result<(&'a str, &'a str), Failure> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => Ok((k.trim(), v.trim())),
        _ => Err(Failure::usage(format!(
            "--{flag} expects NAME=VALUE, got `{s}`"
        ))),
    }
}

/// The Scenario of the command line, as `order` builds it: the example or the home (if one
/// exists), with the files and flags over it. Jobs and formula are needed by `against` only.
fn scenario(args: &Args, global: &Global) -> Result<Scenario, Failure> {
    let base = match &args.example {
        Some(name) if !fairsort::scenario::example::EXAMPLES.contains(&name.as_str()) => {
            return Err(Failure::usage(crate::cli::examples::not_here(
                name,
                "plot",
                &fairsort::scenario::example::EXAMPLES,
            )))
        }
        Some(name) => Base::Example(name.clone()),
        None => Base::FindHome(global.home.clone()),
    };
    let mut b = ScenarioBuilder::new(base)
        .formula(args.formula.clone())
        .threshold(args.threshold.map_or(Threshold::Base, Threshold::Set))
        .tree_file(args.tree.clone(), args.tree_format)
        .usage_file(args.usage.clone())
        .unknown_shares(args.unknown_shares)
        .entity(args.entity)
        .pbs_compat(args.pbs_compat);
    b = if args.kind == PlotKind::Against {
        b.require_formula()
    } else {
        b.jobs_optional()
    };
    if let Some(path) = &args.jobs {
        b = b.jobs(JobsInput::File(path.clone()), args.jobs_format);
    }
    for q in &args.queue_priority {
        let (name, v) = assignment(q, "queue-priority")?;
        let p: i64 = v.parse().map_err(|_| {
            Failure::usage(format!("--queue-priority {name}: `{v}` is not an integer"))
        })?;
        b = b.queue_priority(name.to_string(), p);
    }
    for def in &args.resource {
        let (name, ty) = assignment(def, "resource")?;
        let ty = ResourceType::from_flag(ty).ok_or_else(|| {
            Failure::usage(format!(
                "--resource {name}: unknown type `{ty}` (expected long, float, size, time, boolean, string)"
            ))
        })?;
        b = b.resource(name.to_string(), ty);
    }
    b.build().map_err(Failure::from)
}
