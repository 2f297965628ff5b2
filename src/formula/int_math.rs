//! The math module's integer functions (`factorial gcd lcm comb perm isqrt`) with exact
//! unbounded results and Python 3.11's messages, and the builtin `bool`. Results beyond
//! [`MAX_INT_BITS`] are refused before they are computed (an estimate of their size with a
//! margin), then checked exactly.

use crate::formula::bigint::{check_bits, log2_factorial, too_big};
use crate::formula::limits::MAX_INT_BITS;
use crate::formula::value::{PyErr, PyResult, Value};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// `PyNumber_Index`: ints and bools only.
fn index(v: &Value) -> Result<BigInt, PyErr> {
    v.int_view().map(|x| x.to_bigint()).ok_or_else(|| {
        format!(
            "'{}' object cannot be interpreted as an integer",
            v.type_name()
        )
        .into()
    })
}

fn exactly_one<'a>(name: &str, args: &'a [Value]) -> Result<&'a Value, PyErr> {
    match args {
        [x] => Ok(x),
        _ => Err(format!(
            "math.{name}() takes exactly one argument ({} given)",
            args.len()
        )
        .into()),
    }
}

const LLONG_MAX: i64 = i64::MAX;

/// The estimated size limit: a result whose estimated size is beyond it is refused unseen.
fn refuse_estimate(bits: f64) -> Result<(), PyErr> {
    if bits > MAX_INT_BITS as f64 + 64.0 {
        Err(too_big())
    } else {
        Ok(())
    }
}

/// `n * (n-1) * ... * (n-k+1)` (the terms `n - i` for `i` in `lo..hi`), by binary splitting.
fn falling(n: &BigInt, lo: u64, hi: u64) -> BigInt {
    if hi <= lo {
        return BigInt::one();
    }
    if hi - lo <= 8 {
        return (lo..hi).fold(BigInt::one(), |acc, i| acc * (n - i));
    }
    let mid = lo + (hi - lo) / 2;
    falling(n, lo, mid) * falling(n, mid, hi)
}

/// `log2` of the falling product of `k` terms from `n`, for `n <= 2^50`.
fn log2_falling(n: f64, k: f64) -> f64 {
    if k <= 64.0 {
        (0..k as u64).map(|i| (n - i as f64).log2()).sum()
    } else {
        log2_factorial(n) - log2_factorial(n - k)
    }
}

/// `math.factorial(n)`.
pub fn factorial(args: &[Value]) -> PyResult {
    let n = index(exactly_one("factorial", args)?)?;
    if n.is_negative() {
        return Err("factorial() not defined for negative values".into());
    }
    let Some(n) = n.to_u64().filter(|&n| n <= LLONG_MAX as u64) else {
        return Err(format!("factorial() argument should not exceed {LLONG_MAX}").into());
    };
    refuse_estimate(log2_factorial(n as f64))?;
    Value::checked_bigint(falling(&BigInt::from(n), 0, n))
}

/// `math.gcd(*integers)`.
pub fn gcd(args: &[Value]) -> PyResult {
    let mut res = BigInt::zero();
    for a in args {
        res = res.gcd(&index(a)?);
    }
    Ok(Value::from_bigint(res))
}

/// `math.lcm(*integers)`.
pub fn lcm(args: &[Value]) -> PyResult {
    let mut res = BigInt::one();
    for a in args {
        let x = index(a)?.abs();
        if res.is_zero() || x.is_zero() {
            res = BigInt::zero();
            continue;
        }
        let q = &res / res.gcd(&x);
        check_bits((q.bits() + x.bits()).saturating_sub(1))?;
        res = q * x;
        check_bits(res.bits())?;
    }
    Ok(Value::from_bigint(res))
}

fn non_negative(n: &BigInt, k: &BigInt) -> Result<(), PyErr> {
    if n.is_negative() {
        return Err("n must be a non-negative integer".into());
    }
    if k.is_negative() {
        return Err("k must be a non-negative integer".into());
    }
    Ok(())
}

