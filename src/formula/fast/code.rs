//! The fast path's instruction set and its interpreter: an accumulator machine over a flat
//! program in one `Vec`, run by one loop with no recursion, no allocation and no `Box`
//! indirection. The value being computed stays in a local (`acc`, a CPU register), so a chain
//! of operations has no memory round trip; a left operand that must wait while the right one is
//! computed is spilled to `r[a]`. Operand kinds are part of the opcode (one dispatch per
//! instruction), and common shapes have superinstructions (`acc + slot*const`, ...). Every
//! place where Python could raise or differ from plain f64 arithmetic ORs into one `bad` flag
//! instead of branching; the caller then re-evaluates the job exactly.

use crate::formula::float_math;
use crate::formula::functions::{round_float, FloatFn};
use crate::formula::value::{float_floordiv, float_mod, EXACT_INT};

/// Flag: the result is typed int (or maybe int) by Python and must stay below 2^53 to be exact.
pub(crate) const CHECK: u8 = 1;
/// Flag (superinstructions only): the inner product or quotient must stay below 2^53 too.
pub(crate) const CHECK_INNER: u8 = 2;
/// Flag (runs only): some term divides (`q != 1`).
pub(crate) const RUN_DIVIDES: u8 = 4;
/// A comparison's `b` when it is the last of its chain (no jump).
pub(crate) const NO_JUMP: u16 = u16::MAX;
/// A `PowSK`/`PowAK`'s `b` when it has no table of small whole bases.
pub(crate) const NO_TABLE: u16 = u16::MAX;
/// The whole bases `0..POW_TABLE` whose powers a `PowSK`/`PowAK` table holds.
pub(crate) const POW_TABLE: usize = 1024;
/// At most this many tables per program (8 KiB each).
pub(crate) const MAX_POW_TABLES: usize = 8;
/// `CmpSK`'s comparisons, by its `b`.
pub(crate) const CMP_OPS: [Op; 6] = [Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne];

/// What an instruction does. Suffixes name the operands, left then right: `A` the
/// accumulator, `S` slot `a` (or `b` when both are slots), `K` the inline constant `k`, `R` the
/// spilled value `r[a]`. The result goes to the accumulator. `AddMulSK` is the superinstruction
/// `acc = acc + s[a]*k`. Comparisons, the slow operators and the two-argument functions take
/// `r[a]` and `acc`. Jumps go to instruction `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
#[rustfmt::skip]
pub(crate) enum Op {
    /// `acc = s[a]`
    LdS,
    /// `acc = k`
    LdK,
    /// `r[a] = acc`
    St,
    AddAS, AddAK, AddSA, AddKA, AddSS, AddSK, AddKS, AddRA,
    SubAS, SubAK, SubSA, SubKA, SubSS, SubSK, SubKS, SubRA,
    MulAS, MulAK, MulSA, MulKA, MulSS, MulSK, MulKS, MulRA,
    DivAS, DivAK, DivSA, DivKA, DivSS, DivSK, DivKS, DivRA,
    /// `acc += s[t.slot] * t.m / t.q` for each term `t` of `terms[a..a + b]`, in order.
    MulAddRun,
    /// The same, starting with `acc = s[terms[a].slot]` (the first term only loads).
    LdMulAddRun,
    AddMulSK, AddMulSS, AddDivSK, AddDivKS, AddDivSS,
    SubMulSK, SubMulSS, SubDivSK, SubDivKS, SubDivSS,
    FloorDiv, Mod, Pow,
    Neg, Not,
    /// `acc = fns[b](acc)`, which must be finite.
    Apply,
    /// `acc = round(acc, k)`.
    Round2,
    Min, Max,
    MathPow, Atan2, Copysign, Fmod, Log2Arg,
    /// `acc = pow(s[a], k)`, through `pow_tables[b]` (if not `NO_TABLE`) for small whole bases.
    PowSK,
    /// `acc = pow(acc, k)`, through `pow_tables[b]` (if not `NO_TABLE`) for small whole bases.
    PowAK,
    /// `acc = pow(k, acc)`.
    PowKA,
    /// `acc = s[a] CMP k` as 1/0, the comparison `CMP_OPS[b]` (a chain of one comparison).
    CmpSK,
    /// `acc = k` if `acc` is true (non-zero or NaN, as Python's truth), else `consts[b]`.
    SelKK,
    /// `acc = acc + sels[a].value(s)`: `acc ± (k1 if slot CMP k else k2)` in one.
    AddSel,
    /// `r[a] < acc`: the last of a chain sets `acc` to 1/0; any other jumps to `b` with
    /// `acc = 0` when false and leaves `acc` (the next left operand) when true.
    Lt, Le, Gt, Ge, Eq, Ne,
    Jmp, JmpZ, JmpNz,
}

