//! Recording: read finished-job records from files (format given or detected), charge each job
//! once into a `Usage` through the `Ledger`, and report what was charged, repeated and skipped.

use crate::fairshare::TreeSpec;
use crate::flux::jobs_table::read_jobs_table;
use crate::pbs::accounting::log::{expand_inputs, ReadStats};
use crate::pbs::accounting::record::{fully_charged, read_pbs, Files, PbsSink};
use crate::pbs::defs::FairshareEntity;
use crate::slurm::sacct::{read_sacct, BillingWeights};
use crate::usage::apply::{associations, pbs_groups, UnmatchedTally, UnmatchedUsage};
use crate::usage::charge::Charge;
use crate::usage::error::{Malformed, UsageError};
use crate::usage::job::FinishedJob;
use crate::usage::job::PreparedCharge;
use crate::usage::ledger::Ledger;
use crate::usage::store::{PbsCharging, Usage};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// The record formats `fairsort usage record` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// PBS accounting log (file or directory of daily files).
    Pbs,
    /// Slurm `sacct -P` output with a header line.
    Slurm,
    /// flux-accounting SQLite database (`jobs` table).
    Flux,
}

impl InputFormat {
    /// Every record format, in `--help` order.
    pub const ALL: [InputFormat; 3] = [InputFormat::Pbs, InputFormat::Slurm, InputFormat::Flux];

    /// The command-line name (`--format pbs`).
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Pbs => "pbs",
            InputFormat::Slurm => "slurm",
            InputFormat::Flux => "flux",
        }
    }
}

impl std::fmt::Display for InputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for InputFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        InputFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!("unknown record format `{s}` (expected one of: pbs, slurm, flux)")
            })
    }
}

/// How to read and charge records.
pub struct RecordOptions<'a> {
    /// The format; None = detect per input (SQLite header → flux, a `|` header with JobID →
    /// slurm, else PBS).
    pub format: Option<InputFormat>,
    /// PBS `fairshare_entity`.
    pub entity: FairshareEntity,
    /// PBS `fairshare_usage_res`.
    pub charge: &'a dyn Charge,
    /// Slurm `TRESBillingWeights` (empty = the row's billing TRES or AllocCPUS).
    pub weights: BillingWeights,
    /// The share tree the jobs' associations (Slurm, flux) are checked against: a job of no
    /// association is still recorded, and reported in [`RecordReport::unmatched`].
    pub tree: Option<&'a TreeSpec>,
    /// Called as a PBS log is read: (bytes of the current file read, its size); the command
    /// line draws a progress bar with it (the library prints nothing).
    pub progress: Option<&'a dyn Fn(u64, u64)>,
}

/// What a record run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RecordReport {
    /// Read counts summed over the inputs.
    pub stats: ReadStats,
    /// Jobs newly charged.
    pub charged: u64,
    /// Jobs skipped because the ledger had charged them before.
    pub repeated: u64,
    /// Sum of the new charges.
    pub total_charge: f64,
    /// Malformed records, each skipped.
    pub malformed: Vec<Malformed>,
    /// Newly charged jobs (Slurm, flux) whose association is not in [`RecordOptions::tree`]:
    /// recorded, but not counted by the tree until the association exists.
    pub unmatched: UnmatchedUsage,
    /// Newly charged PBS entities that are not in [`RecordOptions::tree`] (a PBS tree): PBS
    /// counts them under the `unknown` group with 1 share each. Sorted.
    pub unknown_entities: Vec<String>,
}

/// Counts one charged job of `account`/`user` (allocating only for a new association).
fn tally_association(
    map: &mut HashMap<String, HashMap<String, (usize, f64)>>,
    account: &str,
    user: &str,
    charge: f64,
) {
    let Some(users) = map.get_mut(account) else {
        map.insert(
            account.to_string(),
            HashMap::from([(user.to_string(), (1, charge))]),
        );
        return;
    };
    match users.get_mut(user) {
        Some(e) => {
            e.0 += 1;
            e.1 += charge;
        }
        None => {
            users.insert(user.to_string(), (1, charge));
        }
    }
}

/// Detects an input's format from its first bytes (a directory is PBS's daily-file layout).
pub fn detect(path: &Path) -> Result<InputFormat, UsageError> {
    if path.is_dir() {
        return Ok(InputFormat::Pbs);
    }
    let mut head = [0u8; 512];
    let n = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| UsageError::io(path, e))?;
    let head = &head[..n];
    if head.starts_with(b"SQLite format 3\0") {
        return Ok(InputFormat::Flux);
    }
    let first = head.split(|c| *c == b'\n').next().unwrap_or_default();
    let lower = first.to_ascii_lowercase();
    if lower.contains(&b'|') && lower.windows(5).any(|w| w == b"jobid") {
        return Ok(InputFormat::Slurm);
    }
    Ok(InputFormat::Pbs)
}

/// Reads every input and charges its new jobs into `usage`.
///
/// A PBS log's prefix charged before is skipped when its charged mark still matches (docs/usage.md,
/// "Charged marks"), its jobs counted as already charged; the rest is parsed on every worker and
/// charged in file order.
pub fn record(
    inputs: &[PathBuf],
    opts: &RecordOptions<'_>,
    usage: &mut Usage,
    ledger: &mut Ledger,
) -> Result<RecordReport, UsageError> {
    let mut marks = std::mem::take(&mut usage.marks);
    let report = record_with(inputs, opts, usage, ledger, &mut marks);
    usage.marks = marks;
    report
}