/// `math.comb(n, k)`.
pub fn comb(args: &[Value]) -> PyResult {
    let [n, k] = args else {
        return Err(format!("comb expected 2 arguments, got {}", args.len()).into());
    };
    let (n, k) = (index(n)?, index(k)?);
    non_negative(&n, &k)?;
    if k > n {
        return Ok(Value::Int(0));
    }
    let k = k.clone().min(&n - &k);
    let Some(k) = k.to_u64().filter(|&k| k <= LLONG_MAX as u64) else {
        return Err(format!("min(n - k, k) must not exceed {LLONG_MAX}").into());
    };
    if k == 0 {
        return Ok(Value::Int(1));
    }
    if k == 1 {
        return Ok(Value::from_bigint(n));
    }
    // k <= n/2, so comb(n, k) >= 2^k and >= (n/k)^k
    if k > MAX_INT_BITS {
        return Err(too_big());
    }
    let lower = k as f64 * ((n.bits() - 1) as f64 - (k as f64).log2());
    refuse_estimate(lower)?;
    if let Some(nf) = n.to_u64().filter(|&v| v <= 1 << 50) {
        let (nf, kf) = (nf as f64, k as f64);
        refuse_estimate(log2_falling(nf, kf) - log2_factorial(kf))?;
    }
    let num = falling(&n, 0, k);
    let den = falling(&BigInt::from(k), 0, k);
    Value::checked_bigint(num / den)
}

/// `math.perm(n, k=None)`.
pub fn perm(args: &[Value]) -> PyResult {
    let (n, k) = match args {
        [] => return Err("perm expected at least 1 argument, got 0".into()),
        [_] => return factorial(args),
        [n, k] => (index(n)?, index(k)?),
        _ => return Err(format!("perm expected at most 2 arguments, got {}", args.len()).into()),
    };
    non_negative(&n, &k)?;
    if k > n {
        return Ok(Value::Int(0));
    }
    let Some(k) = k.to_u64().filter(|&k| k <= LLONG_MAX as u64) else {
        return Err(format!("k must not exceed {LLONG_MAX}").into());
    };
    if k == 0 {
        return Ok(Value::Int(1));
    }
    // the top half of the k factors are >= n/2
    let lower = (k / 2) as f64 * (n.bits().saturating_sub(2)) as f64;
    refuse_estimate(lower)?;
    if let Some(nf) = n.to_u64().filter(|&v| v <= 1 << 50) {
        refuse_estimate(log2_falling(nf as f64, k as f64))?;
    } else if k > 2 * MAX_INT_BITS {
        return Err(too_big());
    }
    Value::checked_bigint(falling(&n, 0, k))
}

/// `math.isqrt(n)`.
pub fn isqrt(args: &[Value]) -> PyResult {
    let n = index(exactly_one("isqrt", args)?)?;
    if n.is_negative() {
        return Err("isqrt() argument must be nonnegative".into());
    }
    Ok(Value::from_bigint(n.sqrt()))
}

