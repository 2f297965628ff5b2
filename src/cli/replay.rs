//! `fairsort replay`: replay a workload trace (SWF, PBS accounting log, sacct -P) on a cluster
//! model under a job_sort_formula, with EASY backfill and fair share evolving over time; print
//! waits and shares per user and account, optionally against a second formula
//! (docs/replay.md), or by Slurm's multifactor priority (`--slurm-conf`). A thin layer over `fairsort::replay`: the home's formula and decay as
//! defaults, a progress bar, streamed JSON, CSV and the SVG plots.

use super::choices::parser;
use super::eval::formula_failure;
use super::progress::Progress;
use super::table::{Align, Table};
use super::{CliResult, Failure, Global};
use fairsort::fairshare::TreeSpec;
use fairsort::flux::site::read_site;
use fairsort::formula;
use fairsort::formula::{Program, ResourceTable};
use fairsort::home::dir::Home;
use fairsort::home::state::{replay_mem_kb, HomeState};
use fairsort::inputs::{read_tree, TreeFormat};
use fairsort::replay::Decay;
use fairsort::replay::{
    attainment, attainment_svg, read_trace_in, replay_flux, replay_slurm, replay_with, summarize,
    waits_svg, Attainment, Backfill, Cluster, EntityStats, FluxPolicy, Options, Outcome, Report,
    SlurmPolicy, Trace, TraceFormat,
};
use fairsort::scenario::sources::{From, Source, Sources};
use fairsort::slurm as fslurm;
use fairsort::usage::decay::{FluxDecay, PbsDecay, ResetPeriod, SlurmDecay};
use serde::Serialize;
use serde_json::json;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The half-life when neither `--half-life` nor a home gives one: 7 days.
pub(super) const DEFAULT_HALF_LIFE: f64 = 604_800.0;

/// Arguments of `fairsort replay`: its inputs and what to print.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The inputs.
    #[command(flatten)]
    pub inputs: Inputs,
    /// Print JSON: the summary, share attainment over time and every job's id, submit, start
    /// and end (streamed).
    #[arg(long, conflicts_with_all = ["csv", "attainment_csv"])]
    pub json: bool,
    /// Print CSV: one row per user and per account.
    #[arg(long, conflicts_with = "attainment_csv")]
    pub csv: bool,
    /// Print CSV of share attainment over time: one row per policy, account or user, interval.
    #[arg(long)]
    pub attainment_csv: bool,
    /// Write an SVG plot of share attainment per account over time.
    #[arg(long, value_name = "FILE.svg")]
    pub plot_attainment: Option<PathBuf>,
    /// Write an SVG plot of the distribution of waits (one line per policy).
    #[arg(long, value_name = "FILE.svg")]
    pub plot_waits: Option<PathBuf>,
}

/// The inputs of `fairsort replay` (and of `fairsort report replay`): the trace, the model and
/// the policies; everything but what to print.
#[derive(Debug, Clone, clap::Args)]
pub struct Inputs {
    /// The trace: SWF, a PBS accounting log (or directory of daily logs), `sacct -P` or
    /// `sacct --json` output, or a flux-accounting database (its jobs table).
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// The trace's format and the cluster model.
    #[command(flatten)]
    pub model: Model,
    /// The job_sort_formula to replay (default: the home's).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true, conflicts_with_all = ["slurm_conf", "flux_db"])]
    pub formula: Option<String>,
    /// Order by Slurm's multifactor priority under this slurm.conf instead of a formula (its
    /// weights, PriorityMaxAge, partitions, PriorityFlags; PriorityDecayHalfLife as the
    /// half-life unless --half-life).
    #[arg(long, value_name = "FILE")]
    pub slurm_conf: Option<PathBuf>,
    /// Order by flux-accounting's priority (the mf_priority plugin) under this
    /// flux-accounting database instead of a formula: its weights, queue and bank priorities,
    /// and its bank tree for fair share (unless --tree).
    #[arg(long, value_name = "FILE", conflicts_with = "slurm_conf")]
    pub flux_db: Option<PathBuf>,
    /// With --slurm-conf: `sacctmgr show qos -P` output (Name, Priority) for the QOS factor.
    #[arg(long, value_name = "FILE", requires = "slurm_conf")]
    pub qos: Option<PathBuf>,
    /// The site's share tree for fair share (any format of `fairsort tree`; default: the server
    /// home's tree, if one was imported), instead of accounts → users with 1 share each.
    #[arg(long, value_name = "FILE")]
    pub tree: Option<PathBuf>,
    /// Format of --tree (default: detected).
    #[arg(long, value_name = "FORMAT", value_parser = parser::<TreeFormat>(), requires = "tree")]
    pub tree_format: Option<TreeFormat>,
    /// A second formula replayed on the same trace, shown side by side.
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub against: Option<String>,
}

impl std::ops::Deref for Args {
    type Target = Inputs;
    fn deref(&self) -> &Inputs {
        &self.inputs
    }
}

