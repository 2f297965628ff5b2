//! The f64 fast path: the compiled nodes turned into closures over plain f64s. It agrees with
//! the exact evaluator whenever it does not "bail": every operation whose result could differ
//! between Python ints and floats (magnitudes ≥ 2^53), raise (division by zero, domain and range
//! errors, complex results) or depend on the sign of a zero clears the `ok` flag, and the caller
//! then re-evaluates the job exactly. Static types decide where those checks are needed.

use super::ast::{BinOp, CmpOp};
use super::compile::Node;
use super::functions::{self, Func};
use super::value::{float_floordiv, float_mod, Value, EXACT_INT};

/// A compiled fast evaluator: slot values in, value out; clears the flag to ask for the exact
/// evaluator.
pub(crate) type FastFn = Box<dyn Fn(&[f64], &mut bool) -> f64 + Send + Sync>;

/// What Python type a node has whatever the job: always float, always int, or either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    Float,
    Dyn,
}

fn join(a: Ty, b: Ty) -> Ty {
    if a == b {
        a
    } else {
        Ty::Dyn
    }
}

fn arith(a: Ty, b: Ty) -> Ty {
    if a == Ty::Float || b == Ty::Float {
        Ty::Float
    } else if a == Ty::Int && b == Ty::Int {
        Ty::Int
    } else {
        Ty::Dyn
    }
}

/// A leaf: a constant or a slot.
#[derive(Clone, Copy)]
enum Leaf {
    Const(f64),
    Slot(usize),
    /// An int-or-float slot: must stay below 2^53 to be exact as an f64.
    CheckedSlot(usize),
}

impl Leaf {
    #[inline(always)]
    fn get(self, s: &[f64], ok: &mut bool) -> f64 {
        match self {
            Leaf::Const(c) => c,
            Leaf::Slot(i) => s.get(i).copied().unwrap_or(0.0),
            Leaf::CheckedSlot(i) => {
                let v = s.get(i).copied().unwrap_or(0.0);
                *ok &= v.abs() < EXACT_INT;
                v
            }
        }
    }
}

/// An operand: leaves and one operator over two leaves are inlined, so that a sum of terms
/// like `0.5*ncpus` runs in one closure without indirect calls.
enum Operand {
    Leaf(Leaf),
    Pair(BinOp, Leaf, Leaf, bool),
    Fn(FastFn),
}

impl Operand {
    #[inline(always)]
    fn get(&self, s: &[f64], ok: &mut bool) -> f64 {
        match self {
            Operand::Leaf(l) => l.get(s, ok),
            Operand::Pair(op, a, b, check) => {
                let x = a.get(s, ok);
                let y = b.get(s, ok);
                step(*op, x, y, *check, ok)
            }
            Operand::Fn(f) => f(s, ok),
        }
    }

    fn into_fn(self) -> FastFn {
        match self {
            Operand::Fn(f) => f,
            o => Box::new(move |s, ok| o.get(s, ok)),
        }
    }
}

/// Builds the fast evaluator of `root`, or `None` if the formula uses something only the exact
/// evaluator does (then every job is evaluated exactly).
pub(crate) fn build(nodes: &[Node], root: usize, float_slot: &[bool]) -> Option<Fast> {
    let (op, ty) = operand(nodes, root, float_slot)?;
    Some(Fast {
        f: op.into_fn(),
        int_result: ty == Ty::Int,
    })
}

/// The fast evaluator of a whole formula.
pub(crate) struct Fast {
    f: FastFn,
    /// The result is always a Python int: a zero result is +0 whatever the f64 sign says.
    int_result: bool,
}

impl Fast {
    /// The value, or `None` when the exact evaluator must decide.
    #[inline]
    pub(crate) fn eval(&self, s: &[f64]) -> Option<f64> {
        let mut ok = true;
        let v = (self.f)(s, &mut ok);
        // A zero result may be -0.0 in Python or +0 (an int): let the exact path decide.
        if ok && (v != 0.0 || self.int_result) {
            Some(if v == 0.0 { 0.0 } else { v })
        } else {
            None
        }
    }
}

fn check_big(ty: Ty) -> bool {
    ty != Ty::Float
}

