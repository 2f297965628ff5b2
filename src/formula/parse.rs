//! Syntax: pest grammar (`grammar/formula.pest`) + one static Pratt parser with Python's
//! precedence → [`Expr`]. Also enforces the places where Python's grammar is stricter than a
//! plain Pratt parser (`1 + not x` and `a if b if c else d else e` are syntax errors).

use crate::formula::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, Number, Span, UnaryOp};
use crate::formula::error::{FormulaError, COULD_RUN_CODE};
use crate::formula::limits;
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use std::sync::LazyLock;

/// The pest parser of grammar/formula.pest (its generated `Rule` enum has no docs).
#[allow(missing_docs)]
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/formula.pest"]
    pub(super) struct FormulaParser;
}
use grammar::{FormulaParser, Rule};

/// Python's precedence, lowest first: `if-else` < `or` < `and` < `not` < comparisons <
/// `+ -` < `* / // %` < unary `+ -` < `**` (so `-2**2 == -4` and `2**-1 == 0.5`).
static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::cond, Assoc::Right))
        .op(Op::infix(Rule::or, Assoc::Left))
        .op(Op::infix(Rule::and, Assoc::Left))
        .op(Op::prefix(Rule::not))
        .op(Op::infix(Rule::lt, Assoc::Left)
            | Op::infix(Rule::le, Assoc::Left)
            | Op::infix(Rule::gt, Assoc::Left)
            | Op::infix(Rule::ge, Assoc::Left)
            | Op::infix(Rule::eq, Assoc::Left)
            | Op::infix(Rule::ne, Assoc::Left))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left)
            | Op::infix(Rule::div, Assoc::Left)
            | Op::infix(Rule::floordiv, Assoc::Left)
            | Op::infix(Rule::rem, Assoc::Left))
        .op(Op::prefix(Rule::neg) | Op::prefix(Rule::pos))
        .op(Op::infix(Rule::pow, Assoc::Right))
});

/// The user-facing name of every grammar rule (no wildcard arm: a new rule must be named).
fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of formula",
        Rule::WHITESPACE => "whitespace",
        Rule::formula => "a formula",
        Rule::expr | Rule::arg => "an expression",
        Rule::pow => "`**`",
        Rule::mul => "`*`",
        Rule::floordiv => "`//`",
        Rule::div => "`/`",
        Rule::rem => "`%`",
        Rule::add => "`+`",
        Rule::sub => "`-`",
        Rule::le => "`<=`",
        Rule::ge => "`>=`",
        Rule::eq => "`==`",
        Rule::ne => "`!=`",
        Rule::lt => "`<`",
        Rule::gt => "`>`",
        Rule::and => "`and`",
        Rule::or => "`or`",
        Rule::cond => "`if ... else`",
        Rule::kw_if => "`if`",
        Rule::kw_else => "`else`",
        Rule::neg => "`-`",
        Rule::pos => "`+`",
        Rule::not => "`not`",
        Rule::paren => "`(`",
        Rule::call | Rule::call_start => "a function call",
        Rule::boolean => "`True` or `False`",
        Rule::name => "a name",
        Rule::number => "a number",
        Rule::infix => "an operator",
        Rule::prefix => "a unary operator",
        Rule::primary => "an operand",
        Rule::ident_char => "a letter, digit or `_`",
        Rule::reserved => "a reserved word",
        Rule::digits => "digits",
        Rule::exponent => "an exponent",
        Rule::float_lit | Rule::dec_int | Rule::hex_int | Rule::oct_int | Rule::bin_int => {
            "a number"
        }
    }
}

fn is_infix(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::pow
            | Rule::mul
            | Rule::floordiv
            | Rule::div
            | Rule::rem
            | Rule::add
            | Rule::sub
            | Rule::le
            | Rule::ge
            | Rule::eq
            | Rule::ne
            | Rule::lt
            | Rule::gt
            | Rule::and
            | Rule::or
            | Rule::cond
    )
}

fn is_operand_start(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::number
            | Rule::boolean
            | Rule::call
            | Rule::call_start
            | Rule::name
            | Rule::paren
            | Rule::neg
            | Rule::pos
            | Rule::not
            | Rule::expr
            | Rule::arg
    )
}

