//! PBS's text rounding, reproduced for `--pbs-compat`: the scheduler pastes each value into a
//! Python dict literal — resources with at most 4 decimals (`float_digits(v, 4)`), fair-share
//! keywords as C `float`s printed with `%f` (6 decimals), integers with `%d`/`%ld` — and keeps
//! the result in a 32-bit `float`. Without `--pbs-compat` fairsort binds exact values.

/// `printf("%.*f", decimals, x)` read back: rounds the exact binary value, like glibc.
pub(crate) fn round_decimals(x: f64, decimals: usize) -> f64 {
    if !x.is_finite() || x.fract() == 0.0 {
        return x;
    }
    format!("{x:.decimals$}").parse().unwrap_or(x)
}

/// A resource value as PBS passes it: at most 4 decimals.
pub fn resource(x: f64) -> f64 {
    round_decimals(x, 4)
}

/// An integer keyword (`%d`, `%ld`): truncated toward zero.
pub fn integer(x: f64) -> f64 {
    x.trunc()
}

/// A fair-share keyword: stored as a C `float`, printed with `%f`.
pub fn fairshare(x: f64) -> f64 {
    round_decimals(x as f32 as f64, 6)
}

/// PBS's `fairshare_factor` from its `float` percentage and usage factor:
/// `pow(2, -(usage_factor / tree_percentage))` with a `float` division, 0 when the percentage is 0.
pub fn fairshare_factor(perc: f64, tree_usage: f64) -> f64 {
    let p = perc as f32;
    let u = tree_usage as f32;
    if p == 0.0 {
        return 0.0;
    }
    round_decimals(crate::fairshare::pbs::c_pow2(-((u / p) as f64)), 6)
}

/// The formula value as the scheduler keeps it (`float formula_value`).
pub fn value(x: f64) -> f64 {
    x as f32 as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_rounding() {
        assert_eq!(resource(0.123456), 0.1235);
        assert_eq!(resource(4.0), 4.0);
        assert_eq!(resource(2.5e-5), 0.0);
        assert_eq!(fairshare(0.1253120), 0.125312);
        assert_eq!(integer(12.9), 12.0);
        assert_eq!(integer(-12.9), -12.0);
        assert_eq!(value(60.3816_f64), 60.3816_f32 as f64);
    }

    #[test]
    fn factor_matches_pbs_table() {
        // openpbs.md §4.1: pbsuser perc 0.2, tree usage 0.125312 → 0.647718.
        assert_eq!(fairshare_factor(0.2, 0.1253122398), 0.647718);
        assert_eq!(fairshare_factor(0.0, 0.5), 0.0);
    }
}
