//! The event-driven scheduler (docs/replay.md states the rules this file follows). Events are
//! submissions (the trace sorted by submit time, then trace order) and finishes (a `BinaryHeap`
//! by end time). At time t: every finish at t frees its cores and charges its entity, every
//! submission at t joins the queue, then one scheduling pass orders the pending jobs by the
//! formula and starts them in order while they fit, with EASY backfill behind the first job that
//! does not fit. Jobs that start with run time 0 end at t, which makes another event at t.

use super::shares::ShareModel;
use super::trace::{Trace, TraceJob};
use crate::fairshare::keyword_source;
use crate::formula::Program;
use crate::pbs::Keyword;
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};

/// The cluster: nodes × cores per node; jobs need whole cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cluster {
    /// Nodes.
    pub nodes: u64,
    /// Cores per node.
    pub cores_per_node: u64,
}

impl Cluster {
    /// Cores in all.
    pub fn cores(&self) -> u64 {
        self.nodes.saturating_mul(self.cores_per_node)
    }
}

/// Backfill policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backfill {
    /// Strict order: the pass stops at the first job that does not fit.
    None,
    /// EASY: one reservation for the first job that does not fit; later jobs may start if they
    /// do not delay it.
    #[default]
    Easy,
}

impl std::str::FromStr for Backfill {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Backfill::None),
            "easy" => Ok(Backfill::Easy),
            _ => Err(format!("unknown backfill `{s}` (expected easy or none)")),
        }
    }
}

/// Replay settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The cluster.
    pub cluster: Cluster,
    /// Backfill policy.
    pub backfill: Backfill,
    /// Usage half-life in seconds.
    pub half_life: f64,
}

/// Where one job ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// Start time (trace seconds).
    pub start: i64,
    /// End time: start + run time, cut at the requested walltime.
    pub end: i64,
}

/// What a replay produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Per trace job: where it ran (`None`: skipped, larger than the cluster).
    pub placements: Vec<Option<Placement>>,
    /// Trace indexes of the jobs larger than the cluster.
    pub too_large: Vec<usize>,
    /// Scheduling passes run.
    pub passes: u64,
    /// Fair-share recomputations.
    pub share_updates: u64,
    /// Jobs whose formula raised (valued 0, as PBS does), counted once per evaluation.
    pub formula_errors: u64,
    /// Jobs started by backfill (behind a reservation).
    pub backfilled: u64,
}

/// A replay that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The cluster has no cores.
    #[error("the cluster has no cores (--nodes and --cores-per-node must be at least 1)")]
    EmptyCluster,
    /// The half-life is not a positive number of seconds.
    #[error("{0}")]
    HalfLife(String),
    /// The share tree built from the trace's entities, or an algorithm over it, failed.
    #[error("fair share: {0}")]
    Shares(String),
}

/// Where one formula slot's value comes from during the replay.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Eligible,
    Ncpus,
    Walltime,
    Nodect,
    AccrueType,
    Share(usize),
    Zero,
}

