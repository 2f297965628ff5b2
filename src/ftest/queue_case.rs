//! The model of the queue-side cases: `[[order]]` (order a small queue), `[[compare]]` (two
//! formulas over one queue) and `[[share]]` (fair-share values over a tree), plus the share
//! trees and job lists they name. Loaded by `file_queue`, run by `run_queue`.

use crate::fairshare::Algorithm;
use crate::formats::TreeFormat;
use crate::pbs::FairshareEntity;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where a share tree comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeOrigin {
    /// fairsort's native TOML tree, written in the test file (kept as TOML text, already
    /// validated by `formats::native::read_toml`).
    Inline(String),
    /// A tree file in any format `formats::read_tree` reads, relative to the test file.
    File {
        /// Resolved path.
        path: PathBuf,
        /// Its format (None: detected).
        format: Option<TreeFormat>,
    },
}

/// A share tree a case runs on, with optional per-user usage overrides.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeDef {
    /// The tree.
    pub origin: TreeOrigin,
    /// PBS `unknown_shares` (PBS trees).
    pub unknown_shares: Option<u64>,
    /// Usage per user name (or `account/user`), applied to the user nodes after reading.
    pub usage: BTreeMap<String, f64>,
}

/// Everything a dry run reads besides the formula: the inputs of `fairsort order`.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueSetup {
    /// The jobs as a fairsort JSON job list (validated by `queue::read_job_list_json`).
    pub jobs_json: Vec<u8>,
    /// The share tree, if the formula uses fair-share keywords or `fair_share` is on.
    pub tree: Option<TreeDef>,
    /// PBS `fairshare_entity`.
    pub entity: FairshareEntity,
    /// PBS `fair_share` (ties broken by the fair-share path).
    pub fair_share: bool,
    /// `job_sort_formula_threshold`.
    pub threshold: Option<f64>,
    /// Queue priorities (`queue_priority`).
    pub queues: BTreeMap<String, i64>,
    /// `--pbs-compat` rounding.
    pub pbs_compat: bool,
}

/// What an `[[order]]` case expects; every part given must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderExpect {
    /// The whole order of job ids.
    pub order: Option<Vec<String>>,
    /// The first jobs of the order.
    pub top: Option<Vec<String>>,
    /// Pairs `(a, b)`: job a is ranked before job b.
    pub before: Vec<(String, String)>,
    /// Exactly these jobs are eligible this cycle (queued and above the threshold).
    pub eligible: Option<Vec<String>>,
    /// Formula value per job id.
    pub values: BTreeMap<String, f64>,
}

/// An `[[order]]` case.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderCase {
    /// The formula.
    pub formula: super::FormulaRef,
    /// The queue and its settings.
    pub setup: QueueSetup,
    /// The expectation, `None` until recorded.
    pub expect: Option<OrderExpect>,
}

/// What a `[[compare]]` case expects; every part given must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareExpect {
    /// Exactly these jobs change rank.
    pub changed: Option<Vec<String>>,
    /// Each of these moves up (towards rank 1) under `against`.
    pub up: Vec<String>,
    /// Each of these moves down under `against`.
    pub down: Vec<String>,
    /// The whole order under `against`.
    pub order: Option<Vec<String>>,
}

/// A `[[compare]]` case: the queue under `formula` and under `against`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareCase {
    /// The formula today (default `@current`).
    pub formula: super::FormulaRef,
    /// The other formula.
    pub against: super::FormulaRef,
    /// The queue and its settings.
    pub setup: QueueSetup,
    /// The expectation, `None` until recorded.
    pub expect: Option<CompareExpect>,
}

/// A `[[share]]` case: one algorithm's values over a tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareCase {
    /// The tree.
    pub tree: TreeDef,
    /// The algorithm (`fairshare::compute`).
    pub algorithm: Algorithm,
    /// Which value: `factor` (default: PBS's fairshare_factor, the others' fairshare) or a
    /// column of `fairsort share --json` (fairshare_perc, level_fs, norm_shares, ...).
    pub column: String,
    /// Slurm FairShareDampeningFactor (classic).
    pub dampening: Option<f64>,
    /// flux-accounting's integer truncation of sibling usage sums.
    pub flux_compat: bool,
    /// Value per user (`user` or `account/user`) or account; `None` until recorded.
    pub expect: Option<BTreeMap<String, f64>>,
}
