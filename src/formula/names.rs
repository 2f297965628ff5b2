//! Name resolution as PBS's namespace does it: math names (from `from math import *`) shadow
//! keywords and resources; then keywords, numeric resources, the builtins; a string/boolean
//! resource is refused (15125) and anything else is an invalid keyword (15124).

use crate::formula::ast::Span;
use crate::formula::error::{FormulaError, COULD_RUN_CODE};
use crate::formula::functions::{Func, BUILTIN_FUNCS, MATH_CONSTS, MATH_FUNCS, MATH_UNSUPPORTED};
use crate::formula::resources::ResourceTable;
use crate::pbs::defs::keywords;
use crate::pbs::defs::keywords::{FAIRSORT_KEYWORDS, PBS_KEYWORDS};

/// What a name in a formula stands for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resolved {
    /// A math constant (`pi`, `e`, `tau`, `inf`, `nan`).
    Const(f64),
    /// A function.
    Func(Func),
    /// A per-job value (keyword or numeric resource), bound through a slot.
    Slot,
}

/// Python's builtins (3.11, `dir(builtins)` without `_` names) other than the allowed ones
/// (`abs min max round int float`; `pow` is math's): PBS's namespace has them, fairsort
/// refuses them. Sorted (binary search).
#[rustfmt::skip]
pub(crate) const PYTHON_BUILTINS: &[&str] = &[
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException",
    "BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning",
    "ChildProcessError", "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError",
    "ConnectionResetError", "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning",
    "EnvironmentError", "Exception", "ExceptionGroup", "FileExistsError", "FileNotFoundError",
    "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
    "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError",
    "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError",
    "NameError", "NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError",
    "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
    "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning",
    "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
    "SystemExit", "TabError", "TimeoutError", "TypeError", "UnboundLocalError",
    "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError",
    "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError", "aiter",
    "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes",
    "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr",
    "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit", "filter", "format",
    "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input",
    "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map",
    "memoryview", "next", "object", "oct", "open", "ord", "print", "property", "quit", "range",
    "repr", "reversed", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
    "super", "tuple", "type", "vars", "zip",
];

/// The value of a name PBS's server's validation script defines beside the formula it
/// checks (`ans = 0`, `errnum = 0`, `errmsg = ''`, the dicts `globals1` and `globals2`;
/// `sched_func.c`, `validate_job_formula`), as the int fairsort's validation binds it to (the
/// dicts are truthy, 1; the others falsy, 0). They come before resources and keywords (the
/// script's locals win), so a formula naming one passes the server's validation although the
/// scheduler, which does not define them, fails it on every job.
pub(crate) fn validation_local(name: &str) -> Option<i128> {
    match name {
        "ans" | "errnum" | "errmsg" => Some(0),
        "globals1" | "globals2" => Some(1),
        _ => None,
    }
}

/// Resolves `name` (found at `span`) in PBS's lookup order.
pub fn resolve(
    name: &str,
    span: &Span,
    resources: &ResourceTable,
) -> Result<Resolved, FormulaError> {
    if let Some(&(_, c)) = MATH_CONSTS.iter().find(|(n, _)| *n == name) {
        return Ok(Resolved::Const(c));
    }
    if let Some(&(_, f)) = MATH_FUNCS.iter().find(|(n, _)| *n == name) {
        return Ok(Resolved::Func(f));
    }
    if MATH_UNSUPPORTED.contains(&name) {
        return Err(FormulaError::Unsupported {
            what: format!("math function `{name}`"),
            span: span.clone(),
        });
    }
    if keywords::is_keyword(name) {
        return Ok(Resolved::Slot);
    }
    let ty = resources.get(name);
    if ty.is_some_and(|t| t.is_numeric()) {
        return Ok(Resolved::Slot);
    }
    if let Some(&(_, f)) = BUILTIN_FUNCS.iter().find(|(n, _)| *n == name) {
        return Ok(Resolved::Func(f));
    }
    if name.starts_with("__") {
        return Err(FormulaError::Refused {
            what: format!("`{name}` (a name of Python's internals)"),
            reason: COULD_RUN_CODE,
            span: span.clone(),
        });
    }
    if ty.is_none() && PYTHON_BUILTINS.binary_search(&name).is_ok() {
        return Err(FormulaError::Refused {
            what: format!("the Python builtin `{name}`"),
            reason: "only math functions and the builtins abs, min, max, round, int and \
                     float may be used; other builtins could run code (PBS's server would \
                     evaluate it with Python)",
            span: span.clone(),
        });
    }
    if let Some(ty) = ty {
        return Err(FormulaError::InvalidType {
            name: name.to_string(),
            ty,
            span: span.clone(),
        });
    }
    Err(FormulaError::InvalidKeyword {
        name: name.to_string(),
        span: span.clone(),
        suggestion: suggest(name, resources),
    })
}

