//! Ordering as PBS's `cmp_sort`: runnable (queued) jobs first; then formula value descending;
//! ties by the fair-share path comparison when `fair_share` is on; then submission order
//! (`qtime`, then the job id's sequence number — the `JobSet` order). An evaluation error gives
//! the value 0 and keeps Python's message. `job_sort_formula_threshold`: a runnable job whose
//! value is at or below it is not eligible this cycle (PBS's comment `THRESHOLD_COMMENT`); unset,
//! it is `INT_MIN` (`crate::pbs::defs::threshold`).

use crate::fairshare::NodeId;
use crate::jobs::error::BindError;
use crate::jobs::job_set::JobSet;
use crate::order::bind::{Binder, Bound};
use crate::order::compat;
use crate::order::formula_api::SortFormula;
use crate::order::keys::{descending_key, pack, value_of_key};
use crate::order::pass::{key_jobs, Keyed};
use crate::parallel::{self, PARALLEL_MIN_JOBS};
use std::cmp::Ordering;
use std::collections::HashMap;

/// The job comment PBS sets on a job at or below the threshold.
pub const THRESHOLD_COMMENT: &str = "Not Running: Job is under job_sort_formula threshold value";

/// How to order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderOptions {
    /// `job_sort_formula_threshold` as PBS stores it (`pbs::threshold::stored`); None = unset,
    /// which PBS's scheduler applies as `INT_MIN`.
    pub threshold: Option<f64>,
    /// Reproduce PBS's rounding: the value kept as a 32-bit float.
    pub pbs_compat: bool,
    /// With `fair_share` on: each job's fair-share rank (smaller = more deserving, equal = tie).
    pub fair_share_rank: Option<Vec<u32>>,
    /// Rank only the first `top` jobs (`--top N`): they are selected in one linear pass and
    /// only they are sorted; the others are counted in [`QueueOrder::summary`].
    pub top: Option<usize>,
}

/// Every job's formula value (0 on error) and the errors by job index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evaluations {
    /// Value per job (job index order): the value PBS sorts by (`formula::sort_value`), already
    /// 0 for errors, -1.0 for a complex result or an int beyond the double range (no error).
    pub values: Vec<f64>,
    /// Python's message per job index that failed.
    pub errors: HashMap<u32, String>,
}

/// Jobs per evaluation block: the block's rows (row-major, `width` values each) stay in L1/L2.
const EVAL_BLOCK: usize = 1024;

/// Evaluates the formula on every bound job: the bound columns are transposed block by block
/// into rows and handed to `SortFormula::evaluate_rows`, one call per block (no per-job dynamic
/// dispatch or allocation). A large queue is cut into parts of whole blocks evaluated on every
/// worker (`crate::parallel::run_parts`: a panic in any reaches the caller; no job is left at 0).
pub fn evaluate(formula: &dyn SortFormula, bound: &Bound, jobs: usize) -> Evaluations {
    let mut values = vec![0.0; jobs];
    let ranges = parallel::ranges(jobs, PARALLEL_MIN_JOBS, EVAL_BLOCK);
    let starts: Vec<usize> = ranges.iter().map(|r| r.start).collect();
    let parts = parallel::split_mut(&mut values, &ranges);
    let found = parallel::run_parts(starts.into_iter().zip(parts).collect(), |(start, out)| {
        evaluate_range(formula, bound, start, out)
    });
    let errors = found.into_iter().flatten().collect();
    Evaluations { values, errors }
}

/// Evaluates the jobs `start..start + out.len()` into `out`; returns the errors by job index.
fn evaluate_range(
    formula: &dyn SortFormula,
    bound: &Bound,
    start: usize,
    out: &mut [f64],
) -> Vec<(u32, String)> {
    let width = bound.width();
    let mut errors = Vec::new();
    let mut rows = vec![0.0; EVAL_BLOCK * width];
    for (b, out) in out.chunks_mut(EVAL_BLOCK).enumerate() {
        let first = start + b * EVAL_BLOCK;
        let n = out.len();
        let rows = rows.get_mut(..n * width).unwrap_or_default();
        for (c, col) in bound.columns.iter().enumerate() {
            let col = col.get(first..first + n).unwrap_or_default();
            for (r, &v) in col.iter().enumerate() {
                if let Some(slot) = rows.get_mut(r * width + c) {
                    *slot = v;
                }
            }
        }
        for (j, e) in formula.evaluate_rows(rows, out) {
            if let Some(v) = out.get_mut(j) {
                *v = 0.0;
            }
            errors.push(((first + j) as u32, e));
        }
    }
    errors
}

