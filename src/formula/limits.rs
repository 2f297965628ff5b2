//! Hard limits on formula size, checked by a linear scan before the recursive parser runs, so
//! that no input can exhaust the stack (pest's and the Pratt parser's recursion, the AST
//! builder, the compiler and the evaluator are all bounded by `MAX_DEPTH`).

use crate::formula::error::FormulaError;

/// Longest formula accepted, in bytes (PBS formulas are a line or two).
pub const MAX_LEN: usize = 64 * 1024;

/// Deepest nesting accepted: parentheses, call arguments, `if` conditions, and runs of
/// operators that nest (unary `- + not`, `**`, `... else ...`) all count one level.
pub const MAX_DEPTH: usize = 200;

/// Largest Python int a formula may compute, in bits (about 39 000 decimal digits; `factorial(10000)`
/// fits). Python's ints are unbounded, but `10**10**10` would take PBS's scheduler minutes and
/// gigabytes: beyond this size evaluation raises fairsort's own error instead (value 0), checked
/// before any big multiplication or power is computed.
pub const MAX_INT_BITS: u64 = 131_072;

#[derive(Default)]
struct Level {
    /// Pending unary `-`/`+` and `**` at this level (ended by any lower binary operator).
    arith: usize,
    /// Pending `not` (ended by `and`, `or`).
    nots: usize,
    /// Pending `else` branches (ended by `,` or the closing bracket).
    ternary: usize,
    /// Whether this level was opened by `if` (closed by `else`) rather than `(`.
    is_if: bool,
}

impl Level {
    fn pending(&self) -> usize {
        self.arith + self.nots + self.ternary
    }
}

/// Rejects formulas longer than [`MAX_LEN`] or nested deeper than [`MAX_DEPTH`].
pub fn check(src: &str) -> Result<(), FormulaError> {
    if src.len() > MAX_LEN {
        return Err(FormulaError::TooLong {
            len: src.len(),
            limit: MAX_LEN,
        });
    }
    let bytes = src.as_bytes();
    let mut stack = vec![Level::default()];
    // depth = stack.len() + sum of pending counters, kept incrementally.
    let mut pending = 0usize;
    let mut prev_operand = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        i += 1;
        let top = stack.len() - 1;
        match c {
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0C' => continue,
            b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'.' => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
                {
                    i += 1;
                }
                prev_operand = false;
                match &src[start..i] {
                    "not" => {
                        stack[top].nots += 1;
                        pending += 1;
                    }
                    "and" | "or" => {
                        pending -= stack[top].arith + stack[top].nots;
                        stack[top].arith = 0;
                        stack[top].nots = 0;
                    }
                    "if" => stack.push(Level {
                        is_if: true,
                        ..Level::default()
                    }),
                    "else" => {
                        if stack.len() > 1 && stack[top].is_if {
                            if let Some(l) = stack.pop() {
                                pending -= l.pending();
                            }
                        }
                        let t = stack.len() - 1;
                        pending -= stack[t].arith + stack[t].nots;
                        stack[t].arith = 0;
                        stack[t].nots = 0;
                        stack[t].ternary += 1;
                        pending += 1;
                    }
                    "in" | "is" | "lambda" | "for" => {}
                    _ => prev_operand = true,
                }
            }
            b'(' | b'[' | b'{' => {
                stack.push(Level::default());
                prev_operand = false;
            }
            b')' | b']' | b'}' => {
                while stack.len() > 1 {
                    match stack.pop() {
                        Some(l) => {
                            pending -= l.pending();
                            if !l.is_if {
                                break;
                            }
                        }
                        None => break,
                    }
                }
                prev_operand = true;
            }
            b',' => {
                pending -= stack[top].pending();
                stack[top] = Level {
                    is_if: stack[top].is_if,
                    ..Level::default()
                };
                prev_operand = false;
            }
            b'-' | b'+' if !prev_operand => {
                stack[top].arith += 1;
                pending += 1;
            }
            b'*' if bytes.get(i) == Some(&b'*') => {
                i += 1;
                stack[top].arith += 1;
                pending += 1;
                prev_operand = false;
            }
            b'-' | b'+' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'!' => {
                pending -= stack[top].arith;
                stack[top].arith = 0;
                prev_operand = false;
            }
            _ => prev_operand = false,
        }
        if stack.len() + pending > MAX_DEPTH {
            let end = (start + 1..=src.len())
                .find(|&e| src.is_char_boundary(e))
                .unwrap_or(src.len());
            return Err(FormulaError::TooDeep {
                span: start..end,
                limit: MAX_DEPTH,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep(e: Result<(), FormulaError>) -> bool {
        matches!(e, Err(FormulaError::TooDeep { .. }))
    }

    #[test]
    fn shallow_formulas_pass() {
        assert!(check("pow(2, -(fairshare_tree_usage/fairshare_perc))").is_ok());
        let long_sum = vec!["ncpus"; 5000].join(" + ");
        assert!(check(&long_sum).is_ok());
        let long_neg_sum = vec!["-1"; 5000].join(" - ");
        assert!(check(&long_neg_sum).is_ok());
        assert!(check(&vec!["not a"; 3000].join(" and ")).is_ok());
        assert!(check(&vec!["f(1)"; 3000].join(" ** 1 * ")).is_ok());
    }

    #[test]
    fn deep_formulas_fail() {
        assert!(deep(check(&"(".repeat(MAX_DEPTH + 1))));
        assert!(deep(check(&"-".repeat(MAX_DEPTH + 1))));
        assert!(deep(check(&"not ".repeat(MAX_DEPTH + 1))));
        assert!(deep(check(&"2**".repeat(MAX_DEPTH + 1))));
        assert!(deep(check(&"1 if 1 else ".repeat(MAX_DEPTH + 1))));
        assert!(deep(check(&"1 if ".repeat(MAX_DEPTH + 1))));
        assert!(deep(check(&"not 1 == ".repeat(MAX_DEPTH + 1))));
        assert!(check(&"(".repeat(MAX_DEPTH - 1)).is_ok());
    }

    #[test]
    fn too_long() {
        let s = "1+".repeat(MAX_LEN);
        assert!(matches!(check(&s), Err(FormulaError::TooLong { .. })));
    }
}
