//! The PBS `job_sort_formula` language: parse (pest) → AST → compile (slots, folding) → eval.

pub mod ast;
pub mod error;
pub mod keywords;
pub mod limits;
pub mod parse;
pub mod resources;

pub use ast::{Expr, ExprKind};
pub use error::FormulaError;
pub use parse::parse;
pub use resources::{ResourceTable, ResourceType};
