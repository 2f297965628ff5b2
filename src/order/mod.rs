//! The dry run of a scheduling cycle's job sort: bind each formula keyword per job, evaluate,
//! order with PBS's tie rules, apply the threshold, explain a job, compare two formulas, and
//! the rows `fairsort order` prints.

pub mod bind;
pub mod compare;
pub mod compat;
pub mod dry_run;
pub mod explain;
pub mod fixed;
pub mod formula_api;
mod keys;
mod pass;
pub mod report;
pub mod rows;
pub mod shares;
pub mod sort;
#[cfg(test)]
pub(crate) mod testing;
pub use bind::{Binder, Bound, Source};
pub use compare::{compare, Comparison, Move};
pub use dry_run::{dry_run, DryRun, DryRunError, Setup, ShareEngine};
pub use explain::{explain_job, JobExplanation};
pub use formula_api::SortFormula;
pub use shares::ShareContext;
pub use sort::{order, run, Evaluations, OrderOptions, QueueOrder, Ranked, THRESHOLD_COMMENT};
