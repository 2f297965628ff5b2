//! Jobs, resources and units, binding keywords per job, ordering and explaining the queue: the
//! dry run of a PBS scheduling cycle's job sort (`fairsort order`).

pub mod columns;
pub mod dates;
pub mod error;
pub mod job;
pub mod job_record;
mod job_shapes;
pub mod joblist;
mod json_blocks;
mod json_scan;
pub mod names;
pub mod qstat;
mod qstat_keys;
mod qstat_split;
pub mod raw;

pub use columns::{Columns, ResourceColumn};
pub use error::{BindError, JobsError};
pub use job::JobSet;
pub use job_record::{Job, JobState, ResourceValue};
pub use joblist::{read_job_list_csv, read_job_list_json};
pub use names::{Names, Sym};
pub use qstat::{
    read_qstat_json, read_qstat_json_fast, read_qstat_json_slice, read_qstat_json_slice_serde,
};
pub mod bind;
pub mod compat;
pub mod entity;
pub mod formula_api;
pub mod order;
mod order_pass;
pub mod shares;

pub use bind::{Binder, Bound, Source};
pub use entity::EntityName;
pub use formula_api::SortFormula;
pub use order::{order, run, Evaluations, OrderOptions, QueueOrder, Ranked, THRESHOLD_COMMENT};
pub use shares::ShareContext;

pub mod compare;
pub mod example;
#[cfg(test)]
pub(crate) mod testing;
pub use compare::{compare, Comparison, Move};
pub mod explain;
pub mod fixed;
pub use explain::{explain_job, JobExplanation};
pub mod dry_run;
pub use dry_run::{dry_run, DryRun, DryRunError, Setup, ShareEngine};
pub mod load;
pub mod read_file;
pub use read_file::{read_file, FileBytes, Pages};
pub mod report;
pub use load::{read_jobs_bytes, read_jobs_file, read_slurm_jobs, JobsFormat};
pub mod slurm_jobs;
pub use slurm_jobs::SlurmJob;
pub mod flux_jobs;
pub mod flux_priority;
pub mod flux_site;
pub mod slurm_bind;
pub mod slurm_priority;
pub mod slurm_sacct;
pub mod slurm_whatif;
pub use flux_jobs::{read_flux_jobs, FluxJob};
