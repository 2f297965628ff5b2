//! Jobs, resources and units, binding keywords per job, ordering and explaining the queue: the
//! dry run of a PBS scheduling cycle's job sort (`fairsort order`).

pub mod error;
pub mod job;
pub mod joblist;
pub mod qstat;
pub mod raw;
pub mod units;

pub use error::{BindError, JobsError};
pub use job::{Job, JobSet, JobState, Names, ResourceValue, Sym};
pub use joblist::{read_job_list_csv, read_job_list_json};
pub use qstat::{read_qstat_json, read_qstat_json_slice};
