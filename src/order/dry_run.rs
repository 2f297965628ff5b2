//! The whole dry run of one cycle's job sort, from loaded inputs: resolve entities, compute the
//! fair-share values the formula needs, bind, evaluate, sort, threshold. The fair-share engine is
//! passed in (`ShareEngine`), so this stage depends only on the engine's signatures.

use crate::fairshare::{Algorithm, NodeId, Options, PathOrder, ShareError, ShareResult, Tree};
use crate::jobs::error::BindError;
use crate::jobs::job_set::JobSet;
use crate::order::bind::{Binder, MissingShares};
use crate::order::formula_api::SortFormula;
use crate::order::shares::{active_users, algorithms_needed, ShareContext};
use crate::order::sort::{entity_nodes, ranks_of_nodes, run, OrderOptions, QueueOrder};
use crate::pbs::defs::FairshareEntity;
use std::collections::BTreeMap;

/// Computes one algorithm over a tree (`fairshare::compute`).
pub type ComputeFn = dyn Fn(&Tree, Algorithm, &Options) -> Result<ShareResult, ShareError>;
/// PBS's fair-share path comparison (`fairshare::pbs::compare_path`) prepared for a set of entity
/// nodes (`fairshare::PathOrder::new`).
pub type PathOrderFn = dyn for<'t> Fn(&'t Tree, &'t ShareResult, &[NodeId]) -> PathOrder<'t>;

/// The fair-share engine functions the dry run calls.
pub struct ShareEngine<'a> {
    /// Runs an algorithm.
    pub compute: &'a ComputeFn,
    /// Compares entities' paths (needed only with `fair_share` on).
    pub path_order: Option<&'a PathOrderFn>,
}

/// Everything a dry run reads besides the formula.
#[derive(Debug, Clone, Default)]
pub struct Setup {
    /// The queue.
    pub jobs: JobSet,
    /// The share tree (None: the formula must not use fair-share keywords).
    pub tree: Option<Tree>,
    /// PBS `fairshare_entity`.
    pub entity: FairshareEntity,
    /// Algorithm options (dampening, ...); active users are filled in from the jobs.
    pub options: Options,
    /// PBS `fair_share`: tie-break equal values by the fair-share path.
    pub fair_share: bool,
    /// `job_sort_formula_threshold`.
    pub threshold: Option<f64>,
    /// `--pbs-compat`.
    pub pbs_compat: bool,
    /// Queue priorities.
    pub queues: BTreeMap<String, i64>,
}

/// Why a dry run could not be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DryRunError {
    /// A fair-share keyword without a tree.
    #[error(transparent)]
    MissingShares(#[from] MissingShares),
    /// A job's value cannot be bound.
    #[error(transparent)]
    Bind(#[from] BindError),
    /// The fair-share engine refused.
    #[error("fair-share: {0}")]
    Share(#[from] ShareError),
    /// `fair_share` on without a tree.
    #[error("fair_share is on but no share tree was given")]
    FairShareWithoutTree,
}

/// The result: the order and what produced it (for explain and output).
#[derive(Debug, Clone)]
pub struct DryRun {
    /// Share tree, job entities and algorithm results (None without a tree).
    pub shares: Option<ShareContext>,
    /// The resolved keywords.
    pub binder: Binder,
    /// Ordering options used.
    pub options: OrderOptions,
    /// The order.
    pub order: QueueOrder,
}

/// Prepares fair-share values for `formula` (and the `fair_share` tie-break): entities resolved,
/// every needed algorithm computed once.
pub fn prepare_shares(
    setup: &Setup,
    formulas: &[&dyn SortFormula],
    engine: &ShareEngine,
) -> Result<Option<ShareContext>, DryRunError> {
    prepare_shares_with(setup, setup.tree.clone(), formulas, engine)
}

/// [`prepare_shares`] with the tree given instead of copied from `setup` (a caller that takes
/// it out of the setup saves a copy of the whole tree).
pub fn prepare_shares_with(
    setup: &Setup,
    tree: Option<Tree>,
    formulas: &[&dyn SortFormula],
    engine: &ShareEngine,
) -> Result<Option<ShareContext>, DryRunError> {
    let Some(tree) = tree else {
        if setup.fair_share {
            return Err(DryRunError::FairShareWithoutTree);
        }
        return Ok(None);
    };
    let mut ctx = ShareContext::resolve(tree, &setup.jobs, setup.entity);
    let mut needed = Vec::new();
    for f in formulas {
        for a in algorithms_needed(*f, setup.fair_share) {
            if !needed.contains(&a) {
                needed.push(a);
            }
        }
    }
    let mut options = setup.options.clone();
    // Only ticket-based fair share reads the active users (a million jobs' names otherwise).
    if needed.contains(&Algorithm::Ticket) {
        options.active_users = Some(active_users(&setup.jobs));
    }
    options.extra_entities = ctx.unknown_entities.clone();
    for a in needed {
        let result = (engine.compute)(&ctx.tree, a, &options)?;
        ctx.results.push(result);
    }
    Ok(Some(ctx))
}

/// Ordering options from the setup (fair-share ranks computed when `fair_share` is on).
pub fn order_options(
    setup: &Setup,
    shares: Option<&ShareContext>,
    engine: &ShareEngine,
) -> OrderOptions {
    let fair_share_rank = match (setup.fair_share, shares, engine.path_order) {
        (true, Some(ctx), Some(prepare)) => ctx.result(Algorithm::Pbs).map(|result| {
            let nodes = entity_nodes(&ctx.job_nodes);
            let paths = prepare(&ctx.tree, result, &nodes);
            ranks_of_nodes(&ctx.job_nodes, nodes, &|a, b| paths.compare(a, b))
        }),
        _ => None,
    };
    OrderOptions {
        threshold: setup.threshold,
        pbs_compat: setup.pbs_compat,
        fair_share_rank,
        top: None,
    }
}

/// Binds, evaluates and sorts with fair-share values already prepared: the per-cycle work
/// (what the benchmark's "bind + eval + sort" measures).
pub fn bind_and_order(
    setup: &Setup,
    formula: &dyn SortFormula,
    shares: Option<&ShareContext>,
    options: &OrderOptions,
) -> Result<(Binder, QueueOrder), DryRunError> {
    let queues = &setup.queues;
    let qp = |q: &str| queues.get(q).copied();
    let binder = Binder::new(
        formula.keywords(),
        &setup.jobs,
        &qp,
        shares,
        setup.pbs_compat,
    )?;
    let order = run(formula, &binder, &setup.jobs, options)?;
    Ok((binder, order))
}

/// Binds, evaluates and sorts with shares already prepared.
pub(crate) fn dry_run_with(
    setup: &Setup,
    formula: &dyn SortFormula,
    shares: Option<ShareContext>,
    options: OrderOptions,
) -> Result<DryRun, DryRunError> {
    let (binder, order) = bind_and_order(setup, formula, shares.as_ref(), &options)?;
    Ok(DryRun {
        shares,
        binder,
        options,
        order,
    })
}

/// The whole dry run for one formula.
pub fn dry_run(
    setup: &Setup,
    formula: &dyn SortFormula,
    engine: &ShareEngine,
) -> Result<DryRun, DryRunError> {
    let shares = prepare_shares(setup, &[formula], engine)?;
    let options = order_options(setup, shares.as_ref(), engine);
    dry_run_with(setup, formula, shares, options)
}