/// The builtin `bool(x)`.
pub fn bool(args: &[Value]) -> PyResult {
    match args {
        [] => Ok(Value::Bool(false)),
        [x] => Ok(Value::Bool(x.truthy())),
        _ => Err(format!("bool expected at most 1 argument, got {}", args.len()).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Value::{Float as F, Int as I};

    fn big(s: &str) -> Value {
        Value::from_bigint(s.parse().unwrap_or_default())
    }

    #[test]
    fn exact_results() {
        assert_eq!(factorial(&[I(20)]), Ok(I(2_432_902_008_176_640_000)));
        assert_eq!(factorial(&[Value::Bool(true)]), Ok(I(1)));
        assert_eq!(
            factorial(&[I(30)]),
            Ok(big("265252859812191058636308480000000"))
        );
        assert_eq!(gcd(&[]), Ok(I(0)));
        assert_eq!(gcd(&[I(-4)]), Ok(I(4)));
        assert_eq!(gcd(&[I(12), I(18), I(10)]), Ok(I(2)));
        assert_eq!(lcm(&[]), Ok(I(1)));
        assert_eq!(lcm(&[I(-4), I(6)]), Ok(I(12)));
        assert_eq!(lcm(&[I(0), I(5)]), Ok(I(0)));
        assert_eq!(comb(&[I(5), I(2)]), Ok(I(10)));
        assert_eq!(comb(&[I(2), I(5)]), Ok(I(0)));
        assert_eq!(
            comb(&[big("100000000000000000000"), I(1)]),
            Ok(big("100000000000000000000"))
        );
        assert_eq!(
            comb(&[I(100), I(50)]),
            Ok(big("100891344545564193334812497256"))
        );
        assert_eq!(perm(&[I(5)]), Ok(I(120)));
        assert_eq!(perm(&[I(5), I(2)]), Ok(I(20)));
        assert_eq!(perm(&[I(5), I(7)]), Ok(I(0)));
        assert_eq!(
            isqrt(&[big("100000000000000000000000000000000000000005")]),
            Ok(big("316227766016837933199"))
        );
        assert_eq!(bool(&[F(f64::NAN)]), Ok(Value::Bool(true)));
        assert_eq!(bool(&[]), Ok(Value::Bool(false)));
    }

    #[test]
    fn python_messages() {
        let err = |r: PyResult| r.err().map(|e| e.into_owned()).unwrap_or_default();
        assert_eq!(
            err(factorial(&[F(5.0)])),
            "'float' object cannot be interpreted as an integer"
        );
        assert_eq!(
            err(factorial(&[Value::Complex(0.0, 1.0)])),
            "'complex' object cannot be interpreted as an integer"
        );
        assert_eq!(
            err(factorial(&[I(-1)])),
            "factorial() not defined for negative values"
        );
        assert_eq!(
            err(factorial(&[big("100000000000000000000")])),
            "factorial() argument should not exceed 9223372036854775807"
        );
        assert_eq!(
            err(factorial(&[])),
            "math.factorial() takes exactly one argument (0 given)"
        );
        assert_eq!(err(comb(&[I(5)])), "comb expected 2 arguments, got 1");
        assert_eq!(
            err(comb(&[I(-1), I(2)])),
            "n must be a non-negative integer"
        );
        assert_eq!(
            err(comb(&[I(5), I(-2)])),
            "k must be a non-negative integer"
        );
        assert_eq!(
            err(comb(&[
                big("100000000000000000000"),
                big("10000000000000000000")
            ])),
            "min(n - k, k) must not exceed 9223372036854775807"
        );
        assert_eq!(err(perm(&[])), "perm expected at least 1 argument, got 0");
        assert_eq!(
            err(perm(&[I(1), I(2), I(3)])),
            "perm expected at most 2 arguments, got 3"
        );
        assert_eq!(
            err(perm(&[I(-5)])),
            "factorial() not defined for negative values"
        );
        assert_eq!(
            err(perm(&[
                big("100000000000000000000"),
                big("10000000000000000000")
            ])),
            "k must not exceed 9223372036854775807"
        );
        assert_eq!(err(isqrt(&[I(-1)])), "isqrt() argument must be nonnegative");
        assert_eq!(
            err(bool(&[I(2), I(3)])),
            "bool expected at most 1 argument, got 2"
        );
    }

    #[test]
    fn sizes_are_limited_before_computing() {
        let limited = |r: PyResult| r.is_err_and(|e| e.contains("fairsort's limit"));
        assert!(factorial(&[I(10_000)]).is_ok());
        assert!(limited(factorial(&[I(1_000_000_000_000)])));
        assert!(limited(comb(&[I(1 << 40), I(1 << 30)])));
        assert!(limited(comb(&[I(1_000_000), I(500_000)])));
        assert!(limited(perm(&[I(1 << 62), I(1 << 40)])));
        assert!(limited(perm(&[
            big("1000000000000000000000000000000"),
            I(100_000)
        ])));
        assert!(comb(&[I(1 << 40), I(100)]).is_ok());
        let huge = BigInt::from(1) << 100_000u32;
        let b = BigInt::from(3).pow(30_000u32);
        let (a, b) = (Value::from_bigint(huge), Value::from_bigint(b));
        assert!(limited(lcm(&[a, b])));
    }
}
