//! `fairsort usage`: record finished jobs into the home's usage exactly once, decay it, set and
//! reset it, show it, and export it for PBS or flux — the equivalents of `pbsfs -s/-d/-e` and
//! sshare's usage columns. A thin layer over `fairsort::usage`.

use super::dates::DateFlags;
use super::table::{Align, Table};
use super::{CliResult, Failure, Global};
use fairsort::fairshare::TreeSpec;
use fairsort::formula::ResourceTable;
use fairsort::home::{current_host, current_user, Home, SchedAttrs, UsageChangeError, UsageHome};
use fairsort::inputs::{
    already_charged, record, write_flux_usage, write_pbs_usage, InputFormat, RecordOptions,
};
use fairsort::pbs::defs::units::decay_time;
use fairsort::pbs::defs::FairshareEntity;
use fairsort::slurm::BillingWeights;
use fairsort::usage::decay::ModelKind;
use fairsort::usage::settings::check_time;
use fairsort::usage::{
    pbs_groups, usage_res_charge, ModelOverrides, UnmatchedUsage, Usage, UsageError,
};
use std::path::PathBuf;

/// Arguments of `fairsort usage`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: UsageCommand,
}

/// The `fairsort usage` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum UsageCommand {
    /// Charge the finished jobs of accounting records (PBS logs or log directories, sacct -P
    /// output, flux databases); jobs already charged are skipped.
    Record(RecordArgs),
    /// Decay all usage up to a time with the store's decay model (like `pbsfs -d`).
    Decay(DecayArgs),
    /// Set one entity's usage (like `pbsfs -s ENTITY USAGE`).
    Set(SetArgs),
    /// Reset all usage to the model's base (PBS 1, others 0).
    Reset(ResetArgs),
    /// Show usage per entity.
    Show(ShowArgs),
    /// Write usage for a scheduler: PBS's binary usage file or a flux-accounting database.
    Export(ExportArgs),
}

/// `fairsort usage record`.
#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    /// Accounting files or directories of daily files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Input format (default: detected per file).
    #[arg(long, value_parser = super::choices::parser::<InputFormat>())]
    pub format: Option<InputFormat>,
    /// PBS fairshare_usage_res: the formula charged per job, over its used resources (time in
    /// seconds, size in kb), e.g. `cput` or `ncpus*walltime`.
    /// Default: the home's sched `fairshare_usage_res` (PBS default `cput`).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub usage_res: Option<String>,
    /// PBS fairshare_entity: euser, egroup, Account_Name, queue or egroup:euser.
    /// Default: the home's sched `fairshare_entity`.
    #[arg(long, value_name = "ENTITY")]
    pub entity: Option<String>,
    /// Slurm TRESBillingWeights, e.g. `CPU=1.0,Mem=0.25G` (default: the billing TRES or AllocCPUS).
    #[arg(long, value_name = "WEIGHTS")]
    pub billing_weights: Option<String>,
    /// The zone the records' dates are in (sacct and PBS's accounting logs are in the site's
    /// local time): an IANA name such as `Europe/Paris`, or `UTC` (default: `TZ`, else the
    /// system's zone).
    #[arg(long, value_name = "ZONE", value_parser = super::dates::parse_zone)]
    pub tz: Option<jiff::tz::TimeZone>,
    /// Refuse the whole run (write nothing, exit 1) if any record is malformed.
    #[arg(long)]
    pub strict: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Decay model options, saved in the store when given.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ModelArgs {
    /// Decay model: pbs, slurm, flux or half-life.
    #[arg(long)]
    pub model: Option<String>,
    /// PBS fairshare_decay_time, as PBS's scheduler takes it (HH:MM:SS; PBS refuses a bare
    /// number of seconds here). Default: the home's sched attribute.
    #[arg(long, value_name = "HH:MM:SS")]
    pub decay_time: Option<String>,
    /// PBS fairshare_decay_factor (default: the home's sched attribute) / flux decay_factor.
    #[arg(long, value_name = "F")]
    pub decay_factor: Option<f64>,
    /// Half-life (Slurm PriorityDecayHalfLife, flux priority_decay_half_life, half-life): a
    /// duration, seconds or `7d`, `12h`, `HH:MM:SS`, `D-HH:MM:SS`.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = super::duration::seconds)]
    pub half_life: Option<i64>,
    /// Slurm PriorityCalcPeriod: a duration (a bare number is seconds here as in every flag;
    /// slurm.conf writes minutes: `5` there is `5m` here).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = super::duration::positive_seconds)]
    pub calc_period: Option<i64>,
    /// Slurm PriorityUsageResetPeriod: NONE, DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY.
    #[arg(long, value_name = "PERIOD")]
    pub reset_period: Option<String>,
    /// flux priority_usage_reset_period, a duration (bins = this / half-life).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = super::duration::seconds)]
    pub usage_reset_period: Option<i64>,
}

