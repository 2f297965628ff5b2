//! The rows `fairsort order` prints (table, `--csv`) and the JSON document (`--json`): one
//! place that turns a `QueueOrder` into what users read, so every output agrees.

use crate::jobs::job::JobState;
use crate::jobs::job_set::JobSet;
use crate::mem::prefetch;
use crate::order::explain::fmt;
use crate::order::sort::{Held, QueueOrder, Ranked, THRESHOLD_COMMENT};
use serde::{Serialize, Serializer};
use std::fmt;
use std::ops::Range;

/// A job's status as printed: why the scheduler would (not) consider it this cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Queued and above the threshold.
    Eligible,
    /// Queued but at or below the threshold.
    BelowThreshold,
    /// Running.
    Running,
    /// Held.
    Held,
    /// Queued, but its fair-share entity has no shares.
    ZeroShares,
    /// Queued in a queue that is not started.
    QueueStopped,
    /// In a route queue.
    RouteQueue,
    /// Any other state, by its letter.
    State(char),
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Eligible => f.write_str("eligible"),
            Status::BelowThreshold => f.write_str("below threshold"),
            Status::Running => f.write_str("running"),
            Status::Held => f.write_str("held"),
            Status::ZeroShares => f.write_str("zero shares"),
            Status::QueueStopped => f.write_str("queue not started"),
            Status::RouteQueue => f.write_str("route queue"),
            Status::State(c) => write!(f, "state {c}"),
        }
    }
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Status {
    /// Its text when it is a fixed one (all but `state X`), without formatting.
    pub fn as_static(self) -> Option<&'static str> {
        match self {
            Status::Eligible => Some("eligible"),
            Status::BelowThreshold => Some("below threshold"),
            Status::Running => Some("running"),
            Status::Held => Some("held"),
            Status::ZeroShares => Some("zero shares"),
            Status::QueueStopped => Some("queue not started"),
            Status::RouteQueue => Some("route queue"),
            Status::State(_) => None,
        }
    }

    /// Its length in characters as printed (for column widths, without formatting it).
    pub fn width(self) -> usize {
        match self {
            Status::Eligible => 8,
            Status::BelowThreshold => 15,
            Status::Running => 7,
            Status::Held => 4,
            Status::ZeroShares => 11,
            Status::QueueStopped => 17,
            Status::RouteQueue => 11,
            Status::State(_) => 7,
        }
    }
}

/// One job as printed, borrowing its texts from the job set and the order (rows are produced
/// one at a time as they are written, never collected).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobRow<'a> {
    /// Rank (1-based).
    pub rank: usize,
    /// Job id.
    pub id: &'a str,
    /// The job's user (`euser`).
    pub owner: &'a str,
    /// Queue.
    pub queue: &'a str,
    /// Sort value (0 after an evaluation error); in JSON a non-finite one is the text PBS logs
    /// it as (`inf`, `-inf`, `nan`), JSON having no number for it.
    #[serde(serialize_with = "value_json")]
    pub value: f64,
    /// Python's message when evaluation failed.
    pub error: Option<&'a str>,
    /// Considered this cycle (queued and above the threshold).
    pub eligible: bool,
    /// `eligible`, `below threshold`, `running`, `held`, `state X`.
    pub status: Status,
    /// PBS's job comment, when it would set one.
    pub comment: Option<&'static str>,
}

/// A value as JSON: the number, or for a non-finite one the text printf gives it.
fn value_json<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else if v.is_nan() {
        s.serialize_str("nan")
    } else if *v > 0.0 {
        s.serialize_str("inf")
    } else {
        s.serialize_str("-inf")
    }
}

/// The `--json` document; its `jobs` are serialized row by row as they are produced.
#[derive(Debug, Clone, Serialize)]
pub struct OrderDocument<'a> {
    /// The formula (`None`: the site sorts without one, by `job_sort_key` or fair share).
    pub formula: Option<&'a str>,
    /// The threshold, if set.
    pub threshold: Option<f64>,
    /// Whether PBS's rounding was reproduced.
    pub pbs_compat: bool,
    /// Number of jobs in the queue (the `jobs` array may be cut by `--top`).
    pub total: usize,
    /// Jobs in order.
    pub jobs: Rows<'a>,
}

