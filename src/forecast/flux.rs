//! A flux instance's forecast: the running jobs of `flux jobs -a --json` (holding their cores
//! until their `expiration`), the nodes of `flux resource R`, and the jobs waiting for the
//! scheduler (`SCHED`) in fluxion's qmanager order (priority high to low, then `t_submit`),
//! run forward under the queue policy: `fcfs` (nothing passes a blocked head), `easy` (the first
//! job that cannot start is reserved the earliest start, later ones backfill around it),
//! `hybrid` and `conservative` (that many reservations, fluxion's `reservation-depth`).

use crate::flux::resource_set::FluxNode;
use crate::flux::snapshot::FluxSnapshotJob;
use crate::forecast::result::{Forecast, JobForecast};
use crate::forecast::run::Run;
use crate::replay::{Backfill, Cluster, ReplayError, StartState, TraceJob, Why};

/// How long the forecast plans a job with no time limit: a year (fluxion plans it to the end of
/// its resource graph, the instance's expiration when it has one).
pub const NO_LIMIT: i64 = 365 * 86_400;

/// fluxion's `HYBRID_RESERVATION_DEPTH` (`queue_policy_hybrid`'s default `reservation-depth`).
pub const HYBRID_DEPTH: u32 = 64;

/// fluxion's `MAX_RESERVATION_DEPTH` (`queue_policy_bf_base`: conservative's every job).
pub const CONSERVATIVE_DEPTH: u32 = 100_000;

/// fluxion's queue policies (`sched-fluxion-qmanager`'s `queue-policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FluxQueuePolicy {
    /// `fcfs`: strict order, the loop stops at the first job that cannot start.
    Fcfs,
    /// `easy`: one reservation (`reservation-depth` 1).
    Easy,
    /// `hybrid`: this many reservations.
    Hybrid(u32),
    /// `conservative`: a reservation for every job that cannot start.
    Conservative,
}

impl std::str::FromStr for FluxQueuePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fcfs" => Ok(FluxQueuePolicy::Fcfs),
            "easy" => Ok(FluxQueuePolicy::Easy),
            "hybrid" => Ok(FluxQueuePolicy::Hybrid(HYBRID_DEPTH)),
            "conservative" => Ok(FluxQueuePolicy::Conservative),
            _ => Err(format!(
                "unknown queue policy `{s}` (expected fcfs, easy, hybrid or conservative)"
            )),
        }
    }
}

impl FluxQueuePolicy {
    /// The simulator's rule for the policy.
    pub fn backfill(self) -> Backfill {
        match self {
            FluxQueuePolicy::Fcfs => Backfill::None,
            FluxQueuePolicy::Easy => Backfill::Easy,
            FluxQueuePolicy::Hybrid(n) => Backfill::Depth(n.max(1)),
            FluxQueuePolicy::Conservative => Backfill::Depth(CONSERVATIVE_DEPTH),
        }
    }

    /// The policy as fluxion names it, with its depth.
    pub fn words(self) -> String {
        match self {
            FluxQueuePolicy::Fcfs => "fluxion queue-policy fcfs".to_string(),
            FluxQueuePolicy::Easy => "fluxion queue-policy easy (reservation-depth 1)".to_string(),
            FluxQueuePolicy::Hybrid(n) => {
                format!("fluxion queue-policy hybrid (reservation-depth {n})")
            }
            FluxQueuePolicy::Conservative => "fluxion queue-policy conservative".to_string(),
        }
    }
}

/// A flux instance at one moment.
#[derive(Debug, Clone, Copy)]
pub struct FluxSnapshot<'a> {
    /// `flux jobs -a --json`.
    pub jobs: &'a [FluxSnapshotJob],
    /// `flux resource R`.
    pub nodes: &'a [FluxNode],
    /// The queue policy.
    pub policy: FluxQueuePolicy,
    /// The moment of the snapshot.
    pub at: i64,
}

