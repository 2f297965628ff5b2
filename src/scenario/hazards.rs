//! Where the real pbs_sched would crash or misbehave on the Scenario's formula over its jobs
//! (`formula::pbs_hazards`), found from the dry run: pbs_sched evaluates the formula for every
//! job of its execution queues (`fifo.cpp` before the sort), queue after queue — sorted by
//! Priority, highest first, with `by_queue` or `round_robin`, else in the server's order
//! (`server_info.cpp` `query_server`, `create_server_arrays`) — each queue's jobs in the
//! server's order. Its first job that raises before any job had a value, and its first job
//! whose result is complex or an int beyond a double (the dry run gives those -1, as
//! pbs_sched logs them; only those jobs are evaluated again exactly), are the hazards: one
//! O(n) pass over the values, exact evaluation only for the few jobs valued -1.

use crate::formula::pbs_hazards::{static_hazards, Hazard, Watch};
use crate::formula::Program;
use crate::order::dry_run::DryRun;
use crate::pbs::cycle::{CycleRules, QueueKind};
use crate::scenario::Scenario;

/// The order pbs_sched evaluates the formula for the jobs in (indices into the jobs): one key
/// per job, from its queue's symbol (no text hashed per job), then one sort.
fn evaluation_order(s: &Scenario, rules: &CycleRules) -> Vec<u32> {
    let jobs = &s.setup.jobs;
    let unlisted = rules.queues.len();
    // (Priority key, server position) per queue symbol; `None`: a route queue's jobs.
    let mut of_sym: Vec<Option<(i64, usize)>> = vec![Some((0, unlisted)); jobs.names.len()];
    for (i, q) in rules.queues.iter().enumerate() {
        let Some(sym) = jobs.names.get(&q.name) else {
            continue;
        };
        let key = match q.kind {
            QueueKind::Route => None,
            QueueKind::Execution if rules.by_queue || rules.round_robin => Some((-q.priority, i)),
            QueueKind::Execution => Some((0, i)),
        };
        if let Some(slot) = of_sym.get_mut(sym as usize) {
            *slot = key;
        }
    }
    let mut keyed: Vec<(i64, usize, u32)> = (jobs.jobs.iter().enumerate())
        .filter_map(|(j, job)| {
            let (p, i) = of_sym.get(job.queue as usize).copied().flatten()?;
            Some((p, i, j as u32))
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, _, j)| j).collect()
}

/// The first job of `order` that would bring pbs_sched down, given the dry run's values
/// (`None` past the jobs it has values for).
fn first_crash(
    s: &Scenario,
    program: &Program,
    dry: &DryRun,
    value: &[Option<f64>],
    order: impl IntoIterator<Item = u32>,
) -> Option<Hazard> {
    let jobs = &s.setup.jobs;
    let mut watch = Watch::new();
    let mut bound = None;
    let mut row = Vec::new();
    for j in order {
        // Past `--top`: pbs_sched's next evaluation is unknown, so nothing after it is.
        let v = value.get(j as usize).copied().flatten()?;
        let id = &jobs.jobs[j as usize].id;
        let result = if let Some(e) = dry.order.error(j) {
            Err(e.to_string())
        } else if v == -1.0 {
            // Complex, an int beyond a double, or a true -1: evaluated again exactly.
            if bound.is_none() {
                bound = Some(dry.binder.bind(jobs).ok()?);
            }
            let b = bound.as_ref()?;
            row.resize(b.width(), 0.0);
            b.row_into(j as usize, &mut row);
            program.eval_python(&row)
        } else {
            Ok(crate::formula::Value::Float(v))
        };
        if let Some(h) = watch.observe(id, &result) {
            return Some(h);
        }
    }
    None
}

impl Scenario {
    /// The hazards of `program` on this queue for a pbs_sched that just started (the text's,
    /// then the first job that would bring it down, in the server's order), from the dry run
    /// `dry` (taken before any `--top` cut: evaluation stops being followed at the first job
    /// without a value), in pbs_sched's words. Not seen: a re-sort before the evaluation
    /// (pbs_sched's `init_scheduling_cycle` re-sorts after `pbsfs -s`/`-d`, a usage decay, or
    /// when jobs ran in its last cycle), which may put another job first.
    pub fn pbs_warnings(&self, program: &Program, dry: &DryRun) -> Vec<String> {
        let mut out: Vec<String> = static_hazards(program.source())
            .iter()
            .map(Hazard::render)
            .collect();
        let jobs = &self.setup.jobs;
        let mut value: Vec<Option<f64>> = vec![None; jobs.len()];
        for r in &dry.order.ranked {
            if let Some(v) = value.get_mut(r.job as usize) {
                *v = Some(r.value);
            }
        }
        let rules = self.cycle.as_ref().map(|c| &c.rules);
        // Without a site's rules, the server's order is the jobs' own.
        let found = match rules {
            Some(r) => first_crash(self, program, dry, &value, evaluation_order(self, r)),
            None => first_crash(self, program, dry, &value, 0..jobs.len() as u32),
        };
        if let Some(h) = found {
            out.push(h.render());
        }
        out
    }
}
