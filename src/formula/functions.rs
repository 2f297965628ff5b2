//! The functions and constants a formula can call: everything `from math import *` gives that
//! takes and returns numbers, and the builtins `abs min max round int float bool`, with
//! Python's results and exception messages.

use crate::formula::bigint;
use crate::formula::complex;
use crate::formula::float_math;
use crate::formula::float_math::Wrapper;
use crate::formula::int_math;
use crate::formula::value::{order, PyErr, PyResult, Value, COMPLEX};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive};
use std::cmp::Ordering;

/// A callable function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Func {
    // builtins
    Abs,
    Min,
    Max,
    Round,
    Int,
    Float,
    Bool,
    // math, one float argument, float result
    Acos,
    Acosh,
    Asin,
    Asinh,
    Atan,
    Atanh,
    Cbrt,
    Cos,
    Cosh,
    Erf,
    Erfc,
    Exp,
    Exp2,
    Expm1,
    Fabs,
    Gamma,
    Lgamma,
    Log1p,
    Sin,
    Sinh,
    Sqrt,
    Tan,
    Tanh,
    Degrees,
    Radians,
    Ulp,
    // math, int result
    Ceil,
    Floor,
    Trunc,
    // math, bool result
    Isfinite,
    Isinf,
    Isnan,
    // logarithms
    Log,
    Log2,
    Log10,
    // math, two arguments
    Atan2,
    Copysign,
    Fmod,
    Pow,
    Remainder,
    Ldexp,
    Nextafter,
    // math, any number of arguments
    Hypot,
    // math, integers (exact)
    Factorial,
    Gcd,
    Lcm,
    Comb,
    Perm,
    Isqrt,
}

/// `(name, function)`: the math module's functions fairsort evaluates.
pub const MATH_FUNCS: &[(&str, Func)] = {
    use Func::*;
    &[
        ("acos", Acos),
        ("acosh", Acosh),
        ("asin", Asin),
        ("asinh", Asinh),
        ("atan", Atan),
        ("atanh", Atanh),
        ("cbrt", Cbrt),
        ("cos", Cos),
        ("cosh", Cosh),
        ("erf", Erf),
        ("erfc", Erfc),
        ("exp", Exp),
        ("exp2", Exp2),
        ("expm1", Expm1),
        ("fabs", Fabs),
        ("gamma", Gamma),
        ("lgamma", Lgamma),
        ("log1p", Log1p),
        ("sin", Sin),
        ("sinh", Sinh),
        ("sqrt", Sqrt),
        ("tan", Tan),
        ("tanh", Tanh),
        ("degrees", Degrees),
        ("radians", Radians),
        ("ulp", Ulp),
        ("ceil", Ceil),
        ("floor", Floor),
        ("trunc", Trunc),
        ("isfinite", Isfinite),
        ("isinf", Isinf),
        ("isnan", Isnan),
        ("log", Log),
        ("log2", Log2),
        ("log10", Log10),
        ("atan2", Atan2),
        ("copysign", Copysign),
        ("fmod", Fmod),
        ("pow", Pow),
        ("remainder", Remainder),
        ("ldexp", Ldexp),
        ("nextafter", Nextafter),
        ("hypot", Hypot),
        ("factorial", Factorial),
        ("gcd", Gcd),
        ("lcm", Lcm),
        ("comb", Comb),
        ("perm", Perm),
        ("isqrt", Isqrt),
    ]
};

/// The math module's functions that need sequences, tuples or keyword arguments: PBS accepts
/// them as names, fairsort refuses them with a clear error instead of guessing.
pub const MATH_UNSUPPORTED: &[&str] = &["dist", "frexp", "fsum", "isclose", "modf", "prod"];

/// The math module's constants.
pub const MATH_CONSTS: &[(&str, f64)] = &[
    ("pi", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("tau", std::f64::consts::TAU),
    ("inf", f64::INFINITY),
    ("nan", f64::NAN),
];

/// The Python builtins a formula may call.
pub const BUILTIN_FUNCS: &[(&str, Func)] = &[
    ("abs", Func::Abs),
    ("min", Func::Min),
    ("max", Func::Max),
    ("round", Func::Round),
    ("int", Func::Int),
    ("float", Func::Float),
    ("bool", Func::Bool),
];

impl Func {
    /// The function's name in a formula.
    pub fn name(self) -> &'static str {
        MATH_FUNCS
            .iter()
            .chain(BUILTIN_FUNCS)
            .find(|&&(_, f)| f == self)
            .map(|&(n, _)| n)
            .unwrap_or("?")
    }
}

