//! The formula's syntax tree: what the parser produces, with byte spans into the source, before
//! names are resolved. Left-associative chains (`a + b - c`, `a and b and c`, `a < b < c`) are
//! flat lists so that a long formula does not become a deep tree.

use std::fmt;
use std::ops::Range;

/// A byte range into the formula source.
pub type Span = Range<usize>;

/// A node of the syntax tree and the source text it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the node is.
    pub kind: ExprKind,
    /// Byte range of the node in the formula.
    pub span: Span,
}

/// A numeric literal as Python reads it: an `int` or a `float`.
#[derive(Debug, Clone, PartialEq)]
pub enum Number {
    /// An integer literal (`3`, `0x1f`, `1_000`).
    Int(i128),
    /// An integer literal beyond `i128`, as its decimal digits (with a `-` never: literals have
    /// no sign).
    Big(String),
    /// A float literal (`1.5`, `.5`, `1e-3`).
    Float(f64),
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `not x`
    Not,
}

/// Arithmetic binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (true division)
    Div,
    /// `//` (floored division)
    FloorDiv,
    /// `%` (floored modulo)
    Mod,
    /// `**` (right-associative)
    Pow,
}

/// Comparison operators (chainable as in Python).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

/// `and` / `or`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolOp {
    /// `and`: the first falsy operand, else the last.
    And,
    /// `or`: the first truthy operand, else the last.
    Or,
}

/// The kinds of syntax node.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A numeric literal.
    Number(Number),
    /// `True` / `False`.
    Bool(bool),
    /// A name: keyword, resource, math constant or function.
    Name(String),
    /// A unary operator applied to an operand.
    Unary(UnaryOp, Box<Expr>),
    /// `first op1 e1 op2 e2 ...` evaluated left to right (`**` chains hold one pair: it is
    /// right-associative and nests in the right operand).
    Chain(Box<Expr>, Vec<(BinOp, Expr)>),
    /// A comparison chain `a < b <= c`: `a < b and b <= c`, with `b` evaluated once.
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    /// `a and b and c` / `a or b or c`.
    Logic(BoolOp, Vec<Expr>),
    /// `then if cond else otherwise`.
    IfElse {
        /// The value when `cond` is truthy.
        then: Box<Expr>,
        /// The condition.
        cond: Box<Expr>,
        /// The value otherwise.
        otherwise: Box<Expr>,
    },
    /// A function call `name(args...)`.
    Call {
        /// The function name.
        name: String,
        /// Span of the name alone.
        name_span: Span,
        /// The arguments.
        args: Vec<Expr>,
    },
}

impl BinOp {
    /// The operator as written.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
        }
    }
}

impl CmpOp {
    /// The operator as written.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }
}

/// Fully parenthesised rendering, ignoring spans: two formulas that parse to the same tree print
/// the same. Used by precedence tests and `fairsort check --json`'s `parsed` field.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Number(Number::Int(i)) => write!(f, "{i}"),
            ExprKind::Number(Number::Big(digits)) => f.write_str(digits),
            ExprKind::Number(Number::Float(x)) => write!(f, "{x:?}"),
            ExprKind::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            ExprKind::Name(n) => f.write_str(n),
            ExprKind::Unary(op, e) => {
                let s = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Pos => "+",
                    UnaryOp::Not => "not ",
                };
                write!(f, "({s}{e})")
            }
            ExprKind::Chain(first, rest) => {
                for _ in rest {
                    f.write_str("(")?;
                }
                write!(f, "{first}")?;
                for (op, e) in rest {
                    write!(f, " {} {e})", op.symbol())?;
                }
                Ok(())
            }
            ExprKind::Compare(first, rest) => {
                write!(f, "({first}")?;
                for (op, e) in rest {
                    write!(f, " {} {e}", op.symbol())?;
                }
                f.write_str(")")
            }
            ExprKind::Logic(op, items) => {
                let sep = match op {
                    BoolOp::And => " and ",
                    BoolOp::Or => " or ",
                };
                for _ in 1..items.len() {
                    f.write_str("(")?;
                }
                for (i, e) in items.iter().enumerate() {
                    if i == 0 {
                        write!(f, "{e}")?;
                    } else {
                        write!(f, "{sep}{e})")?;
                    }
                }
                Ok(())
            }
            ExprKind::IfElse {
                then,
                cond,
                otherwise,
            } => write!(f, "({then} if {cond} else {otherwise})"),
            ExprKind::Call { name, args, .. } => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
        }
    }
}
