//! What decides the order pbs_sched considers jobs in, as one value per option for the period
//! (prime or non-prime) the cycle runs in: the options of `sched_config` and of the scheduler
//! object (`qmgr -c 'list sched'`), and the queues of `qmgr -c 'print server'`. Readers of a
//! site's files fill it; the cycle engine only reads it. Defaults are those of the shipped
//! `sched_config` and of pbs_sched (OpenPBS `src/scheduler/parse.cpp`, `globals.cpp`).

/// The rules of one cycle.
#[derive(Debug, Clone, PartialEq)]
pub struct CycleRules {
    /// `by_queue`: jobs considered queue by queue, highest queue Priority first (shipped: true).
    pub by_queue: bool,
    /// `round_robin`: one job from each queue of a Priority level in turn (shipped: false).
    pub round_robin: bool,
    /// `strict_ordering` (shipped: false).
    pub strict_ordering: bool,
    /// `fair_share`: ties after the formula broken by the fair-share tree (shipped: false).
    pub fair_share: bool,
    /// `fairshare_enforce_no_shares`: with `fair_share`, jobs of entities with no shares are
    /// never considered (pbs_sched's default: on, `parse.cpp`).
    pub enforce_no_shares: bool,
    /// `job_sort_key` lines, in file order.
    pub sort_keys: Vec<SortKey>,
    /// `preemptive_sched` (shipped: true): jobs get preemption levels from `preempt_prio`.
    pub preemptive_sched: bool,
    /// Scheduler attribute `preempt_queue_prio`: queues at or above it are express (150).
    pub preempt_queue_prio: i64,
    /// Scheduler attribute `preempt_prio`, highest level first; each level is a class or a
    /// `+`-joined combination of classes (default `express_queue, normal_jobs`).
    pub preempt_prio: Vec<Vec<PreemptClass>>,
    /// Scheduler attribute `job_sort_formula_threshold`, when set.
    pub threshold: Option<f64>,
    /// `help_starving_jobs` (shipped: true) and `max_starve` in seconds (shipped: 24 hours).
    pub help_starving_jobs: bool,
    /// `max_starve`, in seconds.
    pub max_starve: u64,
    /// The queues, in the order the server lists them (its creation order).
    pub queues: Vec<QueueRule>,
}

impl Default for CycleRules {
    fn default() -> Self {
        CycleRules {
            by_queue: true,
            round_robin: false,
            strict_ordering: false,
            fair_share: false,
            enforce_no_shares: true,
            sort_keys: Vec::new(),
            preemptive_sched: true,
            preempt_queue_prio: 150,
            preempt_prio: vec![
                vec![PreemptClass::ExpressQueue],
                vec![PreemptClass::NormalJobs],
            ],
            threshold: None,
            help_starving_jobs: true,
            max_starve: 24 * 3600,
            queues: Vec::new(),
        }
    }
}

/// One `job_sort_key` line: a resource (or `fair_share_perc`, `preempt_priority`,
/// `job_priority`, `sort_priority`) and its direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    /// The key's name as written.
    pub name: String,
    /// `HIGH` (true): larger values first; `LOW`: smaller first.
    pub high: bool,
}

/// A preemption class of `preempt_prio`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PreemptClass {
    /// Jobs in a queue whose Priority is at or above `preempt_queue_prio`.
    ExpressQueue,
    /// Jobs waiting longer than `max_starve` (when `help_starving_jobs`).
    StarvingJobs,
    /// Jobs whose entity is over its fair share.
    FairShare,
    /// Jobs over a queue's soft limits.
    QueueSoftlimits,
    /// Jobs over the server's soft limits.
    ServerSoftlimits,
    /// Every other job.
    NormalJobs,
}

/// One queue as the cycle sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueRule {
    /// The queue's name.
    pub name: String,
    /// Its `Priority` (unset: 0).
    pub priority: i64,
    /// Whether `Priority` was set at all (unset and 0 compare equal; kept for reports).
    pub priority_set: bool,
    /// `queue_type`.
    pub kind: QueueKind,
    /// `enabled`.
    pub enabled: bool,
    /// `started`: the scheduler considers no job of a stopped queue.
    pub started: bool,
}

/// A queue's `queue_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    /// `Execution`: its jobs are scheduled.
    Execution,
    /// `Route`: its jobs are moved on by the server, never considered.
    Route,
}

impl QueueKind {
    /// `queue_type` as PBS's server takes it (`Execution`, `e`, `Route`, `r`, any case).
    pub fn parse(written: &str) -> Option<QueueKind> {
        match written.to_ascii_lowercase().as_str() {
            "execution" | "e" => Some(QueueKind::Execution),
            "route" | "r" => Some(QueueKind::Route),
            _ => None,
        }
    }

    /// The name PBS prints.
    pub fn name(self) -> &'static str {
        match self {
            QueueKind::Execution => "Execution",
            QueueKind::Route => "Route",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults are the shipped sched_config's and pbs_sched's.
    #[test]
    fn defaults_are_the_shipped_ones() {
        let r = CycleRules::default();
        assert!(r.by_queue && !r.round_robin && r.preemptive_sched && !r.fair_share);
        assert_eq!(r.preempt_queue_prio, 150);
        assert_eq!(r.preempt_prio.len(), 2);
        assert_eq!(r.max_starve, 86_400);
    }
}
