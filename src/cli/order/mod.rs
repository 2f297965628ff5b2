//! `fairsort order`: dry-run the job queue order. One argument set for the three schedulers;
//! the inputs given pick the path (a qstat file or fairsort's job lists: a PBS queue ordered by
//! the formula; `squeue --json` or pipe output: Slurm's multifactor priority when a slurm.conf
//! is given or stored, else the formula; `flux jobs --json`: flux-accounting's mf_priority), and
//! the home fills in only what the inputs leave out. Each path is one file (`pbs`, `slurm`,
//! `flux`) that computes its rows; `report` is the one output path (header with the inputs'
//! sources, table, JSON, CSV, explanation, comparison).

mod flux;
pub(crate) mod pbs;
pub(crate) mod report;
mod slurm;
mod slurm_csv;

use super::{CliResult, Failure, Global};
use fairsort::fairshare::Algorithm;
use fairsort::home::Home;
use fairsort::inputs as formats;
use fairsort::inputs::{JobsFormat, JobsScheduler};
use fairsort::pbs::defs::FairshareEntity;
use std::io::Read;
use std::path::PathBuf;

/// Arguments of `fairsort order`: its inputs (shared with `fairsort report`) and what to print.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The inputs: the site, the jobs, the formula and the scheduler's settings.
    #[command(flatten)]
    pub inputs: Inputs,
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
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub against: Option<String>,
    /// With --against: how many of the biggest movers to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub movers: usize,
    /// Slurm what-if: compare with changed weights, e.g.
    /// `PriorityWeightAge=5000,PriorityWeightFairshare=20000`; flux: `fairshare=1000,queue=100000`.
    #[arg(long, value_name = "LIST", conflicts_with = "explain")]
    pub against_weights: Option<String>,
}

/// The inputs of `fairsort order` (and of `fairsort report`'s queue): everything but what to
/// print.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Inputs {
    /// Use a built-in example site: `pbs` (default: a PBS share tree, qstat queue and
    /// job_sort_formula); `slurm` is a Slurm site's multifactor priority, as sprio shows it
    /// (slurm.conf, squeue --json, sshare; `sprio` is the same); `slurm-tree` orders a Slurm
    /// account tree's jobs by a formula; `flux` is a flux-accounting site's mf_priority
    /// (accounting DB, flux jobs --json).
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "pbs", value_parser = crate::cli::examples::parse)]
    pub example: Option<String>,
    /// Jobs: `qstat -f -F json` output, a fairsort JSON or CSV job list, `squeue --json` or
    /// `squeue` pipe output, `flux jobs --json` output (with --tree accounting.db); `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,
    /// Format of --jobs (default: detected): qstat, json, csv, squeue-json, squeue, flux-jobs.
    #[arg(long, value_name = "FORMAT")]
    pub jobs_format: Option<JobsFormat>,
    /// The job_sort_formula (overrides the example's).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub formula: Option<String>,
    /// The job_sort_formula from a file: PBS's `sched_priv/sched_formula` (what the scheduler
    /// really evaluates), or a file holding the formula on one line.
    #[arg(long, value_name = "FILE", conflicts_with = "formula")]
    pub formula_file: Option<PathBuf>,
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
    /// The second of the calculation, as epoch seconds or an ISO 8601 date-time (local time
    /// without a zone): Slurm's priority at that second (default: now); on a PBS site
    /// (`fairsort pbs import`, `--example`) the cycle at that second: prime time from the
    /// site's holidays, and accruing jobs' eligible_time advanced from the qstat snapshot's
    /// timestamp (default: the snapshot's second, else now).
    #[arg(long, value_name = "TIME", value_parser = super::dates::parse_time)]
    pub at: Option<i64>,
    /// The site's time zone, which qstat's dates (`qtime`, `stime`) are read in: an IANA name
    /// or a POSIX TZ string (default: the system's, `TZ`).
    #[arg(long, value_name = "ZONE", value_parser = super::dates::parse_zone)]
    pub tz: Option<jiff::tz::TimeZone>,
    /// flux: where a job's queue factor comes from: `association` (default: mf_priority keeps
    /// one per association, from its latest job) or `job` (the job's own queue).
    #[arg(long, value_name = "SOURCE")]
    pub flux_queue_factor: Option<fairsort::flux::priority::QueueFactor>,
    /// flux: `db` (default: association_table.fairshare, as the plugin holds it) or `computed`
    /// (what `flux account-update-fshare` would store now, from the shares and usage).
    #[arg(long, value_name = "SOURCE")]
    pub flux_fairshare: Option<fairsort::flux::site::FairshareSource>,
}

