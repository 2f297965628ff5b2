//! Python 3 numbers and operators, exactly: an `int` (kept in `i128`; beyond that range an
//! approximation, see [`Value::Big`]) or a `float`, with Python's results and Python's
//! exception messages (`str(exception)`), which PBS logs and fairsort reports.

use super::ast::{BinOp, CmpOp};
use std::borrow::Cow;
use std::cmp::Ordering;

/// A Python number as the evaluator sees it. Python's `bool` is an `int` (True == 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A Python `int` within ±2^127.
    Int(i128),
    /// A Python `int` beyond ±2^127, approximated by the nearest float (possibly infinite):
    /// converting it to a float fails with `int too large to convert to float` when infinite.
    Big(f64),
    /// A Python `float`.
    Float(f64),
}

/// A Python exception, as `str(exception)`.
pub type PyErr = Cow<'static, str>;
/// The result of a Python operation.
pub type PyResult = Result<Value, PyErr>;

/// 2^53: below it every integer is exact in an f64.
pub const EXACT_INT: f64 = 9_007_199_254_740_992.0;

/// Python's message when a complex number would result (fairsort does not carry complex
/// numbers; PBS cannot use one either: `PyFloat_AsDouble` refuses it with this message).
pub const COMPLEX: &str = "must be real number, not complex";

impl Value {
    /// A Python `bool`.
    pub fn bool(b: bool) -> Value {
        Value::Int(b as i128)
    }

    /// An integer result that may not fit `i128`.
    pub(crate) fn int_or_big(exact: Option<i128>, approx: f64) -> Value {
        match exact {
            Some(i) => Value::Int(i),
            None => Value::Big(approx),
        }
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
        if x.abs() < 1.7e38 {
            Ok(Value::Int(x as i128))
        } else {
            Ok(Value::Big(x))
        }
    }

    /// Whether the value is a Python `int` (or `bool`).
    pub(crate) fn is_int(self) -> bool {
        !matches!(self, Value::Float(_))
    }

    /// Python's `float(x)`.
    pub fn to_f64(self) -> Result<f64, PyErr> {
        match self {
            Value::Int(i) => Ok(i as f64),
            Value::Big(x) if x.is_finite() => Ok(x),
            Value::Big(_) => Err("int too large to convert to float".into()),
            Value::Float(x) => Ok(x),
        }
    }

    /// The value as an f64 without checks (ints are rounded to nearest).
    pub fn approx(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Big(x) | Value::Float(x) => x,
        }
    }

    /// Python's truth value (`nan` is true).
    pub fn truthy(self) -> bool {
        match self {
            Value::Int(i) => i != 0,
            Value::Big(x) | Value::Float(x) => x != 0.0,
        }
    }

    /// Python's type name, for messages.
    pub(crate) fn type_name(self) -> &'static str {
        if self.is_int() {
            "int"
        } else {
            "float"
        }
    }
}

/// `-x`
pub fn neg(x: Value) -> Value {
    match x {
        Value::Int(i) => Value::int_or_big(i.checked_neg(), -(i as f64)),
        Value::Big(b) => Value::Big(-b),
        Value::Float(f) => Value::Float(-f),
    }
}

/// `a <op> b` for the arithmetic operators.
pub fn binary(op: BinOp, a: Value, b: Value) -> PyResult {
    if a.is_int() && b.is_int() {
        int_binary(op, a, b)
    } else {
        float_binary(op, a.to_f64()?, b.to_f64()?)
    }
}

