//! What a forecast says: per job, when it starts and why it waits.

use serde::Serialize;

/// One job's forecast.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobForecast {
    /// The job id.
    pub id: String,
    /// Its state letter (`Q`, `R`, `H`, …).
    pub state: String,
    /// Its queue (or partition).
    pub queue: String,
    /// Its user.
    pub user: String,
    /// Cores it needs.
    pub cores: u64,
    /// Its walltime in seconds (what the scheduler plans with).
    pub walltime: i64,
    /// 1-based place in the order the scheduler considers pending jobs (`None`: not considered).
    pub rank: Option<usize>,
    /// What the order sorts by: PBS's formula value as pbs_sched keeps it, Slurm's priority
    /// (`None`: none, or not considered).
    pub priority: Option<f64>,
    /// It starts in this cycle.
    pub runs_now: bool,
    /// The scheduler calendars it this cycle (a top job): `start` is that estimate.
    pub top_job: bool,
    /// Predicted start, epoch seconds (`None`: never, on what is known).
    pub start: Option<i64>,
    /// Predicted end (start + walltime).
    pub end: Option<i64>,
    /// Why it does not start now, in the scheduler's words (`None` when it starts).
    pub reason: Option<String>,
}

impl JobForecast {
    /// Whether the job is running, in its scheduler's word (PBS `R`, Slurm `RUNNING`, flux
    /// `RUN` or `CLEANUP`): the rows that wait for nothing.
    pub fn is_running(&self) -> bool {
        matches!(self.state.as_str(), "R" | "RUNNING" | "RUN" | "CLEANUP")
    }
}

/// A forecast of a whole snapshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forecast {
    /// The moment forecast from (epoch seconds).
    pub at: i64,
    /// The rules it applied, in words (`strict_ordering, backfill_depth 1`).
    pub policy: String,
    /// Cores of the usable nodes.
    pub cores: u64,
    /// Cores free now.
    pub free_cores: u64,
    /// Running jobs.
    pub running: usize,
    /// The pending jobs, in the scheduler's order, then the jobs it does not consider.
    pub jobs: Vec<JobForecast>,
    /// What the forecast could not model, once each.
    pub warnings: Vec<String>,
}
