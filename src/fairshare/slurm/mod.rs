//! The four Slurm fair-share algorithms over one share tree, each reproducing the columns
//! `sshare -a -l` prints under it (slurm.md): classic (`NO_FAIR_TREE`, with
//! `FairShareDampeningFactor`), depth-oblivious (steady state), Fair Tree (real tie walk, or the
//! documented merge of tied accounts with `Options::merge_ties`) and ticket-based (tickets only
//! to active users, `Options::active_users`).
//!
//! Floats: Slurm keeps usage, effective usage and Level FS in x87 `long double`; fairsort uses
//! `f64` throughout. Every reference vector (T1, T2, the tie table, the real-run tables) agrees
//! to the 6 printed decimals, including the uD2 < uD3 rounding order of test24.4; only exact
//! Level FS ties that long double and f64 round differently could rank differently.

mod classic;
mod depth_oblivious;
mod explain;
mod fair_tree;
mod incremental;
mod links;
#[cfg(test)]
pub(crate) mod testtrees;
mod ticket;

use crate::fairshare::result::Column;
use crate::fairshare::{Algorithm, NodeId, Options, ShareError, ShareResult, Tree};
pub use incremental::Incremental;
use links::Links;

/// Runs one Slurm algorithm (`Classic`, `DepthOblivious`, `FairTree` or `Ticket`) over `tree`.
/// Other algorithms and unusable options (a dampening factor that is not a positive finite
/// number) give `ShareError::BadOption`.
pub fn compute(
    tree: &Tree,
    algorithm: Algorithm,
    opts: &Options,
) -> Result<ShareResult, ShareError> {
    match algorithm {
        Algorithm::Classic => Ok(classic::compute(tree, dampening(opts)?)),
        Algorithm::FairTree => Ok(fair_tree::compute(tree, opts.merge_ties)),
        Algorithm::DepthOblivious => Ok(depth_oblivious::compute(tree, dampening(opts)?)),
        Algorithm::Ticket => Ok(ticket::compute(tree, opts.active_users.as_ref())),
        Algorithm::Pbs | Algorithm::Flux => Err(ShareError::BadOption(format!(
            "`{algorithm}` is not a Slurm algorithm"
        ))),
    }
}

/// The columns every Slurm algorithm prints: each row's S, U_E and fair-share value, and its
/// U_N (blank on the root); the algorithm adds its own columns to the result.
fn result(
    algorithm: Algorithm,
    links: Links,
    norm_shares: Vec<f64>,
    effective_usage: Vec<f64>,
    fairshare: Vec<f64>,
) -> ShareResult {
    let mut result = ShareResult::new(algorithm, links.len());
    result.set_column(Column::NormShares, norm_shares);
    result.set_column(Column::EffectiveUsage, effective_usage);
    result.set_column(Column::Fairshare, fairshare);
    result.set_column(Column::NormUsage, links.into_usage_norm());
    result.blank(Column::NormUsage, 0);
    result
}

/// The dampening factor, checked: Slurm takes any u16 >= 1; fairsort accepts any positive
/// finite number.
fn dampening(opts: &Options) -> Result<f64, ShareError> {
    let d = opts.dampening;
    if d.is_finite() && d > 0.0 {
        Ok(d)
    } else {
        Err(ShareError::BadOption(format!(
            "dampening factor must be a positive number, got {d}"
        )))
    }
}

/// Algorithm-specific explanation lines for `share --explain`: the path from the root with
/// each level's values and the intermediate numbers of the algorithm that produced `result`.
pub fn notes(tree: &Tree, result: &ShareResult, node: NodeId) -> Vec<String> {
    explain::notes(tree, result, node)
}
