//! Errors of the queue stage: reading job files (which job, which field) and binding a formula's
//! keywords to jobs (a resource the formula uses holds text, an unknown keyword).

use thiserror::Error;

/// A problem reading a job file. Messages name the job and the field, or the file position.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum JobsError {
    /// The file could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
    /// Not valid JSON, or not the expected layout.
    #[error("{message}")]
    Json {
        /// serde_json's message with line and column.
        message: String,
    },
    /// CSV syntax error or a row with the wrong number of cells.
    #[error("line {line}: {message}")]
    Csv {
        /// The line of the file.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A field of one job has a value of the wrong kind.
    #[error("job `{job}`: {field}: {message}")]
    BadField {
        /// The job id.
        job: String,
        /// The field, as the file names it.
        field: String,
        /// What is wrong with its value.
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
        /// The job id.
        job: String,
        /// The resource.
        resource: String,
        /// Its text value.
        value: String,
    },
}
