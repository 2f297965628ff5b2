//! The rules of one pbs_sched cycle from a site's files: `sched_config` for the period
//! (by_queue, round_robin, strict_ordering, fair_share, preemptive_sched, job_sort_key), the
//! scheduler object (preempt_queue_prio, preempt_prio, job_sort_formula_threshold) and the
//! server's queues.

use crate::files::FormatError;
use crate::pbs::cycle::rules::{CycleRules, QueueKind, QueueRule};

use super::print_server::{QueuePrint, ServerPrint};
use super::sched_attrs::SchedAttrs;
use super::sched_config::SchedConfig;

/// The rules in force in prime time (`prime`) or out of it. An option the files do not set
/// takes pbs_sched's own default: `sched_config` options absent from the file are false (as in
/// `parse.cpp`'s `config()`, not the shipped file's values); scheduler attributes absent from
/// `list sched` keep [`CycleRules::default`]'s. `help_starving_jobs` and `max_starve` are
/// obsolete in `sched_config` since OpenPBS 20 (read and ignored, no job is ever starving):
/// `help_starving_jobs` is false and `max_starve` keeps its default.
pub fn cycle_rules(
    server: &ServerPrint,
    sched: &SchedAttrs,
    config: &SchedConfig,
    prime: bool,
) -> Result<CycleRules, FormatError> {
    let period = config.for_period(prime);
    let defaults = CycleRules::default();
    let queues = server
        .queues
        .iter()
        .map(|q| queue_rule(q, &server.file))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(CycleRules {
        by_queue: period.by_queue,
        round_robin: period.round_robin,
        strict_ordering: period.strict_ordering,
        fair_share: period.fair_share,
        // `config()`: `enforce_no_shares = 1` unless a line sets it (`num ? 1 : 0`).
        enforce_no_shares: period
            .values
            .get("fairshare_enforce_no_shares")
            .is_none_or(|v| super::sched_config::num(v) != 0),
        sort_keys: period.job_sort_keys,
        preemptive_sched: period.preemptive_sched,
        preempt_queue_prio: sched
            .preempt_queue_prio()?
            .unwrap_or(defaults.preempt_queue_prio),
        preempt_prio: sched
            .preempt_prio()
            .map_or(defaults.preempt_prio, |p| p.levels),
        threshold: sched.threshold()?,
        help_starving_jobs: false,
        max_starve: defaults.max_starve,
        queues,
    })
}

/// A queue as the cycle sees it: unset Priority 0, unset `enabled`/`started` false (a new
/// queue's), a queue without `queue_type` never considered (as a route queue).
fn queue_rule(q: &QueuePrint, file: &str) -> Result<QueueRule, FormatError> {
    let written = q.queue_type.as_deref();
    let kind = match written.map(|w| (w, QueueKind::parse(w))) {
        Some((_, Some(kind))) => kind,
        None => QueueKind::Route,
        Some((_, None)) => {
            let other = written.unwrap_or_default();
            let line = q.attrs.get("queue_type").map_or(0, |a| a.line);
            return Err(FormatError::line(
                file,
                line,
                format!(
                    "queue {}: queue_type `{other}` is neither Execution nor Route",
                    q.name
                ),
            ));
        }
    };
    Ok(QueueRule {
        name: q.name.clone(),
        priority: q.priority.unwrap_or(0),
        priority_set: q.priority.is_some(),
        kind,
        enabled: q.enabled.unwrap_or(false),
        started: q.started.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::cycle::rules::{PreemptClass, SortKey};
    use crate::pbs::site_files::{read_print_server, read_sched_attrs, read_sched_config};

    #[test]
    fn files_to_rules() {
        let server = read_print_server(
            "create queue workq\nset queue workq queue_type = Execution\nset queue workq enabled = True\n\
             set queue workq started = True\ncreate queue r\nset queue r queue_type = Route\n\
             set queue r Priority = -5\n",
            "print_server",
        )
        .unwrap();
        let scheds = read_sched_attrs(
            "Sched default\n    preempt_queue_prio = 90\n    preempt_prio = express_queue, normal_jobs, fairshare\n    \
             job_sort_formula_threshold = -1.5\n",
            "list_sched",
        )
        .unwrap();
        let config = read_sched_config(
            "by_queue: True prime\nby_queue: False non_prime\nround_robin: true ALL\n\
             job_sort_key: \"ncpus LOW\" non_prime\npreemptive_sched: true\nhelp_starving_jobs: true\n",
            "sched_config",
        )
        .unwrap();
        let prime = cycle_rules(&server, &scheds[0], &config, true).unwrap();
        let non = cycle_rules(&server, &scheds[0], &config, false).unwrap();
        assert!(prime.by_queue && !non.by_queue && prime.round_robin && non.round_robin);
        assert!(prime.sort_keys.is_empty());
        assert_eq!(
            non.sort_keys,
            [SortKey {
                name: "ncpus".into(),
                high: false
            }]
        );
        assert!(prime.preemptive_sched && !prime.fair_share && !prime.help_starving_jobs);
        assert_eq!(prime.preempt_queue_prio, 90);
        assert_eq!(prime.preempt_prio.len(), 3);
        assert_eq!(prime.preempt_prio[2], [PreemptClass::FairShare]);
        assert_eq!(prime.threshold, Some(-1.5));
        assert_eq!(prime.queues.len(), 2);
        let (w, r) = (&prime.queues[0], &prime.queues[1]);
        assert_eq!(
            (w.kind, w.priority, w.priority_set, w.enabled, w.started),
            (QueueKind::Execution, 0, false, true, true)
        );
        assert_eq!(
            (r.kind, r.priority, r.priority_set, r.enabled),
            (QueueKind::Route, -5, true, false)
        );
    }

    #[test]
    fn absent_scheduler_attributes_keep_the_defaults() {
        let server = read_print_server("", "print_server").unwrap();
        let sched = read_sched_attrs("Sched default\n    state = idle\n", "list_sched").unwrap();
        let config = read_sched_config("", "sched_config").unwrap();
        let r = cycle_rules(&server, &sched[0], &config, false).unwrap();
        let d = CycleRules::default();
        assert_eq!(
            (r.preempt_queue_prio, &r.preempt_prio, r.threshold),
            (d.preempt_queue_prio, &d.preempt_prio, None)
        );
        assert!(!r.by_queue, "absent from sched_config: pbs_sched's false");
        assert!(
            r.enforce_no_shares,
            "absent: pbs_sched's `enforce_no_shares = 1`"
        );
        let off = read_sched_config("fairshare_enforce_no_shares: false\n", "sc").unwrap();
        assert!(
            !cycle_rules(&server, &sched[0], &off, false)
                .unwrap()
                .enforce_no_shares
        );
    }

    #[test]
    fn bad_queue_type() {
        let server =
            read_print_server("create queue q\nset queue q queue_type = Bogus\n", "ps").unwrap();
        let sched = read_sched_attrs("Sched default\n", "ls").unwrap();
        let config = read_sched_config("", "sc").unwrap();
        let e = cycle_rules(&server, &sched[0], &config, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ps:2: queue q: queue_type `Bogus` is neither Execution nor Route"
        );
    }
}
