//! Preemption levels as pbs_sched gives them to jobs (OpenPBS `fifo.cpp`, the scheduler's
//! `preempt_prio` attribute; `job_info.cpp` `set_preempt_prio`; `parse.cpp` `preempt_cmp`).
//!
//! - `preempt_prio` is read into a table of (class bits, priority): first the qrun class at
//!   `PREEMPT_PRIORITY_HIGH` (100000), then each level of the list at 1000 less than the one
//!   before. The table is sorted by number of bits (most first), then priority (highest first):
//!   a combination `express_queue+fairshare` is matched before either of its classes.
//! - A job's status bits: `express_queue` when its queue's Priority is at or above
//!   `preempt_queue_prio`; `fairshare` when its entity is over its fair share
//!   (`over_fs_usage`: the root's usage × the entity's tree percentage < its usage); none of
//!   them: `normal_jobs`. The soft-limit classes need running jobs and are never set here.
//! - Its level is the priority of the first table entry whose bits are all in the job's status;
//!   an entry with the `express_queue` bit adds the queue's Priority (several express queues are
//!   ordered by Priority). No entry matches: the job is normal, at `normal_jobs`'s priority (0
//!   when the list has no `normal_jobs`).
//! - With `preemptive_sched` off nothing of this is run: every job has level 0 and no bits.
//!
//! `starving_jobs` is not a class of OpenPBS 23.06's `preempt_prio` (`preempt_prio_info` has
//! none; the parser drops the level), so a level naming it is dropped here too.

use crate::pbs::cycle::rules::{CycleRules, PreemptClass};

/// `PREEMPT_PRIORITY_HIGH` (`config.h`): the qrun class's priority.
const PRIORITY_HIGH: i64 = 100_000;
/// `PREEMPT_PRIORITY_STEP` (`config.h`): one level of `preempt_prio` below the one before.
const PRIORITY_STEP: i64 = 1_000;

/// A job's preemption status: which classes it is in, as PBS's `preempt_status` bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PreemptStatus(u8);

/// The bit of a class (`PREEMPT_TO_BIT`); `starving_jobs` has none.
fn bit(class: PreemptClass) -> Option<u8> {
    Some(match class {
        PreemptClass::NormalJobs => 1 << 0,
        PreemptClass::FairShare => 1 << 1,
        PreemptClass::QueueSoftlimits => 1 << 2,
        PreemptClass::ServerSoftlimits => 1 << 3,
        PreemptClass::ExpressQueue => 1 << 4,
        PreemptClass::StarvingJobs => return None,
    })
}

/// The qrun class's bit (`PREEMPT_QRUN`), never set on a job here (no `qrun` in a dry run).
const QRUN: u8 = 1 << 5;

impl PreemptStatus {
    /// Whether the status has `class`.
    pub fn has(self, class: PreemptClass) -> bool {
        bit(class).is_some_and(|b| self.0 & b != 0)
    }

    /// The classes of the status, in `PreemptClass` order.
    pub fn classes(self) -> Vec<PreemptClass> {
        [
            PreemptClass::ExpressQueue,
            PreemptClass::FairShare,
            PreemptClass::QueueSoftlimits,
            PreemptClass::ServerSoftlimits,
            PreemptClass::NormalJobs,
        ]
        .into_iter()
        .filter(|&c| self.has(c))
        .collect()
    }
}

/// A job's place among the preemption classes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Preemption {
    /// `preempt`: higher is considered first.
    pub level: i64,
    /// `preempt_status`.
    pub status: PreemptStatus,
}

/// The table `preempt_prio` is read into, sorted as `preempt_cmp` sorts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Levels {
    /// (class bits, priority), matched in order.
    table: Vec<(u8, i64)>,
    /// The priority of `normal_jobs` (`preempt_normal`), 0 without one.
    normal: i64,
    /// `preemptive_sched`.
    on: bool,
    /// `preempt_queue_prio`.
    queue_prio: i64,
}

