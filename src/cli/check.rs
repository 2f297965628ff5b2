//! `fairsort check`: validate a job_sort_formula and list the keywords it uses. (Being built; see the issue tracker.)

use super::{CliResult, Failure, Global};

/// Arguments of `fairsort check`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `fairsort check`.
pub fn run(_args: Args, _global: &Global) -> CliResult {
    Err(Failure::user("`fairsort check` is not built yet"))
}
