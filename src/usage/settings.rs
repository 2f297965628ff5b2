//! `UsageSettings`: the decay model of a usage store and its parameters, kept in the store so
//! every `fairsort usage decay` applies the same model.

use super::decay::{DecayError, FluxDecay, HalfLife, ModelKind, PbsDecay, ResetPeriod, SlurmDecay};
use serde::{Deserialize, Serialize};

/// The decay model and all its parameters (each model reads its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UsageSettings {
    /// Which model: `pbs` (default), `slurm`, `flux`, `half-life`.
    pub model: ModelKind,
    /// PBS `fairshare_decay_time`, seconds.
    pub decay_time: i64,
    /// PBS `fairshare_decay_factor`; flux `decay_factor`.
    pub decay_factor: f64,
    /// Slurm `PriorityDecayHalfLife`, flux `priority_decay_half_life`, or the exact half-life; seconds.
    pub half_life: i64,
    /// Slurm `PriorityCalcPeriod`, seconds.
    pub calc_period: i64,
    /// Slurm `PriorityUsageResetPeriod` (NONE, DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY).
    pub reset: String,
    /// flux `priority_usage_reset_period`, seconds (number of bins = this / half_life).
    pub usage_reset_period: i64,
}

impl Default for UsageSettings {
    /// Each scheduler's defaults; model PBS.
    fn default() -> Self {
        UsageSettings {
            model: ModelKind::Pbs,
            decay_time: 86_400,
            decay_factor: 0.5,
            half_life: 604_800,
            calc_period: 300,
            reset: "NONE".into(),
            usage_reset_period: 2_419_200,
        }
    }
}

impl UsageSettings {
    /// The PBS model.
    pub fn pbs(&self) -> Result<PbsDecay, DecayError> {
        PbsDecay::new(self.decay_time, self.decay_factor)
    }

    /// The Slurm model.
    pub fn slurm(&self) -> Result<SlurmDecay, DecayError> {
        SlurmDecay::new(
            self.half_life,
            self.calc_period,
            self.reset.parse::<ResetPeriod>()?,
        )
    }

    /// The flux model.
    pub fn flux(&self) -> Result<FluxDecay, DecayError> {
        FluxDecay::new(self.half_life, self.usage_reset_period, self.decay_factor)
    }

    /// The exact half-life model.
    pub fn half_life(&self) -> Result<HalfLife, DecayError> {
        HalfLife::new(self.half_life as f64)
    }

    /// Checks the parameters of the selected model.
    pub fn validate(&self) -> Result<(), DecayError> {
        match self.model {
            ModelKind::Pbs => self.pbs().map(|_| ()),
            ModelKind::Slurm => self.slurm().map(|_| ()),
            ModelKind::Flux => self.flux().map(|_| ()),
            ModelKind::HalfLife => self.half_life().map(|_| ()),
        }
    }
}
