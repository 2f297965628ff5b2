//! `fairsort tune`: search the policy that meets the site's goals over its own traces
//! (docs/tune.md). A thin layer over `fairsort::tune`: the flags read as `fairsort replay`
//! reads them (the same `Model`, the home's defaults), the search on all cores, the report;
//! `--submit` and the `task` and `collect` steps run the same evaluations as the site's job
//! array (`array.rs`); `output.rs` prints the result.

mod array;
mod output;

use super::choices::parser;
use super::replay::{cluster, decay_model, home_inputs, slurm_site, Model, DEFAULT_HALF_LIFE};
use super::{CliResult, Failure, Global};
use fairsort::flux::site::read_site;
use fairsort::inputs::{read_tree, TreeFormat};
use fairsort::replay::{read_trace_in, Backfill, Options, TraceFormat};
use fairsort::tune::{
    Aim, Case, Constraint, Goal, Method, Param, Policy, Problem, Space, Template,
};
use std::path::PathBuf;

/// Arguments of `fairsort tune`: a search, or one step of a job-array run.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    /// A step of a job-array run (`--submit`).
    #[command(subcommand)]
    pub step: Option<Step>,
    /// The search.
    #[command(flatten)]
    pub search: SearchArgs,
}

/// The steps of a run on the site's scheduler.
#[derive(Debug, clap::Subcommand)]
pub enum Step {
    /// Replay one task's slice of a submitted plan and write its results file (what each array
    /// task runs).
    Task {
        /// The run's directory (as given to --submit).
        dir: PathBuf,
        /// The task's index (the array index).
        #[arg(long)]
        index: usize,
    },
    /// Merge a submitted run's results: the same report as the local run, or the tasks still
    /// missing or failed and the command that submits them again.
    Collect {
        /// The run's directory (as given to --submit).
        dir: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Write the Pareto front as an SVG.
        #[arg(long, value_name = "FILE.svg")]
        plot_pareto: Option<PathBuf>,
    },
}

/// What is searched, for what, and how.
#[derive(Debug, Clone, clap::Args)]
pub struct SearchArgs {
    /// A trace to replay (repeat it for several months: every goal is averaged over them).
    #[arg(long, value_name = "FILE", required = true)]
    pub trace: Vec<PathBuf>,
    /// The traces' format and the cluster model (as `fairsort replay`).
    #[command(flatten)]
    pub model: Model,
    /// The site's share tree (default: the home's, else accounts → users, 1 share each).
    #[arg(long, value_name = "FILE")]
    pub tree: Option<PathBuf>,
    /// Format of --tree (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = parser::<TreeFormat>(), requires = "tree")]
    pub tree_format: Option<TreeFormat>,
    /// A job_sort_formula whose names given by --param are parameters
    /// (`a*fairshare_factor + b*eligible_time/3600`).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true, conflicts_with_all = ["slurm_conf", "flux_db"])]
    pub template: Option<String>,
    /// Tune Slurm's multifactor priority under this slurm.conf (parameters: PriorityWeight*,
    /// PriorityMaxAge, PriorityDecayHalfLife).
    #[arg(long, value_name = "FILE")]
    pub slurm_conf: Option<PathBuf>,
    /// With --slurm-conf: `sacctmgr show qos -P` output for the QOS factor.
    #[arg(long, value_name = "FILE", requires = "slurm_conf")]
    pub qos: Option<PathBuf>,
    /// Tune flux-accounting's priority under this database (parameters: the factor weights
    /// fairshare, queue, bank, urgency).
    #[arg(long, value_name = "FILE", conflicts_with = "slurm_conf")]
    pub flux_db: Option<PathBuf>,
    /// A parameter and its range: NAME=LO..HI, or NAME=LO..HI:log (bounds are numbers or
    /// durations such as 1d). `half_life` sets the usage half-life.
    #[arg(long = "param", value_name = "NAME=LO..HI[:log]", required = true)]
    pub params: Vec<String>,
    /// The objective to minimise (default share-error): share-error, max-share-error,
    /// mean-wait, p95-wait, max-wait, bounded-slowdown, utilisation, jain; `:ACCOUNT` for one
    /// account's.
    #[arg(long, value_name = "OBJECTIVE", conflicts_with = "maximize")]
    pub minimize: Option<String>,
    /// An objective to maximise instead (utilisation, jain).
    #[arg(long, value_name = "OBJECTIVE")]
    pub maximize: Option<String>,
    /// A constraint, METRIC<=VALUE or METRIC>=VALUE (`p95-wait<=12h`, `utilisation>=85%`).
    #[arg(long, value_name = "METRIC<=VALUE", allow_hyphen_values = true)]
    pub subject_to: Vec<String>,
    /// The two goals of the Pareto front, X,Y (default: the objective and mean-wait, or
    /// share-error when the objective is mean-wait).
    #[arg(long, value_name = "X,Y")]
    pub pareto: Option<String>,
    /// grid, random (a Latin hypercube) or optimise (a hypercube, then Nelder–Mead; default,
    /// or random with --submit).
    #[arg(long, value_name = "METHOD", value_parser = parser::<Method>())]
    pub search: Option<Method>,
    /// Replays at most (each replays every trace).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub budget: u64,
    /// The seed of the random points (the same seed gives the same result).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Write the Pareto front as an SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot_pareto: Option<PathBuf>,
    /// Run the evaluations as a job array of slurm, pbs or flux: write the plan and the script
    /// into DIR and submit it; `fairsort tune collect DIR` merges the results.
    #[arg(long, num_args = 2, value_names = ["SCHEDULER", "DIR"])]
    pub submit: Option<Vec<String>>,
    /// With --submit: the array's tasks (default: 10, at most one per point).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000), requires = "submit")]
    pub tasks: Option<u64>,
    /// With --submit: write the plan and the script, print the command, submit nothing.
    #[arg(long, requires = "submit")]
    pub plan_only: bool,
}

