//! `UsageStore`: per-entity usage, the time of the last decay and the decay settings, kept as
//! TOML in the server home's `usage` file (human-readable; replaced atomically), with the job
//! ledger `usage.ledger` beside it. `UsageHome` opens both under the home's exclusive lock.

use super::decay::{FluxCase, ModelKind};
use super::error::UsageError;
use super::job::FinishedJob;
use super::ledger::Ledger;
use super::settings::UsageSettings;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// One entity's usage. `account` is set for Slurm/flux associations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Entity (PBS) or user (Slurm, flux) name.
    pub name: String,
    /// Account/bank of a Slurm or flux association.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// Raw (decayed) usage.
    pub usage: f64,
    /// flux half-life bins, period 0 first (flux model only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bins: Vec<f64>,
}

/// The whole store as kept in `usage.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageStore {
    /// Format version (1).
    pub version: u32,
    /// Epoch seconds of the last decay (None until the first record or decay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_decay: Option<i64>,
    /// Committed length of `usage.ledger` in bytes.
    #[serde(default)]
    pub ledger_bytes: u64,
    /// Decay model and parameters.
    #[serde(default)]
    pub settings: UsageSettings,
    /// Entities, sorted by (account, name).
    #[serde(default, rename = "entity")]
    pub entries: Vec<Entry>,
}

impl UsageStore {
    /// Parses and checks the TOML text of a store read from `path` (named in errors).
    pub fn parse(text: &str, path: &Path) -> Result<UsageStore, UsageError> {
        let store: UsageStore = toml::from_str(text).map_err(|e| UsageError::Store {
            path: path.to_path_buf(),
            message: e.message().to_string(),
        })?;
        if store.version != 1 {
            return Err(UsageError::Store {
                path: path.to_path_buf(),
                message: format!("unsupported usage store version {}", store.version),
            });
        }
        store.settings.validate()?;
        Ok(store)
    }

    /// The store as the TOML text kept in the home, with its header comment.
    pub fn render(&self, path: &Path) -> Result<String, UsageError> {
        let text = toml::to_string(self).map_err(|e| UsageError::Store {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(format!(
            "# fairsort usage store (docs/usage.md). Change it with `fairsort usage`.\n{text}"
        ))
    }
}

impl Default for UsageStore {
    fn default() -> Self {
        UsageStore {
            version: 1,
            last_decay: None,
            ledger_bytes: 0,
            settings: UsageSettings::default(),
            entries: Vec::new(),
        }
    }
}

/// What a decay run did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DecayReport {
    /// Periods (PBS, Slurm calc periods, flux half-lives) applied; 0 for none.
    pub periods: u64,
    /// The factor applied to every usage (PBS: before the floor); 1 for flux shifts.
    pub factor: f64,
    /// True when a Slurm reset boundary zeroed all usage.
    pub reset: bool,
    /// The new last-decay time.
    pub last_decay: i64,
}

/// The in-memory key: the name alone, or `account` + U+001F + name for associations.
fn key(account: Option<&str>, name: &str) -> String {
    match account {
        None => name.to_string(),
        Some(a) => format!("{a}\u{1f}{name}"),
    }
}

/// A usage store loaded for changes: entries indexed by (account, name).
#[derive(Debug, Clone)]
pub struct Usage {
    /// Decay model and parameters.
    pub settings: UsageSettings,
    /// Epoch seconds of the last decay.
    pub last_decay: Option<i64>,
    /// Committed ledger length.
    pub ledger_bytes: u64,
    entries: HashMap<String, Entry>,
}

impl Usage {
    /// From the file form.
    pub(crate) fn from_store(s: UsageStore) -> Usage {
        let entries = s
            .entries
            .into_iter()
            .map(|e| (key(e.account.as_deref(), &e.name), e))
            .collect();
        Usage {
            settings: s.settings,
            last_decay: s.last_decay,
            ledger_bytes: s.ledger_bytes,
            entries,
        }
    }

    /// To the file form.
    pub(crate) fn to_store(&self) -> UsageStore {
        UsageStore {
            version: 1,
            last_decay: self.last_decay,
            ledger_bytes: self.ledger_bytes,
            settings: self.settings.clone(),
            entries: self.entries().cloned().collect(),
        }
    }

    /// Entries in (account, name) order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        let mut v: Vec<&Entry> = self.entries.values().collect();
        v.sort_by(|a, b| (&a.account, &a.name).cmp(&(&b.account, &b.name)));
        v.into_iter()
    }

    /// The usage of an entity, or the model's base usage (PBS 1, others 0) if never charged.
    pub fn usage_of(&self, account: Option<&str>, name: &str) -> f64 {
        self.entries
            .get(&key(account, name))
            .map_or(self.settings.model.base_usage(), |e| e.usage)
    }

    fn entry(&mut self, account: Option<&str>, name: &str) -> &mut Entry {
        let model = self.settings.model;
        let bins = if model == ModelKind::Flux {
            self.settings.flux().map(|f| f.bins()).unwrap_or(4)
        } else {
            0
        };
        self.entries
            .entry(key(account, name))
            .or_insert_with(|| Entry {
                name: name.to_string(),
                account: account.map(str::to_string),
                usage: model.base_usage(),
                bins: vec![0.0; bins],
            })
    }