/// How a trace is read and replayed, shared by `fairsort replay` and `fairsort plot
/// attainment|waits`.
#[derive(Debug, Clone, clap::Args)]
pub struct Model {
    /// Trace format: swf, pbs, sacct (`-P` text or `--json`) or flux (a flux-accounting
    /// database's jobs table; default: detected from the first line, or the SQLite header).
    #[arg(long, value_name = "FORMAT")]
    pub trace_format: Option<String>,
    /// The site's time zone, which the dates of PBS accounting logs and `sacct -P` rows are read
    /// in (both schedulers write local time without a zone): an IANA name such as
    /// `Europe/Paris`, or `UTC` (default: `TZ`, else the system's zone).
    #[arg(long, value_name = "ZONE", value_parser = super::dates::parse_zone)]
    pub tz: Option<jiff::tz::TimeZone>,
    /// Nodes of the cluster model (default: the home's replay_nodes, else the SWF header's
    /// MaxNodes).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Cores per node (default: the home's replay_cores_per_node, else MaxProcs / MaxNodes from
    /// the SWF header, else 1).
    #[arg(long)]
    pub cores_per_node: Option<u64>,
    /// Memory per node, a PBS size such as 192gb (default: the home's replay_mem_per_node;
    /// without either, memory is not modelled). Jobs then need their requested memory too.
    #[arg(long, value_name = "SIZE")]
    pub mem_per_node: Option<String>,
    /// Jobs get whole nodes: each job's cores are rounded up to a multiple of the cores per
    /// node (a node runs one job at a time); by default jobs share nodes core by core.
    #[arg(long)]
    pub whole_nodes: bool,
    /// Backfill: easy (default) or none.
    #[arg(long, default_value = "easy")]
    pub backfill: String,
    /// Usage half-life, a duration (seconds, `7d`, `HH:MM:SS`; default: the home's fairshare_decay_time and
    /// fairshare_decay_factor as a continuous half-life, else 7 days).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = super::duration::non_negative)]
    pub half_life: Option<f64>,
    /// Usage decay model: continuous (default; the half-life), pbs (× fairshare_decay_factor
    /// every fairshare_decay_time, floor 1), slurm (δ^period every PriorityCalcPeriod) or flux
    /// (half-life bins).
    #[arg(long, value_name = "MODEL", default_value = "continuous")]
    pub decay: String,
    /// With --decay pbs: the period (fairshare_decay_time; default the home's, else 86400);
    /// with --decay slurm: PriorityCalcPeriod (default slurm.conf's, else 300).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = super::duration::positive_seconds)]
    pub decay_period: Option<i64>,
    /// With --decay pbs: fairshare_decay_factor (default the home's, else 0.5); with --decay
    /// flux: decay_factor (default 0.5).
    #[arg(long, value_name = "F")]
    pub decay_factor: Option<f64>,
    /// Share attainment sampling interval, a duration (default: a day for traces of 20 days or
    /// more, else the span / 50).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = super::duration::positive_seconds)]
    pub sample: Option<i64>,
}

fn compile(src: &str, json: bool) -> Result<Program, Failure> {
    formula::compile(src, &ResourceTable::builtin()).map_err(|e| formula_failure(src, &e, json))
}

/// The cluster model: each size from the flags, else the home's `replay_*` settings, else the
/// trace's own statement (SWF headers); a usage error names what is missing. With it, a warning
/// when the cores per node taken from the headers do not give MaxProcs (the model's nodes are
/// identical: MaxProcs / MaxNodes rounded down, at least 1).
pub(super) fn cluster(
    model: &Model,
    trace_path: &Path,
    trace: &Trace,
    state: Option<&HomeState>,
) -> Result<(Cluster, Option<String>), Failure> {
    let home = state.map(|s| &s.server);
    let flag_nodes = model.nodes.or(home.and_then(|h| h.replay_nodes));
    let flag_cpn = model
        .cores_per_node
        .or(home.and_then(|h| h.replay_cores_per_node));
    // The trace's own size (SWF headers): MaxNodes, and MaxProcs / MaxNodes cores per node.
    let stated_cpn = match (trace.max_nodes, trace.max_procs) {
        (Some(n), Some(p)) if n > 0 => Some((p / n).max(1)),
        _ => None,
    };
    let stated = |n: u64| stated_cpn.map(|c| (n, c, true));
    let (nodes, cpn, from_headers) = match (flag_nodes, flag_cpn) {
        (Some(n), Some(c)) => (n, c, false),
        (Some(n), None) => match stated(n) {
            Some(x) => x,
            None => {
                return Err(Failure::usage(
                    "give --cores-per-node (or set server replay_cores_per_node in the home): the trace does not state its cores per node",
                ))
            }
        },
        (None, c) => match (trace.max_nodes, trace.max_procs) {
            (Some(n), _) if n > 0 => match c {
                Some(c) => (n, c, false),
                None => stated(n).unwrap_or((n, 1, false)),
            },
            (_, Some(p)) if c.is_none() => (p, 1, false),
            _ => {
                return Err(Failure::usage(
                    "give --nodes and --cores-per-node (or set server replay_nodes and replay_cores_per_node in the home): the trace does not state its size",
                ))
            }
        },
    };
    if nodes == 0 || cpn == 0 {
        return Err(Failure::usage(
            "--nodes and --cores-per-node must be at least 1",
        ));
    }
    let mem_per_node = match (
        &model.mem_per_node,
        home.and_then(|h| h.replay_mem_per_node.as_deref()),
    ) {
        (Some(m), _) => replay_mem_kb(m)
            .map_err(|e| Failure::usage(e.replace("replay_mem_per_node", "--mem-per-node")))?,
        (None, Some(m)) => replay_mem_kb(m).map_err(Failure::user)?,
        (None, None) => 0,
    };
    let cluster = Cluster {
        nodes,
        cores_per_node: cpn,
        mem_per_node,
    };
    let warning = match (trace.max_nodes, trace.max_procs) {
        (Some(n), Some(p)) if from_headers && n > 0 && !p.is_multiple_of(n) => Some(format!(
            "{}: MaxProcs {p} is not a multiple of MaxNodes {n}: modelled as {} nodes of {} cores ({} cores)",
            trace_path.display(),
            grouped(nodes),
            grouped(cpn),
            grouped(cluster.cores()),
        )),
        _ => None,
    };
    Ok((cluster, warning))
}

