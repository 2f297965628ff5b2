//! A Slurm site's forecast: the running jobs of `squeue --json` (holding their cpus and
//! memory until their `end_time`), the nodes of `sinfo --json`, and the pending jobs in the
//! backfill scheduler's order (partition `PriorityTier`, then priority), run forward under
//! Slurm's backfill plan (`replay::Backfill::SlurmPlan`: `bf_resolution`, `bf_window`,
//! `bf_max_job_test`, whole nodes taken out of the plan by a planned job).

use crate::forecast::result::{Forecast, JobForecast};
use crate::forecast::run::Run;
use crate::mem::hash::SeededMap;
use crate::replay::{Backfill, Cluster, ReplayError, StartState, TraceJob};
use crate::slurm::snapshot::{SchedulerConf, SlurmNodeState, SlurmSnapshotJob};

/// How long Slurm plans a job with no time limit: a year (`time_limit` 525600 minutes).
pub const NO_LIMIT: i64 = 365 * 86_400;

/// The node states in which Slurm starts no job.
const UNUSABLE: &[&str] = &[
    "down", "drain", "drained", "draining", "fail", "failing", "future",
];

/// A Slurm site at one moment.
#[derive(Debug, Clone, Copy)]
pub struct SlurmSnapshot<'a> {
    /// `squeue --json`.
    pub jobs: &'a [SlurmSnapshotJob],
    /// `sinfo --json` (or `scontrol show nodes --json`).
    pub nodes: &'a [SlurmNodeState],
    /// slurm.conf's backfill parameters and partitions.
    pub conf: &'a SchedulerConf,
    /// The moment of the snapshot.
    pub at: i64,
}

fn usable(n: &SlurmNodeState) -> bool {
    let down = |s: &str| UNUSABLE.iter().any(|u| s.eq_ignore_ascii_case(u));
    !down(&n.state) && !n.flags.iter().any(|f| down(f))
}

/// Whether slurmctld holds the job back (a user's or an admin's hold).
fn held(j: &SlurmSnapshotJob) -> bool {
    j.reason.starts_with("JobHeld") || j.priority <= 0.0
}