/// Sorts distinct keys, on every worker for a large slice ([`parallel::sort_unstable`]).
fn sort_keys<T: Ord + Copy + Send + Sync>(keys: &mut [T]) {
    parallel::sort_unstable(keys);
}

/// One job's place in the order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Index into `JobSet::jobs`.
    pub job: u32,
    /// The value the scheduler sorts by (0 after an error; a 32-bit float with `--pbs-compat`).
    pub value: f64,
    /// Runnable and above the threshold: the scheduler would consider it this cycle.
    pub eligible: bool,
    /// Runnable but at or below the threshold.
    pub below_threshold: bool,
}

/// The queue in scheduler order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueOrder {
    /// Jobs, first to be considered first; rank = position + 1 (only the first `top` with
    /// [`OrderOptions::top`]).
    pub ranked: Vec<Ranked>,
    /// Evaluation errors by job index.
    pub errors: HashMap<u32, String>,
    /// Why the scheduler would not consider a queued job, beyond the threshold, by job index
    /// (set by a scheduler's cycle order: PBS's zero shares, stopped or route queues).
    pub held: HashMap<u32, Held>,
    /// Counts over every job, ranked or not.
    pub summary: Summary,
}

/// Why a queued job above the threshold is still not considered this cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Its fair-share entity has no shares (PBS: `Job has zero shares for fairshare`).
    ZeroShares,
    /// Its queue is not started (PBS: `Queue not started`).
    QueueStopped,
    /// Its queue only routes jobs elsewhere.
    RouteQueue,
}

/// How many jobs the order holds, by status (over every job, also those `top` left unranked).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Every job.
    pub total: usize,
    /// Runnable and above the threshold.
    pub eligible: usize,
    /// Runnable but at or below the threshold.
    pub below_threshold: usize,
}

impl QueueOrder {
    /// The evaluation error of a job, if any.
    pub fn error(&self, job: u32) -> Option<&str> {
        if self.errors.is_empty() {
            return None; // the common case, without hashing
        }
        self.errors.get(&job).map(String::as_str)
    }

    /// Why a queued job is held back this cycle, if it is (beyond the threshold).
    pub fn held(&self, job: u32) -> Option<Held> {
        if self.held.is_empty() {
            return None;
        }
        self.held.get(&job).copied()
    }

    /// Rank (1-based) of every job, indexed by job index.
    pub fn ranks(&self) -> Vec<u32> {
        let mut r = vec![0u32; self.ranked.len()];
        for (pos, x) in self.ranked.iter().enumerate() {
            if let Some(slot) = r.get_mut(x.job as usize) {
                *slot = pos as u32 + 1;
            }
        }
        r
    }

    /// Position of a job in the order.
    pub fn position(&self, job: usize) -> Option<usize> {
        self.ranked.iter().position(|r| r.job as usize == job)
    }
}

