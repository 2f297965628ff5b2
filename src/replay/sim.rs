//! The event-driven scheduler (docs/replay.md states the rules this file follows). Events are
//! submissions (the trace sorted by submit time, then trace order) and finishes (a `BinaryHeap`
//! by end time). At time t: every finish at t frees its cores and charges its entity, every
//! submission at t joins the queue, then one scheduling pass orders the pending jobs by the
//! formula and starts them in order while they fit, with EASY backfill behind the first job that
//! does not fit. Jobs that start with run time 0 end at t, which makes another event at t.
//!
//! Work per pass (docs/replay.md, "What a pass evaluates"): a formula with `eligible_time`
//! is evaluated for every pending job at every pass (its values move with t) and the queue
//! re-sorted if out of order; Slurm's priority is computed again for a job only at the first
//! second its age can raise it or when its fair share changed; a formula whose only changing
//! inputs are fair-share values keeps the queue in classes (`classes.rs`: association × fixed
//! inputs), each evaluated once when it gets jobs or its association's values changed, walked
//! merged by order, with EASY's scan finding each class's next startable job in a min-tree; any other formula
//! evaluates each job once, when it joins the queue, and new jobs are merged into the order.
//! The walk stops as soon as no core is free. Under Slurm's priority a pass where every queued
//! job fits starts them all without computing the order.

use crate::fairshare::keyword_source;
use crate::formula::{Program, ResourceTable};
use crate::mem::hash::SeededMap;
use crate::pbs::defs::Keyword;
use crate::replay::calendar::{Calendar, Res};
use crate::replay::classes::{Class, Member, MinTree, GONE};
pub use crate::replay::cluster::Cluster;
pub use crate::replay::error::ReplayError;
use crate::replay::flux::FluxPolicy;
use crate::replay::planned::Planned;
use crate::replay::shares::ShareModel;
use crate::replay::slurm::{Fixed, FixedCache, SlurmPolicy};
use crate::replay::trace::{Trace, TraceJob};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Backfill policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backfill {
    /// Strict order: the pass stops at the first job that does not fit.
    None,
    /// EASY: one reservation for the first job that does not fit; later jobs may start if they
    /// do not delay it.
    #[default]
    Easy,
    /// Strict order with this many top jobs (PBS's `strict_ordering` with `backfill_depth`):
    /// the first jobs that cannot start are each given the earliest start that delays no
    /// earlier one, and later jobs may start if they delay none (`calendar.rs`). `Depth(1)` is
    /// EASY.
    Depth(u32),
    /// No order kept: every job that fits starts (PBS without `strict_ordering`).
    Greedy,
    /// Slurm's backfill plan (`sched/backfill`): every job that cannot start now is planned at
    /// its earliest start, up to `max_test` jobs and within `window` seconds; a planned job
    /// takes its whole nodes out of the plan until its end rounded down to `resolution`
    /// seconds (the plan is a node bitmap per time slot), and a job starts now only if it
    /// overlaps no planned job.
    SlurmPlan {
        /// `bf_resolution`, seconds.
        resolution: i64,
        /// `bf_window`, seconds.
        window: i64,
        /// `bf_max_job_test`.
        max_test: u32,
    },
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
    /// The site's share tree (the home's or `--tree`); `None`: accounts → users, 1 share each.
    pub tree: Option<crate::fairshare::TreeSpec>,
    /// How usage decays (continuous with `half_life`, or a scheduler's stepwise model).
    pub decay: crate::replay::decay::Decay,
}

/// Where one job ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// Start time (trace seconds).
    pub start: i64,
    /// End time: start + run time, cut at the requested walltime.
    pub end: i64,
}

/// Why a job did not start in a pass (the scheduler's reasons, in neutral terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Not enough of a resource free now: which one (`ncpus` or `mem`), the job's need, what
    /// is free, and the cluster's total.
    Insufficient {
        /// `ncpus` or `mem`.
        resource: &'static str,
        /// The job's need (cores, or KB).
        need: u64,
        /// What is free now.
        free: u64,
        /// The cluster's total.
        total: u64,
    },
    /// Every core is in use: no node has room for any job.
    NoFreeNodes,
    /// It fits now but would delay a top job or an advance reservation.
    Conflict,
    /// An earlier job could not start, and the order is strict with no top jobs.
    StrictOrder,
    /// Slurm's backfill did not reach it (`bf_max_job_test` jobs were tested before it).
    NotTested,
}

/// What the first pass of a forecast decided for one pending job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// It starts in this pass.
    pub runs_now: bool,
    /// It is a top job: the start it was given in the calendar.
    pub estimate: Option<i64>,
    /// Why it did not start (`None` when it did).
    pub why: Option<Why>,
}

/// Where a forecast starts (`forecast_from`): the moment, the running jobs with their start
/// times (each holds its cores until start + its walltime), the pending jobs in the
/// scheduler's order (all joining at `at`), and the advance reservations.
#[derive(Debug, Clone, Copy)]
pub struct StartState<'a> {
    /// The moment of the snapshot.
    pub at: i64,
    /// The running jobs: (trace index, start).
    pub running: &'a [(usize, i64)],
    /// The pending jobs' trace indexes, in the order the scheduler considers them.
    pub pending: &'a [usize],
    /// Advance reservations: (start, end, what they hold).
    pub reservations: &'a [(i64, i64, Res)],
    /// The rule of the first pass when it is not `Options::backfill` (Slurm's: its backfill
    /// plan now, the simulator's EASY passes after, so a long forecast stays fast).
    pub first: Option<Backfill>,
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
    /// Formula evaluations that raised (the job valued 0, as PBS does). A job is evaluated
    /// again only when an input of the formula changed (see the module's doc).
    pub formula_errors: u64,
    /// The first evaluation that raised: the job's trace index and the error's message.
    pub first_formula_error: Option<(usize, String)>,
    /// Jobs started by backfill (behind a reservation).
    pub backfilled: u64,
    /// Queue entries the passes touched (walked over, evaluated, compared in a sort or a
    /// merge, copied in a compaction or a tree rebuild, or searched for in the tree, counted
    /// as log2 of its size): the replay's work, which stays within a small multiple of
    /// n·log2 n for n jobs on any trace of a formula that is not re-evaluated at every pass.
    pub visits: u64,
    /// Per association (`Entities` order): its part of the site tree's shares (empty without
    /// a site tree: accounts equal, users equal within their account).
    pub shares: Vec<f64>,
}

/// Where one formula slot's value comes from during the replay.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Eligible,
    Ncpus,
    Walltime,
    Nodect,
    Mem,
    AccrueType,
    Share(usize),
    /// Slurm's multifactor priority (`replay_slurm`).
    Slurm,
    Zero,
}

/// When a pending job's formula value must be computed again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reeval {
    /// At every pass (`eligible_time` moves with t).
    EveryPass,
    /// When its association's fair-share values changed.
    OnShareChange,
    /// Never: its inputs are fixed when it joins the queue.
    Never,
}

/// Progress of a replay: events done out of the total (submissions and finishes).
pub trait Progress {
    /// Called now and then (every few thousand events) and once at the end.
    fn update(&mut self, done: u64, total: u64);
}

/// No progress reporting.
impl Progress for () {
    fn update(&mut self, _: u64, _: u64) {}
}

/// From this many queued entries on, EASY's backfill scan runs on a min-tree: a pass where
/// nothing behind the reservation can start then costs a tree search, not a walk of the queue
/// (the tree is rebuilt only when the queue was reordered, which cost as much already).
const TREE_MIN_QUEUE: usize = 64;

/// How many events between two progress reports.
const PROGRESS_EVERY: u64 = 1 << 14;

/// A pending job in the pass order: higher formula value first (`key` is the value's total
/// order, reversed), then earlier submit, then earlier trace position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    /// The job's place in the scheduler's walk before its value (PBS's preemption level and
    /// queue, `pbs::cycle::walk_tiers`; 0 for every job otherwise): lower first.
    tier: u64,
    key: u64,
    submit: i64,
    job: usize,
    /// The job's cores, memory and planned walltime, kept here so a pass's scan for jobs
    /// that fit reads the queue only (the job is unique: these never decide the order).
    cores: u64,
    mem: u64,
    planned: i64,
    /// Under Slurm's priority: the first time its value may change with the same fair share
    /// (`SlurmPolicy::next_change`); until then a pass need not compute it again.
    next: i64,
}

/// `f64::total_cmp`'s order as a u64, reversed (a larger value gives a smaller key).
fn desc_key(v: f64) -> u64 {
    let b = v.to_bits() as i64;
    let ordered = b ^ ((((b >> 63) as u64) >> 1) as i64);
    !((ordered as u64) ^ (1 << 63))
}

