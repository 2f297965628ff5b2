//! Python's unbounded `int` beyond `i128`: conversions to float rounded as CPython rounds them
//! (`PyLong_AsDouble`, true division, `_PyLong_Frexp`), and the size limit that keeps a formula
//! like `10**10**10` from hanging or allocating gigabytes.

use crate::formula::limits::MAX_INT_BITS;
use crate::formula::py_err::PyErr;
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};

/// CPython's message when an int does not fit a double.
pub const INT_TOO_LARGE: &str = "int too large to convert to float";

/// The error of an int result beyond [`MAX_INT_BITS`] (Python would compute it, slowly; PBS's
/// scheduler would stall on it).
pub fn too_big() -> PyErr {
    format!(
        "integer result beyond fairsort's limit of {MAX_INT_BITS} bits (about {} decimal digits)",
        (MAX_INT_BITS as f64 * std::f64::consts::LOG10_2) as u64
    )
    .into()
}

thread_local! {
    /// The bits of every big-int result this thread made (see [`big_int_bits_made`]).
    static MADE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts a big-int result of `bits` bits in [`big_int_bits_made`].
pub(crate) fn made(bits: u64) {
    MADE.with(|a| a.set(a.get().saturating_add(bits)));
}

/// `Err` when `bits` is beyond the limit. A size within it is a result about to be made, and
/// is counted in [`big_int_bits_made`].
pub fn check_bits(bits: u64) -> Result<(), PyErr> {
    if bits > MAX_INT_BITS {
        Err(too_big())
    } else {
        made(bits);
        Ok(())
    }
}

/// How many bits of big-int results this thread's evaluations have made or admitted so far
/// (a result refused only after it was computed counts too): a bound on the big-int work they
/// did, which the size limit keeps small and tests check by count rather than by time.
pub fn big_int_bits_made() -> u64 {
    MADE.with(|a| a.get())
}

/// 2^n as an f64, for `-1074 <= n <= 1023` (exact, subnormals included).
fn pow2(n: i64) -> f64 {
    if n >= -1022 {
        f64::from_bits(((n + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (n + 1074).clamp(0, 51))
    }
}

/// `a / b` correctly rounded (half to even, subnormals included), as CPython's int true
/// division; `None` when the quotient overflows a double. `b` must not be zero.
pub fn ratio_to_f64(a: &BigUint, b: &BigUint) -> Option<f64> {
    if a.is_zero() {
        return Some(0.0);
    }
    let e = a.bits() as i64 - b.bits() as i64; // 2^(e-1) < a/b < 2^(e+1)
    if e > 1025 {
        return None;
    }
    if e < -1080 {
        return Some(0.0);
    }
    // q = floor(a / (b * 2^s)) with at least 55 bits (or the subnormal grid's 2 extra bits)
    let s = (e - 56).max(-1076);
    let (num, den) = if s >= 0 {
        (a.clone(), b << (s as u64))
    } else {
        (a << ((-s) as u64), b.clone())
    };
    let (q, r) = num.div_rem(&den);
    let sticky = !r.is_zero();
    let q = q.to_u64()?; // below 2^58
    let qb = 64 - i64::from(q.leading_zeros());
    let ulp = (qb - 1 + s - 52).max(-1074);
    let drop = (ulp - s) as u32; // 2..=5
    let m = q >> drop;
    let rem = q & ((1u64 << drop) - 1);
    let half = 1u64 << (drop - 1);
    let up = rem > half || (rem == half && (sticky || m & 1 == 1));
    let m = m + u64::from(up); // <= 2^53: exact in an f64
    let x = (m as f64) * pow2(ulp); // ulp <= 973: 2^ulp is representable
    x.is_finite().then_some(x)
}

/// `float(n)`: correctly rounded, or `None` when it overflows (CPython's `PyLong_AsDouble`).
pub fn to_f64(n: &BigInt) -> Option<f64> {
    let x = ratio_to_f64(n.magnitude(), &BigUint::from(1u8))?;
    Some(if n.sign() == Sign::Minus { -x } else { x })
}

/// CPython's `_PyLong_Frexp` for a positive int: `(x, e)` with `0.5 <= x < 1` rounded to 53
/// bits (half to even) and `n ≈ x * 2^e`.
pub fn frexp(n: &BigUint) -> (f64, i64) {
    let bits = n.bits();
    let x = ratio_to_f64(n, &(BigUint::from(1u8) << bits)).unwrap_or(1.0);
    if x >= 1.0 {
        (0.5, bits as i64 + 1)
    } else {
        (x, bits as i64)
    }
}

/// An exact f64 integer (finite, integral) as a BigInt.
pub fn from_integral_f64(x: f64) -> BigInt {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (mant, shift) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    let m = BigInt::from(mant);
    let v = if shift >= 0 {
        m << (shift as u64)
    } else {
        m >> ((-shift) as u64)
    };
    if x < 0.0 {
        -v
    } else {
        v
    }
}

/// `log2(n!)`, approximately (Stirling; exact enough to decide the size limit with a margin).
pub fn log2_factorial(n: f64) -> f64 {
    if n < 2.0 {
        return 0.0;
    }
    let ln = (n + 0.5) * n.ln() - n + 0.5 * (2.0 * std::f64::consts::PI).ln() + 1.0 / (12.0 * n);
    ln / std::f64::consts::LN_2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(s: &str) -> BigInt {
        s.parse().unwrap_or_default()
    }

    #[test]
    fn conversions_round_like_cpython() {
        assert_eq!(to_f64(&big("9007199254740993")), Some(9007199254740992.0));
        assert_eq!(to_f64(&big("9007199254740995")), Some(9007199254740996.0));
        assert_eq!(to_f64(&(BigInt::from(1) << 1024u32)), None);
        let max = from_integral_f64(f64::MAX);
        assert_eq!(to_f64(&max), Some(f64::MAX));
        // just below the rounding boundary to 2^1024
        let edge = (BigInt::from(1) << 1024u32) - (BigInt::from(1) << 970u32);
        assert_eq!(to_f64(&(edge.clone() - 1)), Some(f64::MAX));
        assert_eq!(to_f64(&edge), None);
        assert_eq!(
            to_f64(&big("-12345678901234567890123")),
            Some(-1.2345678901234568e22)
        );
    }

    #[test]
    fn ratios_and_frexp() {
        let ten = |k: u32| BigUint::from(10u8).pow(k);
        assert_eq!(ratio_to_f64(&ten(400), &ten(399)), Some(10.0));
        assert_eq!(ratio_to_f64(&ten(1), &ten(400)), Some(0.0));
        assert_eq!(ratio_to_f64(&BigUint::from(1u8), &ten(320)), Some(1e-320));
        assert_eq!(ratio_to_f64(&ten(400), &BigUint::from(3u8)), None);
        assert_eq!(
            ratio_to_f64(&BigUint::from(1u8), &BigUint::from(3u8)),
            Some(1.0 / 3.0)
        );
        let (x, e) = frexp(&ten(400));
        assert!((0.5..1.0).contains(&x));
        assert_eq!(x.log10() + 2f64.log10() * e as f64, 400.0);
        assert_eq!(frexp(&(BigUint::from(1u8) << 2000u32)), (0.5, 2001));
    }

    #[test]
    fn factorial_size_estimate() {
        // 1000! has 8530 bits
        assert!((log2_factorial(1000.0) - 8529.4).abs() < 1.0);
    }
}
