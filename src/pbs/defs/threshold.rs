//! `job_sort_formula_threshold` as PBS keeps and applies it (reference/openpbs.md §1.5, §4.3;
//! OpenPBS `master_sched_attr_def.xml`, `attr_fn_f.c`, `fifo.cpp`):
//!
//! - the server decodes the text with `(float) strtod(text)`: the value is a C `float`;
//! - it hands it to the scheduler as text, `encode_f`: `"%-.*f"` with `float_digits(v, 4)`
//!   decimals (at most 4, fewer when the decimals end in a run of 0s or 9s);
//! - the scheduler reads that text back into a `double` (`res_to_num`), or uses `INT_MIN`
//!   when the attribute is unset;
//! - each job's `formula_value`, a C `float`, is compared with `formula_value <= threshold`
//!   (the float promoted to double): at or below, the job is not run this cycle.
//!
//! So a threshold of `0.1` is the double 0.1, while a job whose Python value is 0.1 is kept as
//! the float 0.100000001…, which is above it: PBS runs that job.

/// The threshold the scheduler uses when `job_sort_formula_threshold` is unset: `INT_MIN`.
pub const UNSET: f64 = i32::MIN as f64;

/// The largest finite C `float`: a threshold beyond it would be infinite once stored.
const FLOAT_MAX: f64 = f32::MAX as f64;

/// PBS's `float_digits(x, digits)` (`misc_utils.c`): how many decimals `x` needs, at most
/// `digits`, stopping once the next three decimals are `000` or `999`.
pub fn float_digits(x: f64, digits: usize) -> usize {
    const FACTOR: f64 = 1000.0;
    // TRUNCATE: to unsigned long, saturating.
    let truncate = |v: f64| -> u64 {
        if v > u64::MAX as f64 {
            u64::MAX
        } else if v > 0.0 {
            v as u64
        } else {
            0
        }
    };
    let mut fl = x.abs();
    for i in 0..digits {
        let num = truncate((fl - truncate(fl) as f64) * FACTOR);
        if num < 1 || num >= (FACTOR - 1.0) as u64 {
            return i;
        }
        fl *= 10.0;
    }
    digits
}

/// The threshold as the scheduler holds it after `set sched job_sort_formula_threshold = t`:
/// `t` stored as a C `float`, printed by `encode_f` and read back as a `double`.
pub fn stored(t: f64) -> f64 {
    let f = t as f32 as f64;
    if !f.is_finite() {
        return f;
    }
    encode(f).parse().unwrap_or(f)
}

/// `encode_f`'s text of a stored `float` value: `%-.*f` with `float_digits(v, 4)` decimals.
pub fn encode(t: f64) -> String {
    let f = t as f32 as f64;
    let digits = float_digits(f, 4);
    format!("{f:.digits$}")
}

/// Parses a threshold as `qmgr` sets it (the whole text must be a number, as `decode_f`
/// requires) and returns the value PBS stores. `Err` holds the reason for people.
pub fn parse(text: &str) -> Result<f64, String> {
    let t: f64 = text
        .trim()
        .parse()
        .ok()
        .filter(|t: &f64| !t.is_nan())
        .ok_or_else(|| format!("job_sort_formula_threshold: {text} is not a number"))?;
    if !t.is_finite() || t.abs() > FLOAT_MAX {
        return Err(format!(
            "job_sort_formula_threshold: {text} is not a finite number a C float can hold"
        ));
    }
    Ok(stored(t))
}

/// Whether a job with this formula value is at or below the threshold (`None`: unset, so
/// `INT_MIN`). `value` is compared as given: pass the 32-bit value PBS keeps (see
/// `queue::compat::value`) for PBS's classification of a job exactly at the threshold.
pub fn is_below(value: f64, threshold: Option<f64>) -> bool {
    value <= threshold.unwrap_or(UNSET)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_digits_as_pbs() {
        assert_eq!(float_digits(7.0, 4), 0);
        assert_eq!(float_digits(0.5, 4), 1);
        assert_eq!(float_digits(0.1f32 as f64, 4), 1);
        assert_eq!(float_digits(0.125, 4), 3);
        assert_eq!(float_digits(0.123456, 4), 4);
        assert_eq!(float_digits(0.12999, 4), 2);
        assert_eq!(float_digits(-2.25, 4), 2);
        assert_eq!(float_digits(1e300, 4), 0);
    }

    #[test]
    fn stored_as_pbs() {
        assert_eq!(stored(7.0), 7.0);
        // the float 0.1 is printed "0.1": the scheduler holds the double 0.1
        assert_eq!(encode(0.1), "0.1");
        assert_eq!(stored(0.1), 0.1);
        // at most 4 decimals
        assert_eq!(encode(0.123456), "0.1235");
        assert_eq!(stored(0.123456), 0.1235);
        // a float has 24 bits: 16777217 is stored as 16777216
        assert_eq!(stored(16_777_217.0), 16_777_216.0);
        assert_eq!(stored(-2.5), -2.5);
        for t in [0.1, 0.123456, 7.0, -3.3333, 1e10, 16_777_217.0] {
            assert_eq!(stored(stored(t)), stored(t), "idempotent: {t}");
        }
    }

    #[test]
    fn parse_like_qmgr() {
        assert_eq!(parse("7"), Ok(7.0));
        assert_eq!(parse(" 0.1 "), Ok(0.1));
        assert!(parse("seven").is_err());
        assert_eq!(
            parse("nan"),
            Err("job_sort_formula_threshold: nan is not a number".into())
        );
        assert!(parse("inf").is_err());
        assert!(parse("1e39").is_err());
    }

    #[test]
    fn at_or_below_and_unset() {
        assert!(is_below(7.0, Some(7.0)));
        assert!(!is_below(7.5, Some(7.0)));
        // unset: INT_MIN, so only values at or below -2147483648 are held back
        assert!(!is_below(-1e9, None));
        assert!(is_below(-2_147_483_648.0, None));
        assert!(is_below(-1e10, None));
        assert!(is_below(f64::NEG_INFINITY, None));
        assert!(!is_below(f64::NAN, None));
        // a job whose Python value is 0.1, kept as PBS's float, is above the threshold 0.1
        let pbs_value = 0.1f32 as f64;
        assert!(!is_below(pbs_value, Some(stored(0.1))));
        assert!(is_below(0.1, Some(stored(0.1))));
    }
}