fn operand(nodes: &[Node], id: usize, fs: &[bool]) -> Option<(Operand, Ty)> {
    let node = nodes.get(id)?;
    Some(match node {
        Node::Const(Value::Int(i)) if (*i as f64).abs() < EXACT_INT => {
            (Operand::Leaf(Leaf::Const(*i as f64)), Ty::Int)
        }
        Node::Const(Value::Float(x)) => (Operand::Leaf(Leaf::Const(*x)), Ty::Float),
        Node::Const(Value::Int(_) | Value::Big(_)) => return None,
        Node::Slot(i) => {
            if fs.get(*i).copied().unwrap_or(false) {
                (Operand::Leaf(Leaf::Slot(*i)), Ty::Float)
            } else {
                (Operand::Leaf(Leaf::CheckedSlot(*i)), Ty::Dyn)
            }
        }
        Node::Neg(a) => {
            let (a, ty) = operand(nodes, *a, fs)?;
            (Operand::Fn(Box::new(move |s, ok| -a.get(s, ok))), ty)
        }
        Node::Not(a) => {
            let (a, _) = operand(nodes, *a, fs)?;
            (
                Operand::Fn(Box::new(move |s, ok| {
                    f64::from(u8::from(a.get(s, ok) == 0.0))
                })),
                Ty::Int,
            )
        }
        Node::Chain(first, rest) => chain(nodes, *first, rest, fs)?,
        Node::Compare(first, rest) => {
            let (first, _) = operand(nodes, *first, fs)?;
            let mut tail = Vec::with_capacity(rest.len());
            for &(op, b) in rest {
                tail.push((op, operand(nodes, b, fs)?.0));
            }
            (
                Operand::Fn(Box::new(move |s, ok| {
                    let mut left = first.get(s, ok);
                    for (op, b) in &tail {
                        let right = b.get(s, ok);
                        if !cmp(*op, left, right) {
                            return 0.0;
                        }
                        left = right;
                    }
                    1.0
                })),
                Ty::Int,
            )
        }
        Node::And(items) | Node::Or(items) => {
            let is_and = matches!(node, Node::And(_));
            let mut ops = Vec::with_capacity(items.len());
            let mut ty = None;
            for &i in items {
                let (o, t) = operand(nodes, i, fs)?;
                ty = Some(ty.map_or(t, |u| join(u, t)));
                ops.push(o);
            }
            (
                Operand::Fn(Box::new(move |s, ok| {
                    let mut last = if is_and { 1.0 } else { 0.0 };
                    for o in &ops {
                        last = o.get(s, ok);
                        if (last != 0.0) != is_and {
                            return last;
                        }
                    }
                    last
                })),
                ty?,
            )
        }
        Node::IfElse {
            cond,
            then,
            otherwise,
        } => {
            let (c, _) = operand(nodes, *cond, fs)?;
            let (t, tt) = operand(nodes, *then, fs)?;
            let (o, ot) = operand(nodes, *otherwise, fs)?;
            (
                Operand::Fn(Box::new(move |s, ok| {
                    if c.get(s, ok) != 0.0 {
                        t.get(s, ok)
                    } else {
                        o.get(s, ok)
                    }
                })),
                join(tt, ot),
            )
        }
        Node::Call(f, args) => call(nodes, *f, args, fs)?,
    })
}

#[inline(always)]
fn cmp(op: CmpOp, a: f64, b: f64) -> bool {
    match op {
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
    }
}

/// One arithmetic step on f64s, clearing `ok` where Python could raise or differ.
#[inline(always)]
fn step(op: BinOp, a: f64, b: f64, check: bool, ok: &mut bool) -> f64 {
    let r = match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => {
            *ok &= b != 0.0;
            return a / b;
        }
        _ => slow_step(op, a, b, ok),
    };
    if check {
        *ok &= r.abs() < EXACT_INT;
    }
    r
}

/// The less common operators, out of line to keep the hot loops small.
#[inline(never)]
fn slow_step(op: BinOp, a: f64, b: f64, ok: &mut bool) -> f64 {
    match op {
        BinOp::FloorDiv => {
            *ok &= b != 0.0;
            float_floordiv(a, b)
        }
        BinOp::Mod => {
            *ok &= b != 0.0;
            float_mod(a, b)
        }
        BinOp::Pow => {
            let r = a.powf(b);
            *ok &= r.is_finite();
            r
        }
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => a / b,
    }
}