/// `n` with a comma between each group of three digits (1,963).
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What the home gives a replay (when one exists): its state and its share tree.
#[derive(Default)]
pub(super) struct HomeInputs {
    pub(super) state: Option<HomeState>,
    pub(super) tree: Option<TreeSpec>,
    /// A PBS site's imported files (`fairsort pbs import`): the replay walks as its pbs_sched.
    pbs: Option<fairsort::home::PbsParts>,
    /// The home's directory, its tree's file and what the site record keeps of its import.
    at: Option<(String, String, Option<fairsort::home::Provenance>)>,
}

/// Reads the home, if one exists: its state, and its share tree unless `--tree` is
/// given (PBS trees get the home's `unknown_shares`).
pub(super) fn home_inputs(tree_given: bool, global: &Global) -> Result<HomeInputs, Failure> {
    let Some(home) =
        Home::find(global.home.as_deref()).map_err(|e| Failure::user(e.to_string()))?
    else {
        return Ok(HomeInputs::default());
    };
    let state = home.load().map_err(|e| Failure::user(e.to_string()))?;
    let tree = match tree_given {
        true => None,
        false => home
            .stored_tree()
            .map_err(|e| Failure::user(e.to_string()))?
            .filter(|t| !t.nodes.is_empty())
            .map(|mut t| {
                if t.follows_pbs() {
                    t.unknown_shares = Some(state.sched.unknown_shares);
                }
                t
            }),
    };
    let record = home
        .site_record()
        .map_err(|e| Failure::user(e.to_string()))?;
    let pbs = match home.site().map_err(|e| Failure::user(e.to_string()))?.kind {
        fairsort::home::SiteKind::Pbs => {
            home.pbs_parts().map_err(|e| Failure::user(e.to_string()))?
        }
        _ => None,
    };
    Ok(HomeInputs {
        state: Some(state),
        tree,
        pbs,
        at: Some((
            home.file(fairsort::home::dir::files::STATE)
                .display()
                .to_string(),
            home.tree_path().display().to_string(),
            record.and_then(|r| r.tree),
        )),
    })
}

/// The share tree of the replay: `--tree FILE`, else the home's, else none.
fn site_tree(args: &Inputs, home: &HomeInputs) -> Result<Option<TreeSpec>, Failure> {
    match &args.tree {
        Some(p) => read_tree(p, args.tree_format)
            .map(Some)
            .map_err(|e| Failure::user(e.to_string())),
        None => Ok(home.tree.clone()),
    }
}

/// The formula and half-life: the flags, else the home's (if one exists), else an error for
/// the formula and 7 days for the half-life.
fn defaults(args: &Inputs, state: Option<&HomeState>) -> Result<(String, f64), Failure> {
    let formula = match (&args.formula, state) {
        (Some(f), _) => f.clone(),
        (None, Some(s)) => s.server.job_sort_formula.clone().ok_or_else(|| {
            Failure::usage("give --formula: the home has no job_sort_formula set")
        })?,
        (None, None) => {
            return Err(Failure::usage(
                "give --formula (no home found to take job_sort_formula from)",
            ))
        }
    };
    let half_life = match (args.model.half_life, state) {
        (Some(h), _) => h,
        // PBS multiplies usage by f every T seconds: the continuous decay with the same
        // factor per period has the half-life T·ln 2 / −ln f.
        (None, Some(s)) => {
            let f = s.sched.fairshare_decay_factor;
            let t = s.sched.fairshare_decay_time as f64;
            if f > 0.0 && f < 1.0 && t > 0.0 {
                t * std::f64::consts::LN_2 / -f.ln()
            } else {
                DEFAULT_HALF_LIFE
            }
        }
        (None, None) => DEFAULT_HALF_LIFE,
    };
    Ok((formula, half_life))
}

