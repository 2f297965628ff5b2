//! `ScenarioBuilder`: a Scenario from a base (nothing, a built-in example, or the home)
//! with files and flags over it.
//!
//! Precedence, lowest first: fairsort's defaults (entity `euser`, algorithm `pbs`, no
//! threshold, `fair_share` off) < the base (example or home snapshot) < files (`tree_file`
//! replaces the base's tree; `usage_file` is applied over whichever tree is used) < flags
//! (formula, threshold, entity, algorithm, `fair_share`, `unknown_shares`, queue priorities,
//! resource definitions). Resources: PBS's built-ins < the home's custom ones < given
//! definitions; whatever else the jobs request is float (numbers) or string (text).
//!
//! Inputs already in memory (a formula test's tree and jobs) are given with `tree_spec`
//! (over `tree_file` and the base's tree), `job_set` (over `jobs` and the base's jobs) and
//! `resource_table` (the whole table: nothing is added to it).

use crate::fairshare::{Algorithm, Options, Tree, TreeSpec};
use crate::formula::ResourceTable;
use crate::home::{Home, HomeTree, LazyTree, TreeForm};
use crate::inputs as formats;
use crate::inputs::JobsFormat;
use crate::inputs::TreeFormat;
use crate::jobs::{JobSet, ResourceValue};
use crate::order::Setup;
use crate::pbs::apply_pbs_usage;
use crate::pbs::defs::{FairshareEntity, ResourceType};
use crate::scenario::example;
use crate::scenario::sources::{self, Source, Sources};
use crate::scenario::{Scenario, ScenarioError};
use crate::usage::UnmatchedUsage;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What a Scenario starts from before files and flags.
#[derive(Debug, Clone)]
pub enum Base {
    /// Nothing: every input comes from files and flags.
    None,
    /// A built-in example cluster (`pbs`, `slurm`).
    Example(String),
    /// An opened home, read as one snapshot.
    Home(Home),
    /// The home at this directory (or the default place) if one exists there; never
    /// creates one, and an explicit directory that holds no home is an error.
    FindHome(Option<PathBuf>),
}

/// Where the jobs come from.
#[derive(Debug, Clone)]
pub enum JobsInput {
    /// A file (mapped when large).
    File(PathBuf),
    /// Bytes already read (standard input), with the name errors use.
    Bytes {
        /// The name shown in errors (`-`).
        name: String,
        /// The content.
        bytes: Vec<u8>,
    },
}

/// The threshold flag: keep the base's, set one, or drop it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Threshold {
    /// The base's threshold, if any.
    #[default]
    Base,
    /// This threshold.
    Set(f64),
    /// No threshold, whatever the base says.
    Off,
}

/// Files and flags over a base; [`ScenarioBuilder::build`] assembles the Scenario.
#[derive(Debug, Clone)]
pub struct ScenarioBuilder {
    base: Base,
    /// The zone the job file's date strings are read in (the site's clock).
    zone: jiff::tz::TimeZone,
    jobs: Option<JobsInput>,
    job_set: Option<JobSet>,
    jobs_format: Option<JobsFormat>,
    jobs_optional: bool,
    without_tree: bool,
    formula: Option<String>,
    /// The file `formula` was read from (`order --formula-file`), for the report's sources.
    formula_file: Option<PathBuf>,
    formula_required: bool,
    threshold: Threshold,
    tree: Option<(PathBuf, Option<TreeFormat>)>,
    tree_spec: Option<TreeSpec>,
    usage: Option<PathBuf>,
    unknown_shares: Option<u64>,
    entity: Option<FairshareEntity>,
    algorithm: Option<Algorithm>,
    fair_share: Option<bool>,
    queues: Vec<(String, i64)>,
    resources: Vec<(String, ResourceType)>,
    resource_table: Option<ResourceTable>,
    pbs_compat: bool,
    lazy_tree: bool,
    tree_source: Option<Source>,
    at: Option<i64>,
}