fn result_ty(op: BinOp, a: Ty, b: Ty) -> Ty {
    match op {
        BinOp::Div => Ty::Float,
        BinOp::Pow if a == Ty::Int && b == Ty::Int => Ty::Dyn,
        _ => arith(a, b),
    }
}

fn chain(
    nodes: &[Node],
    first: usize,
    rest: &[(BinOp, usize)],
    fs: &[bool],
) -> Option<(Operand, Ty)> {
    let (a, mut ty) = operand(nodes, first, fs)?;
    let mut tail = Vec::with_capacity(rest.len());
    for &(op, b) in rest {
        let (b, bt) = operand(nodes, b, fs)?;
        ty = result_ty(op, ty, bt);
        tail.push((op, b, check_big(ty)));
    }
    if tail.len() == 1 {
        if let Some((op, b, check)) = tail.pop() {
            if let (Operand::Leaf(x), Operand::Leaf(y)) = (&a, &b) {
                return Some((Operand::Pair(op, *x, *y, check), ty));
            }
            // The common binary case, without the loop.
            return Some((
                Operand::Fn(Box::new(move |s, ok| {
                    // a local flag stays in a register; written back once
                    let mut good = true;
                    let x = a.get(s, &mut good);
                    let y = b.get(s, &mut good);
                    let r = step(op, x, y, check, &mut good);
                    *ok &= good;
                    r
                })),
                ty,
            ));
        }
    }
    Some((
        Operand::Fn(Box::new(move |s, ok| {
            // a local flag stays in a register; written back once
            let mut good = true;
            let mut acc = a.get(s, &mut good);
            for (op, b, check) in &tail {
                let y = b.get(s, &mut good);
                acc = step(*op, acc, y, *check, &mut good);
            }
            *ok &= good;
            acc
        })),
        ty,
    ))
}

