//! `Program`: a compiled formula. `eval` is a pure function of the slot values: a straight f64
//! fast path (see `fast/`) for the common case, and the exact Python evaluator (`exact.rs`)
//! whenever the int/float distinction, an error or the sign of a zero could change the result.

use crate::formula::exact::eval_node;
use crate::formula::fast;
use crate::formula::fast::Fast;
use crate::formula::ir::Node;
use crate::formula::value::Value;
use std::fmt;
use std::sync::Arc;

/// A compiled formula: slots resolved, constants folded. Cheap to clone, shareable across
/// threads.
#[derive(Clone)]
pub struct Program {
    inner: Arc<Inner>,
}

struct Inner {
    source: String,
    keywords: Vec<String>,
    float_slot: Vec<bool>,
    nodes: Vec<Node>,
    root: usize,
    fast: Option<Fast>,
}

/// The result of evaluating a formula for one job, as PBS gets it: the value PBS sorts by
/// ([`sort_value`]); on a Python exception the value is 0 and `error` holds `str(exception)`
/// (what PBS logs after "Zero value will be used:").
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The value PBS sorts the job by: [`sort_value`] of Python's result (0.0 when `error` is
    /// set, -1.0 for a complex result or an int beyond the double range).
    pub value: f64,
    /// Python's exception message, if evaluation raised.
    pub error: Option<String>,
}

/// The value PBS sorts a job by, from Python's result of the formula (openpbs.md §1.4b): an
/// exception inside the `eval` gives 0 (and PBS logs "Zero value will be used"); otherwise PBS
/// reads the result with `PyFloat_AsDouble`, outside its `try`, so a result that is no real
/// number (a complex number, `(-1)**0.5`) or an int beyond the double range (`10**400`) gives
/// `PyFloat_AsDouble`'s error value -1.0, with no message; an int in range is rounded to the
/// nearest double, a bool is 1.0 or 0.0.
pub fn sort_value<E>(result: &Result<Value, E>) -> f64 {
    match result {
        Ok(v) => v.to_f64().unwrap_or(-1.0),
        Err(_) => 0.0,
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("source", &self.inner.source)
            .field("keywords", &self.inner.keywords)
            .field("nodes", &self.inner.nodes.len())
            .field("fast", &self.inner.fast.is_some())
            .finish()
    }
}

impl Program {
    pub(crate) fn new(
        source: String,
        keywords: Vec<String>,
        float_slot: Vec<bool>,
        nodes: Vec<Node>,
        root: usize,
    ) -> Program {
        let fast = fast::build(&nodes, root, &float_slot);
        Program {
            inner: Arc::new(Inner {
                source,
                keywords,
                float_slot,
                nodes,
                root,
                fast,
            }),
        }
    }

    /// The formula text this program was compiled from.
    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// The keywords and resources the formula uses; slot `i` is bound to `keywords()[i]`.
    pub fn keywords(&self) -> &[String] {
        &self.inner.keywords
    }

    /// The slot of a keyword or resource, if the formula uses it.
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.inner.keywords.iter().position(|k| k == name)
    }

    /// Whether slot `i` is always a Python float (PBS's `%f` keywords); other slots are ints
    /// when integral.
    pub fn slot_is_float(&self, i: usize) -> bool {
        self.inner.float_slot.get(i).copied().unwrap_or(false)
    }

    /// Whether the f64 fast path is available for this formula (it still falls back to the exact
    /// evaluator job by job when needed).
    pub fn has_fast_path(&self) -> bool {
        self.inner.fast.is_some()
    }

    #[cfg(test)]
    pub(crate) fn inner_fast(&self) -> Option<&Fast> {
        self.inner.fast.as_ref()
    }

    #[cfg(test)]
    pub(crate) fn nodes(&self) -> &[Node] {
        &self.inner.nodes
    }

    /// Evaluates the formula for one job. `slots[i]` is the value of `keywords()[i]`; a missing
    /// slot counts as 0 (an unrequested resource). Values are typed as PBS's text binding types
    /// them: a float keyword is a float, any other integral value an int.
    pub fn eval(&self, slots: &[f64]) -> Evaluation {
        if let Some(v) = self.inner.fast.as_ref().and_then(|f| f.eval(slots)) {
            return Evaluation {
                value: v,
                error: None,
            };
        }
        self.eval_exact(slots)
    }

    /// Evaluates with the exact Python evaluator only (the reference the fast path must match).
    pub fn eval_exact(&self, slots: &[f64]) -> Evaluation {
        let result = self.eval_python(slots);
        Evaluation {
            value: sort_value(&result),
            error: result.err(),
        }
    }

    /// Python's own result for one job: the number `eval` returns (an int, bool, float or
    /// complex number, unbounded ints exact), or `str(exception)`. [`sort_value`] turns it into
    /// the value PBS sorts by.
    pub fn eval_python(&self, slots: &[f64]) -> Result<Value, String> {
        let i = &self.inner;
        eval_node(&i.nodes, i.root, slots, &i.float_slot).map_err(|e| e.into_owned())
    }

    /// Evaluates a batch of jobs stored row by row (`rows.len() == out.len() * keywords().len()`
    /// values), writing each job's value; returns the errors by job index.
    pub fn eval_rows(&self, rows: &[f64], out: &mut [f64]) -> Vec<(usize, String)> {
        let width = self.inner.keywords.len();
        let mut errors = Vec::new();
        for (j, o) in out.iter_mut().enumerate() {
            let row = if width == 0 {
                &[][..]
            } else {
                rows.get(j * width..(j + 1) * width).unwrap_or(&[])
            };
            if let Some(v) = self.inner.fast.as_ref().and_then(|f| f.eval(row)) {
                *o = v;
                continue;
            }
            let e = self.eval_exact(row);
            *o = e.value;
            if let Some(msg) = e.error {
                errors.push((j, msg));
            }
        }
        errors
    }
}
