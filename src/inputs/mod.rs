//! Any input, whatever its scheduler: one detector per kind of input (share tree, job queue,
//! finished-job records) that picks the format from the file's structure and hands it to the
//! adapter that reads it; recording finished jobs into usage, and exporting usage back to the
//! schedulers' files.

pub mod export;
pub mod jobs;
mod json_top;
pub mod record;
mod tree;
pub use export::{to_pbs_usage, write_flux_usage, write_pbs_usage};
pub use jobs::{
    read_jobs_bytes, read_jobs_bytes_in, read_jobs_file, read_jobs_file_in, read_slurm_jobs,
    JobsFormat, JobsScheduler,
};
pub use record::{already_charged, detect, record, InputFormat, RecordOptions, RecordReport};
pub use tree::{detect_format, read_tree, read_tree_indexed, read_tree_str, TreeFormat};