/// Runs `program` over `trace`.
pub fn replay(trace: &Trace, program: &Program, opts: &Options) -> Result<Outcome, ReplayError> {
    replay_with(trace, program, opts, &mut ())
}

/// Runs `program` over `trace`, reporting progress to `progress`.
pub fn replay_with(
    trace: &Trace,
    program: &Program,
    opts: &Options,
    progress: &mut dyn Progress,
) -> Result<Outcome, ReplayError> {
    run(trace, program, opts, progress, None, None, None)
}

/// Runs `program` over `trace` in the walk of PBS's scheduler: each job's `tiers` entry
/// (`pbs::cycle::walk_tiers`: express jobs first, then queue by queue with `by_queue`, each by
/// preemption level) orders before its formula value.
pub fn replay_tiered(
    trace: &Trace,
    program: &Program,
    opts: &Options,
    tiers: &[u64],
    progress: &mut dyn Progress,
) -> Result<Outcome, ReplayError> {
    run(trace, program, opts, progress, None, None, Some(tiers))
}

/// Runs `trace` ordered by Slurm's multifactor priority under `policy` (the fair-share factor
/// from the replay's usage, decayed with `opts.half_life`), reporting progress to `progress`.
pub fn replay_slurm(
    trace: &Trace,
    policy: &SlurmPolicy,
    opts: &Options,
    progress: &mut dyn Progress,
) -> Result<Outcome, ReplayError> {
    let program = crate::formula::compile("slurm_priority", &ResourceTable::builtin())
        .map_err(|e| ReplayError::Slurm(e.to_string()))?;
    run(trace, &program, opts, progress, Some(policy), None, None)
}

/// Runs `trace` ordered by flux-accounting's priority under `policy` (the fair-share factor
/// from the replay's usage over `opts.tree`, flux's bank tree), reporting progress.
pub fn replay_flux(
    trace: &Trace,
    policy: &FluxPolicy,
    opts: &Options,
    progress: &mut dyn Progress,
) -> Result<Outcome, ReplayError> {
    // The Slurm keyword only carries the slot: `Slot::Slurm` asks the policy in force.
    let program = crate::formula::compile("slurm_priority", &ResourceTable::builtin())
        .map_err(|e| ReplayError::Slurm(e.to_string()))?;
    run(trace, &program, opts, progress, None, Some(policy), None)
}

/// Runs the jobs of `trace` forward from `state` (no later submissions): the running jobs end
/// at their start + walltime, the pending jobs start in `state.pending`'s order under
/// `opts.backfill`. Returns the outcome and what the first pass decided for each pending job
/// (in `state.pending`'s order; a job larger than the cluster is left out of both, as in a
/// replay).
pub fn forecast_from(
    trace: &Trace,
    state: &StartState,
    opts: &Options,
) -> Result<(Outcome, Vec<(usize, Decision)>), ReplayError> {
    let program = crate::formula::compile("0", &ResourceTable::builtin())
        .map_err(|e| ReplayError::Slurm(e.to_string()))?;
    let mut tiers = vec![u64::MAX; trace.jobs.len()];
    for (rank, &j) in state.pending.iter().enumerate() {
        if let Some(t) = tiers.get_mut(j) {
            *t = rank as u64;
        }
    }
    let mut decisions = Vec::new();
    let out = run_inner(
        trace,
        &program,
        opts,
        &mut (),
        Sides {
            tiers: Some(&tiers),
            start: Some(state),
            decisions: Some(&mut decisions),
            ..Sides::default()
        },
    )?;
    Ok((out, decisions))
}

/// The optional parts of a run: Slurm's or flux's priority, PBS's walk tiers, a start state
/// and where the first pass's decisions go.
#[derive(Default)]
struct Sides<'s, 'd> {
    policy: Option<&'s SlurmPolicy>,
    flux: Option<&'s FluxPolicy>,
    tiers: Option<&'s [u64]>,
    start: Option<&'s StartState<'s>>,
    /// Advance reservations held in every pass (a start state's own take their place).
    reservations: &'s [(i64, i64, Res)],
    decisions: Option<&'d mut Vec<(usize, Decision)>>,
    /// Without the shortcuts whose results are checked against this: Slurm's priority
    /// computed for every pending job at every pass, and fair share from a tree built and
    /// computed whole at every recomputation (tests compare the two).
    exhaustive: bool,
}

/// Slurm's side of a pass: the policy, the time origin, each pending trace job's fixed
/// priority terms (a class shared by the jobs of the same shape, set when it joins the queue).
struct SlurmCtx<'a> {
    policy: &'a SlurmPolicy,
    origin: i64,
    cache: FixedCache<'a>,
    jobs: Vec<Option<Fixed>>,
}

fn run(
    trace: &Trace,
    program: &Program,
    opts: &Options,
    progress: &mut dyn Progress,
    policy: Option<&SlurmPolicy>,
    flux: Option<&FluxPolicy>,
    tiers: Option<&[u64]>,
) -> Result<Outcome, ReplayError> {
    let sides = Sides {
        policy,
        flux,
        tiers,
        ..Sides::default()
    };
    run_inner(trace, program, opts, progress, sides)
}

fn run_inner(
    trace: &Trace,
    program: &Program,
    opts: &Options,
    progress: &mut dyn Progress,
    sides: Sides,
) -> Result<Outcome, ReplayError> {
    let Sides {
        policy,
        flux,
        tiers,
        start,
        reservations,
        decisions,
        exhaustive,
    } = sides;
    let total = opts.cluster.cores();
    if total == 0 {
        return Err(ReplayError::EmptyCluster);
    }
    // Memory is modelled when the cluster has some (`Cluster::mem_per_node` > 0).
    let mem_total = opts.cluster.mem();
    let mut share_keywords = Vec::new();
    let slurm = policy.map(|p| {
        let origin = trace.jobs.iter().map(|j| j.submit).min().unwrap_or(0);
        SlurmCtx {
            policy: p,
            origin,
            cache: FixedCache::default(),
            jobs: vec![None; trace.jobs.len()],
        }
    });
    if let Some(k) = policy.and_then(SlurmPolicy::share_keyword) {
        share_keywords.push(k.to_string());
    }
    if let Some(k) = flux.and_then(FluxPolicy::share_keyword) {
        share_keywords.push(k.to_string());
    }
    let slots: Vec<Slot> = program
        .keywords()
        .iter()
        .map(|k| match k.parse::<Keyword>() {
            Ok(Keyword::SlurmPriority) if slurm.is_some() || flux.is_some() => Slot::Slurm,
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
                "mem" => Slot::Mem,
                _ => Slot::Zero,
            },
        })
        .collect();
    // flux's priority has no age: it moves only with fair share.
    let reeval =
        if slots.contains(&Slot::Eligible) || (slots.contains(&Slot::Slurm) && flux.is_none()) {
            Reeval::EveryPass
        } else if share_keywords.is_empty() {
            Reeval::Never
        } else {
            Reeval::OnShareChange
        };
    let mut shares = ShareModel::new(
        trace,
        &share_keywords,
        opts.half_life,
        opts.tree.as_ref(),
        opts.decay,
    )?;
    if exhaustive {
        shares.compute_whole();
    }
    let mut sim = Sim {
        jobs: &trace.jobs,
        program,
        cpn: opts.cluster.cores_per_node.max(1),
        backfill: opts.backfill,
        free: total,
        mem_on: mem_total > 0,
        free_mem: mem_total,
        planned_mem: Planned::default(),
        running: BinaryHeap::new(),
        planned: Planned::default(),
        pending: Vec::new(),
        fresh: Vec::new(),
        merged: Vec::new(),
        reeval,
        aged: false,
        out: Outcome {
            placements: vec![None; trace.jobs.len()],
            too_large: Vec::new(),
            passes: 0,
            share_updates: 0,
            formula_errors: 0,
            first_formula_error: None,
            backfilled: 0,
            visits: 0,
            shares: shares.assoc_shares(),
        },
        slots,
        flux,
        rows: Vec::new(),
        prio: Vec::new(),
        picked: Vec::new(),
        order_free: slurm.is_some(),
        // flux's priority reads each job's queue and bank, which a class does not key; the
        // classes' min-tree holds cores and walltimes, not memory.
        // Tiers are not keyed by the classes: a tiered queue is ordered job by job; the
        // classes' walk knows EASY and strict order only.
        classes: (reeval == Reeval::OnShareChange
            && slurm.is_none()
            && flux.is_none()
            && tiers.is_none()
            && mem_total == 0
            && matches!(opts.backfill, Backfill::Easy | Backfill::None))
        .then(Classes::default),
        tiers,
        total: Res {
            cores: total,
            mem: mem_total,
        },
        reservations: start.map_or(reservations, |s| s.reservations),
        record: decisions.is_some(),
        decisions: Vec::new(),
        first: start.and_then(|s| s.first),
        dead: 0,
        head: 0,
        tree: MinTree::default(),
        tree_ok: false,
        slurm,
        queued_cores: 0,
        queued: 0,
    };
    sim.aged = !exhaustive
        && sim.slurm.is_some()
        && sim.slots == [Slot::Slurm]
        && reeval == Reeval::EveryPass;
    let mut subs: Vec<usize> = Vec::with_capacity(trace.jobs.len());
    let candidates: Box<dyn Iterator<Item = usize>> = match start {
        Some(s) => {
            // A forecast: the running jobs hold their cores from their start; only the
            // pending jobs are submitted, all at `at`.
            for &(j, begun) in s.running {
                sim.resume(j, begun);
            }
            Box::new(s.pending.iter().copied())
        }
        None => Box::new(0..trace.jobs.len()),
    };
    for i in candidates {
        let Some(j) = trace.jobs.get(i) else { continue };
        if j.cores > total || (mem_total > 0 && j.mem > mem_total) {
            sim.out.too_large.push(i);
        } else {
            subs.push(i);
        }
    }
    if start.is_none() {
        subs.sort_by_key(|&i| (trace.jobs.get(i).map_or(0, |j| j.submit), i));
    }
    // A forecast's reservations give their resources back at their ends: a pass then.
    let mut wakeups: Vec<i64> = start.map_or(Vec::new(), |s| {
        s.reservations
            .iter()
            .map(|r| r.1)
            .filter(|&e| e > s.at)
            .collect()
    });
    wakeups.sort_unstable_by(|a, b| b.cmp(a));
    wakeups.dedup();
    let events_total = 2 * subs.len() as u64;
    let mut events = 0u64;
    let mut next_report = 0u64;
    let mut next = 0;
    loop {
        if events >= next_report {
            progress.update(events, events_total);
            next_report = events + PROGRESS_EVERY;
        }
        let t_sub = subs
            .get(next)
            .and_then(|&i| trace.jobs.get(i))
            .map(|j| j.submit);
        let t_fin = sim.running.peek().map(|Reverse((e, _))| *e);
        let t_wake = wakeups.last().copied().filter(|_| sim.queued > 0);
        let t = match [t_sub, t_fin, t_wake].into_iter().flatten().min() {
            Some(t) => t,
            None => break,
        };
        while wakeups.last().is_some_and(|&w| w <= t) {
            wakeups.pop();
        }
        while let Some(&Reverse((e, j))) = sim.running.peek() {
            if e != t {
                break;
            }
            sim.running.pop();
            sim.finish(j, &mut shares);
            events += 1;
        }
        while let Some(&i) = subs.get(next) {
            if trace.jobs.get(i).map(|j| j.submit) != Some(t) {
                break;
            }
            sim.fresh.push(i);
            sim.queued_cores += trace.jobs.get(i).map_or(0, |j| j.cores);
            sim.queued += 1;
            next += 1;
            events += 1;
        }
        sim.pass(t, &mut shares)?;
    }
    progress.update(events, events_total);
    sim.out.share_updates = shares.updates;
    if let Some(d) = decisions {
        *d = std::mem::take(&mut sim.decisions);
    }
    Ok(sim.out)
}