/// The base's contribution, in one shape for examples and homes.
struct BaseInputs {
    title: Option<String>,
    formula: String,
    threshold: Option<f64>,
    fair_share: bool,
    entity: FairshareEntity,
    algorithm: Algorithm,
    queues: BTreeMap<String, i64>,
    /// A home's tree comes built when nothing changes it before the build (see
    /// [`ScenarioBuilder::base_tree_as_is`]).
    tree: Option<HomeTree>,
    /// The base's usage that met no association of its tree.
    unmatched: UnmatchedUsage,
    jobs: Option<JobSet>,
    resources: Option<ResourceTable>,
    /// Where the base's inputs came from (for the reports' headers).
    sources: Sources,
    /// The home's `usage.toml`, when the base is a home that has one.
    usage_file: Option<String>,
    /// A PBS site's cycle: the home's imported files with its state, or the PBS example's
    /// shipped rules.
    cycle: Option<BaseCycle>,
}

/// Where a base's cycle rules come from.
enum BaseCycle {
    /// A home's imported PBS site.
    Home(crate::home::PbsParts, Box<crate::home::HomeState>, String),
    /// The PBS example: the shipped `sched_config` over its queues.
    Shipped(crate::pbs::cycle::CycleRules),
}

fn input(e: impl std::fmt::Display) -> ScenarioError {
    ScenarioError::input(e)
}

impl ScenarioBuilder {
    /// A builder over `base` with no files or flags yet.
    pub fn new(base: Base) -> Self {
        ScenarioBuilder {
            base,
            zone: jiff::tz::TimeZone::system(),
            jobs: None,
            job_set: None,
            jobs_format: None,
            jobs_optional: false,
            without_tree: false,
            formula: None,
            formula_file: None,
            formula_required: false,
            threshold: Threshold::Base,
            tree: None,
            tree_spec: None,
            usage: None,
            unknown_shares: None,
            entity: None,
            algorithm: None,
            fair_share: None,
            queues: Vec::new(),
            resources: Vec::new(),
            resource_table: None,
            pbs_compat: false,
            lazy_tree: false,
            tree_source: None,
            at: None,
        }
    }

    /// The zone the job file's date strings (qstat's `qtime`, `stime`) are read in: the site's
    /// clock, the system's zone (`TZ`) unless the command line names another (`--tz`).
    pub fn time_zone(mut self, zone: jiff::tz::TimeZone) -> Self {
        self.zone = zone;
        self
    }

    /// The second the PBS cycle runs at (`order --at`): its prime time, and the eligible time
    /// accruing jobs of a qstat snapshot taken at another second have by then.
    pub fn at(mut self, at: Option<i64>) -> Self {
        self.at = at;
        self
    }

    /// Names where a tree given with [`ScenarioBuilder::tree_spec`] came from (reports' headers).
    pub fn tree_source(mut self, source: Source) -> Self {
        self.tree_source = Some(source);
        self
    }

    /// Leaves a home's tree in its `snapshot.bin`, read in place, when it is used as is and the
    /// snapshot is valid: [`Scenario::order_once`] then builds only the part of it that the
    /// jobs need when that is enough. The caller must run `order_once` (or
    /// [`Scenario::build_tree`]) before anything else that reads the tree.
    pub fn lazy_home_tree(mut self) -> Self {
        self.lazy_tree = true;
        self
    }

    /// The jobs (`--jobs`), in `format` or detected.
    pub fn jobs(mut self, jobs: JobsInput, format: Option<JobsFormat>) -> Self {
        self.jobs = Some(jobs);
        self.jobs_format = format;
        self
    }

    /// Jobs already read, over `jobs` and the base's.
    pub(crate) fn job_set(mut self, jobs: JobSet) -> Self {
        self.job_set = Some(jobs);
        self
    }

    /// Allows a Scenario without jobs (an empty queue) when neither the flags nor the base
    /// give any.
    pub fn jobs_optional(mut self) -> Self {
        self.jobs_optional = true;
        self
    }

    /// Leaves the base's share tree and usage unread (for what needs only the formula, the
    /// settings and the resources: `eval`, `check`, formula tests); files given still count.
    pub fn without_tree(mut self) -> Self {
        self.without_tree = true;
        self
    }

