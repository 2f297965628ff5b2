//! `fairsort tree`: manage the server home's share tree (import). (Being built; see the issue tracker.)

use super::{CliResult, Failure, Global};

/// Arguments of `fairsort tree`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `fairsort tree`.
pub fn run(_args: Args, _global: &Global) -> CliResult {
    Err(Failure::user("`fairsort tree` is not built yet"))
}