/// The words a job that waits for the scheduler's resources is given: flux-core's own
/// (`sched.reason_pending` of sched-simple, the words the job-list service knows).
pub const INSUFFICIENT: &str = "insufficient resources";

/// fluxion's `sched.selection_type` of a job reserved a future start.
pub const RESERVED: &str = "reserved";

/// The note of the exception flux raises on a job fluxion can never place (`ENODEV`: larger
/// than the instance), which ends it.
pub const UNSATISFIABLE: &str = "alloc denied due to type=\"unsatisfiable\"";

/// Why a job that waits for the scheduler did not start, in flux's words where it has some.
fn reason(why: &Why) -> String {
    match why {
        Why::Insufficient { .. } | Why::NoFreeNodes => INSUFFICIENT.to_string(),
        // fluxion's reservation holds the resources from its start: the job would overlap it
        Why::Conflict => format!("{INSUFFICIENT} (would overlap a reserved job)"),
        Why::StrictOrder => format!("{INSUFFICIENT} (fcfs: behind a job that cannot start)"),
        Why::NotTested => "not considered this loop".to_string(),
    }
}

/// What `flux jobs` shows for a job the scheduler does not consider (its INFO column:
/// `held`, `priority-hold`, `priority-wait`, `depends:...`).
fn not_considered(j: &FluxSnapshotJob) -> String {
    match j.state.as_str() {
        "PRIORITY" | "NEW" => "priority-wait".to_string(),
        "DEPEND" => format!("depends:{}", j.dependencies.join(",")),
        _ if j.urgency == 0 => "held".to_string(),
        _ => "priority-hold".to_string(),
    }
}

/// Whole seconds: fluxion's planner counts in them (a job allocated at `t` holds its resources
/// until `floor(t) + duration`).
fn secs(t: f64) -> i64 {
    if t.is_finite() {
        t.floor().clamp(i64::MIN as f64, i64::MAX as f64) as i64
    } else {
        0
    }
}

/// A job's time limit in whole seconds (none: [`NO_LIMIT`]).
fn limit(j: &FluxSnapshotJob) -> i64 {
    j.duration.map_or(NO_LIMIT, |d| secs(d.ceil()).max(1))
}

