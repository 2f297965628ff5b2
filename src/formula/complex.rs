//! Python's `complex` arithmetic as CPython 3 computes it (`Objects/complexobject.c`): a
//! formula meets a complex number when a negative number is raised to a fractional power
//! (`(-1)**0.5`), and Python carries it on without raising.

use crate::formula::py_err::PyErr;

/// A complex number `(re, im)`.
pub type C = (f64, f64);

/// `a + b`
pub fn add(a: C, b: C) -> C {
    (a.0 + b.0, a.1 + b.1)
}

/// `a - b`
pub fn sub(a: C, b: C) -> C {
    (a.0 - b.0, a.1 - b.1)
}

/// `a * b` (`_Py_c_prod`)
pub fn mul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// `a / b` (`_Py_c_quot`, Smith's method); `None` for a zero divisor (CPython's `EDOM`).
pub fn quot(a: C, b: C) -> Option<C> {
    let (abs_br, abs_bi) = (b.0.abs(), b.1.abs());
    if abs_br >= abs_bi {
        if abs_br == 0.0 {
            return None;
        }
        let ratio = b.1 / b.0;
        let denom = b.0 + b.1 * ratio;
        Some(((a.0 + a.1 * ratio) / denom, (a.1 - a.0 * ratio) / denom))
    } else if abs_bi >= abs_br {
        let ratio = b.0 / b.1;
        let denom = b.0 * ratio + b.1;
        Some(((a.0 * ratio + a.1) / denom, (a.1 * ratio - a.0) / denom))
    } else {
        Some((f64::NAN, f64::NAN))
    }
}

/// `a / b` with Python's error.
pub fn div(a: C, b: C) -> Result<C, PyErr> {
    quot(a, b).ok_or_else(|| "complex division by zero".into())
}

/// `x ** n` for `n >= 0` by squaring (`c_powu`).
fn powu(x: C, n: i64) -> C {
    let mut r = (1.0, 0.0);
    let mut p = x;
    let mut mask: i64 = 1;
    while mask > 0 && n >= mask {
        if n & mask != 0 {
            r = mul(r, p);
        }
        mask <<= 1;
        p = mul(p, p);
    }
    r
}

/// What `errno` CPython's complex power ends with.
#[derive(PartialEq)]
enum Errno {
    Ok,
    Dom,
}

/// `_Py_c_pow`.
fn c_pow(a: C, b: C) -> (C, Errno) {
    if b.0 == 0.0 && b.1 == 0.0 {
        return ((1.0, 0.0), Errno::Ok);
    }
    if a.0 == 0.0 && a.1 == 0.0 {
        let e = if b.1 != 0.0 || b.0 < 0.0 {
            Errno::Dom
        } else {
            Errno::Ok
        };
        return ((0.0, 0.0), e);
    }
    let vabs = a.0.hypot(a.1);
    let mut len = vabs.powf(b.0);
    let at = a.1.atan2(a.0);
    let mut phase = at * b.0;
    if b.1 != 0.0 {
        len /= (at * b.1).exp();
        phase += b.1 * vabs.ln();
    }
    // libm's cos and sin of an infinity set EDOM
    let e = if phase.is_infinite() {
        Errno::Dom
    } else {
        Errno::Ok
    };
    ((len * phase.cos(), len * phase.sin()), e)
}

/// `a ** b` (`complex_pow`): small integral exponents by repeated squaring, the rest by polar
/// form; Python's errors.
pub fn pow(a: C, b: C) -> Result<C, PyErr> {
    let (p, e) = if b.1 == 0.0 && b.0 == b.0.floor() && b.0.abs() <= 100.0 {
        let n = b.0 as i64;
        if n > 0 {
            (powu(a, n), Errno::Ok)
        } else {
            match quot((1.0, 0.0), powu(a, -n)) {
                Some(p) => (p, Errno::Ok),
                None => ((0.0, 0.0), Errno::Dom),
            }
        }
    } else {
        c_pow(a, b)
    };
    if e == Errno::Dom {
        return Err("0.0 to a negative or complex power".into());
    }
    if p.0.is_infinite() || p.1.is_infinite() {
        return Err("complex exponentiation".into());
    }
    Ok(p)
}

/// `abs(z)` (`complex_abs`).
pub fn abs(z: C) -> Result<f64, PyErr> {
    if !z.0.is_finite() || !z.1.is_finite() {
        if z.0.is_infinite() || z.1.is_infinite() {
            return Ok(f64::INFINITY);
        }
        return Ok(f64::NAN);
    }
    let r = z.0.hypot(z.1);
    if r.is_infinite() {
        return Err("absolute value too large".into());
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_cpython() {
        assert_eq!(
            pow((-1.0, 0.0), (0.5, 0.0)),
            Ok((6.123233995736766e-17, 1.0))
        );
        assert_eq!(pow((0.0, 1.0), (-2.0, 0.0)), Ok((-1.0, -0.0)));
        assert_eq!(
            pow((1.0, 1.0), (100.0, 0.0)),
            Ok((-1125899906842624.0, 0.0))
        );
        assert_eq!(
            pow((0.0, 0.0), (-1.0, 0.0)),
            Err("0.0 to a negative or complex power".into())
        );
        assert_eq!(
            pow((1e200, 1.0), (2.0, 0.0)),
            Err("complex exponentiation".into())
        );
        assert_eq!(div((1.0, 2.0), (3.0, 4.0)), Ok((0.44, 0.08)));
        assert_eq!(
            div((1.0, 2.0), (0.0, 0.0)),
            Err("complex division by zero".into())
        );
        assert_eq!(abs((3.0, 4.0)), Ok(5.0));
        assert_eq!(abs((f64::NAN, f64::INFINITY)), Ok(f64::INFINITY));
        assert_eq!(mul((1e300, 1e300), (1e300, 1e300)).1, f64::INFINITY);
    }
}