/// The closest valid name to a misspelled one, if it is close (edit distance ≤ 2 and less
/// than a third of the name).
pub(crate) fn suggest(name: &str, resources: &ResourceTable) -> Option<String> {
    let candidates = PBS_KEYWORDS
        .iter()
        .chain(&FAIRSORT_KEYWORDS)
        .copied()
        .chain(
            resources
                .iter()
                .filter(|(_, t)| t.is_numeric())
                .map(|(n, _)| n),
        )
        .chain(MATH_FUNCS.iter().map(|(n, _)| *n))
        .chain(MATH_CONSTS.iter().map(|(n, _)| *n))
        .chain(BUILTIN_FUNCS.iter().map(|(n, _)| *n));
    let limit = 2.min(name.chars().count().saturating_sub(1) / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = distance(name, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c.to_string())
}

/// Levenshtein distance (names are short).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::defs::ResourceType;

    #[test]
    fn lookup_order() {
        let mut r = ResourceTable::builtin();
        r.define("e", ResourceType::Float).unwrap_or(());
        r.define("abs", ResourceType::Long).unwrap_or(());
        r.define("min", ResourceType::String).unwrap_or(());
        let s = 0..1;
        assert!(matches!(resolve("e", &s, &r), Ok(Resolved::Const(_))));
        assert_eq!(resolve("abs", &s, &r), Ok(Resolved::Slot));
        assert_eq!(resolve("min", &s, &r), Ok(Resolved::Func(Func::Min)));
        assert_eq!(resolve("ncpus", &s, &r), Ok(Resolved::Slot));
        assert_eq!(resolve("fairshare_factor", &s, &r), Ok(Resolved::Slot));
        assert_eq!(
            resolve("arch", &s, &r).map_err(|e| e.code()),
            Err(Some(15125))
        );
        assert_eq!(
            resolve("nope", &s, &r).map_err(|e| e.code()),
            Err(Some(15124))
        );
        assert_eq!(resolve("fsum", &s, &r).map_err(|e| e.code()), Err(None));
    }

    #[test]
    fn builtins_that_could_run_code_are_refused() {
        assert!(PYTHON_BUILTINS.windows(2).all(|w| w[0] < w[1]), "sorted");
        let r = ResourceTable::builtin();
        let s = 0..1;
        for n in [
            "open",
            "eval",
            "exec",
            "getattr",
            "__import__",
            "__builtins__",
            "sum",
        ] {
            let e = resolve(n, &s, &r);
            assert!(matches!(e, Err(FormulaError::Refused { .. })), "{n}: {e:?}");
            assert_eq!(e.map_err(|e| e.code()), Err(None), "fairsort's own refusal");
        }
    }

    #[test]
    fn suggestions() {
        let r = ResourceTable::builtin();
        assert_eq!(
            suggest("fair_share_factor", &r).as_deref(),
            Some("fairshare_factor")
        );
        assert_eq!(suggest("walltim", &r).as_deref(), Some("walltime"));
        assert_eq!(suggest("sqr", &r).as_deref(), Some("sqrt"));
        assert_eq!(suggest("zzzzzz", &r), None);
    }
}
