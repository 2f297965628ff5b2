//! `fairsort tree`: manage the home's share tree. `import` validates a tree in any format
//! the engine reads and stores it in its scheduler's model (a PBS tree in `resource_group`
//! layout, a Slurm, flux or fairsort tree as fairsort's TOML tree); `show` prints the stored tree.

use super::failure::home_failure as user_error;
use super::{CliResult, Failure, Global};
use fairsort::home::{current_user, Home};
use fairsort::inputs::{read_tree, TreeFormat};
use std::path::PathBuf;

/// Arguments of `fairsort tree`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

/// What to do with the home's tree.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Validate a share tree and store it in the home (bad input changes nothing).
    Import {
        /// The tree file (PBS resource_group, sshare/sacctmgr output, flux-accounting DB, TOML, JSON).
        file: PathBuf,
        /// Input format (detected from the content when omitted).
        #[arg(long, value_parser = super::choices::parser::<TreeFormat>())]
        tree_format: Option<TreeFormat>,
    },
    /// Print the stored tree as imported (PBS resource_group layout, or fairsort's TOML tree for
    /// Slurm, flux and fairsort trees; --json: the tree with the home's usage applied).
    Show {
        /// JSON of the tree with the home's usage applied, instead of the stored text.
        #[arg(long)]
        json: bool,
    },
}

/// The format the tree reader detects in `file` (for the site record).
fn detected(file: &std::path::Path) -> Option<TreeFormat> {
    use std::io::Read;
    let mut head = Vec::with_capacity(8192);
    std::fs::File::open(file)
        .and_then(|f| f.take(8192).read_to_end(&mut head))
        .ok()?;
    fairsort::inputs::detect_format(file, &head)
}

/// Runs `fairsort tree`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let home = Home::existing(global.home.as_deref()).map_err(user_error)?;
    match args.action {
        Action::Import { file, tree_format } => {
            let spec = read_tree(&file, tree_format).map_err(|e| Failure::user(e.to_string()))?;
            let format = tree_format.or_else(|| detected(&file));
            let before = home.site().map_err(user_error)?;
            home.store_tree_from(
                &current_user(),
                &spec,
                (
                    &super::sources::absolute(&file),
                    format.map_or("detected", |f| f.name()),
                ),
            )
            .map_err(user_error)?;
            let now = fairsort::home::SiteKind::of_tree(spec.source).unwrap_or(before.kind);
            if before.kind == fairsort::home::SiteKind::Slurm && now != before.kind {
                crate::cli::say::line(format_args!(
                    "fairsort: note: the home is a {now} site now; its Slurm configuration was removed"
                ));
            }
            crate::outln!(
                "stored {} nodes from {} in {}",
                spec.nodes.len(),
                file.display(),
                home.tree_path().display()
            );
            // The home's usage over the new tree: say what no longer meets an association.
            match fairsort::scenario::Scenario::from_home(&home) {
                Ok(sc) => super::usage::warn_unmatched(&sc.unmatched_usage),
                Err(e) => crate::cli::say::line(format_args!(
                    "warning: the home's usage over the new tree: {e}"
                )),
            }
            Ok(())
        }
        Action::Show { json } => {
            let spec = if json {
                home.tree_spec()
            } else {
                home.stored_tree()
            };
            let Some(spec) = spec.map_err(user_error)? else {
                return Err(Failure::user(format!(
                    "no share tree in {} (use `fairsort tree import FILE`)",
                    home.path().display()
                )));
            };
            if json {
                let text = serde_json::to_string_pretty(&spec)
                    .map_err(|e| Failure::user(e.to_string()))?;
                crate::outln!("{text}");
            } else {
                let text = if spec.source == fairsort::fairshare::TreeSource::Pbs {
                    fairsort::pbs::write_resource_group(&spec)
                } else {
                    fairsort::native::tree::write_toml(&spec)
                };
                crate::out!("{}", text.map_err(|e| Failure::user(e.to_string()))?);
            }
            Ok(())
        }
    }
}
