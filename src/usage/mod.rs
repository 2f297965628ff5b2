//! Usage accounting: read finished-job records from what the schedulers really write (PBS
//! accounting logs, Slurm `sacct -P`, the flux-accounting `jobs` table), charge each job, keep
//! per-entity usage in the server home exactly once per job, and decay it as each scheduler does.

pub mod apply;
mod attr_scan;
pub mod charge;
pub mod decay;
pub mod error;
pub mod job;
pub mod marks;
pub mod pbs_log;
mod pbs_queue;
mod pbs_record;
mod pbs_span;
mod store_render;
mod tally;
pub mod units;

pub use apply::{
    apply_pbs_usage, apply_usage, pbs_groups, pbs_records, UnmatchedUsage, UsageRecord,
};
pub use charge::{usage_res_charge, Charge, ResourceCharge};
pub use error::{Malformed, UsageError};
pub use job::{FinishedJob, Source};
pub use pbs_log::{PbsLogReader, ReadStats};
pub mod ledger;
pub mod settings;
pub mod store;

pub use ledger::Ledger;
pub use settings::{ModelOverrides, UsageSettings};
pub use store::{DecayReport, Entry, Usage, UsageStore};
pub mod sacct;
pub use sacct::{read_sacct, BillingWeights};
pub mod flux_jobs;
pub use flux_jobs::read_flux_jobs;
pub mod export;
pub mod record;
pub use export::{to_pbs_usage, write_flux_usage, write_pbs_usage};
pub use record::{already_charged, detect, record, InputFormat, RecordOptions, RecordReport};
