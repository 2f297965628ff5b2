//! `fairsort init`: creates the home with its documented defaults (docs/home.md).
//! No other command creates a home.

use super::{CliResult, Failure, Global};
use fairsort::home::Home;
use std::io::Write;

/// Arguments of `fairsort init` (the home is the global `--home DIR` / `FAIRSORT_HOME`, else
/// `$XDG_DATA_HOME/fairsort`, else `~/.local/share/fairsort`).
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Creates the home (directory 0755, `server.toml` 0644 with default attributes, managers
/// `root@*` and the creating user, the creation as the first audit record). A home that already
/// exists is left as it is.
pub fn run(_args: Args, global: &Global) -> CliResult {
    let existed = Home::exists(global.home.as_deref());
    let home = Home::open(global.home.as_deref()).map_err(|e| Failure::user(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    if existed {
        writeln!(
            out,
            "fairsort home at {} already exists",
            home.path().display()
        )?;
    } else {
        writeln!(out, "created fairsort home at {}", home.path().display())?;
    }
    Ok(())
}
