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

/// Changes to the decay model and its parameters (`fairsort usage decay|reset --model ...`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelOverrides {
    /// The model.
    pub model: Option<ModelKind>,
    /// PBS `fairshare_decay_time`, seconds.
    pub decay_time: Option<i64>,
    /// PBS `fairshare_decay_factor`; flux `decay_factor`.
    pub decay_factor: Option<f64>,
    /// Half-life, seconds.
    pub half_life: Option<i64>,
    /// Slurm `PriorityCalcPeriod`, seconds.
    pub calc_period: Option<i64>,
    /// Slurm `PriorityUsageResetPeriod` (any case).
    pub reset: Option<String>,
    /// flux `priority_usage_reset_period`, seconds.
    pub usage_reset_period: Option<i64>,
}

impl UsageSettings {
    /// Applies `o` over these settings. Under the PBS model the period and factor are first
    /// taken from the scheduler's `pbs_decay` (`fairshare_decay_time`, `fairshare_decay_factor`)
    /// unless given; the result is validated.
    pub fn apply(&mut self, o: &ModelOverrides, pbs_decay: (i64, f64)) -> Result<(), DecayError> {
        if let Some(model) = o.model {
            self.model = model;
        }
        if self.model == ModelKind::Pbs {
            (self.decay_time, self.decay_factor) = pbs_decay;
        }
        if let Some(t) = o.decay_time {
            self.decay_time = t;
        }
        if let Some(f) = o.decay_factor {
            self.decay_factor = f;
        }
        if let Some(h) = o.half_life {
            self.half_life = h;
        }
        if let Some(c) = o.calc_period {
            self.calc_period = c;
        }
        if let Some(r) = &o.reset {
            self.reset = r.to_ascii_uppercase();
        }
        if let Some(p) = o.usage_reset_period {
            self.usage_reset_period = p;
        }
        self.validate()
    }

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