const DOMAIN: &str = "math domain error";

/// A plain float function of one float.
pub type FloatFn = float_math::FloatFn;

/// The float function behind a one-argument math function (CPython's or glibc's, bit for bit:
/// `float_math`), and the CPython wrapper that checks its result. `None` for functions with
/// their own argument rules.
pub(crate) fn unary_float(f: Func) -> Option<(FloatFn, Wrapper)> {
    use float_math as m;
    const DOM: Wrapper = Wrapper::Math1 {
        can_overflow: false,
    };
    const OVF: Wrapper = Wrapper::Math1 { can_overflow: true };
    Some(match f {
        Func::Acos => (m::acos, DOM),
        Func::Acosh => (m::acosh, DOM),
        Func::Asin => (m::asin, DOM),
        Func::Asinh => (m::asinh, DOM),
        Func::Atan => (m::atan, DOM),
        Func::Atanh => (m::atanh, DOM),
        Func::Cbrt => (m::cbrt, DOM),
        Func::Cos => (m::cos, DOM),
        Func::Cosh => (m::cosh, OVF),
        Func::Exp => (m::exp, OVF),
        Func::Exp2 => (m::exp2, OVF),
        Func::Expm1 => (m::expm1, OVF),
        Func::Fabs => (m::fabs, DOM),
        Func::Log1p => (m::log1p, DOM),
        Func::Sin => (m::sin, DOM),
        Func::Sinh => (m::sinh, OVF),
        Func::Sqrt => (m::sqrt, DOM),
        Func::Tan => (m::tan, DOM),
        Func::Tanh => (m::tanh, DOM),
        Func::Erf => (m::erf, Wrapper::Math1a),
        Func::Erfc => (m::erfc, Wrapper::Math1a),
        Func::Gamma => (m::tgamma, Wrapper::Math1a),
        Func::Lgamma => (m::lgamma, Wrapper::Math1a),
        Func::Degrees => (m::degrees, Wrapper::Plain),
        Func::Radians => (m::radians, Wrapper::Plain),
        Func::Ulp => (m::ulp, Wrapper::Plain),
        _ => return None,
    })
}

/// Python's `math.log` family for one argument (`loghelper`): an int is converted to float,
/// and one beyond the double range is taken exactly as `x * 2**e` (`_PyLong_Frexp`):
/// `log10(10**400) == 400.0`.
fn log_of(x: &Value, f: fn(f64) -> f64) -> Result<f64, PyErr> {
    if let Some(i) = x.int_view() {
        let b = i.to_bigint();
        if !b.is_positive() {
            return Err(DOMAIN.into());
        }
        return Ok(match x.to_f64() {
            Ok(v) => f(v),
            Err(_) => {
                let (m, e) = bigint::frexp(b.magnitude());
                f(m) + f(2.0) * e as f64
            }
        });
    }
    let v = x.to_f64()?;
    Ok(float_math::apply(
        Wrapper::Math1 {
            can_overflow: false,
        },
        f,
        v,
    )?)
}

fn one_arg<'a>(name: &str, args: &'a [Value]) -> Result<&'a Value, PyErr> {
    match args {
        [x] => Ok(x),
        _ => Err(format!(
            "math.{name}() takes exactly one argument ({} given)",
            args.len()
        )
        .into()),
    }
}

fn two_args<'a>(name: &str, args: &'a [Value]) -> Result<(&'a Value, &'a Value), PyErr> {
    match args {
        [x, y] => Ok((x, y)),
        _ => Err(format!("{name} expected 2 arguments, got {}", args.len()).into()),
    }
}