impl std::ops::Deref for Args {
    type Target = Inputs;
    fn deref(&self) -> &Inputs {
        &self.inputs
    }
}

impl std::ops::DerefMut for Args {
    fn deref_mut(&mut self) -> &mut Inputs {
        &mut self.inputs
    }
}

impl Args {
    /// The order's inputs with nothing asked of the output but the order itself.
    pub fn of(inputs: Inputs) -> Args {
        Args {
            inputs,
            top: None,
            json: false,
            csv: false,
            explain: None,
            against: None,
            movers: 10,
            against_weights: None,
        }
    }
}

/// The jobs of the command line: a file, standard input read once (`--jobs -`), or none.
pub(crate) enum JobsIn {
    /// No `--jobs`.
    None,
    /// `--jobs FILE`.
    File(PathBuf),
    /// `--jobs -`: what standard input held.
    Stdin(Vec<u8>),
}

impl JobsIn {
    fn of(args: &Args) -> Result<JobsIn, Failure> {
        Ok(match &args.jobs {
            None => JobsIn::None,
            Some(p) if p.as_os_str() == "-" => {
                let mut bytes = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut bytes)
                    .map_err(|e| Failure::user(format!("cannot read stdin: {e}")))?;
                JobsIn::Stdin(bytes)
            }
            Some(p) => JobsIn::File(p.clone()),
        })
    }

    /// The format: `--jobs-format`, else detected from the file's first bytes only.
    fn format(&self, given: Option<JobsFormat>) -> Option<JobsFormat> {
        given.or_else(|| match self {
            JobsIn::None => None,
            JobsIn::File(p) => JobsFormat::detect_file(p).ok(),
            JobsIn::Stdin(b) => Some(JobsFormat::detect("-", b)),
        })
    }

    /// The name errors and headers give the jobs.
    fn name(&self) -> String {
        match self {
            JobsIn::None => String::new(),
            JobsIn::File(p) => p.display().to_string(),
            JobsIn::Stdin(_) => "-".to_string(),
        }
    }

    /// The whole content.
    fn bytes(self) -> Result<Vec<u8>, Failure> {
        match self {
            JobsIn::None => Ok(Vec::new()),
            JobsIn::Stdin(b) => Ok(b),
            JobsIn::File(p) => std::fs::read(&p)
                .map_err(|e| Failure::user(format!("cannot read {}: {e}", p.display()))),
        }
    }
}

/// The scheduler path of one `fairsort order`.
enum Path {
    Pbs,
    Slurm(slurm::SlurmBase),
    Flux,
}

/// Picks the path from the inputs: an example names its own; `--slurm-conf` is Slurm; else the
/// jobs' format (a Slurm queue takes Slurm's multifactor priority when the home stores a Slurm
/// configuration, else the formula); with no jobs, a home's stored Slurm configuration.
fn path(args: &Args, global: &Global, jobs: &JobsIn) -> Result<Path, Failure> {
    match args.example.as_deref() {
        Some("slurm") => return Ok(Path::Slurm(slurm::SlurmBase::Example)),
        Some("flux") => return Ok(Path::Flux),
        Some(_) => return Ok(Path::Pbs),
        None => {}
    }
    if args.slurm_conf.is_some() {
        return Ok(Path::Slurm(slurm::SlurmBase::Files));
    }
    let scheduler = jobs.format(args.jobs_format).map(JobsFormat::scheduler);
    match scheduler {
        Some(JobsScheduler::Flux) => Ok(Path::Flux),
        Some(JobsScheduler::Pbs) => Ok(Path::Pbs),
        Some(JobsScheduler::Slurm) | None => Ok(slurm::home_base(global)?
            .map(Path::Slurm)
            .unwrap_or(Path::Pbs)),
    }
}