/// What a search needs, built from the flags.
pub(super) struct Setup {
    problem: Problem,
    aim: Aim,
    pareto: (Goal, Goal),
    method: Method,
    budget: usize,
    seed: u64,
}

/// A bound of `--param`: a number, else a duration (`1d`, `12h`).
fn bound(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) => Ok(v),
        Err(_) => super::duration::parse(s),
    }
}

fn tune_err(e: fairsort::tune::TuneError) -> Failure {
    match e {
        fairsort::tune::TuneError::Param { .. } | fairsort::tune::TuneError::Goal(_) => {
            Failure::usage(e.to_string())
        }
        _ => Failure::user(e.to_string()),
    }
}

/// Reads the traces, the policy and the goals of `args`.
fn setup(args: &SearchArgs, global: &Global) -> Result<Setup, Failure> {
    let params = (args.params.iter())
        .map(|p| Param::parse(p, &bound))
        .collect::<Result<Vec<_>, _>>()
        .map_err(tune_err)?;
    let space = Space::new(params).map_err(tune_err)?;
    let home = home_inputs(args.tree.is_some() || args.flux_db.is_some(), global)?;
    let slurm = match &args.slurm_conf {
        Some(p) => Some(slurm_site(p, args.qos.as_deref())?),
        None => None,
    };
    let flux = match &args.flux_db {
        Some(p) => Some(read_site(p).map_err(|e| Failure::user(e.to_string()))?),
        None => None,
    };
    let tree = match (&args.tree, &args.flux_db) {
        (Some(p), _) => {
            Some(read_tree(p, args.tree_format).map_err(|e| Failure::user(e.to_string()))?)
        }
        (None, Some(db)) => Some(
            read_tree(db, Some(TreeFormat::FluxDb)).map_err(|e| Failure::user(e.to_string()))?,
        ),
        (None, None) => home.tree.clone(),
    };
    let half_life = match (args.model.half_life, &slurm, &home.state) {
        (Some(h), _, _) => h,
        (None, Some((conf, _)), _) => match conf.decay_half_life {
            0 => f64::MAX,
            h => f64::from(h),
        },
        (None, None, Some(s)) => {
            let f = s.sched.fairshare_decay_factor;
            let t = s.sched.fairshare_decay_time as f64;
            if f > 0.0 && f < 1.0 && t > 0.0 {
                t * std::f64::consts::LN_2 / -f.ln()
            } else {
                DEFAULT_HALF_LIFE
            }
        }
        (None, None, None) => DEFAULT_HALF_LIFE,
    };
    let format = match &args.model.trace_format {
        Some(f) => Some(f.parse::<TraceFormat>().map_err(Failure::usage)?),
        None => None,
    };
    let backfill: Backfill = args.model.backfill.parse().map_err(Failure::usage)?;
    let decay = decay_model(
        &args.model,
        home.state.as_ref(),
        slurm.as_ref().map(|(c, _)| c),
        half_life,
    )?;
    let zone = super::dates::zone_or_system(&args.model.tz);
    let mut cases = Vec::new();
    for path in &args.trace {
        let mut trace =
            read_trace_in(path, format, &zone).map_err(|e| Failure::user(e.to_string()))?;
        let (cl, warning) = cluster(&args.model, path, &trace, home.state.as_ref())?;
        if let Some(w) = warning {
            super::say::warning(w);
        }
        if args.model.whole_nodes {
            trace.whole_nodes(cl.cores_per_node, cl.mem_per_node);
        }
        cases.push(Case {
            trace,
            opts: Options {
                cluster: cl,
                backfill,
                half_life,
                tree: tree.clone(),
                decay,
            },
        });
    }
    let policy = match (&args.template, slurm, flux) {
        (Some(t), _, _) => {
            let names: Vec<&str> = space.params.iter().map(|p| p.name.as_str()).collect();
            Policy::Formula(Template::new(t, &names))
        }
        (None, Some((conf, qos)), _) => Policy::Slurm { conf, qos },
        (None, None, Some(site)) => Policy::Flux(site),
        (None, None, None) => {
            return Err(Failure::usage(
                "give --template FORMULA, --slurm-conf FILE or --flux-db FILE",
            ))
        }
    };
    let (text, maximise) = match (&args.minimize, &args.maximize) {
        (_, Some(m)) => (m.as_str(), true),
        (Some(m), None) => (m.as_str(), false),
        (None, None) => ("share-error", false),
    };
    let objective = Goal::parse(text).map_err(tune_err)?;
    let duration = |s: &str| super::duration::parse(s);
    let constraints = (args.subject_to.iter())
        .map(|c| Constraint::parse(c, &duration))
        .collect::<Result<Vec<_>, _>>()
        .map_err(tune_err)?;
    let pareto = match &args.pareto {
        Some(p) => {
            let (x, y) = p
                .split_once(',')
                .ok_or_else(|| Failure::usage(format!("--pareto `{p}`: expected X,Y")))?;
            (
                Goal::parse(x).map_err(tune_err)?,
                Goal::parse(y).map_err(tune_err)?,
            )
        }
        None => {
            let other = if objective == Goal::parse("mean-wait").map_err(tune_err)? {
                "share-error"
            } else {
                "mean-wait"
            };
            (objective.clone(), Goal::parse(other).map_err(tune_err)?)
        }
    };
    let mut extra = vec![objective.clone(), pareto.0.clone(), pareto.1.clone()];
    extra.extend(constraints.iter().map(|c| c.goal.clone()));
    let problem = Problem::new(cases, policy, space, &extra).map_err(tune_err)?;
    let method = args.search.unwrap_or(if args.submit.is_some() {
        Method::Random
    } else {
        Method::Optimise
    });
    Ok(Setup {
        problem,
        aim: Aim {
            objective,
            maximise,
            constraints,
        },
        pareto,
        method,
        budget: usize::try_from(args.budget).unwrap_or(usize::MAX),
        seed: args.seed,
    })
}

/// Runs `fairsort tune`.
pub fn run(args: Args, global: &Global) -> CliResult {
    match args.step {
        Some(Step::Task { dir, index }) => array::task(&dir, index),
        Some(Step::Collect {
            dir,
            json,
            plot_pareto,
        }) => array::collect(&dir, json, plot_pareto.as_deref()),
        None if args.search.submit.is_some() => array::submit(&args.search, global),
        None => {
            let s = setup(&args.search, global)?;
            let started = std::time::Instant::now();
            let found = fairsort::tune::search(&s.problem, &s.aim, s.method, s.budget, s.seed)
                .map_err(tune_err)?;
            let seconds = started.elapsed().as_secs_f64();
            output::report(
                &s,
                &found.evaluations,
                found.best,
                Some(seconds),
                args.search.json,
                args.search.plot_pareto.as_deref(),
            )
        }
    }
}
