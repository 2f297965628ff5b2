//! The command-line interface: clap definitions and dispatch. Each subcommand lives in its own
//! file and is a thin layer over the library; output formats are table (default), `--json`, `--csv`.

pub mod choices;
pub mod dates;
pub mod duration;
pub mod examples;
pub mod failure;
mod first_pass;
pub mod ftest_report;
pub mod locate;
pub mod metrics;
pub mod table;

pub mod audit;
pub mod check;
pub mod eval;
pub mod forecast;
mod forecast_flux;
pub mod forecast_inputs;
pub mod ftest;
pub mod init;
pub mod order;
pub mod pbs;
pub mod plot;
pub mod progress;
pub mod qmgr;
pub mod replay;
pub mod report;
pub mod say;
pub mod share;
pub mod shell;
pub mod site;
pub mod slurm;
pub mod sources;
mod svg;
pub mod tree;
pub mod tune;
pub mod usage;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

pub use failure::{CliResult, Failure};

/// fairsort: fair-share values, PBS job_sort_formula evaluation and dry-run queue ordering.
#[derive(Debug, Parser)]
#[command(name = "fairsort", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every subcommand accepts, before or after the subcommand name.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Global {
    /// The home directory (attributes, resources, queues, share tree, usage).
    #[arg(long, global = true, env = "FAIRSORT_HOME", value_name = "DIR")]
    pub home: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the home (default attributes; you and root as managers).
    Init(init::Args),
    /// Evaluate a job_sort_formula once with given keyword values.
    Eval(eval::Args),
    /// Validate a job_sort_formula and list the keywords it uses.
    Check(check::Args),
    /// Compute fair-share values over a share tree with one of six algorithms.
    Share(share::Args),
    /// Manage the home's share tree (import).
    Tree(tree::Args),
    /// Store a Slurm site's configuration (slurm.conf, QOS, associations) in the home.
    Slurm(slurm::Args),
    /// Store a PBS site's own files (print server, list sched, sched_config, resource_group,
    /// usage, holidays) in the home.
    Pbs(pbs::Args),
    /// Show which site the home describes and where each part came from, or remove it.
    Site(site::Args),
    /// Set and print server, scheduler, queue and resource attributes, like PBS qmgr.
    Qmgr(qmgr::Args),
    /// Dry-run the job queue order: bind, evaluate, sort, threshold and explain.
    #[command(visible_alias = "demo")]
    Order(Box<order::Args>),
    /// Run formula unit-test files.
    Test(ftest::Args),
    /// Record, decay, set, reset and show fair-share usage.
    Usage(usage::Args),
    /// Draw a picture as SVG: factors (per algorithm), tree (icicle), against (two formulas'
    /// ranks), or a replay's attainment and waits.
    Plot(Box<plot::Args>),
    /// Replay a workload trace under a formula: waits and shares over time (docs/replay.md).
    Replay(Box<replay::Args>),
    /// Search the policy (formula weights, Slurm or flux weights, half-life) that meets the
    /// site's goals over its own traces, locally or as a job array (docs/tune.md).
    Tune(Box<tune::Args>),
    /// Forecast a PBS or Slurm site's queue from a snapshot: what starts now, when each pending
    /// job will start, and why it waits (docs/forecast.md).
    Forecast(Box<forecast::Args>),
    /// Write the site's fair share, queue, forecast waits and usage state as Prometheus
    /// metrics, for node_exporter's textfile collector (docs/metrics.md).
    Metrics(Box<metrics::Args>),
    /// Write a self-contained HTML report: the queue with each job's terms, the share tree and
    /// factor curves; `report replay` two policies side by side; `report forecast`
    /// (docs/report.md).
    Report(Box<report::Args>),
    /// List the home's audit log: who changed what, when (local time; --utc, --epoch).
    Audit(audit::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(shell::CompletionsArgs),
    /// Print the man page, or write every page into a directory with -o DIR.
    Man(shell::ManArgs),
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> CliResult {
    let global = cli.global;
    match cli.command {
        Command::Eval(args) => eval::run(args, &global),
        Command::Check(args) => check::run(args, &global),
        Command::Share(args) => share::run(args, &global),
        Command::Tree(args) => tree::run(args, &global),
        Command::Slurm(args) => slurm::run(args, &global),
        Command::Pbs(args) => pbs::run(args, &global),
        Command::Site(args) => site::run(args, &global),
        Command::Qmgr(args) => qmgr::run(args, &global),
        Command::Order(args) => order::run(*args, &global),
        Command::Test(args) => ftest::run(args, &global),
        Command::Usage(args) => usage::run(args, &global),
        Command::Replay(args) => replay::run(*args, &global),
        Command::Forecast(args) => forecast::run(*args, &global),
        Command::Tune(args) => tune::run(*args, &global),
        Command::Plot(args) => plot::run(*args, &global),
        Command::Report(args) => report::run(*args, &global),
        Command::Init(args) => init::run(args, &global),
        Command::Metrics(args) => metrics::run(*args, &global),
        Command::Audit(args) => audit::run(args, &global),
        Command::Completions(args) => shell::completions(args),
        Command::Man(args) => shell::man(args),
    }
}

/// Entry point of the binary: parse arguments (usage errors exit 2), run, report failures
/// on stderr as `fairsort: <message>` and map them to the exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let status = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(status);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) if f.status == 0 => ExitCode::SUCCESS,
        Err(f) => {
            if !f.message.is_empty() {
                crate::cli::say::line(format_args!("fairsort: {}", f.message));
            }
            ExitCode::from(f.status)
        }
    }
}
