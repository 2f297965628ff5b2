//! A one-job `order` from a 100 000-user home needs PBS's values of a few nodes, not of the
//! whole tree: [`Scenario::order_once`] over a tree left in the home's snapshot
//! (`ScenarioBuilder::lazy_home_tree`) builds only the jobs' entities and their ancestors
//! (`home::snapshot_view::SnapshotView::part`) and computes their rows with the whole tree's
//! usages and share sums (`fairshare::pbs::compute_with`), bit for bit the rows of the whole
//! tree. Only when that is all the run needs: a PBS tree, a formula whose fair-share
//! keywords are PBS's (or none), and few jobs for the tree's size; else the whole tree is built.

use crate::fairshare;
use crate::fairshare::pbs::{compute_with, MIN_USAGE};
use crate::fairshare::TreeSource;
use crate::fairshare::{Algorithm, Options, ShareError, ShareResult, Shares, Tree};
use crate::formula::Program;
use crate::home::LazyTree;
use crate::jobs::EntityName;
use crate::order::dry_run::{dry_run_with, order_options, prepare_shares_with, DryRun};
use crate::order::shares::algorithms_needed;
use crate::order::{ShareEngine, SortFormula};
use crate::scenario::{Scenario, ScenarioError};

/// The sizes of the whole tree and of the part an order ran over.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PartSize {
    /// Nodes of the whole tree.
    whole: usize,
    /// Nodes of the part before the dry run added PBS's unknown entities to it.
    part: usize,
}

/// At most one job per this many tree nodes for a part to be worth it.
const NODES_PER_JOB: usize = 8;

impl Scenario {
    /// How many nodes the share tree of `ctx_len` nodes (a dry run's, with the unknown
    /// entities it added) stands for: itself, or the whole tree when the run used a part.
    pub fn share_tree_len(&self, ctx_len: usize) -> usize {
        match self.part {
            Some(p) => p.whole + ctx_len.saturating_sub(p.part),
            None => ctx_len,
        }
    }

    /// Builds the whole tree if it was left in the home's snapshot (for a caller of
    /// `lazy_home_tree` that needs more than `order_once`).
    pub fn build_tree(&mut self) -> Result<(), ScenarioError> {
        if let Some(lazy) = self.lazy_tree.take() {
            self.setup.tree = Some(lazy.into_tree().map_err(ScenarioError::input)?);
        }
        Ok(())
    }

    /// `order_once` over the part of `lazy` the jobs need, when that is enough (module doc);
    /// `None` when it is not (the caller builds the whole tree).
    pub(super) fn order_part(
        &mut self,
        lazy: &LazyTree,
        program: &Program,
        top: Option<usize>,
    ) -> Result<Option<DryRun>, ScenarioError> {
        let view = &lazy.view;
        let pbs_tree = view.source() == TreeSource::Pbs || view.unknown_shares().is_some();
        let needed = algorithms_needed(program, self.setup.fair_share);
        let jobs = &self.setup.jobs;
        if !pbs_tree
            || needed.iter().any(|&a| a != Algorithm::Pbs)
            || jobs.len().saturating_mul(NODES_PER_JOB) > view.len()
        {
            return Ok(None);
        }
        let entity = self.setup.entity;
        let mut names: Vec<String> = jobs.jobs.iter().map(|j| entity.name_of(jobs, j)).collect();
        names.sort_unstable();
        names.dedup();
        let Some(part) = view.part(names.iter().map(String::as_str)) else {
            return Ok(None);
        };
        let size = PartSize {
            whole: part.whole_len,
            part: part.tree.len(),
        };
        let (usage, child_shares) = (part.usage, part.child_shares);
        // PBS's rows of the part; the entities the dry run added (under `unknown`, after the
        // part's nodes) count in their parent's share sum, with PBS's usage of a new leaf.
        let compute = move |tree: &Tree, algorithm: Algorithm, _: &Options| {
            if algorithm != Algorithm::Pbs {
                return Err(ShareError::BadOption(format!(
                    "{algorithm} over a part of the tree"
                )));
            }
            let mut usage = usage.clone();
            let mut child = child_shares.clone();
            for id in size.part..tree.len() {
                usage.push(MIN_USAGE);
                child.push(0);
                let shares = match tree.node(id).shares {
                    Shares::Count(c) => c,
                    Shares::Parent => 0,
                };
                if let Some(s) = tree.parent(id).and_then(|p| child.get_mut(p)) {
                    *s = s.wrapping_add(shares);
                }
            }
            Ok::<ShareResult, ShareError>(compute_with(tree, usage, &child))
        };
        let engine = ShareEngine {
            compute: &compute,
            path_order: Some(&fairshare::path_order::prepare),
        };
        let all: [&dyn SortFormula; 1] = [program];
        let shares = prepare_shares_with(&self.setup, Some(part.tree), &all, &engine)
            .map_err(ScenarioError::input)?;
        let mut options = order_options(&self.setup, shares.as_ref(), &engine);
        options.top = top;
        let run =
            dry_run_with(&self.setup, program, shares, options).map_err(ScenarioError::input)?;
        self.part = Some(size);
        Ok(Some(run))
    }
}
