//! `fairsort pbs`: the home's PBS site from the files it already has. `import` reads
//! `qmgr -c 'print server'`, `qmgr -c 'list sched'`, `sched_config`, `resource_group`, the
//! usage (binary `usage`, `pbsfs` output or fairsort's text) and `holidays` — given one by one,
//! found under `--pbs-home`, or asked of the site's own `qmgr` and `pbsfs` (`--live`) — and
//! stores them in the home, so `fairsort order --jobs qstat.json` there considers jobs as the
//! site's pbs_sched does; `show` prints what is stored.

use super::failure::home_failure as user_error;
use super::{CliResult, Failure, Global};
use fairsort::home::{current_user, Home, PbsImport, PbsNames, PbsSite};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Arguments of `fairsort pbs`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

/// What to do with the home's PBS site.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Read the site's files and store them in the home, replacing its server, scheduler,
    /// queues, share tree and usage (bad input changes nothing).
    Import(ImportArgs),
    /// Print the stored files' texts.
    Show,
}

/// `fairsort pbs import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// `qmgr -c 'print server'` output (queues, job_sort_formula, resources, ...).
    #[arg(long, value_name = "FILE")]
    pub server: Option<PathBuf>,
    /// `qmgr -c 'list sched'` or `qmgr -c 'print sched'` output.
    #[arg(long, value_name = "FILE")]
    pub sched: Option<PathBuf>,
    /// The scheduler's `sched_config`.
    #[arg(long, value_name = "FILE")]
    pub sched_config: Option<PathBuf>,
    /// The share tree, `resource_group`.
    #[arg(long, value_name = "FILE")]
    pub resource_group: Option<PathBuf>,
    /// Fair-share usage: PBS's binary `usage` file, `pbsfs` output as printed, or fairsort's
    /// text (`ENTITY USAGE` lines).
    #[arg(long, value_name = "FILE")]
    pub usage: Option<PathBuf>,
    /// The scheduler's `holidays` file (prime time).
    #[arg(long, value_name = "FILE")]
    pub holidays: Option<PathBuf>,
    /// PBS_HOME: read `sched_priv/{sched_config,resource_group,usage,holidays,sched_formula}`
    /// where they exist (files given by name win).
    #[arg(long, value_name = "DIR")]
    pub pbs_home: Option<PathBuf>,
    /// Ask the site itself: `qmgr -c 'print server'`, `qmgr -c 'list sched'` and `pbsfs` of
    /// PBS_EXEC, and the files of PBS_HOME, both from `/etc/pbs.conf` (or `$PBS_CONF_FILE`).
    #[arg(long)]
    pub live: bool,
}

fn read_text(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::user(format!("cannot read {}: {e}", path.display())))
}

/// `/etc/pbs.conf` (or `$PBS_CONF_FILE`): `PBS_EXEC` and `PBS_HOME`, as PBS's commands read
/// it (`NAME=VALUE` lines; the environment's `PBS_EXEC`/`PBS_HOME` win, as in `pbs_loadconf`).
fn pbs_conf() -> Result<(PathBuf, PathBuf, String), Failure> {
    let file = std::env::var_os("PBS_CONF_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/etc/pbs.conf"));
    let text = read_text(&file)?;
    let mut exec = std::env::var_os("PBS_EXEC").map(PathBuf::from);
    let mut home = std::env::var_os("PBS_HOME").map(PathBuf::from);
    for line in text.lines() {
        let Some((k, v)) = line.trim().split_once('=') else {
            continue;
        };
        match k.trim() {
            "PBS_EXEC" if exec.is_none() => exec = Some(PathBuf::from(v.trim())),
            "PBS_HOME" if home.is_none() => home = Some(PathBuf::from(v.trim())),
            _ => {}
        }
    }
    let name = file.display().to_string();
    match (exec, home) {
        (Some(e), Some(h)) => Ok((e, h, name)),
        _ => Err(Failure::user(format!(
            "{name}: PBS_EXEC and PBS_HOME must both be set"
        ))),
    }
}

/// The standard output of a site command, or why it failed.
fn run_site(program: &Path, args: &[&str]) -> Result<String, Failure> {
    let shown = std::iter::once(program.display().to_string())
        .chain(args.iter().map(|a| a.to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| Failure::user(format!("cannot run {shown}: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(Failure::user(format!(
            "{shown} failed ({}): {}",
            out.status,
            err.lines().next().unwrap_or("")
        )));
    }
    String::from_utf8(out.stdout)
        .map_err(|_| Failure::user(format!("{shown}: its output is not UTF-8")))
}

/// One input: a text and the name messages give it.
struct Text {
    text: String,
    name: String,
}

fn from_file(path: &Path) -> Result<Text, Failure> {
    Ok(Text {
        text: read_text(path)?,
        name: path.display().to_string(),
    })
}

/// A file of PBS_HOME's `sched_priv`, when it exists.
fn sched_priv(home: &Path, name: &str) -> Option<PathBuf> {
    let p = home.join("sched_priv").join(name);
    p.is_file().then_some(p)
}

fn read_usage(bytes: &[u8], name: &str) -> Result<fairsort::pbs::PbsUsage, Failure> {
    fairsort::pbs::site_files::read_any_usage(bytes, name).map_err(|e| Failure::user(e.to_string()))
}