fn call(nodes: &[Node], f: Func, args: &[usize], fs: &[bool]) -> Option<(Operand, Ty)> {
    let mut ops = Vec::with_capacity(args.len());
    let mut tys = Vec::with_capacity(args.len());
    for &a in args {
        let (o, t) = operand(nodes, a, fs)?;
        ops.push(o);
        tys.push(t);
    }
    if let Some((g, _)) = functions::unary_float(f) {
        let [x] = take::<1>(ops)?;
        return Some((
            Operand::Fn(Box::new(move |s, ok| {
                let r = g(x.get(s, ok));
                *ok &= r.is_finite();
                r
            })),
            Ty::Float,
        ));
    }
    let one = |ops: Vec<Operand>, g: fn(f64) -> f64, ty: Ty| -> Option<(Operand, Ty)> {
        let [x] = take::<1>(ops)?;
        let check = check_big(ty);
        Some((
            Operand::Fn(Box::new(move |s, ok| {
                let r = g(x.get(s, ok));
                *ok &= r.is_finite() && (!check || r.abs() < EXACT_INT);
                r
            })),
            ty,
        ))
    };
    match f {
        Func::Floor => one(ops, f64::floor, Ty::Int),
        Func::Ceil => one(ops, f64::ceil, Ty::Int),
        Func::Trunc | Func::Int if args.len() == 1 => one(ops, f64::trunc, Ty::Int),
        Func::Round if args.len() == 1 => one(ops, f64::round_ties_even, Ty::Int),
        Func::Float if args.len() == 1 => one(ops, |x| x, Ty::Float),
        Func::Abs | Func::Fabs if args.len() == 1 => {
            let ty = if f == Func::Fabs { Ty::Float } else { tys[0] };
            one(ops, f64::abs, ty)
        }
        Func::Round if args.len() == 2 => {
            let n = match nodes.get(args[1]) {
                Some(Node::Const(Value::Int(n))) => *n,
                _ => return None,
            };
            let ty = tys[0];
            let [x, _] = take::<2>(ops)?;
            let check = check_big(ty);
            Some((
                Operand::Fn(Box::new(move |s, ok| {
                    let r = functions::round_float(x.get(s, ok), n);
                    *ok &= r.is_finite() && (!check || r.abs() < EXACT_INT);
                    r
                })),
                ty,
            ))
        }
        Func::Min | Func::Max if args.len() >= 2 => {
            let want_less = f == Func::Min;
            let ty = tys.iter().copied().reduce(join)?;
            Some((
                Operand::Fn(Box::new(move |s, ok| {
                    let mut it = ops.iter();
                    let mut best = match it.next() {
                        Some(o) => o.get(s, ok),
                        None => return 0.0,
                    };
                    for o in it {
                        let v = o.get(s, ok);
                        if (want_less && v < best) || (!want_less && v > best) {
                            best = v;
                        }
                    }
                    best
                })),
                ty,
            ))
        }
        Func::Pow | Func::Atan2 | Func::Copysign | Func::Fmod if args.len() == 2 => {
            let [x, y] = take::<2>(ops)?;
            let g: fn(f64, f64, &mut bool) -> f64 = match f {
                Func::Pow => |x, y, ok| {
                    let r = x.powf(y);
                    *ok &= r.is_finite();
                    r
                },
                Func::Atan2 => |y, x, ok| {
                    *ok &= y != 0.0;
                    y.atan2(x)
                },
                Func::Copysign => |x, y, ok| {
                    *ok &= y != 0.0;
                    x.copysign(y)
                },
                _ => |x, y, ok| {
                    let r = x % y;
                    *ok &= r.is_finite() && y.is_finite();
                    r
                },
            };
            Some((
                Operand::Fn(Box::new(move |s, ok| {
                    let a = x.get(s, ok);
                    let b = y.get(s, ok);
                    g(a, b, ok)
                })),
                Ty::Float,
            ))
        }
        Func::Log | Func::Log2 | Func::Log10 if args.len() == 1 => {
            let g = match f {
                Func::Log => f64::ln,
                Func::Log2 => f64::log2,
                _ => f64::log10,
            };
            one(ops, g, Ty::Float)
        }
        Func::Log if args.len() == 2 => {
            let [x, b] = take::<2>(ops)?;
            Some((
                Operand::Fn(Box::new(move |s, ok| {
                    let num = x.get(s, ok).ln();
                    let den = b.get(s, ok).ln();
                    let r = num / den;
                    *ok &= num.is_finite() && den.is_finite() && den != 0.0;
                    r
                })),
                Ty::Float,
            ))
        }
        _ => None,
    }
}

fn take<const N: usize>(ops: Vec<Operand>) -> Option<[Operand; N]> {
    ops.try_into().ok()
}

#[cfg(test)]
mod tests {
    use crate::formula::{compile, ResourceTable};

    fn bails(src: &str, slots: &[f64]) -> bool {
        let p = compile(src, &ResourceTable::builtin()).unwrap_or_else(|e| panic!("{e}"));
        match p.inner_fast() {
            Some(f) => f.eval(slots).is_none(),
            None => true,
        }
    }

    #[test]
    fn typical_formulas_stay_on_the_fast_path() {
        let ten =
            "queue_priority + 0.005*ncpus + 0.000277778*eligible_time + 0.5*fairshare_factor \
                   + 2*job_priority + 0.001*walltime + mem/1048576 + 10*accrue_type + 0.1*ngpus \
                   + 0.01*nodect";
        assert!(!bails(
            ten,
            &[10.0, 4.0, 3600.0, 0.5, 2.0, 7200.0, 1048576.0, 2.0, 1.0, 1.0]
        ));
        assert!(!bails(
            "pow(2, -(fairshare_tree_usage/fairshare_perc))",
            &[0.125312, 0.2]
        ));
        assert!(!bails(
            "fairshare_factor + (walltime/ncpus)",
            &[0.5, 3600.0, 4.0]
        ));
        assert!(!bails(
            "ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))",
            &[1.0, 300.0, 4.0]
        ));
        // where Python could differ, it bails
        assert!(bails("ncpus / walltime", &[1.0, 0.0]));
        assert!(bails("ncpus * walltime", &[1e10, 1e10]));
        assert!(bails("ncpus - walltime", &[3.0, 3.0]));
        assert!(!bails("ncpus == walltime", &[3.0, 4.0]));
        assert!(bails("sqrt(ncpus)", &[-1.0]));
    }
}