fn int_binary(op: BinOp, a: Value, b: Value) -> PyResult {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        let (fx, fy) = (x as f64, y as f64);
        return Ok(match op {
            BinOp::Add => Value::int_or_big(x.checked_add(y), fx + fy),
            BinOp::Sub => Value::int_or_big(x.checked_sub(y), fx - fy),
            BinOp::Mul => Value::int_or_big(x.checked_mul(y), fx * fy),
            BinOp::Div => {
                if y == 0 {
                    return Err("division by zero".into());
                }
                Value::Float(fx / fy)
            }
            BinOp::FloorDiv => {
                if y == 0 {
                    return Err("integer division or modulo by zero".into());
                }
                match (x.checked_div(y), x.checked_rem(y)) {
                    (Some(q), Some(r)) => Value::Int(if r != 0 && ((r < 0) != (y < 0)) {
                        q - 1
                    } else {
                        q
                    }),
                    _ => Value::Big((fx / fy).floor()),
                }
            }
            BinOp::Mod => {
                if y == 0 {
                    return Err("integer modulo by zero".into());
                }
                match x.checked_rem(y) {
                    Some(r) if r != 0 && ((r < 0) != (y < 0)) => Value::Int(r + y),
                    Some(r) => Value::Int(r),
                    None => Value::Int(0),
                }
            }
            BinOp::Pow => {
                if y < 0 {
                    if x == 0 {
                        return Err("0.0 cannot be raised to a negative power".into());
                    }
                    return float_pow(fx, fy).map(Value::Float);
                }
                let exact = u32::try_from(y).ok().and_then(|e| x.checked_pow(e));
                let exact = exact.or(match x {
                    0 | 1 => Some(x),
                    -1 => Some(if y % 2 == 0 { 1 } else { -1 }),
                    _ => None,
                });
                Value::int_or_big(exact, fx.powf(fy))
            }
        });
    }
    // At least one int beyond i128: approximate, keeping Python's int behaviour and errors.
    let (x, y) = (a.approx(), b.approx());
    Ok(match op {
        BinOp::Add => Value::Big(x + y),
        BinOp::Sub => Value::Big(x - y),
        BinOp::Mul => Value::Big(x * y),
        BinOp::Div => {
            if y == 0.0 {
                return Err("division by zero".into());
            }
            let q = x / y;
            if !q.is_finite() {
                return Err("integer division result too large for a float".into());
            }
            Value::Float(q)
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                return Err("integer division or modulo by zero".into());
            }
            Value::Big((x / y).floor())
        }
        BinOp::Mod => {
            if y == 0.0 {
                return Err("integer modulo by zero".into());
            }
            Value::Big(float_mod(x, y))
        }
        BinOp::Pow => {
            if y < 0.0 {
                if x == 0.0 {
                    return Err("0.0 cannot be raised to a negative power".into());
                }
                return float_pow(a.to_f64()?, y).map(Value::Float);
            }
            Value::Big(x.powf(y))
        }
    })
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
        BinOp::Pow => float_pow(x, y)?,
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

/// Python's `x ** y` for floats, with its errors (a negative base to a fractional power gives a
/// complex number in Python; fairsort reports it as an error).
pub(crate) fn float_pow(iv: f64, iw: f64) -> Result<f64, PyErr> {
    if iw == 0.0 {
        return Ok(1.0);
    }
    if iv.is_nan() {
        return Ok(iv);
    }
    if iw.is_nan() {
        return Ok(if iv == 1.0 { 1.0 } else { iw });
    }
    if iw.is_infinite() {
        let a = iv.abs();
        return Ok(if a == 1.0 {
            1.0
        } else if (iw > 0.0) == (a > 1.0) {
            iw.abs()
        } else {
            0.0
        });
    }
    if iv.is_infinite() {
        let odd = is_odd_integer(iw);
        return Ok(if iw > 0.0 {
            if odd {
                iv
            } else {
                iv.abs()
            }
        } else if odd {
            0.0f64.copysign(iv)
        } else {
            0.0
        });
    }
    if iv == 0.0 {
        if iw < 0.0 {
            return Err("0.0 cannot be raised to a negative power".into());
        }
        return Ok(if is_odd_integer(iw) { iv } else { 0.0 });
    }
    let mut base = iv;
    let mut negate = false;
    if iv < 0.0 {
        if iw != iw.floor() {
            return Err(COMPLEX.into());
        }
        base = -iv;
        negate = is_odd_integer(iw);
    }
    if base == 1.0 {
        return Ok(if negate { -1.0 } else { 1.0 });
    }
    let r = base.powf(iw);
    if r.is_infinite() {
        return Err("(34, 'Numerical result out of range')".into());
    }
    Ok(if negate { -r } else { r })
}

