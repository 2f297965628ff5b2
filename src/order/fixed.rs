//! Fixed-precision decimal text of an `f64` (what `format!("{v:.p$}")` writes), byte for byte
//! the same as core's formatter but without its general big-number path: `order` prints a
//! million values with 4 decimals, and core's exact mode (Grisu with a Dragon fallback) was ~5 %
//! of a 1M-job `order`. The binary value is scaled by 10^p in exact integer
//! arithmetic and rounded half to even, as core rounds; whatever does not fit (NaN, infinities,
//! precisions above [`MAX_FAST_PRECISION`], values of 2^128 / 10^p and above) goes to core.

use std::fmt::Write;

/// The largest precision the integer path handles (5^p · 2^53 stays far inside a `u128`).
pub const MAX_FAST_PRECISION: usize = 9;

/// 5^p for p = 0..=MAX_FAST_PRECISION.
const POW5: [u128; MAX_FAST_PRECISION + 1] =
    [1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125];

/// 10^p for p = 0..=MAX_FAST_PRECISION.
const POW10: [u128; MAX_FAST_PRECISION + 1] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// Appends `v` with `precision` decimals to `out`, exactly as `write!(out, "{v:.precision$}")`.
pub fn push_fixed(out: &mut String, v: f64, precision: usize) {
    match scaled(v, precision) {
        Some(n) => push_scaled(out, v.is_sign_negative(), n, precision),
        None => {
            let _ = write!(out, "{v:.precision$}");
        }
    }
}

/// `v` · 10^precision rounded to an integer (half to even), from the exact binary value; `None`
/// when the fast path does not apply.
pub(crate) fn scaled(v: f64, precision: usize) -> Option<u128> {
    let five = *POW5.get(precision)?;
    let bits = v.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, e) = match exponent {
        0x7ff => return None, // NaN and the infinities
        0 => (fraction, -1074),
        _ => (fraction | 1 << 52, exponent - 1075),
    };
    // |v| · 10^p = mantissa · 5^p · 2^(e + p), with mantissa · 5^p < 2^53 · 2^21.
    let m = mantissa as u128 * five;
    let shift = e + precision as i32;
    if shift >= 0 {
        let shift = shift as u32;
        // Every bit must survive the shift.
        return (m == 0 || shift < m.leading_zeros()).then(|| m << shift);
    }
    let k = shift.unsigned_abs();
    if k >= 127 {
        return Some(0); // below 2^-53: far under one half
    }
    let whole = m >> k;
    let rest = m & ((1u128 << k) - 1);
    let half = 1u128 << (k - 1);
    let up = rest > half || (rest == half && whole & 1 == 1);
    Some(whole + u128::from(up))
}

/// Writes the scaled integer `n` as `[-]int.frac` with `precision` decimals.
fn push_scaled(out: &mut String, negative: bool, n: u128, precision: usize) {
    let ten = POW10.get(precision).copied().unwrap_or(1);
    let (int, frac) = (n / ten, n % ten);
    if negative {
        out.push('-');
    }
    push_u128(out, int);
    if precision > 0 {
        out.push('.');
        let mut digits = [b'0'; MAX_FAST_PRECISION];
        let mut f = frac;
        for d in digits.iter_mut().take(precision).rev() {
            *d = b'0' + (f % 10) as u8;
            f /= 10;
        }
        for &d in digits.iter().take(precision) {
            out.push(d as char);
        }
    }
}

/// Appends an unsigned integer in decimal (as `write!(out, "{n}")`, without the formatter).
pub fn push_integer(out: &mut String, n: u64) {
    push_u128(out, u128::from(n));
}

/// Appends an unsigned integer in decimal.
fn push_u128(out: &mut String, n: u128) {
    if let Ok(small) = u64::try_from(n) {
        let mut buf = [0u8; 20];
        for &d in crate::digits::decimal(small, &mut buf) {
            out.push(d as char);
        }
    } else {
        let _ = write!(out, "{n}");
    }
}

/// Random values for the formatting tests (here and in `explain`): one fixed stream of
/// every kind of `f64` a table shows.
#[cfg(test)]
pub(crate) mod test_values {
    /// xorshift64*: a fixed stream of pseudo-random bits.
    fn stream(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    /// `n` values, each with the random word it was made from (for the tests' other choices).
    pub(crate) fn values(n: u32) -> impl Iterator<Item = (f64, u64)> {
        let mut next = stream(0x9e37_79b9_7f4a_7c15);
        (0..n).map(move |i| {
            let r = next();
            let v = match i % 4 {
                // any bit pattern: subnormals, huge, NaN payloads
                0 => f64::from_bits(r),
                // values as formulas give them: moderate magnitudes
                1 => (r >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((r % 31) as i32 - 12),
                // near a rounding boundary: k / 10^4 give or take an ulp or two
                2 => {
                    let k = (r >> 20) as f64 / 1e4;
                    f64::from_bits(k.to_bits().wrapping_add((r & 7).wrapping_sub(3)))
                }
                // exact ties: odd / 2^j
                _ => ((r >> 40) | 1) as f64 / 2f64.powi((r % 60) as i32),
            };
            (if r & (1 << 5) != 0 { -v } else { v }, r)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fast(v: f64, p: usize) -> String {
        let mut s = String::from("x"); // appends after what is there
        push_fixed(&mut s, v, p);
        s.split_off(1)
    }

    fn check(v: f64, p: usize) {
        assert_eq!(
            fast(v, p),
            format!("{v:.p$}"),
            "{v:e} ({:#x}) .{p}",
            v.to_bits()
        );
    }

    #[test]
    fn edge_values_are_core_s_text() {
        let mut values = vec![
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            0.5,
            1.5,
            2.5,
            0.03125,
            0.09375,
            -0.03125,
            0.00005,
            0.000049999999,
            0.99995,
            9.99995,
            -0.00001,
            60.381553,
            123456789.00005,
            1e15,
            1e15 + 0.5,
            9007199254740993.0,
            1e20,
            1e25,
            3.4e34,
            3.5e34,
            1e35,
            1e300,
            2f64.powi(64),
            2f64.powi(100),
            2f64.powi(127),
            2f64.powi(128),
        ];
        // Ties at every precision: odd multiples of 2^-j around the rounding digit.
        for j in 1..40 {
            for odd in [1.0, 3.0, 5.0, 7.0, 11.0, 12345.0, 99999.0] {
                values.push(odd / 2f64.powi(j));
                values.push(-odd / 2f64.powi(j));
            }
        }
        for &v in &values {
            for p in 0..=12 {
                check(v, p);
            }
        }
    }

    #[test]
    fn a_million_random_values_are_core_s_text() {
        for (v, r) in test_values::values(1_000_000) {
            check(v, (r % 11) as usize);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn any_bits_any_precision(bits in any::<u64>(), p in 0usize..14) {
            let v = f64::from_bits(bits);
            prop_assert_eq!(fast(v, p), format!("{v:.p$}"));
        }

        #[test]
        fn ordinary_values(x in -1e12f64..1e12, p in 0usize..=MAX_FAST_PRECISION) {
            prop_assert_eq!(fast(x, p), format!("{x:.p$}"));
        }
    }
}
