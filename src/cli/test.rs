//! `fairsort test`: run formula unit-test files. (Being built; see the issue tracker.)

use super::{CliResult, Failure, Global};

/// Arguments of `fairsort test`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `fairsort test`.
pub fn run(_args: Args, _global: &Global) -> CliResult {
    Err(Failure::user("`fairsort test` is not built yet"))
}
