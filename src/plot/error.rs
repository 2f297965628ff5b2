//! `PlotError`: why a picture cannot be drawn.

use thiserror::Error;

/// Why a picture cannot be drawn from the given inputs.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PlotError {
    /// The user named for `factors` is not in the tree.
    #[error("no user `{0}` in the share tree")]
    UnknownUser(String),
    /// A user name with several associations, to be named as ACCOUNT/USER.
    #[error("user `{name}` has several associations ({}): name one as ACCOUNT/USER", .labels.join(", "))]
    AmbiguousUser {
        /// The name given.
        name: String,
        /// Its associations.
        labels: Vec<String>,
    },
    /// The tree has no user association to plot.
    #[error("the share tree has no user")]
    NoUser,
    /// Nobody else has usage, so the user's share of usage cannot vary.
    #[error("no usage besides `{0}`'s in the tree: its share of usage is 1 whatever it uses (give usage with --usage)")]
    NoOtherUsage(String),
    /// No job to place.
    #[error("no job to plot")]
    NoJobs,
    /// The tree with changed usage, or an algorithm, failed.
    #[error("{0}")]
    Compute(String),
    /// plotters failed to draw (a bug: drawing into a string does no I/O).
    #[error("drawing failed: {0}")]
    Draw(String),
}