/// Runs `fairsort order`.
pub fn run(args: Args, global: &Global) -> CliResult {
    run_into(args, global, &mut report::Sink::Print)
}

/// What `fairsort metrics` takes of the order the inputs of `args` give (computed as `order`
/// computes it, printed nowhere).
pub(crate) fn metrics(args: Args, global: &Global) -> Result<report::OrderMetrics, Failure> {
    let mut kept = None;
    run_into(args, global, &mut report::Sink::Metrics(&mut kept))?;
    kept.ok_or_else(|| Failure::user("the order gave nothing to measure"))
}

/// Computes the order of `args` and sends it to `sink`.
fn run_into(mut args: Args, global: &Global, sink: &mut report::Sink<'_>) -> CliResult {
    if args.example.is_none() && args.jobs.is_none() && invoked_as_demo(std::env::args()) {
        args.example = Some("pbs".to_string());
    }
    read_formula_file(&mut args)?;
    let jobs = JobsIn::of(&args)?;
    match path(&args, global, &jobs)? {
        Path::Slurm(base) => slurm::run(&args, base, jobs, sink),
        Path::Flux => flux::run(&args, jobs, sink),
        Path::Pbs => {
            if args.flux_queue_factor.is_some() || args.flux_fairshare.is_some() {
                return Err(Failure::usage(
                    "--flux-queue-factor and --flux-fairshare need flux jobs (--jobs flux-jobs.json --tree accounting.db, or --example flux)",
                ));
            }
            if args.qos.is_some() || args.assoc.is_some() || args.against_weights.is_some() {
                return Err(Failure::usage(
                    "--qos, --assoc and --against-weights need --slurm-conf (or --example slurm); --against-weights also works with flux jobs",
                ));
            }
            pbs::run(&args, global, jobs, sink)
        }
    }
}

/// `--formula-file`: the formula it holds becomes `--formula`'s.
fn read_formula_file(args: &mut Args) -> Result<(), Failure> {
    if let Some(file) = &args.formula_file {
        let name = file.display().to_string();
        let bytes = std::fs::read(file).map_err(|e| Failure::user(format!("{name}: {e}")))?;
        let formula = fairsort::pbs::read_sched_formula(&bytes, &name)
            .map_err(|e| Failure::user(e.to_string()))?;
        args.formula = Some(formula);
    }
    Ok(())
}

/// A queue for `fairsort report`: ordered by a formula (the dry run itself), or by Slurm's
/// multifactor priority or flux's mf_priority (their `order --json` document).
pub(crate) enum ReportQueue {
    /// A PBS queue, a fairsort job list, a Slurm queue without a slurm.conf.
    Formula(Box<pbs::Ordered>),
    /// Slurm's or flux's `order --json`, and the share tree it used.
    Json(serde_json::Value, Option<Box<fairsort::fairshare::Tree>>),
}

/// The command line's queue, as `fairsort order` computes it, for `fairsort report`.
pub(crate) fn report_queue(inputs: Inputs, global: &Global) -> Result<ReportQueue, Failure> {
    let mut args = Args::of(inputs);
    read_formula_file(&mut args)?;
    let jobs = JobsIn::of(&args)?;
    let path = path(&args, global, &jobs)?;
    if let Path::Pbs = path {
        return Ok(ReportQueue::Formula(Box::new(pbs::ordered(
            &args, global, jobs,
        )?)));
    }
    args.json = true;
    let mut doc = Vec::new();
    let mut kept = None;
    let sink = &mut report::Sink::Both(&mut kept);
    match path {
        Path::Slurm(base) => slurm::run_to(&args, base, jobs, &mut doc, sink)?,
        _ => flux::run_to(&args, jobs, &mut doc, sink)?,
    }
    let doc = serde_json::from_slice(&doc)
        .map_err(|e| Failure::user(format!("internal: the order's JSON: {e}")))?;
    Ok(ReportQueue::Json(
        doc,
        kept.and_then(|m| m.tree).map(Box::new),
    ))
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

/// The home, when one exists where the command line says (`None` when it cannot be opened:
/// the PBS path reports why).
fn found_home(global: &Global) -> Option<Home> {
    Home::find(global.home.as_deref()).ok().flatten()
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
