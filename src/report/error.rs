//! What can go wrong building a report: a picture that could not be drawn, or the page's
//! template (a defect, reported rather than a panic).

use thiserror::Error;

/// A report that could not be built.
#[derive(Debug, Error)]
pub enum ReportError {
    /// A section's picture could not be drawn.
    #[error("report: cannot draw {what}: {message}")]
    Plot {
        /// Which picture.
        what: &'static str,
        /// Why.
        message: String,
    },
    /// A section's data could not be computed.
    #[error("report: {0}")]
    Data(String),
    /// The template failed to render.
    #[error("report: the page's template failed: {0}")]
    Template(String),
}