    /// The `job_sort_formula` (over the base's).
    pub fn formula(mut self, formula: Option<String>) -> Self {
        if formula.is_some() {
            self.formula = formula;
        }
        self
    }

    /// The file the formula was read from (named as its source in the report).
    pub fn formula_file(mut self, file: Option<PathBuf>) -> Self {
        self.formula_file = file;
        self
    }

    /// Makes a missing formula an error of `build` (for commands that evaluate it).
    pub fn require_formula(mut self) -> Self {
        self.formula_required = true;
        self
    }

    /// `job_sort_formula_threshold` over the base's.
    pub fn threshold(mut self, threshold: Threshold) -> Self {
        self.threshold = threshold;
        self
    }

    /// A share tree file, replacing the base's tree.
    pub fn tree_file(mut self, path: Option<PathBuf>, format: Option<TreeFormat>) -> Self {
        if let Some(p) = path {
            self.tree = Some((p, format));
        }
        self
    }

    /// A share tree already read, replacing `tree_file` and the base's tree (`usage_file` and
    /// `unknown_shares` still apply over it).
    pub fn tree_spec(mut self, spec: TreeSpec) -> Self {
        self.tree_spec = Some(spec);
        self
    }

    /// A PBS usage file (binary or text), applied over the tree.
    pub fn usage_file(mut self, path: Option<PathBuf>) -> Self {
        self.usage = path;
        self
    }

    /// PBS `unknown_shares`.
    pub fn unknown_shares(mut self, n: Option<u64>) -> Self {
        self.unknown_shares = n.or(self.unknown_shares);
        self
    }

    /// PBS `fairshare_entity`.
    pub fn entity(mut self, entity: Option<FairshareEntity>) -> Self {
        self.entity = entity.or(self.entity);
        self
    }

    /// The algorithm behind explanations.
    pub fn algorithm(mut self, algorithm: Option<Algorithm>) -> Self {
        self.algorithm = algorithm.or(self.algorithm);
        self
    }

    /// PBS `fair_share` on or off (`None`: the base's).
    pub fn fair_share(mut self, on: Option<bool>) -> Self {
        self.fair_share = on.or(self.fair_share);
        self
    }

    /// A queue's `Priority`, over the base's.
    pub fn queue_priority(mut self, queue: String, priority: i64) -> Self {
        self.queues.push((queue, priority));
        self
    }

    /// A custom resource definition, over the home's.
    pub fn resource(mut self, name: String, ty: ResourceType) -> Self {
        self.resources.push((name, ty));
        self
    }

    /// The whole resource table, replacing the built-ins, the home's, `resource` definitions
    /// and the types guessed from the jobs' requests.
    pub fn resource_table(mut self, table: ResourceTable) -> Self {
        self.resource_table = Some(table);
        self
    }

    /// Reproduce PBS's rounding (`--pbs-compat`).
    pub fn pbs_compat(mut self, on: bool) -> Self {
        self.pbs_compat = on;
        self
    }

