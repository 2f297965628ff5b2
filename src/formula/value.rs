//! Python 3 numbers and operators, exactly: `bool`, `int` (unbounded: `i128`, beyond that a
//! big integer), `float` and `complex`, with Python's results and Python's exception messages
//! (`str(exception)`), which PBS logs and fairsort reports.

use crate::formula::ast::{BinOp, CmpOp};
use crate::formula::bigint;
use crate::formula::bigint::{check_bits, too_big, INT_TOO_LARGE};
use crate::formula::complex;
use crate::formula::repr;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive};
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// A Python number as the evaluator sees it. Cloning never allocates (a big int is shared).
/// `repr(C, u64)`: an 8-byte tag and every payload at offset 16. With Rust's own layout a
/// `bool` sits at offset 1 and moving a value takes unaligned overlapping copies that stall the
/// exact evaluator's loads (1.8x slower `exact_only` in `cargo bench --bench formula`; 1.2x
/// with this layout, against the former Copy value without bool and complex variants).
#[derive(Debug, Clone, PartialEq)]
#[repr(C, u64)]
pub enum Value {
    /// A Python `bool` (an `int` in arithmetic: `True + True == 2`).
    Bool(bool),
    /// A Python `int` within the `i128` range.
    Int(i128),
    /// A Python `int` beyond the `i128` range (never one that fits `i128`).
    Big(Arc<BigInt>),
    /// A Python `float`.
    Float(f64),
    /// A Python `complex` (real, imaginary).
    Complex(f64, f64),
}

pub use crate::formula::py_err::PyErr;
/// The result of a Python operation.
pub type PyResult = Result<Value, PyErr>;

/// 2^53: below it every integer is exact in an f64.
pub const EXACT_INT: f64 = 9_007_199_254_740_992.0;

/// Python's message when a complex number is given where a real one is needed (what
/// `PyFloat_AsDouble` says, and math's functions).
pub const COMPLEX: &str = "must be real number, not complex";

/// 2^127 as an f64: floats in `[-2^127, 2^127)` have their floor in `i128`.
const I128_EDGE: f64 = 1.7014118346046923e38;

/// An int operand, small or big.
#[derive(Debug, Clone, Copy)]
pub(crate) enum IntView<'a> {
    Small(i128),
    Big(&'a BigInt),
}

impl IntView<'_> {
    pub(crate) fn to_bigint(self) -> BigInt {
        match self {
            IntView::Small(i) => BigInt::from(i),
            IntView::Big(b) => b.clone(),
        }
    }

    fn sign(self) -> Ordering {
        match self {
            IntView::Small(i) => i.cmp(&0),
            IntView::Big(b) => {
                if b.is_negative() {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
        }
    }

    fn bits(self) -> u64 {
        match self {
            IntView::Small(i) => u64::from(128 - i.unsigned_abs().leading_zeros()),
            IntView::Big(b) => b.bits(),
        }
    }
}

impl Value {
    /// A Python `bool`.
    pub fn bool(b: bool) -> Value {
        Value::Bool(b)
    }

    /// A Python int from a big integer (kept small when it fits).
    pub(crate) fn from_bigint(b: BigInt) -> Value {
        match b.to_i128() {
            Some(i) => Value::Int(i),
            None => Value::Big(Arc::new(b)),
        }
    }

    /// A big int result, refused beyond the size limit.
    pub(crate) fn checked_bigint(b: BigInt) -> PyResult {
        if let Err(e) = check_bits(b.bits()) {
            // computed before it was refused: the work was done
            bigint::made(b.bits());
            return Err(e);
        }
        Ok(Value::from_bigint(b))
    }

    /// An integral float turned into a Python int (`floor`, `round`, `int()`), with Python's
    /// errors for infinity and NaN.
    pub(crate) fn from_integral_float(x: f64) -> PyResult {
        if x.is_nan() {
            return Err("cannot convert float NaN to integer".into());
        }
        if x.is_infinite() {
            return Err("cannot convert float infinity to integer".into());
        }
        if (-I128_EDGE..I128_EDGE).contains(&x) {
            Ok(Value::Int(x as i128))
        } else {
            Ok(Value::from_bigint(bigint::from_integral_f64(x)))
        }
    }

    /// The value as an int operand (`bool` and `int`).
    pub(crate) fn int_view(&self) -> Option<IntView<'_>> {
        match self {
            Value::Bool(b) => Some(IntView::Small(i128::from(*b))),
            Value::Int(i) => Some(IntView::Small(*i)),
            Value::Big(b) => Some(IntView::Big(b)),
            Value::Float(_) | Value::Complex(..) => None,
        }
    }

    /// Python's `float(x)` of a real number, as `PyFloat_AsDouble` does it: ints rounded to
    /// nearest, an int beyond the double range and a complex number are errors.
    pub fn to_f64(&self) -> Result<f64, PyErr> {
        match self {
            Value::Bool(b) => Ok(f64::from(u8::from(*b))),
            Value::Int(i) => Ok(*i as f64),
            Value::Big(b) => bigint::to_f64(b).ok_or_else(|| INT_TOO_LARGE.into()),
            Value::Float(x) => Ok(*x),
            Value::Complex(..) => Err(COMPLEX.into()),
        }
    }

    /// The value as a complex number (`TO_COMPLEX`: ints and floats converted to float).
    pub(crate) fn to_complex(&self) -> Result<complex::C, PyErr> {
        match self {
            Value::Complex(re, im) => Ok((*re, *im)),
            x => Ok((x.to_f64()?, 0.0)),
        }
    }

    /// Python's truth value (`nan` is true; a complex number is true unless `0j`).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Big(_) => true,
            Value::Float(x) => *x != 0.0,
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
        }
    }

    /// Python's type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::Big(_) => "int",
            Value::Float(_) => "float",
            Value::Complex(..) => "complex",
        }
    }
}

