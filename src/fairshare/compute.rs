//! `compute`: the one entry point that runs any of the six algorithms over a tree, so the CLI,
//! the queue binder and the server never match on algorithms themselves.

use crate::fairshare::algorithm::{Algorithm, Options};
use crate::fairshare::result::{ShareError, ShareResult};
use crate::fairshare::tree::Tree;
use crate::fairshare::{flux, pbs, slurm};

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
