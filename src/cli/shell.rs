//! `fairsort completions SHELL` and `fairsort man [-o DIR]`: shell completion scripts
//! (clap_complete) and man pages (clap_mangen) generated from the same clap definitions.

use super::{CliResult, Failure};
use clap::CommandFactory;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `fairsort completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `fairsort man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write fairsort.1 and one page per subcommand (fairsort-order.1, ...) into DIR instead of
    /// printing fairsort.1 on standard output.
    #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Prints the completion script for `args.shell` on standard output.
pub fn completions(args: CompletionsArgs) -> CliResult {
    let mut cmd = super::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "fairsort", &mut buf);
    std::io::stdout().lock().write_all(&buf)?;
    Ok(())
}

/// Prints fairsort.1, or writes every page into a directory.
pub fn man(args: ManArgs) -> CliResult {
    let cmd = super::Cli::command();
    match args.out_dir {
        None => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut buf)?;
            std::io::stdout().lock().write_all(&buf)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| Failure::user(format!("{}: {e}", dir.display())))?;
            clap_mangen::generate_to(cmd, &dir)
                .map_err(|e| Failure::user(format!("{}: {e}", dir.display())))?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "wrote man pages to {}", dir.display())?;
        }
    }
    Ok(())
}
