//! Bind, evaluate and key every job in one pass: a block of jobs is gathered
//! straight from the job records into a small row buffer, evaluated, and written as packed sort
//! keys into one array allocated once (runnable jobs from the front of their part of it, the
//! others from its back), on every worker for a large queue. No column per resource or keyword and no array of values:
//! at ten million jobs each byte per job that is touched fresh costs ≈ 15 ms of page clearing.
//! `order::run` uses it; `order::evaluate` + `order::order` remain the reference it is tested
//! against.

use crate::jobs::error::BindError;
use crate::jobs::job::ResourceValue;
use crate::jobs::job_set::JobSet;
use crate::mem::{prefetch, prefetch_all};
use crate::order::bind::{Binder, Source};
use crate::order::compat;
use crate::order::formula_api::SortFormula;
use crate::order::keys::{descending_key, pack, value_of_key, Key};
use crate::parallel::{self, PARALLEL_MIN_JOBS};
use std::collections::HashMap;

/// Jobs per block: the block's rows (`width` values each) stay in L1/L2.
const BLOCK: usize = 1024;

/// How many jobs ahead a job's requests are prefetched.
const AHEAD: usize = 16;

/// `Pass::slot_of` for a resource no slot reads.
const NO_SLOT: u32 = u32::MAX;

/// Every job's sort key, runnable jobs first.
pub(crate) struct Keyed {
    /// The keys: `keys[..runnable]` of runnable jobs, the rest after, each part unsorted.
    pub keys: Vec<Key>,
    /// How many jobs are runnable.
    pub runnable: usize,
    /// How many runnable jobs are at or below the threshold.
    pub below_threshold: usize,
    /// The values a key does not give back exactly (NaN, -0.0), by job index, sorted.
    pub exceptions: Vec<(u32, f64)>,
    /// Python's message per job index that failed.
    pub errors: HashMap<u32, String>,
}

impl Keyed {
    /// The value job `key` was sorted by (as `order::order` reads it from the evaluations).
    pub fn value(&self, key: u128) -> f64 {
        let v = value_of_key((key >> 64) as u64);
        if !(v.is_nan() || v == 0.0) {
            return v;
        }
        let job = key as u32;
        match self.exceptions.binary_search_by_key(&job, |e| e.0) {
            Ok(i) => self.exceptions.get(i).map_or(v, |e| e.1),
            Err(_) => v,
        }
    }
}

/// What one pass reads, shared by every part.
struct Pass<'a> {
    jobs: &'a JobSet,
    binder: &'a Binder,
    formula: &'a dyn SortFormula,
    /// The slot of each resource symbol (`NO_SLOT`: not read).
    slot_of: Vec<u32>,
    /// Each job's fair-share rank (`order::OrderOptions::fair_share_rank`).
    fs: Option<&'a [u32]>,
    pbs_compat: bool,
    threshold: Option<f64>,
}

/// One part's results.
#[derive(Default)]
struct PartKeys {
    runnable: usize,
    below_threshold: usize,
    exceptions: Vec<(u32, f64)>,
    errors: Vec<(u32, String)>,
    /// Per slot: the first job (index) whose value of the slot's resource is text, with it.
    texts: Vec<Option<(u32, ResourceValue)>>,
}

/// Binds, evaluates and keys every job of `jobs`; `None` when the binder's slots do not suit
/// the pass (two slots of one resource), for the caller to take the column path.
pub(crate) fn key_jobs(
    formula: &dyn SortFormula,
    binder: &Binder,
    jobs: &JobSet,
    fair_share_rank: Option<&[u32]>,
    pbs_compat: bool,
    threshold: Option<f64>,
) -> Option<Result<Keyed, BindError>> {
    let mut slot_of = vec![NO_SLOT; jobs.resources.len()];
    for (slot, src) in binder.sources().iter().enumerate() {
        if let Source::Resource(Some(sym)) = src {
            match slot_of.get_mut(*sym as usize) {
                Some(s @ &mut NO_SLOT) => *s = slot as u32,
                _ => return None,
            }
        }
    }
    let pass = Pass {
        jobs,
        binder,
        formula,
        slot_of,
        fs: fair_share_rank,
        pbs_compat,
        threshold,
    };
    let n = jobs.len();
    let mut keys = vec![Key::default(); n];
    // Parts of whole blocks.
    let ranges = parallel::ranges(n, PARALLEL_MIN_JOBS, BLOCK);
    let parts = parallel::split_mut(&mut keys, &ranges);
    let starts = ranges.iter().map(|r| r.start);
    let parts = parallel::run_parts(starts.zip(parts).collect(), |(start, out)| {
        let len = out.len();
        (len, pass.key_range(start, out))
    });
    Some(pass.combine(keys, parts))
}

