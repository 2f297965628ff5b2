//! The jobs of a workload trace as the replay needs them ([`TraceJob`]), a whole trace
//! ([`Trace`]), its formats and its errors: what every trace reader produces.

use std::path::{Path, PathBuf};
use std::str::FromStr;

/// One job of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceJob {
    /// The trace's job id.
    pub id: String,
    /// Submit time, in the trace's seconds (SWF: from the trace start; PBS/sacct: epoch).
    pub submit: i64,
    /// Real run time in seconds (recorded end − recorded start).
    pub run: i64,
    /// Requested walltime in seconds (`None`: the trace does not say; the run time is used).
    pub walltime: Option<i64>,
    /// Cores.
    pub cores: u64,
    /// Requested memory in KB (PBS's size unit); 0: none requested (the job fits any memory).
    pub mem: u64,
    /// User.
    pub user: String,
    /// Group, or account when the trace has one (the fair-share account of the job).
    pub account: String,
    /// Queue or partition.
    pub queue: String,
    /// Slurm QOS (sacct's `QOS`; empty when the trace has none).
    pub qos: String,
}

impl TraceJob {
    /// The walltime the scheduler plans with: the requested one, else the run time.
    pub fn planned(&self) -> i64 {
        self.walltime.unwrap_or(self.run)
    }

    /// How long the job really holds its cores: the run time, cut at the requested walltime.
    pub fn holds(&self) -> i64 {
        match self.walltime {
            Some(w) => self.run.min(w),
            None => self.run,
        }
    }
}

/// A trace: its jobs in trace order, what was left out, and the cluster size it states.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// Jobs in trace order.
    pub jobs: Vec<TraceJob>,
    /// Records left out (never started, cancelled, still running, steps), by reason.
    pub left_out: Vec<(String, u64)>,
    /// SWF `MaxNodes` header.
    pub max_nodes: Option<u64>,
    /// SWF `MaxProcs` header.
    pub max_procs: Option<u64>,
    /// What a reader took other than as written, by kind, with how many records each concerns
    /// (one report line per kind).
    pub notes: Vec<(String, u64)>,
}

/// The longest time a trace job may have (run time or requested walltime) and the latest
/// submit time, in seconds: 100 years, and the end of the year 9999 (epoch traces). Real traces
/// hold neither; the bounds keep every sum and core × seconds product of the replay exact.
pub const MAX_TRACE_SECONDS: i64 = 3_155_760_000;

/// The most cores one trace job may have: 2^26 (more than any machine has had).
pub const MAX_TRACE_CORES: u64 = 1 << 26;

/// The most memory one trace job may request, in KB: 2^40 KB (1 PiB).
pub const MAX_TRACE_MEM_KB: u64 = 1 << 40;

impl Trace {
    /// Adds `job`, or says which of its values no real job has (a submit time before 1970 or
    /// after 9999, a time over 100 years, more than 2^26 cores or 1 PiB), so a forged or
    /// garbled record is refused where it is written instead of reaching the replay's
    /// arithmetic.
    pub(crate) fn push(&mut self, job: TraceJob) -> Result<(), String> {
        let last = crate::usage::settings::MAX_TIME;
        if !(0..=last).contains(&job.submit) {
            return Err(format!(
                "job {}: submit time {} is outside 0 to {last} (9999-12-31)",
                job.id, job.submit
            ));
        }
        for (what, v) in [("run time", Some(job.run)), ("walltime", job.walltime)] {
            if let Some(v) = v.filter(|v| !(0..=MAX_TRACE_SECONDS).contains(v)) {
                return Err(format!(
                    "job {}: {what} {v} s is outside 0 to {MAX_TRACE_SECONDS} s (100 years)",
                    job.id
                ));
            }
        }
        if job.cores > MAX_TRACE_CORES {
            return Err(format!(
                "job {}: {} cores is more than {MAX_TRACE_CORES}",
                job.id, job.cores
            ));
        }
        if job.mem > MAX_TRACE_MEM_KB {
            return Err(format!(
                "job {}: {} KB of memory is more than {MAX_TRACE_MEM_KB} KB (1 PiB)",
                job.id, job.mem
            ));
        }
        self.jobs.push(job);
        Ok(())
    }

    /// Whole-node allocation: every job gets the nodes its cores (and, with `mem_per_node` KB
    /// per node > 0, its memory) need, and holds all their cores (and memory). On a cluster of
    /// identical nodes where a node runs one job at a time, counting cores in multiples of whole
    /// nodes is counting nodes, so the simulation needs nothing else.
    pub fn whole_nodes(&mut self, cores_per_node: u64, mem_per_node: u64) {
        let cpn = cores_per_node.max(1);
        for j in &mut self.jobs {
            let mut nodes = j.cores.div_ceil(cpn);
            if mem_per_node > 0 {
                nodes = nodes.max(j.mem.div_ceil(mem_per_node));
                j.mem = nodes.saturating_mul(mem_per_node);
            }
            j.cores = nodes.saturating_mul(cpn);
        }
    }

    /// Counts one record under the note `what` (`notes`).
    pub(crate) fn note(&mut self, what: &str) {
        match self.notes.iter_mut().find(|(r, _)| r == what) {
            Some((_, n)) => *n += 1,
            None => self.notes.push((what.to_string(), 1)),
        }
    }

    pub(crate) fn leave_out(&mut self, reason: &str) {
        match self.left_out.iter_mut().find(|(r, _)| r == reason) {
            Some((_, n)) => *n += 1,
            None => self.left_out.push((reason.to_string(), 1)),
        }
    }
}

/// Trace formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    /// Standard Workload Format.
    Swf,
    /// PBS accounting log (file or directory of daily files).
    Pbs,
    /// Slurm `sacct -P` (pipe-separated with a header line) or `sacct --json` (told apart by
    /// the first character, `{`).
    Sacct,
    /// flux-accounting's database (its `jobs` table).
    Flux,
}

impl TraceFormat {
    /// Every format.
    pub const ALL: [TraceFormat; 4] = [
        TraceFormat::Swf,
        TraceFormat::Pbs,
        TraceFormat::Sacct,
        TraceFormat::Flux,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Swf => "swf",
            TraceFormat::Pbs => "pbs",
            TraceFormat::Sacct => "sacct",
            TraceFormat::Flux => "flux",
        }
    }
}

impl std::fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        TraceFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown trace format `{s}` (expected swf, pbs, sacct or flux)"))
    }
}

/// A trace that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A malformed line.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A malformed field of a line.
    #[error("{}:{line}:{col}: {message}", path.display())]
    Field {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What is wrong (`field NAME: …`).
        message: String,
    },
    /// A flux-accounting database that cannot be read as a trace.
    #[error("{}: {message}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// What is wrong (the job it concerns).
        message: String,
    },
    /// A `sacct --json` document that cannot be read as a trace.
    #[error("{}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What is wrong (the job and field it concerns).
        message: String,
    },
    /// The format cannot be told from the file.
    #[error("{}: cannot tell the trace format; give --trace-format swf|pbs|sacct|flux", path.display())]
    Unknown {
        /// The file.
        path: PathBuf,
    },
}

pub(crate) fn line_err(path: &Path, line: usize, message: impl Into<String>) -> TraceError {
    TraceError::Line {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}
