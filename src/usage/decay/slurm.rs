//! Slurm decay (slurm.md §5): a per-second factor δ = 1 − 0.693/H applied as δ^Δ once per
//! `PriorityCalcPeriod`, and `PriorityUsageResetPeriod` boundaries that zero all usage.

use crate::usage::decay::calendar::{civil_from_days, epoch_of};
use crate::usage::decay::DecayError;
use std::str::FromStr;

/// `PriorityUsageResetPeriod`. Boundaries are computed in UTC (Slurm uses the controller's
/// local time zone; run fairsort with the clock you want, or use `fairsort usage reset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResetPeriod {
    /// Never reset (Slurm's default).
    #[default]
    None,
    /// Slurm resets at start and reconfigure; fairsort's equivalent is `fairsort usage reset`.
    Now,
    /// Every midnight.
    Daily,
    /// Sunday 00:00.
    Weekly,
    /// The 1st of each month.
    Monthly,
    /// January, April, July and October 1st.
    Quarterly,
    /// January 1st.
    Yearly,
}

impl FromStr for ResetPeriod {
    type Err = DecayError;

    /// Slurm's spellings, case-insensitive.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.to_ascii_uppercase().as_str() {
            "NONE" => ResetPeriod::None,
            "NOW" => ResetPeriod::Now,
            "DAILY" => ResetPeriod::Daily,
            "WEEKLY" => ResetPeriod::Weekly,
            "MONTHLY" => ResetPeriod::Monthly,
            "QUARTERLY" => ResetPeriod::Quarterly,
            "YEARLY" => ResetPeriod::Yearly,
            _ => {
                return Err(DecayError::Period(format!(
                    "PriorityUsageResetPeriod must be NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY, got `{s}`"
                )))
            }
        })
    }
}

impl ResetPeriod {
    /// The first reset boundary strictly after `t` (epoch seconds), or `None` if this period never
    /// resets on its own.
    pub(crate) fn next_after(self, t: i64) -> Option<i64> {
        let day = t.div_euclid(86_400);
        let (y, m, _) = civil_from_days(day);
        Some(match self {
            ResetPeriod::None | ResetPeriod::Now => return None,
            ResetPeriod::Daily => (day + 1) * 86_400,
            ResetPeriod::Weekly => {
                // 1970-01-01 was a Thursday; Sunday is weekday 0 with (day + 4) mod 7.
                let weekday = (day + 4).rem_euclid(7);
                (day + 7 - weekday) * 86_400
            }
            ResetPeriod::Monthly => next_month_start(y, m, 1),
            ResetPeriod::Quarterly => {
                let q_start = (m - 1) / 3 * 3 + 1;
                next_month_start(y, q_start, 3)
            }
            ResetPeriod::Yearly => epoch_of(y + 1, 1, 1),
        })
    }
}

fn next_month_start(y: i64, m: u32, step: u32) -> i64 {
    let m2 = m + step;
    if m2 > 12 {
        epoch_of(y + 1, m2 - 12, 1)
    } else {
        epoch_of(y, m2, 1)
    }
}

/// Slurm's decay settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlurmDecay {
    /// `PriorityDecayHalfLife` in seconds; 0 disables decay.
    pub half_life: i64,
    /// `PriorityCalcPeriod` in seconds (Slurm's is in minutes, default 5 = 300 s).
    pub calc_period: i64,
    /// `PriorityUsageResetPeriod`.
    pub reset: ResetPeriod,
}

impl Default for SlurmDecay {
    /// Slurm's defaults: `7-0`, 5 minutes, NONE.
    fn default() -> Self {
        SlurmDecay {
            half_life: 604_800,
            calc_period: 300,
            reset: ResetPeriod::None,
        }
    }
}

/// What one decay run does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlurmDecayStep {
    /// Multiply every usage by this (after a reset, by which usage is 0 anyway).
    pub factor: f64,
    /// True when a reset boundary was crossed: all usage becomes 0.
    pub reset: bool,
    /// The new time of the last decay run.
    pub last_decay: i64,
    /// Number of calc periods applied.
    pub periods: u64,
}

impl SlurmDecay {
    /// Validated settings.
    pub fn new(half_life: i64, calc_period: i64, reset: ResetPeriod) -> Result<Self, DecayError> {
        if half_life < 0 {
            return Err(DecayError::Period(format!(
                "PriorityDecayHalfLife must not be negative, got {half_life}"
            )));
        }
        if calc_period <= 0 {
            return Err(DecayError::Period(format!(
                "PriorityCalcPeriod must be positive, got {calc_period}"
            )));
        }
        Ok(SlurmDecay {
            half_life,
            calc_period,
            reset,
        })
    }