/// The first rows of an order, produced on demand (see [`rows`]).
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    jobs: &'a JobSet,
    order: &'a QueueOrder,
    len: usize,
}

impl<'a> Rows<'a> {
    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The ranked entries behind the rows, in order (for passes that need no job's text).
    pub fn ranked(&self) -> &'a [Ranked] {
        self.order.ranked.get(..self.len).unwrap_or(&[])
    }

    /// Whether the rows are every job of the set (then a pass over the set's jobs in their own
    /// order sees the same jobs, faster than one in rank order).
    pub fn is_every_job(&self) -> bool {
        self.len == self.jobs.len()
    }

    /// The width of a ranked entry's status cell (the status and the error, if any), looking at
    /// the job only when its status depends on its state.
    pub fn status_width(&self, r: &Ranked) -> usize {
        let status = self.status_of(r).unwrap_or(Status::State('?'));
        match self.order.error(r.job) {
            Some(e) => status.width() + ERROR_NOTE_CHARS + e.chars().count(),
            None => status.width(),
        }
    }

    /// A ranked entry's status, looking at the job only when its status depends on its state
    /// (`None` for an entry whose job is not in the set: it has no row).
    pub fn status_of(&self, r: &Ranked) -> Option<Status> {
        let job = || self.jobs.jobs.get(r.job as usize);
        if r.job as usize >= self.jobs.len() {
            None
        } else if r.below_threshold {
            Some(Status::BelowThreshold)
        } else if r.eligible {
            Some(Status::Eligible)
        } else {
            job().map(|job| status_held(r, job.state, self.order.held(r.job)))
        }
    }

    /// Why the scheduler holds a ranked entry's job back, if it does (beyond the threshold).
    pub fn held_of(&self, r: &Ranked) -> Option<Held> {
        self.order.held(r.job)
    }

    /// A ranked entry's evaluation error, if any.
    pub fn error_of(&self, r: &Ranked) -> Option<&'a str> {
        self.order.error(r.job)
    }

    /// The rows in order. Rank order visits the jobs at random, so the jobs a few rows ahead
    /// are prefetched (their record, then their id and user name) to overlap the cache misses.
    pub fn iter(&self) -> impl Iterator<Item = JobRow<'a>> + 'a {
        self.iter_range(0..self.len)
    }

    /// The rows at positions `range` (0-based; cut to the rows there are), in order, as
    /// [`Rows::iter`] gives them: for output formatted in chunks.
    pub fn iter_range(&self, range: Range<usize>) -> impl Iterator<Item = JobRow<'a>> + 'a {
        let Rows { jobs, order, len } = *self;
        let ranked = self.ranked();
        let end = range.end.min(ranked.len());
        let start = range.start.min(end);
        let part = ranked.get(start..end).unwrap_or(&[]);
        (part.iter().enumerate()).filter_map(move |(i, r)| {
            let pos = start + i;
            if let Some(ahead) = ranked.get(pos + 16) {
                prefetch(jobs.jobs.get(ahead.job as usize));
            }
            if let Some(job) = ranked
                .get(pos + 8)
                .and_then(|a| jobs.jobs.get(a.job as usize))
            {
                prefetch(job.id.as_bytes().first());
                prefetch(jobs.user(job).as_bytes().first());
            }
            let _ = len;
            row(jobs, order, pos, r)
        })
    }
}

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// A ranked entry's status given its job's state (for a writer that keeps the states apart
/// from the job records).
pub fn status(r: &Ranked, state: JobState) -> Status {
    status_held(r, state, None)
}

/// [`status`] of a job the scheduler may hold back for a reason of its own (`held`).
pub fn status_held(r: &Ranked, state: JobState, held: Option<Held>) -> Status {
    if let (false, Some(h)) = (r.eligible, held) {
        return match h {
            Held::ZeroShares => Status::ZeroShares,
            Held::QueueStopped => Status::QueueStopped,
            Held::RouteQueue => Status::RouteQueue,
        };
    }
    if r.below_threshold {
        Status::BelowThreshold
    } else if r.eligible {
        Status::Eligible
    } else {
        match state {
            JobState::Running => Status::Running,
            JobState::Held => Status::Held,
            other => Status::State(other.letter()),
        }
    }
}

