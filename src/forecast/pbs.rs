//! A PBS site's forecast: the qstat snapshot's running jobs (from `stime`, holding their
//! `Resource_List` until `stime` + walltime), the usable vnodes of `pbsnodes`, the confirmed
//! reservations of `pbs_rstat`, and the pending jobs in the order of pbs_sched's cycle, run
//! forward under `strict_ordering` and `backfill_depth` as pbs_sched applies them.

use crate::forecast::result::{Forecast, JobForecast};
use crate::forecast::run::Run;
use crate::forecast::words::{pbs_comment, pbs_never};
use crate::jobs::{JobSet, JobState, ResourceValue};
use crate::mem::hash::SeededMap;
use crate::pbs::cycle::CycleOrder;
use crate::pbs::snapshot::{Reservation, Vnode};
use crate::replay::calendar::Res;
use crate::replay::{Backfill, Cluster, ReplayError, StartState, TraceJob};

/// How long pbs_sched plans a job that has no walltime: five years (`FIVE_YRS`).
pub const NO_WALLTIME: i64 = 5 * 365 * 86_400;

/// The rules of pbs_sched's reservations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PbsPolicy {
    /// `strict_ordering` of `sched_config` in the cycle's period.
    pub strict_ordering: bool,
    /// The server's `backfill_depth` (unset: 1).
    pub backfill_depth: u32,
}

impl PbsPolicy {
    /// The simulator's rule: no order without `strict_ordering`; with it, the first job that
    /// cannot start stops the others (`backfill_depth` 0) or the first `backfill_depth` such
    /// jobs are top jobs.
    pub fn backfill(self) -> Backfill {
        match (self.strict_ordering, self.backfill_depth) {
            (false, _) => Backfill::Greedy,
            (true, 0) => Backfill::None,
            (true, 1) => Backfill::Easy,
            (true, n) => Backfill::Depth(n),
        }
    }

    /// The rules in words, for reports.
    pub fn words(self) -> String {
        if self.strict_ordering {
            format!("strict_ordering, backfill_depth {}", self.backfill_depth)
        } else {
            "no strict_ordering: every job that fits starts, no top jobs".to_string()
        }
    }
}

/// A PBS site at one moment.
#[derive(Debug, Clone, Copy)]
pub struct PbsSnapshot<'a> {
    /// The jobs of `qstat -f -F json` (running ones with `stime`).
    pub jobs: &'a JobSet,
    /// The order pbs_sched's cycle considers the queued jobs in (`scenario::cycle`).
    pub order: &'a CycleOrder,
    /// `pbsnodes -av -F json`.
    pub vnodes: &'a [Vnode],
    /// `pbs_rstat -f`.
    pub reservations: &'a [Reservation],
    /// The moment of the snapshot (the cycle's start).
    pub at: i64,
    /// The reservation rules.
    pub policy: PbsPolicy,
}

/// What the forecast needs of one job.
#[derive(Debug, Clone, PartialEq)]
struct Shape {
    cores: u64,
    /// KB.
    mem: u64,
    /// Seconds.
    walltime: i64,
    /// `place` asks for whole vnodes (`excl`, `exclhost`).
    excl: bool,
    /// `select` and `place` as written: with the needs, pbs_sched's equivalence class.
    select: String,
    place: String,
}

fn shape(jobs: &JobSet, j: &crate::jobs::Job) -> Shape {
    let value = |name: &str| jobs.resource(j, jobs.resources.get(name)?);
    let num = |name: &str| match value(name)? {
        ResourceValue::Number(n) if n.is_finite() && n >= 0.0 => Some(n),
        _ => None,
    };
    let text = |name: &str| match value(name) {
        Some(v @ ResourceValue::Text(_)) => jobs.text(v).to_string(),
        _ => String::new(),
    };
    let place = text("place");
    Shape {
        cores: num("ncpus").map_or(1, |n| n.ceil() as u64),
        mem: num("mem").map_or(0, |n| n.ceil() as u64),
        walltime: num("walltime").map_or(NO_WALLTIME, |n| n.min(i64::MAX as f64) as i64),
        excl: place.split(':').any(|p| p == "excl" || p == "exclhost"),
        select: text("select"),
        place,
    }
}

