//! How usage decays during a replay (`--decay`): the exact continuous half-life, or one of the
//! schedulers' stepwise models with the decay code of `usage::decay` (docs/replay.md, "Decay
//! models"). The clock of the stepwise models starts at the trace's first submit, as if the
//! scheduler had been started then: PBS decays at every `fairshare_decay_time` after it, Slurm
//! at every `PriorityCalcPeriod`, flux shifts its half-life bins at every half-life.

use crate::replay::error::ReplayError;
use crate::usage::decay::{FluxDecay, HalfLife, PbsDecay, SlurmDecay, PBS_MIN_USAGE};

/// A decay model for the replay's usage.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Decay {
    /// u · 2^(−Δ/H), continuously, with `Options::half_life` (the default).
    #[default]
    Continuous,
    /// PBS: usage starts at 1 (`FAIRSHARE_MIN_USAGE`) and is multiplied by the factor every
    /// period, floored at 1 (the scheduler's loop, `usage::decay::PbsDecay`).
    Pbs(PbsDecay),
    /// Slurm: every `PriorityCalcPeriod`, usage × δ^period with δ = 1 − 0.693/H
    /// (`usage::decay::SlurmDecay`; reset periods are not replayed).
    Slurm(SlurmDecay),
    /// flux-accounting: per association, half-life bins shifted (× the decay factor) every
    /// half-life, the oldest dropped after `reset_period`; an association's usage is its
    /// `job_usage` after each `update-usage` run (`usage::decay::FluxDecay::update`), one run
    /// per fair-share recomputation.
    Flux(FluxDecay),
}

impl Decay {
    /// The model's name on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Decay::Continuous => "continuous",
            Decay::Pbs(_) => "pbs",
            Decay::Slurm(_) => "slurm",
            Decay::Flux(_) => "flux",
        }
    }
}

/// Usage per association under a decay model.
#[derive(Debug, Clone)]
pub(crate) struct DecayedUsage {
    model: Model,
    /// Continuous: usage scaled to `t0` (real usage at t = stored × 2^(−(t−t0)/H)); PBS and
    /// Slurm: the usage as of `last`; flux: each association's `job_usage` as of the last run.
    stored: Vec<f64>,
}

#[derive(Debug, Clone)]
enum Model {
    Continuous {
        half_life: HalfLife,
        t0: Option<i64>,
    },
    Pbs {
        d: PbsDecay,
        last: i64,
    },
    Slurm {
        d: SlurmDecay,
        last: i64,
    },
    Flux {
        d: FluxDecay,
        origin: i64,
        /// The half-life period of the last run.
        period: i64,
        bins: Vec<Vec<f64>>,
        /// Usage charged since the last run.
        pending: Vec<Option<f64>>,
    },
}

impl DecayedUsage {
    /// `n` associations at zero usage (PBS: at 1), the stepwise clocks starting at `origin`.
    pub(crate) fn new(
        decay: Decay,
        half_life: f64,
        n: usize,
        origin: i64,
    ) -> Result<DecayedUsage, ReplayError> {
        let (model, start) = match decay {
            Decay::Continuous => (
                Model::Continuous {
                    half_life: HalfLife::new(half_life)
                        .map_err(|e| ReplayError::HalfLife(e.to_string()))?,
                    t0: None,
                },
                0.0,
            ),
            Decay::Pbs(d) => (Model::Pbs { d, last: origin }, PBS_MIN_USAGE),
            Decay::Slurm(d) => (Model::Slurm { d, last: origin }, 0.0),
            Decay::Flux(d) => (
                Model::Flux {
                    d,
                    origin,
                    period: 0,
                    bins: vec![vec![0.0; d.bins()]; n],
                    pending: vec![None; n],
                },
                0.0,
            ),
        };
        Ok(DecayedUsage {
            model,
            stored: vec![start; n],
        })
    }

    /// PBS and Slurm: applies the decays due by `t`; returns whether usage changed.
    fn advance(&mut self, t: i64) -> bool {
        match &mut self.model {
            Model::Pbs { d, last } => {
                let step = d.step(*last, t);
                *last = step.last_decay;
                if step.periods == 0 {
                    return false;
                }
                for u in &mut self.stored {
                    *u = d.apply(*u, step.periods);
                }
                true
            }
            Model::Slurm { d, last } => {
                let step = d.step(*last, t);
                *last = step.last_decay;
                if step.periods == 0 || step.factor == 1.0 {
                    return false;
                }
                for u in &mut self.stored {
                    *u *= step.factor;
                }
                true
            }
            Model::Continuous { .. } | Model::Flux { .. } => false,
        }
    }

    /// Whether a stepwise decay is due by `t` (usage changes without a charge).
    pub(crate) fn due(&self, t: i64) -> bool {
        match &self.model {
            Model::Continuous { .. } => false,
            Model::Pbs { d, last } => t.saturating_sub(*last) > d.decay_time,
            Model::Slurm { d, last } => t.saturating_sub(*last) >= d.calc_period,
            Model::Flux {
                d, origin, period, ..
            } => flux_period(t, *origin, d.half_life) > *period,
        }
    }

