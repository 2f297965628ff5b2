//! Errors of the queue stage: reading job files (which job, which field) and binding a formula's
//! keywords to jobs (a resource the formula uses holds text, an unknown keyword).

use thiserror::Error;

/// A problem reading a job file. Messages name the job and the field, or the file position.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum JobsError {
    /// The file could not be read.
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    /// Not valid JSON, or not the expected layout.
    #[error("{message}")]
    Json { message: String },
    /// CSV syntax error or a row with the wrong number of cells.
    #[error("line {line}: {message}")]
    Csv { line: u64, message: String },
    /// A field of one job has a value of the wrong kind.
    #[error("job `{job}`: {field}: {message}")]
    BadField {
        job: String,
        field: String,
        message: String,
    },
    /// A job id seen twice.
    #[error("job `{0}` appears twice")]
    DuplicateJob(String),
    /// A job without an id (fairsort's own lists).
    #[error("job #{0} has no `id`")]
    MissingId(usize),
}

/// A problem binding the formula's keywords to the jobs.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum BindError {
    /// A resource the formula uses is not a number in this job's `Resource_List`.
    #[error("job `{job}`: Resource_List.{resource} = `{value}` is not a number (the formula uses `{resource}`)")]
    NotNumeric {
        job: String,
        resource: String,
        value: String,
    },
}
