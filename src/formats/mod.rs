//! Readers (and writers) of the real schedulers' files, producing fairsort's in-memory models.
//!
//! Every reader turns syntax into a [`TreeSpec`](crate::fairshare::spec::TreeSpec) and reports
//! syntax errors with the file's line; structural checks (unknown parent, cycles, duplicates) are
//! the tree builder's, except where the real system's own reader checks them (PBS).

pub mod atomic;
mod detect;
mod error;
pub mod flux;
pub mod lines;
pub mod native;
pub mod pbs;
pub mod slurm;
mod stages;
pub(crate) mod text;
pub mod toml_spans;

pub use atomic::{write_atomic, WriteError};
pub use detect::{detect_format, read_tree, read_tree_indexed, read_tree_str, TreeFormat};
pub use error::FormatError;
