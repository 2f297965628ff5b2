//! Python's `repr` of numbers: floats as `float_repr` prints them (shortest round-trip digits,
//! exponent form below 1e-4 and from 1e16 on: `1e+16`, `1e-05`, `0.0001`, `3.0`), complex
//! numbers as `complex_repr` does (`(6.123233995736766e-17+1j)`, `1j`, `(-0-1j)`).

/// Python's `repr(x)` of a float.
pub fn float(x: f64) -> String {
    fmt_r(x, true, false)
}

/// Python's `repr(z)` of a complex number.
pub fn complex(re: f64, im: f64) -> String {
    if re == 0.0 && re.is_sign_positive() {
        format!("{}j", fmt_r(im, false, false))
    } else {
        format!("({}{}j)", fmt_r(re, false, false), fmt_r(im, false, true))
    }
}

/// CPython's `PyOS_double_to_string(x, 'r', 0, flags)`: `dot0` adds `.0` to an integral value
/// in fixed notation (`Py_DTSF_ADD_DOT_0`), `sign` always writes the sign (`Py_DTSF_SIGN`).
fn fmt_r(x: f64, dot0: bool, sign: bool) -> String {
    let lead = if x.is_sign_negative() && !x.is_nan() {
        "-"
    } else if sign {
        "+"
    } else {
        ""
    };
    if x.is_nan() {
        return format!("{lead}nan");
    }
    if x.is_infinite() {
        return format!("{lead}inf");
    }
    // shortest round-trip digits and the exponent of the first digit
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let n = digits.len() as i32;
    let decpt = exp + 1; // x = 0.DIGITS * 10^decpt
    let body = if x == 0.0 {
        if dot0 {
            "0.0".to_string()
        } else {
            "0".to_string()
        }
    } else if -4 < decpt && decpt <= 16 {
        if decpt <= 0 {
            format!("0.{}{digits}", "0".repeat((-decpt) as usize))
        } else if decpt >= n {
            let zeros = "0".repeat((decpt - n) as usize);
            if dot0 {
                format!("{digits}{zeros}.0")
            } else {
                format!("{digits}{zeros}")
            }
        } else {
            let (a, b) = digits.split_at(decpt as usize);
            format!("{a}.{b}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let e = decpt - 1;
        let esign = if e < 0 { '-' } else { '+' };
        format!("{first}{frac}e{esign}{:02}", e.abs())
    };
    format!("{lead}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_python() {
        for (x, want) in [
            (3.0, "3.0"),
            (0.1, "0.1"),
            (-0.0, "-0.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (6.123233995736766e-17, "6.123233995736766e-17"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
            (0.6477190137338473, "0.6477190137338473"),
        ] {
            assert_eq!(float(x), want, "{x:e}");
        }
    }

    #[test]
    fn complex_as_python() {
        assert_eq!(
            complex(6.123233995736766e-17, 1.0),
            "(6.123233995736766e-17+1j)"
        );
        assert_eq!(complex(0.0, 1.0), "1j");
        assert_eq!(complex(-0.0, -1.0), "(-0-1j)");
        assert_eq!(complex(0.0, 0.0), "0j");
        assert_eq!(complex(f64::NAN, f64::INFINITY), "(nan+infj)");
        assert_eq!(complex(0.0, f64::INFINITY), "infj");
        assert_eq!(complex(-1125899906842624.0, 0.0), "(-1125899906842624+0j)");
        assert_eq!(
            complex(1.2676506002282469e30, 1245078004707398.5),
            "(1.2676506002282469e+30+1245078004707398.5j)"
        );
        assert_eq!(complex(1.0, -0.0), "(1-0j)");
    }
}