/// Forecasts `s`.
pub fn flux_forecast(s: &FluxSnapshot) -> Result<Forecast, ReplayError> {
    let mut warnings = Vec::new();
    let cores: u64 = s.nodes.iter().map(|n| n.cores).sum();
    let cpn = s.nodes.iter().map(|n| n.cores).max().unwrap_or(0);
    if s.nodes.iter().any(|n| n.cores != cpn) {
        warnings.push(format!(
            "the nodes are not all alike: each is taken as {cpn} cores in the plan"
        ));
    }
    if s.jobs.iter().any(|j| j.ngpus > 0) {
        warnings.push("GPUs are not modelled: jobs are placed by their cores".to_string());
    }
    if s.jobs
        .iter()
        .any(|j| j.is_pending() && j.duration.is_none())
    {
        warnings.push(format!(
            "jobs with no time limit are planned for {} days",
            NO_LIMIT / 86_400
        ));
    }
    let mut trace = Vec::new();
    let mut running = Vec::new();
    let mut back = Vec::new();
    for (k, j) in s.jobs.iter().enumerate() {
        if !j.is_running() {
            continue;
        }
        let begun = j.t_run.map_or(s.at, secs);
        // fluxion's allocation ends at its start (whole seconds) + the limit: `expiration`
        let end = j
            .expiration
            .map_or_else(|| begun.saturating_add(limit(j)), secs);
        running.push((trace.len(), begun));
        back.push(k);
        trace.push(trace_job(j, begun, end.saturating_sub(begun).max(0)));
    }
    let mut order: Vec<usize> = (0..s.jobs.len())
        .filter(|&k| s.jobs.get(k).is_some_and(considered))
        .collect();
    // qmanager's pending map: (4294967295 − priority, t_submit, …) ascending
    order.sort_by(|&a, &b| {
        let (x, y) = (&s.jobs[a], &s.jobs[b]);
        (y.effective_priority().cmp(&x.effective_priority()))
            .then(x.t_submit.total_cmp(&y.t_submit))
            .then(x.id.cmp(&y.id))
    });
    let mut pending = Vec::with_capacity(order.len());
    for &k in &order {
        let Some(j) = s.jobs.get(k) else { continue };
        pending.push(trace.len());
        back.push(k);
        trace.push(trace_job(j, s.at, limit(j)));
    }
    let trace = crate::replay::Trace {
        jobs: trace,
        ..Default::default()
    };
    let cluster = Cluster {
        nodes: s.nodes.len() as u64,
        cores_per_node: cpn,
        mem_per_node: 0,
    };
    let held_now: u64 = running
        .iter()
        .filter_map(|&(t, _)| trace.jobs.get(t).map(|j| j.cores))
        .sum();
    let state = StartState {
        at: s.at,
        running: &running,
        pending: &pending,
        reservations: &[],
        first: None,
    };
    let run = Run::new(&trace, &state, cluster, s.policy.backfill())?;
    let mut rows = Vec::with_capacity(s.jobs.len());
    for (rank, &t) in pending.iter().enumerate() {
        let (Some(tj), Some(j)) = (trace.jobs.get(t), back.get(t).and_then(|&k| s.jobs.get(k)))
        else {
            continue;
        };
        let mut row = row_of(j, tj, Some(rank + 1));
        row.priority = Some(j.effective_priority() as f64);
        match run.decided.get(&t) {
            // larger than the instance: fluxion rejects it
            None => row.reason = Some(UNSATISFIABLE.to_string()),
            Some(d) if d.runs_now => {
                row.runs_now = true;
                row.start = Some(s.at);
            }
            Some(d) => {
                row.top_job = d.estimate.is_some();
                row.reason = Some(if row.top_job {
                    RESERVED.to_string()
                } else {
                    d.why
                        .as_ref()
                        .map_or_else(|| INSUFFICIENT.to_string(), reason)
                });
                row.start = run.start_of(t, d);
            }
        }
        row.end = row.start.map(|x| x.saturating_add(tj.planned()));
        rows.push(row);
    }
    for j in s.jobs.iter().filter(|j| j.is_pending() && !considered(j)) {
        let tj = trace_job(j, s.at, limit(j));
        let mut row = row_of(j, &tj, None);
        row.reason = Some(not_considered(j));
        rows.push(row);
    }
    for &(t, begun) in &running {
        let (Some(tj), Some(j)) = (trace.jobs.get(t), back.get(t).and_then(|&k| s.jobs.get(k)))
        else {
            continue;
        };
        let mut row = row_of(j, tj, None);
        row.start = Some(begun);
        row.end = Some(begun.saturating_add(tj.planned()));
        rows.push(row);
    }
    Ok(Forecast {
        at: s.at,
        policy: s.policy.words(),
        cores,
        free_cores: cores.saturating_sub(held_now),
        running: running.len(),
        jobs: rows,
        warnings,
    })
}

/// Waiting in the scheduler's queue: `SCHED` with a priority above 0 (a held job, or one of
/// priority 0, is never sent to the scheduler).
fn considered(j: &FluxSnapshotJob) -> bool {
    j.state == "SCHED" && j.urgency > 0 && j.effective_priority() > 0
}

fn trace_job(j: &FluxSnapshotJob, submit: i64, planned: i64) -> TraceJob {
    TraceJob {
        id: j.jobid.clone(),
        submit,
        run: planned,
        walltime: Some(planned),
        cores: j.ncores.max(1),
        mem: 0,
        user: j.user.clone(),
        account: String::new(),
        queue: j.queue.clone().unwrap_or_default(),
        qos: String::new(),
    }
}