/// One instruction (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ins {
    pub op: Op,
    pub flags: u8,
    pub a: u16,
    pub b: u16,
    pub k: f64,
}

/// `|v| >= lim`, or NaN: the value leaves the range where f64 and Python agree.
#[inline(always)]
#[allow(clippy::neg_cmp_op_on_partial_ord)] // NaN must count as outside
fn outside(v: f64, lim: f64) -> bool {
    !(v.abs() < lim)
}

/// One term of a run: `acc + slot*m/q`, where one of `m` and `q` is 1 (`x*1` and `x/1` are
/// exactly `x` in IEEE arithmetic, so this is `acc + slot*k` or `acc + slot/k`); a subtraction
/// has `m` negated, which IEEE arithmetic makes exactly the same. Runs only hold terms whose
/// sum is a float; then the product needs no int-range check even when Python computes it on
/// ints: both factors are below 2^53 (constants by construction, slots as bound), so Python's
/// exact product, converted to float for the addition, is the correctly rounded product, as
/// the f64 one is; a true division rounds once in both.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Term {
    pub slot: usize,
    pub m: f64,
    /// Never 0 (a zero divisor raises: such a term is not put in a run).
    pub q: f64,
}

/// A compiled fast program.
#[derive(Debug, Clone, Default)]
pub(crate) struct Code {
    pub ins: Vec<Ins>,
    /// The terms of the `MulAddRun` and `LdMulAddRun` instructions.
    pub terms: Vec<Term>,
    /// The functions `Apply` calls.
    pub fns: Vec<FloatFn>,
    /// Per slot, the magnitude at or above which the job goes to the exact evaluator: 2^53 for
    /// slots Python may see as ints, infinity for float keywords (NaN always goes). Empty when
    /// the program does no int arithmetic: then a slot's f64 value is exactly the number
    /// Python sees and every operation rounds the same way (see `emit::needs_slot_check`).
    pub slot_limit: Vec<f64>,
    /// Spill registers used.
    pub regs: usize,
    /// Per `PowSK`/`PowAK` with a table: `pow(i, k)` for the whole bases `i` in `0..POW_TABLE`,
    /// computed once by the same `pow` the instruction calls, so a look-up is bit-identical
    /// (resources such as `ncpus` are small whole numbers: `pow(ncpus, 0.5)` skips libm).
    pub pow_tables: Vec<Box<[f64]>>,
    /// The second constants of `SelKK`.
    pub consts: Vec<f64>,
    /// The selections of `AddSel`.
    pub sels: Vec<Sel>,
}

/// `k1 if s[slot] CMP k else k2`, added to the accumulator by `AddSel` (a subtraction has both
/// constants negated: `acc - v` and `acc + -v` are the same IEEE operation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sel {
    pub slot: usize,
    /// The comparison, as `CmpSK`'s `b`.
    pub cmp: u16,
    pub k: f64,
    pub then: f64,
    pub otherwise: f64,
}

