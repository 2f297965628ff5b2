//! The order in which PBS's scheduler considers jobs in one cycle: the scheduler's options and
//! the queues that decide it (`rules`), and the engine that applies them to a queue of jobs
//! (`consider`: the walk; `compare`: the job comparison; `levels`: preemption levels;
//! `msort`: glibc's sort, which decides the order when a value is NaN; `inputs`: the per-job
//! inputs from the core's binder and fair-share context).

pub mod compare;
pub mod consider;
pub mod inputs;
pub mod levels;
mod msort;
pub mod rules;
pub mod tiers;

pub use consider::{
    consider, Considered, CycleInput, CycleOrder, CycleShares, NotConsidered, Phase, Skipped,
};
pub use inputs::{cycle_shares, sort_key_columns, SortKeyError};
pub use levels::{Levels, PreemptStatus, Preemption};
pub use rules::{CycleRules, PreemptClass, QueueKind, QueueRule, SortKey};
pub use tiers::walk_tiers;
