//! Errors of usage accounting, and the report of a malformed record that was skipped.

use std::fmt;
use std::path::PathBuf;

/// A record that could not be read: reported with its file and line, then skipped.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Malformed {
    /// The input file.
    pub file: PathBuf,
    /// 1-based line (or row id for database inputs).
    pub line: u64,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
    }
}

/// Why a usage operation failed as a whole (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// An input or the usage store could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// An input's layout is wrong as a whole (e.g. a sacct header without the needed columns).
    #[error("{}: {message}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A flux-accounting database could not be read or written.
    #[error("{}: {source}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// The usage store in the home is damaged.
    #[error("{}: {message}", path.display())]
    Store {
        /// The store file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A hand-edited usage store holds something fairsort would never write (an unknown key, a
    /// duplicate entity, a negative or non-finite usage, a setting out of range); it is left as is.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        /// The store file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A bad decay setting.
    #[error(transparent)]
    Decay(#[from] crate::usage::decay::DecayError),
    /// A bad charge formula or setting.
    #[error("{0}")]
    Charge(String),
    /// A named entity is not in the usage store or tree.
    #[error("{0}")]
    Entity(String),
}

impl UsageError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        UsageError::Io {
            path: path.into(),
            source,
        }
    }
}