/// The report of recording `inputs` when they are PBS logs already charged to their end by
/// charged marks that still match (docs/usage.md, "Charged marks"): what [`record`] would report,
/// found without the ledger, without parsing, and from the store's file form (`store.marks`: no
/// entity index is built). `None` when anything is left to read.
pub fn already_charged(
    inputs: &[PathBuf],
    opts: &RecordOptions<'_>,
    store: &crate::usage::UsageStore,
) -> Result<Option<RecordReport>, UsageError> {
    for input in inputs {
        let format = match opts.format {
            Some(f) => f,
            None => detect(input)?,
        };
        if format != InputFormat::Pbs {
            return Ok(None);
        }
    }
    let done = fully_charged(inputs, opts.entity, opts.charge, &store.marks)?;
    Ok(done.map(|(stats, jobs)| RecordReport {
        stats,
        repeated: jobs,
        ..RecordReport::default()
    }))
}

/// Charges the jobs of every input into the usage through the ledger, counting what it did.
struct Charger<'a, 'o> {
    usage: &'a mut Usage,
    ledger: &'a mut Ledger,
    tree: Option<&'o TreeSpec>,
    /// A PBS tree's leaves, to name the new entities PBS puts under `unknown`.
    pbs_groups: Option<HashMap<&'o str, &'o str>>,
    unknown_entities: BTreeSet<String>,
    /// account → user → (jobs, charge) of the new charges, when there is a tree to check.
    by_association: HashMap<String, HashMap<String, (usize, f64)>>,
    charged: u64,
    repeated: u64,
    total: f64,
    /// While PBS logs are read: their entities' index (written back by [`Charger::flush`]).
    pbs: Option<PbsCharging>,
}

impl Charger<'_, '_> {
    /// Writes what PBS logs charged back into the usage (before any other reader charges, and
    /// at the end).
    fn flush(&mut self) {
        if let Some(p) = self.pbs.take() {
            p.finish(self.usage);
        }
    }

    /// One job of any reader.
    fn job(&mut self, job: FinishedJob) -> Result<(), String> {
        self.flush();
        if self.usage.try_charge(self.ledger, &job)? {
            self.charged += 1;
            self.total += job.charge;
            if let (None, Some(groups)) = (&job.account, &self.pbs_groups) {
                if !groups.contains_key(job.entity.as_str()) {
                    self.unknown_entities.insert(job.entity.clone());
                }
            }
            if let (Some(account), Some(_)) = (&job.account, self.tree) {
                tally_association(&mut self.by_association, account, &job.entity, job.charge);
            }
        } else {
            self.repeated += 1;
        }
        Ok(())
    }
}

impl PbsSink for Charger<'_, '_> {
    fn charge(&mut self, job: PreparedCharge<'_>) -> Result<(), String> {
        let pbs = self.pbs.get_or_insert_with(|| PbsCharging::new(self.usage));
        if pbs.charge(self.ledger, &job)? {
            self.charged += 1;
            self.total += job.charge;
            if let Some(groups) = &self.pbs_groups {
                if !groups.contains_key(job.entity) {
                    self.unknown_entities.insert(job.entity.to_string());
                }
            }
        } else {
            self.repeated += 1;
        }
        Ok(())
    }

    fn reserve(&mut self, jobs: usize, bytes: usize) {
        self.ledger.reserve(jobs, bytes);
    }
}

fn record_with(
    inputs: &[PathBuf],
    opts: &RecordOptions<'_>,
    usage: &mut Usage,
    ledger: &mut Ledger,
    marks: &mut Vec<crate::usage::marks::Mark>,
) -> Result<RecordReport, UsageError> {
    let mut skipped = 0u64;
    let mut report = RecordReport::default();
    let mut malformed = Vec::new();
    let mut c = Charger {
        usage,
        ledger,
        tree: opts.tree,
        pbs_groups: opts.tree.filter(|t| t.follows_pbs()).map(pbs_groups),
        unknown_entities: BTreeSet::new(),
        by_association: HashMap::new(),
        charged: 0,
        repeated: 0,
        total: 0.0,
        pbs: None,
    };
    for input in inputs {
        let format = match opts.format {
            Some(f) => f,
            None => detect(input)?,
        };
        report.stats += match format {
            InputFormat::Pbs => {
                let read = read_pbs(
                    input,
                    &Files::new(opts.entity, opts.charge, opts.weights.zone(), opts.progress),
                    marks,
                    &mut c,
                    &mut malformed,
                    &mut skipped,
                );
                if read.is_err() {
                    c.flush();
                }
                read?
            }
            InputFormat::Slurm => {
                let mut s = ReadStats::default();
                for file in expand_inputs(input)? {
                    let f = File::open(&file).map_err(|e| UsageError::io(&file, e))?;
                    let mut r = BufReader::with_capacity(1 << 20, f);
                    s += read_sacct(
                        &mut r,
                        &file,
                        &opts.weights,
                        &mut |j| c.job(j),
                        &mut malformed,
                    )?;
                }
                s
            }
            InputFormat::Flux => read_jobs_table(input, &mut |j| c.job(j), &mut malformed)?,
        };
    }
    c.flush();
    report.charged = c.charged;
    report.repeated = c.repeated + skipped;
    report.total_charge = c.total;
    report.malformed = malformed;
    report.unknown_entities = c.unknown_entities.into_iter().collect();
    if let Some(tree) = opts.tree {
        let known = associations(tree);
        let mut unmatched = UnmatchedTally::default();
        for (account, users) in &c.by_association {
            for (user, (jobs, charge)) in users {
                if !known.contains_key(&(account.as_str(), user.as_str())) {
                    unmatched.add(user, *jobs, *charge);
                }
            }
        }
        report.unmatched = unmatched.finish();
    }
    Ok(report)
}
