//! Compilation: syntax tree → flat node arena with names resolved to slots (no string look-ups
//! at evaluation time) and constant sub-expressions folded.

use super::ast::{BoolOp, Expr, ExprKind, Number, UnaryOp};
use super::error::FormulaError;
use super::exact::eval_node;
use super::ir::Node;
use super::names::{resolve, Resolved};
use super::program::Program;
use super::resources::ResourceTable;
use super::value::Value;
use crate::pbs::keywords;

/// The arena and the slot table being built.
pub(crate) struct Compiler<'r> {
    resources: &'r ResourceTable,
    pub nodes: Vec<Node>,
    pub keywords: Vec<String>,
}

/// Parses, validates names as PBS's server does, and compiles a formula.
pub fn compile(src: &str, resources: &ResourceTable) -> Result<Program, FormulaError> {
    let expr = super::parse::parse(src)?;
    compile_expr(src, &expr, resources)
}

/// Compiles an already parsed formula (`src` is kept as the program's source).
pub fn compile_expr(
    src: &str,
    expr: &Expr,
    resources: &ResourceTable,
) -> Result<Program, FormulaError> {
    let mut c = Compiler {
        resources,
        nodes: Vec::new(),
        keywords: Vec::new(),
    };
    let root = c.expr(expr)?;
    let float_slot = c
        .keywords
        .iter()
        .map(|k| keywords::is_float_keyword(k))
        .collect();
    Ok(Program::new(
        src.to_string(),
        c.keywords,
        float_slot,
        c.nodes,
        root,
    ))
}

