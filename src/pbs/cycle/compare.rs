//! The scheduler's job comparison, `cmp_sort` (OpenPBS `sort.cpp`), over one cycle's facts:
//!
//! 1. runnable jobs before the others (`in_runnable_state`); two runnable or two non-runnable
//!    jobs are compared by the rest;
//! 2. preemption level, higher first (`cmp_preemption`);
//! 3. formula value, higher first (`cmp_job_sort_formula`), compared as the C `float` the
//!    scheduler keeps. **NaN**: `cmp_job_sort_formula` returns 0 when neither `<` nor `>` holds,
//!    so NaN is *equal to every value* and the next keys decide; the comparison is then not a
//!    total order and the result is whatever glibc's merge sort makes of it
//!    ([`crate::pbs::cycle::msort`]), which is reproduced. Without a formula every value is 0;
//! 4. with `fair_share` on, the entities' fair-share paths (`cmp_fairshare`: `compare_path`,
//!    taken as the dense rank `order::sort::fair_share_ranks` gives);
//! 5. the `job_sort_key`s in order (`multi_sort`, `resresv_sort_cmp`: `HIGH` larger first,
//!    `LOW` smaller first, equal values tie; a `preempt_priority` key reads the level);
//! 6. `qrank` then `rank`: the job's place in the server's list (the `JobSet` order, submission
//!    order), which makes every pair distinct.
//!
//! Steps 1, 2, 4, 5 and 6 are total orders on integers and doubles; only NaN in step 3 (or in a
//! sort key) breaks transitivity, as in PBS.

use crate::pbs::cycle::levels::Preemption;
use crate::pbs::cycle::rules::CycleRules;
use std::cmp::Ordering;

/// One job's facts the comparison reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CycleJob {
    /// Index into `JobSet::jobs`.
    pub job: u32,
    /// `in_runnable_state`.
    pub runnable: bool,
    /// Its preemption level.
    pub preemption: Preemption,
    /// Its formula value as a float (0 without a formula).
    pub value: f64,
    /// Its fair-share rank (0 when `fair_share` is off).
    pub fs_rank: u32,
}

/// `cmp_sort` over a cycle's jobs.
pub(crate) struct JobCompare<'a> {
    jobs: &'a [CycleJob],
    /// (column, HIGH) per sort key; None for `preempt_priority`.
    keys: Vec<(Option<&'a [f64]>, bool)>,
    fair_share: bool,
}

/// Higher first with C's `<`/`>`: NaN compares equal to everything.
fn desc(a: f64, b: f64) -> Ordering {
    if a < b {
        Ordering::Greater
    } else if a > b {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

impl<'a> JobCompare<'a> {
    /// The comparison for `jobs` (indexed by job) with the sort-key columns of `rules.sort_keys`.
    pub(crate) fn new(jobs: &'a [CycleJob], columns: &'a [Vec<f64>], rules: &CycleRules) -> Self {
        let keys = (rules.sort_keys.iter().enumerate())
            .map(|(k, key)| {
                let column = if key.name == "preempt_priority" {
                    None
                } else {
                    Some(columns.get(k).map(Vec::as_slice).unwrap_or(&[]))
                };
                (column, key.high)
            })
            .collect();
        JobCompare {
            jobs,
            keys,
            fair_share: rules.fair_share,
        }
    }

    /// `cmp_sort(a, b)`: `Less` when job `a` is considered before job `b`.
    pub(crate) fn cmp(&self, a: u32, b: u32) -> Ordering {
        let (x, y) = (&self.jobs[a as usize], &self.jobs[b as usize]);
        y.runnable
            .cmp(&x.runnable)
            .then(y.preemption.level.cmp(&x.preemption.level))
            .then_with(|| desc(x.value, y.value))
            .then_with(|| {
                if self.fair_share {
                    x.fs_rank.cmp(&y.fs_rank)
                } else {
                    Ordering::Equal
                }
            })
            .then_with(|| self.keys(x, y))
            .then(a.cmp(&b))
    }

    /// `multi_sort`: the first key that tells them apart.
    fn keys(&self, x: &CycleJob, y: &CycleJob) -> Ordering {
        for &(column, high) in &self.keys {
            let (v1, v2) = match column {
                None => (x.preemption.level as f64, y.preemption.level as f64),
                Some(c) => {
                    let at = |j: u32| c.get(j as usize).copied().unwrap_or(0.0);
                    (at(x.job), at(y.job))
                }
            };
            let o = if high { desc(v1, v2) } else { desc(v2, v1) };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::cycle::rules::SortKey;

    fn job(job: u32, runnable: bool, level: i64, value: f64, fs_rank: u32) -> CycleJob {
        CycleJob {
            job,
            runnable,
            preemption: Preemption {
                level,
                ..Preemption::default()
            },
            value,
            fs_rank,
        }
    }

    #[test]
    fn runnable_then_level_then_value_then_index() {
        let jobs = [
            job(0, false, 9, 9.0, 0),
            job(1, true, 1, 1.0, 0),
            job(2, true, 2, 0.5, 0),
            job(3, true, 1, 5.0, 0),
            job(4, true, 1, 5.0, 0),
        ];
        let c = JobCompare::new(&jobs, &[], &CycleRules::default());
        let mut v: Vec<u32> = (0..5).collect();
        v.sort_by(|&a, &b| c.cmp(a, b));
        assert_eq!(v, [2, 3, 4, 1, 0]);
    }

    #[test]
    fn fair_share_rank_only_when_on_and_nan_ties() {
        let jobs = [job(0, true, 0, 1.0, 5), job(1, true, 0, 1.0, 2)];
        let off = JobCompare::new(&jobs, &[], &CycleRules::default());
        assert_eq!(off.cmp(0, 1), Ordering::Less);
        let rules = CycleRules {
            fair_share: true,
            ..CycleRules::default()
        };
        let on = JobCompare::new(&jobs, &[], &rules);
        assert_eq!(on.cmp(0, 1), Ordering::Greater);
        let nan = [job(0, true, 0, f64::NAN, 0), job(1, true, 0, 7.0, 0)];
        let c = JobCompare::new(&nan, &[], &CycleRules::default());
        assert_eq!(c.cmp(0, 1), Ordering::Less, "NaN equal: index decides");
        assert_eq!(c.cmp(1, 0), Ordering::Greater);
    }

    #[test]
    fn sort_keys_high_and_low_after_the_value() {
        let jobs = [
            job(0, true, 0, 0.0, 0),
            job(1, true, 0, 0.0, 0),
            job(2, true, 0, 1.0, 0),
        ];
        let rules = CycleRules {
            sort_keys: vec![
                SortKey {
                    name: "ncpus".into(),
                    high: true,
                },
                SortKey {
                    name: "walltime".into(),
                    high: false,
                },
            ],
            ..CycleRules::default()
        };
        let cols = vec![vec![2.0, 2.0, 1.0], vec![100.0, 50.0, 0.0]];
        let c = JobCompare::new(&jobs, &cols, &rules);
        let mut v: Vec<u32> = (0..3).collect();
        v.sort_by(|&a, &b| c.cmp(a, b));
        assert_eq!(v, [2, 1, 0]);
    }
}