/// `fairsort usage decay`.
#[derive(Debug, clap::Args)]
pub struct DecayArgs {
    /// Decay up to this time: epoch seconds or ISO 8601 (`2024-04-13T12:00`, local time
    /// unless it has a zone: `Z`, `+02:00`). Default: now.
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print the result as JSON (times in epoch seconds).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dates: DateFlags,
}

/// `fairsort usage set`.
#[derive(Debug, clap::Args)]
pub struct SetArgs {
    /// The entity: NAME, or ACCOUNT/USER for a Slurm or flux association.
    pub entity: String,
    /// Its new usage (≥ 0).
    #[arg(allow_negative_numbers = true)]
    pub value: f64,
}

/// `fairsort usage reset`.
#[derive(Debug, clap::Args)]
pub struct ResetArgs {
    /// Also forget which jobs were charged, so the same records can be recorded again.
    #[arg(long)]
    pub forget_jobs: bool,
    /// The new last-decay time: epoch seconds or ISO 8601 (local time unless it has a zone).
    /// Default: now.
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// `fairsort usage show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// JSON output (times in epoch seconds).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// CSV output.
    #[arg(long)]
    pub csv: bool,
    #[command(flatten)]
    pub dates: DateFlags,
}

/// `fairsort usage export`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).multiple(true).args(["pbs", "flux"])))]
pub struct ExportArgs {
    /// Write PBS's binary usage file (old one kept as FILE.bak).
    #[arg(long, value_name = "FILE")]
    pub pbs: Option<PathBuf>,
    /// Also create usage.touch beside the PBS file so a running scheduler rereads it.
    #[arg(long, requires = "pbs")]
    pub touch: bool,
    /// Write job_usage of the associations and banks of a flux-accounting database.
    #[arg(long, value_name = "DB")]
    pub flux: Option<PathBuf>,
}

/// Runs `fairsort usage`. Every change needs a manager of the home (checked before any lock)
/// and leaves an audit record.
pub fn run(args: Args, global: &Global) -> CliResult {
    let home = Home::existing(global.home.as_deref()).map_err(|e| Failure::user(e.to_string()))?;
    let state = home.load().map_err(|e| Failure::user(e.to_string()))?;
    if let UsageCommand::Show(a) = args.command {
        return run_show(a, &home);
    }
    let (who, host) = (current_user(), current_host());
    let command = audit_command(std::env::args_os().skip(1));
    let sched = &state.sched;
    // Read before the usage lock: `record` checks the jobs' associations against it.
    let tree = match &args.command {
        UsageCommand::Record(_) => stored_tree(&home),
        _ => None,
    };
    let pbs_decay = (
        i64::try_from(sched.fairshare_decay_time).unwrap_or(i64::MAX),
        sched.fairshare_decay_factor,
    );
    home.change_usage(&who, &host, &command, |lock| -> CliResult {
        match args.command {
            UsageCommand::Record(a) => run_record(a, lock, sched, tree.as_ref()),
            UsageCommand::Decay(a) => run_decay(a, lock, pbs_decay),
            UsageCommand::Set(a) => {
                let mut u = lock.load().map_err(user)?;
                let (account, name) = split_entity(&a.entity)?;
                u.set(account, name, a.value).map_err(user)?;
                lock.commit(&mut u, None).map_err(user)
            }
            UsageCommand::Reset(a) => {
                let model = overrides(&a.model)?;
                let mut u = lock.load().map_err(user)?;
                u.settings
                    .apply(&model, pbs_decay)
                    .map_err(|e| Failure::user(e.to_string()))?;
                u.reset(match &a.at {
                    Some(t) => parse_time(t)?,
                    None => now(),
                });
                if a.forget_jobs {
                    lock.clear_ledger(&mut u).map_err(user)?;
                }
                lock.commit(&mut u, None).map_err(user)
            }
            UsageCommand::Show(_) => Ok(()),
            UsageCommand::Export(a) => {
                let u = lock.load().map_err(user)?;
                if let Some(p) = a.pbs {
                    let n = write_pbs_usage(&u, &p, a.touch).map_err(user)?;
                    crate::outln!("wrote {n} entities to {}", p.display());
                }
                if let Some(db) = a.flux {
                    let n = write_flux_usage(&u, &db).map_err(user)?;
                    crate::outln!("wrote {n} usage rows to {}", db.display());
                }
                Ok(())
            }
        }
    })
}