/// Sorts evaluated jobs.
pub fn order(jobs: &JobSet, evals: Evaluations, opts: &OrderOptions) -> QueueOrder {
    let n = jobs.len().min(evals.values.len());
    let threshold = opts.threshold;
    let fs = opts.fair_share_rank.as_deref();
    // Runnable first; each part in (value desc, fair-share rank, index) order, every job's key
    // packed into one u128 so the sort moves 16 bytes per job and compares integers.
    let mut first: Vec<u128> = Vec::with_capacity(n);
    let mut rest: Vec<u128> = Vec::new();
    let runnable = |i: usize| jobs.jobs.get(i).is_some_and(|j| j.state.is_runnable());
    for (i, &raw) in evals.values.iter().take(n).enumerate() {
        let value = if opts.pbs_compat {
            compat::value(raw)
        } else {
            raw
        };
        let fsr = fs.and_then(|r| r.get(i)).copied().unwrap_or(0);
        let key = pack(descending_key(value), fsr, i as u32);
        if runnable(i) {
            first.push(key)
        } else {
            rest.push(key)
        }
    }
    let value_at = |i: usize| {
        let raw = evals.values.get(i).copied().unwrap_or(0.0);
        if opts.pbs_compat {
            compat::value(raw)
        } else {
            raw
        }
    };
    let below_threshold = first
        .iter()
        .filter(|&&k| crate::pbs::defs::threshold::is_below(value_at(k as u32 as usize), threshold))
        .count();
    let summary = Summary {
        total: first.len() + rest.len(),
        eligible: first.len() - below_threshold,
        below_threshold,
    };
    // The job index in the low bits makes every key distinct, so an unstable sort is
    // deterministic and keeps submission order among ties. (Measured on this project's VM: a
    // pattern-defeating quicksort of 1M `u128`s costs ~40 ms CPU, an 8/11/16-bit LSD radix sort
    // 95-140 ms — memory-bound scatter passes.) With `top`, only the first `top` keys are
    // selected (linear) and sorted.
    let top = opts.top.unwrap_or(usize::MAX);
    keep_smallest(&mut first, top);
    keep_smallest(&mut rest, top.saturating_sub(first.len()));
    let ranked = first
        .iter()
        .map(|k| (k, true))
        .chain(rest.iter().map(|k| (k, false)))
        .map(|(&key, runnable)| {
            let job = key as u32;
            // The key holds the sorted value: decoding it spares a cold read per job. NaN and
            // zeros (normalised in the key) are read back exactly.
            let value = match value_of_key((key >> 64) as u64) {
                v if v.is_nan() || v == 0.0 => value_at(job as usize),
                v => v,
            };
            // PBS compares even when the threshold is unset (then INT_MIN); with
            // `--pbs-compat` `value` is PBS's 32-bit value, so a job exactly at the threshold
            // is classified as PBS classifies it.
            let below = runnable && crate::pbs::defs::threshold::is_below(value, threshold);
            Ranked {
                job,
                value,
                eligible: runnable && !below,
                below_threshold: below,
            }
        })
        .collect();
    QueueOrder {
        ranked,
        errors: evals.errors,
        held: HashMap::new(),
        summary,
    }
}

/// Sorts `keys` and keeps the `n` smallest; with `n` below the length they are selected in one
/// linear pass first, so only they are sorted.
fn keep_smallest(keys: &mut Vec<u128>, n: usize) {
    let kept = keep_smallest_in(keys, n);
    keys.truncate(kept);
}

/// [`keep_smallest`] in place: the `n` smallest keys sorted at the front of `keys`; returns how
/// many that is.
fn keep_smallest_in<T: Ord + Copy + Send + Sync>(keys: &mut [T], n: usize) -> usize {
    let mut len = keys.len();
    if n < len {
        if n == 0 {
            return 0;
        }
        keys.select_nth_unstable(n - 1);
        len = n;
    }
    if let Some(kept) = keys.get_mut(..len) {
        sort_keys(kept);
    }
    len
}

/// Bind, evaluate and sort: the whole dry run of one cycle's job sort. The jobs are bound,
/// evaluated and keyed in one pass (`order_pass`: no column per keyword, no array of values);
/// the result is that of [`Binder::bind`], [`evaluate`] and [`order`].
pub fn run(
    formula: &dyn SortFormula,
    binder: &Binder,
    jobs: &JobSet,
    opts: &OrderOptions,
) -> Result<QueueOrder, BindError> {
    let fs = opts.fair_share_rank.as_deref();
    match key_jobs(formula, binder, jobs, fs, opts.pbs_compat, opts.threshold) {
        Some(keyed) => Ok(order_keyed(keyed?, opts)),
        None => {
            let bound = binder.bind(jobs)?;
            let evals = evaluate(formula, &bound, jobs.len());
            Ok(order(jobs, evals, opts))
        }
    }
}