impl Compiler<'_> {
    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        let id = self.nodes.len() - 1;
        self.fold(id);
        id
    }

    /// Replaces a node whose operands are all constants by its value (unless evaluating it
    /// raises: then it must raise at run time, and only if reached).
    fn fold(&mut self, id: usize) {
        let is_const = |i: &usize| matches!(self.nodes.get(*i), Some(Node::Const(_)));
        let all_const = match &self.nodes[id] {
            Node::Const(_) | Node::Slot(_) => false,
            Node::Neg(a) | Node::Not(a) => is_const(a),
            Node::Chain(a, rest) => is_const(a) && rest.iter().all(|(_, b)| is_const(b)),
            Node::Compare(a, rest) => is_const(a) && rest.iter().all(|(_, b)| is_const(b)),
            Node::And(items) | Node::Or(items) => items.iter().all(is_const),
            Node::IfElse {
                cond,
                then,
                otherwise,
            } => is_const(cond) && is_const(then) && is_const(otherwise),
            Node::Call(_, args) => args.iter().all(is_const),
        };
        if all_const {
            if let Ok(v) = eval_node(&self.nodes, id, &[], &[]) {
                self.nodes[id] = Node::Const(v);
            }
        }
    }

    fn slot(&mut self, name: &str) -> usize {
        match self.keywords.iter().position(|k| k == name) {
            Some(i) => i,
            None => {
                self.keywords.push(name.to_string());
                self.keywords.len() - 1
            }
        }
    }

    fn exprs(&mut self, items: &[Expr]) -> Result<Vec<usize>, FormulaError> {
        items.iter().map(|e| self.expr(e)).collect()
    }

    fn expr(&mut self, e: &Expr) -> Result<usize, FormulaError> {
        let node = match &e.kind {
            ExprKind::Number(Number::Int(i)) => Node::Const(Value::Int(*i)),
            ExprKind::Number(Number::Big(digits)) => {
                Node::Const(Value::from_bigint(digits.parse().map_err(|_| {
                    FormulaError::Unsupported {
                        what: "an integer literal this large".into(),
                        span: e.span.clone(),
                    }
                })?))
            }
            ExprKind::Number(Number::Float(x)) => Node::Const(Value::Float(*x)),
            ExprKind::Bool(b) => Node::Const(Value::bool(*b)),
            ExprKind::Name(name) => match resolve(name, &e.span, self.resources)? {
                Resolved::Const(c) => Node::Const(Value::Float(c)),
                Resolved::Slot => Node::Slot(self.slot(name)),
                Resolved::Func(_) => {
                    return Err(FormulaError::Unsupported {
                        what: format!(
                            "using the function `{name}` as a value (call it: `{name}(x)`)"
                        ),
                        span: e.span.clone(),
                    })
                }
            },
            ExprKind::Unary(op, inner) => {
                let a = self.expr(inner)?;
                match op {
                    // `+x` is x for every number (a bool becomes the same int).
                    UnaryOp::Pos => return Ok(a),
                    UnaryOp::Neg => Node::Neg(a),
                    UnaryOp::Not => Node::Not(a),
                }
            }
            ExprKind::Chain(first, rest) => {
                let mut acc = self.expr(first)?;
                let mut tail = Vec::with_capacity(rest.len());
                for (op, x) in rest {
                    let b = self.expr(x)?;
                    if tail.is_empty() {
                        // fold a constant prefix (`1 + 2 + x` → `3 + x`), keeping evaluation order
                        if let (Some(Node::Const(_)), Some(Node::Const(_))) =
                            (self.nodes.get(acc), self.nodes.get(b))
                        {
                            let id = self.push(Node::Chain(acc, vec![(*op, b)]));
                            if matches!(self.nodes[id], Node::Const(_)) {
                                acc = id;
                                continue;
                            }
                            self.nodes.pop();
                        }
                    }
                    tail.push((*op, b));
                }
                if tail.is_empty() {
                    return Ok(acc);
                }
                Node::Chain(acc, tail)
            }
            ExprKind::Compare(first, rest) => {
                let a = self.expr(first)?;
                let mut tail = Vec::with_capacity(rest.len());
                for (op, x) in rest {
                    tail.push((*op, self.expr(x)?));
                }
                Node::Compare(a, tail)
            }
            ExprKind::Logic(op, items) => {
                let ids = self.exprs(items)?;
                match op {
                    BoolOp::And => Node::And(ids),
                    BoolOp::Or => Node::Or(ids),
                }
            }
            ExprKind::IfElse {
                then,
                cond,
                otherwise,
            } => {
                let then = self.expr(then)?;
                let cond = self.expr(cond)?;
                let otherwise = self.expr(otherwise)?;
                Node::IfElse {
                    cond,
                    then,
                    otherwise,
                }
            }
            ExprKind::Call {
                name,
                name_span,
                args,
            } => {
                let f = match resolve(name, name_span, self.resources)? {
                    Resolved::Func(f) => f,
                    _ => {
                        return Err(FormulaError::Unsupported {
                            what: format!("calling `{name}`, which is not a function,"),
                            span: name_span.clone(),
                        })
                    }
                };
                let ids = self.exprs(args)?;
                Node::Call(f, ids)
            }
        };
        Ok(self.push(node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(src: &str) -> Vec<Node> {
        match compile(src, &ResourceTable::builtin()) {
            Ok(p) => p.nodes().to_vec(),
            Err(e) => panic!("{src}: {e}"),
        }
    }

    #[test]
    fn folds_constants() {
        assert_eq!(
            nodes("2**10 + 1").last(),
            Some(&Node::Const(Value::Int(1025)))
        );
        assert_eq!(
            nodes("sqrt(16) * pi / pi").last(),
            Some(&Node::Const(Value::Float(4.0)))
        );
        // a raising constant is kept, to raise only when reached
        assert!(matches!(nodes("1/0").last(), Some(Node::Chain(..))));
        let n = nodes("1 + 2 + ncpus");
        assert!(matches!(n.last(), Some(Node::Chain(_, rest)) if rest.len() == 1));
    }

    #[test]
    fn slots_in_order_of_first_use() {
        let p = compile("ncpus * mem + ncpus / walltime", &ResourceTable::builtin());
        let p = p.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.keywords(), ["ncpus", "mem", "walltime"]);
        assert_eq!(p.slot("walltime"), Some(2));
        assert_eq!(p.slot("arch"), None);
    }

    #[test]
    fn refuses_like_pbs() {
        let r = ResourceTable::builtin();
        let code = |s: &str| compile(s, &r).err().and_then(|e| e.code());
        assert_eq!(code("fair_share_factor"), Some(15124));
        assert_eq!(code("arch + 1"), Some(15125));
        assert_eq!(code("1 +"), Some(15123));
        assert_eq!(code("foo(1)"), Some(15124));
        assert!(compile("pow(2,-(fairshare_tree_usage/fairshare_perc))", &r).is_ok());
        assert!(compile("sqrt", &r).is_err());
        assert!(compile("ncpus(1)", &r).is_err());
    }
}
