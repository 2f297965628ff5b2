//! The order pbs_sched considers jobs in during one cycle in which no job starts (OpenPBS
//! 23.06 `fifo.cpp` `main_sched_loop`, `next_job`; `sort.cpp` `sort_jobs`, `cmp_sort`):
//!
//! 1. **Which jobs are sorted**: every job of an execution queue (a route queue's jobs are the
//!    server's to move, never queried). Those not in a runnable state (`in_runnable_state`:
//!    queued) sort after the runnable ones and are never considered.
//! 2. **Which are never considered** (`can_not_run` before the loop): jobs of a stopped queue
//!    (`Queue not started`); with `fair_share` on, jobs whose entity has a tree percentage of 0
//!    (`query_jobs`, `enforce_no_shares` on as shipped: `Job has zero shares for fairshare`);
//!    with a formula, jobs whose value is at or below `job_sort_formula_threshold`, `INT_MIN`
//!    when unset (`query_server`: `formula_value <= threshold`, the float promoted to double).
//!    They are still sorted: they take part in the comparisons of the merge.
//! 3. **The comparison** (`cmp_sort`, see [`crate::pbs::cycle::compare`]).
//! 4. **The walk** (`next_job`): `round_robin` first: queues grouped by equal Priority (highest
//!    first), one job from each queue of a group in turn; else `by_queue`: first, over the whole
//!    sorted list, the express jobs, until the first `normal_jobs` job (`find_non_normal_job_ind`),
//!    then queue after queue (Priority descending, equal priorities in server order) each
//!    queue's runnable jobs; else the whole list as one queue.
//! 5. **The lists** (`sort_jobs`): with `fair_share` and `by_queue` or `round_robin`, each queue
//!    is sorted and the whole list is the queues' lists one after the other; with `by_queue`
//!    alone each queue and the whole list are sorted on their own; otherwise the whole list is.
//!
//! Preempted jobs (`cmp_job_preemption_time_asc`, `is_preempted`), reservations and `qrun` need
//! running jobs and are not modelled; nor the resort after a job starts.

use crate::jobs::job_set::JobSet;
use crate::pbs::cycle::compare::{CycleJob, JobCompare};
use crate::pbs::cycle::levels::{Levels, Preemption};
use crate::pbs::cycle::msort::glibc_msort;
use crate::pbs::cycle::rules::{CycleRules, PreemptClass, QueueKind};
use crate::pbs::defs::threshold;
use std::collections::HashMap;

/// What the engine reads besides the rules: the jobs and the values computed for them.
#[derive(Debug, Clone, Copy)]
pub struct CycleInput<'a> {
    /// The jobs, in the server's order (`JobSet` order: submission order).
    pub jobs: &'a JobSet,
    /// The formula value of each job (`formula::sort_value`: 0 after an error), or None when
    /// no `job_sort_formula` is set. Kept as a C `float`, as the scheduler does.
    pub values: Option<&'a [f64]>,
    /// One column per `rules.sort_keys` entry: the key's value per job (a key named
    /// `preempt_priority` is the job's preemption level, computed here; its column is ignored
    /// and may be empty).
    pub sort_keys: &'a [Vec<f64>],
    /// Fair-share facts per job; needed when `fair_share` is on or a level uses `fairshare`.
    pub shares: Option<&'a CycleShares>,
}

/// Fair-share facts per job (index as `JobSet::jobs`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CycleShares {
    /// The rank of the job's entity by PBS's path comparison (`compare_path`, as
    /// `order::sort::fair_share_ranks` gives it): smaller is more deserving, equal ties.
    pub rank: Vec<u32>,
    /// The job's entity has a tree percentage of 0.
    pub zero_shares: Vec<bool>,
    /// The job's entity is over its fair share (`over_fs_usage`).
    pub over_share: Vec<bool>,
}

/// How the walk reached a considered job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// `by_queue`'s first pass: express jobs over the whole list.
    Express,
    /// `by_queue`: its queue's turn.
    Queue,
    /// `round_robin`: its queue's turn in its Priority group.
    RoundRobin,
    /// Neither: the whole list as one queue.
    Whole,
}