/// Runs `program` over `trace`.
pub fn replay(trace: &Trace, program: &Program, opts: &Options) -> Result<Outcome, ReplayError> {
    let total = opts.cluster.cores();
    if total == 0 {
        return Err(ReplayError::EmptyCluster);
    }
    let mut share_keywords = Vec::new();
    let slots: Vec<Slot> = program
        .keywords()
        .iter()
        .map(|k| match k.parse::<Keyword>() {
            Ok(Keyword::EligibleTime) => Slot::Eligible,
            Ok(Keyword::AccrueType) => Slot::AccrueType,
            Ok(Keyword::QueuePriority | Keyword::JobPriority) => Slot::Zero,
            _ if keyword_source(k).is_some() => {
                share_keywords.push(k.clone());
                Slot::Share(share_keywords.len() - 1)
            }
            _ => match k.as_str() {
                "ncpus" => Slot::Ncpus,
                "walltime" => Slot::Walltime,
                "nodect" => Slot::Nodect,
                _ => Slot::Zero,
            },
        })
        .collect();
    let mut shares = ShareModel::new(trace, &share_keywords, opts.half_life)?;
    let mut sim = Sim {
        jobs: &trace.jobs,
        program,
        cpn: opts.cluster.cores_per_node.max(1),
        backfill: opts.backfill,
        free: total,
        running: BinaryHeap::new(),
        planned: BTreeMap::new(),
        pending: Vec::new(),
        out: Outcome {
            placements: vec![None; trace.jobs.len()],
            too_large: Vec::new(),
            passes: 0,
            share_updates: 0,
            formula_errors: 0,
            backfilled: 0,
        },
        slots,
        rows: Vec::new(),
        prio: Vec::new(),
    };
    let mut subs: Vec<usize> = Vec::with_capacity(trace.jobs.len());
    for (i, j) in trace.jobs.iter().enumerate() {
        if j.cores > total {
            sim.out.too_large.push(i);
        } else {
            subs.push(i);
        }
    }
    subs.sort_by_key(|&i| (trace.jobs.get(i).map_or(0, |j| j.submit), i));
    let mut next = 0;
    loop {
        let t_sub = subs
            .get(next)
            .and_then(|&i| trace.jobs.get(i))
            .map(|j| j.submit);
        let t_fin = sim.running.peek().map(|Reverse((e, _))| *e);
        let t = match (t_sub, t_fin) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => break,
        };
        while let Some(&Reverse((e, j))) = sim.running.peek() {
            if e != t {
                break;
            }
            sim.running.pop();
            sim.finish(j, &mut shares);
        }
        while let Some(&i) = subs.get(next) {
            if trace.jobs.get(i).map(|j| j.submit) != Some(t) {
                break;
            }
            sim.pending.push(i);
            next += 1;
        }
        sim.pass(t, &mut shares)?;
    }
    sim.out.share_updates = shares.updates;
    Ok(sim.out)
}

struct Sim<'a> {
    jobs: &'a [TraceJob],
    program: &'a Program,
    cpn: u64,
    backfill: Backfill,
    free: u64,
    /// Running jobs by real end time.
    running: BinaryHeap<Reverse<(i64, usize)>>,
    /// Running jobs by planned end (start + requested walltime) → cores.
    planned: BTreeMap<(i64, usize), u64>,
    pending: Vec<usize>,
    out: Outcome,
    slots: Vec<Slot>,
    rows: Vec<f64>,
    prio: Vec<f64>,
}

