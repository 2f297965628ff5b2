//! `fairsort share`: compute fair-share values over a share tree with one of six algorithms. (Being built; see the issue tracker.)

use super::{CliResult, Failure, Global};

/// Arguments of `fairsort share`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `fairsort share`.
pub fn run(_args: Args, _global: &Global) -> CliResult {
    Err(Failure::user("`fairsort share` is not built yet"))
}
