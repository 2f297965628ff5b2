//! The case model: what a loaded test file holds, independent of TOML. Cases keep their kind,
//! their position (for reports and `--record`) and what they expect, if anything yet; the queue
//! cases (`[[order]]`, `[[compare]]`) and `[[share]]` also hold the cluster they run on (share
//! tree, jobs, settings), which the runner assembles into a `Scenario`. `Context` is what cases
//! need from outside their file.

use crate::fairshare::Algorithm;
use crate::formula::ResourceTable;
use crate::inputs::TreeFormat;
use crate::pbs::defs::FairshareEntity;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Which formula a case runs.
#[derive(Debug, Clone, PartialEq)]
pub enum FormulaRef {
    /// Formula text written in the case, or a `[formulas]` entry (`label` = `@name`).
    Text {
        /// The formula text.
        text: String,
        /// How the case named it, for reports: the text itself or `@name`.
        label: String,
    },
    /// The current formula: `--formula`, else the server's `job_sort_formula` (`@current`).
    Current,
}

impl FormulaRef {
    /// How reports show it.
    pub fn label(&self) -> &str {
        match self {
            FormulaRef::Text { label, .. } => label,
            FormulaRef::Current => "@current",
        }
    }

    /// The formula text: the case's own, or the context's current formula (or why there is
    /// none).
    pub fn text<'a>(&'a self, ctx: &'a Context) -> Result<&'a str, String> {
        match self {
            FormulaRef::Text { text, .. } => Ok(text),
            FormulaRef::Current => ctx.current.as_deref().map_err(Clone::clone),
        }
    }
}

/// What cases need from outside their file.
#[derive(Debug, Clone)]
pub struct Context {
    /// The current formula (`--formula`, else the server's `job_sort_formula`), or why there is
    /// none; only cases that use `@current` need it.
    pub current: Result<String, String>,
    /// Resources a formula may name: PBS's built-ins plus the server's custom ones. A file's own
    /// `[resources]` are added per file.
    pub resources: ResourceTable,
}

impl Context {
    /// A context with a given current formula and PBS's built-in resources.
    pub fn with_formula(formula: impl Into<String>) -> Self {
        Context {
            current: Ok(formula.into()),
            resources: ResourceTable::builtin(),
        }
    }
}

/// How close a value must be to pass: `|a - e| <= abs` or relatively within `rel`
/// (`approx::relative_eq!` semantics). NaN matches NaN, infinities match themselves.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Tolerance {
    /// Absolute tolerance.
    pub abs: f64,
    /// Relative tolerance (fraction of the larger magnitude).
    pub rel: f64,
}

impl Default for Tolerance {
    /// Equal up to floating-point noise.
    fn default() -> Self {
        Tolerance {
            abs: 1e-12,
            rel: 1e-9,
        }
    }
}

impl Tolerance {
    /// True when `actual` is within tolerance of `expected`.
    pub fn accepts(&self, expected: f64, actual: f64) -> bool {
        if expected.is_nan() || actual.is_nan() {
            return expected.is_nan() && actual.is_nan();
        }
        if expected.is_infinite() || actual.is_infinite() {
            return expected == actual;
        }
        approx::relative_eq!(
            actual,
            expected,
            epsilon = self.abs,
            max_relative = self.rel
        )
    }
}

/// The kinds of case, one TOML array of tables each (`[[eval]]`, `[[order]]`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CaseKind {
    /// Evaluate a formula with given keyword values.
    Eval,
    /// Order a small queue.
    Order,
    /// Fair-share values over a tree.
    Share,
    /// Two formulas over one queue: which jobs change rank.
    Compare,
}

impl CaseKind {
    /// The TOML array name of this kind.
    pub fn key(self) -> &'static str {
        match self {
            CaseKind::Eval => "eval",
            CaseKind::Order => "order",
            CaseKind::Share => "share",
            CaseKind::Compare => "compare",
        }
    }
}

/// What an `[[eval]]` case expects.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalExpect {
    /// A value (`expect = 0.6477`).
    Value(f64),
    /// An evaluation error (PBS uses 0), optionally with Python's message
    /// (`expect = { error = "float division by zero" }` or `{ error = true }`).
    Error(Option<String>),
    /// A validation error with PBS's code (`expect = { code = 15124 }`).
    Code(u32),
}

/// An `[[eval]]` case.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalCase {
    /// The formula.
    pub formula: FormulaRef,
    /// Keyword and resource values (PBS units: KB, seconds); unbound names are 0.
    pub with: BTreeMap<String, f64>,
    /// The expectation, `None` until recorded.
    pub expect: Option<EvalExpect>,
}

/// One case of a test file.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The case's `name`, or `<kind> case at line N`.
    pub name: String,
    /// Its kind.
    pub kind: CaseKind,
    /// Its index within its kind's array (what `--record` edits).
    pub index: usize,
    /// 1-based line where the case starts.
    pub line: usize,
    /// Tolerance for value comparisons (case keys `abs`/`rel`, else `[tolerance]`, else default).
    pub tolerance: Tolerance,
    /// What to run and expect.
    pub body: CaseBody,
}

/// The kind-specific part of a case.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseBody {
    /// See `EvalCase`.
    Eval(EvalCase),
    /// See `OrderCase`.
    Order(OrderCase),
    /// See `CompareCase`.
    Compare(CompareCase),
    /// See `ShareCase`.
    Share(ShareCase),
}

impl Case {
    /// True when the case has an expectation to check (else it needs `--record`).
    pub fn has_expectation(&self) -> bool {
        match &self.body {
            CaseBody::Eval(e) => e.expect.is_some(),
            CaseBody::Order(o) => o.expect.is_some(),
            CaseBody::Compare(c) => c.expect.is_some(),
            CaseBody::Share(s) => s.expect.is_some(),
        }
    }
}

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
    pub formula: FormulaRef,
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
    pub formula: FormulaRef,
    /// The other formula.
    pub against: FormulaRef,
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

/// A custom resource the file declares (`[resources] foo = "float"`), as PBS's
/// `create resource foo type=float`, so its formulas may name it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDecl {
    /// Resource name.
    pub name: String,
    /// PBS type name (long, float, size, time, boolean, string).
    pub ty: String,
    /// 1-based line of the declaration.
    pub line: usize,
    /// 1-based column of the type.
    pub col: usize,
}

/// A loaded test file: its cases in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct TestFile {
    /// The path as given (for reports).
    pub path: String,
    /// Custom resources declared by the file.
    pub resources: Vec<ResourceDecl>,
    /// The cases, in the order they appear in the file.
    pub cases: Vec<Case>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_is_absolute_or_relative() {
        let t = Tolerance {
            abs: 1e-4,
            rel: 0.0,
        };
        assert!(t.accepts(0.6477, 0.647718));
        assert!(!t.accepts(0.6477, 0.6479));
        let r = Tolerance {
            abs: 0.0,
            rel: 1e-3,
        };
        assert!(r.accepts(1000.0, 1000.9));
        assert!(!r.accepts(1000.0, 1002.0));
        assert!(Tolerance::default().accepts(f64::NAN, f64::NAN));
        assert!(!Tolerance::default().accepts(0.0, f64::NAN));
        assert!(Tolerance::default().accepts(f64::INFINITY, f64::INFINITY));
        assert!(!Tolerance::default().accepts(f64::INFINITY, f64::NEG_INFINITY));
    }
}