/// Where the replay's inputs came from: the tree (`--tree`, the flux database, the home, or built
/// from the trace), the formula, the half-life (`--half-life`, slurm.conf, the home's PBS decay,
/// or the 7-day default); usage is charged from the trace.
fn replay_sources(
    args: &Inputs,
    home: &HomeInputs,
    slurm_half: Option<u32>,
    has_tree: bool,
    half_life: f64,
) -> Sources {
    let tree = match (&args.tree, &args.flux_db, &home.at) {
        (Some(p), _, _) => Source::file("--tree", p.display().to_string()),
        (None, Some(db), _) => Source::file("--flux-db", db.display().to_string()),
        (None, None, Some((_, tree, imported))) if has_tree => {
            Source::home(tree.clone()).imported(imported.clone())
        }
        _ => Source::new(From::Trace)
            .path(args.trace.display().to_string())
            .detail("accounts → users, 1 share each"),
    };
    let server = home.at.as_ref().map(|(s, _, _)| s.clone());
    let formula = match (&args.formula, &args.slurm_conf, &args.flux_db, &server) {
        (Some(_), _, _, _) => Source::flag("--formula"),
        (None, Some(c), _, _) => {
            Source::file("--slurm-conf", c.display().to_string()).detail("PriorityWeight*")
        }
        (None, None, Some(db), _) => Source::file("--flux-db", db.display().to_string()),
        (None, None, None, Some(s)) => Source::home(s.clone()).detail("job_sort_formula"),
        _ => Source::none(),
    };
    let half = format!("{half_life}");
    let half_life = match (args.model.half_life, slurm_half, &args.flux_db, &home.state) {
        (Some(_), _, _, _) => Source::flag("--half-life").value(half),
        (None, Some(_), _, _) => Source::file(
            "--slurm-conf",
            args.slurm_conf
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        )
        .value(half)
        .detail("PriorityDecayHalfLife"),
        (None, None, None, Some(state)) => Source::home(server.clone().unwrap_or_default())
            .value(half)
            .detail(format!(
                "fairshare_decay_time {} s, fairshare_decay_factor {}",
                state.sched.fairshare_decay_time, state.sched.fairshare_decay_factor
            )),
        _ => Source::new(From::Default).value(half),
    };
    Sources {
        scheduler: if args.slurm_conf.is_some() {
            "slurm"
        } else if args.flux_db.is_some() {
            "flux"
        } else {
            "pbs"
        },
        site: None,
        tree,
        usage: Source::new(From::Trace).detail("charged as the jobs run"),
        formula,
        algorithm: Source::new(From::Default).detail("the formula's keywords (or the scheduler's)"),
        half_life,
    }
}

/// One policy's replay and what the output needs of it.
pub(crate) struct Run {
    pub(crate) label: &'static str,
    pub(crate) formula: String,
    pub(crate) outcome: Outcome,
    pub(crate) report: Report,
    pub(crate) attainment: Attainment,
}

/// What `run` replays: the trace, the model and one run per policy (A, and B with --against).
pub(crate) struct Replays {
    pub(crate) formula_a: String,
    pub(crate) half_life: f64,
    pub(crate) sources: Sources,
    pub(crate) trace: Trace,
    pub(crate) cluster: Cluster,
    pub(crate) runs: Vec<Run>,
    /// What the reading and the model took other than as written, one line each.
    pub(crate) warnings: Vec<String>,
}