/// Python's `repr()`: `3`, `True`, `3.0`, `1e+16`, `inf`, `(6.123233995736766e-17+1j)`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::Big(b) => write!(f, "{b}"),
            Value::Float(x) => f.write_str(&repr::float(*x)),
            Value::Complex(re, im) => f.write_str(&repr::complex(*re, *im)),
        }
    }
}

/// `-x`
pub fn neg(x: &Value) -> Value {
    match x {
        Value::Bool(b) => Value::Int(-i128::from(*b)),
        Value::Int(i) => match i.checked_neg() {
            Some(n) => Value::Int(n),
            None => Value::from_bigint(-BigInt::from(*i)),
        },
        Value::Big(b) => Value::from_bigint(-(**b).clone()),
        Value::Float(f) => Value::Float(-f),
        Value::Complex(re, im) => Value::Complex(-re, -im),
    }
}

fn op_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::FloorDiv => "//",
        BinOp::Mod => "%",
        BinOp::Pow => "** or pow()",
    }
}

/// `a <op> b` for the arithmetic operators.
pub fn binary(op: BinOp, a: &Value, b: &Value) -> PyResult {
    match (a.int_view(), b.int_view()) {
        (Some(x), Some(y)) => int_binary(op, x, y),
        _ if matches!(a, Value::Complex(..)) || matches!(b, Value::Complex(..)) => {
            complex_binary(op, a, b)
        }
        _ => float_binary(op, a.to_f64()?, b.to_f64()?),
    }
}

fn complex_binary(op: BinOp, a: &Value, b: &Value) -> PyResult {
    if matches!(op, BinOp::FloorDiv | BinOp::Mod) {
        return Err(format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op_symbol(op),
            a.type_name(),
            b.type_name()
        )
        .into());
    }
    let (x, y) = (a.to_complex()?, b.to_complex()?);
    let (re, im) = match op {
        BinOp::Add => complex::add(x, y),
        BinOp::Sub => complex::sub(x, y),
        BinOp::Mul => complex::mul(x, y),
        BinOp::Div => complex::div(x, y)?,
        _ => complex::pow(x, y)?,
    };
    Ok(Value::Complex(re, im))
}