/// Calls `f` with Python's semantics.
pub fn call(f: Func, args: &[Value]) -> PyResult {
    let name = f.name();
    if let Some((g, wrapper)) = unary_float(f) {
        let x = one_arg(name, args)?.to_f64()?;
        return Ok(Value::Float(float_math::apply(wrapper, g, x)?));
    }
    match f {
        Func::Abs => match args {
            [Value::Float(x)] => Ok(Value::Float(x.abs())),
            [Value::Complex(re, im)] => complex::abs((*re, *im)).map(Value::Float),
            [x] => match x {
                Value::Int(i) if *i < 0 => Ok(crate::formula::value::neg(x)),
                Value::Big(b) if b.is_negative() => Ok(crate::formula::value::neg(x)),
                _ => Ok(int_of(x)),
            },
            _ => Err(format!("abs() takes exactly one argument ({} given)", args.len()).into()),
        },
        Func::Min | Func::Max => {
            let word = if f == Func::Min { "min" } else { "max" };
            let (better, sym) = if f == Func::Min {
                (Ordering::Less, "<")
            } else {
                (Ordering::Greater, ">")
            };
            match args {
                [] => Err(format!("{word} expected at least 1 argument, got 0").into()),
                [x] => Err(format!("'{}' object is not iterable", x.type_name()).into()),
                [first, rest @ ..] => {
                    let mut best = first;
                    for item in rest {
                        if order(sym, item, best)? == Some(better) {
                            best = item;
                        }
                    }
                    Ok(best.clone())
                }
            }
        }
        Func::Round => match args {
            [] => Err("round() missing required argument 'number' (pos 1)".into()),
            [x] => round0(x),
            [x, n] => round_ndigits(x, n),
            _ => Err(format!("round() takes at most 2 arguments ({} given)", args.len()).into()),
        },
        Func::Int => match args {
            [] => Ok(Value::Int(0)),
            [Value::Float(x)] => Value::from_integral_float(x.trunc()),
            [Value::Complex(..)] => Err("int() argument must be a string, a bytes-like object or \
                                         a real number, not 'complex'"
                .into()),
            [x] => Ok(int_of(x)),
            [_, _] => Err("int() can't convert non-string with explicit base".into()),
            _ => Err(format!("int() takes at most 2 arguments ({} given)", args.len()).into()),
        },
        Func::Float => match args {
            [] => Ok(Value::Float(0.0)),
            [Value::Complex(..)] => {
                Err("float() argument must be a string or a real number, not 'complex'".into())
            }
            [x] => Ok(Value::Float(x.to_f64()?)),
            _ => Err(format!("float expected at most 1 argument, got {}", args.len()).into()),
        },
        Func::Ceil | Func::Floor | Func::Trunc => match one_arg(name, args)? {
            Value::Float(x) => Value::from_integral_float(match f {
                Func::Ceil => x.ceil(),
                Func::Floor => x.floor(),
                _ => x.trunc(),
            }),
            Value::Complex(..) if f == Func::Trunc => {
                Err("type complex doesn't define __trunc__ method".into())
            }
            Value::Complex(..) => Err(COMPLEX.into()),
            i => Ok(int_of(i)),
        },
        Func::Isfinite | Func::Isinf | Func::Isnan => {
            let x = one_arg(name, args)?.to_f64()?;
            Ok(Value::bool(match f {
                Func::Isfinite => x.is_finite(),
                Func::Isinf => x.is_infinite(),
                _ => x.is_nan(),
            }))
        }
        Func::Log2 => log_of(one_arg(name, args)?, float_math::log2).map(Value::Float),
        Func::Log10 => log_of(one_arg(name, args)?, float_math::log10).map(Value::Float),
        Func::Log => match args {
            [x] => log_of(x, float_math::log).map(Value::Float),
            [x, base] => {
                let num = log_of(x, float_math::log)?;
                let den = log_of(base, float_math::log)?;
                if den == 0.0 {
                    return Err("float division by zero".into());
                }
                Ok(Value::Float(num / den))
            }
            _ => Err("math.log requires 1 to 2 arguments".into()),
        },
        Func::Atan2
        | Func::Copysign
        | Func::Nextafter
        | Func::Fmod
        | Func::Remainder
        | Func::Pow => {
            let (x, y) = two_args(name, args)?;
            let (x, y) = (x.to_f64()?, y.to_f64()?);
            Ok(Value::Float(match f {
                Func::Atan2 => float_math::atan2(x, y)?,
                Func::Copysign => float_math::copysign(x, y)?,
                Func::Nextafter => float_math::nextafter(x, y),
                Func::Fmod => float_math::math_fmod(x, y)?,
                Func::Remainder => float_math::remainder(x, y)?,
                _ => float_math::math_pow(x, y)?,
            }))
        }
        Func::Ldexp => {
            let (x, i) = two_args(name, args)?;
            let x = x.to_f64()?;
            let e = match i.int_view() {
                Some(i) => i
                    .to_bigint()
                    .clamp(BigInt::from(i64::MIN), BigInt::from(i64::MAX))
                    .to_i64()
                    .unwrap_or(0),
                None => return Err("Expected an int as second argument to ldexp.".into()),
            };
            Ok(Value::Float(float_math::ldexp(x, e)?))
        }
        Func::Hypot => {
            let xs = args
                .iter()
                .map(|a| a.to_f64())
                .collect::<Result<Vec<f64>, PyErr>>()?;
            Ok(Value::Float(float_math::hypot(&xs)))
        }
        Func::Bool => int_math::bool(args),
        Func::Factorial => int_math::factorial(args),
        Func::Gcd => int_math::gcd(args),
        Func::Lcm => int_math::lcm(args),
        Func::Comb => int_math::comb(args),
        Func::Perm => int_math::perm(args),
        Func::Isqrt => int_math::isqrt(args),
        _ => Err(format!("{name}() is not callable").into()),
    }
}