impl Levels {
    /// The table of `rules.preempt_prio` (the scheduler's attribute parser).
    pub fn new(rules: &CycleRules) -> Levels {
        let mut table = vec![(QRUN, PRIORITY_HIGH)];
        let mut prio = PRIORITY_HIGH - PRIORITY_STEP;
        for level in &rules.preempt_prio {
            let bits: Option<Vec<u8>> = level.iter().map(|&c| bit(c)).collect();
            let Some(bits) = bits.filter(|b| !b.is_empty()) else {
                continue; // preempt_bit_field refused it: no entry, no step
            };
            table.push((bits.iter().fold(0, |a, b| a | b), prio));
            prio -= PRIORITY_STEP;
        }
        // preempt_cmp: more bits first, then higher priority (priorities are distinct).
        table.sort_by_key(|e| std::cmp::Reverse((e.0.count_ones(), e.1)));
        let normal = table.iter().find(|e| e.0 == 1).map(|e| e.1).unwrap_or(0);
        Levels {
            table,
            normal,
            on: rules.preemptive_sched,
            queue_prio: rules.preempt_queue_prio,
        }
    }

    /// `set_preempt_prio` for a job of a queue of Priority `queue_priority`, `over_share` when
    /// its entity is over its fair share.
    pub fn of(&self, queue_priority: i64, over_share: bool) -> Preemption {
        if !self.on {
            return Preemption::default();
        }
        let mut status = 0u8;
        if queue_priority >= self.queue_prio {
            status |= 1 << 4;
        }
        if over_share {
            status |= 1 << 1;
        }
        if status == 0 {
            status = 1;
        }
        for &(bits, prio) in &self.table {
            if status & bits == bits {
                let express = bits & (1 << 4) != 0;
                let level = prio + if express { queue_priority } else { 0 };
                return Preemption {
                    level,
                    status: PreemptStatus(status),
                };
            }
        }
        Preemption {
            level: self.normal,
            status: PreemptStatus(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PreemptClass::*;

    #[test]
    fn default_levels_put_express_queues_first_by_priority() {
        let l = Levels::new(&CycleRules::default());
        let normal = l.of(0, false);
        assert_eq!(normal.level, 98_000);
        assert!(normal.status.has(NormalJobs));
        let e200 = l.of(200, false);
        let e150 = l.of(150, false);
        assert_eq!(e200.level, 99_000 + 200);
        assert!(e200.level > e150.level && e150.level > normal.level);
        assert_eq!(e200.status.classes(), [ExpressQueue]);
        assert!(!l.of(149, false).status.has(ExpressQueue));
    }

    #[test]
    fn fairshare_class_below_normal_and_combinations_first() {
        let rules = CycleRules {
            preempt_prio: vec![vec![ExpressQueue], vec![NormalJobs], vec![FairShare]],
            ..CycleRules::default()
        };
        let l = Levels::new(&rules);
        assert_eq!(l.of(0, true).level, 97_000);
        assert_eq!(l.of(0, false).level, 98_000);
        // express and over its share: the express entry (one bit of two) matches
        assert_eq!(l.of(200, true).level, 99_200);
        let rules = CycleRules {
            preempt_prio: vec![
                vec![NormalJobs],
                vec![ExpressQueue, FairShare],
                vec![ExpressQueue],
            ],
            ..CycleRules::default()
        };
        let l = Levels::new(&rules);
        assert_eq!(l.of(200, true).level, 98_000 + 200, "the combination first");
        assert_eq!(l.of(200, false).level, 97_000 + 200);
        assert_eq!(l.of(0, false).level, 99_000);
    }

    #[test]
    fn off_and_without_normal_jobs() {
        let off = CycleRules {
            preemptive_sched: false,
            ..CycleRules::default()
        };
        assert_eq!(Levels::new(&off).of(500, true), Preemption::default());
        let no_normal = CycleRules {
            preempt_prio: vec![vec![ExpressQueue], vec![StarvingJobs]],
            ..CycleRules::default()
        };
        let l = Levels::new(&no_normal);
        let p = l.of(0, false);
        assert_eq!(p.level, 0);
        assert!(p.status.has(NormalJobs));
        assert_eq!(l.table.len(), 2, "starving_jobs dropped");
    }
}