/// [`order`]'s sort and ranking of keys made by `order_pass::key_jobs`.
fn order_keyed(mut keyed: Keyed, opts: &OrderOptions) -> QueueOrder {
    let mut keys = std::mem::take(&mut keyed.keys);
    let summary = Summary {
        total: keys.len(),
        eligible: keyed.runnable - keyed.below_threshold,
        below_threshold: keyed.below_threshold,
    };
    let top = opts.top.unwrap_or(usize::MAX);
    let (first, rest) = keys.split_at_mut(keyed.runnable.min(summary.total));
    let kept_first = keep_smallest_in(first, top);
    let kept_rest = keep_smallest_in(rest, top.saturating_sub(kept_first));
    // The kept keys are one run: the rest is kept only when every runnable job is.
    let kept = kept_first + kept_rest;
    let entry = |i: usize, key: u128| {
        let runnable = i < kept_first;
        let value = keyed.value(key);
        let below = runnable && crate::pbs::defs::threshold::is_below(value, opts.threshold);
        Ranked {
            job: key as u32,
            value,
            eligible: runnable && !below,
            below_threshold: below,
        }
    };
    // Written over the keys, in their allocation (no second 16 MB at a million jobs).
    let ranked = crate::mem::reuse::map_in_place(keys, kept, |i, key| entry(i, key.get()));
    QueueOrder {
        ranked,
        errors: std::mem::take(&mut keyed.errors),
        held: HashMap::new(),
        summary,
    }
}

/// Dense fair-share ranks per job from a comparison of entity nodes (PBS `compare_path`):
/// equal nodes share a rank; jobs without a node rank last.
pub fn fair_share_ranks(
    job_nodes: &[Option<NodeId>],
    cmp: &dyn Fn(NodeId, NodeId) -> Ordering,
) -> Vec<u32> {
    ranks_of_nodes(job_nodes, entity_nodes(job_nodes), cmp)
}

/// The distinct nodes of the jobs, in id order: marked in a table by node (one pass over the
/// jobs, no copy of their nodes to sort).
pub fn entity_nodes(job_nodes: &[Option<NodeId>]) -> Vec<NodeId> {
    let mut seen: Vec<bool> = Vec::new();
    for &n in job_nodes.iter().flatten() {
        if n >= seen.len() {
            seen.resize(n + 1, false);
        }
        if let Some(s) = seen.get_mut(n) {
            *s = true;
        }
    }
    (seen.iter().enumerate())
        .filter_map(|(n, &s)| s.then_some(n))
        .collect()
}