/// Reads the trace and replays it under the formula (and `--against`'s); `json`: formula
/// errors as JSON.
pub(crate) fn replays(args: &Inputs, json: bool, global: &Global) -> Result<Replays, Failure> {
    let format = match &args.model.trace_format {
        Some(f) => Some(f.parse::<TraceFormat>().map_err(Failure::usage)?),
        None => None,
    };
    let backfill: Backfill = args.model.backfill.parse().map_err(Failure::usage)?;
    let slurm = match &args.slurm_conf {
        Some(path) => Some(slurm_site(path, args.qos.as_deref())?),
        None => None,
    };
    let flux_site = match &args.flux_db {
        Some(p) => Some(read_site(p).map_err(|e| Failure::user(e.to_string()))?),
        None => None,
    };
    let home = home_inputs(args.tree.is_some(), global)?;
    let tree = match (&args.flux_db, &args.tree) {
        // flux: the database's bank tree, unless --tree.
        (Some(db), None) => Some(
            read_tree(db, Some(TreeFormat::FluxDb)).map_err(|e| Failure::user(e.to_string()))?,
        ),
        _ => site_tree(args, &home)?,
    };
    let flux_label = args
        .flux_db
        .as_deref()
        .map(|p| format!("flux-accounting priority ({})", p.display()));
    let slurm_half = slurm.as_ref().map(|(conf, _)| conf.decay_half_life);
    let (formula_a, half_life) = match &slurm {
        // Slurm: PriorityDecayHalfLife (0: no decay, an infinite half-life).
        Some((conf, _)) => (
            format!(
                "slurm multifactor ({})",
                args.slurm_conf
                    .as_deref()
                    .unwrap_or(Path::new(""))
                    .display()
            ),
            args.model.half_life.unwrap_or(match conf.decay_half_life {
                0 => f64::MAX,
                h => f64::from(h),
            }),
        ),
        None => match &flux_label {
            Some(l) => (l.clone(), args.model.half_life.unwrap_or(DEFAULT_HALF_LIFE)),
            None => defaults(args, home.state.as_ref())?,
        },
    };
    let a = match (&slurm, &flux_site) {
        (None, None) => Some(compile(&formula_a, json)?),
        _ => None,
    };
    let b = match &args.against {
        Some(f) => Some(compile(f, json)?),
        None => None,
    };
    let zone = super::dates::zone_or_system(&args.model.tz);
    let mut trace =
        read_trace_in(&args.trace, format, &zone).map_err(|e| Failure::user(e.to_string()))?;
    let (cluster, cluster_warning) =
        cluster(&args.model, &args.trace, &trace, home.state.as_ref())?;
    let mut warnings: Vec<String> = cluster_warning.into_iter().collect();
    for (what, n) in &trace.notes {
        warnings.push(format!("{}: {n} jobs: {what}", args.trace.display()));
    }
    if args.model.whole_nodes {
        trace.whole_nodes(cluster.cores_per_node, cluster.mem_per_node);
    }
    let decay = decay_model(
        &args.model,
        home.state.as_ref(),
        slurm.as_ref().map(|(c, _)| c),
        half_life,
    )?;
    let opts = Options {
        cluster,
        backfill,
        half_life,
        tree,
        decay,
    };
    let policy = match slurm {
        Some((conf, qos)) => {
            Some(SlurmPolicy::new(conf, qos, cluster).map_err(|e| Failure::user(e.to_string()))?)
        }
        None => None,
    };
    let flux = flux_site.as_ref().map(|s| FluxPolicy::new(s, &trace));
    let tiers = match (&a, &home.pbs, &home.state) {
        (Some(_), Some(parts), Some(state)) => Some(walk_tiers(parts, state, &trace)?),
        _ => None,
    };
    let run_one = |label: &'static str, src: &str, p: Option<&Program>| -> Result<Run, Failure> {
        let mut progress = Progress::new(0, &format!("replay {label}"));
        let o = match (p, &policy, &flux) {
            (Some(p), _, _) => match &tiers {
                Some(t) => fairsort::replay::replay_tiered(&trace, p, &opts, t, &mut progress),
                None => replay_with(&trace, p, &opts, &mut progress),
            },
            (None, Some(pol), _) => replay_slurm(&trace, pol, &opts, &mut progress),
            (None, None, Some(f)) => replay_flux(&trace, f, &opts, &mut progress),
            (None, None, None) => {
                return Err(Failure::usage("give --formula, --slurm-conf or --flux-db"))
            }
        };
        progress.finish();
        let o = o.map_err(|e| Failure::user(e.to_string()))?;
        Ok(Run {
            label,
            formula: src.to_string(),
            report: summarize(&trace, &o, cluster),
            attainment: attainment(&trace, &o, args.model.sample),
            outcome: o,
        })
    };
    let mut sources = replay_sources(args, &home, slurm_half, opts.tree.is_some(), half_life);
    if tiers.is_some() {
        let detail = sources.formula.detail.take();
        sources.formula.detail = Some(match detail {
            Some(d) => format!("{d}; in pbs_sched's walk (the home's pbs.toml)"),
            None => "in pbs_sched's walk (the home's pbs.toml)".into(),
        });
    }
    let mut runs = vec![run_one("A", &formula_a, a.as_ref())?];
    if let (Some(p), Some(src)) = (&b, &args.against) {
        runs.push(run_one("B", src, Some(p))?);
    }
    Ok(Replays {
        formula_a,
        half_life,
        sources,
        trace,
        cluster,
        runs,
        warnings,
    })
}

