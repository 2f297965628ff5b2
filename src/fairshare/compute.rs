//! `compute`: the one entry point that runs any of the six algorithms over a tree, so the CLI,
//! the queue binder and the server never match on algorithms themselves.

use super::algorithm::{Algorithm, Options};
use super::result::{ShareError, ShareResult};
use super::tree::Tree;
use super::{flux, pbs, slurm};

/// Runs `algorithm` over `tree` with `opts`. Rows are indexed by the tree's `NodeId`s (PBS
/// appends rows for `opts.extra_entities` the tree lacks; see `pbs::compute`).
pub fn compute(
    tree: &Tree,
    algorithm: Algorithm,
    opts: &Options,
) -> Result<ShareResult, ShareError> {
    match algorithm {
        Algorithm::Pbs => pbs::compute(tree, opts),
        Algorithm::Flux => flux::compute(tree, opts),
        Algorithm::Classic
        | Algorithm::DepthOblivious
        | Algorithm::FairTree
        | Algorithm::Ticket => slurm::compute(tree, algorithm, opts),
    }
}