impl From<UsageChangeError> for Failure {
    fn from(e: UsageChangeError) -> Self {
        Failure::user(e.to_string())
    }
}

/// The command line as the audit log records it: each argument quoted as a POSIX shell would
/// need it, so an argument holding a space, quote or newline stays one argument.
fn audit_command(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    args.map(|a| shell_quote(&a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn shell_quote(a: &str) -> String {
    let plain = !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c));
    if plain {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

fn user(e: UsageError) -> Failure {
    Failure::user(e.to_string())
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn parse_time(s: &str) -> Result<i64, Failure> {
    let t = super::dates::parse_time(s).map_err(Failure::usage)?;
    check_time("time", t).map_err(|e| Failure::usage(format!("bad time `{s}`: {e}")))?;
    Ok(t)
}

fn split_entity(s: &str) -> Result<(Option<&str>, &str), Failure> {
    let (account, name) = match s.split_once('/') {
        Some((a, n)) => (Some(a), n),
        None => (None, s),
    };
    if name.is_empty() || account.is_some_and(str::is_empty) {
        return Err(Failure::usage(format!(
            "bad entity `{s}`: use NAME or ACCOUNT/USER"
        )));
    }
    Ok((account, name))
}

/// The model flags, parsed (`--model` names are a usage error, a bad `--decay-time` an input
/// error, as PBS reports it).
fn overrides(m: &ModelArgs) -> Result<ModelOverrides, Failure> {
    Ok(ModelOverrides {
        model: match &m.model {
            Some(model) => Some(
                model
                    .parse::<ModelKind>()
                    .map_err(|e| Failure::usage(e.to_string()))?,
            ),
            None => None,
        },
        decay_time: match &m.decay_time {
            Some(t) => Some(
                decay_time(t)
                    .map(|t| i64::try_from(t).unwrap_or(i64::MAX))
                    .map_err(Failure::user)?,
            ),
            None => None,
        },
        decay_factor: m.decay_factor,
        half_life: m.half_life,
        calc_period: m.calc_period,
        reset: m.reset_period.clone(),
        usage_reset_period: m.usage_reset_period,
    })
}

fn run_record(
    a: RecordArgs,
    lock: &UsageHome,
    sched: &SchedAttrs,
    tree: Option<&TreeSpec>,
) -> CliResult {
    let entity: FairshareEntity = a
        .entity
        .as_deref()
        .unwrap_or(sched.fairshare_entity.as_str())
        .parse()
        .map_err(Failure::user)?;
    let usage_res = a.usage_res.as_deref().unwrap_or(&sched.fairshare_usage_res);
    let charge = usage_res_charge(usage_res, &ResourceTable::builtin()).map_err(Failure::user)?;
    let weights: BillingWeights = match &a.billing_weights {
        Some(w) => w.parse().map_err(Failure::user)?,
        None => BillingWeights::default(),
    }
    .in_zone(super::dates::zone_or_system(&a.tz));
    // The store as loaded: its entities are indexed (`Usage`) only when something is charged.
    let store = lock.load_store().map_err(user)?;
    let bar = std::cell::RefCell::new(super::progress::Progress::new(0, "usage record"));
    let progress = |done: u64, total: u64| {
        let mut bar = bar.borrow_mut();
        bar.set_total(total);
        bar.set(done);
    };
    let opts = RecordOptions {
        format: a.format,
        entity,
        charge: charge.as_ref(),
        weights,
        tree,
        progress: Some(&progress),
    };
    // Logs charged to their end (their charged marks match) need neither the ledger nor a parse.
    let (report, mut ledger, mut u) =
        match already_charged(&a.files, &opts, &store).map_err(user)? {
            Some(report) => (report, None, Err(store)),
            None => {
                let mut u = Usage::from(store);
                let mut ledger = lock.ledger(&u).map_err(user)?;
                let report = record(&a.files, &opts, &mut u, &mut ledger).map_err(user)?;
                (report, Some(ledger), Ok(u))
            }
        };
    drop(opts);
    bar.into_inner().finish();
    let mut skipped = crate::cli::say::Capped::new("malformed records skipped");
    for m in &report.malformed {
        skipped.warn(format_args!("{m} (record skipped)"));
    }
    drop(skipped);
    if a.strict && !report.malformed.is_empty() {
        return Err(Failure::user(format!(
            "{} malformed record(s); nothing recorded (--strict)",
            report.malformed.len()
        )));
    }
    // Nothing to change when everything was charged before: the audit record alone is written.
    let last_decay = match &u {
        Ok(u) => u.last_decay,
        Err(store) => store.last_decay,
    };
    if ledger.is_some() || last_decay.is_none() {
        let mut changed = match u {
            Ok(u) => u,
            Err(store) => Usage::from(store),
        };
        if changed.last_decay.is_none() {
            changed.last_decay = Some(now());
        }
        lock.commit(&mut changed, ledger.as_mut()).map_err(user)?;
        u = Ok(changed);
    }
    warn_unmatched(&report.unmatched);
    if !report.unknown_entities.is_empty() {
        crate::cli::say::line(format_args!(
            "note: {} not in the share tree; PBS counts their usage under `unknown` with 1 share each: {}",
            match report.unknown_entities.len() {
                1 => "1 entity is".to_string(),
                n => format!("{n} entities are"),
            },
            top_names(report.unknown_entities.iter().map(String::as_str))
        ));
    }
    if a.json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| Failure::user(e.to_string()))?;
        crate::outln!("{text}");
    } else {
        crate::outln!(
            "charged {} job(s), total {}; {} already charged; {} malformed record(s) skipped",
            report.charged,
            fmt_num(report.total_charge),
            report.repeated,
            report.malformed.len()
        );
    }
    // The store's entities and the ledger's set (a fingerprint per job ever charged) go with
    // the process, which ends now, rather than one allocation at a time (~4 ms for 50 000
    // entities and 444 672 jobs).
    std::mem::forget(u);
    std::mem::forget(ledger);
    Ok(())
}

fn run_decay(a: DecayArgs, lock: &UsageHome, pbs_decay: (i64, f64)) -> CliResult {
    let at = match &a.at {
        Some(t) => parse_time(t)?,
        None => now(),
    };
    let model = overrides(&a.model)?;
    let mut u = lock.load().map_err(user)?;
    u.settings
        .apply(&model, pbs_decay)
        .map_err(|e| Failure::user(e.to_string()))?;
    if let Some(last) = u.last_decay.filter(|l| at < *l) {
        return Err(Failure::user(format!(
            "--at {} is before the last decay ({}); usage cannot be decayed backwards",
            a.dates.show(at),
            a.dates.show(last)
        )));
    }
    let report = u.decay(at).map_err(user)?;
    lock.commit(&mut u, None).map_err(user)?;
    if a.json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| Failure::user(e.to_string()))?;
        crate::outln!("{text}");
    } else {
        crate::outln!(
            "{} decay: {} period(s), factor {}{}; last_decay {}",
            u.settings.model.name(),
            report.periods,
            report.factor,
            if report.reset { ", usage reset" } else { "" },
            a.dates.show(report.last_decay)
        );
    }
    Ok(())
}

