//! `FormatError`: every way an input file can be wrong, as one line naming the file and, for text
//! inputs, the 1-based line.

use thiserror::Error;

/// An error reading or writing a scheduler file. `file` is the path when reading from disk, else
/// the format's usual file name (`resource_group`, `sshare`, ...).
#[derive(Debug, Error)]
pub enum FormatError {
    /// A bad line of a text input.
    #[error("{file}:{line}: {message}")]
    Line {
        /// File name or label.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong, in the real scheduler's words where it has some.
        message: String,
    },
    /// A bad record of a binary input (PBS `usage`), counted from 1.
    #[error("{file}: record {record} (byte {offset}): {message}")]
    Record {
        /// File name or label.
        file: String,
        /// 1-based record number.
        record: usize,
        /// Byte offset of the record.
        offset: usize,
        /// What is wrong.
        message: String,
    },
    /// A problem with the file as a whole (no header, unknown format, bad SQLite schema, ...).
    #[error("{file}: {message}")]
    File {
        /// File name or label.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// The file could not be read or written.
    #[error("{file}: {source}")]
    Io {
        /// File name.
        file: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A tree that the target format cannot express (writers only).
    #[error("cannot write {format}: {message}")]
    Unwritable {
        /// Target format.
        format: &'static str,
        /// Why.
        message: String,
    },
}

impl FormatError {
    /// A `Line` error.
    pub fn line(file: &str, line: usize, message: impl Into<String>) -> Self {
        FormatError::Line {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }

    /// A `File` error.
    pub fn file(file: &str, message: impl Into<String>) -> Self {
        FormatError::File {
            file: file.to_string(),
            message: message.into(),
        }
    }

    /// An `Unwritable` error.
    pub(crate) fn unwritable(format: &'static str, message: impl Into<String>) -> Self {
        FormatError::Unwritable {
            format,
            message: message.into(),
        }
    }

    /// The same error naming `file` instead of the format's default label (used by `read_tree`).
    pub(crate) fn with_file(self, file: &str) -> Self {
        match self {
            FormatError::Line { line, message, .. } => FormatError::Line {
                file: file.to_string(),
                line,
                message,
            },
            FormatError::Record {
                record,
                offset,
                message,
                ..
            } => FormatError::Record {
                file: file.to_string(),
                record,
                offset,
                message,
            },
            FormatError::File { message, .. } => FormatError::File {
                file: file.to_string(),
                message,
            },
            FormatError::Io { source, .. } => FormatError::Io {
                file: file.to_string(),
                source,
            },
            other @ FormatError::Unwritable { .. } => other,
        }
    }

    /// The 1-based line the error points at, if any.
    pub fn line_number(&self) -> Option<usize> {
        match self {
            FormatError::Line { line, .. } => Some(*line),
            _ => None,
        }
    }
}