    /// Assembles the Scenario: base, then files, then flags (module doc).
    pub fn build(self) -> Result<Scenario, ScenarioError> {
        let mut base = self.read_base()?;
        // A jobs file and a tree file are read at once: the tree file (with its usage) on a
        // worker while the jobs are read, instead of alone after a million jobs. The tree's
        // error, if any, is reported only when the jobs and the formula are right, as before.
        let mut early_tree = None;
        let mut jobs = match (&self.job_set, &self.jobs, &self.tree) {
            (None, Some(input), Some(_)) => {
                let (jobs, tree) = crate::parallel::join(
                    || read_jobs(input, self.jobs_format, &self.zone),
                    // A tree file replaces the base's: `tree` ignores the base then.
                    || self.tree(None),
                );
                early_tree = Some(tree);
                jobs?
            }
            _ => self.jobs_of(base.as_ref())?,
        };
        let formula = match (&self.formula, &base) {
            (Some(f), _) => Some(f.clone()),
            (None, Some(b)) if !b.formula.is_empty() => Some(b.formula.clone()),
            (None, _) => None,
        };
        let cycle = self.cycle(base.as_mut(), &mut jobs)?;
        if formula.is_none() && self.formula_required && cycle.is_none() {
            return Err(ScenarioError::Request(
                "no formula: give --formula, or set job_sort_formula with `fairsort qmgr`".into(),
            ));
        }
        let (tree, unmatched_usage, lazy_tree) = match early_tree {
            Some(tree) => tree?,
            None => self.tree(
                base.as_mut()
                    .map(|b| (b.tree.take(), std::mem::take(&mut b.unmatched))),
            )?,
        };
        let mut queues = base.as_ref().map(|b| b.queues.clone()).unwrap_or_default();
        for (q, p) in &self.queues {
            queues.insert(q.clone(), *p);
        }
        // As PBS's scheduler holds it (a C float, printed and read back), whatever its origin.
        let threshold = match self.threshold {
            Threshold::Off => None,
            Threshold::Set(t) => Some(t),
            Threshold::Base => base.as_ref().and_then(|b| b.threshold),
        }
        .map(crate::pbs::defs::threshold::stored);
        if threshold.is_some_and(|t| !t.is_finite()) {
            return Err(ScenarioError::Request(
                "--threshold must be a finite number a C float can hold (PBS stores it as one)"
                    .into(),
            ));
        }
        let fair_share = self.fair_share.unwrap_or_else(|| match &cycle {
            Some(c) => c.rules.fair_share,
            None => base.as_ref().is_some_and(|b| b.fair_share),
        });
        let cycle = cycle.map(|mut c| {
            c.rules.fair_share = fair_share;
            c.rules.threshold = threshold;
            c
        });
        let entity = self
            .entity
            .or(base.as_ref().map(|b| b.entity))
            .unwrap_or_default();
        let algorithm = self
            .algorithm
            .or(base.as_ref().map(|b| b.algorithm))
            .unwrap_or(Algorithm::Pbs);
        let home_resources = base.as_mut().and_then(|b| b.resources.take());
        let resources = match &self.resource_table {
            Some(table) => table.clone(),
            None => resource_table(home_resources, &self.resources, &jobs)?,
        };
        let sources = self.sources(base.as_ref(), tree.as_ref(), lazy_tree.is_some(), algorithm);
        Ok(Scenario {
            sources,
            title: base.and_then(|b| b.title),
            formula,
            setup: Setup {
                jobs,
                tree,
                entity,
                options: Options::default(),
                fair_share,
                threshold,
                pbs_compat: self.pbs_compat,
                queues,
            },
            algorithm,
            resources,
            unmatched_usage,
            lazy_tree,
            part: None,
            cycle,
        })
    }

