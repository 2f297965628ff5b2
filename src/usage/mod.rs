//! Usage accounting: read finished-job records from what the schedulers really write (PBS
//! accounting logs, Slurm `sacct -P`, the flux-accounting `jobs` table), charge each job, keep
//! per-entity usage in the home exactly once per job, and decay it as each scheduler does.

pub mod apply;
pub mod charge;
pub mod checks;
pub mod decay;
pub mod error;
pub mod job;
pub mod ledger;
pub mod marks;
pub mod settings;
pub mod store;
mod store_render;
pub mod tally;
pub mod units;
pub use apply::{apply_usage, pbs_groups, UnmatchedUsage, UsageRecord};
pub use charge::{usage_res_charge, Charge, ResourceCharge};
pub use error::{Malformed, UsageError};
pub use job::{FinishedJob, Source};
pub use ledger::Ledger;
pub use settings::{ModelOverrides, UsageSettings};
pub use store::{DecayReport, Entry, Usage, UsageStore};
pub use tally::ReadStats;
