//! `HomeError`: everything that can go wrong with the home, and `Rejection`, a change the
//! "server" refuses with one of PBS's error codes (printed by qmgr as PBS prints it).

use crate::pbs::defs::Code;
use std::path::PathBuf;

/// A change refused with a PBS error code, e.g. 15124 `Formula contains invalid keyword`.
/// qmgr prints it as `qmgr obj=<object> svr=default: <message>` and
/// `qmgr: Error (<code>) returned from server`, then `detail` (fairsort's own extra lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// PBS error number (`pbs_error.h`), e.g. 15007 for `Unauthorized Request `.
    pub code: u32,
    /// Object name as qmgr shows it after `obj=` (empty for the server).
    pub object: String,
    /// PBS's message text for the code (or PBS's scheduler message for a bad value).
    pub message: String,
    /// fairsort's explanation: a caret under a formula, the offending value, ... (may be empty).
    pub detail: String,
}

impl Rejection {
    /// A rejection without extra detail.
    pub fn new(code: u32, object: impl Into<String>, message: impl Into<String>) -> Self {
        Rejection {
            code,
            object: object.into(),
            message: message.into(),
            detail: String::new(),
        }
    }

    /// The rejection of PBS error `code` (its number and message) for `object`.
    pub fn pbs(code: Code, object: impl Into<String>) -> Self {
        Rejection::new(code.number, object, code.message)
    }

    /// The same rejection with fairsort's extra explanation lines.
    pub(crate) fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }

    /// The lines qmgr prints: PBS's two lines, then the detail if any (no trailing newline).
    pub fn render(&self, server: &str) -> String {
        let mut s = format!(
            "qmgr obj={} svr={}: {}\nqmgr: Error ({}) returned from server",
            self.object, server, self.message, self.code
        );
        if !self.detail.is_empty() {
            s.push('\n');
            s.push_str(self.detail.trim_end_matches('\n'));
        }
        s
    }
}

/// Errors of the home (`fairsort::home`).
#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    /// No `--home`, no `FAIRSORT_HOME`, and no `$XDG_DATA_HOME` or `$HOME` to derive a default.
    #[error("no home: pass --home DIR or set FAIRSORT_HOME (no $XDG_DATA_HOME or $HOME to derive a default)")]
    NoDefaultHome,
    /// An explicit home directory that holds no home.
    #[error("no fairsort home at {}; run `fairsort init`", .0.display())]
    NotAHome(PathBuf),
    /// A file of the home could not be read, written, locked or created.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A state file exists but does not parse or holds an invalid value; it is left untouched.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Corrupt {
        /// The broken file.
        path: PathBuf,
        /// 1-based line of the problem (1 when the parser gives no position).
        line: usize,
        /// 1-based column (characters) of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The change was refused with a PBS error code (permissions, bad value, bad formula, ...).
    #[error("{}", .0.render("default"))]
    Rejected(Rejection),
    /// The home or a file in it could be changed by someone other than its owner and root (or
    /// is a link): it is not used until its modes or owner are fixed (docs/security.md).
    #[error("{}: unsafe home: {problem}; {fix}", path.display())]
    Unsafe {
        /// The directory or file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
        /// How to fix it (a command to run).
        fix: String,
    },
    /// Another process held the writers' lock for longer than the bounded wait.
    #[error("{}: the home is locked by {holder}; gave up after {seconds} s (set FAIRSORT_LOCK_TIMEOUT to wait longer)", path.display())]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// How long this writer waited.
        seconds: f64,
        /// Who holds it, as the system tells.
        holder: String,
    },
    /// A share tree could not be stored or read back (validation or format error).
    #[error("{0}")]
    Tree(String),
    /// A Slurm site configuration (slurm.conf, QOS, associations) could not be stored or read
    /// back.
    #[error("{0}")]
    Slurm(String),
    /// A PBS site's files (`print server`, `list sched`, `sched_config`, `holidays`) could not
    /// be stored or read back.
    #[error("{0}")]
    Pbs(String),
}

impl HomeError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        HomeError::Io {
            path: path.into(),
            source,
        }
    }
}

impl From<Rejection> for HomeError {
    fn from(r: Rejection) -> Self {
        HomeError::Rejected(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejection_renders_pbs_lines_then_detail() {
        let r = Rejection::new(15124, "", "Formula contains invalid keyword").with_detail("x\n^\n");
        assert_eq!(
            r.render("default"),
            "qmgr obj= svr=default: Formula contains invalid keyword\nqmgr: Error (15124) returned from server\nx\n^"
        );
    }
}