fn run_show(a: ShowArgs, home: &Home) -> CliResult {
    let store = home.usage_store().map_err(user)?;
    // A PBS tree places each entity: its group, or `unknown` for a name not in the tree.
    let tree = stored_tree(home).filter(TreeSpec::follows_pbs);
    let groups = tree.as_ref().map(pbs_groups);
    let group_of = |x: &fairsort::usage::Entry| -> String {
        match (&groups, &x.account) {
            (Some(g), None) => g
                .get(x.name.as_str())
                .copied()
                .unwrap_or("unknown")
                .to_string(),
            _ => String::new(),
        }
    };
    if a.json {
        let text =
            serde_json::to_string_pretty(&store).map_err(|e| Failure::user(e.to_string()))?;
        crate::outln!("{text}");
        return Ok(());
    }
    if a.csv {
        let mut w = csv::Writer::from_writer(std::io::stdout());
        w.write_record(["account", "entity", "usage", "bins", "group"])?;
        for x in &store.entries {
            let bins = x
                .bins
                .iter()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(" ");
            w.write_record([
                x.account.as_deref().unwrap_or(""),
                &x.name,
                &x.usage.to_string(),
                &bins,
                &group_of(x),
            ])?;
        }
        return w.flush().map_err(Failure::from);
    }
    let flux = store.settings.model == ModelKind::Flux;
    let mut cols = vec![
        ("Account", Align::Left),
        ("Entity", Align::Left),
        ("Usage", Align::Right),
    ];
    if flux {
        cols.push(("Bins", Align::Left));
    }
    if groups.is_some() {
        cols.push(("Group", Align::Left));
    }
    let mut t = Table::new(&cols);
    for x in &store.entries {
        let mut row = vec![
            x.account.clone().unwrap_or_default(),
            x.name.clone(),
            fmt_num(x.usage),
        ];
        if flux {
            row.push(
                x.bins
                    .iter()
                    .map(|b| fmt_num(*b))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        if groups.is_some() {
            row.push(group_of(x));
        }
        t.row(row);
    }
    crate::outln!(
        "model {}; last decay {}",
        store.settings.model.name(),
        store.last_decay.map_or("never".into(), |t| a.dates.show(t))
    );
    crate::out!("{}", t.render());
    Ok(())
}

fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.6}")
    }
}