/// pbs_sched's comment for an array job some of whose subjobs start now.
fn array_began(at: i64) -> String {
    let when = jiff::Timestamp::from_second(at)
        .map(|t| t.strftime("%a %b %d at %H:%M").to_string())
        .unwrap_or_default();
    format!("Job Array Began at {when}")
}

/// Forecasts `s`.
pub fn pbs_forecast(s: &PbsSnapshot) -> Result<Forecast, ReplayError> {
    let jobs = s.jobs;
    let mut warnings = Vec::new();
    let usable: Vec<&Vnode> = s.vnodes.iter().filter(|v| v.usable()).collect();
    // An exclusive job holds a whole vnode: the largest one's cores.
    let node_cores = usable.iter().map(|v| v.ncpus).max().unwrap_or(0);
    let mut remaining: SeededMap<&str, u64> = SeededMap::default();
    for (id, n) in &jobs.arrays {
        remaining.insert(id.as_str(), *n);
    }
    let cores: u64 = usable.iter().map(|v| v.ncpus).sum();
    let mem: u64 = usable.iter().map(|v| v.mem_kb).sum();
    if usable.len() > 1 {
        warnings.push(format!(
            "the {} usable vnodes are counted as one pool of {cores} cores: a chunk larger than \
             any one vnode's free part is not told apart",
            usable.len()
        ));
    }
    let mut starts: SeededMap<&str, i64> = SeededMap::default();
    for (id, t) in &jobs.starts {
        starts.insert(id.as_str(), *t);
    }
    let mut trace = Vec::new();
    let mut running = Vec::new();
    let mut back = Vec::new(); // trace index → job index
    let mut no_stime = 0;
    for (k, j) in jobs.jobs.iter().enumerate() {
        if j.state != JobState::Running {
            continue;
        }
        let sh = shape(jobs, j);
        let begun = match starts.get(j.id.as_str()) {
            Some(&t) => t,
            None => {
                no_stime += 1;
                s.at
            }
        };
        running.push((trace.len(), begun));
        back.push(k);
        trace.push(trace_job(jobs, j, begun, &sh, node_cores));
    }
    if no_stime > 0 {
        warnings.push(format!(
            "{no_stime} running jobs have no stime: taken as started now"
        ));
    }
    // Each considered job, with its subjobs still queued when it is an array (pbs_sched
    // considers them one after another): the trace indexes of each.
    let mut pending = Vec::with_capacity(s.order.considered.len());
    let mut parts: Vec<(usize, std::ops::Range<usize>, Shape, Option<f64>)> = Vec::new();
    for c in &s.order.considered {
        let Some(j) = jobs.jobs.get(c.job as usize) else {
            continue;
        };
        let sh = shape(jobs, j);
        let n = remaining.get(j.id.as_str()).copied().unwrap_or(1).max(1);
        let first = pending.len();
        for _ in 0..n {
            pending.push(trace.len());
            back.push(c.job as usize);
            trace.push(trace_job(jobs, j, s.at, &sh, node_cores));
        }
        parts.push((c.job as usize, first..pending.len(), sh, c.value));
    }
    let reservations: Vec<(i64, i64, Res)> = (s.reservations.iter())
        .filter(|r| r.holds() && r.end > s.at)
        .map(|r| {
            (
                r.start,
                r.end,
                Res {
                    cores: r.ncpus,
                    mem: r.mem_kb,
                },
            )
        })
        .collect();
    let held_now: u64 = running
        .iter()
        .filter_map(|&(t, _)| trace.get(t).map(|j: &TraceJob| j.cores))
        .sum();
    let assigned: u64 = usable.iter().map(|v| v.assigned_ncpus).sum();
    let in_resv: u64 = (reservations.iter())
        .filter(|r| r.0 <= s.at)
        .map(|r| r.2.cores)
        .sum();
    if assigned != held_now && assigned != held_now + in_resv {
        warnings.push(format!(
            "pbsnodes shows {assigned} cores assigned, the running jobs of qstat hold {held_now}: \
             the forecast counts the jobs"
        ));
    }
    let trace = crate::replay::Trace {
        jobs: trace,
        ..Default::default()
    };
    let cluster = Cluster {
        nodes: 1,
        cores_per_node: cores,
        mem_per_node: mem,
    };
    let backfill = s.policy.backfill();
    let state = StartState {
        at: s.at,
        running: &running,
        pending: &pending,
        reservations: &reservations,
        first: None,
    };
    let run = Run::new(&trace, &state, cluster, backfill)?;
    let decided = &run.decided;
    let mut rows = Vec::with_capacity(jobs.len());
    // pbs_sched gives a job of an equivalence class that already failed this cycle the same
    // error, unchanged (`check.cpp`: the class's `err`).
    let mut class_why: SeededMap<(String, String, u64, u64, i64), crate::replay::Why> =
        SeededMap::default();
    for (rank, (k, range, sh, value)) in parts.iter().enumerate() {
        let subs = pending.get(range.clone()).unwrap_or(&[]);
        let (Some(&t0), Some(tj)) = (subs.first(), subs.first().and_then(|&t| trace.jobs.get(t)))
        else {
            continue;
        };
        let mut row = row_of(jobs, *k, tj, Some(rank + 1));
        row.priority = *value;
        let class = (
            sh.select.clone(),
            sh.place.clone(),
            sh.cores,
            sh.mem,
            sh.walltime,
        );
        let mut started = 0;
        let mut first_wait = None;
        for &t in subs {
            match decided.get(&t) {
                Some(d) if d.runs_now => started += 1,
                Some(d) if first_wait.is_none() => first_wait = Some((t, *d)),
                _ => {}
            }
        }
        match (decided.get(&t0), first_wait) {
            (None, _) => {
                // larger than the complex: pbs_sched's "Can Never Run"
                row.reason = Some(if tj.cores > cores {
                    pbs_never("ncpus", tj.cores, cores)
                } else {
                    pbs_never("mem", tj.mem, mem)
                });
            }
            (Some(_), None) => {
                row.runs_now = true;
                row.start = Some(s.at);
            }
            (Some(_), Some((t, d))) => {
                let why = d.why.map(|w| *class_why.entry(class).or_insert(w));
                row.top_job = d.estimate.is_some();
                row.reason = if started > 0 {
                    Some(array_began(s.at))
                } else {
                    why.as_ref().map(|w| comment(w, sh.excl))
                };
                row.start = run.start_of(t, &d);
            }
        }
        row.end = row.start.map(|x| x.saturating_add(tj.planned()));
        rows.push(row);
    }
    for n in &s.order.not_considered {
        let Some(j) = jobs.jobs.get(n.job as usize) else {
            continue;
        };
        if j.state == JobState::Running {
            continue;
        }
        let tj = trace_job(jobs, j, s.at, &shape(jobs, j), node_cores);
        let mut row = row_of(jobs, n.job as usize, &tj, None);
        row.reason = Some(crate::scenario::cycle::skipped_text(&n.reason));
        rows.push(row);
    }
    for &(t, begun) in &running {
        let (Some(tj), Some(&k)) = (trace.jobs.get(t), back.get(t)) else {
            continue;
        };
        let mut row = row_of(jobs, k, tj, None);
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

/// PBS's comment for `why`; an exclusive job short of cores finds no vnode free of jobs.
fn comment(why: &crate::replay::Why, excl: bool) -> String {
    match why {
        crate::replay::Why::Insufficient { .. } if excl => {
            "Not Running: No available resources on nodes".to_string()
        }
        w => pbs_comment(w),
    }
}

fn trace_job(
    jobs: &JobSet,
    j: &crate::jobs::Job,
    submit: i64,
    sh: &Shape,
    node_cores: u64,
) -> TraceJob {
    TraceJob {
        id: j.id.to_string(),
        submit,
        // Every job runs to its walltime: what the scheduler plans with.
        run: sh.walltime,
        walltime: Some(sh.walltime),
        cores: if sh.excl {
            sh.cores.max(node_cores)
        } else {
            sh.cores
        },
        mem: sh.mem,
        user: jobs.user(j).to_string(),
        account: jobs.names.name(j.egroup).to_string(),
        queue: jobs.queue(j).to_string(),
        qos: String::new(),
    }
}

fn row_of(jobs: &JobSet, k: usize, tj: &TraceJob, rank: Option<usize>) -> JobForecast {
    let state = jobs.jobs.get(k).map_or('?', |j| j.state.letter());
    crate::forecast::run::row(tj, state.to_string(), rank)
}