struct Sim<'a> {
    jobs: &'a [TraceJob],
    /// Each trace job's tier (`Entry::tier`), when the walk has tiers.
    tiers: Option<&'a [u64]>,
    program: &'a Program,
    cpn: u64,
    backfill: Backfill,
    free: u64,
    /// Whether memory is modelled; then the free memory (KB) and the running jobs' memory by
    /// planned end (as `planned` holds their cores).
    mem_on: bool,
    free_mem: u64,
    planned_mem: Planned,
    /// Running jobs by real end time.
    running: BinaryHeap<Reverse<(i64, usize)>>,
    /// Running jobs by planned end (start + requested walltime), with their cores.
    planned: Planned,
    /// The pending jobs in pass order (as of the last pass).
    pending: Vec<Entry>,
    /// Jobs submitted since the last pass.
    fresh: Vec<usize>,
    /// Scratch for merging `fresh` into `pending`.
    merged: Vec<Entry>,
    reeval: Reeval,
    /// The order is Slurm's priority alone: a pending job's value is computed again only when
    /// its age may have moved it (`Entry::next`) or its association's fair share changed.
    aged: bool,
    out: Outcome,
    slots: Vec<Slot>,
    rows: Vec<f64>,
    prio: Vec<f64>,
    /// Scratch: positions in `pending` to evaluate.
    picked: Vec<usize>,
    /// Slurm's priority, when the replay orders by it.
    slurm: Option<SlurmCtx<'a>>,
    /// flux-accounting's priority, when the replay orders by it.
    flux: Option<&'a FluxPolicy>,
    /// Cores of the pending and new jobs.
    queued_cores: u64,
    /// Pending and new jobs.
    queued: usize,
    /// The pending queue in classes, for a formula re-evaluated only on fair-share changes
    /// (then `pending` stays empty).
    classes: Option<Classes>,
    /// Whether a pass where every queued job fits may skip the order: true when the order has
    /// no other effect (Slurm's priority never raises, so `formula_errors` cannot depend on it).
    order_free: bool,
    /// The cluster's cores and memory.
    total: Res,
    /// Advance reservations held in every pass (a forecast's).
    reservations: &'a [(i64, i64, Res)],
    /// Whether the next pass records its decisions (a forecast's first pass).
    record: bool,
    /// What the first pass decided, by trace index.
    decisions: Vec<(usize, Decision)>,
    /// The first pass's own rule (`StartState::first`), until that pass runs.
    first: Option<Backfill>,
    /// Entries of `pending` whose job started (`job` = `usize::MAX`) and are still in it: a
    /// pass compacts the queue only when they are half of it or `order` must look at every
    /// entry (each pass moved the whole queue before).
    dead: usize,
    /// Entries of `pending` before this position are all started (dead): a pass's walk begins
    /// here, so the jobs started in earlier passes are not walked again.
    head: usize,
    /// A large queue's cores and planned walltimes by position, for EASY's backfill scan
    /// (`classes::MinTree`); valid while `tree_ok` (the queue neither reordered nor compacted).
    tree: MinTree,
    tree_ok: bool,
}

/// A class's candidate in a pass's merge: (value key, submit, trace index, class, position).
type Head = (u64, i64, usize, u32, usize);

/// The pending queue in classes (`classes.rs`): the classes, their index by (association,
/// fixed inputs), those with pending jobs, and scratch for a pass.
#[derive(Debug, Default)]
struct Classes {
    all: Vec<Class>,
    index: SeededMap<Vec<u64>, u32>,
    /// Classes with pending jobs (and, until the end of a pass, some that just emptied).
    active: Vec<u32>,
    listed: Vec<bool>,
    key: Vec<u64>,
    /// Scratch: classes to evaluate and how many job evaluations each stands for.
    eval: Vec<(u32, u64)>,
    /// Scratch: the merge of the classes by (value key, submit, trace index, class, position).
    heap: BinaryHeap<Reverse<Head>>,
}

impl Classes {
    /// After a pass: drops the emptied classes from `active` and compacts the others.
    fn tidy(&mut self) {
        let (all, listed) = (&mut self.all, &mut self.listed);
        self.active.retain(|&c| {
            let Some(class) = all.get_mut(c as usize) else {
                return false;
            };
            if class.live() == 0 {
                if let Some(l) = listed.get_mut(c as usize) {
                    *l = false;
                }
                return false;
            }
            class.compact();
            true
        });
    }
}