/// Parses a formula into its syntax tree (no name checks; see [`crate::formula::compile`]).
pub fn parse(src: &str) -> Result<Expr, FormulaError> {
    limits::check(src)?;
    let mut pairs = FormulaParser::parse(Rule::formula, src).map_err(|e| syntax_error(src, e))?;
    let formula = pairs.next().ok_or_else(|| empty(src))?;
    let expr = formula
        .into_inner()
        .find(|p| p.as_rule() == Rule::expr)
        .ok_or_else(|| empty(src))?;
    let built = build_expr(expr)?;
    Ok(built.expr)
}

fn empty(src: &str) -> FormulaError {
    FormulaError::Syntax {
        detail: "the formula is empty".into(),
        span: 0..src.len(),
        hint: None,
    }
}

/// Turns a pest error into one line ("expected an operand", "unexpected `^`") plus a hint.
fn syntax_error(src: &str, e: pest::error::Error<Rule>) -> FormulaError {
    use pest::error::{ErrorVariant, InputLocation};
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let pos = pos.min(src.len());
    let rest = &src[pos..];
    if let Some(refused) = refusal(src, pos) {
        return refused;
    }
    let found = rest.chars().next();
    if found.is_none() {
        if let Some(open) = unclosed_paren(src) {
            return FormulaError::Syntax {
                detail: "this `(` is never closed (Python: '(' was never closed)".into(),
                span: open..open + 1,
                hint: Some("add `)` where its group ends".into()),
            };
        }
    }
    let end = pos + found.map(char::len_utf8).unwrap_or(0);
    let detail = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let wants_op = positives.iter().any(|&r| is_infix(r) || r == Rule::EOI);
            let wants_operand = positives.iter().any(|&r| is_operand_start(r));
            let expected = match (wants_operand, wants_op) {
                (true, true) => "expected an operand or an operator".to_string(),
                (true, false) => "expected a number, a name, `(` or a unary operator".to_string(),
                (false, true) if positives.contains(&Rule::EOI) && positives.len() == 1 => {
                    "expected end of formula".to_string()
                }
                (false, true) => "expected an operator or the end of the formula".to_string(),
                (false, false) => {
                    let mut names: Vec<&str> = positives.iter().map(|&r| rule_name(r)).collect();
                    names.dedup();
                    format!("expected {}", names.join(", "))
                }
            };
            match found {
                None => format!("{expected}, found the end of the formula"),
                Some(c) => format!("{expected}, found `{c}`"),
            }
        }
        ErrorVariant::CustomError { message } => message.clone(),
    };
    FormulaError::Syntax {
        detail,
        span: pos..end,
        hint: hint_for(rest),
    }
}

