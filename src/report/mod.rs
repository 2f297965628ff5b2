//! `fairsort report`'s self-contained HTML page: the queue in order with each job's terms, the
//! share tree as an icicle, factor-vs-usage curves, a replay's two policies side by side, a
//! forecast. Each section is built from library data (`scenario`, `replay`, `forecast`) with
//! the SVGs `plot` and `replay` draw; [`render`] turns the page into one HTML document (inline
//! CSS, SVG and a small sorting script: nothing is fetched to view it). Every text is
//! HTML-escaped by the template engine; tables are bounded ([`Limits`]). Prints nothing and
//! writes no file: the caller writes the string (docs/report.md).

mod error;
mod forecast;
mod json_queue;
mod page;
mod queue;
mod replay;
mod share;

pub use error::ReportError;
pub use forecast::forecast_section;
pub use json_queue::json_queue_section;
pub use page::{render, Cell, Column, Figure, Page, Section, Table};
pub use queue::queue_section;
pub use replay::{replay_sections, Policy};
pub use share::share_sections;

/// How many rows a table shows at most (the rest are counted in a note under it): a
/// million-job queue gives a page a browser opens at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Rows per table.
    pub rows: usize,
}

/// The rows per table when the command line gives none.
pub const DEFAULT_ROWS: usize = 500;

impl Default for Limits {
    fn default() -> Self {
        Limits { rows: DEFAULT_ROWS }
    }
}
