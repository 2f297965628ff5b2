//! `UsageStore`: per-entity usage, the time of the last decay and the decay settings, kept as
//! TOML in the home's `usage` file (human-readable; replaced atomically), with the job
//! ledger `usage.ledger` beside it. `UsageHome` opens both under the home's exclusive lock.

use crate::files::toml_spans::{line_col, locate, one_line};
use crate::mem::hash::SeededMap;
use crate::usage::decay::ModelKind;
use crate::usage::error::UsageError;
use crate::usage::job::FinishedJob;
use crate::usage::ledger::Ledger;
use crate::usage::marks::Mark;
use crate::usage::settings::{check_time, UsageSettings, MAX_FLUX_BINS};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One entity's usage. `account` is set for Slurm/flux associations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
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
    /// How far each recently recorded PBS log was fully charged (docs/usage.md, "Charged
    /// marks"), committed with the ledger length it goes with.
    #[serde(default, rename = "charged", skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<Mark>,
}

impl UsageStore {
    /// Parses and checks the TOML text of a store read from `path` (named in errors, with the
    /// line and column of the problem). Anything fairsort would not write is an error: unknown
    /// keys, a duplicate entity, a negative or non-finite usage or bin, a bad name, a setting
    /// out of its range. Such a file is never rewritten (every change loads it first).
    pub fn parse(text: &str, path: &Path) -> Result<UsageStore, UsageError> {
        let invalid = |at: (usize, usize), message: String| UsageError::Invalid {
            path: path.to_path_buf(),
            line: at.0,
            column: at.1,
            message,
        };
        let store: UsageStore = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or((1, 1), |s| line_col(text, s.start));
            invalid(at, one_line(e.message()))
        })?;
        store.check().map_err(|(where_, message)| {
            let steps: Vec<&str> = where_.iter().map(String::as_str).collect();
            invalid(locate(text, &steps), message)
        })?;
        Ok(store)
    }

    /// The first problem of a parsed store: its TOML key path and message.
    pub fn check(&self) -> Result<(), (Vec<String>, String)> {
        let at = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        if self.version != 1 {
            return Err((
                at(&["version"]),
                format!("unsupported usage store version {}", self.version),
            ));
        }
        if let Some(t) = self.last_decay {
            check_time("last_decay", t).map_err(|e| (at(&["last_decay"]), e.to_string()))?;
        }
        self.settings
            .check_ranges()
            .map_err(|(field, e)| (at(&["settings", field]), e.to_string()))?;
        let mut seen = crate::mem::hash::SeededSet::default();
        seen.reserve(self.entries.len());
        for (i, e) in self.entries.iter().enumerate() {
            // The entry's index is formatted only for a complaint (not 50 000 times).
            let here = |k: &str| at(&["entity", &i.to_string(), k]);
            check_name(&e.name).map_err(|m| (here("name"), m))?;
            if let Some(a) = &e.account {
                check_name(a).map_err(|m| (here("account"), m))?;
            }
            if !seen.insert((e.account.as_deref(), e.name.as_str())) {
                let who = match &e.account {
                    Some(a) => format!("{a}/{}", e.name),
                    None => e.name.clone(),
                };
                return Err((here("name"), format!("entity {who} appears twice")));
            }
            check_usage(e.usage).map_err(|m| (here("usage"), m))?;
            for b in &e.bins {
                check_usage(*b).map_err(|m| (here("bins"), format!("bin: {m}")))?;
            }
            if e.bins.len() > MAX_FLUX_BINS as usize {
                return Err((
                    here("bins"),
                    format!("{} bins; at most {MAX_FLUX_BINS}", e.bins.len()),
                ));
            }
        }
        let mut files = crate::mem::hash::SeededSet::default();
        for (i, m) in self.marks.iter().enumerate() {
            let i = i.to_string();
            m.check()
                .map_err(|(field, message)| (at(&["charged", &i, field]), message))?;
            if !files.insert(m.file.as_str()) {
                return Err((
                    at(&["charged", &i, "file"]),
                    format!("file {} has two marks", m.file),
                ));
            }
        }
        Ok(())
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
            marks: Vec::new(),
        }
    }
}