/// The home's stored tree, to place usage in; a tree that cannot be read is said on stderr and
/// does not stop the usage command (`share` and `order` report it as an error).
fn stored_tree(home: &Home) -> Option<TreeSpec> {
    home.stored_tree().unwrap_or_else(|e| {
        crate::cli::say::line(format_args!(
            "warning: {e}; usage is not checked against the share tree"
        ));
        None
    })
}

/// Up to [`WARN_TOP`] names, then `and N more`.
fn top_names<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let n = names.len();
    let mut out: Vec<String> = names.take(WARN_TOP).map(str::to_string).collect();
    if n > WARN_TOP {
        out.push(format!("and {} more", n - WARN_TOP));
    }
    out.join(", ")
}

/// How many users the warning about unmatched usage names.
const WARN_TOP: usize = 5;

/// The one warning line about usage that met no association of the tree, e.g. `warning: 12
/// usage records (3 users, usage 4521.0) have no association in the tree and were not counted:
/// alice (4000.0), bob (500.0), carol (21.0)`; `None` when all usage was counted.
pub(crate) fn unmatched_warning(u: &UnmatchedUsage) -> Option<String> {
    if u.is_empty() {
        return None;
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut top: Vec<String> = (u.users.iter().take(WARN_TOP))
        .map(|(name, usage)| format!("{name} ({usage:.1})"))
        .collect();
    if u.users.len() > WARN_TOP {
        top.push(format!("and {} more", u.users.len() - WARN_TOP));
    }
    Some(format!(
        "warning: {} ({}, usage {:.1}) {} no association in the tree and {} not counted: {}",
        plural(u.records, "usage record"),
        plural(u.users.len(), "user"),
        u.total,
        if u.records == 1 { "has" } else { "have" },
        if u.records == 1 { "was" } else { "were" },
        top.join(", ")
    ))
}

/// Prints [`unmatched_warning`] on stderr, if any.
pub(crate) fn warn_unmatched(u: &UnmatchedUsage) {
    if let Some(line) = unmatched_warning(u) {
        crate::cli::say::line(format_args!("{line}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_warning_line_names_the_largest_users() {
        assert_eq!(unmatched_warning(&UnmatchedUsage::default()), None);
        let u = UnmatchedUsage {
            records: 12,
            total: 4521.0,
            users: vec![
                ("alice".into(), 4000.0),
                ("bob".into(), 500.0),
                ("carol".into(), 21.0),
            ],
        };
        assert_eq!(
            unmatched_warning(&u).unwrap(),
            "warning: 12 usage records (3 users, usage 4521.0) have no association in the tree \
             and were not counted: alice (4000.0), bob (500.0), carol (21.0)"
        );
        let many = UnmatchedUsage {
            records: 1,
            total: 7.0,
            users: (0..7).map(|i| (format!("u{i}"), 1.0)).collect(),
        };
        let line = unmatched_warning(&many).unwrap();
        assert!(
            line.starts_with("warning: 1 usage record (7 users, usage 7.0) has no"),
            "{line}"
        );
        assert!(line.ends_with("u4 (1.0), and 2 more"), "{line}");
    }
}
