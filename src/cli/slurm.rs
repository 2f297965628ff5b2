//! `fairsort slurm`: the home's Slurm site configuration. `import` validates `slurm.conf` and the
//! optional `sacctmgr` QOS and association captures and stores them in the home, so `fairsort
//! order --jobs squeue.json` there needs no flags; `show` prints what is stored.

use super::failure::home_failure as user_error;
use super::{CliResult, Failure, Global};
use fairsort::home::{current_user, Home, SlurmSite};
use std::path::{Path, PathBuf};

/// Arguments of `fairsort slurm`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

/// What to do with the home's Slurm configuration.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Validate slurm.conf (and the QOS and association captures) and store them in the home,
    /// replacing what was there (bad input changes nothing).
    Import {
        /// The cluster's slurm.conf, or `scontrol show config` output (its `Include` files are
        /// followed and stored with it).
        #[arg(long, value_name = "FILE")]
        conf: PathBuf,
        /// `sacctmgr show qos -P format=Name,Priority`.
        #[arg(long, value_name = "FILE")]
        qos: Option<PathBuf>,
        /// `sacctmgr show assoc -P` with a Priority column (also the share tree when the home
        /// has none and it has Share and ParentName columns).
        #[arg(long, value_name = "FILE")]
        assoc: Option<PathBuf>,
    },
    /// Print the stored configuration's texts.
    Show,
}

fn read(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::user(format!("cannot read {}: {e}", path.display())))
}

/// Runs `fairsort slurm`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let home = Home::existing(global.home.as_deref()).map_err(user_error)?;
    match args.action {
        Action::Import { conf, qos, assoc } => {
            let conf_name = conf.display().to_string();
            let text = fairsort::slurm::conf::inline_includes(&read(&conf)?, &conf_name)
                .map_err(|e| Failure::user(e.to_string()))?;
            let site = SlurmSite {
                conf: text,
                qos: qos.as_deref().map(read).transpose()?,
                assoc: assoc.as_deref().map(read).transpose()?,
            };
            // Messages name the files given.
            let name = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
            site.validate((
                &conf.display().to_string(),
                &name(&qos).unwrap_or_default(),
                &name(&assoc).unwrap_or_default(),
            ))
            .map_err(user_error)?;
            home.store_slurm_site_from(&current_user(), &site, &super::sources::absolute(&conf))
                .map_err(user_error)?;
            crate::outln!(
                "stored the Slurm configuration ({}{}{}) in {}",
                conf.display(),
                name(&qos).map(|q| format!(", QOS {q}")).unwrap_or_default(),
                name(&assoc)
                    .map(|a| format!(", associations {a}"))
                    .unwrap_or_default(),
                home.file(fairsort::home::slurm_store::FILE).display()
            );
            Ok(())
        }
        Action::Show => {
            let Some(site) = home.slurm_site().map_err(user_error)? else {
                return Err(Failure::user(format!(
                    "no Slurm configuration in {} (use `fairsort slurm import --conf slurm.conf`)",
                    home.path().display()
                )));
            };
            crate::outln!("# slurm.conf\n{}", site.conf.trim_end());
            if let Some(q) = &site.qos {
                crate::outln!("# sacctmgr show qos -P\n{}", q.trim_end());
            }
            if let Some(a) = &site.assoc {
                crate::outln!("# sacctmgr show assoc -P\n{}", a.trim_end());
            }
            Ok(())
        }
    }
}