/// [`fair_share_ranks`] with the jobs' distinct nodes given ([`entity_nodes`]): they are sorted
/// by `cmp` (a stable sort from id order, so a comparison that is not a strict weak order still
/// gives the same ranks every time), and each job's rank is read from a table indexed by node.
pub fn ranks_of_nodes(
    job_nodes: &[Option<NodeId>],
    mut nodes: Vec<NodeId>,
    cmp: &dyn Fn(NodeId, NodeId) -> Ordering,
) -> Vec<u32> {
    let size = nodes.iter().max().map_or(0, |&n| n + 1);
    nodes.sort_by(|a, b| cmp(*a, *b));
    let mut rank_of = vec![u32::MAX; size];
    let mut rank = 0u32;
    for (i, &n) in nodes.iter().enumerate() {
        if i > 0
            && nodes
                .get(i - 1)
                .is_some_and(|&p| cmp(p, n) != Ordering::Equal)
        {
            rank += 1;
        }
        if let Some(slot) = rank_of.get_mut(n) {
            *slot = rank;
        }
    }
    crate::parallel::map_slice(job_nodes, |_, n| {
        n.and_then(|n| rank_of.get(n).copied()).unwrap_or(u32::MAX)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::{Algorithm, Column, ShareResult};
    use crate::order::bind::Binder;
    use crate::order::shares::ShareContext;
    use crate::order::testing::ClosureFormula;
    use crate::pbs::defs::FairshareEntity as EntityKey;
    use crate::pbs::qstat::read_qstat_json;
    use approx::assert_abs_diff_eq;

    fn qstat(jobs: &[(&str, &str, &str)]) -> JobSet {
        // (id, user, Resource_List JSON body); qtime increases with position.
        let body: Vec<String> = jobs
            .iter()
            .enumerate()
            .map(|(i, (id, user, res))| {
                format!(
                    r#""{id}":{{"Job_Owner":"{user}@h","euser":"{user}","job_state":"Q","queue":"workq",
                    "qtime":"Tue Oct  4 21:23:{:02} 2022","Resource_List":{{{res}}}}}"#,
                    i + 10
                )
            })
            .collect();
        read_qstat_json(format!(r#"{{"Jobs":{{{}}}}}"#, body.join(",")).as_bytes()).unwrap()
    }

    fn no_queues(_: &str) -> Option<i64> {
        None
    }

    fn ids(set: &JobSet, o: &QueueOrder) -> Vec<String> {
        o.ranked
            .iter()
            .map(|r| {
                set.jobs[r.job as usize]
                    .id
                    .split('.')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn threshold_vector_4_3() {
        // ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime))), threshold 7 (openpbs.md §4.3).
        let set = qstat(&[
            ("1.s", "u", r#""ncpus":1,"mem":"300kb","walltime":4"#),
            ("2.s", "u", r#""ncpus":1,"mem":"350kb","walltime":4"#),
            ("3.s", "u", r#""ncpus":1,"mem":"380kb","walltime":4"#),
            ("4.s", "u", r#""ncpus":1,"mem":"440kb","walltime":4"#),
        ]);
        let f = ClosureFormula::new("t", &["ncpus", "mem", "walltime"], |s| {
            Ok((-s[0] * (s[1] / 100.0) * s[2].sqrt()).abs().ceil())
        });
        let b = Binder::new(f.keywords(), &set, &no_queues, None, false).unwrap();
        let opts = OrderOptions {
            threshold: Some(7.0),
            ..Default::default()
        };
        let o = run(&f, &b, &set, &opts).unwrap();
        assert_eq!(ids(&set, &o), ["4", "3", "2", "1"]);
        let values: Vec<f64> = o.ranked.iter().map(|r| r.value).collect();
        assert_eq!(values, [9.0, 8.0, 7.0, 6.0]);
        let eligible: Vec<bool> = o.ranked.iter().map(|r| r.eligible).collect();
        assert_eq!(eligible, [true, true, false, false], "value <= threshold");
    }

    #[test]
    fn fairshare_and_walltime_vector_4_2() {
        // fairshare_factor + (walltime/ncpus), §4.2 test_fairshare_formula6, with the §4.1
        // factors filled in by hand (the engine computes them in the CLI tests).
        let set = qstat(&[
            ("1.s", "pbsuser2", r#""ncpus":1,"walltime":"00:01:00""#),
            ("2.s", "pbsuser3", r#""ncpus":2,"walltime":"00:01:00""#),
            ("3.s", "pbsuser", r#""ncpus":3,"walltime":"00:02:00""#),
            ("4.s", "pbsuser1", r#""ncpus":4,"walltime":"00:02:00""#),
        ]);
        let tree = crate::order::testing::pbs_4_1_tree();
        let mut ctx = ShareContext::resolve(tree, &set, EntityKey::Euser);
        let mut result = ShareResult::new(Algorithm::Pbs, ctx.tree.len());
        for (name, factor) in [
            ("pbsuser", 0.647718),
            ("pbsuser1", 0.647718),
            ("pbsuser2", 0.381553),
            ("pbsuser3", 0.090201),
        ] {
            let id = ctx.tree.users_named(name)[0];
            result.set(Column::FairshareFactor, id, Some(factor));
        }
        ctx.results.push(result);
        let f = ClosureFormula::new("f", &["fairshare_factor", "walltime", "ncpus"], |s| {
            Ok(s[0] + s[1] / s[2])
        });
        let b = Binder::new(f.keywords(), &set, &no_queues, Some(&ctx), false).unwrap();
        let o = run(&f, &b, &set, &OrderOptions::default()).unwrap();
        assert_eq!(ids(&set, &o), ["1", "3", "4", "2"]);
        let tol = 5e-5; // the reference prints 4 decimals
        for (r, want) in o.ranked.iter().zip([60.3816, 40.6477, 30.6477, 30.0902]) {
            assert_abs_diff_eq!(r.value, want, epsilon = tol);
        }
    }

    #[test]
    fn ties_keep_submission_order_and_negative_values_sort_down() {
        let set = qstat(&[
            ("1.s", "a", r#""foo":-2"#),
            ("2.s", "b", r#""foo":-1"#),
            ("3.s", "c", r#""foo":-1"#),
            ("10.s", "d", r#""foo":-1"#),
        ]);
        let f = ClosureFormula::new("foo", &["foo"], |s| Ok(s[0]));
        let b = Binder::new(f.keywords(), &set, &no_queues, None, false).unwrap();
        let o = run(&f, &b, &set, &OrderOptions::default()).unwrap();
        assert_eq!(ids(&set, &o), ["2", "3", "10", "1"]);
    }

    #[test]
    fn errors_give_zero_and_keep_the_message() {
        let set = qstat(&[("1.s", "a", r#""ncpus":0"#), ("2.s", "b", r#""ncpus":2"#)]);
        let f = ClosureFormula::new("1/ncpus", &["ncpus"], |s| {
            if s[0] == 0.0 {
                Err("division by zero".into())
            } else {
                Ok(1.0 / s[0])
            }
        });
        let b = Binder::new(f.keywords(), &set, &no_queues, None, false).unwrap();
        let o = run(&f, &b, &set, &OrderOptions::default()).unwrap();
        assert_eq!(ids(&set, &o), ["2", "1"]);
        assert_eq!(o.ranked[1].value, 0.0);
        assert_eq!(o.error(o.ranked[1].job), Some("division by zero"));
    }

    #[test]
    fn threshold_at_the_value_and_unset_as_pbs() {
        // value 0.1 and threshold 0.1: fairsort's double is at the threshold; PBS keeps the
        // value as the float 0.100000001 and the threshold as the double 0.1: above it.
        let set = qstat(&[
            ("1.s", "a", r#""x":0.1"#),
            ("2.s", "b", r#""x":-3000000000"#),
        ]);
        let f = ClosureFormula::new("x", &["x"], |s| Ok(s[0]));
        let threshold = Some(crate::pbs::defs::threshold::stored(0.1));
        let b = Binder::new(f.keywords(), &set, &no_queues, None, false).unwrap();
        let exact = run(
            &f,
            &b,
            &set,
            &OrderOptions {
                threshold,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(exact.ranked[0].below_threshold, "default mode: 0.1 <= 0.1");
        let bc = Binder::new(f.keywords(), &set, &no_queues, None, true).unwrap();
        let opts = OrderOptions {
            threshold,
            pbs_compat: true,
            ..Default::default()
        };
        let compat = run(&f, &bc, &set, &opts).unwrap();
        assert!(!compat.ranked[0].below_threshold, "PBS: 0.1f > 0.1");
        assert!(compat.ranked[0].eligible);
        // unset: INT_MIN; a value at or below it is held back all the same
        let unset = run(&f, &b, &set, &OrderOptions::default()).unwrap();
        assert!(!unset.ranked[0].below_threshold);
        assert!(unset.ranked[1].below_threshold, "-3e9 <= INT_MIN");
        assert!(!unset.ranked[1].eligible);
    }

    #[test]
    fn compat_compares_as_f32() {
        // 1 + 1e-9 and 1 are different doubles but the same float: PBS keeps submission order.
        let set = qstat(&[("1.s", "a", r#""x":1"#), ("2.s", "b", r#""x":1.000000001"#)]);
        let f = ClosureFormula::new("x", &["x"], |s| Ok(s[0]));
        let b = Binder::new(f.keywords(), &set, &no_queues, None, false).unwrap();
        let exact = run(&f, &b, &set, &OrderOptions::default()).unwrap();
        assert_eq!(ids(&set, &exact), ["2", "1"]);
        let bc = Binder::new(f.keywords(), &set, &no_queues, None, true).unwrap();
        let opts = OrderOptions {
            pbs_compat: true,
            ..Default::default()
        };
        let compat = run(&f, &bc, &set, &opts).unwrap();
        assert_eq!(ids(&set, &compat), ["1", "2"]);
    }

    #[test]
    fn fair_share_ties_and_runnable_first() {
        let set = read_qstat_json(
            br#"{"Jobs":{"1.s":{"Job_Owner":"a@h","job_state":"R","qtime":1},
                          "2.s":{"Job_Owner":"a@h","qtime":2},
                          "3.s":{"Job_Owner":"b@h","qtime":3}}}"#,
        )
        .unwrap();
        let f = ClosureFormula::new("1", &[], |_| Ok(1.0));
        let b = Binder::new(f.keywords(), &set, &no_queues, None, false).unwrap();
        let nodes = vec![Some(5), Some(5), Some(7)];
        let ranks = fair_share_ranks(&nodes, &|a, b| b.cmp(&a));
        assert_eq!(ranks, [1, 1, 0]);
        let opts = OrderOptions {
            fair_share_rank: Some(ranks),
            ..Default::default()
        };
        let o = run(&f, &b, &set, &opts).unwrap();
        assert_eq!(ids(&set, &o), ["3", "2", "1"]);
        assert!(!o.ranked[2].eligible && !o.ranked[2].below_threshold);
    }

    #[test]
    fn packed_keys_order_by_value_then_rank_then_index() {
        let hi = descending_key(2.0);
        let lo = descending_key(1.0);
        let mut v = [
            pack(lo, 0, 0),
            pack(hi, 1, 1),
            pack(hi, 0, 3),
            pack(hi, 0, 2),
        ];
        v.sort_unstable();
        let jobs: Vec<u32> = v.iter().map(|&k| k as u32).collect();
        assert_eq!(jobs, [2, 3, 1, 0]);
    }

    #[test]
    fn the_parallel_sort_sorts_large_and_skewed_inputs() {
        let mut x: u64 = 99;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Random values; nearly all equal values (distinct only by the index bits); ascending
        // and descending values (each worker's part all below the pivot or all above: the
        // runs swapped are whole parts).
        for n in [PARALLEL_MIN_JOBS * 2 + 17, PARALLEL_MIN_JOBS * 5 + 3] {
            for shape in 0..4 {
                let mut keys: Vec<u128> = (0..n)
                    .map(|i| {
                        let v = match shape {
                            0 => next(),
                            1 if i % 100 != 0 => 5,
                            1 => next(),
                            2 => i as u64,
                            _ => (n - i) as u64,
                        };
                        pack(v, 0, i as u32)
                    })
                    .collect();
                let mut expected = keys.clone();
                expected.sort_unstable();
                sort_keys(&mut keys);
                assert!(keys == expected, "{n} keys, shape {shape}");
            }
        }
    }

    /// A bound queue of `n` jobs with one slot, `x` = the job's index.
    fn indexed(n: usize) -> Bound<'static> {
        Bound {
            jobs: n,
            columns: vec![(0..n).map(|i| i as f64).collect::<Vec<_>>().into()],
        }
    }

    #[test]
    fn a_large_queue_is_evaluated_in_parallel_with_every_error_kept() {
        let n = PARALLEL_MIN_JOBS * 2 + 17;
        let f = ClosureFormula::new("x", &["x"], |s| {
            if s[0] as usize % 40_000 == 7 {
                Err(format!("no {}", s[0]))
            } else {
                Ok(s[0] + 1.0)
            }
        });
        let e = evaluate(&f, &indexed(n), n);
        assert_eq!(e.values.len(), n);
        for (i, &v) in e.values.iter().enumerate() {
            let want = if i % 40_000 == 7 { 0.0 } else { i as f64 + 1.0 };
            assert_eq!(v, want, "job {i}");
        }
        let mut errors: Vec<(u32, String)> = e.errors.into_iter().collect();
        errors.sort();
        let want: Vec<(u32, String)> = (0..n)
            .filter(|i| i % 40_000 == 7)
            .map(|i| (i as u32, format!("no {i}")))
            .collect();
        assert_eq!(errors, want);
    }

    #[test]
    fn a_failing_part_of_the_evaluation_reaches_the_caller_not_zeros() {
        // The last jobs fall in a part evaluated off the calling thread; a bug there used to
        // leave that part of the queue at 0 and the caller none the wiser.
        let n = PARALLEL_MIN_JOBS * 2;
        let f = ClosureFormula::new("x", &["x"], |s| {
            assert!(s[0] < (n - 10) as f64, "formula engine bug");
            Ok(1.0)
        });
        let bound = indexed(n);
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| evaluate(&f, &bound, n)));
        let payload = caught.expect_err("the failure is not turned into values");
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied());
        assert_eq!(message, Some("formula engine bug"));
    }

    #[test]
    fn keys_decode_to_their_values() {
        for v in [
            -1e300,
            -2.5,
            -1e-310,
            1e-310,
            0.5,
            1.0,
            7.0,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(
                value_of_key(descending_key(v)).to_bits(),
                v.to_bits(),
                "{v}"
            );
        }
        assert!(value_of_key(descending_key(f64::NAN)).is_nan());
        assert_eq!(value_of_key(descending_key(-0.0)), 0.0);
    }

    #[test]
    fn descending_keys_are_a_total_order() {
        let vals = [
            f64::INFINITY,
            3.0,
            0.5,
            0.0,
            -0.0,
            -1.0,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for w in vals.windows(2) {
            assert!(descending_key(w[0]) <= descending_key(w[1]), "{w:?}");
        }
        assert_eq!(descending_key(0.0), descending_key(-0.0));
    }

    #[test]
    fn text_in_a_used_resource_names_the_job() {
        let set = qstat(&[("1.s", "a", r#""foo":"lots""#)]);
        let f = ClosureFormula::new("foo", &["foo"], |s| Ok(s[0]));
        let b = Binder::new(f.keywords(), &set, &no_queues, None, false).unwrap();
        let e = run(&f, &b, &set, &OrderOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "job `1.s`: Resource_List.foo = `lots` is not a number (the formula uses `foo`)"
        );
    }
}

#[cfg(test)]
mod top_tests {
    use super::*;
    use crate::native::read_job_list_json;

    #[test]
    fn top_ranks_the_same_first_jobs_and_counts_every_job() {
        // 200 jobs: runnable and held ones, ties, a threshold that holds some back.
        let list: Vec<String> = (0..200)
            .map(|i| {
                let state = if i % 7 == 0 { "H" } else { "Q" };
                format!(
                    r#"{{"id":"{i}","user":"u{}","queue":"q","qtime":{i},"state":"{state}"}}"#,
                    i % 5
                )
            })
            .collect();
        let jobs = read_job_list_json(format!("[{}]", list.join(",")).as_bytes()).unwrap();
        let values: Vec<f64> = (0..200).map(|i| ((i * 37) % 23) as f64).collect();
        let evals = || Evaluations {
            values: values.clone(),
            errors: HashMap::new(),
        };
        let full = order(
            &jobs,
            evals(),
            &OrderOptions {
                threshold: Some(3.0),
                ..Default::default()
            },
        );
        assert_eq!(full.ranked.len(), 200);
        assert_eq!(full.summary.total, 200);
        let eligible = full.ranked.iter().filter(|r| r.eligible).count();
        let below = full.ranked.iter().filter(|r| r.below_threshold).count();
        assert_eq!(
            (full.summary.eligible, full.summary.below_threshold),
            (eligible, below)
        );
        assert!(below > 0 && eligible > 0);
        for top in [0, 1, 17, 171, 172, 199, 200, 500] {
            let opts = OrderOptions {
                threshold: Some(3.0),
                top: Some(top),
                ..Default::default()
            };
            let part = order(&jobs, evals(), &opts);
            assert_eq!(part.ranked.len(), top.min(200), "top {top}");
            assert_eq!(part.ranked[..], full.ranked[..top.min(200)], "top {top}");
            assert_eq!(part.summary, full.summary, "top {top}");
        }
    }
}
