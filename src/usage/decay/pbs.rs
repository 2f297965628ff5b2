//! PBS decay (openpbs.md §3.6): every `fairshare_decay_time` seconds each node's usage is
//! multiplied by `fairshare_decay_factor` and floored at 1 (`FAIRSHARE_MIN_USAGE`).

use crate::usage::decay::DecayError;

/// PBS's usage floor (`FAIRSHARE_MIN_USAGE`): every node starts at 1 and never decays below it.
pub const PBS_MIN_USAGE: f64 = 1.0;

/// The PBS decay settings: the period and the factor applied once per elapsed period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PbsDecay {
    /// `fairshare_decay_time` in seconds (> 0).
    pub decay_time: i64,
    /// `fairshare_decay_factor`, 0 < f < 1, as PBS stores it (a C `float`).
    pub factor: f32,
}

/// What one decay run does: how many periods were applied and the new `last_decay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PbsDecayStep {
    /// Number of times every usage is multiplied by the factor.
    pub periods: u64,
    /// The `last_decay` to store afterwards (unchanged when `periods` is 0).
    pub last_decay: i64,
}

impl Default for PbsDecay {
    /// PBS's defaults: 24:00:00 and 0.5.
    fn default() -> Self {
        PbsDecay {
            decay_time: 86_400,
            factor: 0.5,
        }
    }
}

impl PbsDecay {
    /// Validated settings, with PBS's own messages for a bad factor.
    pub fn new(decay_time: i64, factor: f64) -> Result<Self, DecayError> {
        if decay_time <= 0 {
            return Err(DecayError::Period(format!(
                "fairshare_decay_time must be positive, got {decay_time}"
            )));
        }
        if !(factor > 0.0 && factor < 1.0) {
            return Err(DecayError::Factor(format!(
                "fairshare_decay_factor: Invalid value: {factor:.6}.  Valid values are between 0 and 1."
            )));
        }
        Ok(PbsDecay {
            decay_time,
            factor: factor as f32,
        })
    }

    /// The scheduler's loop (fifo.cpp): `while (t - last_decay > decay_time) { decay; t -= decay_time }`,
    /// then `last_decay = now - (now - last_decay) % decay_time`. The test is strict, so exactly
    /// three elapsed periods decay twice; three periods and a second decay three times.
    pub(crate) fn step(&self, last_decay: i64, now: i64) -> PbsDecayStep {
        let elapsed = now.saturating_sub(last_decay);
        if elapsed <= self.decay_time {
            return PbsDecayStep {
                periods: 0,
                last_decay,
            };
        }
        // Count of k >= 1 with elapsed - (k-1)*dt > dt, i.e. (elapsed - 1) / dt for elapsed > 0.
        let periods = ((elapsed - 1) / self.decay_time) as u64;
        PbsDecayStep {
            periods,
            last_decay: now - elapsed % self.decay_time,
        }
    }

    /// `usage` after `periods` decays: multiplied by the factor each time, floored at 1. The
    /// first [`EXACT_PERIODS`] are applied one by one as the scheduler does (bit for bit); the
    /// rest at once as `factor^rest`, so a decay over centuries costs the same as over a day.
    pub fn apply(&self, mut usage: f64, periods: u64) -> f64 {
        let f = f64::from(self.factor);
        let exact = periods.min(EXACT_PERIODS);
        for _ in 0..exact {
            if usage == PBS_MIN_USAGE {
                return usage;
            }
            usage *= f;
            if usage < PBS_MIN_USAGE {
                usage = PBS_MIN_USAGE;
            }
        }
        if periods > exact && usage > PBS_MIN_USAGE {
            usage *= f.powf((periods - exact) as f64);
            if usage.is_nan() || usage < PBS_MIN_USAGE {
                usage = PBS_MIN_USAGE;
            }
        }
        usage
    }
}

/// Periods applied one multiplication at a time before the closed form takes over (with the
/// default factor 0.5 any finite usage reaches the floor well within them).
pub const EXACT_PERIODS: u64 = 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn thousand_becomes_125_after_three_periods() {
        // openpbs.md §4.4: usage 1000, factor 0.5, 3 periods elapsed -> 125 (exact in binary).
        let d = PbsDecay::default();
        let step = d.step(0, 3 * 86_400 + 1);
        assert_eq!(step.periods, 3);
        assert_eq!(step.last_decay, 3 * 86_400);
        assert_relative_eq!(d.apply(1000.0, step.periods), 125.0, max_relative = 1e-15);
    }

    #[test]
    fn strict_comparison_exactly_three_periods_decays_twice() {
        let d = PbsDecay::default();
        let step = d.step(100, 100 + 3 * 86_400);
        assert_eq!(step.periods, 2);
        assert_eq!(step.last_decay, 100 + 3 * 86_400);
        assert_eq!(d.step(100, 100 + 86_400).periods, 0);
    }

    #[test]
    fn floor_is_one() {
        // test_fairshare_decay_min_usage: usage 1 stays 1; small usage decays to 1, not below.
        let d = PbsDecay::new(2, 0.5).unwrap();
        assert_eq!(d.apply(1.0, 5), 1.0);
        assert_eq!(d.apply(3.0, 10), 1.0);
        assert_eq!(d.apply(4.0, 1), 2.0);
    }

    #[test]
    fn factor_is_a_c_float() {
        let d = PbsDecay::new(60, 0.7).unwrap();
        assert_eq!(d.apply(1000.0, 1), 1000.0 * f64::from(0.7f32));
        assert_ne!(d.apply(1000.0, 1), 700.0);
    }

    #[test]
    fn closed_form_beyond_exact_periods() {
        let d = PbsDecay::new(60, 0.999).unwrap();
        // within EXACT_PERIODS: the loop, bit for bit
        let mut u = 1e300;
        for _ in 0..1000 {
            u *= f64::from(0.999f32);
        }
        assert_eq!(d.apply(1e300, 1000), u);
        // beyond: close to the exact power, and instant even for u64::MAX periods
        let far = d.apply(1e300, 2000);
        let want = 1e300 * f64::from(0.999f32).powi(2000);
        assert!((far - want).abs() / want < 1e-9, "{far} vs {want}");
        assert_eq!(d.apply(1e300, u64::MAX), 1.0);
        assert_eq!(d.apply(0.5, u64::MAX), 1.0);
    }

    #[test]
    fn rejects_bad_settings() {
        assert!(PbsDecay::new(0, 0.5).is_err());
        let e = PbsDecay::new(10, 1.0).unwrap_err().to_string();
        assert!(e.contains("Valid values are between 0 and 1."), "{e}");
        assert!(PbsDecay::new(10, f64::NAN).is_err());
    }
}
