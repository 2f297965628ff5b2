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
    /// A problem at one place of a named file: `FILE:LINE:COL: message` (the line and column
    /// left out where they are not known, 0 here; the file where it is not named, `""`).
    #[error("{}", at_text(file, *line, *column, message))]
    At {
        /// The file as the command line named it (`<stdin>` for standard input).
        file: String,
        /// 1-based line, 0 when not known.
        line: u64,
        /// 1-based column (in bytes), 0 when not known.
        column: u64,
        /// What is wrong, naming the job and the field as the file names them.
        message: String,
    },
}

/// `FILE:LINE:COL: message`, each part present only when known.
fn at_text(file: &str, line: u64, column: u64, message: &str) -> String {
    let mut place = file.to_string();
    for n in [line, column] {
        if n == 0 {
            break;
        }
        if !place.is_empty() {
            place.push(':');
        }
        place.push_str(&n.to_string());
    }
    if place.is_empty() {
        message.to_string()
    } else {
        format!("{place}: {message}")
    }
}

/// How the readers name standard input (`-` on the command line) in their messages.
pub const STDIN_NAME: &str = "<stdin>";

/// The name a reader gives the file the command line calls `name`: `<stdin>` for `-`.
pub fn shown_name(name: &str) -> &str {
    if name == "-" {
        STDIN_NAME
    } else {
        name
    }
}

impl JobsError {
    /// A problem at `line`:`column` (0: not known) of `file`.
    pub fn at(file: &str, line: u64, column: u64, message: impl Into<String>) -> JobsError {
        JobsError::At {
            file: file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    /// What is wrong without the place: for a caller whose text was not the user's (a test
    /// file's jobs, turned into a list), which names the place in the user's own file.
    pub fn without_place(&self) -> String {
        match self {
            JobsError::At { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }

    /// The same error naming `file` (as [`shown_name`] gives it), unless it already names one:
    /// every error a job reader returns through `inputs` says which file it is about.
    pub fn in_file(self, file: &str) -> JobsError {
        match self {
            JobsError::At {
                file: f,
                line,
                column,
                message,
            } if f.is_empty() => JobsError::at(file, line, column, message),
            e @ JobsError::At { .. } => e,
            JobsError::Csv { line, message } => JobsError::at(file, line, 0, message),
            JobsError::Io { .. } => self,
            other => {
                let message = other.to_string();
                // Adapters that name the file themselves (`FILE: ...`) are kept as they are.
                if message.starts_with(&format!("{file}:")) {
                    JobsError::Json { message }
                } else {
                    JobsError::at(file, 0, 0, message)
                }
            }
        }
    }
}

/// serde_json's error as a [`JobsError::At`] of `file`: its position as `LINE:COL`, its
/// message without the ` at line L column C` it appends.
pub fn json_at(file: &str, e: &serde_json::Error) -> JobsError {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    let message = match e.classify() {
        serde_json::error::Category::Eof => format!("{message} (the file ends too soon)"),
        _ => message.to_string(),
    };
    JobsError::at(file, e.line() as u64, e.column() as u64, message)
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
