//! [`SnapshotError`]: every way a snapshot file can be wrong, naming the file (and the line where
//! there is one).

use crate::files::FormatError;
use thiserror::Error;

/// A snapshot file that cannot be read.
#[derive(Debug, Error)]
pub enum SnapshotError {
    /// Not JSON, or not the expected shape (serde_json's line and column).
    #[error("{file}:{line}:{column}: {what}: {message}")]
    Json {
        /// File name or label.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// Which output the file was read as (`squeue --json`, ...).
        what: &'static str,
        /// serde_json's message.
        message: String,
    },
    /// An empty (or blank) file.
    #[error("{file}: empty file (no {what} output)")]
    Empty {
        /// File name or label.
        file: String,
        /// Which output the file should hold.
        what: &'static str,
    },
    /// The document has no list of records where one is needed (`jobs`, `nodes`).
    #[error("{file}: {what}: no `{list}` list")]
    NoList {
        /// File name or label.
        file: String,
        /// Which output the file was read as.
        what: &'static str,
        /// The missing key.
        list: &'static str,
    },
    /// A record with a missing or bad field.
    #[error("{file}:{line}: {what}: {place}: `{field}`: {message}")]
    Field {
        /// File name or label.
        file: String,
        /// The 1-based line the record starts on.
        line: usize,
        /// Which output the file was read as.
        what: &'static str,
        /// The record: `job #3 (1234)`, `node #1 (n01)` (counted from 1 in the file's list, then
        /// the job id or node name when known).
        place: String,
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A bad `slurm.conf` line (the configuration reader's error).
    #[error(transparent)]
    Conf(#[from] FormatError),
}

impl SnapshotError {
    /// The error placed at `line` (a record's error learns its line from the reader).
    pub(crate) fn at_line(mut self, at: usize) -> Self {
        if let SnapshotError::Field { line, .. } = &mut self {
            *line = at;
        }
        self
    }

    /// A file with nothing in it.
    pub(crate) fn refuse_empty(
        bytes: &[u8],
        file: &str,
        what: &'static str,
    ) -> Result<(), SnapshotError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(SnapshotError::Empty {
                file: file.to_string(),
                what,
            });
        }
        Ok(())
    }

    /// A serde_json error on `file`, read as `what`.
    pub(crate) fn json(file: &str, what: &'static str, e: &serde_json::Error) -> Self {
        SnapshotError::Json {
            file: file.to_string(),
            line: e.line(),
            column: e.column(),
            what,
            // serde_json's text ends with " at line L column C", given apart here.
            message: e
                .to_string()
                .rsplit_once(" at line ")
                .map_or_else(|| e.to_string(), |(m, _)| m.to_string()),
        }
    }
}
