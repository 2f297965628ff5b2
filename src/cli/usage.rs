//! `fairsort usage`: record, decay, set, reset and show fair-share usage. (Being built; see the issue tracker.)

use super::{CliResult, Failure, Global};

/// Arguments of `fairsort usage`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `fairsort usage`.
pub fn run(_args: Args, _global: &Global) -> CliResult {
    Err(Failure::user("`fairsort usage` is not built yet"))
}
