//! The order in which PBS's scheduler considers jobs in one cycle: the scheduler's options and
//! the queues that decide it (`rules`), and the engine that applies them to a queue of jobs
//! (`consider`: the walk; `compare`: the job comparison; `levels`: preemption levels;
//! `msort`: glibc's sort, which decides the order when a value is NaN).

pub mod compare;
pub mod consider;
pub mod levels;
mod msort;
pub mod rules;

pub use consider::{
    consider, Considered, CycleInput, CycleOrder, CycleShares, NotConsidered, Phase, Skipped,
};
pub use levels::{Levels, PreemptStatus, Preemption};
pub use rules::{CycleRules, PreemptClass, QueueKind, QueueRule, SortKey};