    /// The base's PBS cycle for the cycle's second (`at`, else the qstat snapshot's, else now),
    /// and the jobs' eligible time advanced to `at` when both are known.
    fn cycle(
        &self,
        base: Option<&mut BaseInputs>,
        jobs: &mut JobSet,
    ) -> Result<Option<crate::scenario::cycle::CycleSite>, ScenarioError> {
        let Some(b) = base else { return Ok(None) };
        let Some(source) = b.cycle.take() else {
            return Ok(None);
        };
        let snapshot = self.snapshot_time();
        if let (Some(at), Some(snap)) = (self.at, snapshot) {
            let by = (at - snap) as f64;
            for j in &mut jobs.jobs {
                if j.accrue_type == 2 && j.state.is_runnable() {
                    j.eligible_time = (j.eligible_time + by).max(0.0);
                }
            }
        }
        let at = self.at.or(snapshot);
        Ok(Some(match source {
            BaseCycle::Home(parts, state, from) => {
                let at = at.unwrap_or_else(|| {
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs() as i64)
                });
                let prime = parts.is_prime(at);
                let rules = parts.rules(&state, prime).map_err(input)?;
                crate::scenario::cycle::CycleSite {
                    rules,
                    prime,
                    at: Some(at),
                    from,
                }
            }
            BaseCycle::Shipped(rules) => crate::scenario::cycle::CycleSite {
                rules,
                prime: true,
                at,
                from:
                    "the shipped sched_config (by_queue, preemptive_sched; no holidays: prime time)"
                        .into(),
            },
        }))
    }

    /// The `timestamp` of the jobs when they are a qstat snapshot (its first bytes only).
    fn snapshot_time(&self) -> Option<i64> {
        match &self.jobs {
            Some(JobsInput::File(path)) => {
                use std::io::Read;
                let mut head = Vec::with_capacity(4096);
                let f = std::fs::File::open(path).ok()?;
                f.take(4096).read_to_end(&mut head).ok()?;
                crate::pbs::snapshot_time(&head)
            }
            Some(JobsInput::Bytes { bytes, .. }) => {
                crate::pbs::snapshot_time(bytes.get(..4096).unwrap_or(bytes))
            }
            None => None,
        }
    }

    /// Where each input came from: the files and flags given, else the base's.
    fn sources(
        &self,
        base: Option<&BaseInputs>,
        tree: Option<&Tree>,
        lazy: bool,
        algorithm: Algorithm,
    ) -> Sources {
        let from_base = base.map(|b| b.sources.clone()).unwrap_or_default();
        let has_tree = tree.is_some() || lazy;
        let tree_kind = tree.map(|t| {
            serde_json::to_value(t.source())
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        });
        let tree_source = match (&self.tree_spec, &self.tree) {
            (Some(_), _) => self
                .tree_source
                .clone()
                .unwrap_or_else(|| Source::new(sources::From::File).detail("given")),
            (None, Some((path, _))) => {
                let s = Source::file("--tree", path.display().to_string());
                match tree_kind {
                    Some(k) => s.value(k),
                    None => s,
                }
            }
            (None, None) if has_tree => from_base.tree.clone(),
            (None, None) => Source::none(),
        };
        let base_tree_used = self.tree_spec.is_none() && self.tree.is_none() && has_tree;
        let home_usage = base
            .and_then(|b| b.usage_file.clone())
            .filter(|_| base_tree_used);
        let usage = match (&self.usage, home_usage) {
            (Some(p), Some(h)) => Source::file("--usage", p.display().to_string())
                .detail(format!("over the home's {h}")),
            (Some(p), None) => Source::file("--usage", p.display().to_string()),
            (None, Some(h)) => Source::home(h),
            (None, None) => Source::none(),
        };
        let formula = match (&self.formula, base) {
            (Some(_), _) => match &self.formula_file {
                Some(f) => Source::file("--formula-file", f.display().to_string()),
                None => Source::flag("--formula"),
            },
            (None, Some(b)) if !b.formula.is_empty() => from_base.formula.clone(),
            (None, _) => Source::none(),
        };
        let algorithm = match (self.algorithm, base) {
            (Some(a), _) => Source::flag("--algorithm").value(a.to_string()),
            (None, Some(_)) => from_base.algorithm.clone(),
            (None, None) => Source::new(sources::From::Default).value(algorithm.to_string()),
        };
        Sources {
            tree: tree_source,
            usage,
            formula,
            algorithm,
            ..from_base
        }
    }

    /// The jobs: a job set given, the jobs file, the base's jobs, or none if they are optional.
    fn jobs_of(&self, base: Option<&BaseInputs>) -> Result<JobSet, ScenarioError> {
        let base_jobs = base.and_then(|b| b.jobs.as_ref());
        match (&self.job_set, &self.jobs, base_jobs) {
            (Some(jobs), _, _) => Ok(jobs.clone()),
            (None, Some(input), _) => read_jobs(input, self.jobs_format, &self.zone),
            (None, None, Some(jobs)) => Ok(jobs.clone()),
            (None, None, None) if self.jobs_optional => Ok(JobSet::default()),
            (None, None, None) => Err(ScenarioError::Request(
                "no jobs: give --jobs FILE (qstat -f -F json, JSON or CSV list) or --example"
                    .into(),
            )),
        }
    }

    fn read_base(&self) -> Result<Option<BaseInputs>, ScenarioError> {
        match &self.base {
            Base::None => Ok(None),
            Base::Example(name) => {
                let ex = example::load(name).map_err(ScenarioError::Request)?;
                Ok(Some(BaseInputs {
                    title: Some(ex.settings.name),
                    formula: ex.settings.formula,
                    threshold: ex.settings.threshold,
                    fair_share: ex.settings.fair_share,
                    entity: ex.entity,
                    algorithm: ex.algorithm,
                    queues: ex.settings.queues.clone(),
                    tree: Some(HomeTree::Spec(ex.tree)),
                    unmatched: UnmatchedUsage::default(),
                    jobs: Some(ex.jobs),
                    resources: None,
                    sources: Sources {
                        tree: Source::example(name.clone()),
                        formula: Source::example(name.clone()),
                        algorithm: Source::example(name.clone()).value(ex.algorithm.to_string()),
                        half_life: sources::pbs_decay_source(
                            Source::new(sources::From::Default),
                            86_400,
                            0.5,
                        ),
                        ..Sources::default()
                    },
                    usage_file: None,
                    cycle: (ex.key == "pbs").then(|| {
                        BaseCycle::Shipped(crate::pbs::cycle::CycleRules {
                            // The example's own setting, over the shipped file's.
                            fair_share: ex.settings.fair_share,
                            queues: ex
                                .settings
                                .queues
                                .iter()
                                .map(|(name, &priority)| crate::pbs::cycle::QueueRule {
                                    name: name.clone(),
                                    priority,
                                    priority_set: true,
                                    kind: crate::pbs::cycle::QueueKind::Execution,
                                    enabled: true,
                                    started: true,
                                })
                                .collect(),
                            ..Default::default()
                        })
                    }),
                }))
            }
            Base::Home(home) => home_base(home, self.base_tree_wanted()).map(Some),
            Base::FindHome(dir) => match Home::find(dir.as_deref()).map_err(input)? {
                Some(home) => home_base(&home, self.base_tree_wanted()).map(Some),
                None => Ok(None),
            },
        }
    }

    /// Whether a home base's tree is read (not `without_tree`), and in which form: built when
    /// it is used as is (no tree given over it, no usage file, no `unknown_shares` flag), so
    /// it can come from the home's `snapshot.bin`; else as a spec to change before the build.
    fn base_tree_wanted(&self) -> Option<TreeForm> {
        let as_is = self.tree_spec.is_none()
            && self.tree.is_none()
            && self.usage.is_none()
            && self.unknown_shares.is_none();
        let form = match (as_is, self.lazy_tree) {
            (false, _) => TreeForm::Spec,
            (true, false) => TreeForm::Built,
            (true, true) => TreeForm::Lazy,
        };
        (!self.without_tree).then_some(form)
    }

    /// The tree: `tree_file` or the base's, `usage_file` over it, `unknown_shares`, built; with
    /// the usage that met no association of it (the base's only when its tree is used).
    fn tree(
        &self,
        base: Option<(Option<HomeTree>, UnmatchedUsage)>,
    ) -> Result<(Option<Tree>, UnmatchedUsage, Option<LazyTree>), ScenarioError> {
        let mut unmatched = UnmatchedUsage::default();
        // With a tree file, a usage file is read on a second thread while the tree is; the
        // PBS reader's index of names is used again to apply it.
        let (mut names, mut usage_read) = (None, None);
        let (mut spec, label) = match (&self.tree_spec, &self.tree) {
            (Some(spec), _) => (Some(spec.clone()), None),
            (None, Some((path, format))) => {
                let read_tree = || formats::read_tree_indexed(path, *format);
                let (tree, usage) = match &self.usage {
                    Some(u) => {
                        let (t, u) = crate::parallel::join(read_tree, || read_pbs_usage(u));
                        (t, Some(u))
                    }
                    None => (read_tree(), None),
                };
                let (spec, index) = tree.map_err(input)?;
                (names, usage_read) = (index, usage);
                (Some(spec), Some(path.display().to_string()))
            }
            (None, None) => {
                let (tree, base_unmatched) = base.unwrap_or_default();
                unmatched = base_unmatched;
                match tree {
                    // Read built only when nothing below changes it (`base_tree_wanted`).
                    Some(HomeTree::Built(built)) => {
                        let tree = built.map_err(|e| match self.home_label() {
                            Some(l) => input(format!("{l}: {e}")),
                            None => input(e),
                        })?;
                        return Ok((Some(tree), unmatched, None));
                    }
                    Some(HomeTree::Lazy(lazy)) => return Ok((None, unmatched, Some(lazy))),
                    Some(HomeTree::Spec(spec)) => (Some(spec), self.home_label()),
                    None => (None, self.home_label()),
                }
            }
        };
        if let Some(path) = &self.usage {
            let Some(s) = spec.as_mut() else {
                return Err(ScenarioError::Request(
                    "--usage needs a share tree (--tree or --example)".into(),
                ));
            };
            let usage = usage_read
                .take()
                .unwrap_or_else(|| read_pbs_usage(path))
                .map_err(input)?;
            let applied = apply_pbs_usage(s, names.take(), &usage)
                .map_err(|e| input(format!("{}: {e}", path.display())))?;
            unmatched.merge(applied);
        }
        if let (Some(n), Some(s)) = (self.unknown_shares, spec.as_mut()) {
            s.unknown_shares = Some(n);
        }
        let tree = spec
            .map(|s| {
                Tree::build(s).map_err(|e| match &label {
                    Some(l) => input(format!("{l}: {e}")),
                    None => input(e),
                })
            })
            .transpose()?;
        Ok((tree, unmatched, None))
    }

    /// The home's directory when the base is a home (it names the home's tree in errors).
    fn home_label(&self) -> Option<String> {
        match &self.base {
            Base::Home(h) => Some(h.path().display().to_string()),
            _ => None,
        }
    }
}

