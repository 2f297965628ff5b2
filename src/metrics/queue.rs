//! The queue's families: pending and running jobs and pending core-hours per user, account and
//! queue (or partition), and the rank and sort value of the first jobs of the order.

use crate::metrics::encode::{write_family, Descriptor, Rows};
use crate::metrics::{names, SiteLabels};
use prometheus_client::encoding::MetricEncoder;
use std::collections::BTreeMap;
use std::io;
use std::ops::Range;
use std::sync::Arc;

/// Where a job is, for the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the scheduler to start it (PBS `Q`, Slurm `PENDING`, flux pending).
    Pending,
    /// Running.
    Running,
    /// Anything else (held, finished, rejected): counted nowhere.
    Other,
}

/// One job of the order, whatever the scheduler.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueJob {
    /// The job id as the scheduler prints it.
    pub id: String,
    /// Its owner.
    pub user: String,
    /// Its account (PBS `Account_Name`, Slurm account, flux bank); empty when it has none.
    pub account: String,
    /// Its queue (Slurm: partition).
    pub queue: String,
    /// Pending, running or neither.
    pub phase: Phase,
    /// Cores it asks for.
    pub cores: f64,
    /// Its walltime limit in seconds (`None`: no limit).
    pub walltime: Option<f64>,
    /// Its 1-based place in the order (`None`: not ranked).
    pub rank: Option<usize>,
    /// What the order sorts it by (`None`: no value).
    pub value: Option<f64>,
}

/// Per (user, account, queue): pending, running, pending core-seconds.
type Counts = BTreeMap<(String, String, String), (u64, u64, f64)>;

fn counts(jobs: &[QueueJob]) -> Counts {
    let mut c = Counts::new();
    for j in jobs {
        if j.phase == Phase::Other {
            continue;
        }
        let e = c
            .entry((j.user.clone(), j.account.clone(), j.queue.clone()))
            .or_insert((0, 0, 0.0));
        match j.phase {
            Phase::Pending => {
                e.0 += 1;
                let secs = j
                    .walltime
                    .filter(|w| w.is_finite() && *w > 0.0)
                    .unwrap_or(0.0);
                e.2 += j.cores.max(0.0) * secs;
            }
            Phase::Running => e.1 += 1,
            Phase::Other => {}
        }
    }
    c
}

/// One family of the counts: rows are the (user, account, queue) keys.
struct CountRows {
    site: Arc<SiteLabels>,
    rows: Vec<((String, String, String), f64)>,
    /// Whether a zero is a sample (the counts: yes, so a queue that empties shows 0 while its
    /// owner has jobs in another state; core-seconds: yes).
    keep_zero: bool,
}

impl Rows for CountRows {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn has_sample(&self, i: usize) -> bool {
        self.rows
            .get(i)
            .is_some_and(|(_, v)| self.keep_zero || *v != 0.0)
    }

    fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result {
        for ((user, account, queue), v) in self.rows.get(range).unwrap_or_default() {
            if !self.keep_zero && *v == 0.0 {
                continue;
            }
            let labels = [
                ("site", self.site.site.as_str()),
                ("scheduler", self.site.scheduler.as_str()),
                ("user", user.as_str()),
                ("account", account.as_str()),
                (self.site.queue_label(), queue.as_str()),
            ];
            enc.encode_family(&labels)?.encode_gauge(v)?;
        }
        Ok(())
    }
}

/// The first jobs of the order with their rank and value.
struct TopRows {
    site: Arc<SiteLabels>,
    jobs: Vec<QueueJob>,
    rank: bool,
}

impl Rows for TopRows {
    fn len(&self) -> usize {
        self.jobs.len()
    }

    fn has_sample(&self, i: usize) -> bool {
        self.jobs
            .get(i)
            .is_some_and(|j| self.rank || j.value.is_some())
    }

    fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result {
        for j in self.jobs.get(range).unwrap_or_default() {
            let v = if self.rank {
                j.rank.map(|r| r as f64)
            } else {
                j.value
            };
            let Some(v) = v else { continue };
            let labels = [
                ("site", self.site.site.as_str()),
                ("scheduler", self.site.scheduler.as_str()),
                ("job", j.id.as_str()),
                ("user", j.user.as_str()),
                ("account", j.account.as_str()),
                (self.site.queue_label(), j.queue.as_str()),
            ];
            enc.encode_family(&labels)?.encode_gauge(&v)?;
        }
        Ok(())
    }
}

/// The ranked jobs at places 1..=`top`, in rank order.
pub(crate) fn top_jobs(jobs: &[QueueJob], top: usize) -> Vec<QueueJob> {
    let mut t: Vec<QueueJob> = jobs
        .iter()
        .filter(|j| j.rank.is_some_and(|r| r >= 1 && r <= top))
        .cloned()
        .collect();
    t.sort_by_key(|j| j.rank);
    t
}

/// Writes the queue's families.
pub(crate) fn write(
    out: &mut (impl io::Write + Send),
    jobs: &[QueueJob],
    top: usize,
    site: &Arc<SiteLabels>,
) -> io::Result<()> {
    let c = counts(jobs);
    let column = |k: usize| -> Vec<((String, String, String), f64)> {
        c.iter()
            .map(|(key, &(p, r, h))| (key.clone(), [p as f64, r as f64, h][k]))
            .collect()
    };
    let families: [(Descriptor, usize); 3] = [
        (names::JOBS_PENDING, 0),
        (names::JOBS_RUNNING, 1),
        (names::JOBS_PENDING_CORE_SECONDS, 2),
    ];
    for (desc, k) in families {
        let rows = CountRows {
            site: Arc::clone(site),
            rows: column(k),
            keep_zero: true,
        };
        write_family(out, desc, Arc::new(rows))?;
    }
    let first = top_jobs(jobs, top);
    for (desc, rank) in [
        (names::TOP_JOB_RANK, true),
        (names::TOP_JOB_PRIORITY, false),
    ] {
        let rows = TopRows {
            site: Arc::clone(site),
            jobs: first.clone(),
            rank,
        };
        write_family(out, desc, Arc::new(rows))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, user: &str, phase: Phase, rank: Option<usize>) -> QueueJob {
        QueueJob {
            id: id.into(),
            user: user.into(),
            account: "a".into(),
            queue: "q".into(),
            phase,
            cores: 4.0,
            walltime: Some(1800.0),
            rank,
            value: Some(1.5),
        }
    }

    #[test]
    fn counts_and_core_seconds_per_owner_and_queue() {
        let jobs = [
            job("1", "u", Phase::Pending, Some(2)),
            job("2", "u", Phase::Pending, Some(1)),
            job("3", "u", Phase::Running, None),
            job("4", "v", Phase::Other, Some(3)),
        ];
        let c = counts(&jobs);
        assert_eq!(c.len(), 1);
        let (p, r, h) = c[&("u".into(), "a".into(), "q".into())];
        assert_eq!((p, r, h), (2, 1, 4.0 * 3600.0));
        let t = top_jobs(&jobs, 2);
        let ids: Vec<&str> = t.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["2", "1"]);
    }
}