impl Sim<'_> {
    /// A fixed (not fair-share) slot's value for `job`.
    fn fixed_slot(&self, s: Slot, job: &TraceJob) -> f64 {
        match s {
            Slot::Ncpus => job.cores as f64,
            Slot::Walltime => job.planned() as f64,
            Slot::Nodect => job.cores.div_ceil(self.cpn) as f64,
            Slot::Mem => job.mem as f64,
            Slot::AccrueType => 2.0,
            _ => 0.0,
        }
    }

    /// Puts the new jobs in their classes and evaluates the classes whose value may have
    /// changed: those with new jobs, and after a refresh those whose association's values
    /// changed. Each class evaluation counts for every job it stands for (the jobs the vector
    /// path would evaluate), so `formula_errors` is the same.
    fn order_classes(&mut self, q: &mut Classes, shares: &mut ShareModel, refreshed: bool) {
        let fresh = std::mem::take(&mut self.fresh);
        for &j in &fresh {
            let Some(job) = self.jobs.get(j) else {
                continue;
            };
            let assoc = shares.entities().job_assoc.get(j).copied().unwrap_or(0);
            q.key.clear();
            q.key.push(assoc as u64);
            for &s in &self.slots {
                if !matches!(s, Slot::Share(_)) {
                    q.key.push(self.fixed_slot(s, job).to_bits());
                }
            }
            let c = match q.index.get(q.key.as_slice()) {
                Some(&c) => c,
                None => {
                    let row = self
                        .slots
                        .iter()
                        .map(|&s| self.fixed_slot(s, job))
                        .collect();
                    q.all.push(Class::new(assoc, j, row));
                    q.listed.push(false);
                    let c = (q.all.len() - 1) as u32;
                    q.index.insert(q.key.clone(), c);
                    c
                }
            };
            if let Some(class) = q.all.get_mut(c as usize) {
                class.push(
                    Member {
                        submit: job.submit,
                        job: j,
                    },
                    job.cores,
                    job.planned(),
                );
            }
            if let Some(l) = q.listed.get_mut(c as usize) {
                if !*l {
                    *l = true;
                    q.active.push(c);
                }
            }
        }
        self.fresh = fresh;
        self.fresh.clear();
        q.eval.clear();
        for &c in &q.active {
            let Some(class) = q.all.get_mut(c as usize) else {
                continue;
            };
            if class.live() == 0 {
                continue;
            }
            if refreshed || class.new > 0 {
                shares.prepare(class.assoc);
            }
            let old = class.live() - class.new;
            let mut n = class.new;
            if refreshed && shares.changed(class.assoc) {
                n += old;
            }
            class.new = 0;
            if n > 0 || !class.evaluated {
                q.eval.push((c, n as u64));
            }
        }
        let w = self.slots.len();
        self.rows.clear();
        for &(c, _) in &q.eval {
            let Some(class) = q.all.get(c as usize) else {
                continue;
            };
            for (&s, &v) in self.slots.iter().zip(&class.row) {
                self.rows.push(match s {
                    Slot::Share(k) => shares.value(k, class.rep),
                    _ => v,
                });
            }
        }
        self.prio.clear();
        self.prio.resize(q.eval.len(), 0.0);
        debug_assert_eq!(self.rows.len(), q.eval.len() * w);
        let errors = self.program.eval_rows(&self.rows, &mut self.prio);
        self.out.visits += q.eval.iter().map(|e| e.1).sum::<u64>();
        for (i, message) in &errors {
            if let Some(&(c, n)) = q.eval.get(*i) {
                self.out.formula_errors += n;
                if self.out.first_formula_error.is_none() {
                    let rep = q.all.get(c as usize).map_or(0, |class| class.rep);
                    self.out.first_formula_error = Some((rep, message.clone()));
                }
            }
        }
        for (&(c, _), &v) in q.eval.iter().zip(&self.prio) {
            if let Some(class) = q.all.get_mut(c as usize) {
                class.key = desc_key(v);
                class.evaluated = true;
            }
        }
    }

    /// The pass's walk over the classes merged in pass order: jobs start while they fit; with
    /// EASY, after the reservation, each class offers its next job that may start (fits now,
    /// and ends by the shadow time or fits in the extra cores), checked again when its turn
    /// comes (starts only make the condition harder).
    fn walk_classes(&mut self, q: &mut Classes, t: i64) {
        if self.queued_cores < self.free {
            // Every pending job fits with a core to spare: in any order they all start, with
            // no reservation (the classes were still evaluated, for `formula_errors`).
            for &c in &q.active {
                let Some(class) = q.all.get_mut(c as usize) else {
                    continue;
                };
                while let Some(h) = class.head() {
                    let Some(m) = class.member(h) else { break };
                    class.take(h);
                    self.start(m.job, t);
                }
            }
            return;
        }
        q.heap.clear();
        for &c in &q.active {
            let Some(class) = q.all.get(c as usize) else {
                continue;
            };
            if let Some(h) = class.head() {
                if let Some(m) = class.member(h) {
                    q.heap.push(Reverse((class.key, m.submit, m.job, c, h)));
                }
            }
        }
        let mut reservation = None;
        while let Some(Reverse((_, _, j, c, i))) = q.heap.pop() {
            if self.free == 0 {
                return;
            }
            let Some(class) = q.all.get_mut(c as usize) else {
                continue;
            };
            let (cores, _) = class.leaf(i);
            if cores <= self.free {
                class.take(i);
                if let Some(h) = class.head() {
                    if let Some(m) = class.member(h) {
                        q.heap.push(Reverse((class.key, m.submit, m.job, c, h)));
                    }
                }
                self.start(j, t);
            } else if self.backfill == Backfill::None {
                return;
            } else {
                // Classes are used only without memory in the model (see `run`).
                let (shadow, extra, _) = self.reservation(cores, 0);
                reservation = Some((shadow, extra));
                break;
            }
        }
        let Some((shadow, mut extra)) = reservation else {
            return;
        };
        q.heap.clear();
        let fits = |free: u64, extra: u64| {
            move |k: u64, p: i64| k <= free && (t.saturating_add(p) <= shadow || k <= extra)
        };
        for &c in &q.active {
            let Some(class) = q.all.get(c as usize) else {
                continue;
            };
            let Some(h) = class.head() else { continue };
            if let Some(i) = class.find(h, &fits(self.free, extra)) {
                if let Some(m) = class.member(i) {
                    q.heap.push(Reverse((class.key, m.submit, m.job, c, i)));
                }
            }
        }
        while let Some(Reverse((_, _, j, c, i))) = q.heap.pop() {
            if self.free == 0 {
                return;
            }
            let Some(class) = q.all.get_mut(c as usize) else {
                continue;
            };
            let (cores, planned) = class.leaf(i);
            if cores <= self.free {
                let ok = if t.saturating_add(planned) <= shadow {
                    true
                } else if cores <= extra {
                    extra -= cores;
                    true
                } else {
                    false
                };
                if ok {
                    class.take(i);
                    self.start(j, t);
                    self.out.backfilled += 1;
                }
            }
            let Some(class) = q.all.get(c as usize) else {
                continue;
            };
            if let Some(n) = class.find(i + 1, &fits(self.free, extra)) {
                if let Some(m) = class.member(n) {
                    q.heap.push(Reverse((class.key, m.submit, m.job, c, n)));
                }
            }
        }
    }

    fn finish(&mut self, j: usize, shares: &mut ShareModel) {
        let (Some(job), Some(Some(p))) = (self.jobs.get(j), self.out.placements.get(j).copied())
        else {
            return;
        };
        self.free += job.cores;
        self.planned
            .remove(p.start.saturating_add(job.planned()), j);
        if self.mem_on {
            self.free_mem += job.mem;
            self.planned_mem
                .remove(p.start.saturating_add(job.planned()), j);
        }
        shares.charge(
            j,
            job.cores as f64 * p.end.saturating_sub(p.start) as f64,
            p.end,
        );
    }

    /// A forecast's running job `j`, started at `begun`: it holds its cores (and memory) until
    /// `begun` + its walltime.
    fn resume(&mut self, j: usize, begun: i64) {
        let Some(job) = self.jobs.get(j) else {
            return;
        };
        let end = begun.saturating_add(job.holds().max(0));
        self.free = self.free.saturating_sub(job.cores);
        self.running.push(Reverse((end, j)));
        self.planned
            .insert(begun.saturating_add(job.planned()), j, job.cores);
        if self.mem_on {
            self.free_mem = self.free_mem.saturating_sub(job.mem);
            self.planned_mem
                .insert(begun.saturating_add(job.planned()), j, job.mem);
        }
        if let Some(p) = self.out.placements.get_mut(j) {
            *p = Some(Placement { start: begun, end });
        }
    }

    fn start(&mut self, j: usize, t: i64) {
        let Some(job) = self.jobs.get(j) else {
            return;
        };
        let end = t.saturating_add(job.holds().max(0));
        if let Some(sj) = self.slurm.as_mut().and_then(|c| c.jobs.get_mut(j)) {
            *sj = None;
        }
        self.free -= job.cores;
        self.queued_cores = self.queued_cores.saturating_sub(job.cores);
        self.queued = self.queued.saturating_sub(1);
        self.running.push(Reverse((end, j)));
        self.planned
            .insert(t.saturating_add(job.planned()), j, job.cores);
        if self.mem_on {
            self.free_mem = self.free_mem.saturating_sub(job.mem);
            self.planned_mem
                .insert(t.saturating_add(job.planned()), j, job.mem);
        }
        if let Some(p) = self.out.placements.get_mut(j) {
            *p = Some(Placement { start: t, end });
        }
    }

    /// The reservation for a job of `need` cores and `mem` KB: the earliest planned end by
    /// which enough cores (and memory) are free (every job planned to end by then counted), and
    /// the cores and memory left over then.
    fn reservation(&self, need: u64, mem: u64) -> (i64, u64, u64) {
        if !self.mem_on {
            let (shadow, extra) = self.planned.reservation(self.free, need);
            return (shadow, extra, u64::MAX);
        }
        // Each resource's earliest time; the reservation is at the later of the two (free
        // cores and memory only grow with the planned ends), with what is left of both then.
        let at = |free: u64, need: u64, p: &Planned| {
            if need <= free {
                i64::MIN
            } else {
                p.reservation(free, need).0
            }
        };
        let shadow =
            at(self.free, need, &self.planned).max(at(self.free_mem, mem, &self.planned_mem));
        if shadow == i64::MAX {
            return (shadow, 0, 0);
        }
        let extra = (self.free + self.planned.cores_by(shadow)).saturating_sub(need);
        let extra_mem = (self.free_mem + self.planned_mem.cores_by(shadow)).saturating_sub(mem);
        (shadow, extra, extra_mem)
    }

    /// Evaluates the formula at `t` for the pending entries at positions `self.picked`,
    /// setting their keys.
    fn evaluate(&mut self, t: i64, shares: &ShareModel) {
        let w = self.slots.len();
        let n = self.picked.len();
        if n == 0 {
            return;
        }
        self.rows.clear();
        self.rows.resize(n * w, 0.0);
        for (k, &pos) in self.picked.iter().enumerate() {
            let Some(j) = self.pending.get(pos).map(|e| e.job) else {
                continue;
            };
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
                    Slot::Mem => job.mem as f64,
                    Slot::AccrueType => 2.0,
                    Slot::Share(s) => shares.value(s, j),
                    Slot::Slurm => {
                        let fs = if shares.in_use() {
                            shares.value(0, j)
                        } else {
                            0.0
                        };
                        match (&self.slurm, self.flux) {
                            (Some(c), _) => c.jobs.get(j).copied().flatten().map_or(0.0, |fx| {
                                c.policy.priority_fixed(&c.cache, fx, t, c.origin, fs)
                            }),
                            (None, Some(f)) => f.priority(j, fs),
                            (None, None) => 0.0,
                        }
                    }
                    Slot::Zero => 0.0,
                };
            }
        }
        self.prio.clear();
        self.prio.resize(n, 0.0);
        // `Program::eval_rows` on the whole batch at once (its fast path per row).
        let errors = self.program.eval_rows(&self.rows, &mut self.prio);
        self.out.visits += n as u64;
        self.out.formula_errors += errors.len() as u64;
        if let (None, Some((k, message))) = (&self.out.first_formula_error, errors.first()) {
            let pos = self.picked.get(*k).copied().unwrap_or(0);
            let job = self.pending.get(pos).map_or(0, |e| e.job);
            self.out.first_formula_error = Some((job, message.clone()));
        }
        for (&pos, &v) in self.picked.iter().zip(&self.prio) {
            if let Some(e) = self.pending.get_mut(pos) {
                e.key = desc_key(v);
            }
        }
        if let (true, Some(c)) = (self.aged, &self.slurm) {
            for &pos in &self.picked {
                let Some(e) = self.pending.get_mut(pos) else {
                    continue;
                };
                let fs = if shares.in_use() {
                    shares.value(0, e.job)
                } else {
                    0.0
                };
                e.next = c.jobs.get(e.job).copied().flatten().map_or(i64::MAX, |fx| {
                    c.policy.next_change(&c.cache, fx, t, c.origin, fs)
                });
            }
        }
    }

    /// Under Slurm's priority alone: whether pending entry `e`'s value may differ at `t` from
    /// the one it has (its age may have moved it, or its association's fair share changed at
    /// this pass's refresh).
    fn stale(e: &Entry, t: i64, shares: &ShareModel, refreshed: bool) -> bool {
        e.job != usize::MAX
            && (e.next <= t
                || (refreshed
                    && (shares.entities().job_assoc.get(e.job)).is_none_or(|&a| shares.changed(a))))
    }

    /// Brings `pending` into pass order at `t`: evaluates what the formula needs evaluated
    /// and sorts (or merges the new jobs in).
    fn order(&mut self, t: i64, shares: &mut ShareModel, refreshed: bool) {
        if self.aged && self.fresh.is_empty() {
            // Under Slurm's priority alone, nothing to do unless a value may have changed.
            self.out.visits += self.pending.len() as u64;
            if !self
                .pending
                .iter()
                .any(|e| Self::stale(e, t, shares, refreshed))
            {
                return;
            }
        }
        // Every entry is evaluated, sorted or merged with new jobs below, except when there
        // are no new jobs and the values never change: only then may started ones stay.
        if !(self.fresh.is_empty() && self.reeval == Reeval::Never) {
            self.tree_ok = false;
            if self.dead > 0 {
                self.out.visits += self.pending.len() as u64;
                self.pending.retain(|e| e.job != usize::MAX);
                self.dead = 0;
            }
            self.head = 0;
        }
        let old = self.pending.len();
        let jobs = self.jobs;
        if let Some(c) = &mut self.slurm {
            for &j in &self.fresh {
                if let (Some(slot), Some(job)) = (c.jobs.get_mut(j), jobs.get(j)) {
                    *slot = Some(c.policy.fixed(&mut c.cache, job, c.origin));
                }
            }
        }
        let tiers = self.tiers;
        self.pending.extend(self.fresh.drain(..).map(|j| Entry {
            tier: tiers.and_then(|t| t.get(j).copied()).unwrap_or(0),
            key: 0,
            submit: jobs.get(j).map_or(0, |x| x.submit),
            job: j,
            cores: jobs.get(j).map_or(0, |x| x.cores),
            mem: jobs.get(j).map_or(0, |x| x.mem),
            planned: jobs.get(j).map_or(0, |x| x.planned()),
            next: i64::MIN,
        }));
        // Fair-share values of the associations with pending jobs: all after a refresh, else
        // those of the new jobs (the others are already up to date).
        if shares.in_use() {
            let from = if refreshed { 0 } else { old };
            for e in self.pending.get(from..).unwrap_or(&[]) {
                if let Some(&a) = shares.entities().job_assoc.get(e.job) {
                    shares.prepare(a);
                }
            }
        }
        let all = match self.reeval {
            Reeval::EveryPass => true,
            Reeval::OnShareChange => refreshed,
            Reeval::Never => false,
        };
        self.picked.clear();
        if self.aged {
            let pending = &self.pending;
            self.picked.extend((0..old).filter(|&p| {
                pending
                    .get(p)
                    .is_some_and(|e| Self::stale(e, t, shares, refreshed))
            }));
            self.picked.extend(old..self.pending.len());
        } else if all && self.reeval == Reeval::OnShareChange {
            let assoc = &shares.entities().job_assoc;
            self.picked.extend((0..old).filter(|&p| {
                self.pending
                    .get(p)
                    .and_then(|e| assoc.get(e.job))
                    .is_none_or(|&a| shares.changed(a))
            }));
            self.picked.extend(old..self.pending.len());
        } else if all {
            self.picked.extend(0..self.pending.len());
        } else {
            self.picked.extend(old..self.pending.len());
        }
        self.evaluate(t, shares);
        if all {
            // Most passes change few places: a sorted queue is checked in one scan, and the
            // stable sort merges the runs of a nearly sorted one (keys are unique: the same
            // order as any sort).
            let len = self.pending.len() as u64;
            self.out.visits += len;
            if !self.pending.is_sorted() {
                self.out.visits += len * u64::from(len.max(2).ilog2() + 1);
                self.pending.sort();
            }
            return;
        }
        // Only the new jobs have keys to place: sort them and merge.
        let Some(new) = self.pending.get_mut(old..) else {
            return;
        };
        if new.is_empty() {
            return;
        }
        let k = new.len() as u64;
        self.out.visits += k * u64::from(k.max(2).ilog2() + 1);
        new.sort_unstable();
        if old == 0 {
            return;
        }
        self.out.visits += self.pending.len() as u64;
        let (a, b) = self.pending.split_at(old);
        self.merged.clear();
        self.merged.reserve(a.len() + b.len());
        let (mut i, mut k) = (0, 0);
        while let (Some(x), Some(y)) = (a.get(i), b.get(k)) {
            if x <= y {
                self.merged.push(*x);
                i += 1;
            } else {
                self.merged.push(*y);
                k += 1;
            }
        }
        self.merged.extend_from_slice(a.get(i..).unwrap_or(&[]));
        self.merged.extend_from_slice(b.get(k..).unwrap_or(&[]));
        std::mem::swap(&mut self.pending, &mut self.merged);
    }

    /// Starts every pending and new job at `t` (the caller checked that they all fit).
    fn start_all(&mut self, t: i64) {
        let pending = std::mem::take(&mut self.pending);
        for e in &pending {
            self.start(e.job, t);
        }
        self.pending = pending;
        self.out.visits += self.pending.len() as u64;
        self.pending.clear();
        self.dead = 0;
        self.head = 0;
        self.tree_ok = false;
        let fresh = std::mem::take(&mut self.fresh);
        for &j in &fresh {
            self.start(j, t);
        }
        self.fresh = fresh;
        self.fresh.clear();
    }

    /// What job `j` needs in the calendar: its cores, and its memory when memory is modelled.
    fn need(&self, job: &TraceJob) -> Res {
        Res {
            cores: job.cores,
            mem: if self.mem_on { job.mem } else { 0 },
        }
    }

    /// A pass over the calendar (`calendar.rs`): each pending job in order starts if it fits
    /// now and delays no hold; under `Depth(n)` the first n that cannot start are held at
    /// their earliest start; under strict order the first that cannot start stops the others.
    /// Records its decisions when `record` is set.
    fn walk_calendar(&mut self, t: i64) {
        let free = Res {
            cores: self.free,
            mem: if self.mem_on { self.free_mem } else { 0 },
        };
        let mut cal = Calendar::new(t, free);
        for Reverse((_, j)) in self.running.iter() {
            let (Some(job), Some(Some(p))) = (self.jobs.get(*j), self.out.placements.get(*j))
            else {
                continue;
            };
            cal.release_at(p.start.saturating_add(job.planned()), self.need(job));
        }
        for &(start, end, mut res) in self.reservations {
            if !self.mem_on {
                res.mem = 0;
            }
            if end <= t {
                continue; // over: what it held is free again
            }
            if start <= t {
                cal.start_now(res, end.saturating_sub(t));
            } else {
                cal.hold(start, end.saturating_sub(start), res);
            }
        }
        let (depth, strict) = match self.backfill {
            Backfill::None => (0, true),
            Backfill::Easy => (1, true),
            Backfill::Depth(n) => (n, true),
            Backfill::Greedy => (0, false),
            Backfill::SlurmPlan { max_test, .. } => (max_test, true),
        };
        let plan = match self.backfill {
            Backfill::SlurmPlan {
                resolution, window, ..
            } => Some((resolution.max(1), window.max(0))),
            _ => None,
        };
        let mut tested = 0u32;
        let record = std::mem::take(&mut self.record);
        let mut pending = std::mem::take(&mut self.pending);
        let mut tops = 0u32;
        let mut stopped = false;
        let mut any_started = false;
        let head = self.head.min(pending.len());
        for e in pending.iter_mut().skip(head) {
            self.out.visits += 1;
            let j = e.job;
            if j == usize::MAX {
                continue; // started in an earlier pass, not yet compacted
            }
            let need = Res {
                cores: e.cores,
                mem: if self.mem_on { e.mem } else { 0 },
            };
            let wt = e.planned;
            if plan.is_some() {
                tested = tested.saturating_add(1);
                if tested > depth {
                    // beyond bf_max_job_test: not tested this cycle (neither started nor planned)
                    if record {
                        self.decisions.push((
                            j,
                            Decision {
                                runs_now: false,
                                estimate: None,
                                why: Some(Why::NotTested),
                            },
                        ));
                        continue;
                    }
                    break;
                }
            }
            if stopped {
                if !record {
                    break;
                }
                self.decisions.push((
                    j,
                    Decision {
                        runs_now: false,
                        estimate: None,
                        why: Some(Why::StrictOrder),
                    },
                ));
                continue;
            }
            let now = cal.free();
            let why = if now.cores == 0 {
                Some(Why::NoFreeNodes)
            } else if !cal.free_now(need) {
                Some(if need.cores > now.cores {
                    Why::Insufficient {
                        resource: "ncpus",
                        need: need.cores,
                        free: now.cores,
                        total: self.total.cores,
                    }
                } else {
                    Why::Insufficient {
                        resource: "mem",
                        need: need.mem,
                        free: now.mem,
                        total: self.total.mem,
                    }
                })
            } else if !cal.fits_now(need, wt) {
                Some(Why::Conflict)
            } else {
                None
            };
            let mut estimate = None;
            match why {
                None => {
                    cal.start_now(need, wt);
                    self.start(j, t);
                    if tops > 0 {
                        self.out.backfilled += 1;
                    }
                    e.job = usize::MAX;
                    any_started = true;
                }
                Some(_) if plan.is_some() => {
                    if let Some((resolution, window)) = plan {
                        estimate = self.plan_slurm(&mut cal, t, need, wt, resolution, window);
                    }
                }
                Some(_) if strict && tops < depth => {
                    if let Some(s) = cal.earliest(need, wt) {
                        cal.hold(s, wt, need);
                        tops += 1;
                        estimate = Some(s);
                    }
                }
                Some(_) => stopped = strict && depth == 0,
            }
            if record {
                self.decisions.push((
                    j,
                    Decision {
                        runs_now: why.is_none(),
                        estimate,
                        why,
                    },
                ));
            } else if cal.free().cores == 0 && tops >= depth {
                break; // nothing more can start, and no top job is left to place
            }
        }
        if any_started || self.dead > 0 {
            self.out.visits += pending.len() as u64;
            pending.retain(|e| e.job != usize::MAX);
            self.dead = 0;
            self.head = 0;
        }
        self.tree_ok = false;
        self.pending = pending;
    }

    /// Slurm's backfill plan for a job of `need` for `wt` seconds that cannot start at `t`:
    /// the earliest start that overlaps no planned job, held on whole nodes until its end
    /// rounded down to `resolution`; none past `window` (when the running jobs alone keep it
    /// out of the window, Slurm's will-run answer: the last running job's planned end).
    fn plan_slurm(
        &self,
        cal: &mut Calendar,
        t: i64,
        need: Res,
        wt: i64,
        resolution: i64,
        window: i64,
    ) -> Option<i64> {
        let horizon = t.saturating_add(window);
        if cal.earliest_running_only(need).is_none_or(|s| s > horizon) {
            return cal.last_release();
        }
        let s = cal.earliest(need, wt).filter(|&s| s <= horizon)?;
        let end = s.saturating_add(wt.max(0));
        let end = end - end.rem_euclid(resolution);
        // whole nodes: as many as its cores need, each with all its cores and memory
        let nodes = need.cores.div_ceil(self.cpn).max(1);
        let node_mem = if self.mem_on {
            self.total.mem / (self.total.cores / self.cpn).max(1)
        } else {
            0
        };
        let whole = Res {
            cores: nodes.saturating_mul(self.cpn),
            mem: nodes.saturating_mul(node_mem),
        };
        cal.hold(s, end.saturating_sub(s).max(0), whole);
        Some(s)
    }

    /// EASY's backfill scan of a large queue from position `from`, behind the reservation
    /// (shadow time, extra cores, extra memory): the tree finds each next job that fits now
    /// and ends by the shadow time or fits in the extra cores — the condition only gets
    /// harder as jobs start, so a job it passes could not have started later in the pass (as
    /// `classes.rs`). Starts what the sequential scan would, in its order; returns how many.
    fn backfill_by_tree(
        &mut self,
        pending: &mut [Entry],
        from: usize,
        (shadow, mut extra, mut extra_mem): (i64, u64, u64),
        t: i64,
    ) -> usize {
        if !self.tree_ok {
            let leaves: Vec<(u64, i64)> = (pending.iter())
                .map(|e| {
                    if e.job == usize::MAX {
                        (GONE, i64::MAX)
                    } else {
                        (e.cores, e.planned)
                    }
                })
                .collect();
            self.out.visits += leaves.len() as u64;
            self.tree.rebuild(&leaves);
            self.tree_ok = true;
        }
        let depth = u64::from(pending.len().max(2).ilog2() + 1);
        let mut started = 0;
        let mut i = from;
        while self.free > 0 {
            let (free, x) = (self.free, extra);
            let ok = move |c: u64, p: i64| c <= free && (t.saturating_add(p) <= shadow || c <= x);
            self.out.visits += depth;
            let Some(k) = self.tree.find(i, &ok) else {
                break;
            };
            i = k + 1;
            let Some(e) = pending.get_mut(k) else { break };
            let (c, planned) = (e.cores, e.planned);
            let m = if self.mem_on { e.mem } else { 0 };
            if !(c <= self.free && m <= self.free_mem) {
                continue;
            }
            if t.saturating_add(planned) <= shadow {
                // Ends (by its walltime) before the reserved job starts.
            } else if c <= extra && m <= extra_mem {
                extra -= c;
                extra_mem -= m;
            } else {
                continue;
            }
            let j = e.job;
            e.job = usize::MAX;
            self.tree.set(k, GONE, i64::MAX);
            self.start(j, t);
            self.out.backfilled += 1;
            started += 1;
        }
        started
    }

    fn pass(&mut self, t: i64, shares: &mut ShareModel) -> Result<(), ReplayError> {
        // The first pass that looks at the queue takes the first rule.
        let Some(first) = self.first.take_if(|_| self.queued > 0) else {
            return self.pass_with(t, shares);
        };
        let later = std::mem::replace(&mut self.backfill, first);
        let r = self.pass_with(t, shares);
        self.backfill = later;
        r
    }

    fn pass_with(&mut self, t: i64, shares: &mut ShareModel) -> Result<(), ReplayError> {
        // Every job needs at least one core: with none free the pass can start nothing, and the
        // order it would compute is not kept, so it is skipped (same schedule, less work).
        if self.queued == 0 || (self.free == 0 && !self.record) {
            return Ok(());
        }
        self.out.passes += 1;
        let refreshed = shares.refresh(t)?;
        if self.order_free && self.queued_cores < self.free {
            // Every queued job fits, with a core to spare after the last (so the walk never
            // stops on no free core): in any order they all start now, with no reservation.
            // The order need not be computed, nor the fair share behind it.
            self.start_all(t);
            return Ok(());
        }
        shares.ensure()?;
        if let Some(mut q) = self.classes.take() {
            self.order_classes(&mut q, shares, refreshed);
            self.walk_classes(&mut q, t);
            q.tidy();
            self.classes = Some(q);
            return Ok(());
        }
        self.order(t, shares, refreshed);
        if self.record
            || !self.reservations.is_empty()
            || matches!(self.backfill, Backfill::Greedy)
            || matches!(self.backfill, Backfill::Depth(n) if n != 1)
            || matches!(self.backfill, Backfill::SlurmPlan { .. })
        {
            self.walk_calendar(t);
            return Ok(());
        }
        let mut pending = std::mem::take(&mut self.pending);
        let mut started = 0;
        let mut reservation: Option<(i64, u64, u64)> = None;
        let large = pending.len() >= TREE_MIN_QUEUE;
        let mut resume_at = None;
        let head = self.head.min(pending.len());
        for (k, e) in pending.iter_mut().enumerate().skip(head) {
            self.out.visits += 1;
            if self.free == 0 {
                // Every job needs a core: nothing more can start.
                break;
            }
            if large && reservation.is_some() {
                resume_at = Some(k); // the rest by the tree (`backfill_by_tree`)
                break;
            }
            let j = e.job;
            if j == usize::MAX {
                continue; // started in an earlier pass, not yet compacted
            }
            let (c, planned) = (e.cores, e.planned);
            // Memory: a job's need is 0 when memory is not modelled.
            let m = if self.mem_on { e.mem } else { 0 };
            let fits = c <= self.free && m <= self.free_mem;
            match &mut reservation {
                None => {
                    if fits {
                        self.start(j, t);
                    } else if self.backfill == Backfill::None {
                        break;
                    } else {
                        reservation = Some(self.reservation(c, m));
                        continue;
                    }
                }
                Some((shadow, extra, extra_mem)) => {
                    if !fits {
                        continue;
                    }
                    if t.saturating_add(planned) <= *shadow {
                        // Ends (by its walltime) before the reserved job starts.
                    } else if c <= *extra && m <= *extra_mem {
                        *extra -= c;
                        *extra_mem -= m;
                    } else {
                        continue;
                    }
                    self.start(j, t);
                    self.out.backfilled += 1;
                }
            }
            e.job = usize::MAX;
            if self.tree_ok {
                self.tree.set(k, GONE, i64::MAX);
            }
            started += 1;
        }
        if let (Some(from), Some(r)) = (resume_at, reservation) {
            started += self.backfill_by_tree(&mut pending, from, r, t);
        }
        self.dead += started;
        // The started prefix grows: the next walk begins after it.
        let mut head = head;
        while pending.get(head).is_some_and(|e| e.job == usize::MAX) {
            head += 1;
        }
        self.head = head;
        if self.dead * 2 > pending.len() {
            self.out.visits += pending.len() as u64;
            pending.retain(|e| e.job != usize::MAX);
            self.dead = 0;
            self.head = 0;
            self.tree_ok = false;
        }
        self.pending = pending;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded trace of `n` jobs on a cluster of 32 cores: submits over [0, 4000), 1 to 16
    /// cores, walltimes of 60 to 3000 s that every job runs exactly to.
    fn limit_trace(seed: u64, n: usize) -> Trace {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let jobs = (0..n)
            .map(|i| {
                let w = 60 + next(2940) as i64;
                TraceJob {
                    id: format!("{i}"),
                    submit: next(4000) as i64,
                    run: w,
                    walltime: Some(w),
                    cores: 1 + next(16),
                    mem: 0,
                    user: format!("u{}", next(5)),
                    account: "a".into(),
                    queue: "q".into(),
                    qos: String::new(),
                }
            })
            .collect();
        Trace {
            jobs,
            ..Trace::default()
        }
    }

    fn opts(backfill: Backfill) -> Options {
        Options {
            cluster: Cluster {
                nodes: 4,
                cores_per_node: 8,
                mem_per_node: 0,
            },
            backfill,
            half_life: 86_400.0,
            tree: None,
            decay: crate::replay::Decay::default(),
        }
    }

    /// A forecast taken at any moment of a replay after its last submission (jobs that run
    /// exactly to their limits) predicts exactly the starts the replay then makes, under
    /// every backfill rule.
    #[test]
    fn a_forecast_from_any_moment_of_a_replay_predicts_the_replay_s_starts() {
        let program = crate::formula::compile("ncpus", &ResourceTable::builtin()).unwrap();
        let mut checked = 0;
        for seed in 0..12u64 {
            let trace = limit_trace(seed, 150);
            for backfill in [
                Backfill::Easy,
                Backfill::None,
                Backfill::Greedy,
                Backfill::Depth(3),
                Backfill::SlurmPlan {
                    resolution: 60,
                    window: 3000,
                    max_test: 40,
                },
            ] {
                let o = opts(backfill);
                let out = replay(&trace, &program, &o).unwrap();
                let last_submit = trace.jobs.iter().map(|j| j.submit).max().unwrap();
                let last_end = (out.placements.iter().flatten())
                    .map(|p| p.end)
                    .max()
                    .unwrap();
                for k in 0..6 {
                    let at = last_submit + (last_end - last_submit) * k / 6;
                    let mut running = Vec::new();
                    let mut pending = Vec::new();
                    for (i, p) in out.placements.iter().enumerate() {
                        let Some(p) = p else { continue };
                        if p.start < at && p.end > at {
                            running.push((i, p.start));
                        } else if p.start >= at {
                            pending.push(i);
                        }
                    }
                    // the replay's order: larger value (ncpus) first, then submit, then index
                    pending.sort_by_key(|&i| {
                        let j = &trace.jobs[i];
                        (desc_key(j.cores as f64), j.submit, i)
                    });
                    let mut at_trace = trace.clone();
                    for &i in &pending {
                        at_trace.jobs[i].submit = at;
                    }
                    let state = StartState {
                        at,
                        running: &running,
                        pending: &pending,
                        reservations: &[],
                        first: None,
                    };
                    let (fc, decisions) = forecast_from(&at_trace, &state, &o).unwrap();
                    assert_eq!(decisions.len(), pending.len());
                    for &i in &pending {
                        assert_eq!(
                            fc.placements[i].map(|p| p.start),
                            out.placements[i].map(|p| p.start),
                            "seed {seed} {backfill:?} at {at}: job {i}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 3500, "{checked}");
    }

    /// `Depth(1)` through the calendar is EASY: the same schedule on every trace.
    #[test]
    fn one_top_job_in_the_calendar_is_easy() {
        let program = crate::formula::compile("ncpus", &ResourceTable::builtin()).unwrap();
        for seed in 0..20u64 {
            let trace = limit_trace(seed + 100, 200);
            let easy = replay(&trace, &program, &opts(Backfill::Easy)).unwrap();
            let mut cal = opts(Backfill::Easy);
            cal.backfill = Backfill::Depth(1);
            // Depth(1) passes go through EASY's walk; a reservation (of nothing) makes every
            // pass go through the calendar.
            let through = replay_calendar(&trace, &program, &cal);
            assert_eq!(easy.placements, through.placements, "seed {seed}");
            assert_eq!(easy.backfilled, through.backfilled, "seed {seed}");
        }
    }

    /// A queue long enough for EASY's tree scan (`TREE_MIN_QUEUE`) gives the schedule of the
    /// calendar's walk, which scans job by job.
    #[test]
    fn the_tree_scan_of_a_long_queue_is_the_job_by_job_scan() {
        let program = crate::formula::compile("ncpus", &ResourceTable::builtin()).unwrap();
        for seed in 0..2u64 {
            let mut trace = limit_trace(seed + 500, (3 * TREE_MIN_QUEUE).max(12_288));
            for (i, j) in trace.jobs.iter_mut().enumerate() {
                j.submit = (i as i64) % 50; // all queued at once: a long queue
            }
            let easy = replay(&trace, &program, &opts(Backfill::Easy)).unwrap();
            let mut cal = opts(Backfill::Easy);
            cal.backfill = Backfill::Depth(1);
            let through = replay_calendar(&trace, &program, &cal);
            assert_eq!(easy.placements, through.placements, "seed {seed}");
            assert!(easy.backfilled > 100, "{}", easy.backfilled);
        }
    }

    /// A replay whose every pass goes through the calendar (`record` kept on).
    fn replay_calendar(trace: &Trace, program: &Program, o: &Options) -> Outcome {
        let far = [(i64::MAX - 2, i64::MAX - 1, Res::default())];
        run_inner(
            trace,
            program,
            o,
            &mut (),
            Sides {
                reservations: &far,
                ..Sides::default()
            },
        )
        .unwrap()
    }

    /// `n` jobs of 1 to `max_cores` cores submitted within `spread` seconds, runs of 1 to 40 s.
    fn burst(n: usize, spread: u64, max_cores: u64, seed: u64) -> Trace {
        let mut trace = limit_trace(seed, n);
        for (i, j) in trace.jobs.iter_mut().enumerate() {
            let x = (i as u64).wrapping_mul(2654435761).wrapping_add(seed);
            j.submit = (x % spread.max(1)) as i64;
            j.run = 1 + (x % 40) as i64;
            j.walltime = Some(j.run + (x % 3) as i64);
            j.cores = 1 + (x >> 7) % max_cores;
        }
        trace
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        /// The queue's bookkeeping on adversarial queues (many jobs in one second, all-equal
        /// keys, small and large jobs on few cores): the passes touch at most 8 · n · log2 n
        /// entries for a formula fixed when a job joins; for one whose keys change at every
        /// pass (`eligible_time`), each pass evaluates and checks the queue once, never more.
        #[test]
        fn the_queue_s_bookkeeping_is_n_log_n(
            n in 200usize..1500,
            spread in proptest::prop_oneof![proptest::strategy::Just(1u64), 1u64..50],
            max_cores in 1u64..9,
            formula in proptest::sample::select(vec!["0", "ncpus", "walltime", "-ncpus", "eligible_time"]),
            easy in proptest::bool::ANY,
            seed in 0u64..1000,
        ) {
            let trace = burst(n, spread, max_cores, seed);
            let program = crate::formula::compile(formula, &ResourceTable::builtin()).unwrap();
            let backfill = if easy { Backfill::Easy } else { Backfill::None };
            let mut o = opts(backfill);
            o.cluster = Cluster { nodes: 1, cores_per_node: 8, mem_per_node: 0 };
            let out = replay(&trace, &program, &o).unwrap();
            // 8 · n · log2 n: the passes' own 4 · n · log2 n (bounds_replay's burst cases) plus
            // the short scans of queues below the tree's length (up to 5 · n · log2 n seen under
            // EASY at n ≈ 200-400); a quadratic pass is 1500² = 2.25M visits at n = 1500.
            let nlogn = 8 * n as u64 * (n as f64).log2().ceil() as u64;
            let bound = if formula == "eligible_time" {
                nlogn + 3 * n as u64 * out.passes
            } else {
                nlogn
            };
            proptest::prop_assert!(out.visits <= bound, "{} visits, bound {bound}", out.visits);
            proptest::prop_assert!(out.placements.iter().all(Option::is_some));
        }
    }

    /// The first formula error is kept with its job, and every raising evaluation counted.
    #[test]
    fn the_first_formula_error_names_its_job() {
        let mut trace = limit_trace(3, 40);
        for (i, j) in trace.jobs.iter_mut().enumerate() {
            j.cores = if i % 2 == 0 { 2 } else { 3 };
        }
        let program =
            crate::formula::compile("1 / (ncpus - 2)", &ResourceTable::builtin()).unwrap();
        let out = replay(&trace, &program, &opts(Backfill::Easy)).unwrap();
        assert_eq!(out.formula_errors, 20);
        let (job, message) = out.first_formula_error.clone().unwrap();
        assert_eq!(trace.jobs[job].cores, 2);
        assert!(message.contains("division by zero"), "{message}");
    }

    #[test]
    fn desc_key_reverses_total_cmp() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -0.0,
            0.0,
            1e-300,
            1.0,
            2.5,
            f64::INFINITY,
            f64::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(desc_key(a).cmp(&desc_key(b)), b.total_cmp(&a), "{a} {b}");
            }
        }
    }

    /// Runs `trace` with or without the shortcuts (`Sides::exhaustive`).
    fn both(
        trace: &Trace,
        program: &Program,
        opts: &Options,
        policy: Option<&SlurmPolicy>,
    ) -> (Outcome, Outcome) {
        let run = |exhaustive| {
            let sides = Sides {
                policy,
                exhaustive,
                ..Sides::default()
            };
            run_inner(trace, program, opts, &mut (), sides).unwrap()
        };
        (run(false), run(true))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// The shortcuts give the exhaustive replay's schedule exactly: Slurm's priority
        /// computed again only when a job's age may have moved it or its fair share changed,
        /// and Fair Tree's and classic's values on the kept state, on overloaded traces of
        /// several accounts, with and without a site tree, under continuous and Slurm's
        /// stepwise decay, with a short `PriorityMaxAge` so ages reach it.
        #[test]
        fn the_shortcuts_give_the_exhaustive_schedule(
            n in 40usize..250,
            seed in 0u64..10_000,
            conf in proptest::sample::select(vec![
                "PriorityWeightAge=1000\nPriorityWeightFairshare=10000\nPriorityWeightJobSize=500\nPriorityMaxAge=00:40:00\n",
                "PriorityWeightAge=1000\nPriorityWeightFairshare=10000\nPriorityFlags=NO_FAIR_TREE\n",
                "PriorityWeightAge=7\nPriorityWeightFairshare=3\nPriorityMaxAge=00:10:00\n",
                "PriorityWeightAge=100\nPriorityMaxAge=2:00:00\nPriorityFavorSmall=YES\nPriorityWeightJobSize=100\n",
            ]),
            formula in proptest::sample::select(vec![
                "", "fairtree_factor", "level_fs", "classic_factor * ncpus",
                "fairtree_factor * 100 + eligible_time / 60",
            ]),
            site in proptest::bool::ANY,
            stepwise in proptest::bool::ANY,
        ) {
            let mut trace = limit_trace(seed, n);
            for (i, j) in trace.jobs.iter_mut().enumerate() {
                j.account = format!("a{}", (i as u64 ^ seed) % 3);
                j.submit /= 4; // a queue builds up on 32 cores
            }
            let mut o = opts(Backfill::Easy);
            o.half_life = 900.0;
            if stepwise {
                o.decay = crate::replay::decay::Decay::Slurm(crate::usage::decay::SlurmDecay::new(900, 120, crate::usage::decay::slurm::ResetPeriod::None).unwrap());
            }
            if site {
                use crate::fairshare::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
                let node = |n: &str, p: Option<&str>, kind, s| {
                    NodeSpec::new(n, p.map(String::from), kind, Shares::Count(s))
                };
                o.tree = Some(TreeSpec {
                    source: TreeSource::Slurm,
                    root_name: "root".into(),
                    root_usage: None,
                    unknown_shares: None,
                    nodes: vec![
                        node("a0", None, NodeKind::Account, 5),
                        node("u1", Some("a0"), NodeKind::User, 3),
                        node("a1", None, NodeKind::Account, 1),
                        node("sub", Some("a1"), NodeKind::Account, 2),
                        node("u2", Some("sub"), NodeKind::User, 1),
                    ],
                });
            }
            let (program, policy) = if formula.is_empty() {
                let text = format!(
                    "PriorityType=priority/multifactor\nAccountingStorageType=accounting_storage/slurmdbd\n{conf}"
                );
                let c = crate::slurm::parse_slurm_conf(&text, "slurm.conf").unwrap();
                let p = SlurmPolicy::new(c, Default::default(), o.cluster).unwrap();
                let program = crate::formula::compile("slurm_priority", &ResourceTable::builtin()).unwrap();
                (program, Some(p))
            } else {
                (crate::formula::compile(formula, &ResourceTable::builtin()).unwrap(), None)
            };
            let (fast, whole) = both(&trace, &program, &o, policy.as_ref());
            proptest::prop_assert_eq!(&fast.placements, &whole.placements);
            proptest::prop_assert_eq!(fast.share_updates, whole.share_updates);
            proptest::prop_assert_eq!(fast.formula_errors, whole.formula_errors);
        }
    }
}
