//! The exact continuous half-life: usage × 2^(−Δ/H). What Slurm's δ = 1 − 0.693/H approximates.

use crate::usage::decay::DecayError;

/// Continuous exponential decay with half-life `half_life` seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfLife {
    /// Half-life in seconds (> 0).
    pub half_life: f64,
}

impl HalfLife {
    /// Validated half-life.
    pub fn new(half_life: f64) -> Result<Self, DecayError> {
        if !(half_life > 0.0 && half_life.is_finite()) {
            return Err(DecayError::Period(format!(
                "half-life must be a positive number of seconds, got {half_life}"
            )));
        }
        Ok(HalfLife { half_life })
    }

    /// 2^(−Δ/H): the factor after `seconds`.
    pub fn factor(&self, seconds: f64) -> f64 {
        (-seconds / self.half_life).exp2()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn halves_every_half_life() {
        let h = HalfLife::new(604_800.0).unwrap();
        assert_relative_eq!(h.factor(604_800.0), 0.5, max_relative = 1e-15);
        assert_relative_eq!(h.factor(3.0 * 604_800.0), 0.125, max_relative = 1e-15);
        // slurm.md §5: the exact per-300 s factor for H = 7 d.
        assert_relative_eq!(h.factor(300.0), 0.999656236094, epsilon = 1e-12);
        assert!(HalfLife::new(0.0).is_err());
    }
}
