//! `Scenario`: a cluster at one moment — share tree with usage, jobs, formula and threshold,
//! queues, resource definitions and settings — assembled in one way for every command
//! (`order`, `share`, `eval`, `check`, the formula tests of `ftest`) from the home, an example, or files and
//! flags (see [`ScenarioBuilder`] for the precedence).

mod blank_entities;
mod builder;
pub mod cycle;
mod error;
pub mod example;
mod hazards;
mod part;
mod run;
pub mod sources;
pub use builder::{Base, JobsInput, ScenarioBuilder, Threshold};
pub use error::ScenarioError;
pub use run::{AgainstRow, Comparison, OrderExplanation, TermValue};

use crate::fairshare::Algorithm;
use crate::formula::ResourceTable;
use crate::home::{Home, LazyTree};
use crate::order::Setup;
use crate::usage::UnmatchedUsage;

/// Everything an evaluation needs, for one moment in time.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Where each input came from (reports name them in their headers and JSON).
    pub sources: sources::Sources,
    /// Where it came from, for headers (`home DIR`, an example's name).
    pub title: Option<String>,
    /// The `job_sort_formula` (`None`: none set anywhere).
    pub formula: Option<String>,
    /// Jobs, tree, entity, queues, threshold and the other ordering settings.
    pub setup: Setup,
    /// The algorithm behind explanations of fair share (keywords choose their own).
    pub algorithm: Algorithm,
    /// The resources a formula may name: built-ins, the home's, the given ones, then the
    /// jobs' own (numbers as float, text as string).
    pub resources: ResourceTable,
    /// Usage of the home or the usage file that met no association of the tree and was not
    /// counted (the command line warns about it).
    pub unmatched_usage: UnmatchedUsage,
    /// The home's tree left in its snapshot (`ScenarioBuilder::lazy_home_tree`), until
    /// `order_once` builds the part of it the jobs need, or the whole.
    lazy_tree: Option<LazyTree>,
    /// When `order_once` ordered over a part of the tree: the sizes of the whole and the part.
    part: Option<part::PartSize>,
    /// A PBS site's cycle (an imported PBS site, the PBS example): its order is the one its
    /// scheduler considers jobs in (`cycle_order`).
    pub cycle: Option<cycle::CycleSite>,
}

impl Scenario {
    /// A built-in example cluster (`pbs`, `slurm`) with its tree, jobs, formula and settings.
    pub fn from_example(name: &str) -> Result<Scenario, ScenarioError> {
        ScenarioBuilder::new(Base::Example(name.to_string())).build()
    }

    /// The home at `home`, read as one consistent snapshot (no jobs: add them with the
    /// builder).
    pub fn from_home(home: &Home) -> Result<Scenario, ScenarioError> {
        ScenarioBuilder::new(Base::Home(home.clone()))
            .jobs_optional()
            .build()
    }

    /// The home's formula, settings and resources only (its share tree and usage are
    /// not read): what evaluating or checking a formula needs.
    pub fn settings_from_home(home: &Home) -> Result<Scenario, ScenarioError> {
        ScenarioBuilder::new(Base::Home(home.clone()))
            .jobs_optional()
            .without_tree()
            .build()
    }
}