    /// δ = 1 − 0.693/H (`_init_decay_vars`); 1 when H ≤ 0 (no decay).
    pub(crate) fn per_second(&self) -> f64 {
        if self.half_life <= 0 {
            1.0
        } else {
            1.0 - 0.693 / self.half_life as f64
        }
    }

    /// δ^Δ, the factor of one decay cycle that ran Δ seconds after the previous one.
    pub fn factor(&self, seconds: i64) -> f64 {
        self.per_second().powf(seconds as f64)
    }

    /// Decay from `last_decay` to `now` in whole calc periods, as the decay thread would have
    /// run: each period multiplies by δ^period; a reset boundary inside the window zeroes usage.
    pub(crate) fn step(&self, last_decay: i64, now: i64) -> SlurmDecayStep {
        let elapsed = now.saturating_sub(last_decay).max(0);
        let periods = (elapsed / self.calc_period) as u64;
        let new_last = last_decay + periods as i64 * self.calc_period;
        let per_cycle = self.factor(self.calc_period);
        let mut factor = 1.0;
        for _ in 0..periods.min(MAX_SEQUENTIAL) {
            factor *= per_cycle;
        }
        if periods > MAX_SEQUENTIAL {
            factor *= per_cycle.powf((periods - MAX_SEQUENTIAL) as f64);
        }
        let reset = periods > 0
            && self
                .reset
                .next_after(last_decay)
                .is_some_and(|b| b <= new_last);
        SlurmDecayStep {
            factor,
            reset,
            last_decay: new_last,
            periods,
        }
    }
}

/// Up to this many cycles the combined factor is built by repeated multiplication, as the
/// decay thread would; beyond it (years of 5-minute cycles) by one `powf`.
const MAX_SEQUENTIAL: u64 = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn reference_vectors_for_seven_days() {
        // slurm.md §5: H = 7 d -> δ = 0.999998854167, δ^300 = 0.999656308878, δ^H = 0.500073.
        let d = SlurmDecay::default();
        assert_relative_eq!(d.per_second(), 0.999998854167, epsilon = 1e-12);
        assert_relative_eq!(d.factor(300), 0.999656308878, epsilon = 1e-12);
        assert_relative_eq!(d.factor(604_800), 0.500073, epsilon = 1e-6);
        // the exact half-life value differs: 0.999656236094
        assert!((d.factor(300) - 0.999656236094).abs() > 1e-8);
    }

    #[test]
    fn steps_whole_calc_periods() {
        let d = SlurmDecay::default();
        let s = d.step(1000, 1000 + 3 * 300 + 299);
        assert_eq!(s.periods, 3);
        assert_eq!(s.last_decay, 1000 + 900);
        assert_relative_eq!(s.factor, d.factor(300).powi(3), epsilon = 1e-15);
        assert_relative_eq!(s.factor, 0.999656308878f64.powi(3), epsilon = 1e-11);
        assert!(!s.reset);
        let none = d.step(1000, 1100);
        assert_eq!((none.periods, none.factor, none.last_decay), (0, 1.0, 1000));
    }

    #[test]
    fn zero_half_life_means_no_decay() {
        let d = SlurmDecay::new(0, 300, ResetPeriod::None).unwrap();
        assert_eq!(d.step(0, 86_400).factor, 1.0);
    }

    #[test]
    fn reset_boundaries() {
        let t = epoch_of(2024, 4, 13) + 3600; // Saturday 2024-04-13 01:00 UTC
        assert_eq!(
            ResetPeriod::Daily.next_after(t),
            Some(epoch_of(2024, 4, 14))
        );
        assert_eq!(
            ResetPeriod::Weekly.next_after(t),
            Some(epoch_of(2024, 4, 14))
        );
        assert_eq!(
            ResetPeriod::Monthly.next_after(t),
            Some(epoch_of(2024, 5, 1))
        );
        assert_eq!(
            ResetPeriod::Quarterly.next_after(t),
            Some(epoch_of(2024, 7, 1))
        );
        assert_eq!(
            ResetPeriod::Yearly.next_after(t),
            Some(epoch_of(2025, 1, 1))
        );
        assert_eq!(
            ResetPeriod::Monthly.next_after(epoch_of(2024, 12, 5)),
            Some(epoch_of(2025, 1, 1))
        );
        assert_eq!(ResetPeriod::None.next_after(t), None);
        let d = SlurmDecay::new(604_800, 300, ResetPeriod::Daily).unwrap();
        assert!(d.step(t, t + 86_400).reset);
        assert!(!d.step(t, t + 600).reset);
        assert!("weekly".parse::<ResetPeriod>().is_ok());
        assert!("fortnightly".parse::<ResetPeriod>().is_err());
    }
}