/// The byte offset of the innermost `(` that no `)` closes, if any.
fn unclosed_paren(src: &str) -> Option<usize> {
    let mut open = Vec::new();
    for (i, c) in src.char_indices() {
        match c {
            '(' => open.push(i),
            ')' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `rest` starts with the word `w` (not a longer name).
fn starts_word(rest: &str, w: &str) -> bool {
    rest.strip_prefix(w)
        .is_some_and(|r| !r.starts_with(is_ident_char))
}

/// The first name of Python's internals (`__import__`, `__builtins__`, ...) in `src`.
pub(crate) fn dunder(src: &str) -> Option<Span> {
    let mut prev: Option<char> = None;
    for (i, c) in src.char_indices() {
        if c == '_' && !prev.is_some_and(is_ident_char) && src[i..].starts_with("__") {
            let len = src[i..]
                .find(|c| !is_ident_char(c))
                .unwrap_or(src.len() - i);
            return Some(i..i + len);
        }
        prev = Some(c);
    }
    None
}

/// Python that fairsort refuses on purpose because it could run code (PBS's server would
/// evaluate it with Python): a name of Python's internals anywhere, or, where parsing stopped
/// at `pos`, attribute access, a subscript or display, a string literal, a lambda, a call of
/// an expression's result, an assignment expression or a comprehension.
fn refusal(src: &str, pos: usize) -> Option<FormulaError> {
    let refused = |what: String, span: Span| FormulaError::Refused {
        what,
        reason: COULD_RUN_CODE,
        span,
    };
    if let Some(span) = dunder(src) {
        let name = src.get(span.clone()).unwrap_or("");
        return Some(refused(
            format!("`{name}` (a name of Python's internals)"),
            span,
        ));
    }
    let rest = src.get(pos..)?;
    let before = src.get(..pos)?.trim_end().chars().last();
    let after_operand = before.is_some_and(|c| is_ident_char(c) || c == ')' || c == ']');
    let (what, len) = if let Some(attr) = rest
        .strip_prefix('.')
        .filter(|r| r.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    {
        let len = 1 + attr.find(|c| !is_ident_char(c)).unwrap_or(attr.len());
        (
            format!("attribute access (`{}`)", rest.get(..len).unwrap_or(".")),
            len,
        )
    } else if rest.starts_with('[') {
        let what = if after_operand {
            "a subscript (`x[...]`)"
        } else {
            "a list (`[...]`)"
        };
        (what.to_string(), 1)
    } else if rest.starts_with('{') {
        ("a dict or set (`{...}`)".to_string(), 1)
    } else if let Some(body) = rest.strip_prefix('"') {
        let len = body.find('"').map_or(1, |i| i + 2);
        ("a string literal".to_string(), len)
    } else if starts_word(rest, "lambda") {
        ("`lambda`".to_string(), 6)
    } else if rest.starts_with('(') && after_operand {
        ("calling the result of an expression".to_string(), 1)
    } else if rest.starts_with(":=") {
        ("an assignment expression (`:=`)".to_string(), 2)
    } else if starts_word(rest, "for") {
        ("a comprehension or generator (`for`)".to_string(), 3)
    } else if starts_word(rest, "await") || starts_word(rest, "yield") {
        ("`await` and `yield`".to_string(), 5)
    } else {
        return None;
    };
    Some(refused(what, pos..pos + len))
}

/// Targeted hints for things people write by habit from other languages.
fn hint_for(rest: &str) -> Option<String> {
    let h = if rest.starts_with('^') {
        "`^` is not a power in Python: use `**` or pow(x, y)"
    } else if rest.starts_with('\'') || rest.starts_with('"') {
        "quotes and string literals are not allowed in a formula"
    } else if rest.starts_with("&&") {
        "use `and`"
    } else if rest.starts_with("||") {
        "use `or`"
    } else if rest.starts_with('!') {
        "use `not` (and `!=` for not equal)"
    } else if rest.starts_with('=') {
        "did you mean `==`?"
    } else if rest.starts_with('[') || rest.starts_with('{') {
        "only parentheses can group"
    } else if rest.starts_with('j') || rest.starts_with('J') {
        "complex numbers are not part of the language"
    } else {
        return None;
    };
    Some(h.to_string())
}

/// What the top of a built sub-expression is, when it is not parenthesised: Python's grammar
/// restricts where `not x` and `a if c else b` may appear, and chains flatten through it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Atom,
    Not,
    Additive,
    Multiplicative,
    Compare,
    And,
    Or,
    IfElse,
}

struct Built {
    expr: Expr,
    shape: Shape,
}

fn span_of(pair: &Pair<'_, Rule>) -> Span {
    let s = pair.as_span();
    s.start()..s.end()
}

fn join(a: &Span, b: &Span) -> Span {
    a.start.min(b.start)..a.end.max(b.end)
}

fn misplaced(what: &str, span: Span) -> FormulaError {
    FormulaError::Syntax {
        detail: format!("{what} cannot be used here without parentheses"),
        span,
        hint: Some("wrap it in parentheses".into()),
    }
}

/// `not x` may only stand where a boolean operand goes (Python's grammar).
fn no_bare_not(b: &Built) -> Result<(), FormulaError> {
    if b.shape == Shape::Not {
        return Err(misplaced("`not`", b.expr.span.clone()));
    }
    Ok(())
}

fn build_expr(pair: Pair<'_, Rule>) -> Result<Built, FormulaError> {
    build_pairs(pair.into_inner())
}

fn build_pairs(pairs: Pairs<'_, Rule>) -> Result<Built, FormulaError> {
    PRATT
        .map_primary(build_primary)
        .map_prefix(|op, rhs| {
            let rhs = rhs?;
            let span = join(&span_of(&op), &rhs.expr.span);
            let (uop, shape) = match op.as_rule() {
                Rule::neg => (UnaryOp::Neg, Shape::Atom),
                Rule::pos => (UnaryOp::Pos, Shape::Atom),
                _ => (UnaryOp::Not, Shape::Not),
            };
            if uop != UnaryOp::Not {
                no_bare_not(&rhs)?;
            }
            Ok(Built {
                expr: Expr {
                    kind: ExprKind::Unary(uop, Box::new(rhs.expr)),
                    span,
                },
                shape,
            })
        })
        .map_infix(|lhs, op, rhs| build_infix(lhs?, op, rhs?))
        .parse(pairs)
}

fn build_infix(lhs: Built, op: Pair<'_, Rule>, rhs: Built) -> Result<Built, FormulaError> {
    let span = join(&lhs.expr.span, &rhs.expr.span);
    let rule = op.as_rule();
    let arith = match rule {
        Rule::pow => Some((BinOp::Pow, None)),
        Rule::mul => Some((BinOp::Mul, Some(Shape::Multiplicative))),
        Rule::div => Some((BinOp::Div, Some(Shape::Multiplicative))),
        Rule::floordiv => Some((BinOp::FloorDiv, Some(Shape::Multiplicative))),
        Rule::rem => Some((BinOp::Mod, Some(Shape::Multiplicative))),
        Rule::add => Some((BinOp::Add, Some(Shape::Additive))),
        Rule::sub => Some((BinOp::Sub, Some(Shape::Additive))),
        _ => None,
    };
    if let Some((bop, level)) = arith {
        no_bare_not(&lhs)?;
        no_bare_not(&rhs)?;
        let shape = level.unwrap_or(Shape::Atom);
        if level.is_some() && lhs.shape == shape {
            if let ExprKind::Chain(first, mut rest) = lhs.expr.kind {
                rest.push((bop, rhs.expr));
                return Ok(Built {
                    expr: Expr {
                        kind: ExprKind::Chain(first, rest),
                        span,
                    },
                    shape,
                });
            }
            return Err(internal(span));
        }
        return Ok(Built {
            expr: Expr {
                kind: ExprKind::Chain(Box::new(lhs.expr), vec![(bop, rhs.expr)]),
                span,
            },
            shape,
        });
    }
    let cmp = match rule {
        Rule::lt => Some(CmpOp::Lt),
        Rule::le => Some(CmpOp::Le),
        Rule::gt => Some(CmpOp::Gt),
        Rule::ge => Some(CmpOp::Ge),
        Rule::eq => Some(CmpOp::Eq),
        Rule::ne => Some(CmpOp::Ne),
        _ => None,
    };
    if let Some(cop) = cmp {
        no_bare_not(&lhs)?;
        no_bare_not(&rhs)?;
        let kind = match (lhs.shape, lhs.expr.kind) {
            (Shape::Compare, ExprKind::Compare(first, mut rest)) => {
                rest.push((cop, rhs.expr));
                ExprKind::Compare(first, rest)
            }
            (_, kind) => ExprKind::Compare(
                Box::new(Expr {
                    kind,
                    span: lhs.expr.span,
                }),
                vec![(cop, rhs.expr)],
            ),
        };
        return Ok(Built {
            expr: Expr { kind, span },
            shape: Shape::Compare,
        });
    }
    match rule {
        Rule::and | Rule::or => {
            let (bop, shape) = if rule == Rule::and {
                (BoolOp::And, Shape::And)
            } else {
                (BoolOp::Or, Shape::Or)
            };
            let kind = match (lhs.shape == shape, lhs.expr.kind) {
                (true, ExprKind::Logic(_, mut items)) => {
                    items.push(rhs.expr);
                    ExprKind::Logic(bop, items)
                }
                (_, kind) => ExprKind::Logic(
                    bop,
                    vec![
                        Expr {
                            kind,
                            span: lhs.expr.span,
                        },
                        rhs.expr,
                    ],
                ),
            };
            Ok(Built {
                expr: Expr { kind, span },
                shape,
            })
        }
        Rule::cond => {
            let inner = op
                .into_inner()
                .find(|p| p.as_rule() == Rule::expr)
                .ok_or_else(|| internal(span.clone()))?;
            let cond = build_expr(inner)?;
            if cond.shape == Shape::IfElse {
                return Err(misplaced("a conditional expression", cond.expr.span));
            }
            Ok(Built {
                expr: Expr {
                    kind: ExprKind::IfElse {
                        then: Box::new(lhs.expr),
                        cond: Box::new(cond.expr),
                        otherwise: Box::new(rhs.expr),
                    },
                    span,
                },
                shape: Shape::IfElse,
            })
        }
        _ => Err(internal(span)),
    }
}

fn internal(span: Span) -> FormulaError {
    FormulaError::Syntax {
        detail: "unexpected construct".into(),
        span,
        hint: None,
    }
}

fn build_primary(pair: Pair<'_, Rule>) -> Result<Built, FormulaError> {
    let span = span_of(&pair);
    let atom = |kind| {
        Ok(Built {
            expr: Expr {
                kind,
                span: span.clone(),
            },
            shape: Shape::Atom,
        })
    };
    match pair.as_rule() {
        Rule::number => atom(ExprKind::Number(parse_number(pair.as_str(), span.clone())?)),
        Rule::boolean => atom(ExprKind::Bool(pair.as_str() == "True")),
        Rule::name => atom(ExprKind::Name(pair.as_str().to_string())),
        Rule::paren => {
            let inner = pair
                .into_inner()
                .next()
                .ok_or_else(|| internal(span.clone()))?;
            let built = build_expr(inner)?;
            Ok(Built {
                expr: Expr {
                    kind: built.expr.kind,
                    span,
                },
                shape: Shape::Atom,
            })
        }
        Rule::call => {
            let mut inner = pair.into_inner();
            let name = inner.next().ok_or_else(|| internal(span.clone()))?;
            let name_span = span_of(&name);
            let args = inner
                .filter(|p| p.as_rule() == Rule::arg)
                .map(|a| {
                    let e = a
                        .into_inner()
                        .next()
                        .ok_or_else(|| internal(span.clone()))?;
                    Ok(build_expr(e)?.expr)
                })
                .collect::<Result<Vec<_>, FormulaError>>()?;
            atom(ExprKind::Call {
                name: name.as_str().to_string(),
                name_span,
                args,
            })
        }
        _ => Err(internal(span)),
    }
}

/// Reads a number literal the way Python does (underscores, hex/octal/binary integers).
fn parse_number(text: &str, span: Span) -> Result<Number, FormulaError> {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    let lower = clean.to_ascii_lowercase();
    let radix = if lower.starts_with("0x") {
        Some(16)
    } else if lower.starts_with("0o") {
        Some(8)
    } else if lower.starts_with("0b") {
        Some(2)
    } else {
        None
    };
    let too_big = || FormulaError::Unsupported {
        what: "an integer literal this large".into(),
        span: span.clone(),
    };
    // Beyond i128: a big int, up to fairsort's int size limit and, for decimal literals,
    // Python 3.11's 4300-digit limit on converting text to int.
    let big = |digits: &str, radix: u32| {
        if radix == 10 && digits.len() > 4300 {
            return Err(too_big());
        }
        num_bigint::BigUint::parse_bytes(digits.as_bytes(), radix)
            .filter(|b| b.bits() <= crate::formula::limits::MAX_INT_BITS)
            .map(|b| Number::Big(b.to_string()))
            .ok_or_else(too_big)
    };
    if let Some(radix) = radix {
        return i128::from_str_radix(&clean[2..], radix)
            .map(Number::Int)
            .or_else(|_| big(&clean[2..], radix));
    }
    if lower.contains(['.', 'e']) {
        return clean
            .parse::<f64>()
            .map(Number::Float)
            .map_err(|_| FormulaError::Syntax {
                detail: format!("invalid number `{text}`"),
                span: span.clone(),
                hint: None,
            });
    }
    clean
        .parse::<i128>()
        .map(Number::Int)
        .or_else(|_| big(&clean, 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> String {
        match parse(s) {
            Ok(e) => e.to_string(),
            Err(e) => panic!("{s}: {e}"),
        }
    }

    fn same(a: &str, b: &str) {
        assert_eq!(p(a), p(b), "{a} vs {b}");
    }

    #[test]
    fn precedence_matches_python() {
        same("-2**2", "-(2**2)");
        same("2**3**2", "2**(3**2)");
        same("2**-1", "2**(-1)");
        same("-2**-2", "-(2**(-2))");
        same("2**-3**2", "2**(-(3**2))");
        same("1+2*3", "1+(2*3)");
        same("1-2-3", "(1-2)-3");
        same("8/4/2", "(8/4)/2");
        same("7//2*3%4", "((7//2)*3)%4");
        same("-a*b", "(-a)*b");
        same("a+b<c*d", "(a+b)<(c*d)");
        same("not a == b", "not (a == b)");
        same("not a and b or c", "((not a) and b) or c");
        same("a or b and c", "a or (b and c)");
        same("a if b else c if d else e", "a if b else (c if d else e)");
        same("x or y if c else z", "(x or y) if c else z");
        same("not a if b else c", "(not a) if b else c");
        same("- - 1", "-(-1)");
        same("a < b < c", "a < b < c");
        assert_ne!(p("a < b < c"), p("(a < b) < c"));
        same("f(1, 2,)", "f(1,2)");
        same("-x**y**z", "-(x**(y**z))");
    }

    #[test]
    fn numbers() {
        assert_eq!(p("1_000"), "1000");
        assert_eq!(p("0x1F"), "31");
        assert_eq!(p("0o17"), "15");
        assert_eq!(p("0b101"), "5");
        assert_eq!(p(".5"), "0.5");
        assert_eq!(p("1."), "1.0");
        assert_eq!(p("1e3"), "1000.0");
        assert_eq!(p("1.e-3"), "0.001");
        assert_eq!(p("00"), "0");
    }

    fn err(s: &str) -> FormulaError {
        match parse(s) {
            Ok(e) => panic!("{s} parsed as {e}"),
            Err(e) => e,
        }
    }

    #[test]
    fn python_syntax_errors() {
        for s in [
            "",
            "1 +",
            "(1",
            "1)",
            "1 + not 2",
            "- not 1",
            "2 ** not 1",
            "not 1 == not 1",
            "a if b if c else d else e",
            "01",
            "1 2",
            "1j",
            "'a'",
            "a = 1",
            "2 ^ 3",
            "f(,)",
            "if",
            "1__0",
            "1_",
            "0x",
            "()",
            "None",
            "1 <> 2",
        ] {
            let e = err(s);
            assert_eq!(e.code(), Some(15123), "{s}: {e}");
        }
        // Python accepts these
        for s in [
            "not not 1",
            "a and not b",
            "1 if not a else 2",
            "(not 1) + 1",
            "f()",
            "a<b<=c!=d",
        ] {
            assert!(parse(s).is_ok(), "{s}");
        }
    }

    #[test]
    fn python_that_could_run_code_is_refused() {
        for (s, what, span) in [
            ("x.y", "attribute access (`.y`)", 1..3),
            ("ncpus.real + 1", "attribute access (`.real`)", 5..10),
            ("a[1]", "a subscript (`x[...]`)", 1..2),
            ("[1]", "a list (`[...]`)", 0..1),
            ("{1: 2}", "a dict or set (`{...}`)", 0..1),
            ("lambda: 1", "`lambda`", 0..6),
            ("\"os\"", "a string literal", 0..4),
            (
                "__import__(\"os\").system(\"ls\")",
                "`__import__` (a name of Python's internals)",
                0..10,
            ),
            ("sqrt(4)(2)", "calling the result of an expression", 7..8),
            ("(y := 2)", "an assignment expression (`:=`)", 3..5),
            (
                "max(x for x in y)",
                "a comprehension or generator (`for`)",
                6..9,
            ),
        ] {
            match err(s) {
                FormulaError::Refused {
                    what: w, span: sp, ..
                } => assert_eq!((w.as_str(), sp), (what, span), "{s}"),
                e => panic!("{s}: {e:?}"),
            }
            let e = err(s);
            assert_eq!(e.code(), None, "{s}: fairsort's own refusal");
            assert!(
                e.to_string().contains("is refused: it could run code"),
                "{e}"
            );
            assert!(e.hint().is_some_and(|h| h.contains("docs/formula.md")));
        }
        // a single quote breaks PBS's own validation (it pastes the formula inside '...'): 15123
        assert_eq!(err("'a'").code(), Some(15123));
    }

    #[test]
    fn caret_positions() {
        let e = err("1 + * 2");
        assert_eq!(e.span(), Some(4..5));
        let e = err("ncpus ^ 2");
        assert_eq!(e.span(), Some(6..7));
        assert!(e.render("ncpus ^ 2").contains("**"));
    }

    #[test]
    fn deep_inputs_give_errors() {
        let d = limits::MAX_DEPTH;
        assert!(matches!(
            err(&"(".repeat(100_000)),
            FormulaError::TooLong { .. }
        ));
        assert!(matches!(
            err(&"(".repeat(50_000)),
            FormulaError::TooDeep { .. }
        ));
        assert!(matches!(
            err(&"-".repeat(50_000)),
            FormulaError::TooDeep { .. }
        ));
        let ok = format!("{}1{}", "(".repeat(d - 2), ")".repeat(d - 2));
        assert!(parse(&ok).is_ok());
        let ok = format!("{}1", "-".repeat(d - 2));
        assert!(parse(&ok).is_ok());
        let ok = format!("{}1", "2**".repeat(d - 2));
        assert!(parse(&ok).is_ok());
        let long = vec!["ncpus"; 10_000].join("+");
        assert!(parse(&long).is_ok());
    }
}