fn row_of(j: &FluxSnapshotJob, tj: &TraceJob, rank: Option<usize>) -> JobForecast {
    crate::forecast::run::row(tj, j.state.clone(), rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u64, state: &str, cores: u64, mins: f64, urgency: u32) -> FluxSnapshotJob {
        FluxSnapshotJob {
            id,
            jobid: crate::flux::jobs::f58_encode(id),
            user: "alice".into(),
            state: state.into(),
            urgency,
            priority: Some(u64::from(urgency)),
            t_submit: id as f64,
            t_run: None,
            expiration: None,
            duration: Some(mins * 60.0),
            ncores: cores,
            nnodes: None,
            ngpus: 0,
            queue: None,
            t_estimate: None,
            reason_pending: None,
            nodelist: None,
            exception: None,
            dependencies: Vec::new(),
        }
    }

    fn running(id: u64, cores: u64, mins: f64, t_run: f64) -> FluxSnapshotJob {
        let mut j = job(id, "RUN", cores, mins, 16);
        j.t_run = Some(t_run);
        j.expiration = Some(t_run + mins * 60.0);
        j
    }

    fn node(cores: u64) -> FluxNode {
        FluxNode {
            rank: 0,
            host: None,
            cores,
            gpus: 0,
        }
    }

    fn fc(jobs: &[FluxSnapshotJob], policy: FluxQueuePolicy) -> Forecast {
        flux_forecast(&FluxSnapshot {
            jobs,
            nodes: &[node(8)],
            policy,
            at: 1000,
        })
        .unwrap()
    }

    fn get(f: &Forecast, id: u64) -> &JobForecast {
        let id = crate::flux::jobs::f58_encode(id);
        f.jobs.iter().find(|j| j.id == id).unwrap()
    }

    /// easy: the head is reserved at the running job's end (whole seconds of `expiration`), a
    /// short job backfills; fcfs starts nothing past the blocked head.
    #[test]
    fn easy_reserves_the_head_and_fcfs_stops_at_it() {
        let jobs = vec![
            running(1, 4, 60.0, 990.5),
            running(2, 2, 120.0, 995.25),
            job(3, "SCHED", 8, 30.0, 16),
            job(4, "SCHED", 2, 30.0, 16),
            job(5, "SCHED", 2, 20.0, 16),
        ];
        let e = fc(&jobs, FluxQueuePolicy::Easy);
        assert!(get(&e, 3).top_job);
        assert_eq!(get(&e, 3).start, Some(995 + 7200));
        assert_eq!(get(&e, 3).reason.as_deref(), Some(RESERVED));
        assert!(get(&e, 4).runs_now);
        assert!(!get(&e, 5).runs_now);
        let f = fc(&jobs, FluxQueuePolicy::Fcfs);
        assert!(f.jobs.iter().all(|j| !j.runs_now && !j.top_job));
        assert_eq!(
            get(&f, 4).reason.as_deref(),
            Some("insufficient resources (fcfs: behind a job that cannot start)")
        );
    }

    /// The order is priority first, then submission; held jobs and too-large ones are flux's.
    #[test]
    fn urgency_orders_and_flux_words_for_the_rest() {
        let jobs = vec![
            running(1, 4, 30.0, 900.0),
            job(2, "SCHED", 4, 60.0, 16),
            job(3, "SCHED", 6, 60.0, 24),
            job(4, "SCHED", 4, 10.0, 8),
            job(5, "SCHED", 16, 10.0, 16),
            job(6, "SCHED", 1, 10.0, 0),
        ];
        let e = fc(&jobs, FluxQueuePolicy::Easy);
        assert_eq!(get(&e, 3).rank, Some(1));
        assert!(get(&e, 3).top_job);
        assert_eq!(get(&e, 3).start, Some(900 + 1800));
        assert!(!get(&e, 2).runs_now);
        assert!(get(&e, 4).runs_now);
        assert_eq!(get(&e, 5).reason.as_deref(), Some(UNSATISFIABLE));
        assert_eq!(get(&e, 6).reason.as_deref(), Some("held"));
        assert_eq!(get(&e, 6).rank, None);
        assert!("lifo".parse::<FluxQueuePolicy>().is_err());
    }
}