/// One considered job and why it is where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Considered {
    /// Index into `JobSet::jobs`.
    pub job: u32,
    /// Its formula value as the scheduler keeps it (a float), None without a formula.
    pub value: Option<f64>,
    /// Its preemption level and classes.
    pub preemption: Preemption,
    /// Its queue's index in `CycleRules::queues` (None: a queue the rules do not list, taken as
    /// an execution queue of Priority 0).
    pub queue: Option<usize>,
    /// Its queue's Priority.
    pub queue_priority: i64,
    /// Its fair-share rank, when `fair_share` is on.
    pub fair_share_rank: Option<u32>,
    /// How the walk reached it.
    pub phase: Phase,
}

/// Why a job is not considered.
#[derive(Debug, Clone, PartialEq)]
pub enum Skipped {
    /// Not in a runnable state (the `qstat` state letter).
    NotQueued(char),
    /// Its queue is a route queue.
    RouteQueue,
    /// Its queue is stopped (`Queue not started`).
    QueueStopped,
    /// `Job has zero shares for fairshare`.
    ZeroShares,
    /// `Job's formula value V is under threshold T`.
    BelowThreshold {
        /// The value (a float).
        value: f64,
        /// The threshold applied (`INT_MIN` when unset).
        threshold: f64,
    },
}

/// A job not considered.
#[derive(Debug, Clone, PartialEq)]
pub struct NotConsidered {
    /// Index into `JobSet::jobs`.
    pub job: u32,
    /// Why.
    pub reason: Skipped,
}

/// The cycle's order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CycleOrder {
    /// The jobs considered, first first.
    pub considered: Vec<Considered>,
    /// The others, in job order.
    pub not_considered: Vec<NotConsidered>,
}

/// One queue as the walk sees it.
struct Queue {
    rule: Option<usize>,
    priority: i64,
    jobs: Vec<u32>,
}

/// The queues in `sinfo->queues` order (`std::sort` by Priority descending, equal ones in the
/// server's order: its small-array insertion sort keeps them), route queues left out. Queues of
/// jobs that the rules do not list come after the listed ones of the same Priority (0).
fn queues(input: &CycleInput, rules: &CycleRules) -> Vec<Queue> {
    let by_name: HashMap<&str, usize> = (rules.queues.iter().enumerate())
        .map(|(i, q)| (q.name.as_str(), i))
        .collect();
    let mut list: Vec<Queue> = (rules.queues.iter().enumerate())
        .map(|(i, q)| Queue {
            rule: Some(i),
            priority: q.priority,
            jobs: Vec::new(),
        })
        .collect();
    // The queue of each queue symbol, found once per symbol (no text hashed per job).
    let mut of_sym: Vec<Option<usize>> = vec![None; input.jobs.names.len()];
    for (i, job) in input.jobs.jobs.iter().enumerate() {
        let sym = job.queue as usize;
        let at = match of_sym.get(sym).copied().flatten() {
            Some(at) => at,
            None => {
                let at = match by_name.get(input.jobs.queue(job)) {
                    Some(&r) => r,
                    None => {
                        list.push(Queue {
                            rule: None,
                            priority: 0,
                            jobs: Vec::new(),
                        });
                        list.len() - 1
                    }
                };
                if let Some(slot) = of_sym.get_mut(sym) {
                    *slot = Some(at);
                }
                at
            }
        };
        list[at].jobs.push(i as u32);
    }
    let mut order: Vec<usize> = (0..list.len())
        .filter(|&q| {
            list[q]
                .rule
                .is_none_or(|r| rules.queues[r].kind != QueueKind::Route)
        })
        .collect();
    order.sort_by_key(|&q| std::cmp::Reverse(list[q].priority)); // stable
    let mut slots: Vec<Option<Queue>> = list.into_iter().map(Some).collect();
    order.into_iter().filter_map(|q| slots[q].take()).collect()
}