/// An int or bool as a plain int (`int(True) == 1`).
fn int_of(x: &Value) -> Value {
    match x {
        Value::Bool(b) => Value::Int(i128::from(*b)),
        other => other.clone(),
    }
}

/// `round(x)`: half to even, an int.
fn round0(x: &Value) -> PyResult {
    match x {
        Value::Float(f) => Value::from_integral_float(f.round_ties_even()),
        Value::Complex(..) => Err("type complex doesn't define __round__ method".into()),
        i => Ok(int_of(i)),
    }
}

/// `round(x, n)`: Python rounds the exact binary value to `n` decimals, ties to even.
fn round_ndigits(x: &Value, n: &Value) -> PyResult {
    if matches!(x, Value::Complex(..)) {
        return Err("type complex doesn't define __round__ method".into());
    }
    let Some(n) = n.int_view() else {
        return Err(format!(
            "'{}' object cannot be interpreted as an integer",
            n.type_name()
        )
        .into());
    };
    let n = n
        .to_bigint()
        .clamp(BigInt::from(i128::MIN), BigInt::from(i128::MAX))
        .to_i128()
        .unwrap_or(0);
    match x {
        Value::Float(f) => Ok(Value::Float(round_float(*f, n))),
        _ => {
            let Some(i) = x.int_view() else {
                return Ok(x.clone());
            };
            if n >= 0 {
                return Ok(int_of(x));
            }
            round_int(&i.to_bigint(), n.unsigned_abs())
        }
    }
}

/// `round(i, -k)` for an int: the nearest multiple of 10^k, ties to even (`long_round`).
fn round_int(i: &BigInt, k: u128) -> PyResult {
    // |i| < 10^digits <= 10^k / 2 rounds to 0 without computing 10^k
    let digits = (i.bits() as f64 * std::f64::consts::LOG10_2).ceil() as u128 + 1;
    if k > digits {
        return Ok(Value::Int(0));
    }
    let pow = BigInt::from(10u8).pow(k as u32);
    let (q, r) = i.div_mod_floor(&pow);
    let twice: BigInt = &r << 1u8;
    let up = match twice.cmp(&pow) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => q.is_odd(),
    };
    let q = if up { q + 1 } else { q };
    Ok(Value::from_bigint(q * pow))
}

/// Python's `round(float, ndigits)`.
pub(crate) fn round_float(x: f64, n: i128) -> f64 {
    if !x.is_finite() || n > 323 {
        return x;
    }
    if n < -308 {
        return 0.0f64.copysign(x);
    }
    let r = if n >= 0 {
        format!("{:.*}", n as usize, x).parse::<f64>().unwrap_or(x)
    } else {
        let int_part = x.trunc();
        let frac = x != int_part;
        let digits = format!("{:.0}", int_part.abs());
        round_digits(&digits, (-n) as usize, frac)
            .parse::<f64>()
            .unwrap_or(x)
    };
    r.copysign(x)
}

