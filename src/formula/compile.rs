//! Compilation: syntax tree → flat node arena with names resolved to slots (no string look-ups
//! at evaluation time) and constant sub-expressions folded.

use crate::formula::ast::{BoolOp, Expr, ExprKind, Number, UnaryOp};
use crate::formula::error::FormulaError;
use crate::formula::exact::eval_node;
use crate::formula::ir::{Node, Raised};
use crate::formula::names::{resolve, validation_local, Resolved};
use crate::formula::program::Program;
use crate::formula::resources::ResourceTable;
use crate::formula::value::Value;
use crate::pbs::defs::keywords;

/// How names are bound: per job (the scheduler's evaluation), or to 1 as PBS's server does
/// when it validates a formula (`validate_job_formula`, reference/openpbs.md §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Policy {
    /// The scheduler: keywords and numeric resources are slots; a string or boolean resource
    /// and an unknown name raise `NameError` when reached (they are not in its namespace).
    Runtime,
    /// The server's validation: keywords and resources are the int 1. `all_resources`: its
    /// first pass (`globals1`, every resource) or its second (`globals2`, numeric ones only).
    /// `fairsort_keywords`: whether fairsort's own keywords count as known (a PBS server does
    /// not know them).
    Ones {
        all_resources: bool,
        fairsort_keywords: bool,
    },
}

/// The arena and the slot table being built.
pub(crate) struct Compiler<'r> {
    resources: &'r ResourceTable,
    policy: Policy,
    pub nodes: Vec<Node>,
    pub keywords: Vec<String>,
}

/// Compiles an already parsed formula (`src` is kept as the program's source) for evaluation
/// per job, without the server's validation (see [`compile`](crate::formula::compile())): unknown names raise `NameError`
/// when reached. fairsort's own refusals (functions it does not evaluate) are errors.
pub fn compile_expr(
    src: &str,
    expr: &Expr,
    resources: &ResourceTable,
) -> Result<Program, FormulaError> {
    let (nodes, root, keywords) = compile_nodes(expr, resources, Policy::Runtime)?;
    let float_slot = keywords
        .iter()
        .map(|k| keywords::is_float_keyword(k))
        .collect();
    Ok(Program::new(
        src.to_string(),
        keywords,
        float_slot,
        nodes,
        root,
    ))
}

/// The node arena, its root and the slot names of `expr` under `policy`.
pub(crate) fn compile_nodes(
    expr: &Expr,
    resources: &ResourceTable,
    policy: Policy,
) -> Result<(Vec<Node>, usize, Vec<String>), FormulaError> {
    let mut c = Compiler {
        resources,
        policy,
        nodes: Vec::new(),
        keywords: Vec::new(),
    };
    let root = c.expr(expr)?;
    Ok((c.nodes, root, c.keywords))
}

/// A name under the compiler's policy.
enum Bound {
    /// As PBS's namespace resolves it (a math name, a function, a per-job slot).
    Resolved(Resolved),
    /// The int 1 (the server's validation).
    One,
    /// The int 0 (a name the server's validation script itself defines, `ans`, `errnum`).
    Zero,
    /// Not in the namespace: `NameError` when reached.
    NameError,
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
            Node::Const(_) | Node::Slot(_) | Node::Raise(_) => false,
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

    /// Resolves a name as PBS's namespace does, then applies the policy: what is a slot at
    /// run time is 1 in the server's validation, and a name the namespace lacks raises.
    fn resolve(&self, name: &str, span: &crate::formula::ast::Span) -> Result<Bound, FormulaError> {
        if let (Policy::Ones { .. }, Some(v)) = (self.policy, validation_local(name)) {
            return Ok(if v == 0 { Bound::Zero } else { Bound::One });
        }
        let resolved = resolve(name, span, self.resources);
        Ok(match (self.policy, resolved) {
            (_, Ok(Resolved::Const(c))) => Bound::Resolved(Resolved::Const(c)),
            (_, Ok(Resolved::Func(f))) => Bound::Resolved(Resolved::Func(f)),
            (Policy::Runtime, Ok(Resolved::Slot)) => Bound::Resolved(Resolved::Slot),
            (
                Policy::Ones {
                    fairsort_keywords, ..
                },
                Ok(Resolved::Slot),
            ) => {
                // (a custom resource of that name is one the server knows)
                if !fairsort_keywords
                    && keywords::is_fairsort_keyword(name)
                    && self.resources.get(name).is_none()
                {
                    Bound::NameError
                } else {
                    Bound::One
                }
            }
            (
                Policy::Ones {
                    all_resources: true,
                    ..
                },
                Err(FormulaError::InvalidType { .. }),
            ) => Bound::One,
            (_, Err(FormulaError::InvalidType { .. } | FormulaError::InvalidKeyword { .. })) => {
                Bound::NameError
            }
            (_, Err(e)) => return Err(e),
        })
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
        // A plain loop: in debug builds an iterator chain adds ~18 frames per nesting level,
        // and the nesting limit must hold on a 2 MiB thread stack.
        let mut out = Vec::with_capacity(items.len());
        for e in items {
            out.push(self.expr(e)?);
        }
        Ok(out)
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
            ExprKind::Name(name) => match self.resolve(name, &e.span)? {
                Bound::Resolved(Resolved::Const(c)) => Node::Const(Value::Float(c)),
                Bound::Resolved(Resolved::Slot) => Node::Slot(self.slot(name)),
                Bound::Resolved(Resolved::Func(_)) => {
                    return Err(FormulaError::Unsupported {
                        what: format!(
                            "using the function `{name}` as a value (call it: `{name}(x)`)"
                        ),
                        span: e.span.clone(),
                    })
                }
                Bound::One => Node::Const(Value::Int(1)),
                Bound::Zero => Node::Const(Value::Int(0)),
                Bound::NameError => Node::Raise(Box::new(Raised::name_error(name, e.span.clone()))),
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
                let f = match self.resolve(name, name_span)? {
                    Bound::Resolved(Resolved::Func(f)) => f,
                    // Python looks the name up first: an unknown one raises before the
                    // arguments are evaluated.
                    Bound::NameError => {
                        return Ok(self.push(Node::Raise(Box::new(Raised::name_error(
                            name,
                            name_span.clone(),
                        )))))
                    }
                    // The server's first pass: a string resource is 1 there.
                    Bound::One | Bound::Zero => {
                        return Ok(self.push(Node::Raise(Box::new(Raised {
                            message: "'int' object is not callable".into(),
                            name: None,
                            span: name_span.clone(),
                        }))))
                    }
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
    use crate::formula::compile;

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