/// The decay model of `--decay`, with its settings from the flags, else the home (PBS) or
/// slurm.conf (Slurm), else the scheduler's defaults.
pub(super) fn decay_model(
    m: &Model,
    state: Option<&HomeState>,
    conf: Option<&fslurm::SlurmConf>,
    half_life: f64,
) -> Result<Decay, Failure> {
    let bad = |e: fairsort::usage::decay::DecayError| Failure::usage(e.to_string());
    let unused = |flag: &str| {
        Failure::usage(format!(
            "{flag} does not apply to --decay {} (see docs/replay.md, \"Decay models\")",
            m.decay
        ))
    };
    let whole = |h: f64| -> i64 {
        if h.is_finite() && h < 1e15 {
            h.round().max(1.0) as i64
        } else {
            0
        }
    };
    Ok(match m.decay.as_str() {
        "continuous" => {
            if m.decay_period.is_some() {
                return Err(unused("--decay-period"));
            }
            if m.decay_factor.is_some() {
                return Err(unused("--decay-factor"));
            }
            Decay::Continuous
        }
        "pbs" => {
            let sched = state.map(|s| &s.sched);
            let t = m
                .decay_period
                .or(sched.map(|s| s.fairshare_decay_time as i64))
                .unwrap_or(86_400);
            let f = m
                .decay_factor
                .or(sched.map(|s| s.fairshare_decay_factor))
                .unwrap_or(0.5);
            Decay::Pbs(PbsDecay::new(t, f).map_err(bad)?)
        }
        "slurm" => {
            if m.decay_factor.is_some() {
                return Err(unused("--decay-factor"));
            }
            let calc = match m.decay_period {
                Some(p) => p,
                None => match conf.and_then(|c| c.other_priority.get("PriorityCalcPeriod")) {
                    Some(v) => slurm_minutes(v).ok_or_else(|| {
                        Failure::user(format!("slurm.conf: PriorityCalcPeriod={v} is not a time"))
                    })?,
                    None => 300,
                },
            };
            // Slurm's half-life: --half-life, slurm.conf's PriorityDecayHalfLife (0: none).
            Decay::Slurm(SlurmDecay::new(whole(half_life), calc, ResetPeriod::None).map_err(bad)?)
        }
        "flux" => {
            if m.decay_period.is_some() {
                return Err(unused("--decay-period"));
            }
            let h = whole(half_life).max(1);
            let f = m.decay_factor.unwrap_or(0.5);
            // flux-accounting's defaults: 4 bins (a reset period of 4 half-lives).
            Decay::Flux(FluxDecay::new(h, h.saturating_mul(4), f).map_err(bad)?)
        }
        other => {
            return Err(Failure::usage(format!(
                "unknown decay model `{other}` (expected continuous, pbs, slurm or flux)"
            )))
        }
    })
}

/// A slurm.conf time in minutes (`5`, `00:05:00`, `1-0`) as seconds.
fn slurm_minutes(v: &str) -> Option<i64> {
    fairsort::slurm::conf::time_minutes(v)
        .filter(|&m| m > 0 && m != fairsort::slurm::conf::INFINITE)
        .map(|m| i64::from(m) * 60)
}

/// slurm.conf and the QOS priorities of `--slurm-conf` and `--qos`.
pub(super) fn slurm_site(
    conf: &Path,
    qos: Option<&Path>,
) -> Result<(fslurm::SlurmConf, std::collections::BTreeMap<String, u32>), Failure> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| Failure::user(format!("{}: {e}", p.display())))
    };
    let name = conf.display().to_string();
    let c =
        fslurm::parse_slurm_conf(&read(conf)?, &name).map_err(|e| Failure::user(e.to_string()))?;
    let q = match qos {
        Some(p) => fslurm::parse_qos_priorities(&read(p)?, &p.display().to_string())
            .map_err(|e| Failure::user(e.to_string()))?,
        None => Default::default(),
    };
    Ok((c, q))
}

/// `fairsort plot attainment|waits`: replays as `run` does and writes only that picture
/// (`args.plot_attainment` or `args.plot_waits`; `-` is standard output), no report.
pub fn plot(args: Args, global: &Global) -> CliResult {
    let Replays { trace, runs, .. } = replays(&args.inputs, args.json, global)?;
    write_plots(&args, &trace, &runs)
}

/// Runs `fairsort replay`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let Replays {
        formula_a,
        half_life,
        sources,
        trace,
        cluster,
        runs,
        warnings,
    } = replays(&args.inputs, args.json, global)?;
    write_plots(&args, &trace, &runs)?;
    if args.json {
        return print_json(
            &args, &trace, cluster, half_life, &runs, &sources, &warnings,
        );
    }
    if args.csv {
        return print_csv(&runs);
    }
    if args.attainment_csv {
        return print_attainment_csv(&runs);
    }
    for w in &warnings {
        crate::outln!("warning: {w}");
    }
    let ra = &runs[0].report;
    print_text(
        &args,
        &formula_a,
        &trace,
        cluster,
        ra,
        runs.get(1).map(|r| &r.report),
        &sources,
    )?;
    Ok(())
}

/// Writes `text` to `path` through a temporary file beside it (no partial plot on failure).
fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    if path.as_os_str() == "-" {
        return super::svg::write(path, text);
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Failure::user(format!("cannot write {}: {e}", path.display()))
        })
}