impl Pass<'_> {
    /// Keys the jobs `start..start + out.len()` into `out`: runnable ones from the front, the
    /// others from the back.
    fn key_range(&self, start: usize, out: &mut [Key]) -> PartKeys {
        let sources = self.binder.sources();
        let width = sources.len();
        let mut part = PartKeys {
            texts: vec![None; width],
            ..PartKeys::default()
        };
        let mut rows = vec![0.0; BLOCK * width];
        let mut values = [0.0; BLOCK];
        let (mut front, mut back) = (0, out.len());
        let jobs = self.jobs.jobs.get(start..start + out.len()).unwrap_or(&[]);
        for (b, block) in jobs.chunks(BLOCK).enumerate() {
            let first = start + b * BLOCK;
            let rows = rows.get_mut(..block.len() * width).unwrap_or_default();
            for ((k, job), row) in block.iter().enumerate().zip(rows.chunks_mut(width.max(1))) {
                // Cache misses overlapped by asking early: the records are read in order, but
                // the hardware prefetcher stops at each 4 KiB page; a job's requests lie where
                // the reader put them (not in submission order) and its fair-share values at
                // random by node.
                // Every line of the far record: the fields read here span both lines of the
                // 96-byte record, and a demand miss on the second line was the pass's main stall.
                let k = b * BLOCK + k;
                if let Some(far) = jobs.get(k + 4 * AHEAD) {
                    prefetch_all(Some(far));
                }
                if let Some(ahead) = jobs.get(k + AHEAD) {
                    let requests = &self.jobs.requests;
                    let run = ahead.requests();
                    prefetch(requests.get(run.start));
                    prefetch(requests.get(run.end.wrapping_sub(1)));
                    for src in self.binder.sources() {
                        if let Source::Share { by_node, .. } = src {
                            prefetch(
                                self.binder
                                    .node(start + k + AHEAD)
                                    .and_then(|n| by_node.get(n)),
                            );
                        }
                    }
                }
                self.bind_row(start + k, job, row, &mut part.texts);
            }
            let values = values.get_mut(..block.len()).unwrap_or_default();
            for (j, e) in self.formula.evaluate_rows(rows, values) {
                if let Some(v) = values.get_mut(j) {
                    *v = 0.0;
                }
                part.errors.push(((first + j) as u32, e));
            }
            for ((k, job), &raw) in block.iter().enumerate().zip(values.iter()) {
                let i = first + k;
                let value = if self.pbs_compat {
                    compat::value(raw)
                } else {
                    raw
                };
                if value.is_nan() || (value == 0.0 && value.is_sign_negative()) {
                    part.exceptions.push((i as u32, value));
                }
                let rank = self.fs.and_then(|r| r.get(i)).copied().unwrap_or(0);
                let key = pack(descending_key(value), rank, i as u32);
                let slot = if job.state.is_runnable() {
                    if crate::pbs::defs::threshold::is_below(value, self.threshold) {
                        part.below_threshold += 1;
                    }
                    front += 1;
                    out.get_mut(front - 1)
                } else {
                    back -= 1;
                    out.get_mut(back)
                };
                if let Some(s) = slot {
                    *s = Key::new(key);
                }
            }
        }
        part.runnable = front;
        part
    }

    /// Fills job `i`'s slot values into `row`, as `Binder::bind` gathers them; a text value of
    /// a resource a slot reads is noted in `texts` (the first per slot).
    fn bind_row(
        &self,
        i: usize,
        job: &crate::jobs::job::Job,
        row: &mut [f64],
        texts: &mut [Option<(u32, ResourceValue)>],
    ) {
        let b = self.binder;
        for (out, src) in row.iter_mut().zip(b.sources()) {
            *out = match src {
                Source::Resource(None) => 0.0,
                Source::Resource(Some(_)) => b.resource_value(0.0),
                Source::QueuePriority => b.queue_priority_of(job.queue),
                Source::JobPriority => job.priority as f64,
                Source::EligibleTime => b.eligible(job.eligible_time),
                Source::AccrueType => job.accrue_type as f64,
                Source::Share { by_node, .. } => b
                    .node(i)
                    .and_then(|n| by_node.get(n).copied())
                    .unwrap_or(0.0),
            };
        }
        for r in self.jobs.requests(job) {
            let slot = self.slot_of.get(r.sym() as usize).copied();
            let Some(slot) = slot.filter(|&s| s != NO_SLOT) else {
                continue;
            };
            match r.value() {
                ResourceValue::Number(x) => {
                    if let Some(out) = row.get_mut(slot as usize) {
                        *out = b.resource_value(x);
                    }
                }
                text => {
                    if let Some(first @ None) = texts.get_mut(slot as usize) {
                        *first = Some((i as u32, text));
                    }
                }
            }
        }
    }

    /// Puts the parts' runnable keys together before the others' (`parts`: each part's length
    /// and results, in order) and gathers their counts; a text value in a used resource is the
    /// bind error of the first such slot.
    fn combine(
        &self,
        mut keys: Vec<Key>,
        parts: Vec<(usize, PartKeys)>,
    ) -> Result<Keyed, BindError> {
        let width = self.binder.sources().len();
        for slot in 0..width {
            let first = (parts.iter())
                .filter_map(|(_, h)| h.texts.get(slot).copied().flatten())
                .min_by_key(|t| t.0);
            if let Some((j, text)) = first {
                let id = (self.jobs.jobs.get(j as usize)).map_or("", |x| x.id.as_str());
                return Err(self.binder.not_numeric(id, slot, self.jobs.text(text)));
            }
        }
        // [A runnable | A rest | B runnable | B rest | …] → [runnable … | rest …], each group
        // in no order (both are sorted next).
        let shape: Vec<(usize, usize)> = parts.iter().map(|(len, p)| (*len, p.runnable)).collect();
        let runnable = parallel::gather_fronts(&mut keys, &shape);
        let mut below_threshold = 0;
        let mut exceptions = Vec::new();
        let mut errors = HashMap::new();
        for (_, part) in parts {
            below_threshold += part.below_threshold;
            exceptions.extend(part.exceptions);
            errors.extend(part.errors);
        }
        Ok(Keyed {
            keys,
            runnable,
            below_threshold,
            exceptions,
            errors,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::read_job_list_csv;
    use crate::order::sort::{evaluate, order, run, OrderOptions, QueueOrder};
    use crate::order::testing::ClosureFormula;

    /// The order of the column path: `Binder::bind`, `evaluate`, `order` (the reference).
    fn reference(
        f: &dyn SortFormula,
        b: &Binder,
        set: &JobSet,
        opts: &OrderOptions,
    ) -> Result<QueueOrder, BindError> {
        let bound = b.bind(set)?;
        Ok(order(set, evaluate(f, &bound, set.len()), opts))
    }

    /// `n` jobs: running, held and queued ones; three queues; `ncpus` 0..4 (0 makes the
    /// formula below fail); `place` text in jobs listed in `text_at`.
    fn queue(n: usize, text_at: &[usize]) -> JobSet {
        let mut csv = String::from(
            "id,user,queue,state,priority,eligible_time,accrue_type,ncpus,place,mem\n",
        );
        for i in 0..n {
            let place = if text_at.contains(&i) { "free" } else { "" };
            let state = ["R", "Q", "Q", "H", "Q"][i % 5];
            csv.push_str(&format!(
                "{i}.s,u{},q{},{state},{},{},{},{},{place},{}\n",
                i % 7,
                i % 3,
                (i * 7) % 11,
                (i * 13) % 17,
                i % 4,
                i % 5,
                (i * 31) % 9,
            ));
        }
        read_job_list_csv(csv.as_bytes()).unwrap()
    }

    fn qp(q: &str) -> Option<i64> {
        match q {
            "q1" => Some(100),
            "q2" => Some(-10),
            _ => None,
        }
    }

    /// A formula with errors (`ncpus` 0), NaN, -0.0, ties and every attribute keyword.
    fn formula() -> impl SortFormula {
        let keywords = [
            "ncpus",
            "mem",
            "queue_priority",
            "job_priority",
            "eligible_time",
            "accrue_type",
            "nosuch",
        ];
        ClosureFormula::new("f", &keywords, |s| match s[1] as i64 {
            _ if s[0] == 0.0 => Err(format!("division by zero {}", s[3])),
            1 => Ok(f64::NAN),
            2 => Ok(-0.0),
            3 => Ok(s[2] / 10.0 + s[6]),
            _ => Ok(s[3] + s[4] / 3.0 + s[5] * 0.25 - s[0]),
        })
    }

    /// Compares the one-pass order with the reference under every option.
    fn check(n: usize) {
        let set = queue(n, &[]);
        let f = formula();
        for compat in [false, true] {
            let b = Binder::new(f.keywords(), &set, &qp, None, compat).unwrap();
            let ranks: Vec<u32> = (0..n as u32).map(|i| (i * 7919) % 13).collect();
            for (threshold, fs, top) in [
                (None, None, None),
                (Some(1.0), Some(ranks.clone()), None),
                (Some(0.0), None, Some(0)),
                (Some(2.5), Some(ranks.clone()), Some(n / 3 + 1)),
                (None, None, Some(n + 5)),
            ] {
                let opts = OrderOptions {
                    threshold,
                    pbs_compat: compat,
                    fair_share_rank: fs,
                    top,
                };
                let want = reference(&f, &b, &set, &opts).unwrap();
                let got = run(&f, &b, &set, &opts).unwrap();
                assert_eq!(got.summary, want.summary, "{n} jobs, {opts:?}");
                assert_eq!(got.errors, want.errors, "{n} jobs");
                assert_eq!(got.ranked.len(), want.ranked.len(), "{n} jobs");
                for (g, w) in got.ranked.iter().zip(&want.ranked) {
                    assert_eq!(g.job, w.job, "{n} jobs, {opts:?}");
                    assert_eq!(g.value.to_bits(), w.value.to_bits(), "job {}", g.job);
                    assert_eq!(
                        (g.eligible, g.below_threshold),
                        (w.eligible, w.below_threshold)
                    );
                }
            }
        }
    }

    #[test]
    fn small_queues_order_as_the_column_path() {
        for n in [0, 1, 2, 5, 1023, 1024, 1025, 3001] {
            check(n);
        }
    }

    #[test]
    fn a_large_queue_in_uneven_parts_orders_as_the_column_path() {
        // Odd, not a multiple of the block: the last part is shorter, and the parts differ in
        // runnable jobs.
        check(PARALLEL_MIN_JOBS * 2 + 17);
    }

    #[test]
    fn text_in_a_used_resource_is_the_column_paths_error() {
        let n = PARALLEL_MIN_JOBS * 2 + 3;
        let f = ClosureFormula::new("f", &["ncpus", "place"], |s| Ok(s[0] + s[1]));
        let unused = ClosureFormula::new("g", &["ncpus"], |s| Ok(s[0]));
        // Only in the last part; in several parts (the first part's job is named); in one job.
        for text_at in [vec![n - 2], vec![n - 2, 40_000, 90_000], vec![0]] {
            let set = queue(n, &text_at);
            let b = Binder::new(f.keywords(), &set, &qp, None, false).unwrap();
            let opts = OrderOptions::default();
            let want = reference(&f, &b, &set, &opts).unwrap_err();
            let got = run(&f, &b, &set, &opts).unwrap_err();
            assert_eq!(got, want);
            let first = text_at.iter().min().unwrap();
            assert!(got.to_string().contains(&format!("`{first}.s`")), "{got}");
            let b = Binder::new(unused.keywords(), &set, &qp, None, false).unwrap();
            assert!(
                run(&unused, &b, &set, &opts).is_ok(),
                "text in an unused resource"
            );
        }
    }

    #[test]
    fn keys_give_back_nan_and_negative_zero() {
        let set = queue(12, &[]);
        let f = ClosureFormula::new("f", &["mem"], |s| match s[0] as i64 {
            1 => Ok(f64::NAN),
            2 => Ok(-0.0),
            x => Ok(x as f64),
        });
        let b = Binder::new(f.keywords(), &set, &qp, None, false).unwrap();
        let keyed = key_jobs(&f, &b, &set, None, false, None).unwrap().unwrap();
        assert_eq!(keyed.keys.len(), 12);
        for k in keyed.keys.iter().map(|k| k.get()) {
            let mem = ((k as u32 as usize) * 31) % 9;
            let v = keyed.value(k);
            match mem {
                1 => assert!(v.is_nan()),
                2 => assert_eq!(v.to_bits(), (-0.0f64).to_bits()),
                x => assert_eq!(v, x as f64),
            }
        }
    }
}