/// A PBS usage file (binary or text) read, or the message naming it.
fn read_pbs_usage(path: &std::path::Path) -> Result<crate::pbs::PbsUsage, String> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let bytes = std::fs::read(path).map_err(|e| at(&e))?;
    crate::pbs::read_usage(&bytes).map_err(|e| at(&e))
}

/// A home's snapshot in the base's shape (no jobs: a home holds none); with `tree` `None` only
/// the state is read (a lock-free read), not the share tree and usage; else the tree in that
/// form.
fn home_base(home: &Home, tree: Option<TreeForm>) -> Result<BaseInputs, ScenarioError> {
    let snap = if let Some(form) = tree {
        home.snapshot(form).map_err(input)?
    } else {
        crate::home::Snapshot {
            state: home.load().map_err(input)?,
            tree: None,
            unmatched: UnmatchedUsage::default(),
        }
    };
    let state = &snap.state;
    let sched = &state.sched;
    let site = home.site().map_err(input)?;
    let algorithm = home.site_algorithm(state).map_err(input)?;
    let server_toml = home
        .file(crate::home::dir::files::STATE)
        .display()
        .to_string();
    let slurm_toml = home
        .file(crate::home::dir::files::SLURM)
        .display()
        .to_string();
    let (algorithm_source, half_life) = match site.kind {
        crate::home::SiteKind::Slurm => {
            let conf = home
                .slurm_site()
                .map_err(input)?
                .map(|s| s.validate(("", "", "")))
                .transpose()
                .map_err(input)?;
            let from = |what: &str| match &conf {
                Some(_) => Source::home(slurm_toml.clone()).detail(what.to_string()),
                None => {
                    Source::new(sources::From::Default).detail(format!("{what}: Slurm's default"))
                }
            };
            let half = conf.as_ref().map_or(604_800, |c| c.decay_half_life);
            let half = if half == 0 {
                f64::INFINITY
            } else {
                f64::from(half)
            };
            (
                from("PriorityFlags"),
                from("PriorityDecayHalfLife").value(format!("{half}")),
            )
        }
        crate::home::SiteKind::Flux => (
            Source::home(home.tree_path().display().to_string()).detail("a flux site"),
            Source::new(sources::From::Default).value("604800"),
        ),
        crate::home::SiteKind::Pbs => (
            Source::home(server_toml.clone()).detail("fairshare_algorithm"),
            sources::pbs_decay_source(
                Source::home(server_toml.clone()),
                sched.fairshare_decay_time,
                sched.fairshare_decay_factor,
            ),
        ),
    };
    let usage_file = home
        .dir()
        .identity(crate::home::dir::files::USAGE)
        .map_err(input)?
        .map(|_| home.usage_path().display().to_string());
    let base_sources = Sources {
        site: Some(site.kind),
        tree: Source::home(home.tree_path().display().to_string())
            .imported(site.record.tree.clone()),
        formula: Source::home(server_toml).detail(
            if state.server.job_sort_formula.is_none() && sched.job_sort_formula.is_some() {
                "sched job_sort_formula"
            } else {
                "job_sort_formula"
            },
        ),
        algorithm: algorithm_source.value(algorithm.to_string()),
        half_life,
        ..Sources::default()
    };
    let cycle = match home.pbs_parts().map_err(input)? {
        Some(parts) if site.kind == crate::home::SiteKind::Pbs => Some(BaseCycle::Home(
            parts,
            Box::new(state.clone()),
            format!("{}", home.file(crate::home::dir::files::PBS).display()),
        )),
        _ => None,
    };
    Ok(BaseInputs {
        sources: base_sources,
        usage_file,
        title: Some(format!("home {}", home.path().display())),
        // As pbs_sched (`query_server_info`): the server's formula, else the scheduler's (the
        // two are equal when both are set: qmgr's rule 15226).
        formula: (state.server.job_sort_formula.clone())
            .or_else(|| sched.job_sort_formula.clone())
            .unwrap_or_default(),
        threshold: sched.job_sort_formula_threshold,
        fair_share: sched.fair_share,
        entity: sched.fairshare_entity.as_str().parse().map_err(input)?,
        algorithm,
        queues: state
            .queues
            .keys()
            .map(|q| (q.clone(), state.queue_priority(q)))
            .collect(),
        // `Home::snapshot` gives no tree for one without nodes.
        tree: snap.tree,
        unmatched: snap.unmatched,
        jobs: None,
        resources: Some(state.resource_table()),
        cycle,
    })
}

