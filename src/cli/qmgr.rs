//! `fairsort qmgr`: set and print server, scheduler, queue and resource attributes, like pbs qmgr. (Being built; see the issue tracker.)

use super::{CliResult, Failure, Global};

/// Arguments of `fairsort qmgr`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `fairsort qmgr`.
pub fn run(_args: Args, _global: &Global) -> CliResult {
    Err(Failure::user("`fairsort qmgr` is not built yet"))
}