/// `x CMP k` for `CmpSK`'s and `Sel`'s comparison numbers (`CMP_OPS` order).
#[inline(always)]
fn compare(cmp: u16, x: f64, k: f64) -> bool {
    match cmp {
        0 => x < k,
        1 => x <= k,
        2 => x > k,
        3 => x >= k,
        4 => x == k,
        _ => x != k,
    }
}

/// `a` if `c`, else `b`, without a branch (the condition often varies from job to job).
#[inline(always)]
fn select(c: bool, a: f64, b: f64) -> f64 {
    let pick = u64::from(c).wrapping_neg();
    f64::from_bits((a.to_bits() & pick) | (b.to_bits() & !pick))
}

/// `pow(x, k)`, from `table` when `x` is one of its whole bases (bit for bit: `-0.0` is not 0).
#[inline(always)]
fn pow_const(x: f64, k: f64, table: Option<&[f64]>) -> f64 {
    if let Some(t) = table {
        // saturating: negative and NaN give 0, whose bits differ from theirs
        let i = x as usize;
        if let Some(&v) = t.get(i) {
            if (i as f64).to_bits() == x.to_bits() {
                return v;
            }
        }
    }
    float_math::pow(x, k)
}

/// The table of `pow(i, k)` for `i` in `0..POW_TABLE`.
pub(crate) fn pow_table(k: f64) -> Box<[f64]> {
    (0..POW_TABLE)
        .map(|i| float_math::pow(i as f64, k))
        .collect()
}

/// The largest spill area; programs needing more have no fast path.
pub(crate) const MAX_REGS: usize = 256;

impl Code {
    /// Runs the program on one job's slots: the value, and whether the exact evaluator must
    /// decide instead.
    #[inline]
    pub(crate) fn run(&self, s: &[f64]) -> (f64, bool) {
        let n = s.len().min(self.slot_limit.len());
        let (vals, lims) = (&s[..n], &self.slot_limit[..n]);
        let mut bad = false;
        for i in 0..n {
            bad |= outside(vals[i], lims[i]);
        }
        let (v, b) = if self.regs <= 4 {
            self.exec::<4>(s)
        } else if self.regs <= 32 {
            self.exec::<32>(s)
        } else {
            self.exec::<MAX_REGS>(s)
        };
        (v, bad | b)
    }

