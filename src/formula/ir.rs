//! The compiled formula's nodes (IR), apart so compile, exact and fast use them without a cycle.

use crate::formula::ast::{BinOp, CmpOp};
use crate::formula::functions::Func;
use crate::formula::value::Value;

/// One instruction of a compiled formula; children are indices into the arena (always lower
/// than the node's own index).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Const(Value),
    Slot(usize),
    Neg(usize),
    Not(usize),
    Chain(usize, Vec<(BinOp, usize)>),
    Compare(usize, Vec<(CmpOp, usize)>),
    And(Vec<usize>),
    Or(Vec<usize>),
    IfElse {
        cond: usize,
        then: usize,
        otherwise: usize,
    },
    Call(Func, Vec<usize>),
    /// Raises when reached: a name Python does not know at run time (`NameError`), or, in the
    /// server's validation, a call of something that is not callable.
    Raise(Box<Raised>),
}

/// What a [`Node::Raise`] raises and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Raised {
    /// `str(exception)`, e.g. `name 'foo' is not defined`.
    pub message: String,
    /// The name, for a `NameError`.
    pub name: Option<String>,
    /// Where, in the formula.
    pub span: std::ops::Range<usize>,
}

impl Raised {
    /// Python's `NameError` for `name`.
    pub fn name_error(name: &str, span: std::ops::Range<usize>) -> Raised {
        Raised {
            message: name_error_message(name),
            name: Some(name.to_string()),
            span,
        }
    }
}

/// `str(NameError)` for `name`: `name 'foo' is not defined`.
pub(crate) fn name_error_message(name: &str) -> String {
    format!("name '{name}' is not defined")
}
