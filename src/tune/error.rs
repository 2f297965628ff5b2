//! What can go wrong while tuning: a bad search space, goal or template, a replay that fails,
//! a job-array directory that cannot be read or written.

/// A tuning failure, with what caused it.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A `--param` that is not `NAME=LO..HI[:log]`, or an empty or inverted range.
    #[error("--param `{spec}`: {why}")]
    Param {
        /// The parameter as written.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
    /// An objective or constraint that names no known metric or is badly written.
    #[error("{0}")]
    Goal(String),
    /// The template with its parameters bound does not compile.
    #[error("template `{formula}`: {why}")]
    Template {
        /// The formula as instantiated.
        formula: String,
        /// The compiler's message.
        why: String,
    },
    /// A replay failed.
    #[error("replay: {0}")]
    Replay(#[from] crate::replay::ReplayError),
    /// A plan, script or results file of a job-array run.
    #[error("{path}: {why}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        why: String,
    },
}
