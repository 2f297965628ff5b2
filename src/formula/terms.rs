//! The top-level `+`/`-` terms of a formula, each compiled on its own, so that `order --explain`
//! can show what each term contributes.

use crate::formula::ast::{BinOp, ExprKind};
use crate::formula::compile::compile_expr;
use crate::formula::error::FormulaError;
use crate::formula::parse::parse;
use crate::formula::program::Program;
use crate::formula::resources::ResourceTable;

/// One additive term: its text, its sign in the sum, and its compiled program.
#[derive(Debug, Clone)]
pub struct Term {
    /// The term as written in the formula.
    pub text: String,
    /// +1.0 or -1.0: whether the term is added or subtracted.
    pub sign: f64,
    /// The term alone, compiled.
    pub program: Program,
}

/// Splits a formula into its top-level additive terms (`a + b - c` → `a`, `b`, `-c`); a formula
/// that is not a sum is one term.
pub fn additive_terms(src: &str, resources: &ResourceTable) -> Result<Vec<Term>, FormulaError> {
    let expr = parse(src)?;
    let parts: Vec<(f64, &crate::formula::ast::Expr)> = match &expr.kind {
        ExprKind::Chain(first, rest)
            if !rest.is_empty()
                && rest
                    .iter()
                    .all(|(op, _)| matches!(op, BinOp::Add | BinOp::Sub)) =>
        {
            std::iter::once((1.0, first.as_ref()))
                .chain(
                    rest.iter()
                        .map(|(op, e)| (if *op == BinOp::Sub { -1.0 } else { 1.0 }, e)),
                )
                .collect()
        }
        _ => vec![(1.0, &expr)],
    };
    parts
        .into_iter()
        .map(|(sign, e)| {
            let text = src.get(e.span.clone()).unwrap_or("").to_string();
            let program = compile_expr(&text, e, resources)?;
            Ok(Term {
                text,
                sign,
                program,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sums() {
        let r = ResourceTable::builtin();
        let t = additive_terms("fairshare_factor + (walltime/ncpus) - 2*ncpus", &r)
            .unwrap_or_else(|e| panic!("{e}"));
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["fairshare_factor", "(walltime/ncpus)", "2*ncpus"]);
        assert_eq!(t[2].sign, -1.0);
        assert_eq!(t[1].program.keywords(), ["walltime", "ncpus"]);
        let one = additive_terms("ncpus * 2", &r).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(one.len(), 1);
    }
}
