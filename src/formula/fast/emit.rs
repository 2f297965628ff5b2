//! Compiling the node arena into the fast path's accumulator program (`code.rs`). Each node's
//! value ends in the accumulator; a left operand that must wait for a computed right operand is
//! spilled to `r[d]`, where `d` grows with nesting. Static Python types decide where the
//! int-range checks go, exactly as the exact evaluator would type the values.

use crate::formula::ast::{BinOp, CmpOp};
use crate::formula::fast::code::{
    pow_table, Code, Ins, Op, Sel, Term, CHECK, CHECK_INNER, CMP_OPS, MAX_POW_TABLES, MAX_REGS,
    NO_JUMP, NO_TABLE, RUN_DIVIDES,
};
use crate::formula::fast::{join, result_ty, Ty};
use crate::formula::float_math;
use crate::formula::functions;
use crate::formula::functions::{FloatFn, Func};
use crate::formula::ir::Node;
use crate::formula::value::{Value, EXACT_INT};

/// A leaf operand: a slot or a constant.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Leaf {
    S(u16),
    K(f64),
}

/// Builds the fast program of `root` and its result type, or `None` if the formula uses
/// something only the exact evaluator does.
pub(super) fn emit(nodes: &[Node], root: usize, float_slot: &[bool]) -> Option<(Code, Ty)> {
    let mut e = Emitter {
        nodes,
        float_slot,
        code: Code {
            slot_limit: float_slot
                .iter()
                .map(|&f| if f { f64::INFINITY } else { EXACT_INT })
                .collect(),
            ..Code::default()
        },
    };
    let ty = e.node(root, 0)?;
    if !needs_slot_check(&e.code) {
        e.code.slot_limit.clear();
    }
    Some((e.code, ty))
}

/// Whether a slot of 2^53 or more could make the fast path differ from Python: only through
/// an operation Python may compute on ints whose result is checked (`CHECK`), or floored
/// division, modulo and powers. Elsewhere a slot's f64 value is exactly the int or float
/// Python binds, and Python converts ints to floats exactly as f64 arithmetic rounds:
/// `+ - *` of exact ints are exact below 2^53 (and checked above), true division, comparisons
/// and float functions of exact values agree.
fn needs_slot_check(code: &Code) -> bool {
    code.ins.iter().any(|i| {
        i.flags & (CHECK | CHECK_INNER) != 0
            || matches!(i.op, Op::FloorDiv | Op::Mod | Op::Pow | Op::Round2)
    })
}

struct Emitter<'a> {
    nodes: &'a [Node],
    float_slot: &'a [bool],
    code: Code,
}

/// The four operators with operand-kind forms, and their forms in the order
/// `AS AK SA KA SS SK KS RA`.
fn forms(op: BinOp) -> Option<[Op; 8]> {
    use Op::*;
    Some(match op {
        BinOp::Add => [AddAS, AddAK, AddSA, AddKA, AddSS, AddSK, AddKS, AddRA],
        BinOp::Sub => [SubAS, SubAK, SubSA, SubKA, SubSS, SubSK, SubKS, SubRA],
        BinOp::Mul => [MulAS, MulAK, MulSA, MulKA, MulSS, MulSK, MulKS, MulRA],
        BinOp::Div => [DivAS, DivAK, DivSA, DivKA, DivSS, DivSK, DivKS, DivRA],
        _ => return None,
    })
}

fn check(ty: Ty) -> u8 {
    if ty == Ty::Float {
        0
    } else {
        CHECK
    }
}