/// Rounds the non-negative integer `digits` (+ a non-zero fraction if `frac`) to a multiple of
/// 10^k, ties to even; returns the decimal string of the result.
fn round_digits(digits: &str, k: usize, frac: bool) -> String {
    let len = digits.len();
    let (head, tail) = if len > k {
        (&digits[..len - k], &digits[len - k..])
    } else {
        ("0", digits)
    };
    let tail_padded = format!("{:0>width$}", tail, width = k);
    let half = format!("5{}", "0".repeat(k.saturating_sub(1)));
    let up = match tail_padded.as_str().cmp(half.as_str()) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => frac || head.bytes().last().is_some_and(|d| (d - b'0') % 2 == 1),
    };
    let mut head: Vec<u8> = head.bytes().collect();
    if up {
        let mut i = head.len();
        loop {
            if i == 0 {
                head.insert(0, b'1');
                break;
            }
            i -= 1;
            if head[i] == b'9' {
                head[i] = b'0';
            } else {
                head[i] += 1;
                break;
            }
        }
    }
    let head = String::from_utf8(head).unwrap_or_default();
    if head.bytes().all(|b| b == b'0') {
        "0".to_string()
    } else {
        format!("{head}{}", "0".repeat(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const RANGE: &str = "math range error";
    use Value::{Float as F, Int as I};

    #[test]
    fn rounding_like_python() {
        assert_eq!(call(Func::Round, &[F(2.5)]), Ok(I(2)));
        assert_eq!(call(Func::Round, &[F(3.5)]), Ok(I(4)));
        assert_eq!(call(Func::Round, &[F(2.675), I(2)]), Ok(F(2.67)));
        assert_eq!(call(Func::Round, &[F(0.125), I(2)]), Ok(F(0.12)));
        assert_eq!(call(Func::Round, &[F(1250.0), I(-2)]), Ok(F(1200.0)));
        assert_eq!(call(Func::Round, &[F(1350.0), I(-2)]), Ok(F(1400.0)));
        assert_eq!(call(Func::Round, &[F(1250.5), I(-2)]), Ok(F(1300.0)));
        assert_eq!(call(Func::Round, &[I(15), I(-1)]), Ok(I(20)));
        assert_eq!(call(Func::Round, &[I(25), I(-1)]), Ok(I(20)));
        assert_eq!(call(Func::Round, &[I(-25), I(-1)]), Ok(I(-20)));
        assert_eq!(call(Func::Round, &[I(95), I(-1)]), Ok(I(100)));
        assert_eq!(call(Func::Round, &[F(-0.4)]), Ok(I(0)));
        assert_eq!(
            call(Func::Round, &[F(1.5), F(1.0)]),
            Err("'float' object cannot be interpreted as an integer".into())
        );
    }

    #[test]
    fn math_errors() {
        assert_eq!(call(Func::Sqrt, &[I(-1)]), Err(DOMAIN.into()));
        assert_eq!(call(Func::Exp, &[I(1000)]), Err(RANGE.into()));
        assert_eq!(call(Func::Log, &[I(0)]), Err(DOMAIN.into()));
        assert_eq!(call(Func::Pow, &[I(0), I(-1)]), Err(DOMAIN.into()));
        assert_eq!(call(Func::Pow, &[I(10), I(400)]), Err(RANGE.into()));
        assert_eq!(
            call(Func::Pow, &[I(2), F(-0.125312 / 0.2)])
                .map(|v| (v.to_f64().unwrap_or(0.0) * 1e6).round()),
            Ok(647719.0)
        );
        assert_eq!(
            call(Func::Sqrt, &[I(1), I(2)]),
            Err("math.sqrt() takes exactly one argument (2 given)".into())
        );
        assert_eq!(
            call(Func::Floor, &[F(f64::INFINITY)]),
            Err("cannot convert float infinity to integer".into())
        );
        assert_eq!(call(Func::Hypot, &[]), Ok(F(0.0)));
        assert_eq!(call(Func::Max, &[I(1), F(1.0)]), Ok(I(1)));
        assert_eq!(call(Func::Max, &[I(1), F(2.0)]), Ok(F(2.0)));
    }
}
