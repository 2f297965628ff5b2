//! Why a Scenario could not be assembled or run: the request (missing or contradictory inputs,
//! the CLI's exit status 2) or an input (a file, the home, a formula; exit status 1).

/// A Scenario error, already worded for the admin (file and line where there is one).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    /// The request is incomplete or contradictory (no jobs, no formula, an unknown example).
    #[error("{0}")]
    Request(String),
    /// An input is wrong: a file, the home, the tree, the formula.
    #[error("{0}")]
    Input(String),
}

impl ScenarioError {
    /// An input error from anything that displays.
    pub fn input(e: impl std::fmt::Display) -> Self {
        ScenarioError::Input(e.to_string())
    }

    /// Whether the request itself is at fault (bad usage) rather than an input.
    pub fn is_request(&self) -> bool {
        matches!(self, ScenarioError::Request(_))
    }
}
