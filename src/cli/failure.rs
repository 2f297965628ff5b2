//! `Failure`: how a subcommand reports an error to `main`, with the exit status it deserves.
//! User errors (bad formula, bad input file, refused change) exit 1; usage errors exit 2.

use std::fmt;

/// An error to print on stderr (one clear line, plus optional extra lines such as a caret),
/// and the process exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Exit status: 1 for user errors, 2 for usage errors.
    pub status: u8,
    /// The message, printed as is on stderr (it may span lines, e.g. a caret under the formula).
    pub message: String,
}

impl Failure {
    /// A user error (bad input, refused change): exit status 1. Positions that readers
    /// append in their own words (serde_json's `at line L column C`, the csv crate's `CSV
    /// error: record R (line: L, byte: B)`) are moved to the front as fairsort words them
    /// (`FILE: line L, column C: ...`), so every error names its file and line the same way.
    pub fn user(message: impl Into<String>) -> Self {
        Failure {
            status: 1,
            message: super::locate::locate(&message.into()),
        }
    }

    /// A usage error (bad flags or arguments): exit status 2.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            status: 2,
            message: message.into(),
        }
    }

    /// A failure whose message was already printed (e.g. qmgr's two PBS lines): exit 1, print nothing.
    pub fn silent(status: u8) -> Self {
        Failure {
            status,
            message: String::new(),
        }
    }
}

impl From<fairsort::scenario::ScenarioError> for Failure {
    /// A Scenario's error: a bad request (flags that do not go together) is a usage error,
    /// anything else (a bad file, a refused formula) a user error.
    fn from(e: fairsort::scenario::ScenarioError) -> Self {
        if e.is_request() {
            Failure::usage(e.to_string())
        } else {
            Failure::user(e.to_string())
        }
    }
}

/// A file named on the command line, read whole (its name in the error).
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::user(format!("cannot read {}: {e}", path.display())))
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::silent(0)
        } else {
            Failure::user(e.to_string())
        }
    }
}

impl From<serde_json::Error> for Failure {
    /// A JSON write that failed on its output: a closed pipe is a quiet exit 0 as for
    /// [`std::io::Error`]; anything else a user error.
    fn from(e: serde_json::Error) -> Self {
        match e.io_error_kind() {
            Some(kind) => Failure::from(std::io::Error::from(kind)),
            None => Failure::user(e.to_string()),
        }
    }
}

impl From<csv::Error> for Failure {
    /// A CSV write that failed on its output: a closed pipe is a quiet exit 0.
    fn from(e: csv::Error) -> Self {
        match e.kind() {
            csv::ErrorKind::Io(io) => Failure::from(std::io::Error::from(io.kind())),
            _ => Failure::user(e.to_string()),
        }
    }
}

/// `println!` and `print!` for the binary: the text goes to standard output through a `Write`
/// and a failed write returns (`?`) a [`Failure`], so `fairsort ... | head` ends quietly with
/// status 0 instead of panicking on a closed pipe.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($t)*)?;
    }};
}

/// `print!` through a `Write`; see [`outln!`].
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($t)*)?;
    }};
}

/// The result type of every subcommand.
pub type CliResult = Result<(), Failure>;

/// A home's error at the command line: a PBS rejection prints PBS's own lines (exit 1), any
/// other is one line (exit 1).
pub(crate) fn home_failure(e: fairsort::home::HomeError) -> Failure {
    match e {
        fairsort::home::HomeError::Rejected(r) => {
            crate::cli::say::line(format_args!("{}", r.render("default")));
            Failure::silent(1)
        }
        other => Failure::user(other.to_string()),
    }
}
