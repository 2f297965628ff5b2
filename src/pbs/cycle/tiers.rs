//! A job's place in pbs_sched's walk before its formula value, as one number for a replay's
//! sort: with `by_queue` (or `round_robin`, taken queue by queue), the express jobs first by
//! preemption level, then the others queue by queue (Priority descending, equal Priorities in
//! the server's order), each queue by preemption level; otherwise by preemption level alone
//! (`consider`'s walk). Fixed per job: the fair-share class of the levels (over one's share)
//! moves with usage, and is left out.

use crate::pbs::cycle::levels::Levels;
use crate::pbs::cycle::rules::{CycleRules, PreemptClass};
use std::collections::HashMap;

/// Bits of each part: group (1), queue Priority (11), queue position (20), level (30).
const PRIORITY_BITS: u32 = 11;
const POSITION_BITS: u32 = 20;
const LEVEL_BITS: u32 = 30;

/// One tier per queue name of `queues` (lower first), under `rules`.
pub fn walk_tiers<'a>(rules: &CycleRules, queues: impl IntoIterator<Item = &'a str>) -> Vec<u64> {
    let levels = Levels::new(rules);
    let index: HashMap<&str, usize> = (rules.queues.iter().enumerate())
        .map(|(i, q)| (q.name.as_str(), i))
        .collect();
    let mut memo: HashMap<&str, u64> = HashMap::new();
    queues
        .into_iter()
        .map(|name| {
            *memo.entry(name).or_insert_with(|| {
                let (position, priority) = match index.get(name) {
                    Some(&i) => (i, rules.queues[i].priority),
                    None => (rules.queues.len(), 0),
                };
                tier(rules, &levels, position, priority)
            })
        })
        .collect()
}

fn tier(rules: &CycleRules, levels: &Levels, position: usize, priority: i64) -> u64 {
    let p = levels.of(priority, false);
    let level_max = (1u64 << LEVEL_BITS) - 1;
    let level = level_max - (p.level.clamp(0, level_max as i64) as u64);
    if !(rules.by_queue || rules.round_robin) {
        return level;
    }
    if p.status.has(PreemptClass::ExpressQueue) {
        return level;
    }
    let prio_max = (1u64 << PRIORITY_BITS) - 1;
    let prio = (1023 - priority.clamp(-1024, 1023)) as u64 & prio_max;
    let pos = (position as u64).min((1 << POSITION_BITS) - 1);
    (1 << (PRIORITY_BITS + POSITION_BITS + LEVEL_BITS))
        | (prio << (POSITION_BITS + LEVEL_BITS))
        | (pos << LEVEL_BITS)
        | level
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::cycle::rules::{QueueKind, QueueRule};

    fn q(name: &str, priority: i64) -> QueueRule {
        QueueRule {
            name: name.into(),
            priority,
            priority_set: true,
            kind: QueueKind::Execution,
            enabled: true,
            started: true,
        }
    }

    #[test]
    fn express_then_queues_by_priority_then_server_order() {
        let rules = CycleRules {
            queues: vec![q("workq", 0), q("zq", 100), q("aq", 100), q("express", 200)],
            ..CycleRules::default()
        };
        let t = walk_tiers(&rules, ["workq", "zq", "aq", "express", "other"]);
        let mut order: Vec<usize> = (0..t.len()).collect();
        order.sort_by_key(|&i| t[i]);
        // express; the Priority-100 queues in the server's order; then workq and an unlisted
        // queue (Priority 0, after the listed ones).
        assert_eq!(order, [3, 1, 2, 0, 4]);
        let whole = CycleRules {
            by_queue: false,
            ..rules
        };
        let t = walk_tiers(&whole, ["workq", "zq", "express"]);
        assert!(t[2] < t[0] && t[0] == t[1], "by level only: {t:?}");
    }
}
