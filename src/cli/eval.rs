//! `fairsort eval`: evaluate a job_sort_formula once with given keyword values. (Being built; see the issue tracker.)

use super::{CliResult, Failure, Global};

/// Arguments of `fairsort eval`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `fairsort eval`.
pub fn run(_args: Args, _global: &Global) -> CliResult {
    Err(Failure::user("`fairsort eval` is not built yet"))
}