    /// Charges association `a` `amount` at `t`.
    pub(crate) fn charge(&mut self, a: usize, amount: f64, t: i64) {
        self.advance(t);
        match &mut self.model {
            Model::Continuous { half_life, t0 } => {
                let t0v = *t0.get_or_insert(t);
                let mut scale = 1.0 / half_life.factor(t.saturating_sub(t0v) as f64);
                if !scale.is_finite() || scale > 1e150 {
                    // Rebase: bring every stored value to t.
                    let f = half_life.factor(t.saturating_sub(t0v) as f64);
                    for u in &mut self.stored {
                        *u *= f;
                    }
                    *t0 = Some(t);
                    scale = 1.0;
                }
                if let Some(u) = self.stored.get_mut(a) {
                    *u += amount * scale;
                }
            }
            Model::Pbs { .. } | Model::Slurm { .. } => {
                if let Some(u) = self.stored.get_mut(a) {
                    *u += amount;
                }
            }
            Model::Flux { pending, .. } => {
                if let Some(p) = pending.get_mut(a) {
                    *p = Some(p.unwrap_or(0.0) + amount);
                }
            }
        }
    }

    /// Usage per association at `t`, into `out` (flux: one `update-usage` run at `t`).
    pub(crate) fn usage_into(&mut self, t: i64, out: &mut Vec<f64>) {
        self.advance(t);
        out.clear();
        match &mut self.model {
            Model::Continuous { half_life, t0 } => {
                let f = match t0 {
                    Some(t0) => half_life.factor(t.saturating_sub(*t0) as f64),
                    None => 1.0,
                };
                out.extend(self.stored.iter().map(|u| u * f));
            }
            Model::Pbs { .. } | Model::Slurm { .. } => out.extend_from_slice(&self.stored),
            Model::Flux {
                d,
                origin,
                period,
                bins,
                pending,
            } => {
                let p = flux_period(t, *origin, d.half_life);
                let passed = p.saturating_sub(*period).max(0) as u64;
                *period = p.max(*period);
                for ((b, pend), u) in bins
                    .iter_mut()
                    .zip(pending.iter_mut())
                    .zip(&mut self.stored)
                {
                    // Periods with no run between: each would have been a plain shift.
                    if passed > 1 {
                        d.shift_by(b, passed - 1);
                    }
                    if let (_, Some(job_usage)) = d.update(b, pend.take(), passed > 0) {
                        *u = job_usage;
                    }
                }
                out.extend_from_slice(&self.stored);
            }
        }
    }
}

/// The flux half-life period of `t`: whole half-lives since `origin`.
fn flux_period(t: i64, origin: i64, half_life: i64) -> i64 {
    t.saturating_sub(origin).max(0) / half_life.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(u: &mut DecayedUsage, t: i64) -> Vec<f64> {
        let mut out = Vec::new();
        u.usage_into(t, &mut out);
        out
    }

    #[test]
    fn pbs_decays_in_steps_from_one() {
        // Period 100 s, factor 0.5, clock from 0; PBS's strict test: 200 s elapsed decays once.
        let d = Decay::Pbs(PbsDecay::new(100, 0.5).unwrap());
        let mut u = DecayedUsage::new(d, 0.0, 2, 0).unwrap();
        assert_eq!(usage(&mut u, 0), [1.0, 1.0]);
        u.charge(0, 799.0, 50);
        assert_eq!(usage(&mut u, 99), [800.0, 1.0]);
        assert!(!u.due(100) && u.due(101));
        assert_eq!(usage(&mut u, 150), [400.0, 1.0]);
        // Two more periods by 301 (boundaries at 200 and 300): 100; the floor stays at 1.
        assert_eq!(usage(&mut u, 301), [100.0, 1.0]);
    }

    #[test]
    fn slurm_decays_each_calc_period() {
        let d = Decay::Slurm(SlurmDecay::new(1000, 300, Default::default()).unwrap());
        let mut u = DecayedUsage::new(d, 0.0, 1, 0).unwrap();
        u.charge(0, 1000.0, 10);
        assert_eq!(usage(&mut u, 299), [1000.0]);
        let delta: f64 = 1.0 - 0.693 / 1000.0;
        let one = usage(&mut u, 300)[0];
        approx::assert_relative_eq!(one, 1000.0 * delta.powf(300.0), max_relative = 1e-12);
        let two = usage(&mut u, 650)[0];
        approx::assert_relative_eq!(two, one * delta.powf(300.0), max_relative = 1e-12);
    }

    #[test]
    fn flux_shifts_bins_each_half_life() {
        // Half-life 100 s, 4 bins, factor 0.5.
        let d = Decay::Flux(FluxDecay::new(100, 400, 0.5).unwrap());
        let mut u = DecayedUsage::new(d, 0.0, 1, 0).unwrap();
        u.charge(0, 80.0, 10);
        assert_eq!(usage(&mut u, 20), [80.0]); // case C
        assert_eq!(usage(&mut u, 50), [80.0]); // case A
        assert_eq!(usage(&mut u, 120), [40.0]); // case B: shifted once
        assert_eq!(usage(&mut u, 350), [10.0]); // two periods more
        assert_eq!(usage(&mut u, 520), [0.0]); // fell off the 4th bin
    }

    #[test]
    fn continuous_halves_every_half_life() {
        let mut u = DecayedUsage::new(Decay::Continuous, 100.0, 1, 0).unwrap();
        u.charge(0, 64.0, 0);
        approx::assert_relative_eq!(usage(&mut u, 300)[0], 8.0, max_relative = 1e-12);
        assert!(!u.due(1_000_000));
    }
}
