//! `fairsort order`: dry-run the job queue order: bind, evaluate, sort, threshold and explain. (Being built; see the issue tracker.)

use super::{CliResult, Failure, Global};

/// Arguments of `fairsort order`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `fairsort order`.
pub fn run(_args: Args, _global: &Global) -> CliResult {
    Err(Failure::user("`fairsort order` is not built yet"))
}