fn read_jobs(
    input_: &JobsInput,
    format: Option<JobsFormat>,
    zone: &jiff::tz::TimeZone,
) -> Result<JobSet, ScenarioError> {
    match input_ {
        JobsInput::File(path) => {
            let bytes = crate::mem::read_file(path)
                .map_err(|e| input(format!("cannot read {}: {e}", path.display())))?;
            // Every error names the file, with its line and column where known.
            crate::inputs::read_jobs_file_in(&path.to_string_lossy(), &bytes, format, zone)
                .map_err(input)
        }
        JobsInput::Bytes { name, bytes } => {
            crate::inputs::read_jobs_bytes_in(name, bytes, format, zone).map_err(input)
        }
    }
}

/// The home's table (built-ins and its definitions) or the built-ins, given definitions, then
/// what the jobs request.
fn resource_table(
    home: Option<ResourceTable>,
    given: &[(String, ResourceType)],
    jobs: &JobSet,
) -> Result<ResourceTable, ScenarioError> {
    let mut table = home.unwrap_or_else(ResourceTable::builtin);
    for (name, ty) in given {
        table.define(name, *ty).map_err(input)?;
    }
    let unknown: Vec<u32> = (0..jobs.resources.len() as u32)
        .filter(|&sym| table.get(jobs.resources.name(sym)).is_none())
        .collect();
    if unknown.is_empty() {
        return Ok(table);
    }
    // One pass over the jobs' requests for every resource the table does not know: text in
    // any job makes it a string.
    let mut text = vec![false; jobs.resources.len()];
    for j in &jobs.jobs {
        for r in jobs.requests(j) {
            if let (ResourceValue::Text(_), Some(t)) = (r.value(), text.get_mut(r.sym() as usize)) {
                *t = true;
            }
        }
    }
    for sym in unknown {
        let ty = if text.get(sym as usize).copied().unwrap_or(false) {
            ResourceType::String
        } else {
            ResourceType::Float
        };
        table.define(jobs.resources.name(sym), ty).map_err(input)?;
    }
    Ok(table)
}