fn row<'a>(jobs: &'a JobSet, order: &'a QueueOrder, pos: usize, r: &Ranked) -> Option<JobRow<'a>> {
    let job = jobs.jobs.get(r.job as usize)?;
    Some(JobRow {
        rank: pos + 1,
        id: &job.id,
        owner: jobs.user(job),
        queue: jobs.queue(job),
        value: r.value,
        error: order.error(r.job),
        eligible: r.eligible,
        status: status_held(r, job.state, order.held(r.job)),
        comment: r.below_threshold.then_some(THRESHOLD_COMMENT),
    })
}

/// The first `top` rows (all with `None`).
pub fn rows<'a>(jobs: &'a JobSet, order: &'a QueueOrder, top: Option<usize>) -> Rows<'a> {
    let len = top.unwrap_or(usize::MAX).min(order.ranked.len());
    Rows { jobs, order, len }
}

/// The characters [`status_cell`] adds around an error's message.
const ERROR_NOTE_CHARS: usize = " (error, 0 used: )".len();

/// The status cell of the table and CSV: the status, and the error when evaluation failed.
pub fn status_cell(row: &JobRow, out: &mut String) {
    push_status(row.status, row.error, out);
}

/// [`status_cell`] from a status and an error.
pub fn push_status(status: Status, error: Option<&str>, out: &mut String) {
    use std::fmt::Write;
    if let (None, Some(text)) = (error, status.as_static()) {
        out.push_str(text);
        return;
    }
    let _ = match error {
        Some(e) => write!(out, "{status} (error, 0 used: {e})"),
        None => write!(out, "{status}"),
    };
}

/// The cells of one row for the table and CSV: rank, job id, owner, queue, value, status.
pub fn cells(row: &JobRow) -> Vec<String> {
    let mut status = String::new();
    status_cell(row, &mut status);
    vec![
        row.rank.to_string(),
        row.id.to_string(),
        row.owner.to_string(),
        row.queue.to_string(),
        fmt(row.value),
        status,
    ]
}

/// The status cell of job `r` of `order` (as [`status_cell`] writes it).
pub fn status_text(jobs: &JobSet, order: &QueueOrder, r: &Ranked) -> String {
    let state = jobs
        .jobs
        .get(r.job as usize)
        .map_or(JobState::Queued, |j| j.state);
    let st = status_held(r, state, order.held(r.job));
    match order.error(r.job) {
        Some(e) => format!("{st} (error, 0 used: {e})"),
        None => st.to_string(),
    }
}

/// Column headers matching `cells`.
pub const HEADERS: [&str; 6] = ["rank", "job id", "owner", "queue", "value", "status"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::read_job_list_json;
    use crate::order::sort::Evaluations;
    use crate::order::{order, OrderOptions};

    #[test]
    fn rows_carry_status_and_comment() {
        let jobs = read_job_list_json(
            br#"[{"id":"1","user":"a","queue":"q","qtime":1},
                 {"id":"2","user":"b","queue":"q","qtime":2},
                 {"id":"3","user":"c","queue":"q","qtime":3,"state":"R"}]"#,
        )
        .unwrap();
        let evals = Evaluations {
            values: vec![5.0, 0.0, 9.0],
            errors: [(1u32, "division by zero".to_string())].into(),
        };
        let opts = OrderOptions {
            threshold: Some(1.0),
            ..Default::default()
        };
        let o = order(&jobs, evals, &opts);
        let r: Vec<JobRow> = rows(&jobs, &o, None).iter().collect();
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].id, r[0].status), ("1", Status::Eligible));
        assert_eq!(r[1].status.to_string(), "below threshold");
        assert_eq!(r[1].comment, Some(THRESHOLD_COMMENT));
        assert_eq!(
            cells(&r[1])[5],
            "below threshold (error, 0 used: division by zero)"
        );
        assert_eq!((r[2].id, r[2].status), ("3", Status::Running));
        for st in [
            Status::Eligible,
            Status::BelowThreshold,
            Status::Running,
            Status::Held,
            Status::State('E'),
        ] {
            assert_eq!(st.width(), st.to_string().chars().count());
        }
        assert_eq!(rows(&jobs, &o, Some(1)).len(), 1);
    }
}