    #[inline]
    fn exec<const N: usize>(&self, s: &[f64]) -> (f64, bool) {
        let mut r = [0.0f64; N];
        let mut acc = 0.0f64;
        let mut bad = false;
        let m = N - 1;
        let code = &self.ins[..];
        let mut pc = 0;
        while let Some(ins) = code.get(pc) {
            pc += 1;
            macro_rules! get {
                (A) => {
                    acc
                };
                (R) => {
                    r[ins.a as usize & m]
                };
                (S) => {
                    s.get(ins.a as usize).copied().unwrap_or(0.0)
                };
                (S b) => {
                    s.get(ins.b as usize).copied().unwrap_or(0.0)
                };
                (K) => {
                    ins.k
                };
            }
            // the result, checking the int range when the instruction asks for it
            macro_rules! put {
                ($v:expr) => {{
                    acc = $v;
                    if ins.flags & CHECK != 0 {
                        bad |= outside(acc, EXACT_INT);
                    }
                }};
            }
            macro_rules! div {
                ($x:expr, $y:expr) => {{
                    let x: f64 = $x;
                    let y: f64 = $y;
                    bad |= y == 0.0;
                    acc = x / y;
                }};
            }
            // acc = acc ± inner, checking the inner value when asked
            macro_rules! fused {
                ($sign:tt, $inner:expr) => {{
                    let t: f64 = $inner;
                    if ins.flags & CHECK_INNER != 0 {
                        bad |= outside(t, EXACT_INT);
                    }
                    put!(acc $sign t)
                }};
            }
            macro_rules! fused_div {
                ($sign:tt, $x:expr, $y:expr) => {{
                    let x: f64 = $x;
                    let y: f64 = $y;
                    bad |= y == 0.0;
                    put!(acc $sign x / y)
                }};
            }
            macro_rules! cmp {
                ($op:tt) => {{
                    let t = get!(R) $op acc;
                    if ins.b == NO_JUMP {
                        acc = f64::from(u8::from(t));
                    } else if !t {
                        acc = 0.0;
                        pc = ins.b as usize;
                    }
                }};
            }
            match ins.op {
                Op::LdS => acc = get!(S),
                Op::LdK => acc = get!(K),
                Op::St => r[ins.a as usize & m] = acc,
                Op::AddAS => put!(get!(A) + get!(S)),
                Op::AddAK => put!(get!(A) + get!(K)),
                Op::AddSA => put!(get!(S) + get!(A)),
                Op::AddKA => put!(get!(K) + get!(A)),
                Op::AddSS => put!(get!(S) + get!(S b)),
                Op::AddSK => put!(get!(S) + get!(K)),
                Op::AddKS => put!(get!(K) + get!(S b)),
                Op::AddRA => put!(get!(R) + get!(A)),
                Op::SubAS => put!(get!(A) - get!(S)),
                Op::SubAK => put!(get!(A) - get!(K)),
                Op::SubSA => put!(get!(S) - get!(A)),
                Op::SubKA => put!(get!(K) - get!(A)),
                Op::SubSS => put!(get!(S) - get!(S b)),
                Op::SubSK => put!(get!(S) - get!(K)),
                Op::SubKS => put!(get!(K) - get!(S b)),
                Op::SubRA => put!(get!(R) - get!(A)),
                Op::MulAS => put!(get!(A) * get!(S)),
                Op::MulAK => put!(get!(A) * get!(K)),
                Op::MulSA => put!(get!(S) * get!(A)),
                Op::MulKA => put!(get!(K) * get!(A)),
                Op::MulSS => put!(get!(S) * get!(S b)),
                Op::MulSK => put!(get!(S) * get!(K)),
                Op::MulKS => put!(get!(K) * get!(S b)),
                Op::MulRA => put!(get!(R) * get!(A)),
                Op::DivAS => div!(get!(A), get!(S)),
                Op::DivAK => div!(get!(A), get!(K)),
                Op::DivSA => div!(get!(S), get!(A)),
                Op::DivKA => div!(get!(K), get!(A)),
                Op::DivSS => div!(get!(S), get!(S b)),
                Op::DivSK => div!(get!(S), get!(K)),
                Op::DivKS => div!(get!(K), get!(S b)),
                Op::DivRA => div!(get!(R), get!(A)),
                Op::MulAddRun | Op::LdMulAddRun => {
                    let (from, n) = (ins.a as usize, ins.b as usize);
                    let mut terms = self.terms.get(from..from + n).unwrap_or(&[]);
                    if ins.op == Op::LdMulAddRun {
                        if let Some((t, rest)) = terms.split_first() {
                            acc = s.get(t.slot).copied().unwrap_or(0.0);
                            terms = rest;
                        }
                    }
                    if ins.flags & RUN_DIVIDES == 0 {
                        for t in terms {
                            acc += s.get(t.slot).copied().unwrap_or(0.0) * t.m;
                        }
                    } else {
                        for t in terms {
                            let mut x = s.get(t.slot).copied().unwrap_or(0.0) * t.m;
                            // a branch the predictor learns: the same terms every job
                            if t.q != 1.0 {
                                x /= t.q;
                            }
                            acc += x;
                        }
                    }
                }
                Op::AddMulSK => fused!(+, get!(S) * get!(K)),
                Op::AddMulSS => fused!(+, get!(S) * get!(S b)),
                Op::AddDivSK => fused_div!(+, get!(S), get!(K)),
                Op::AddDivKS => fused_div!(+, get!(K), get!(S b)),
                Op::AddDivSS => fused_div!(+, get!(S), get!(S b)),
                Op::SubMulSK => fused!(-, get!(S) * get!(K)),
                Op::SubMulSS => fused!(-, get!(S) * get!(S b)),
                Op::SubDivSK => fused_div!(-, get!(S), get!(K)),
                Op::SubDivKS => fused_div!(-, get!(K), get!(S b)),
                Op::SubDivSS => fused_div!(-, get!(S), get!(S b)),
                Op::FloorDiv => {
                    bad |= acc == 0.0;
                    put!(float_floordiv(get!(R), acc))
                }
                Op::Mod => {
                    bad |= acc == 0.0;
                    put!(float_mod(get!(R), acc))
                }
                Op::Pow => {
                    let v = get!(R).powf(acc);
                    bad |= !v.is_finite();
                    put!(v)
                }
                Op::Neg => acc = -acc,
                Op::Not => acc = f64::from(u8::from(acc == 0.0)),
                Op::Apply => {
                    let v = match self.fns.get(ins.b as usize) {
                        Some(f) => f(acc),
                        None => f64::NAN,
                    };
                    bad |= !v.is_finite();
                    put!(v)
                }
                Op::Round2 => {
                    let v = round_float(acc, ins.k as i128);
                    bad |= !v.is_finite();
                    put!(v)
                }
                Op::Min => {
                    let best = get!(R);
                    acc = if acc < best { acc } else { best };
                }
                Op::Max => {
                    let best = get!(R);
                    acc = if acc > best { acc } else { best };
                }
                Op::MathPow => {
                    acc = float_math::pow(get!(R), acc);
                    bad |= !acc.is_finite();
                }
                Op::PowSK | Op::PowAK => {
                    let x = if ins.op == Op::PowSK { get!(S) } else { acc };
                    let table = self.pow_tables.get(ins.b as usize).map(|t| &t[..]);
                    acc = pow_const(x, ins.k, table);
                    bad |= !acc.is_finite();
                }
                Op::PowKA => {
                    acc = float_math::pow(ins.k, acc);
                    bad |= !acc.is_finite();
                }
                Op::CmpSK => acc = f64::from(u8::from(compare(ins.b, get!(S), ins.k))),
                Op::SelKK => {
                    let other = self.consts.get(ins.b as usize).copied().unwrap_or(0.0);
                    acc = select(acc != 0.0, ins.k, other);
                }
                Op::AddSel => {
                    if let Some(x) = self.sels.get(ins.a as usize) {
                        let v = s.get(x.slot).copied().unwrap_or(0.0);
                        put!(acc + select(compare(x.cmp, v, x.k), x.then, x.otherwise));
                    }
                }
                Op::Atan2 => {
                    let y = get!(R);
                    bad |= y == 0.0;
                    acc = float_math::m_atan2(y, acc);
                }
                Op::Copysign => {
                    bad |= acc == 0.0;
                    acc = get!(R).copysign(acc);
                }
                Op::Fmod => {
                    let y = acc;
                    acc = float_math::fmod(get!(R), y);
                    bad |= !(acc.is_finite() && y.is_finite());
                }
                Op::Log2Arg => {
                    let num = float_math::log(get!(R));
                    let den = float_math::log(acc);
                    bad |= !(num.is_finite() && den.is_finite() && den != 0.0);
                    acc = num / den;
                }
                Op::Lt => cmp!(<),
                Op::Le => cmp!(<=),
                Op::Gt => cmp!(>),
                Op::Ge => cmp!(>=),
                Op::Eq => cmp!(==),
                Op::Ne => cmp!(!=),
                Op::Jmp => pc = ins.b as usize,
                Op::JmpZ => {
                    if acc == 0.0 {
                        pc = ins.b as usize;
                    }
                }
                Op::JmpNz => {
                    if acc != 0.0 {
                        pc = ins.b as usize;
                    }
                }
            }
        }
        (acc, bad)
    }
}