/// The order pbs_sched considers `input`'s jobs in under `rules` (module doc).
pub fn consider(input: &CycleInput, rules: &CycleRules) -> CycleOrder {
    let jobs = input.jobs;
    let n = jobs.len();
    let queues = queues(input, rules);
    let mut rule_of = vec![None; n];
    let mut priority_of = vec![0i64; n];
    let mut sorted_in = vec![false; n];
    for q in &queues {
        for &j in &q.jobs {
            rule_of[j as usize] = q.rule;
            priority_of[j as usize] = q.priority;
            sorted_in[j as usize] = true;
        }
    }
    let levels = Levels::new(rules);
    let shares = input.shares;
    let over = |i: usize| shares.is_some_and(|s| s.over_share.get(i).copied().unwrap_or(false));
    let entries: Vec<CycleJob> = (0..n)
        .map(|i| {
            let value = input
                .values
                .map(|v| crate::order::compat::value(v.get(i).copied().unwrap_or(0.0)));
            CycleJob {
                job: i as u32,
                runnable: jobs.jobs[i].state.is_runnable(),
                preemption: levels.of(priority_of[i], over(i)),
                value: value.unwrap_or(0.0),
                fs_rank: shares
                    .filter(|_| rules.fair_share)
                    .and_then(|s| s.rank.get(i).copied())
                    .unwrap_or(0),
            }
        })
        .collect();
    // Never considered, and why (the first reason that applies).
    let thr = rules.threshold.unwrap_or(threshold::UNSET);
    let mut skipped: Vec<Option<Skipped>> = vec![None; n];
    for i in 0..n {
        let job = &jobs.jobs[i];
        let rule = rule_of[i].map(|r| &rules.queues[r]);
        skipped[i] = if !sorted_in[i] {
            Some(Skipped::RouteQueue)
        } else if !job.state.is_runnable() {
            Some(Skipped::NotQueued(job.state.letter()))
        } else if rule.is_some_and(|q| !q.started) {
            Some(Skipped::QueueStopped)
        } else if rules.fair_share
            && rules.enforce_no_shares
            && shares.is_some_and(|s| s.zero_shares.get(i).copied().unwrap_or(false))
        {
            Some(Skipped::ZeroShares)
        } else if input.values.is_some() && threshold::is_below(entries[i].value, rules.threshold) {
            Some(Skipped::BelowThreshold {
                value: entries[i].value,
                threshold: thr,
            })
        } else {
            None
        };
    }
    let cmp = JobCompare::new(&entries, input.sort_keys, rules);
    // Without NaN the comparison is a total order, under which every stable sort gives glibc's
    // merge sort's result: the standard library's, faster, is used then.
    let total = !entries.iter().any(|e| e.value.is_nan())
        && !input.sort_keys.iter().flatten().any(|v| v.is_nan());
    // With no `job_sort_key` either, each job's comparison is one key of integers, sorted
    // without calling the comparison at all.
    let keyed = total && rules.sort_keys.is_empty();
    let key_of = |j: u32| -> (u64, u64, u32) {
        let e = &entries[j as usize];
        let level = (i64::from(i32::MAX) - e.preemption.level.clamp(0, i64::from(i32::MAX))) as u64;
        let head = (u64::from(!e.runnable) << 32) | level;
        // Higher values first; -0.0 equals 0.0 as C's comparison finds.
        let v = if e.value == 0.0 { 0.0 } else { e.value as f32 };
        let bits = v.to_bits();
        let ordered = if bits >> 31 == 1 {
            !bits
        } else {
            bits | (1 << 31)
        };
        let rank = if rules.fair_share { e.fs_rank } else { 0 };
        (head, (u64::from(!ordered) << 32) | u64::from(rank), j)
    };
    let sort = |list: &mut Vec<u32>| {
        if keyed {
            let mut keys: Vec<(u64, u64, u32)> = list.iter().map(|&j| key_of(j)).collect();
            keys.sort_unstable();
            for (slot, k) in list.iter_mut().zip(&keys) {
                *slot = k.2;
            }
        } else if total {
            list.sort_by(|&a, &b| cmp.cmp(a, b));
        } else {
            glibc_msort(list, &|&a, &b| cmp.cmp(a, b));
        }
    };
    let mut per_queue: Vec<Vec<u32>> = queues.iter().map(|q| q.jobs.clone()).collect();
    let whole: Vec<u32> = if rules.fair_share && (rules.by_queue || rules.round_robin) {
        per_queue.iter_mut().for_each(sort);
        per_queue.concat()
    } else {
        if rules.by_queue || rules.round_robin {
            per_queue.iter_mut().for_each(sort);
        }
        let mut all: Vec<u32> = (0..n as u32).filter(|&j| sorted_in[j as usize]).collect();
        if !rules.round_robin {
            sort(&mut all);
        }
        all
    };
    let mut done = vec![false; n];
    let mut out: Vec<Considered> = Vec::new();
    let mut take = |j: u32, phase: Phase, done: &mut Vec<bool>| -> bool {
        let i = j as usize;
        if done[i] || skipped[i].is_some() {
            return false;
        }
        done[i] = true;
        out.push(Considered {
            job: j,
            value: input.values.map(|_| entries[i].value),
            preemption: entries[i].preemption,
            queue: rule_of[i],
            queue_priority: priority_of[i],
            fair_share_rank: (rules.fair_share && shares.is_some()).then_some(entries[i].fs_rank),
            phase,
        });
        true
    };
    if rules.round_robin {
        let mut start = 0;
        while start < queues.len() {
            let end = (start..queues.len())
                .find(|&k| queues[k].priority != queues[start].priority)
                .unwrap_or(queues.len());
            // (queue, next position) of the group's queues that may still give a job; a queue
            // that gives none is dropped, so each turn costs the queues still in it.
            let mut active: Vec<(usize, usize)> = (start..end).map(|q| (q, 0)).collect();
            while !active.is_empty() {
                active.retain_mut(|(q, pos)| {
                    let list = &per_queue[*q];
                    while let Some(&j) = list.get(*pos) {
                        *pos += 1;
                        if take(j, Phase::RoundRobin, &mut done) {
                            return true;
                        }
                    }
                    false
                });
            }
            start = end;
        }
    } else if rules.by_queue {
        for &j in &whole {
            let p = entries[j as usize].preemption.status;
            if p.has(PreemptClass::ExpressQueue) {
                take(j, Phase::Express, &mut done);
            } else if p.has(PreemptClass::NormalJobs) {
                break;
            }
        }
        for list in &per_queue {
            for &j in list {
                take(j, Phase::Queue, &mut done);
            }
        }
    } else {
        for &j in &whole {
            take(j, Phase::Whole, &mut done);
        }
    }
    let not_considered = (0..n)
        .filter(|&i| !done[i])
        .map(|i| NotConsidered {
            job: i as u32,
            reason: skipped[i].clone().unwrap_or(Skipped::NotQueued('?')),
        })
        .collect();
    CycleOrder {
        considered: out,
        not_considered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::cycle::rules::QueueRule;
    use crate::pbs::qstat::read_qstat_json;

    /// Jobs (id, queue, state) submitted in this order.
    fn jobs(list: &[(&str, &str, &str)]) -> JobSet {
        let body: Vec<String> = (list.iter().enumerate())
            .map(|(i, (id, queue, state))| {
                format!(
                    r#""{id}.s":{{"Job_Owner":"u@h","job_state":"{state}","queue":"{queue}","qtime":{}}}"#,
                    i + 1
                )
            })
            .collect();
        read_qstat_json(format!(r#"{{"Jobs":{{{}}}}}"#, body.join(",")).as_bytes()).unwrap()
    }

    fn queue(name: &str, priority: i64) -> QueueRule {
        QueueRule {
            name: name.into(),
            priority,
            priority_set: true,
            kind: QueueKind::Execution,
            enabled: true,
            started: true,
        }
    }

    fn run(set: &JobSet, values: Option<&[f64]>, rules: &CycleRules) -> CycleOrder {
        let input = CycleInput {
            jobs: set,
            values,
            sort_keys: &[],
            shares: None,
        };
        consider(&input, rules)
    }

    fn ids(set: &JobSet, o: &CycleOrder) -> Vec<String> {
        let id = |j: u32| {
            set.jobs[j as usize]
                .id
                .split('.')
                .next()
                .unwrap_or("")
                .to_string()
        };
        o.considered.iter().map(|c| id(c.job)).collect()
    }

    fn three_queues() -> Vec<QueueRule> {
        vec![queue("workq", 0), queue("express", 200), queue("high", 100)]
    }

    /// by_queue: express jobs over the whole list first, then queue by queue by Priority.
    #[test]
    fn by_queue_express_first_then_queues_by_priority() {
        let set = jobs(&[
            ("1", "workq", "Q"),
            ("2", "high", "Q"),
            ("3", "express", "Q"),
            ("4", "workq", "Q"),
            ("5", "express", "Q"),
        ]);
        let values = [5.0, 1.0, 2.0, 9.0, 3.0];
        let rules = CycleRules {
            queues: three_queues(),
            ..CycleRules::default()
        };
        let o = run(&set, Some(&values), &rules);
        assert_eq!(ids(&set, &o), ["5", "3", "2", "4", "1"]);
        assert_eq!(o.considered[0].phase, Phase::Express);
        assert_eq!(o.considered[2].phase, Phase::Queue);
        assert_eq!(o.considered[2].queue_priority, 100);
        assert_eq!(o.considered[0].preemption.level, 99_200);
    }

    /// Neither by_queue nor round_robin: one list, express first, then by value.
    #[test]
    fn whole_list_by_level_then_value() {
        let set = jobs(&[
            ("1", "workq", "Q"),
            ("2", "high", "Q"),
            ("3", "express", "Q"),
        ]);
        let values = [5.0, 7.0, 1.0];
        let mut rules = CycleRules {
            queues: three_queues(),
            by_queue: false,
            ..CycleRules::default()
        };
        assert_eq!(
            ids(&set, &run(&set, Some(&values), &rules)),
            ["3", "2", "1"]
        );
        rules.preemptive_sched = false;
        let o = run(&set, Some(&values), &rules);
        assert_eq!(ids(&set, &o), ["2", "1", "3"]);
        assert!(o.considered.iter().all(|c| c.phase == Phase::Whole));
    }

    /// round_robin: one job from each queue of a Priority level in turn, no express pass.
    #[test]
    fn round_robin_turns_within_each_priority_level() {
        let set = jobs(&[
            ("1", "a", "Q"),
            ("2", "a", "Q"),
            ("3", "a", "Q"),
            ("4", "b", "Q"),
            ("5", "c", "Q"),
            ("6", "express", "Q"),
        ]);
        let rules = CycleRules {
            round_robin: true,
            queues: vec![
                queue("a", 10),
                queue("b", 10),
                queue("c", 5),
                queue("express", 1),
            ],
            preempt_queue_prio: 1,
            ..CycleRules::default()
        };
        let o = run(&set, None, &rules);
        assert_eq!(ids(&set, &o), ["1", "4", "2", "3", "5", "6"]);
        assert!(o.considered.iter().all(|c| c.value.is_none()));
    }

    /// Never considered: not queued, stopped queue, route queue, at or below the threshold.
    #[test]
    fn reasons_for_the_jobs_left_out() {
        let set = jobs(&[
            ("1", "workq", "H"),
            ("2", "stopped", "Q"),
            ("3", "route", "Q"),
            ("4", "workq", "Q"),
            ("5", "workq", "Q"),
        ]);
        let mut stopped = queue("stopped", 0);
        stopped.started = false;
        let mut route = queue("route", 0);
        route.kind = QueueKind::Route;
        let rules = CycleRules {
            queues: vec![queue("workq", 0), stopped, route],
            threshold: Some(2.0),
            ..CycleRules::default()
        };
        let values = [9.0, 9.0, 9.0, 2.0, 2.5];
        let o = run(&set, Some(&values), &rules);
        assert_eq!(ids(&set, &o), ["5"]);
        let reasons: Vec<Skipped> = o.not_considered.iter().map(|n| n.reason.clone()).collect();
        assert_eq!(
            reasons,
            [
                Skipped::NotQueued('H'),
                Skipped::QueueStopped,
                Skipped::RouteQueue,
                Skipped::BelowThreshold {
                    value: 2.0,
                    threshold: 2.0
                },
            ]
        );
        // No formula: no threshold; unset threshold: INT_MIN.
        assert_eq!(run(&set, None, &rules).considered.len(), 2);
        let unset = CycleRules {
            threshold: None,
            ..rules
        };
        let low = [0.0, 0.0, 0.0, -3e9, 1.0];
        assert_eq!(ids(&set, &run(&set, Some(&low), &unset)), ["5"]);
    }

    /// fair_share: zero shares left out, ties by the fair-share rank, over-share class.
    #[test]
    fn fair_share_zero_shares_and_ranks() {
        let set = jobs(&[
            ("1", "workq", "Q"),
            ("2", "workq", "Q"),
            ("3", "workq", "Q"),
        ]);
        let shares = CycleShares {
            rank: vec![2, 1, 0],
            zero_shares: vec![false, false, true],
            over_share: vec![false, true, false],
        };
        let mut rules = CycleRules {
            queues: vec![queue("workq", 0)],
            fair_share: true,
            ..CycleRules::default()
        };
        let input = CycleInput {
            jobs: &set,
            values: None,
            sort_keys: &[],
            shares: Some(&shares),
        };
        let o = consider(&input, &rules);
        assert_eq!(ids(&set, &o), ["2", "1"]);
        assert_eq!(o.not_considered[0].reason, Skipped::ZeroShares);
        assert_eq!(o.considered[0].fair_share_rank, Some(1));
        rules.preempt_prio.push(vec![PreemptClass::FairShare]);
        let o = consider(&input, &rules);
        assert_eq!(ids(&set, &o), ["1", "2"], "over its share: a lower level");
        // `fairshare_enforce_no_shares: false`: an entity without shares runs last.
        rules.preempt_prio.pop();
        rules.enforce_no_shares = false;
        let o = consider(&input, &rules);
        assert_eq!(ids(&set, &o), ["3", "2", "1"]);
        assert!(o.not_considered.is_empty());
    }

    /// Values are kept as floats: 16777217 and 16777216 tie, submission order decides.
    #[test]
    fn values_compare_as_floats() {
        let set = jobs(&[("1", "workq", "Q"), ("2", "workq", "Q")]);
        let rules = CycleRules {
            queues: vec![queue("workq", 0)],
            ..CycleRules::default()
        };
        let o = run(&set, Some(&[16_777_216.0, 16_777_217.0]), &rules);
        assert_eq!(ids(&set, &o), ["1", "2"]);
        assert_eq!(o.considered[1].value, Some(16_777_216.0));
    }

    /// A queue the rules do not list is an execution queue of Priority 0.
    #[test]
    fn unlisted_queue_is_priority_zero() {
        let set = jobs(&[("1", "other", "Q"), ("2", "low", "Q"), ("3", "workq", "Q")]);
        let rules = CycleRules {
            queues: vec![queue("workq", 0), queue("low", -5)],
            ..CycleRules::default()
        };
        let o = run(&set, None, &rules);
        assert_eq!(ids(&set, &o), ["3", "1", "2"]);
        assert_eq!(o.considered[1].queue, None);
    }

    /// The keyed sort (no `job_sort_key`, no NaN) gives the comparison's order: the same
    /// queues, values (with ties, -0.0 and 0.0, infinities), states and fair-share ranks
    /// sorted once by keys and once through the comparison (a constant sort key forces it).
    #[test]
    fn keyed_sort_is_the_comparison() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let queues = ["workq", "express", "low"];
        let states = ["Q", "Q", "Q", "H", "R"];
        let spec: Vec<(String, &str, &str)> = (0..400)
            .map(|i| {
                let q = queues[next(3) as usize];
                let st = states[next(5) as usize];
                (format!("{i}"), q, st)
            })
            .collect();
        let list: Vec<(&str, &str, &str)> =
            spec.iter().map(|(a, b, c)| (a.as_str(), *b, *c)).collect();
        let set = jobs(&list);
        let choices = [
            0.0,
            -0.0,
            1.5,
            -2.25,
            1e30,
            f64::INFINITY,
            f64::NEG_INFINITY,
            7.0,
        ];
        let values: Vec<f64> = (0..400).map(|_| choices[next(8) as usize]).collect();
        let shares = CycleShares {
            rank: (0..400).map(|_| next(4) as u32).collect(),
            zero_shares: vec![false; 400],
            over_share: (0..400).map(|_| next(2) == 1).collect(),
        };
        for (by_queue, fair_share) in [(true, true), (true, false), (false, true), (false, false)] {
            let base = CycleRules {
                queues: vec![queue("workq", 0), queue("express", 200), queue("low", -5)],
                by_queue,
                fair_share,
                preempt_prio: vec![
                    vec![PreemptClass::ExpressQueue],
                    vec![PreemptClass::NormalJobs],
                    vec![PreemptClass::FairShare],
                ],
                ..CycleRules::default()
            };
            let with_key = CycleRules {
                sort_keys: vec![crate::pbs::cycle::rules::SortKey {
                    name: "constant".into(),
                    high: true,
                }],
                ..base.clone()
            };
            let constant = vec![vec![0.0; 400]];
            let one = |rules: &CycleRules, keys: &[Vec<f64>]| {
                let input = CycleInput {
                    jobs: &set,
                    values: Some(&values),
                    sort_keys: keys,
                    shares: Some(&shares),
                };
                ids(&set, &consider(&input, rules))
            };
            assert_eq!(
                one(&base, &[]),
                one(&with_key, &constant),
                "by_queue {by_queue}, fair_share {fair_share}"
            );
        }
    }
}