/// Python's int arithmetic: `i128` while it fits, big integers beyond.
fn int_binary(op: BinOp, x: IntView, y: IntView) -> PyResult {
    if let (IntView::Small(a), IntView::Small(b)) = (x, y) {
        let small = match op {
            BinOp::Add => a.checked_add(b).map(Value::Int),
            BinOp::Sub => a.checked_sub(b).map(Value::Int),
            BinOp::Mul => a.checked_mul(b).map(Value::Int),
            BinOp::Div => {
                if b == 0 {
                    return Err("division by zero".into());
                }
                (a.unsigned_abs() <= 1 << 53 && b.unsigned_abs() <= 1 << 53)
                    .then(|| Value::Float(a as f64 / b as f64))
            }
            BinOp::FloorDiv => {
                if b == 0 {
                    return Err("integer division or modulo by zero".into());
                }
                (b != -1).then(|| Value::Int(Integer::div_floor(&a, &b)))
            }
            BinOp::Mod => {
                if b == 0 {
                    return Err("integer modulo by zero".into());
                }
                Some(Value::Int(if b == -1 {
                    0
                } else {
                    Integer::mod_floor(&a, &b)
                }))
            }
            BinOp::Pow => match u32::try_from(b) {
                Ok(e) => a.checked_pow(e).map(Value::Int),
                Err(_) => None,
            },
        };
        if let Some(v) = small {
            return Ok(v);
        }
    }
    match op {
        BinOp::Add => Value::checked_bigint(x.to_bigint() + y.to_bigint()),
        BinOp::Sub => Value::checked_bigint(x.to_bigint() - y.to_bigint()),
        BinOp::Mul => {
            check_bits((x.bits() + y.bits()).saturating_sub(1))?;
            Value::checked_bigint(x.to_bigint() * y.to_bigint())
        }
        BinOp::Div => {
            if y.sign() == Ordering::Equal {
                return Err("division by zero".into());
            }
            let (a, b) = (x.to_bigint(), y.to_bigint());
            let q = bigint::ratio_to_f64(a.magnitude(), b.magnitude())
                .ok_or("integer division result too large for a float")?;
            Ok(Value::Float(if a.sign() != b.sign() { -q } else { q }))
        }
        BinOp::FloorDiv => {
            if y.sign() == Ordering::Equal {
                return Err("integer division or modulo by zero".into());
            }
            Ok(Value::from_bigint(x.to_bigint().div_floor(&y.to_bigint())))
        }
        BinOp::Mod => {
            if y.sign() == Ordering::Equal {
                return Err("integer modulo by zero".into());
            }
            Ok(Value::from_bigint(x.to_bigint().mod_floor(&y.to_bigint())))
        }
        BinOp::Pow => int_pow(x, y),
    }
}

/// `x ** y` for ints: a float for a negative exponent, else the exact power (within the size
/// limit; `0`, `1` and `-1` to any power are computed whatever the exponent).
fn int_pow(x: IntView, y: IntView) -> PyResult {
    if y.sign() == Ordering::Less {
        // CPython hands a negative exponent to float's power, converting both to float
        let fx = Value::from_view(x).to_f64()?;
        let fy = Value::from_view(y).to_f64()?;
        return float_pow(fx, fy);
    }
    let odd = match y {
        IntView::Small(e) => e % 2 != 0,
        IntView::Big(e) => e.is_odd(),
    };
    match x {
        IntView::Small(0) => {
            return Ok(Value::Int(i128::from(y.sign() == Ordering::Equal)));
        }
        IntView::Small(1) => return Ok(Value::Int(1)),
        IntView::Small(-1) => return Ok(Value::Int(if odd { -1 } else { 1 })),
        _ => {}
    }
    // |x| >= 2: the result has at least (bits(x) - 1) * y bits
    let e = match y {
        IntView::Small(e) => u64::try_from(e).map_err(|_| too_big())?,
        IntView::Big(_) => return Err(too_big()),
    };
    check_bits(u64::try_from(u128::from(x.bits() - 1) * u128::from(e)).unwrap_or(u64::MAX))?;
    let e = u32::try_from(e).map_err(|_| too_big())?;
    Value::checked_bigint(x.to_bigint().pow(e))
}

impl Value {
    fn from_view(v: IntView) -> Value {
        match v {
            IntView::Small(i) => Value::Int(i),
            IntView::Big(b) => Value::Big(Arc::new(b.clone())),
        }
    }
}

/// Python's float arithmetic (floatobject.c).
pub(crate) fn float_binary(op: BinOp, x: f64, y: f64) -> PyResult {
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return Err("float division by zero".into());
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                return Err("float floor division by zero".into());
            }
            float_floordiv(x, y)
        }
        BinOp::Mod => {
            if y == 0.0 {
                return Err("float modulo".into());
            }
            float_mod(x, y)
        }
        BinOp::Pow => return float_pow(x, y),
    }))
}

