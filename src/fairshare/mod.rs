//! The fair-share engine: one share tree (`tree`), built from a neutral `spec` that every reader
//! produces, and the algorithms of PBS, Slurm and flux-accounting over it, each returning a
//! `ShareResult` with the columns its scheduler prints.

pub mod algorithm;
pub mod compute;
pub mod explain;
pub mod flux;
pub mod json_rows;
pub(crate) mod key_sort;
mod name_index;
pub mod node;
pub mod node_columns;
pub mod path_order;
pub mod pbs;
pub mod result;
pub mod slurm;
pub mod spec;
pub mod tree;
pub use algorithm::{Algorithm, Options};
pub use compute::compute;
pub use explain::{explain, Explanation};
pub use node::{Node, NodeId};
pub use node_columns::NodeColumns;
pub use path_order::PathOrder;
pub use result::{keyword_source, Column, ShareError, ShareResult, ShareRow};
pub use spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
pub use tree::{Tree, TreeError};
