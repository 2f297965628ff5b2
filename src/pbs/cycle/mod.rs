//! The order in which PBS's scheduler considers jobs in one cycle: the scheduler's options and
//! the queues that decide it (`rules`), and the engine that applies them to a queue of jobs.

pub mod rules;

pub use rules::{CycleRules, PreemptClass, QueueKind, QueueRule, SortKey};
