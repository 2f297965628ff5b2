//! The search space: named parameters, each a range on a linear or a log scale, and the map
//! between a point of the unit cube (where the search moves) and the parameters' values.

use crate::tune::error::TuneError;
use serde::{Deserialize, Serialize};

/// One parameter of the search: `NAME=LO..HI[:log]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Its name: a name of the template, a Slurm or flux weight, or `half_life`.
    pub name: String,
    /// The lower bound (the baseline takes it).
    pub lo: f64,
    /// The upper bound.
    pub hi: f64,
    /// Searched on a log scale (both bounds positive).
    pub log: bool,
}

/// Significant digits a parameter value keeps: the searched point is rounded to them before it
/// is replayed, so the ready change states exactly the values that were evaluated.
pub const DIGITS: i32 = 4;

impl Param {
    /// Parses `NAME=LO..HI[:log]`; `value` reads each bound (a number, or a duration where
    /// the caller accepts one).
    pub fn parse(
        spec: &str,
        value: &dyn Fn(&str) -> Result<f64, String>,
    ) -> Result<Param, TuneError> {
        let bad = |why: &str| TuneError::Param {
            spec: spec.to_string(),
            why: why.to_string(),
        };
        let (name, range) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected NAME=LO..HI or NAME=LO..HI:log"))?;
        let name = name.trim();
        let ident = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            return Err(bad(
                "the name must be letters, digits and `_`, not starting with a digit",
            ));
        }
        let (range, log) = match range.rsplit_once(':') {
            Some((r, "log")) => (r, true),
            Some((r, "lin" | "linear")) => (r, false),
            _ => (range, false),
        };
        let (lo, hi) = range
            .split_once("..")
            .ok_or_else(|| bad("expected a range LO..HI"))?;
        let lo = value(lo.trim()).map_err(|e| bad(&e))?;
        let hi = value(hi.trim()).map_err(|e| bad(&e))?;
        if !lo.is_finite() || !hi.is_finite() {
            return Err(bad("the bounds must be finite"));
        }
        if lo > hi {
            return Err(bad("the lower bound is above the upper one"));
        }
        if log && lo <= 0.0 {
            return Err(bad("a log scale needs a positive lower bound"));
        }
        Ok(Param {
            name: name.to_string(),
            lo,
            hi,
            log,
        })
    }

    /// The value at `u` in [0, 1] of the range (clamped), rounded to [`DIGITS`] digits and kept
    /// inside the bounds.
    pub fn at(&self, u: f64) -> f64 {
        let u = if u.is_nan() { 0.0 } else { u.clamp(0.0, 1.0) };
        let v = if self.log {
            (self.lo.ln() + u * (self.hi.ln() - self.lo.ln())).exp()
        } else {
            self.lo + u * (self.hi - self.lo)
        };
        round_sig(v, DIGITS).clamp(self.lo, self.hi)
    }

    /// Where `v` lies in the range, in [0, 1].
    pub fn unit(&self, v: f64) -> f64 {
        let (a, b, x) = if self.log {
            (self.lo.ln(), self.hi.ln(), v.max(self.lo).ln())
        } else {
            (self.lo, self.hi, v)
        };
        if b > a {
            ((x - a) / (b - a)).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// `v` rounded to `digits` significant digits.
pub fn round_sig(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let scale = 10f64.powi(digits - 1 - v.abs().log10().floor() as i32);
    let r = (v * scale).round() / scale;
    if r.is_finite() {
        r
    } else {
        v
    }
}

/// The parameters of one search, in the order they were given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Space {
    /// The parameters.
    pub params: Vec<Param>,
}

impl Space {
    /// A space of `params`; two parameters of one name are an error.
    pub fn new(params: Vec<Param>) -> Result<Space, TuneError> {
        for (i, p) in params.iter().enumerate() {
            if params[..i].iter().any(|q| q.name == p.name) {
                return Err(TuneError::Param {
                    spec: p.name.clone(),
                    why: "given twice".into(),
                });
            }
        }
        if params.is_empty() {
            return Err(TuneError::Goal(
                "give at least one --param NAME=LO..HI".into(),
            ));
        }
        Ok(Space { params })
    }

    /// Dimensions.
    pub fn dims(&self) -> usize {
        self.params.len()
    }

    /// The values at unit point `u`.
    pub fn values(&self, u: &[f64]) -> Vec<f64> {
        self.params
            .iter()
            .zip(u.iter().chain(std::iter::repeat(&0.0)))
            .map(|(p, &x)| p.at(x))
            .collect()
    }

    /// The values with every parameter at its lower bound.
    pub fn lower(&self) -> Vec<f64> {
        self.params.iter().map(|p| p.lo).collect()
    }

    /// The unit point of `values`.
    pub fn unit(&self, values: &[f64]) -> Vec<f64> {
        self.params
            .iter()
            .zip(values)
            .map(|(p, &v)| p.unit(v))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> Result<f64, String> {
        s.parse::<f64>().map_err(|e| e.to_string())
    }

    #[test]
    fn parses_linear_and_log_ranges() {
        let p = Param::parse("a=0..10", &num).unwrap();
        assert_eq!((p.lo, p.hi, p.log), (0.0, 10.0, false));
        let p = Param::parse("b=1..1000:log", &num).unwrap();
        assert!(p.log);
        assert_eq!(p.at(0.0), 1.0);
        assert_eq!(p.at(1.0), 1000.0);
        assert!((p.at(0.5) - 31.62).abs() < 1e-9, "{}", p.at(0.5));
        assert!((p.unit(31.62) - 0.5).abs() < 1e-3);
    }

    #[test]
    fn rejects_bad_specs() {
        for bad in [
            "a",
            "a=1",
            "a=5..1",
            "1a=0..1",
            "a=0..1:log",
            "a=x..1",
            "a=0..inf",
        ] {
            assert!(Param::parse(bad, &num).is_err(), "{bad}");
        }
        let p = Param::parse("a=0..1", &num).unwrap();
        assert!(Space::new(vec![p.clone(), p]).is_err());
        assert!(Space::new(vec![]).is_err());
    }

    #[test]
    fn values_are_rounded_and_inside_the_bounds() {
        let p = Param::parse("a=0..3", &num).unwrap();
        assert_eq!(p.at(1.0 / 3.0), 1.0);
        assert_eq!(p.at(0.123456), 0.3704);
        assert_eq!(p.at(7.0), 3.0);
        assert_eq!(p.at(f64::NAN), 0.0);
        assert_eq!(round_sig(123456.0, 4), 123500.0);
        assert_eq!(round_sig(-0.000123456, 4), -0.0001235);
    }
}
