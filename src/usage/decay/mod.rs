//! Decay models, each matching its scheduler: PBS (factor per period, floor 1), Slurm
//! (δ = 1 − 0.693/H per second, applied per calc period; reset periods), flux-accounting
//! (half-life bins) and the exact continuous half-life.

pub mod calendar;
pub mod flux;
pub mod halflife;
pub mod pbs;
pub mod slurm;
pub use flux::{FluxCase, FluxDecay};
pub use halflife::HalfLife;
pub use pbs::{PbsDecay, PbsDecayStep, PBS_MIN_USAGE};
pub use slurm::{ResetPeriod, SlurmDecay, SlurmDecayStep};

use serde::{Deserialize, Serialize};

/// A decay setting that the scheduler would reject.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecayError {
    /// A bad decay factor (message as the scheduler words it).
    #[error("{0}")]
    Factor(String),
    /// A bad period, half-life or reset period.
    #[error("{0}")]
    Period(String),
}

/// Which scheduler's usage semantics a usage store follows: decay model and floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// PBS: usage starts at 1, decays by `fairshare_decay_factor` per `fairshare_decay_time`.
    #[default]
    Pbs,
    /// Slurm: usage starts at 0, δ^Δ per calc period, reset periods.
    Slurm,
    /// flux-accounting: half-life bins per association.
    Flux,
    /// Exact continuous half-life 2^(−Δ/H).
    HalfLife,
}

impl std::str::FromStr for ModelKind {
    type Err = DecayError;
    /// `pbs`, `slurm`, `flux` or `half-life`.
    fn from_str(s: &str) -> Result<Self, DecayError> {
        Ok(match s {
            "pbs" => ModelKind::Pbs,
            "slurm" => ModelKind::Slurm,
            "flux" => ModelKind::Flux,
            "half-life" | "halflife" => ModelKind::HalfLife,
            _ => {
                return Err(DecayError::Period(format!(
                    "unknown decay model `{s}` (pbs, slurm, flux, half-life)"
                )))
            }
        })
    }
}

impl ModelKind {
    /// The name used on the command line and in the usage file.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Pbs => "pbs",
            ModelKind::Slurm => "slurm",
            ModelKind::Flux => "flux",
            ModelKind::HalfLife => "half-life",
        }
    }

    /// The usage of an entity that has never been charged (PBS: 1, others: 0).
    pub(crate) fn base_usage(self) -> f64 {
        match self {
            ModelKind::Pbs => PBS_MIN_USAGE,
            _ => 0.0,
        }
    }
}