fn write_plots(args: &Args, trace: &Trace, runs: &[Run]) -> CliResult {
    let label = |r: &Run| format!("{} ({})", r.label, r.formula);
    if let Some(path) = &args.plot_attainment {
        let labels: Vec<String> = runs.iter().map(label).collect();
        let panels: Vec<(&str, &Attainment)> = labels
            .iter()
            .zip(runs)
            .map(|(l, r)| (l.as_str(), &r.attainment))
            .collect();
        let svg = attainment_svg(&panels).map_err(|e| Failure::user(e.to_string()))?;
        write_file(path, &svg)?;
    }
    if let Some(path) = &args.plot_waits {
        let labels: Vec<String> = runs.iter().map(label).collect();
        let series: Vec<(&str, Vec<f64>)> = labels
            .iter()
            .zip(runs)
            .map(|(l, r)| (l.as_str(), waits(trace, &r.outcome)))
            .collect();
        let svg = waits_svg(&series).map_err(|e| Failure::user(e.to_string()))?;
        write_file(path, &svg)?;
    }
    Ok(())
}

/// Every run job's wait (s).
fn waits(trace: &Trace, o: &Outcome) -> Vec<f64> {
    trace
        .jobs
        .iter()
        .zip(&o.placements)
        .filter_map(|(j, p)| p.map(|p| p.start.saturating_sub(j.submit) as f64))
        .collect()
}

/// One `"key": value` member of the streamed JSON object.
fn member<W: Write, T: Serialize + ?Sized>(w: &mut W, key: &str, v: &T, first: bool) -> CliResult {
    if !first {
        w.write_all(b",\n")?;
    }
    serde_json::to_writer(&mut *w, key)?;
    w.write_all(b": ")?;
    serde_json::to_writer(&mut *w, v)?;
    Ok(())
}

/// The `jobs` array, one job per line, written as it goes (never a whole document in memory).
fn jobs_array<W: Write>(w: &mut W, trace: &Trace, o: &Outcome) -> CliResult {
    w.write_all(b",\n\"jobs\": [")?;
    let mut first = true;
    for (j, p) in trace.jobs.iter().zip(&o.placements) {
        let Some(p) = p else { continue };
        w.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        write!(w, "{{\"id\": ")?;
        serde_json::to_writer(&mut *w, &j.id)?;
        write!(
            w,
            ", \"submit\": {}, \"start\": {}, \"end\": {}}}",
            j.submit, p.start, p.end
        )?;
    }
    w.write_all(b"\n]")?;
    Ok(())
}

fn print_json(
    args: &Args,
    trace: &Trace,
    cluster: Cluster,
    half_life: f64,
    runs: &[Run],
    sources: &Sources,
    warnings: &[String],
) -> CliResult {
    let stdout = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 16, stdout.lock());
    let Some(a) = runs.first() else {
        return Ok(());
    };
    w.write_all(b"{\n")?;
    member(&mut w, "formula", &a.formula, true)?;
    member(&mut w, "backfill", &args.model.backfill, false)?;
    member(&mut w, "nodes", &cluster.nodes, false)?;
    member(&mut w, "cores_per_node", &cluster.cores_per_node, false)?;
    member(&mut w, "mem_per_node_kb", &cluster.mem_per_node, false)?;
    member(&mut w, "half_life", &half_life, false)?;
    member(&mut w, "decay", &args.model.decay, false)?;
    member(&mut w, "sources", sources, false)?;
    let left_out: Vec<serde_json::Value> = trace
        .left_out
        .iter()
        .map(|(r, n)| json!({"reason": r, "jobs": n}))
        .collect();
    member(&mut w, "left_out", &left_out, false)?;
    member(&mut w, "warnings", warnings, false)?;
    member(&mut w, "summary", &a.report, false)?;
    member(&mut w, "attainment", &a.attainment, false)?;
    jobs_array(&mut w, trace, &a.outcome)?;
    if let Some(b) = runs.get(1) {
        w.write_all(b",\n\"against\": {\n")?;
        member(&mut w, "formula", &b.formula, true)?;
        member(&mut w, "summary", &b.report, false)?;
        member(&mut w, "attainment", &b.attainment, false)?;
        jobs_array(&mut w, trace, &b.outcome)?;
        w.write_all(b"\n}")?;
    }
    w.write_all(b"\n}\n")?;
    w.flush()?;
    Ok(())
}

