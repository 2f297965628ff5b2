//! The PBS `job_sort_formula` language: parse (pest) → AST → compile (slots, folding) → eval.
//!
//! PBS evaluates the formula with Python's `eval`, so "correct" here means "the value Python
//! would give" and "invalid" means what PBS's server refuses, with PBS's codes and messages.

pub mod ast;
mod bigint;
pub mod compile;
mod complex;
pub mod error;
mod exact;
mod fast;
#[allow(unsafe_code)]
pub mod float_math;
pub mod functions;
mod int_math;
mod ir;
pub mod limits;
pub mod names;
pub mod parse;
pub mod pbs_hazards;
pub mod program;
mod py_err;
pub mod repr;
pub mod resources;
pub mod terms;
pub mod validate;
pub mod value;
pub use ast::{Expr, ExprKind};
pub use bigint::big_int_bits_made;
pub use error::FormulaError;
pub use parse::parse;
pub use program::{sort_value, Evaluation, Program};
pub use resources::ResourceTable;
pub use terms::{additive_terms, Term};
pub use value::Value;

/// Parses, validates as PBS's server does (the formula evaluated with every keyword and
/// resource = 1: a `NameError` there is 15124 or 15125, see [`crate::formula::validate`]) and compiles
/// a formula. Names the validation does not reach are compiled to raise `NameError` when a
/// job reaches them, as in PBS's scheduler.
pub fn compile(src: &str, resources: &ResourceTable) -> Result<Program, FormulaError> {
    let expr = parse::parse(src)?;
    let program = compile::compile_expr(src, &expr, resources)?;
    validate::server_verdict(&expr, resources, true)?;
    Ok(program)
}
