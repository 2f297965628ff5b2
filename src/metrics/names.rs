//! Every metric fairsort writes: its stable name, its `# HELP` text and its type, in one table
//! (docs/metrics.md lists the same; the Grafana dashboard's test checks its queries against
//! [`ALL`]).

use crate::metrics::encode::Descriptor;
use prometheus_client::metrics::MetricType;

const fn gauge(name: &'static str, help: &'static str) -> Descriptor {
    Descriptor {
        name,
        help,
        kind: MetricType::Gauge,
    }
}

/// An association's fair-share factor under one algorithm (PBS: `fairshare_factor`).
pub const SHARE_FACTOR: Descriptor = gauge(
    "fairsort_share_factor",
    "Fair-share factor of an association under one algorithm (PBS: fairshare_factor; Slurm: sshare FairShare; flux: fairshare).",
);
/// Fair Tree's Level FS (+Inf for an association with shares and no usage).
pub const SHARE_LEVEL_FS: Descriptor = gauge(
    "fairsort_share_level_fs",
    "Slurm Fair Tree Level FS of an association (+Inf: shares and no usage).",
);
/// Effective usage (PBS: `fairshare_tree_usage`).
pub const SHARE_EFFECTIVE_USAGE: Descriptor = gauge(
    "fairsort_share_effective_usage",
    "Effective usage of an association (Slurm EffectvUsage; depth-oblivious: the ratio R; PBS: fairshare_tree_usage).",
);
/// Normalised shares (PBS: `fairshare_perc`).
pub const SHARE_NORM_SHARES: Descriptor = gauge(
    "fairsort_share_norm_shares",
    "Shares of an association normalised over its siblings and up the tree (Slurm NormShares; PBS: fairshare_perc).",
);
/// Raw shares as the tree gives them.
pub const SHARE_RAW_SHARES: Descriptor = gauge(
    "fairsort_share_raw_shares",
    "Raw shares of an association as the share tree gives them (absent for Slurm's parent shares).",
);
/// The usage the algorithm worked with.
pub const SHARE_RAW_USAGE: Descriptor = gauge(
    "fairsort_share_raw_usage",
    "Raw (decayed) usage of an association as the algorithm counts it (PBS: every node starts at 1).",
);
/// Pending jobs per owner and queue.
pub const JOBS_PENDING: Descriptor = gauge(
    "fairsort_jobs_pending",
    "Pending jobs of one user and account in one queue or partition.",
);
/// Running jobs per owner and queue.
pub const JOBS_RUNNING: Descriptor = gauge(
    "fairsort_jobs_running",
    "Running jobs of one user and account in one queue or partition.",
);
/// Core-hours the pending jobs ask for, in Prometheus's base unit (core-seconds).
pub const JOBS_PENDING_CORE_SECONDS: Descriptor = gauge(
    "fairsort_jobs_pending_core_seconds",
    "Core-seconds (core-hours times 3600) requested by the pending jobs of one user and account in one queue or partition: cores times walltime limit; no limit counts 0.",
);
/// The place of one of the top jobs in the scheduler's order.
pub const TOP_JOB_RANK: Descriptor = gauge(
    "fairsort_top_job_rank",
    "1-based place of one of the first jobs of the order the scheduler considers jobs in.",
);
/// What the order sorts that job by.
pub const TOP_JOB_PRIORITY: Descriptor = gauge(
    "fairsort_top_job_priority",
    "What the order sorts one of its first jobs by (PBS: the formula value; Slurm: sprio PRIORITY; flux: mf_priority).",
);
/// Forecast waits of pending jobs.
pub const FORECAST_WAIT: Descriptor = Descriptor {
    name: "fairsort_forecast_wait_seconds",
    help: "Forecast wait of pending jobs from the snapshot's moment to their predicted start, per queue or partition and account.",
    kind: MetricType::Histogram,
};
/// Pending jobs the forecast gives no start.
pub const FORECAST_UNPLANNED: Descriptor = gauge(
    "fairsort_forecast_unplanned_jobs",
    "Pending jobs the forecast predicts no start for, per queue or partition and account.",
);
/// When usage was last recorded.
pub const USAGE_LAST_RECORD: Descriptor = gauge(
    "fairsort_usage_last_record_timestamp_seconds",
    "When `fairsort usage record` last changed the home's usage (epoch seconds).",
);
/// When usage last decayed.
pub const USAGE_LAST_DECAY: Descriptor = gauge(
    "fairsort_usage_last_decay_timestamp_seconds",
    "When the home's usage was last decayed (epoch seconds).",
);
/// How long ago usage was last recorded.
pub const USAGE_RECORD_LAG: Descriptor = gauge(
    "fairsort_usage_record_lag_seconds",
    "Seconds from the last `fairsort usage record` to this run.",
);
/// This run's own duration.
pub const RUN_DURATION: Descriptor = gauge(
    "fairsort_run_duration_seconds",
    "Wall time of this `fairsort metrics` run up to the writing of this line.",
);
/// This run's moment.
pub const RUN_TIMESTAMP: Descriptor = gauge(
    "fairsort_run_timestamp_seconds",
    "When this `fairsort metrics` run took place (epoch seconds).",
);

/// Every family, in the order they are written.
pub const FAMILIES: [Descriptor; 18] = [
    SHARE_FACTOR,
    SHARE_LEVEL_FS,
    SHARE_EFFECTIVE_USAGE,
    SHARE_NORM_SHARES,
    SHARE_RAW_SHARES,
    SHARE_RAW_USAGE,
    JOBS_PENDING,
    JOBS_RUNNING,
    JOBS_PENDING_CORE_SECONDS,
    TOP_JOB_RANK,
    TOP_JOB_PRIORITY,
    FORECAST_WAIT,
    FORECAST_UNPLANNED,
    USAGE_LAST_RECORD,
    USAGE_LAST_DECAY,
    USAGE_RECORD_LAG,
    RUN_DURATION,
    RUN_TIMESTAMP,
];

/// Every series name a query may use: each family's name, and a histogram's `_bucket`,
/// `_sum` and `_count` series.
pub fn all_names() -> Vec<String> {
    let mut out = Vec::new();
    for d in FAMILIES {
        if matches!(d.kind, MetricType::Histogram) {
            for s in ["_bucket", "_sum", "_count"] {
                out.push(format!("{}{s}", d.name));
            }
        } else {
            out.push(d.name.to_string());
        }
    }
    out
}
