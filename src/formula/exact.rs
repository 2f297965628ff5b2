//! The exact evaluator of compiled nodes, apart so compile (folding) and program share it.

use crate::formula::functions;
use crate::formula::ir::Node;
use crate::formula::value;
use crate::formula::value::{PyResult, Value};

/// The Python value of slot `i`: float keywords are floats; other integral values are ints.
fn slot_value(slots: &[f64], float_slot: &[bool], i: usize) -> Value {
    let v = slots.get(i).copied().unwrap_or(0.0);
    if float_slot.get(i).copied().unwrap_or(false) || v.fract() != 0.0 || !v.is_finite() {
        Value::Float(v)
    } else {
        // an integral value: exactly the int PBS's text binding gives Python
        Value::from_integral_float(v).unwrap_or(Value::Float(v))
    }
}

/// The exact evaluator: Python's semantics, order of evaluation and short-circuits.
pub(crate) fn eval_node(nodes: &[Node], id: usize, slots: &[f64], float_slot: &[bool]) -> PyResult {
    let ev = |i: usize| eval_node(nodes, i, slots, float_slot);
    let Some(node) = nodes.get(id) else {
        return Err("internal error: bad node".into());
    };
    match node {
        Node::Const(v) => Ok(v.clone()),
        Node::Slot(i) => Ok(slot_value(slots, float_slot, *i)),
        Node::Neg(a) => Ok(value::neg(&ev(*a)?)),
        Node::Not(a) => Ok(Value::bool(!ev(*a)?.truthy())),
        Node::Chain(first, rest) => {
            let mut acc = ev(*first)?;
            for &(op, b) in rest {
                let b = ev(b)?;
                acc = value::binary(op, &acc, &b)?;
            }
            Ok(acc)
        }
        Node::Compare(first, rest) => {
            let mut left = ev(*first)?;
            for &(op, b) in rest {
                let right = ev(b)?;
                if !value::compare_op(op, &left, &right)? {
                    return Ok(Value::bool(false));
                }
                left = right;
            }
            Ok(Value::bool(true))
        }
        Node::And(items) => {
            let mut last = Value::Int(1);
            for &i in items {
                last = ev(i)?;
                if !last.truthy() {
                    return Ok(last);
                }
            }
            Ok(last)
        }
        Node::Or(items) => {
            let mut last = Value::Int(0);
            for &i in items {
                last = ev(i)?;
                if last.truthy() {
                    return Ok(last);
                }
            }
            Ok(last)
        }
        Node::IfElse {
            cond,
            then,
            otherwise,
        } => {
            if ev(*cond)?.truthy() {
                ev(*then)
            } else {
                ev(*otherwise)
            }
        }
        Node::Call(f, args) => {
            let mut vals = Vec::with_capacity(args.len());
            for &a in args {
                vals.push(ev(a)?);
            }
            functions::call(*f, &vals)
        }
        Node::Raise(r) => Err(r.message.clone().into()),
    }
}