/// Runs `fairsort pbs`.
pub fn run(args: Args, global: &Global) -> CliResult {
    let home = Home::existing(global.home.as_deref()).map_err(user_error)?;
    match args.action {
        Action::Import(a) => import(&home, a),
        Action::Show => {
            let Some(site) = home.pbs_site().map_err(user_error)? else {
                return Err(Failure::user(format!(
                    "no PBS site in {} (use `fairsort pbs import --server FILE --sched FILE --sched-config FILE`)",
                    home.path().display()
                )));
            };
            for (title, text) in [
                ("qmgr -c 'print server'", &site.server),
                ("qmgr -c 'list sched'", &site.sched),
                ("sched_config", &site.sched_config),
                ("holidays", &site.holidays),
            ] {
                if let Some(t) = text {
                    crate::outln!("# {title}\n{}", t.trim_end());
                }
            }
            Ok(())
        }
    }
}

fn import(home: &Home, a: ImportArgs) -> CliResult {
    let mut pbs_home = a.pbs_home.clone();
    let (mut server, mut sched, mut usage_live) = (None, None, None);
    if a.live {
        let (exec, phome, conf) = pbs_conf()?;
        let qmgr = exec.join("bin").join("qmgr");
        if a.server.is_none() {
            server = Some(Text {
                text: run_site(&qmgr, &["-c", "print server"])?,
                name: format!("{} -c 'print server'", qmgr.display()),
            });
        }
        if a.sched.is_none() {
            sched = Some(Text {
                text: run_site(&qmgr, &["-c", "list sched"])?,
                name: format!("{} -c 'list sched'", qmgr.display()),
            });
        }
        if a.usage.is_none() {
            let pbsfs = exec.join("sbin").join("pbsfs");
            usage_live = Some(Text {
                text: run_site(&pbsfs, &[])?,
                name: format!("{} (PBS_EXEC of {conf})", pbsfs.display()),
            });
        }
        if pbs_home.is_none() {
            pbs_home = Some(phome);
        }
    }
    if let Some(dir) = &pbs_home {
        if !dir.join("sched_priv").is_dir() {
            return Err(Failure::user(format!(
                "{}: no sched_priv directory here (is it PBS_HOME?)",
                dir.display()
            )));
        }
    }
    let found = |given: &Option<PathBuf>, name: &str| -> Option<PathBuf> {
        given
            .clone()
            .or_else(|| pbs_home.as_deref().and_then(|h| sched_priv(h, name)))
    };
    let server = match (&a.server, server) {
        (Some(p), _) => Some(from_file(p)?),
        (None, live) => live,
    };
    let sched = match (&a.sched, sched) {
        (Some(p), _) => Some(from_file(p)?),
        (None, live) => live,
    };
    let config = found(&a.sched_config, "sched_config")
        .map(|p| from_file(&p))
        .transpose()?;
    let holidays = found(&a.holidays, "holidays")
        .map(|p| from_file(&p))
        .transpose()?;
    let tree_path = found(&a.resource_group, "resource_group");
    let usage_path = if usage_live.is_some() {
        None
    } else {
        found(&a.usage, "usage")
    };
    let formula_path = pbs_home
        .as_deref()
        .and_then(|h| sched_priv(h, "sched_formula"));
    let names = PbsNames {
        server: server.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
        sched: sched.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
        sched_config: config.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
        holidays: holidays
            .as_ref()
            .map(|t| t.name.clone())
            .unwrap_or_default(),
    };
    let site = PbsSite {
        server: server.map(|t| t.text),
        sched: sched.map(|t| t.text),
        sched_config: config.map(|t| t.text),
        holidays: holidays.map(|t| t.text),
    };
    let tree = match &tree_path {
        Some(p) => {
            let text = read_text(p)?;
            Some(
                fairsort::pbs::parse_resource_group(&text, 0)
                    .map_err(|e| Failure::user(format!("{}: {e}", p.display())))?,
            )
        }
        None => None,
    };
    let usage = match (&usage_path, &usage_live) {
        (Some(p), _) => {
            let bytes = std::fs::read(p)
                .map_err(|e| Failure::user(format!("cannot read {}: {e}", p.display())))?;
            Some(read_usage(&bytes, &p.display().to_string())?)
        }
        (None, Some(t)) => Some(read_usage(t.text.as_bytes(), &t.name)?),
        (None, None) => None,
    };
    let formula = match &formula_path {
        Some(p) => {
            let bytes = std::fs::read(p)
                .map_err(|e| Failure::user(format!("cannot read {}: {e}", p.display())))?;
            Some(
                fairsort::pbs::read_sched_formula(&bytes, &p.display().to_string())
                    .map_err(|e| Failure::user(e.to_string()))?,
            )
        }
        None => None,
    };
    let import = PbsImport {
        site,
        names,
        tree,
        tree_origin: tree_path.as_deref().map(super::sources::absolute),
        usage,
        formula,
    };
    let done = home
        .import_pbs(&current_user(), &import)
        .map_err(user_error)?;
    crate::outln!(
        "stored the PBS site ({}) in {}",
        done.parts.join(", "),
        home.path().display()
    );
    for n in &done.notes {
        crate::outln!("note: {n}");
    }
    Ok(())
}
