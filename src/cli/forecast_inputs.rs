//! The inputs of `fairsort forecast` (shared with `fairsort report forecast`, `fairsort
//! metrics` and the flux path): the snapshot, the site's settings and the what-ifs.

use std::path::PathBuf;

/// The inputs of `fairsort forecast` (and of `fairsort report forecast`): the snapshot and the
/// policy; everything but what to print.
#[derive(Debug, Clone, clap::Args)]
pub struct Inputs {
    /// The jobs: `qstat -f -F json` output (Slurm: `squeue --json`; flux: `flux jobs -a
    /// --json`), running jobs included (`-`: standard input).
    #[arg(long, value_name = "FILE")]
    pub jobs: PathBuf,
    /// The nodes: `pbsnodes -av -F json` output (Slurm: `sinfo --json`; flux: `flux resource
    /// R`).
    #[arg(long, value_name = "FILE")]
    pub node_state: PathBuf,
    /// Advance reservations: `pbs_rstat -f` output.
    #[arg(long, value_name = "FILE")]
    pub reservations: Option<PathBuf>,
    /// The moment of the cycle, as epoch seconds or an ISO 8601 date-time (default: the qstat
    /// snapshot's timestamp, else now).
    #[arg(long, value_name = "TIME", value_parser = super::dates::parse_time)]
    pub at: Option<i64>,
    /// The site's time zone, which qstat's dates (`qtime`, `stime`) are read in: an IANA name
    /// or a POSIX TZ string (default: the system's, `TZ`).
    #[arg(long, value_name = "ZONE", value_parser = super::dates::parse_zone)]
    pub tz: Option<jiff::tz::TimeZone>,
    /// Forecast under another `backfill_depth` than the site's (what-if).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=10000))]
    pub backfill_depth: Option<u32>,
    /// Forecast with `strict_ordering` on (`true`) or off (`false`) instead of the site's.
    #[arg(long, value_name = "BOOL")]
    pub strict_ordering: Option<bool>,
    /// Forecast under another job_sort_formula than the site's (what-if).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub against: Option<String>,
    /// Slurm what-if: the same snapshot with priorities under other multifactor weights, e.g.
    /// `PriorityWeightJobSize=0,PriorityWeightAge=5000` (QOS, association and fair-share
    /// factors count 0: a snapshot has none of their inputs).
    #[arg(long, value_name = "LIST", requires = "slurm_conf")]
    pub against_weights: Option<String>,
    /// A Slurm site: its slurm.conf (backfill parameters, partition tiers). `--jobs` is then
    /// `squeue --json` and `--node-state` `sinfo --json` (or `scontrol show nodes --json`).
    #[arg(long, value_name = "FILE")]
    pub slurm_conf: Option<PathBuf>,
    /// A flux instance's fluxion queue policy (`sched-fluxion-qmanager`'s `queue-policy`):
    /// fcfs, easy (the default, as fluxion's), hybrid or conservative.
    #[arg(long, value_name = "POLICY")]
    pub queue_policy: Option<fairsort::forecast::FluxQueuePolicy>,
}
