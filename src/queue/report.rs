//! The rows `fairsort order` prints (table, `--csv`) and the JSON document (`--json`): one
//! place that turns a `QueueOrder` into what users read, so every output agrees.

use super::explain::fmt;
use super::job::JobSet;
use super::job_record::JobState;
use super::order::{QueueOrder, Ranked, THRESHOLD_COMMENT};
use serde::Serialize;

/// One job as printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobRow {
    /// Rank (1-based).
    pub rank: usize,
    /// Job id.
    pub id: String,
    /// The job's user (`euser`).
    pub owner: String,
    /// Queue.
    pub queue: String,
    /// Sort value (0 after an evaluation error).
    pub value: f64,
    /// Python's message when evaluation failed.
    pub error: Option<String>,
    /// Considered this cycle (queued and above the threshold).
    pub eligible: bool,
    /// `eligible`, `below threshold`, `running`, `held`, `state X`.
    pub status: String,
    /// PBS's job comment, when it would set one.
    pub comment: Option<String>,
}

/// The `--json` document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderDocument {
    /// The formula.
    pub formula: String,
    /// The threshold, if set.
    pub threshold: Option<f64>,
    /// Whether PBS's rounding was reproduced.
    pub pbs_compat: bool,
    /// Number of jobs in the queue (the `jobs` array may be cut by `--top`).
    pub total: usize,
    /// Jobs in order.
    pub jobs: Vec<JobRow>,
}

fn status(r: &Ranked, state: JobState) -> &'static str {
    if r.below_threshold {
        "below threshold"
    } else if r.eligible {
        "eligible"
    } else {
        match state {
            JobState::Running => "running",
            JobState::Held => "held",
            _ => "not queued",
        }
    }
}

/// The first `top` rows (all with `None`).
pub fn rows(jobs: &JobSet, order: &QueueOrder, top: Option<usize>) -> Vec<JobRow> {
    let n = top.unwrap_or(usize::MAX).min(order.ranked.len());
    order
        .ranked
        .iter()
        .take(n)
        .enumerate()
        .filter_map(|(pos, r)| {
            let job = jobs.jobs.get(r.job as usize)?;
            let mut status = status(r, job.state).to_string();
            if status == "not queued" {
                status = format!("state {}", job.state.letter());
            }
            Some(JobRow {
                rank: pos + 1,
                id: job.id.clone(),
                owner: jobs.user(job).to_string(),
                queue: jobs.queue(job).to_string(),
                value: r.value,
                error: order.error(r.job).map(str::to_string),
                eligible: r.eligible,
                status,
                comment: r.below_threshold.then(|| THRESHOLD_COMMENT.to_string()),
            })
        })
        .collect()
}

/// The cells of one row for the table and CSV: rank, job id, owner, queue, value, status.
pub fn cells(row: &JobRow) -> Vec<String> {
    let status = match &row.error {
        Some(e) => format!("{} (error, 0 used: {e})", row.status),
        None => row.status.clone(),
    };
    vec![
        row.rank.to_string(),
        row.id.clone(),
        row.owner.clone(),
        row.queue.clone(),
        fmt(row.value),
        status,
    ]
}

/// Column headers matching `cells`.
pub const HEADERS: [&str; 6] = ["rank", "job id", "owner", "queue", "value", "status"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::order::Evaluations;
    use crate::queue::{order, read_job_list_json, OrderOptions};

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
        let r = rows(&jobs, &o, None);
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].id.as_str(), r[0].status.as_str()), ("1", "eligible"));
        assert_eq!(r[1].status, "below threshold");
        assert_eq!(r[1].comment.as_deref(), Some(THRESHOLD_COMMENT));
        assert_eq!(
            cells(&r[1])[5],
            "below threshold (error, 0 used: division by zero)"
        );
        assert_eq!((r[2].id.as_str(), r[2].status.as_str()), ("3", "running"));
        assert_eq!(rows(&jobs, &o, Some(1)).len(), 1);
    }
}
