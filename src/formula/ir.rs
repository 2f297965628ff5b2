//! The compiled formula's nodes (IR), apart so compile, exact and fast use them without a cycle.

use super::ast::{BinOp, CmpOp};
use super::functions::Func;
use super::value::Value;

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
}
