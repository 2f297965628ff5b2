//! Pictures of fair share and of job order: SVG charts (plotters' SVG backend) that `fairsort
//! plot` writes. Each kind turns library data into SVG text and prints nothing; the output is
//! deterministic (no timestamps, pixel coordinates, fixed number formats), so the same inputs
//! give the same bytes. docs/plot.md describes what each picture shows.

mod against;
mod canvas;
mod error;
mod factors;
mod kind;
mod tree;
pub use against::against_svg;
pub use error::PlotError;
pub use factors::{factor_curves, factors_svg, FactorCurves, Series};
pub use kind::PlotKind;
pub use tree::{icicle, tree_svg, Cell};