impl Emitter<'_> {
    fn push(&mut self, op: Op, flags: u8, a: u16, b: u16, k: f64) {
        self.code.ins.push(Ins { op, flags, a, b, k });
    }

    /// Spills the accumulator to `r[d]`.
    fn spill(&mut self, d: u16) -> Option<()> {
        let n = usize::from(d) + 1;
        if n > MAX_REGS {
            return None;
        }
        self.code.regs = self.code.regs.max(n);
        self.push(Op::St, 0, d, 0, 0.0);
        Some(())
    }

    /// The current end of the code, as a jump target.
    fn here(&self) -> Option<u16> {
        u16::try_from(self.code.ins.len())
            .ok()
            .filter(|&h| h != NO_JUMP)
    }

    fn patch(&mut self, jumps: Vec<usize>, to: u16) {
        for at in jumps {
            if let Some(i) = self.code.ins.get_mut(at) {
                i.b = to;
            }
        }
    }

    /// A constant or slot node as an operand.
    fn leaf(&self, id: usize) -> Option<(Leaf, Ty)> {
        match self.nodes.get(id)? {
            Node::Const(Value::Int(i)) if (*i as f64).abs() < EXACT_INT => {
                Some((Leaf::K(*i as f64), Ty::Int))
            }
            Node::Const(Value::Float(x)) => Some((Leaf::K(*x), Ty::Float)),
            Node::Const(Value::Bool(b)) => Some((Leaf::K(f64::from(u8::from(*b))), Ty::Int)),
            Node::Slot(i) => {
                let ty = if self.float_slot.get(*i).copied().unwrap_or(false) {
                    Ty::Float
                } else {
                    Ty::Dyn
                };
                Some((Leaf::S(u16::try_from(*i).ok()?), ty))
            }
            _ => None,
        }
    }

    fn load(&mut self, x: Leaf) {
        match x {
            Leaf::S(s) => self.push(Op::LdS, 0, s, 0, 0.0),
            Leaf::K(k) => self.push(Op::LdK, 0, 0, 0, k),
        }
    }

    /// Emits node `id` with its value in the accumulator, spilling to `r[d]` and up; returns
    /// its Python type.
    fn node(&mut self, id: usize, d: u16) -> Option<Ty> {
        if let Some((x, ty)) = self.leaf(id) {
            self.load(x);
            return Some(ty);
        }
        let next = d.checked_add(1)?;
        match self.nodes.get(id)? {
            Node::Const(_) | Node::Slot(_) | Node::Raise(_) => None,
            Node::Neg(a) => {
                let ty = self.node(*a, d)?;
                self.push(Op::Neg, 0, 0, 0, 0.0);
                Some(ty)
            }
            Node::Not(a) => {
                self.node(*a, d)?;
                self.push(Op::Not, 0, 0, 0, 0.0);
                Some(Ty::Int)
            }
            Node::Chain(first, rest) => self.chain(*first, rest, d),
            Node::Compare(first, rest) => {
                if let Some(ty) = self.compare_leaves(*first, rest) {
                    return Some(ty);
                }
                self.node(*first, d)?;
                let mut jumps = Vec::new();
                for (i, &(op, b)) in rest.iter().enumerate() {
                    self.spill(d)?;
                    self.node(b, next)?;
                    let op = match op {
                        CmpOp::Lt => Op::Lt,
                        CmpOp::Le => Op::Le,
                        CmpOp::Gt => Op::Gt,
                        CmpOp::Ge => Op::Ge,
                        CmpOp::Eq => Op::Eq,
                        CmpOp::Ne => Op::Ne,
                    };
                    if i + 1 < rest.len() {
                        jumps.push(self.code.ins.len());
                    }
                    self.push(op, 0, d, NO_JUMP, 0.0);
                }
                let end = self.here()?;
                self.patch(jumps, end);
                Some(Ty::Int)
            }
            Node::And(items) | Node::Or(items) => {
                let jump = if matches!(self.nodes.get(id)?, Node::And(_)) {
                    Op::JmpZ
                } else {
                    Op::JmpNz
                };
                let mut ty: Option<Ty> = None;
                let mut jumps = Vec::new();
                for (i, &item) in items.iter().enumerate() {
                    let t = self.node(item, d)?;
                    ty = Some(ty.map_or(t, |u| join(u, t)));
                    if i + 1 < items.len() {
                        jumps.push(self.code.ins.len());
                        self.push(jump, 0, 0, 0, 0.0);
                    }
                }
                let end = self.here()?;
                self.patch(jumps, end);
                ty
            }
            Node::IfElse {
                cond,
                then,
                otherwise,
            } => {
                if let (Some((Leaf::K(k), tt)), Some((Leaf::K(k2), ot))) =
                    (self.leaf(*then), self.leaf(*otherwise))
                {
                    // both arms constant: no jumps
                    self.node(*cond, d)?;
                    let at = u16::try_from(self.code.consts.len()).ok()?;
                    self.code.consts.push(k2);
                    self.push(Op::SelKK, 0, 0, at, k);
                    return Some(join(tt, ot));
                }
                self.node(*cond, d)?;
                let to_else = self.code.ins.len();
                self.push(Op::JmpZ, 0, 0, 0, 0.0);
                let tt = self.node(*then, d)?;
                let to_end = self.code.ins.len();
                self.push(Op::Jmp, 0, 0, 0, 0.0);
                let else_at = self.here()?;
                self.patch(vec![to_else], else_at);
                let ot = self.node(*otherwise, d)?;
                let end = self.here()?;
                self.patch(vec![to_end], end);
                Some(join(tt, ot))
            }
            Node::Call(f, args) => self.call(*f, args, d),
        }
    }

    /// `first op b op c ...`, left to right, in the accumulator.
    fn chain(&mut self, first: usize, rest: &[(BinOp, usize)], d: u16) -> Option<Ty> {
        let next = d.checked_add(1)?;
        let mut tail = rest.iter();
        let first_leaf = self.leaf(first);
        let mut run = Vec::new();
        let mut load_first = false;
        let mut ty = match (first_leaf, rest.first()) {
            // a slot followed by a run term starts the run (`LdMulAddRun`)
            (Some((Leaf::S(a), tx)), Some(&(op, b))) if self.run_term(op, b, tx).is_some() => {
                run.push(Term {
                    slot: usize::from(a),
                    m: 1.0,
                    q: 1.0,
                });
                load_first = true;
                tx
            }
            // a leaf on the left goes into the first operation's form
            // (unless the right side is `leaf ⊗ leaf`, which the loop fuses with the `acc ±`)
            (Some((x, tx)), Some(&(op, b))) if forms(op).is_some() && !self.leaf_pair(b) => {
                tail.next();
                let f = forms(op)?;
                match self.leaf(b) {
                    Some((y, ty_b)) => {
                        let ty = result_ty(op, tx, ty_b);
                        let (i, a, b, k) = match (x, y) {
                            (Leaf::S(a), Leaf::S(b)) => (4, a, b, 0.0),
                            (Leaf::S(a), Leaf::K(k)) => (5, a, 0, k),
                            (Leaf::K(k), Leaf::S(b)) => (6, 0, b, k),
                            (Leaf::K(_), Leaf::K(k)) => {
                                self.load(x);
                                (1, 0, 0, k)
                            }
                        };
                        self.push(f[i], check(ty), a, b, k);
                        ty
                    }
                    None => {
                        let ty_b = self.node(b, d)?;
                        let ty = result_ty(op, tx, ty_b);
                        match x {
                            Leaf::S(a) => self.push(f[2], check(ty), a, 0, 0.0),
                            Leaf::K(k) => self.push(f[3], check(ty), 0, 0, k),
                        }
                        ty
                    }
                }
            }
            _ => self.node(first, d)?,
        };
        for &(op, b) in tail {
            if let Some(term) = self.run_term(op, b, ty) {
                // the accumulator is a float from here on
                run.push(term);
                ty = Ty::Float;
                continue;
            }
            self.flush(&mut run, &mut load_first)?;
            if let Some(t) = self.fused(op, b, ty) {
                ty = t;
                continue;
            }
            if let Some(t) = self.add_select(op, b, ty) {
                ty = t;
                continue;
            }
            match (forms(op), self.leaf(b)) {
                (Some(f), Some((y, ty_b))) => {
                    ty = result_ty(op, ty, ty_b);
                    match y {
                        Leaf::S(a) => self.push(f[0], check(ty), a, 0, 0.0),
                        Leaf::K(k) => self.push(f[1], check(ty), 0, 0, k),
                    }
                }
                (f, _) => {
                    self.spill(d)?;
                    let ty_b = self.node(b, next)?;
                    ty = result_ty(op, ty, ty_b);
                    let code = match (f, op) {
                        (Some(f), _) => f[7],
                        (None, BinOp::FloorDiv) => Op::FloorDiv,
                        (None, BinOp::Mod) => Op::Mod,
                        (None, _) => Op::Pow,
                    };
                    self.push(code, check(ty), d, 0, 0.0);
                }
            }
        }
        self.flush(&mut run, &mut load_first)?;
        Some(ty)
    }

    /// Whether node `b` is `leaf * leaf` or `leaf / leaf`.
    fn leaf_pair(&self, b: usize) -> bool {
        match self.nodes.get(b) {
            Some(Node::Chain(x, inner)) => match inner.as_slice() {
                [(BinOp::Mul | BinOp::Div, y)] => {
                    self.leaf(*x).is_some() && self.leaf(*y).is_some()
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// `acc ± slot*const`, `acc ± const*slot`, `acc ± slot/const` (nonzero) or `acc ± slot`
    /// whose sum is a float: a term of a run.
    fn run_term(&self, op: BinOp, b: usize, acc: Ty) -> Option<Term> {
        let sign = match op {
            BinOp::Add => 1.0,
            BinOp::Sub => -1.0,
            _ => return None,
        };
        let (term, inner_ty) = match (self.leaf(b), self.nodes.get(b)?) {
            (Some((Leaf::S(slot), t)), _) => ((usize::from(slot), 1.0, 1.0), t),
            (Some(_), _) => return None,
            (None, Node::Chain(x, inner)) => {
                let [(op2, y)] = inner.as_slice() else {
                    return None;
                };
                let ((x, tx), (y, ty_y)) = (self.leaf(*x)?, self.leaf(*y)?);
                let t = match (op2, x, y) {
                    (BinOp::Mul, Leaf::S(s), Leaf::K(k)) | (BinOp::Mul, Leaf::K(k), Leaf::S(s)) => {
                        (usize::from(s), k, 1.0)
                    }
                    (BinOp::Div, Leaf::S(s), Leaf::K(k)) if k != 0.0 => (usize::from(s), 1.0, k),
                    _ => return None,
                };
                (t, result_ty(*op2, tx, ty_y))
            }
            _ => return None,
        };
        if result_ty(op, acc, inner_ty) != Ty::Float {
            return None;
        }
        let (slot, m, q) = term;
        // Dividing by a power of two is multiplying by its inverse, exactly (the same real
        // number, rounded once either way): `mem/1048576` needs no division.
        let inverse = 1.0 / q;
        let (m, q) = if q.is_normal() && q.to_bits() << 12 == 0 && inverse != 0.0 {
            (m * inverse, 1.0)
        } else {
            (m, q)
        };
        Some(Term {
            slot,
            m: sign * m,
            q,
        })
    }

    /// Emits the pending run of terms as one instruction.
    fn flush(&mut self, run: &mut Vec<Term>, load_first: &mut bool) -> Option<()> {
        if !run.is_empty() {
            let from = u16::try_from(self.code.terms.len()).ok()?;
            let n = u16::try_from(run.len()).ok()?;
            self.code.terms.append(run);
            let op = if *load_first {
                Op::LdMulAddRun
            } else {
                Op::MulAddRun
            };
            let divides = self.code.terms.iter().skip(from.into()).any(|t| t.q != 1.0);
            let flags = if divides { RUN_DIVIDES } else { 0 };
            self.push(op, flags, from, n, 0.0);
        }
        *load_first = false;
        Some(())
    }

    /// `acc ± (x ⊗ y)` with leaves x and y as one superinstruction, if `b` has that shape.
    fn fused(&mut self, op: BinOp, b: usize, acc: Ty) -> Option<Ty> {
        let add = match op {
            BinOp::Add => true,
            BinOp::Sub => false,
            _ => return None,
        };
        let Some(Node::Chain(x, inner)) = self.nodes.get(b) else {
            return None;
        };
        let [(op2, y)] = inner.as_slice() else {
            return None;
        };
        let (x, tx) = self.leaf(*x)?;
        let (y, ty_y) = self.leaf(*y)?;
        let inner_ty = result_ty(*op2, tx, ty_y);
        let out_ty = result_ty(op, acc, inner_ty);
        let flags = if inner_ty != Ty::Float {
            CHECK_INNER
        } else {
            0
        } | check(out_ty);
        use Leaf::{K, S};
        let pick = |plus: Op, minus: Op| if add { plus } else { minus };
        let (code, a, b, k) = match (op2, x, y) {
            // IEEE multiplication commutes exactly
            (BinOp::Mul, S(a), K(k)) | (BinOp::Mul, K(k), S(a)) => {
                (pick(Op::AddMulSK, Op::SubMulSK), a, 0, k)
            }
            (BinOp::Mul, S(a), S(b)) => (pick(Op::AddMulSS, Op::SubMulSS), a, b, 0.0),
            (BinOp::Div, S(a), K(k)) => (pick(Op::AddDivSK, Op::SubDivSK), a, 0, k),
            (BinOp::Div, K(k), S(b)) => (pick(Op::AddDivKS, Op::SubDivKS), 0, b, k),
            (BinOp::Div, S(a), S(b)) => (pick(Op::AddDivSS, Op::SubDivSS), a, b, 0.0),
            _ => return None,
        };
        self.push(code, flags, a, b, k);
        Some(out_ty)
    }

    /// `acc = g(acc)`, its result typed `ty`.
    fn apply(&mut self, g: FloatFn, ty: Ty) -> Option<Ty> {
        let at = u16::try_from(self.code.fns.len()).ok()?;
        self.code.fns.push(g);
        self.push(Op::Apply, check(ty), 0, at, 0.0);
        Some(ty)
    }

    fn call(&mut self, f: Func, args: &[usize], d: u16) -> Option<Ty> {
        let next = d.checked_add(1)?;
        match (f, args) {
            (_, [x]) if functions::unary_float(f).is_some() => {
                let (g, _) = functions::unary_float(f)?;
                self.node(*x, d)?;
                self.apply(g, Ty::Float)
            }
            (Func::Floor, [x]) => self.one(*x, d, f64::floor, Some(Ty::Int)),
            (Func::Ceil, [x]) => self.one(*x, d, f64::ceil, Some(Ty::Int)),
            (Func::Trunc | Func::Int, [x]) => self.one(*x, d, f64::trunc, Some(Ty::Int)),
            (Func::Round, [x]) => self.one(*x, d, f64::round_ties_even, Some(Ty::Int)),
            (Func::Float, [x]) => self.one(*x, d, |v| v, Some(Ty::Float)),
            (Func::Fabs, [x]) => self.one(*x, d, f64::abs, Some(Ty::Float)),
            (Func::Abs, [x]) => self.one(*x, d, f64::abs, None),
            (Func::Log, [x]) => self.one(*x, d, float_math::log, Some(Ty::Float)),
            (Func::Log2, [x]) => self.one(*x, d, float_math::log2, Some(Ty::Float)),
            (Func::Log10, [x]) => self.one(*x, d, float_math::log10, Some(Ty::Float)),
            (Func::Round, [x, n]) => {
                let Some(Node::Const(Value::Int(n))) = self.nodes.get(*n) else {
                    return None;
                };
                // beyond ±400 digits `round_float` gives the same as at ±400
                let n = (*n).clamp(-400, 400) as f64;
                let ty = self.node(*x, d)?;
                self.push(Op::Round2, check(ty), 0, 0, n);
                Some(ty)
            }
            (Func::Min | Func::Max, [first, rest @ ..]) if !rest.is_empty() => {
                let code = if f == Func::Min { Op::Min } else { Op::Max };
                let mut ty = self.node(*first, d)?;
                for &x in rest {
                    self.spill(d)?;
                    ty = join(ty, self.node(x, next)?);
                    self.push(code, 0, d, 0, 0.0);
                }
                Some(ty)
            }
            (Func::Pow, [x, y]) if self.pow_const(*x, *y, d).is_some() => Some(Ty::Float),
            (Func::Pow | Func::Atan2 | Func::Copysign | Func::Fmod | Func::Log, [x, y]) => {
                let code = match f {
                    Func::Pow => Op::MathPow,
                    Func::Atan2 => Op::Atan2,
                    Func::Copysign => Op::Copysign,
                    Func::Fmod => Op::Fmod,
                    _ => Op::Log2Arg,
                };
                self.node(*x, d)?;
                self.spill(d)?;
                self.node(*y, next)?;
                self.push(code, 0, d, 0, 0.0);
                Some(Ty::Float)
            }
            _ => None,
        }
    }

    /// `math.pow(x, y)` with a constant exponent or base as one instruction (`None`: emitted
    /// nothing, the general form applies).
    fn pow_const(&mut self, x: usize, y: usize, d: u16) -> Option<()> {
        match (self.leaf(x), self.leaf(y)) {
            (bx, Some((Leaf::K(k), _))) => {
                let table = if self.code.pow_tables.len() < MAX_POW_TABLES {
                    let at = u16::try_from(self.code.pow_tables.len()).ok()?;
                    self.code.pow_tables.push(pow_table(k));
                    at
                } else {
                    NO_TABLE
                };
                match bx {
                    Some((Leaf::S(a), _)) => self.push(Op::PowSK, 0, a, table, k),
                    _ => {
                        self.node(x, d)?;
                        self.push(Op::PowAK, 0, 0, table, k);
                    }
                }
                Some(())
            }
            (Some((Leaf::K(k), _)), _) => {
                self.node(y, d)?;
                self.push(Op::PowKA, 0, 0, 0, k);
                Some(())
            }
            _ => None,
        }
    }

    /// `acc ± (k1 if slot CMP k else k2)` as one instruction, if `b` has that shape.
    fn add_select(&mut self, op: BinOp, b: usize, acc: Ty) -> Option<Ty> {
        let sign = match op {
            BinOp::Add => 1.0,
            BinOp::Sub => -1.0,
            _ => return None,
        };
        let Some(Node::IfElse {
            cond,
            then,
            otherwise,
        }) = self.nodes.get(b)
        else {
            return None;
        };
        let (Some((Leaf::K(k1), t1)), Some((Leaf::K(k2), t2))) =
            (self.leaf(*then), self.leaf(*otherwise))
        else {
            return None;
        };
        let Some(Node::Compare(first, rest)) = self.nodes.get(*cond) else {
            return None;
        };
        let (slot, cmp, k) = self.leaf_comparison(*first, rest)?;
        let at = u16::try_from(self.code.sels.len()).ok()?;
        self.code.sels.push(Sel {
            slot: usize::from(slot),
            cmp,
            k,
            then: sign * k1,
            otherwise: sign * k2,
        });
        let ty = result_ty(op, acc, join(t1, t2));
        self.push(Op::AddSel, check(ty), at, 0, 0.0);
        Some(ty)
    }

    /// `slot CMP const` or `const CMP slot` (one comparison) as one instruction.
    fn compare_leaves(&mut self, first: usize, rest: &[(CmpOp, usize)]) -> Option<Ty> {
        let (a, i, k) = self.leaf_comparison(first, rest)?;
        self.push(Op::CmpSK, 0, a, i, k);
        Some(Ty::Int)
    }

    /// A chain of one comparison between a slot and a constant, as (slot, `CMP_OPS` index,
    /// constant) with the slot on the left.
    fn leaf_comparison(&self, first: usize, rest: &[(CmpOp, usize)]) -> Option<(u16, u16, f64)> {
        let [(op, b)] = rest else {
            return None;
        };
        let index = |op: CmpOp| match op {
            CmpOp::Lt => 0,
            CmpOp::Le => 1,
            CmpOp::Gt => 2,
            CmpOp::Ge => 3,
            CmpOp::Eq => 4,
            CmpOp::Ne => 5,
        };
        // `k < s` is `s > k`
        let mirror = |i: u16| [2, 3, 0, 1, 4, 5][usize::from(i)];
        let (a, i, k) = match (self.leaf(first)?.0, self.leaf(*b)?.0) {
            (Leaf::S(a), Leaf::K(k)) => (a, index(*op), k),
            (Leaf::K(k), Leaf::S(a)) => (a, mirror(index(*op)), k),
            _ => return None,
        };
        debug_assert!(usize::from(i) < CMP_OPS.len());
        Some((a, i, k))
    }

    /// A one-argument function with a finite result of type `ty` (`None`: the argument's).
    fn one(&mut self, x: usize, d: u16, g: FloatFn, ty: Option<Ty>) -> Option<Ty> {
        let tx = self.node(x, d)?;
        self.apply(g, ty.unwrap_or(tx))
    }
}