pub use crate::usage::checks::{check_name, check_usage, MAX_NAME_BYTES};

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
    entries: SeededMap<String, Entry>,
    /// Charged marks of PBS logs (kept with the ledger; cleared with it).
    pub(crate) marks: Vec<Mark>,
}

impl From<UsageStore> for Usage {
    /// A store loaded for changes (its entries indexed).
    fn from(s: UsageStore) -> Usage {
        Usage::from_store(s)
    }
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
            marks: s.marks,
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
            marks: self.marks.clone(),
        }
    }

    /// Forgets the charged marks (with the ledger: `reset --forget-jobs`).
    pub fn forget_marks(&mut self) {
        self.marks.clear();
    }

    /// Entries in (account, name) order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        let mut v: Vec<&Entry> = self.entries.values().collect();
        // The keys are distinct (a name has no control character, the map key joins them with
        // U+001F), so an unstable sort gives the same order.
        v.sort_unstable_by(|a, b| (&a.account, &a.name).cmp(&(&b.account, &b.name)));
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

    /// Adds a job's charge to its entity unless the ledger has seen it; true when charged. A job
    /// [`Usage::try_charge`] refuses charges nothing.
    pub fn charge(&mut self, ledger: &mut Ledger, job: &FinishedJob) -> bool {
        self.try_charge(ledger, job).unwrap_or(false)
    }

    /// [`Usage::charge`], refusing (before the ledger admits it) a job with a bad entity or
    /// account name, a negative or non-finite charge, or one that would make the usage overflow.
    /// PBS and Slurm add to the usage; flux adds to the current bin (its case C).
    pub fn try_charge(&mut self, ledger: &mut Ledger, job: &FinishedJob) -> Result<bool, String> {
        check_usage(job.charge).map_err(|m| format!("charge: {m}"))?;
        check_name(&job.entity).map_err(|m| format!("entity: {m}"))?;
        if let Some(a) = &job.account {
            check_name(a).map_err(|m| format!("account: {m}"))?;
        }
        let base = self.settings.model.base_usage();
        // One lookup: PBS entities are keyed by their name alone.
        let owned;
        let k: &str = match job.account.as_deref() {
            None => &job.entity,
            Some(a) => {
                owned = key(Some(a), &job.entity);
                &owned
            }
        };
        let found = self.entries.get_mut(k);
        let (now, bin) = found.as_ref().map_or((base, 0.0), |e| {
            (e.usage, e.bins.first().copied().unwrap_or(0.0))
        });
        if !(now + job.charge).is_finite() || !(bin + job.charge).is_finite() {
            return Err(format!(
                "charge {:e} would overflow the usage {now:e} of {}",
                job.charge, job.entity
            ));
        }
        if !ledger.admit(job) {
            return Ok(false);
        }
        let add = |e: &mut Entry| {
            e.usage += job.charge;
            if let Some(b0) = e.bins.first_mut() {
                *b0 += job.charge;
            }
        };
        if let Some(e) = found {
            add(e);
            return Ok(true);
        }
        add(self.entry(job.account.as_deref(), &job.entity));
        Ok(true)
    }

    /// Sets an entity's usage (`pbsfs -s`); flux bins become [value, 0, …].
    pub fn set(&mut self, account: Option<&str>, name: &str, value: f64) -> Result<(), UsageError> {
        check_usage(value).map_err(UsageError::Entity)?;
        check_name(name).map_err(UsageError::Entity)?;
        if let Some(a) = account {
            check_name(a).map_err(UsageError::Entity)?;
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
        check_time("decay time", at)?;
        self.settings.validate()?;
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
                    factor: match i32::try_from(step.periods) {
                        Ok(n) => f64::from(d.factor).powi(n),
                        Err(_) => f64::from(d.factor).powf(step.periods as f64),
                    },
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
                    if periods > 0 {
                        // What `periods` runs of flux's case B leave: shifted bins, usage the
                        // sum of all but the current one.
                        d.shift_by(&mut e.bins, periods);
                        e.usage = e.bins.iter().skip(1).sum();
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

/// Charging the jobs of PBS logs into a [`Usage`]: the entities (keyed by name alone) found
/// through a compact index — names in one arena, usage in a vector, a table of indices — that
/// stays in the CPU's caches where the store's map of 50 000 separately allocated names does
/// not. The same checks, ledger admission and additions in the same order as
/// [`Usage::try_charge`], so totals are bit-identical; [`PbsCharging::finish`] writes them back.
#[derive(Debug)]
pub(crate) struct PbsCharging {
    names: String,
    /// Entity i, everything charging reads and writes of it in one place (one cache line
    /// or two, instead of one per array).
    slots: Vec<Slot>,
    table: hashbrown::HashTable<u32>,
    base: f64,
    /// New entries get bins (flux model).
    new_bins: bool,
}

/// One entity of [`PbsCharging`].
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Its name is `names[at.0..at.1]`.
    at: (usize, usize),
    usage: f64,
    /// The first flux bin (None: the entry has no bins).
    bin0: Option<f64>,
    /// It was in the store before (else it is new).
    existed: bool,
    /// It was charged since (or is new).
    touched: bool,
}

impl PbsCharging {
    /// The index of `usage`'s entities that have no account.
    pub(crate) fn new(usage: &Usage) -> PbsCharging {
        let n = usage.entries.len();
        let mut c = PbsCharging {
            names: String::with_capacity(n * 8),
            slots: Vec::with_capacity(n),
            table: hashbrown::HashTable::with_capacity(n),
            base: usage.settings.model.base_usage(),
            new_bins: usage.settings.model == ModelKind::Flux,
        };
        for e in usage.entries.values().filter(|e| e.account.is_none()) {
            c.push(&e.name, e.usage, e.bins.first().copied(), true);
        }
        c
    }

    fn name_at(names: &str, at: (usize, usize)) -> &str {
        names.get(at.0..at.1).unwrap_or_default()
    }

    fn name(&self, i: u32) -> &str {
        let at = self.slots.get(i as usize).map_or((0, 0), |s| s.at);
        Self::name_at(&self.names, at)
    }

    fn hash(name: &str) -> u64 {
        crate::mem::hash::hash_one(name)
    }

    fn push(&mut self, name: &str, usage: f64, bin0: Option<f64>, existed: bool) -> usize {
        let i = self.slots.len();
        let a = self.names.len();
        self.names.push_str(name);
        self.slots.push(Slot {
            at: (a, self.names.len()),
            usage,
            bin0,
            existed,
            touched: !existed,
        });
        let Self {
            table,
            names,
            slots,
            ..
        } = self;
        let key = |j: &u32| {
            let at = slots.get(*j as usize).map_or((0, 0), |s| s.at);
            Self::hash(Self::name_at(names, at))
        };
        table.insert_unique(Self::hash(name), i as u32, key);
        i
    }

    /// [`Usage::try_charge`] of a job of a PBS log, checked and formatted on a parsing thread
    /// (`pbs_span`): the same overflow refusal, ledger admission and addition.
    pub(crate) fn charge(
        &mut self,
        ledger: &mut Ledger,
        job: &crate::usage::job::PreparedCharge<'_>,
    ) -> Result<bool, String> {
        let h = Self::hash(job.entity);
        let found = self
            .table
            .find(h, |i| self.name(*i) == job.entity)
            .map(|i| *i as usize);
        let (now, bin) = match found.and_then(|i| self.slots.get(i)) {
            Some(s) => (s.usage, s.bin0.unwrap_or(0.0)),
            None => (self.base, 0.0),
        };
        if !(now + job.charge).is_finite() || !(bin + job.charge).is_finite() {
            return Err(format!(
                "charge {:e} would overflow the usage {now:e} of {}",
                job.charge, job.entity
            ));
        }
        if !ledger.admit_line(job.fp, job.line) {
            return Ok(false);
        }
        match found.and_then(|i| self.slots.get_mut(i)) {
            Some(s) => {
                s.usage += job.charge;
                if let Some(b) = &mut s.bin0 {
                    *b += job.charge;
                }
                s.touched = true;
            }
            None => {
                let bin0 = self.new_bins.then_some(0.0 + job.charge);
                self.push(job.entity, self.base + job.charge, bin0, false);
            }
        }
        Ok(true)
    }

    /// Writes the charged entities' usage (and first bins) back into `usage`.
    pub(crate) fn finish(self, usage: &mut Usage) {
        let new = self.slots.iter().filter(|s| !s.existed).count();
        usage.entries.reserve(new);
        for s in self.slots.iter().filter(|s| s.touched) {
            let name = Self::name_at(&self.names, s.at);
            let e = if s.existed {
                match usage.entries.get_mut(name) {
                    Some(e) => e,
                    None => continue,
                }
            } else {
                usage.entry(None, name)
            };
            e.usage = s.usage;
            if let (Some(b0), Some(b)) = (e.bins.first_mut(), s.bin0) {
                *b0 = b;
            }
        }
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
    fn hand_edited_store_is_checked_with_line_and_column() {
        let path = Path::new("/h/usage.toml");
        let head = "version = 1\n[settings]\nmodel = \"pbs\"\n";
        let cases = [
            ("[[entity]]\nname = \"a\"\nusage = -2.0\n", "/h/usage.toml:6:9: usage must be a finite number >= 0, got -2"),
            ("[[entity]]\nname = \"a\"\nusage = nan\n", "/h/usage.toml:6:9: usage must be a finite number >= 0, got NaN"),
            ("[[entity]]\nname = \"a\"\nusage = inf\n", "/h/usage.toml:6:9: usage must be a finite number >= 0, got inf"),
            ("[[entity]]\nname = \"a\"\nusage = 1.0\n[[entity]]\nname = \"a\"\nusage = 2.0\n", "/h/usage.toml:8:8: entity a appears twice"),
            ("[[entity]]\nname = \"a\"\nusage = 1.0\nusgae = 2.0\n", "/h/usage.toml:7:1: unknown field `usgae`, expected one of `name`, `account`, `usage`, `bins`"),
            ("[[entity]]\nname = \"a\\u0007b\"\nusage = 1.0\n", "/h/usage.toml:5:8: name \"a\\u{7}b\" contains the control character '\\u{7}'"),
        ];
        for (tail, want) in cases {
            let e = UsageStore::parse(&format!("{head}{tail}"), path).unwrap_err();
            assert_eq!(e.to_string(), want);
        }
        let e = UsageStore::parse(
            "version = 1\n[settings]\nhalf_life = 1\nmodel = \"flux\"\n",
            path,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("/h/usage.toml:3:13: priority_usage_reset_period 2419200"),
            "{e}"
        );
        let e = UsageStore::parse(
            "version = 1\n[settings]\nusage_reset_period = 9223372036854775807\n",
            path,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("/h/usage.toml:3:22: usage_reset_period must be from 0 to"),
            "{e}"
        );
        let e = UsageStore::parse("version = 1\nlast_decay = -5\n", path)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("/h/usage.toml:2:14: last_decay -5 is outside"),
            "{e}"
        );
        let e = UsageStore::parse("version = 1\nextra = 2\n", path)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("/h/usage.toml:2:1: unknown field `extra`"),
            "{e}"
        );
    }

    #[test]
    fn charges_that_would_overflow_or_poison_are_refused() {
        let mut u = Usage::from_store(UsageStore::default());
        let mut l = Ledger::default();
        assert!(u
            .try_charge(&mut l, &FinishedJob::pbs("1", 100, "a", f64::MAX))
            .unwrap());
        let e = u
            .try_charge(&mut l, &FinishedJob::pbs("2", 100, "a", f64::MAX))
            .unwrap_err();
        assert!(e.contains("overflow"), "{e}");
        assert!(u
            .try_charge(&mut l, &FinishedJob::pbs("3", 100, "b", f64::NAN))
            .is_err());
        assert!(u
            .try_charge(&mut l, &FinishedJob::pbs("4", 100, "b", -1.0))
            .is_err());
        assert!(u
            .try_charge(&mut l, &FinishedJob::pbs("5", 100, "b\n", 1.0))
            .is_err());
        // a refused job is not in the ledger: once fixed it can be charged
        assert!(u
            .try_charge(&mut l, &FinishedJob::pbs("3", 100, "b", 1.0))
            .unwrap());
        assert!(u.set(None, "x\ty", 1.0).is_err());
        assert!(u.set(None, "x", f64::INFINITY).is_err());
    }

    #[test]
    fn far_future_decay_is_instant_and_normal_spans_unchanged() {
        // PBS: the loop result, bit for bit, for 30 daily periods
        let mut u = Usage::from_store(UsageStore::default());
        u.set(None, "a", 123_456.789).unwrap();
        u.last_decay = Some(0);
        u.decay(30 * 86_400 + 1).unwrap();
        let mut want = 123_456.789f64;
        for _ in 0..30 {
            want *= f64::from(0.5f32);
            if want < 1.0 {
                want = 1.0;
            }
        }
        assert_eq!(u.usage_of(None, "a"), want);
        let r = u.decay(crate::usage::settings::MAX_TIME).unwrap();
        assert!(r.periods > 2_000_000);
        assert_eq!(u.usage_of(None, "a"), 1.0);
        assert!(u.decay(crate::usage::settings::MAX_TIME + 1).is_err());
        // flux with the most bins: far future empties them without millions of shifts
        let mut f = Usage::from_store(UsageStore::default());
        f.settings.model = ModelKind::Flux;
        f.settings.half_life = 1;
        f.settings.usage_reset_period = 1024;
        f.set(Some("bank"), "u", 100.0).unwrap();
        f.last_decay = Some(0);
        f.decay(crate::usage::settings::MAX_TIME).unwrap();
        assert_eq!(f.usage_of(Some("bank"), "u"), 0.0);
        // slurm: years of 1-second calc periods
        let mut sl = Usage::from_store(UsageStore::default());
        sl.settings.model = ModelKind::Slurm;
        sl.settings.calc_period = 1;
        sl.set(None, "a", 1e6).unwrap();
        sl.last_decay = Some(0);
        sl.decay(crate::usage::settings::MAX_TIME).unwrap();
        assert_eq!(sl.usage_of(None, "a"), 0.0);
    }

    mod props {
        use super::*;
        use crate::pbs::usage_file::{check_writable, read_usage, write_usage_binary};
        use proptest::prelude::*;

        fn name() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-z][a-z0-9_.:-]{0,12}",
                "[ -~]{1,60}",
                any::<String>(),
                Just("unknown".to_string()),
            ]
        }

        fn value() -> impl Strategy<Value = f64> {
            prop_oneof![
                0.0..1e12f64,
                any::<f64>(),
                Just(1.0),
                Just(f64::MAX),
                Just(f64::NAN),
                Just(-0.0),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            /// What `usage set` accepts, the store writes and reads back as it was; what the PBS
            /// export would write, its reader reads back as it was, and what it refuses is never
            /// written.
            #[test]
            fn store_and_pbs_export_round_trip(
                items in proptest::collection::vec((proptest::option::of(name()), name(), value()), 0..12),
                last in prop_oneof![Just(None), (0i64..=crate::usage::settings::MAX_TIME).prop_map(Some)],
            ) {
                let mut u = Usage::from_store(UsageStore::default());
                u.last_decay = last;
                for (account, name, v) in &items {
                    let ok = u.set(account.as_deref(), name, *v).is_ok();
                    prop_assert_eq!(ok, check_usage(*v).is_ok() && check_name(name).is_ok()
                        && account.as_deref().is_none_or(|a| check_name(a).is_ok()));
                }
                let store = u.to_store();
                let text = store.render(Path::new("usage.toml")).unwrap();
                let back = UsageStore::parse(&text, Path::new("usage.toml"));
                prop_assert!(back.is_ok(), "{:?}\n{}", back.err(), text);
                prop_assert_eq!(back.unwrap(), store);

                let pbs = crate::inputs::export::to_pbs_usage(&u);
                let bytes = write_usage_binary(&pbs);
                match check_writable(&pbs) {
                    Ok(()) => {
                        let read = read_usage(&bytes);
                        prop_assert!(read.is_ok(), "{:?}", read.err());
                        let read = read.unwrap();
                        prop_assert_eq!(read.entries, pbs.entries);
                        prop_assert_eq!(read.last_decay, Some(pbs.last_decay.unwrap_or(0)));
                    }
                    Err(_) => {
                        let dir = tempfile::tempdir().unwrap();
                        let p = dir.path().join("usage");
                        prop_assert!(crate::inputs::write_pbs_usage(&u, &p, false).is_err());
                        prop_assert!(!p.exists());
                    }
                }
            }
        }
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