    /// Adds a job's charge to its entity unless the ledger has seen it; true when charged.
    /// PBS and Slurm add to the usage; flux adds to the current bin (its case C).
    pub fn charge(&mut self, ledger: &mut Ledger, job: &FinishedJob) -> bool {
        if !ledger.admit(job) {
            return false;
        }
        let add = |e: &mut Entry| {
            e.usage += job.charge;
            if let Some(b0) = e.bins.first_mut() {
                *b0 += job.charge;
            }
        };
        if job.account.is_none() {
            // the common PBS case, without allocating a key
            if let Some(e) = self.entries.get_mut(job.entity.as_str()) {
                add(e);
                return true;
            }
        }
        add(self.entry(job.account.as_deref(), &job.entity));
        true
    }

    /// Sets an entity's usage (`pbsfs -s`); flux bins become [value, 0, …].
    pub fn set(&mut self, account: Option<&str>, name: &str, value: f64) -> Result<(), UsageError> {
        if !(value.is_finite() && value >= 0.0) {
            return Err(UsageError::Entity(format!(
                "usage must be a non-negative number, got {value}"
            )));
        }
        let e = self.entry(account, name);
        e.usage = value;
        if let Some((b0, rest)) = e.bins.split_first_mut() {
            *b0 = value;
            rest.iter_mut().for_each(|b| *b = 0.0);
        }
        Ok(())
    }

    /// All usage back to the model's base (PBS 1 = no entries; Slurm/flux 0).
    pub fn reset(&mut self, at: i64) {
        self.entries.clear();
        self.last_decay = Some(at);
    }

    /// Decays everything from `last_decay` to `at` with the store's model. The first decay of a
    /// new store only sets `last_decay`.
    pub fn decay(&mut self, at: i64) -> Result<DecayReport, UsageError> {
        let Some(last) = self.last_decay else {
            self.last_decay = Some(at);
            return Ok(DecayReport {
                periods: 0,
                factor: 1.0,
                reset: false,
                last_decay: at,
            });
        };
        let report = match self.settings.model {
            ModelKind::Pbs => {
                let d = self.settings.pbs()?;
                let step = d.step(last, at);
                for e in self.entries.values_mut() {
                    e.usage = d.apply(e.usage, step.periods);
                }
                DecayReport {
                    periods: step.periods,
                    factor: f64::from(d.factor).powi(step.periods.min(i32::MAX as u64) as i32),
                    reset: false,
                    last_decay: step.last_decay,
                }
            }
            ModelKind::Slurm => {
                let step = self.settings.slurm()?.step(last, at);
                for e in self.entries.values_mut() {
                    e.usage = if step.reset {
                        0.0
                    } else {
                        e.usage * step.factor
                    };
                }
                DecayReport {
                    periods: step.periods,
                    factor: step.factor,
                    reset: step.reset,
                    last_decay: step.last_decay,
                }
            }
            ModelKind::HalfLife => {
                let h = self.settings.half_life()?;
                let f = h.factor(at.saturating_sub(last).max(0) as f64);
                for e in self.entries.values_mut() {
                    e.usage *= f;
                }
                DecayReport {
                    periods: u64::from(at > last),
                    factor: f,
                    reset: false,
                    last_decay: at.max(last),
                }
            }
            ModelKind::Flux => {
                let d = self.settings.flux()?;
                let periods = (at.saturating_sub(last).max(0) / d.half_life) as u64;
                let n = d.bins();
                for e in self.entries.values_mut() {
                    e.bins.resize(n, 0.0);
                    for _ in 0..periods.min(n as u64 + 1) {
                        if let (FluxCase::B, Some(u)) = d.update(&mut e.bins, None, true) {
                            e.usage = u;
                        }
                    }
                }
                DecayReport {
                    periods,
                    factor: 1.0,
                    reset: false,
                    last_decay: last + periods as i64 * d.half_life,
                }
            }
        };
        self.last_decay = Some(report.last_decay);
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn slurm_and_half_life_and_flux_models() {
        let mut u = Usage::from_store(UsageStore::default());
        u.settings.model = ModelKind::Slurm;
        let mut l = Ledger::default();
        u.charge(&mut l, &FinishedJob::pbs("1", 100, "a", 1000.0));
        u.decay(0).unwrap();
        u.decay(300).unwrap();
        assert_relative_eq!(
            u.usage_of(None, "a"),
            1000.0 * 0.999656308878,
            epsilon = 1e-8
        );

        u.settings.model = ModelKind::HalfLife;
        u.decay(300 + 604_800).unwrap();
        assert_relative_eq!(
            u.usage_of(None, "a"),
            500.0 * 0.999656308878,
            epsilon = 1e-8
        );

        let mut f = Usage::from_store(UsageStore::default());
        f.settings.model = ModelKind::Flux;
        f.set(Some("bank"), "u", 100.0).unwrap();
        f.decay(0).unwrap();
        for (t, want) in [
            (604_800, 50.0),
            (2 * 604_800, 25.0),
            (3 * 604_800 + 5, 12.5),
        ] {
            f.decay(t).unwrap();
            assert_eq!(f.usage_of(Some("bank"), "u"), want);
        }
        assert_eq!(f.entries().next().unwrap().bins, vec![0.0, 0.0, 0.0, 12.5]);
        assert_eq!(f.last_decay, Some(3 * 604_800));
    }

    #[test]
    fn damaged_store_is_an_error() {
        let path = Path::new("usage.toml");
        assert!(UsageStore::parse("version = 1\n[settings]\ndecay_factor = 2.0\n", path).is_err());
        assert!(UsageStore::parse("version = [", path).is_err());
        assert!(UsageStore::parse("version = 2", path).is_err());
        assert!(UsageStore::parse("version = 1", path).is_ok());
    }
}