impl Sim<'_> {
    fn job(&self, j: usize) -> Option<&TraceJob> {
        self.jobs.get(j)
    }

    fn finish(&mut self, j: usize, shares: &mut ShareModel) {
        let (Some(job), Some(Some(p))) = (self.jobs.get(j), self.out.placements.get(j).copied())
        else {
            return;
        };
        self.free += job.cores;
        self.planned
            .remove(&(p.start.saturating_add(job.planned()), j));
        shares.charge(
            j,
            job.cores as f64 * p.end.saturating_sub(p.start) as f64,
            p.end,
        );
    }

    fn start(&mut self, j: usize, t: i64) {
        let Some(job) = self.jobs.get(j) else {
            return;
        };
        let end = t.saturating_add(job.holds().max(0));
        self.free -= job.cores;
        self.running.push(Reverse((end, j)));
        self.planned
            .insert((t.saturating_add(job.planned()), j), job.cores);
        if let Some(p) = self.out.placements.get_mut(j) {
            *p = Some(Placement { start: t, end });
        }
    }

    /// The reservation for a job of `need` cores: the earliest planned end by which enough
    /// cores are free (every job planned to end by then counted), and the cores left over then.
    fn reservation(&self, need: u64) -> (i64, u64) {
        let mut avail = self.free;
        let mut shadow = None;
        for (&(e, _), &c) in &self.planned {
            match shadow {
                Some(s) if e > s => break,
                _ => {}
            }
            avail += c;
            if shadow.is_none() && avail >= need {
                shadow = Some(e);
            }
        }
        (shadow.unwrap_or(i64::MAX), avail.saturating_sub(need))
    }

    fn pass(&mut self, t: i64, shares: &mut ShareModel) -> Result<(), ReplayError> {
        // Every job needs at least one core: with none free the pass can start nothing, and the
        // order it would compute is not kept, so it is skipped (same schedule, less work).
        if self.pending.is_empty() || self.free == 0 {
            return Ok(());
        }
        self.out.passes += 1;
        shares.refresh(t)?;
        let w = self.slots.len();
        let n = self.pending.len();
        self.rows.clear();
        self.rows.resize(n * w, 0.0);
        for (k, &j) in self.pending.iter().enumerate() {
            let Some(job) = self.jobs.get(j) else {
                continue;
            };
            let Some(row) = self.rows.get_mut(k * w..(k + 1) * w) else {
                continue;
            };
            for (v, s) in row.iter_mut().zip(&self.slots) {
                *v = match *s {
                    Slot::Eligible => t.saturating_sub(job.submit) as f64,
                    Slot::Ncpus => job.cores as f64,
                    Slot::Walltime => job.planned() as f64,
                    Slot::Nodect => job.cores.div_ceil(self.cpn) as f64,
                    Slot::AccrueType => 2.0,
                    Slot::Share(s) => shares.value(s, j),
                    Slot::Zero => 0.0,
                };
            }
        }
        self.prio.clear();
        self.prio.resize(n, 0.0);
        // `Program::eval_rows` on the whole pending queue at once (its fast path per row).
        let errors = self.program.eval_rows(&self.rows, &mut self.prio);
        self.out.formula_errors += errors.len() as u64;
        let mut order: Vec<usize> = (0..n).collect();
        let jobs = self.jobs;
        let pending = &self.pending;
        let prio = &self.prio;
        order.sort_by(|&a, &b| {
            let pa = prio.get(a).copied().unwrap_or(0.0);
            let pb = prio.get(b).copied().unwrap_or(0.0);
            let ja = pending.get(a).copied().unwrap_or(0);
            let jb = pending.get(b).copied().unwrap_or(0);
            let sa = jobs.get(ja).map_or(0, |j| j.submit);
            let sb = jobs.get(jb).map_or(0, |j| j.submit);
            pb.total_cmp(&pa)
                .then(sa.cmp(&sb))
                .then(ja.cmp(&jb))
                .then(Ordering::Equal)
        });
        let mut started = vec![false; n];
        let mut reservation: Option<(i64, u64)> = None;
        for k in order {
            let Some(&j) = self.pending.get(k) else {
                continue;
            };
            let Some(job) = self.job(j) else { continue };
            let (c, planned) = (job.cores, job.planned());
            match &mut reservation {
                None => {
                    if c <= self.free {
                        self.start(j, t);
                    } else if self.backfill == Backfill::None {
                        break;
                    } else {
                        reservation = Some(self.reservation(c));
                        continue;
                    }
                }
                Some((shadow, extra)) => {
                    if c > self.free {
                        continue;
                    }
                    if t.saturating_add(planned) <= *shadow {
                        // Ends (by its walltime) before the reserved job starts.
                    } else if c <= *extra {
                        *extra -= c;
                    } else {
                        continue;
                    }
                    self.start(j, t);
                    self.out.backfilled += 1;
                }
            }
            if let Some(s) = started.get_mut(k) {
                *s = true;
            }
            if self.free == 0 && reservation.is_none() && self.backfill == Backfill::None {
                break;
            }
        }
        let mut k = 0;
        self.pending.retain(|_| {
            let keep = !started.get(k).copied().unwrap_or(false);
            k += 1;
            keep
        });
        Ok(())
    }
}
