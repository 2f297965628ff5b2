//! Prometheus metrics of a site: every association's fair share under each algorithm the site
//! uses, the queue per owner and queue, the first jobs of the order, the forecast's waits and
//! the home's usage state, in the Prometheus text exposition format (0.0.4) that
//! node_exporter's textfile collector reads, encoded with the `prometheus-client` crate
//! (docs/metrics.md: names, labels, types, bounds).
//!
//! Every series carries `site` and `scheduler`; association series add `account`, `user` and
//! `algorithm`; queue series add `user`, `account` and `queue` (`partition` on a Slurm site).
//! Values are written as the shortest text that reads back as the same double; `+Inf`, `-Inf`
//! and `NaN` as the format spells them (Fair Tree's Level FS is `+Inf` for an association with
//! shares and no usage); a blank value (an account's factor) writes no sample.

mod encode;
pub mod names;
mod queue;
mod run;
mod share;
mod text;
mod waits;

pub use encode::Descriptor;
pub use queue::{Phase, QueueJob};
pub use run::UsageState;
pub use share::ShareMetrics;
pub use waits::{Wait, BUCKETS};

use std::io;
use std::sync::Arc;
use std::time::Instant;

/// How many of the order's first jobs get rank and value series when none is asked for.
pub const DEFAULT_TOP: usize = 10;
/// The most that may be asked for: the job label's cardinality is bounded by it.
pub const MAX_TOP: usize = 1000;

/// The labels every series carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteLabels {
    /// The site's name (`--site`).
    pub site: String,
    /// `pbs`, `slurm` or `flux`.
    pub scheduler: String,
}

impl SiteLabels {
    /// The label of a job's queue: `partition` on a Slurm site, `queue` elsewhere.
    pub fn queue_label(&self) -> &'static str {
        if self.scheduler == "slurm" {
            "partition"
        } else {
            "queue"
        }
    }
}

/// Everything one run writes.
#[derive(Debug)]
pub struct Metrics {
    /// The site's labels.
    pub site: SiteLabels,
    /// The share tree and each algorithm's result (`None`: no tree).
    pub shares: Option<Arc<ShareMetrics>>,
    /// The order's jobs (empty: no queue).
    pub jobs: Vec<QueueJob>,
    /// How many of the first jobs get rank and value series (at most [`MAX_TOP`]).
    pub top: usize,
    /// The forecast's pending jobs (`None`: no forecast).
    pub waits: Option<Vec<Wait>>,
    /// The home's usage state.
    pub usage: UsageState,
    /// This run's moment (epoch seconds).
    pub now: i64,
    /// When this run began (its duration is read as the last series is written).
    pub started: Instant,
}

/// Writes `m` to `out` in the Prometheus text format, families in the order of
/// [`names::FAMILIES`], each with its `# HELP` and `# TYPE` lines; a family with no sample is
/// left out.
pub fn write(out: &mut (impl io::Write + Send), m: &Metrics) -> io::Result<()> {
    let site = Arc::new(m.site.clone());
    if let Some(s) = &m.shares {
        share::write(out, s, &site)?;
    }
    queue::write(out, &m.jobs, m.top.min(MAX_TOP), &site)?;
    if let Some(w) = &m.waits {
        waits::write(out, w, &site)?;
    }
    run::write(out, m.usage, m.now, m.started, &site)
}