/// Forecasts `s`.
pub fn slurm_forecast(s: &SlurmSnapshot) -> Result<Forecast, ReplayError> {
    let nodes: Vec<&SlurmNodeState> = s.nodes.iter().filter(|n| usable(n)).collect();
    let cores: u64 = nodes.iter().map(|n| n.cpus).sum();
    let cpn = nodes.iter().map(|n| n.cpus).max().unwrap_or(0);
    let mem_kb: u64 = nodes.iter().map(|n| n.mem_mb.saturating_mul(1024)).sum();
    let mut warnings = Vec::new();
    if nodes.iter().any(|n| n.cpus != cpn) {
        warnings.push(format!(
            "the nodes are not all alike: each is taken as {cpn} cpus in the plan"
        ));
    }
    let mut tiers: SeededMap<&str, u32> = SeededMap::default();
    let mut max_time: SeededMap<&str, Option<u32>> = SeededMap::default();
    for p in &s.conf.partitions {
        tiers.insert(p.name.as_str(), p.tier);
        max_time.insert(p.name.as_str(), p.max_time_minutes);
    }
    let tier = |j: &SlurmSnapshotJob| {
        j.partition
            .split(',')
            .map(|p| tiers.get(p.trim()).copied().unwrap_or(1))
            .max()
            .unwrap_or(1)
    };
    let limit = |j: &SlurmSnapshotJob| {
        j.limit_secs.unwrap_or_else(|| {
            // no limit of its own: its partition's MaxTime, else a year
            (j.partition.split(',').next())
                .and_then(|p| max_time.get(p.trim()).copied().flatten())
                .map_or(NO_LIMIT, |m| i64::from(m) * 60)
        })
    };
    let mut trace = Vec::new();
    let mut running = Vec::new();
    let mut back = Vec::new();
    for (k, j) in s.jobs.iter().enumerate() {
        if !j.is_running() {
            continue;
        }
        let begun = j.start.unwrap_or(s.at);
        let planned = j.end.map_or(limit(j), |e| e.saturating_sub(begun).max(0));
        running.push((trace.len(), begun));
        back.push(k);
        trace.push(trace_job(j, begun, planned));
    }
    let mut order: Vec<usize> = (0..s.jobs.len())
        .filter(|&k| s.jobs.get(k).is_some_and(|j| j.is_pending() && !held(j)))
        .collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&s.jobs[a], &s.jobs[b]);
        (tier(y).cmp(&tier(x)))
            .then(y.priority.total_cmp(&x.priority))
            .then(x.submit.cmp(&y.submit))
            .then(id_number(&x.id).cmp(&id_number(&y.id)))
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
    let bf = &s.conf.backfill;
    let plan = Backfill::SlurmPlan {
        resolution: bf.resolution,
        window: bf.window_minutes.saturating_mul(60),
        max_test: u32::try_from(bf.max_job_test.max(0)).unwrap_or(u32::MAX),
    };
    let cluster = Cluster {
        nodes: nodes.len() as u64,
        cores_per_node: cpn,
        mem_per_node: mem_kb / (nodes.len() as u64).max(1),
    };
    // Slurm's plan decides this cycle; the passes after it run EASY (a plan of
    // bf_max_job_test jobs at every planned end would cost that much at each).
    let backfill = Backfill::Easy;
    let held_now: u64 = running
        .iter()
        .filter_map(|&(t, _)| trace.jobs.get(t).map(|j| j.cores))
        .sum();
    let state = StartState {
        at: s.at,
        running: &running,
        pending: &pending,
        reservations: &[],
        first: Some(plan),
    };
    let run = Run::new(&trace, &state, cluster, backfill)?;
    let decided = &run.decided;
    let mut rows = Vec::with_capacity(s.jobs.len());
    // Slurm's reasons: the first job of a partition that cannot start waits on `Resources`,
    // every later one of that partition on `Priority`.
    let mut blocked: SeededMap<&str, ()> = SeededMap::default();
    for (rank, &t) in pending.iter().enumerate() {
        let (Some(tj), Some(j)) = (trace.jobs.get(t), back.get(t).and_then(|&k| s.jobs.get(k)))
        else {
            continue;
        };
        let mut row = row_of(j, tj, Some(rank + 1));
        row.priority = Some(j.priority);
        match decided.get(&t) {
            None => row.reason = Some("PartitionConfig".to_string()),
            Some(d) if d.runs_now => {
                row.runs_now = true;
                row.start = Some(s.at);
            }
            Some(d) => {
                let parts: Vec<&str> = j.partition.split(',').map(str::trim).collect();
                let first = parts.iter().any(|p| !blocked.contains_key(p));
                for p in parts {
                    blocked.insert(p, ());
                }
                row.reason = Some(if first { "Resources" } else { "Priority" }.to_string());
                row.top_job = d.estimate.is_some();
                row.start = run.start_of(t, d);
            }
        }
        row.end = row.start.map(|x| x.saturating_add(tj.planned()));
        rows.push(row);
    }
    for j in s.jobs.iter().filter(|j| j.is_pending() && held(j)) {
        let tj = trace_job(j, s.at, limit(j));
        let mut row = row_of(j, &tj, None);
        row.reason = Some(j.reason.clone());
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
    let b = &s.conf.backfill;
    Ok(Forecast {
        at: s.at,
        policy: format!(
            "sched/backfill: bf_resolution {} s, bf_window {} min, bf_max_job_test {}",
            b.resolution, b.window_minutes, b.max_job_test
        ),
        cores,
        free_cores: cores.saturating_sub(held_now),
        running: running.len(),
        jobs: rows,
        warnings,
    })
}

/// The number of a job id (`123`, `123_4`) for ties.
fn id_number(id: &str) -> u64 {
    id.split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX)
}

fn trace_job(j: &SlurmSnapshotJob, submit: i64, planned: i64) -> TraceJob {
    TraceJob {
        id: j.id.clone(),
        submit,
        run: planned,
        walltime: Some(planned),
        cores: j.cpus.max(1),
        mem: j.mem_mb.saturating_mul(1024),
        user: j.user.clone(),
        account: j.account.clone(),
        queue: j.partition.clone(),
        qos: String::new(),
    }
}

fn row_of(j: &SlurmSnapshotJob, tj: &TraceJob, rank: Option<usize>) -> JobForecast {
    crate::forecast::run::row(tj, j.state.clone(), rank)
}