/// Python's ordering of two numbers (exact between ints and floats); `None` when unordered
/// (a NaN is involved).
pub fn compare(a: Value, b: Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(&y)),
        (Value::Int(i), Value::Float(f)) => int_float_cmp(i, f),
        (Value::Float(f), Value::Int(i)) => int_float_cmp(i, f).map(Ordering::reverse),
        _ => a.approx().partial_cmp(&b.approx()),
    }
}

fn int_float_cmp(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if (i as f64).abs() < EXACT_INT || f.is_infinite() || f.abs() >= 1.7e38 {
        return (i as f64).partial_cmp(&f);
    }
    let fl = f.floor();
    let fi = fl as i128;
    Some(match i.cmp(&fi) {
        Ordering::Equal if f > fl => Ordering::Less,
        o => o,
    })
}

/// `a <op> b` for the comparison operators (a Python `bool`).
pub fn compare_op(op: CmpOp, a: Value, b: Value) -> bool {
    let o = compare(a, b);
    match op {
        CmpOp::Lt => o == Some(Ordering::Less),
        CmpOp::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => o == Some(Ordering::Greater),
        CmpOp::Ge => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        CmpOp::Eq => o == Some(Ordering::Equal),
        CmpOp::Ne => o != Some(Ordering::Equal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinOp::*;
    use Value::{Float as F, Int as I};

    #[test]
    fn int_semantics() {
        assert_eq!(binary(FloorDiv, I(7), I(2)), Ok(I(3)));
        assert_eq!(binary(FloorDiv, I(-7), I(2)), Ok(I(-4)));
        assert_eq!(binary(Mod, I(-7), I(3)), Ok(I(2)));
        assert_eq!(binary(Mod, I(7), I(-3)), Ok(I(-2)));
        assert_eq!(binary(Div, I(7), I(2)), Ok(F(3.5)));
        assert_eq!(binary(Pow, I(2), I(-1)), Ok(F(0.5)));
        assert_eq!(binary(Pow, I(3), I(4)), Ok(I(81)));
        assert_eq!(binary(Div, I(1), I(0)), Err("division by zero".into()));
        assert_eq!(
            binary(Div, F(1.0), I(0)),
            Err("float division by zero".into())
        );
        assert_eq!(
            binary(Mod, I(1), I(0)),
            Err("integer modulo by zero".into())
        );
        assert!(matches!(binary(Pow, I(10), I(400)), Ok(Value::Big(_))));
        assert_eq!(
            binary(Mul, binary(Pow, I(10), I(400)).unwrap_or(I(0)), F(0.5)),
            Err("int too large to convert to float".into())
        );
    }

    #[test]
    fn float_semantics() {
        assert_eq!(binary(Mod, F(-7.0), F(3.0)), Ok(F(2.0)));
        assert_eq!(binary(FloorDiv, F(-7.5), F(2.0)), Ok(F(-4.0)));
        assert_eq!(float_pow(-8.0, 1.0 / 3.0), Err(COMPLEX.into()));
        assert_eq!(
            float_pow(10.0, 400.0),
            Err("(34, 'Numerical result out of range')".into())
        );
        assert_eq!(float_pow(-2.0, 3.0), Ok(-8.0));
        assert!(compare_op(CmpOp::Eq, I(1), F(1.0)));
        assert!(compare_op(CmpOp::Ne, F(f64::NAN), F(f64::NAN)));
        assert!(compare_op(
            CmpOp::Lt,
            I(9_007_199_254_740_993),
            F(9_007_199_254_740_994.0)
        ));
        assert!(compare_op(
            CmpOp::Gt,
            I(9_007_199_254_740_993),
            F(9_007_199_254_740_992.0)
        ));
    }
}
