//! `UsageSettings`: the decay model of a usage store and its parameters, kept in the store so
//! every `fairsort usage decay` applies the same model.

use crate::usage::decay::{
    DecayError, FluxDecay, HalfLife, ModelKind, PbsDecay, ResetPeriod, SlurmDecay,
};
use serde::{Deserialize, Serialize};

/// The longest period, half-life or reset period a setting may have: 100 years in seconds.
/// Bounding it keeps every later computation (period counts, bin counts, `last_decay`
/// arithmetic) far from overflow.
pub const MAX_PERIOD: i64 = 100 * 365 * 86_400;

pub use crate::usage::decay::flux::MAX_FLUX_BINS;

/// The latest time fairsort accepts (`--at`, `last_decay`, record end times):
/// 9999-12-31T23:59:59Z. Times before the epoch are refused too.
pub const MAX_TIME: i64 = 253_402_300_799;

/// Checks that `t` (epoch seconds) is from 0 to [`MAX_TIME`]; `what` names it in the message.
pub fn check_time(what: &str, t: i64) -> Result<(), DecayError> {
    if (0..=MAX_TIME).contains(&t) {
        Ok(())
    } else {
        Err(DecayError::Period(format!(
            "{what} {t} is outside 0 (1970-01-01) to {MAX_TIME} (9999-12-31T23:59:59Z)"
        )))
    }
}

/// The decay model and all its parameters (each model reads its own). The range of each is
/// documented in docs/usage.md and checked by [`UsageSettings::check_ranges`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
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

    /// Checks every parameter against its range, and the selected model's own constraints;
    /// on failure the name of the offending setting (as in the store file) and the message.
    pub fn check_ranges(&self) -> Result<(), (&'static str, DecayError)> {
        let period = |name: &'static str, v: i64, min: i64| {
            if (min..=MAX_PERIOD).contains(&v) {
                Ok(())
            } else {
                Err((
                    name,
                    DecayError::Period(format!(
                        "{name} must be from {min} to {MAX_PERIOD} seconds (100 years), got {v}"
                    )),
                ))
            }
        };
        period("decay_time", self.decay_time, 1)?;
        period("half_life", self.half_life, 0)?;
        period("calc_period", self.calc_period, 1)?;
        period("usage_reset_period", self.usage_reset_period, 0)?;
        let field = match self.model {
            ModelKind::Pbs => "decay_time",
            ModelKind::Slurm => "calc_period",
            ModelKind::Flux | ModelKind::HalfLife => "half_life",
        };
        // The selected model's own checks first: they word a bad factor as its scheduler does.
        self.validate_model().map_err(|e| match e {
            DecayError::Factor(_) => ("decay_factor", e),
            DecayError::Period(_) => (field, e),
        })?;
        let f = self.decay_factor;
        if !(f > 0.0 && f < 1.0) {
            return Err((
                "decay_factor",
                DecayError::Factor(format!(
                    "decay_factor must be between 0 and 1 (exclusive), got {f}"
                )),
            ));
        }
        self.reset
            .parse::<ResetPeriod>()
            .map_err(|e| ("reset", e))?;
        Ok(())
    }

    /// Checks every parameter's range and the selected model's constraints.
    pub fn validate(&self) -> Result<(), DecayError> {
        self.check_ranges().map_err(|(_, e)| e)
    }

    fn validate_model(&self) -> Result<(), DecayError> {
        match self.model {
            ModelKind::Pbs => self.pbs().map(|_| ()),
            ModelKind::Slurm => self.slurm().map(|_| ()),
            ModelKind::Flux => self.flux().map(|_| ()),
            ModelKind::HalfLife => self.half_life().map(|_| ()),
        }
    }
}