fn h(s: f64) -> String {
    format!("{s:.0}")
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn entity_table(rows: &[EntityStats], users: bool) -> String {
    let mut cols = vec![("name", Align::Left)];
    if users {
        cols.push(("account", Align::Left));
    }
    cols.extend([
        ("jobs", Align::Right),
        ("core-h", Align::Right),
        ("wait mean", Align::Right),
        ("wait median", Align::Right),
        ("wait p95", Align::Right),
        ("slowdown", Align::Right),
        ("usage", Align::Right),
        ("share", Align::Right),
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
    formula: &str,
    trace: &Trace,
    cluster: Cluster,
    a: &Report,
    b: Option<&Report>,
    sources: &Sources,
) -> CliResult {
    let mem = if cluster.mem_per_node > 0 {
        format!(", {}kb memory per node", cluster.mem_per_node)
    } else {
        String::new()
    };
    crate::outln!(
        "replay of {} jobs on {} nodes x {} cores ({} cores{mem}), backfill {}",
        a.jobs,
        cluster.nodes,
        cluster.cores_per_node,
        cluster.cores(),
        args.model.backfill
    );
    crate::out!("{}", super::sources::header(sources, "formula"));
    for (reason, n) in &trace.left_out {
        crate::outln!("left out of the trace: {n} jobs ({reason})");
    }
    if !a.too_large.is_empty() {
        crate::outln!(
            "skipped, larger than the cluster: {} jobs ({})",
            a.too_large.len(),
            capped(&a.too_large, SHOWN)
        );
    }
    for (label, r) in [("", Some(a)), (" (B)", b)] {
        let Some(r) = r else { continue };
        if let Some(first) = &r.first_formula_error {
            crate::outln!(
                "formula errors{label}: {} evaluations raised and were valued 0 (the first: job {}: {})",
                r.formula_errors,
                first.job,
                first.message
            );
        }
    }
    let Some(b) = b else {
        crate::outln!("formula: {formula}");
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
            ("id", Align::Left),
            ("user", Align::Left),
            ("wait", Align::Right),
        ]);
        for w in &a.longest_waits {
            t.row(vec![w.id.clone(), w.user.clone(), w.wait.to_string()]);
        }
        crate::outln!("longest waits:\n{}", t.render());
        return Ok(());
    };
    crate::outln!("A: {formula}");
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
        let mut cols = vec![("name", Align::Left)];
        if users {
            cols.push(("account", Align::Left));
        }
        cols.extend([
            ("jobs", Align::Right),
            ("share", Align::Right),
            ("wait A", Align::Right),
            ("wait B", Align::Right),
            ("wait B-A", Align::Right),
            ("usage A", Align::Right),
            ("usage B", Align::Right),
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

/// How many items a repeated warning lists before "and N more".
const SHOWN: usize = 10;

/// The first `shown` of `items`, comma-separated, then "and N more" for the rest.
fn capped(items: &[String], shown: usize) -> String {
    let list = items
        .iter()
        .take(shown)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    match items.len().saturating_sub(shown) {
        0 => list,
        more => format!("{list} and {more} more"),
    }
}

fn print_csv(runs: &[Run]) -> CliResult {
    let mut w = csv::Writer::from_writer(std::io::stdout());
    w.write_record([
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
    ])?;
    for run in runs {
        let r = &run.report;
        for (kind, rows) in [("user", &r.users), ("account", &r.accounts)] {
            for x in rows {
                w.write_record([
                    run.label.to_string(),
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
                ])?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

fn print_attainment_csv(runs: &[Run]) -> CliResult {
    let mut w = csv::Writer::from_writer(std::io::stdout());
    w.write_record([
        "policy",
        "kind",
        "name",
        "account",
        "end",
        "share",
        "usage_share",
        "cumulative_share",
    ])?;
    for run in runs {
        let at = &run.attainment;
        for (kind, series) in [("account", &at.accounts), ("user", &at.users)] {
            for s in series {
                for ((end, u), c) in at.ends.iter().zip(&s.usage_share).zip(&s.cumulative_share) {
                    w.write_record([
                        run.label.to_string(),
                        kind.to_string(),
                        s.name.clone(),
                        s.account.clone().unwrap_or_default(),
                        end.to_string(),
                        s.share.to_string(),
                        u.to_string(),
                        c.to_string(),
                    ])?;
                }
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// Each trace job's place in the PBS site's pbs_sched walk (`pbs::cycle::walk_tiers`), under
/// the rules of the period it was submitted in (prime time from the site's holidays).
fn walk_tiers(
    parts: &fairsort::home::PbsParts,
    state: &HomeState,
    trace: &Trace,
) -> Result<Vec<u64>, Failure> {
    let rules = |prime| {
        parts
            .rules(state, prime)
            .map_err(|e| Failure::user(e.to_string()))
    };
    let (prime, non_prime) = (rules(true)?, rules(false)?);
    let queues = || trace.jobs.iter().map(|j| j.queue.as_str());
    let in_prime = fairsort::pbs::cycle::walk_tiers(&prime, queues());
    let out_of = fairsort::pbs::cycle::walk_tiers(&non_prime, queues());
    let tz = jiff::tz::TimeZone::system();
    let is_prime = |t: i64| parts.holidays.as_ref().is_none_or(|h| h.is_prime(t, &tz));
    Ok((trace.jobs.iter().enumerate())
        .map(|(i, j)| {
            if is_prime(j.submit) {
                in_prime[i]
            } else {
                out_of[i]
            }
        })
        .collect())
}