/// Python's `x // y` for floats (`y != 0`).
pub(crate) fn float_floordiv(vx: f64, wx: f64) -> f64 {
    let m = vx % wx;
    let mut div = (vx - m) / wx;
    if m != 0.0 && ((wx < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div != 0.0 {
        let mut fd = div.floor();
        if div - fd > 0.5 {
            fd += 1.0;
        }
        fd
    } else {
        0.0f64.copysign(vx / wx)
    }
}

/// Python's `x % y` for floats (`y != 0`): the sign of the divisor.
pub(crate) fn float_mod(vx: f64, wx: f64) -> f64 {
    let m = vx % wx;
    if m != 0.0 {
        if (wx < 0.0) != (m < 0.0) {
            m + wx
        } else {
            m
        }
    } else {
        0.0f64.copysign(wx)
    }
}

fn is_odd_integer(y: f64) -> bool {
    y.is_finite() && (y % 2.0).abs() == 1.0
}

/// Python's `x ** y` for floats, with its errors; a negative base to a fractional power is a
/// complex number, as in Python (`(-1)**0.5 == (6.123233995736766e-17+1j)`).
pub(crate) fn float_pow(iv: f64, iw: f64) -> PyResult {
    if iw == 0.0 {
        return Ok(Value::Float(1.0));
    }
    if iv.is_nan() {
        return Ok(Value::Float(iv));
    }
    if iw.is_nan() {
        return Ok(Value::Float(if iv == 1.0 { 1.0 } else { iw }));
    }
    if iw.is_infinite() {
        let a = iv.abs();
        return Ok(Value::Float(if a == 1.0 {
            1.0
        } else if (iw > 0.0) == (a > 1.0) {
            iw.abs()
        } else {
            0.0
        }));
    }
    if iv.is_infinite() {
        let odd = is_odd_integer(iw);
        return Ok(Value::Float(if iw > 0.0 {
            if odd {
                iv
            } else {
                iv.abs()
            }
        } else if odd {
            0.0f64.copysign(iv)
        } else {
            0.0
        }));
    }
    if iv == 0.0 {
        if iw < 0.0 {
            return Err("0.0 cannot be raised to a negative power".into());
        }
        return Ok(Value::Float(if is_odd_integer(iw) { iv } else { 0.0 }));
    }
    let mut base = iv;
    let mut negate = false;
    if iv < 0.0 {
        if iw != iw.floor() {
            let (re, im) = complex::pow((iv, 0.0), (iw, 0.0))?;
            return Ok(Value::Complex(re, im));
        }
        base = -iv;
        negate = is_odd_integer(iw);
    }
    if base == 1.0 {
        return Ok(Value::Float(if negate { -1.0 } else { 1.0 }));
    }
    let r = base.powf(iw);
    if r.is_infinite() {
        return Err("(34, 'Numerical result out of range')".into());
    }
    Ok(Value::Float(if negate { -r } else { r }))
}

/// Python's ordering of two real numbers (exact between ints and floats, as
/// `float_richcompare`); `None` when unordered (a NaN is involved) or when either is complex
/// (see [`order`] for Python's error).
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a.int_view(), b.int_view()) {
        (Some(IntView::Small(x)), Some(IntView::Small(y))) => Some(x.cmp(&y)),
        (Some(x), Some(y)) => Some(x.to_bigint().cmp(&y.to_bigint())),
        (Some(x), None) => match b {
            Value::Float(f) => int_float_cmp(x, *f),
            _ => None,
        },
        (None, Some(y)) => match a {
            Value::Float(f) => int_float_cmp(y, *f).map(Ordering::reverse),
            _ => None,
        },
        (None, None) => match (a, b) {
            (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
            _ => None,
        },
    }
}

/// Python's ordering for `<`-like operator `sym` (`"<"`, `">"`, ...): a TypeError when either
/// side is complex.
pub fn order(sym: &str, a: &Value, b: &Value) -> Result<Option<Ordering>, PyErr> {
    if matches!(a, Value::Complex(..)) || matches!(b, Value::Complex(..)) {
        return Err(format!(
            "'{sym}' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )
        .into());
    }
    Ok(compare(a, b))
}

fn int_float_cmp(i: IntView, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    let fl = f.floor();
    let o = match i {
        IntView::Small(i) if (-I128_EDGE..I128_EDGE).contains(&fl) => i.cmp(&(fl as i128)),
        IntView::Small(_) => {
            // |f| >= 2^127: beyond every i128
            if f > 0.0 {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        IntView::Big(b) => (*b).cmp(&bigint::from_integral_f64(fl)),
    };
    Some(match o {
        Ordering::Equal if f > fl => Ordering::Less,
        o => o,
    })
}

/// `a == b` when either is complex (`complex_richcompare`: an int is compared exactly with
/// the real part, when the imaginary part is 0).
fn complex_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Complex(r1, i1), Value::Complex(r2, i2)) => r1 == r2 && i1 == i2,
        (Value::Complex(re, im), x) | (x, Value::Complex(re, im)) => {
            *im == 0.0 && compare(&Value::Float(*re), x) == Some(Ordering::Equal)
        }
        _ => false,
    }
}

/// `a <op> b` for the comparison operators (a Python `bool`); ordering a complex number is a
/// TypeError.
pub fn compare_op(op: CmpOp, a: &Value, b: &Value) -> Result<bool, PyErr> {
    let sym = match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
        CmpOp::Eq | CmpOp::Ne => {
            let eq = if matches!(a, Value::Complex(..)) || matches!(b, Value::Complex(..)) {
                complex_eq(a, b)
            } else {
                compare(a, b) == Some(Ordering::Equal)
            };
            return Ok(eq == (op == CmpOp::Eq));
        }
    };
    let o = order(sym, a, b)?;
    Ok(match op {
        CmpOp::Lt => o == Some(Ordering::Less),
        CmpOp::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => o == Some(Ordering::Greater),
        _ => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinOp::*;
    use Value::{Float as F, Int as I};

    fn bin(op: BinOp, a: Value, b: Value) -> PyResult {
        binary(op, &a, &b)
    }

    fn big(s: &str) -> Value {
        Value::from_bigint(s.parse().unwrap_or_default())
    }

    #[test]
    fn int_semantics() {
        assert_eq!(bin(FloorDiv, I(7), I(2)), Ok(I(3)));
        assert_eq!(bin(FloorDiv, I(-7), I(2)), Ok(I(-4)));
        assert_eq!(bin(Mod, I(-7), I(3)), Ok(I(2)));
        assert_eq!(bin(Mod, I(7), I(-3)), Ok(I(-2)));
        assert_eq!(bin(Div, I(7), I(2)), Ok(F(3.5)));
        assert_eq!(bin(Pow, I(2), I(-1)), Ok(F(0.5)));
        assert_eq!(bin(Pow, I(3), I(4)), Ok(I(81)));
        assert_eq!(bin(Div, I(1), I(0)), Err("division by zero".into()));
        assert_eq!(bin(Div, F(1.0), I(0)), Err("float division by zero".into()));
        assert_eq!(bin(Mod, I(1), I(0)), Err("integer modulo by zero".into()));
        assert_eq!(bin(Add, Value::Bool(true), Value::Bool(true)), Ok(I(2)));
        assert_eq!(
            bin(FloorDiv, I(i128::MIN), I(-1)),
            Ok(big("170141183460469231731687303715884105728"))
        );
        assert_eq!(bin(Mod, I(i128::MIN), I(-1)), Ok(I(0)));
    }

    #[test]
    fn big_ints_are_exact() {
        let p = |a: i128, b: i128| bin(Pow, I(a), I(b)).unwrap_or(I(0));
        let (t400, t399) = (p(10, 400), p(10, 399));
        assert!(matches!(t400, Value::Big(_)));
        assert_eq!(compare_op(CmpOp::Gt, &t400, &t399), Ok(true));
        assert_eq!(bin(Div, t400.clone(), t399.clone()), Ok(F(10.0)));
        assert_eq!(
            bin(Div, t400.clone(), I(3)),
            Err("integer division result too large for a float".into())
        );
        assert_eq!(bin(Mul, t400.clone(), F(0.5)), Err(INT_TOO_LARGE.into()));
        assert_eq!(t400.to_f64(), Err(INT_TOO_LARGE.into()));
        assert_eq!(bin(FloorDiv, p(2, 64), I(3)), Ok(I(6148914691236517205)));
        assert_eq!(
            bin(FloorDiv, neg(&p(2, 200)), I(3)),
            Ok(big(
                "-535646014752996758513987364113720867507400997927597611767126"
            ))
        );
        assert_eq!(bin(Mod, p(2, 200), I(-7)), Ok(I(-3)));
        assert_eq!(bin(Sub, t400.clone(), t400.clone()), Ok(I(0)));
        assert_eq!(bin(Pow, I(2), neg(&t400)), Err(INT_TOO_LARGE.into()));
        assert_eq!(
            bin(Pow, I(-1), bin(Add, t400.clone(), I(1)).unwrap_or(I(0))),
            Ok(I(-1))
        );
        assert_eq!(bin(Pow, I(0), t400.clone()), Ok(I(0)));
        assert!(bin(Pow, I(2), t400.clone()).is_err());
        assert!(bin(Pow, I(10), I(10_000_000_000)).is_err());
        assert!(bin(Pow, I(3), I(200_000)).is_err());
        assert_eq!(compare_op(CmpOp::Gt, &t400, &F(1e308)), Ok(true));
        assert_eq!(compare_op(CmpOp::Lt, &t400, &F(f64::INFINITY)), Ok(true));
        assert_eq!(
            compare_op(CmpOp::Eq, &p(2, 1024), &F(f64::INFINITY)),
            Ok(false)
        );
        assert_eq!(t400.to_string(), format!("1{}", "0".repeat(400)));
    }

    #[test]
    fn complex_semantics() {
        let z = bin(Pow, I(-1), F(0.5)).unwrap_or(I(0));
        assert_eq!(z, Value::Complex(6.123233995736766e-17, 1.0));
        assert_eq!(z.to_string(), "(6.123233995736766e-17+1j)");
        assert_eq!(z.to_f64(), Err(COMPLEX.into()));
        assert!(z.truthy());
        assert_eq!(
            bin(FloorDiv, z.clone(), I(2)),
            Err("unsupported operand type(s) for //: 'complex' and 'int'".into())
        );
        assert_eq!(
            compare_op(CmpOp::Lt, &Value::Bool(true), &z),
            Err("'<' not supported between instances of 'bool' and 'complex'".into())
        );
        assert_eq!(compare_op(CmpOp::Ne, &z, &z), Ok(false));
        assert_eq!(
            compare_op(CmpOp::Eq, &Value::Complex(1.0, 0.0), &I(1)),
            Ok(true)
        );
        assert_eq!(neg(&Value::Complex(0.0, 1.0)).to_string(), "(-0-1j)");
    }

    #[test]
    fn float_semantics() {
        assert_eq!(bin(Mod, F(-7.0), F(3.0)), Ok(F(2.0)));
        assert_eq!(bin(FloorDiv, F(-7.5), F(2.0)), Ok(F(-4.0)));
        assert!(matches!(float_pow(-8.0, 1.0 / 3.0), Ok(Value::Complex(..))));
        assert_eq!(
            float_pow(10.0, 400.0),
            Err("(34, 'Numerical result out of range')".into())
        );
        assert_eq!(float_pow(-2.0, 3.0), Ok(F(-8.0)));
        let cmp = |op, a, b| compare_op(op, &a, &b);
        assert_eq!(cmp(CmpOp::Eq, I(1), F(1.0)), Ok(true));
        assert_eq!(cmp(CmpOp::Ne, F(f64::NAN), F(f64::NAN)), Ok(true));
        assert_eq!(
            cmp(
                CmpOp::Lt,
                I(9_007_199_254_740_993),
                F(9_007_199_254_740_994.0)
            ),
            Ok(true)
        );
        assert_eq!(
            cmp(
                CmpOp::Gt,
                I(9_007_199_254_740_993),
                F(9_007_199_254_740_992.0)
            ),
            Ok(true)
        );
        assert_eq!(cmp(CmpOp::Lt, I(i128::MAX), F(I128_EDGE)), Ok(true));
        assert_eq!(cmp(CmpOp::Eq, I(i128::MIN), F(-I128_EDGE)), Ok(true));
        assert_eq!(I(7).to_string(), "7");
        assert_eq!(F(3.0).to_string(), "3.0");
        assert_eq!(Value::Bool(true).to_string(), "True");
    }
}
