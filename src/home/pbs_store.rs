//! The home's PBS site, so `fairsort order --jobs qstat.json` there considers jobs as that
//! site's pbs_sched does: the texts of `qmgr -c 'print server'`, `qmgr -c 'list sched'` (or
//! `'print sched'`), `sched_config` and `holidays`, kept verbatim in one TOML file (`pbs.toml`).
//! What fairsort models of them (formula, threshold, queues, resources, fair-share settings) is
//! also written into `server.toml` by the import, where `fairsort qmgr` changes it; the texts
//! give the rest: the per-period options of `sched_config` (`by_queue`, `round_robin`,
//! `fair_share`, `job_sort_key`, `preemptive_sched`), the scheduler's preemption settings, the
//! order the server lists its queues in, and prime time. As for the other parts: only
//! managers may store it, permission is checked before the lock, every text is parsed before
//! the change commits, the change is audited, and bad input changes nothing.

use crate::home::dir::{files, Home};
use crate::home::error::HomeError;
use crate::home::site::SiteKind;
use crate::home::state::{
    check_other, HomeState, Queue, ResourceDef, QUEUE_MODELLED, SCHED_MODELLED, SERVER_MODELLED,
};
use crate::pbs::cycle::rules::{CycleRules, QueueKind, QueueRule};
use crate::pbs::defs::object_attributes;
use crate::pbs::site_files::{
    cycle_rules, default_sched, read_print_server, read_sched_attrs, read_sched_config, SchedAttrs,
    SchedConfig, ServerPrint,
};
use serde::{Deserialize, Serialize};

/// The file's name in the home.
pub const FILE: &str = "pbs.toml";

/// A PBS site's own files, as captured.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PbsSite {
    /// `qmgr -c 'print server'` output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// `qmgr -c 'list sched'` or `qmgr -c 'print sched'` output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sched: Option<String>,
    /// `sched_priv/sched_config`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sched_config: Option<String>,
    /// `sched_priv/holidays`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holidays: Option<String>,
}

/// The names the texts are reported under (the files given, or the home's `pbs.toml`).
#[derive(Debug, Clone, Default)]
pub struct PbsNames {
    /// The `print server` file.
    pub server: String,
    /// The `list sched` file.
    pub sched: String,
    /// The `sched_config` file.
    pub sched_config: String,
    /// The `holidays` file.
    pub holidays: String,
}

impl PbsNames {
    /// Every text named by one file (the home's `pbs.toml`).
    pub fn all(name: &str) -> PbsNames {
        PbsNames {
            server: name.to_string(),
            sched: name.to_string(),
            sched_config: name.to_string(),
            holidays: name.to_string(),
        }
    }
}

/// The texts read.
#[derive(Debug, Clone, Default)]
pub struct PbsParts {
    /// The server and its queues and resources.
    pub server: Option<ServerPrint>,
    /// The default scheduler's attributes.
    pub sched: Option<SchedAttrs>,
    /// `sched_config`.
    pub config: Option<SchedConfig>,
    /// `holidays`.
    pub holidays: Option<crate::pbs::site_files::Holidays>,
}

fn bad(e: impl std::fmt::Display) -> HomeError {
    HomeError::Pbs(e.to_string())
}

impl PbsSite {
    /// Reads every text (the names are used in messages).
    pub fn parse(&self, names: &PbsNames) -> Result<PbsParts, HomeError> {
        let server = (self.server.as_deref())
            .map(|t| read_print_server(t, &names.server))
            .transpose()
            .map_err(bad)?;
        let sched = match self.sched.as_deref() {
            Some(t) => {
                let all = read_sched_attrs(t, &names.sched).map_err(bad)?;
                let Some(one) = default_sched(&all).cloned() else {
                    return Err(bad(format!(
                        "{}: no `default` scheduler in this `qmgr -c 'list sched'` output",
                        names.sched
                    )));
                };
                Some(one)
            }
            None => None,
        };
        let config = (self.sched_config.as_deref())
            .map(|t| read_sched_config(t, &names.sched_config))
            .transpose()
            .map_err(bad)?;
        let holidays = (self.holidays.as_deref())
            .map(|t| crate::pbs::site_files::read_holidays(t, &names.holidays))
            .transpose()
            .map_err(bad)?;
        Ok(PbsParts {
            server,
            sched,
            config,
            holidays,
        })
    }

    /// The TOML text the home stores.
    fn render(&self) -> Result<String, HomeError> {
        let body = toml::to_string(self)
            .map_err(|e| bad(format!("cannot store the PBS site's files: {e}")))?;
        Ok(format!(
            "# fairsort: this PBS site's own files (`fairsort pbs import`), kept as captured.\n{body}"
        ))
    }

    fn read(text: &str, path: &std::path::Path) -> Result<PbsSite, HomeError> {
        toml::from_str(text).map_err(|e| bad(format!("{}: {e}", path.display())))
    }
}

impl PbsParts {
    /// Whether `at` (epoch seconds) is in the site's prime time, in the machine's local time as
    /// pbs_sched reads it (no holidays file: always prime, as pbs_sched assumes).
    pub fn is_prime(&self, at: i64) -> bool {
        let tz = jiff::tz::TimeZone::system();
        match &self.holidays {
            Some(h) => h.is_prime(at, &tz),
            None => true,
        }
    }

    /// The rules of a cycle in prime time (`prime`) or out of it: those of the site's files,
    /// with the home's own values where fairsort keeps them (`state`: the queues' Priority,
    /// type and state, the threshold), the queues in the server's order then the home's
    /// others. Without a `sched_config`, the shipped one's options.
    pub fn rules(&self, state: &HomeState, prime: bool) -> Result<CycleRules, HomeError> {
        let empty_server = ServerPrint::default();
        let server = self.server.as_ref().unwrap_or(&empty_server);
        let empty_sched = SchedAttrs::default();
        let sched = self.sched.as_ref().unwrap_or(&empty_sched);
        let mut rules = match &self.config {
            Some(config) => cycle_rules(server, sched, config, prime).map_err(bad)?,
            None => {
                let shipped = CycleRules::default();
                let config = SchedConfig::default();
                let from_files = cycle_rules(server, sched, &config, prime).map_err(bad)?;
                CycleRules {
                    preempt_queue_prio: from_files.preempt_queue_prio,
                    preempt_prio: from_files.preempt_prio,
                    threshold: from_files.threshold,
                    queues: from_files.queues,
                    ..shipped
                }
            }
        };
        rules.threshold = state
            .sched
            .job_sort_formula_threshold
            .map(crate::pbs::defs::threshold::stored);
        // The scheduler's preemption settings as the home keeps them now (`fairsort qmgr` may
        // have changed them since the import).
        let mut kept = SchedAttrs {
            name: "default".into(),
            file: crate::home::dir::files::STATE.into(),
            ..SchedAttrs::default()
        };
        for (name, value) in &state.sched.other {
            kept.attrs.set(name, value.clone(), 0);
        }
        if let Some(p) = kept.preempt_queue_prio().map_err(bad)? {
            rules.preempt_queue_prio = p;
        }
        if let Some(p) = kept.preempt_prio() {
            rules.preempt_prio = p.levels;
        }
        let mut queues: Vec<QueueRule> = Vec::with_capacity(state.queues.len());
        let mut listed = std::collections::BTreeSet::new();
        for q in &rules.queues {
            if let Some(home) = state.queues.get(&q.name) {
                if listed.insert(q.name.as_str()) {
                    queues.push(queue_rule(&q.name, home));
                }
            }
        }
        for (name, home) in &state.queues {
            if !listed.contains(name.as_str()) {
                queues.push(queue_rule(name, home));
            }
        }
        rules.queues = queues;
        Ok(rules)
    }

    /// The state after an import: the server's formula, queues and custom resources, the
    /// scheduler's formula and threshold, and `sched_config`'s fair-share settings replace the
    /// home's; its managers and fairsort's own settings stay. Returns notes on what fairsort
    /// keeps but does not model.
    pub fn apply(&self, before: &HomeState) -> Result<(HomeState, Vec<String>), HomeError> {
        let mut st = before.clone();
        let mut notes = Vec::new();
        // Attributes PBS would not take back from `qmgr` (read-only, or values fairsort cannot
        // keep): left out of the state, listed once.
        let mut dropped: Vec<String> = Vec::new();
        if let Some(server) = &self.server {
            st.queues.clear();
            st.resources.clear();
            for r in &server.resources {
                let Some(kind) = &r.kind else { continue };
                st.resources.insert(
                    r.name.clone(),
                    ResourceDef {
                        kind: kind.to_ascii_lowercase(),
                        flag: r.flag.clone(),
                    },
                );
            }
            for q in &server.queues {
                let queue_type = match q.queue_type.as_deref().map(QueueKind::parse) {
                    Some(Some(kind)) => Some(kind.name().to_string()),
                    Some(None) => {
                        let line = q.attrs.get("queue_type").map_or(0, |a| a.line);
                        return Err(bad(format!(
                            "{}:{line}: queue {}: queue_type is neither Execution nor Route",
                            server.file, q.name
                        )));
                    }
                    None => None,
                };
                if let Some(p) = q.priority.filter(|p| !(-1024..=1023).contains(p)) {
                    let line = q.attrs.get("Priority").map_or(0, |a| a.line);
                    return Err(bad(format!(
                        "{}:{line}: queue {}: Priority {p} is not an integer from -1024 to 1023",
                        server.file, q.name
                    )));
                }
                st.queues.insert(
                    q.name.clone(),
                    Queue {
                        priority: q.priority,
                        queue_type,
                        enabled: q.enabled,
                        started: q.started,
                        other: kept(
                            object_attributes::QUEUE,
                            QUEUE_MODELLED,
                            q.attrs.iter(),
                            &mut dropped,
                        ),
                    },
                );
            }
            st.server.job_sort_formula = server.job_sort_formula().map(str::to_string);
            st.server.other = kept(
                object_attributes::SERVER,
                SERVER_MODELLED,
                server.server.iter(),
                &mut dropped,
            );
            let names: Vec<&str> = st.server.other.keys().map(String::as_str).collect();
            if !names.is_empty() {
                notes.push(list_note(
                    &format!(
                        "kept {} fairsort does not model",
                        counted(names.len(), "server attribute")
                    ),
                    &names,
                ));
            }
        }
        if let Some(sched) = &self.sched {
            st.sched.job_sort_formula = sched.attrs.value("job_sort_formula").map(str::to_string);
            st.sched.job_sort_formula_threshold = sched.threshold().map_err(bad)?;
            st.sched.other = kept(
                object_attributes::SCHED,
                SCHED_MODELLED,
                sched.attrs.iter(),
                &mut dropped,
            );
            // What the cycle reads from the kept text is modelled there.
            let cycle = ["preempt_queue_prio", "preempt_prio"];
            let names: Vec<&str> = (st.sched.other.keys())
                .map(String::as_str)
                .filter(|n| !cycle.contains(n))
                .collect();
            if !names.is_empty() {
                notes.push(list_note(
                    &format!(
                        "kept {} fairsort does not model",
                        counted(names.len(), "scheduler attribute")
                    ),
                    &names,
                ));
            }
        }
        if let Some(config) = &self.config {
            fair_share_settings(&mut st, config)?;
            let unknown: Vec<&str> = config.unknown().map(|l| l.name.as_str()).collect();
            if !unknown.is_empty() {
                notes.push(list_note(
                    &format!(
                        "kept {} pbs_sched itself does not know",
                        counted(unknown.len(), "sched_config option")
                    ),
                    &unknown,
                ));
            }
            for n in config.notes.iter().take(5) {
                notes.push(format!(
                    "{}:{}: {} (as pbs_sched logs it)",
                    crate::pbs::site_files::sched_config::FILE,
                    n.line,
                    n.message
                ));
            }
        }
        if let Some(h) = &self.holidays {
            for n in h.notes().iter().take(5) {
                notes.push(format!("holidays: {} (as pbs_sched logs it)", n.message));
            }
        }
        if !dropped.is_empty() {
            let names: Vec<&str> = dropped.iter().map(String::as_str).collect();
            notes.push(list_note(
                &format!(
                    "left out {} (PBS sets them itself)",
                    counted(names.len(), "read-only attribute")
                ),
                &names,
            ));
        }
        // The formulas must pass the server's validation against the new resources.
        let table = st.resource_table();
        for (what, f) in [
            ("server", st.server.job_sort_formula.as_deref()),
            ("sched", st.sched.job_sort_formula.as_deref()),
        ] {
            let Some(f) = f else { continue };
            if crate::home::engine::is_empty_string_formula(f) {
                continue;
            }
            crate::home::engine::check_formula(f, &table).map_err(|p| {
                bad(format!(
                    "the {what}'s job_sort_formula is refused ({} {}): {}",
                    p.code, p.message, p.detail
                ))
            })?;
        }
        st.check().map_err(|(table, key, message)| {
            bad(format!("cannot keep {table}.{key}: {message}"))
        })?;
        Ok((st, notes))
    }
}

/// The attributes of `attrs` PBS has for this object and fairsort does not model, as the home
/// keeps them (`other`: PBS's spelling of booleans and integers); the others are put in
/// `dropped` (read-only ones, `state` of `print sched`, values fairsort cannot keep).
fn kept<'a>(
    defs: &'static [object_attributes::AttrDef],
    modelled: &[&str],
    attrs: impl Iterator<Item = (&'a str, &'a crate::pbs::site_files::AttrValue)>,
    dropped: &mut Vec<String>,
) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for (name, v) in attrs {
        let base = name.split('.').next().unwrap_or(name);
        if modelled.contains(&base) {
            continue;
        }
        let value = object_attributes::find(defs, base)
            .and_then(|d| object_attributes::normalize(d.shape, &v.value))
            .unwrap_or_else(|| v.value.clone());
        match check_other(defs, modelled, name, &value) {
            Ok(()) => {
                out.insert(name.to_string(), value);
            }
            Err(_) => dropped.push(name.to_string()),
        }
    }
    out
}

/// A note: `head`, then at most 8 of `names` and how many more.
fn list_note(head: &str, names: &[&str]) -> String {
    let shown: Vec<&str> = names.iter().take(8).copied().collect();
    let more = names.len().saturating_sub(shown.len());
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("{head}: {}{tail}", shown.join(", "))
}

/// `n` and `word`, plural unless one.
fn counted(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `sched_config`'s fair-share options into the scheduler's attributes (its last line of each,
/// as pbs_sched reads them; `fair_share` from the non-prime period, as the cycle picks its own).
fn fair_share_settings(st: &mut HomeState, config: &SchedConfig) -> Result<(), HomeError> {
    let values = config.for_period(false);
    let line_of = |name: &str| config.get(name).last().map_or(0, |l| l.line);
    let at = |name: &str, msg: String| {
        bad(format!(
            "{}:{}: {name}: {msg}",
            crate::pbs::site_files::sched_config::FILE,
            line_of(name)
        ))
    };
    st.sched.fair_share = values.fair_share;
    if let Some(v) = values.values.get("fairshare_entity") {
        st.sched.fairshare_entity = v.parse().map_err(|m: String| at("fairshare_entity", m))?;
    }
    if let Some(v) = values.values.get("unknown_shares") {
        st.sched.unknown_shares = v.trim().parse().map_err(|_| {
            at(
                "unknown_shares",
                format!("`{v}` is not a non-negative integer"),
            )
        })?;
    }
    if let Some(v) = values.values.get("fairshare_usage_res") {
        st.sched.fairshare_usage_res = v.clone();
    }
    if let Some(v) = values.values.get("fairshare_decay_time") {
        st.sched.fairshare_decay_time =
            crate::pbs::defs::units::decay_time(v).map_err(|m| at("fairshare_decay_time", m))?;
    }
    if let Some(v) = values.values.get("fairshare_decay_factor") {
        let f: f64 = v
            .trim()
            .parse()
            .map_err(|_| at("fairshare_decay_factor", format!("`{v}` is not a number")))?;
        if !(f > 0.0 && f < 1.0) {
            return Err(at(
                "fairshare_decay_factor",
                crate::pbs::defs::codes::invalid_decay_factor(f),
            ));
        }
        st.sched.fairshare_decay_factor = f;
    }
    Ok(())
}

/// A home queue as the cycle sees it (as [`crate::pbs::site_files::cycle_rules`] reads one).
fn queue_rule(name: &str, q: &Queue) -> QueueRule {
    let kind = (q.queue_type.as_deref())
        .and_then(QueueKind::parse)
        .unwrap_or(QueueKind::Route);
    QueueRule {
        name: name.to_string(),
        priority: q.priority.unwrap_or(0),
        priority_set: q.priority.is_some(),
        kind,
        enabled: q.enabled.unwrap_or(false),
        started: q.started.unwrap_or(false),
    }
}

/// What `fairsort pbs import` stores besides the texts.
#[derive(Debug, Clone, Default)]
pub struct PbsImport {
    /// The texts.
    pub site: PbsSite,
    /// The names of the files they came from (messages, provenance).
    pub names: PbsNames,
    /// `resource_group`, read.
    pub tree: Option<crate::fairshare::TreeSpec>,
    /// Where the tree came from.
    pub tree_origin: Option<String>,
    /// The usage (binary `usage`, pbsfs output, or text), read.
    pub usage: Option<crate::pbs::PbsUsage>,
    /// The formula of `sched_priv/sched_formula`: the server's when the server's files set none.
    pub formula: Option<String>,
}

/// What the import did.
#[derive(Debug, Clone, Default)]
pub struct PbsImported {
    /// The parts stored.
    pub parts: Vec<&'static str>,
    /// Notes: what fairsort keeps but does not model, what pbs_sched would log.
    pub notes: Vec<String>,
}

impl Home {
    /// The stored PBS site's texts, or `None` when none was imported.
    pub fn pbs_site(&self) -> Result<Option<PbsSite>, HomeError> {
        let path = self.file(FILE);
        match self.read_text(files::PBS)? {
            Some(text) => Ok(Some(PbsSite::read(&text, &path)?)),
            None => Ok(None),
        }
    }

    /// The stored PBS site, read (`None` when none was imported).
    pub fn pbs_parts(&self) -> Result<Option<PbsParts>, HomeError> {
        let name = self.file(FILE).display().to_string();
        self.pbs_site()?
            .map(|s| s.parse(&PbsNames::all(&name)))
            .transpose()
    }

    /// Imports a PBS site: the texts into `pbs.toml` (a part not given keeps the stored one),
    /// what fairsort models of them into `server.toml`, the tree into `resource_group` and the
    /// usage into `usage.toml`, with the site record, in one audited transaction. Only
    /// managers may; nothing changes on error.
    pub fn import_pbs(&self, user: &str, import: &PbsImport) -> Result<PbsImported, HomeError> {
        let host = crate::home::permissions::current_host();
        let mut parts: Vec<&'static str> = Vec::new();
        let s = &import.site;
        for (present, name) in [
            (s.server.is_some(), "server"),
            (s.sched.is_some(), "sched"),
            (s.sched_config.is_some(), "sched_config"),
            (s.holidays.is_some(), "holidays"),
            (import.tree.is_some(), "resource_group"),
            (import.usage.is_some(), "usage"),
            (import.formula.is_some(), "sched_formula"),
        ] {
            if present {
                parts.push(name);
            }
        }
        if parts.is_empty() {
            return Err(bad(
                "nothing to import: give at least one of --server, --sched, --sched-config, --resource-group, --usage, --holidays (or --pbs-home, --live)",
            ));
        }
        let command = format!("pbs import ({})", parts.join(", "));
        let managers = self.load()?.server.managers;
        if !crate::home::permissions::is_manager(user, &host, &managers) {
            return Err(crate::home::permissions::unauthorized("", user, &host, &managers).into());
        }
        let parsed = s.parse(&import.names)?;
        self.with_exclusive(user, &command, |state, change| {
            // A part not given keeps the stored one (read, and checked, under the lock).
            let stored = self.pbs_site()?.unwrap_or_default();
            let merged = PbsSite {
                server: s.server.clone().or(stored.server),
                sched: s.sched.clone().or(stored.sched),
                sched_config: s.sched_config.clone().or(stored.sched_config),
                holidays: s.holidays.clone().or(stored.holidays),
            };
            let text = merged.render()?;
            if PbsSite::read(&text, &self.file(FILE))? != merged {
                return Err(bad(format!(
                    "the site's files do not read back the same from {FILE}"
                )));
            }
            if !crate::home::permissions::is_manager(user, &host, &state.server.managers) {
                return Err(crate::home::permissions::unauthorized(
                    "",
                    user,
                    &host,
                    &state.server.managers,
                )
                .into());
            }
            let (mut after, mut notes) = parsed.apply(state)?;
            if let Some(f) = &import.formula {
                if after.server.job_sort_formula.is_none() {
                    let table = after.resource_table();
                    crate::home::engine::check_formula(f, &table).map_err(|p| {
                        bad(format!("sched_formula: the formula is refused ({} {}): {}", p.code, p.message, p.detail))
                    })?;
                    after.server.job_sort_formula = Some(f.clone());
                    notes.push("job_sort_formula from sched_priv/sched_formula (the server's files set none)".into());
                }
            }
            let mut record = self.site()?.record;
            record.kind = SiteKind::Pbs;
            record.slurm = None;
            let origin = |n: &str| if n.is_empty() { "-" } else { n }.to_string();
            let sources: Vec<String> = [
                (s.server.is_some(), &import.names.server),
                (s.sched.is_some(), &import.names.sched),
                (s.sched_config.is_some(), &import.names.sched_config),
                (s.holidays.is_some(), &import.names.holidays),
            ]
            .into_iter()
            .filter(|(p, _)| *p)
            .map(|(_, n)| origin(n))
            .collect();
            let formats: Vec<&str> = [
                (s.server.is_some(), "print server"),
                (s.sched.is_some(), "list sched"),
                (s.sched_config.is_some(), "sched_config"),
                (s.holidays.is_some(), "holidays"),
            ]
            .into_iter()
            .filter(|(p, _)| *p)
            .map(|(_, n)| n)
            .collect();
            if !sources.is_empty() {
                record.pbs = Some(crate::home::site::provenance_now(
                    user,
                    &sources.join(", "),
                    &formats.join(", "),
                    text.as_bytes(),
                ));
                change.write(files::PBS, text.into_bytes());
            }
            if let Some(spec) = &import.tree {
                let mut spec = spec.clone();
                spec.unknown_shares = Some(after.sched.unknown_shares);
                crate::fairshare::Tree::build(spec.clone()).map_err(|e| HomeError::Tree(e.to_string()))?;
                let tree_text = crate::pbs::write_resource_group(&spec)
                    .map_err(|e| HomeError::Tree(e.to_string()))?;
                let back = crate::pbs::parse_resource_group(&tree_text, after.sched.unknown_shares)
                    .map_err(|e| HomeError::Tree(format!("the tree cannot be stored in PBS layout: {e}")))?;
                crate::fairshare::Tree::build(back).map_err(|e| {
                    HomeError::Tree(format!("the tree cannot be stored as {}: {e}", files::TREE))
                })?;
                record.tree = Some(crate::home::site::provenance_now(
                    user,
                    import.tree_origin.as_deref().unwrap_or("-"),
                    "pbs",
                    tree_text.as_bytes(),
                ));
                change.write(files::TREE, tree_text.into_bytes());
                change.remove_after(files::NATIVE_TREE);
            }
            if let Some(usage) = &import.usage {
                let path = self.usage_path();
                let store = self.usage_store().map_err(|e| bad(e.to_string()))?;
                let mut u = crate::usage::Usage::from(store);
                u.reset(usage.last_decay.unwrap_or(0));
                u.last_decay = usage.last_decay;
                u.settings.model = crate::usage::decay::ModelKind::Pbs;
                u.settings.decay_time = after.sched.fairshare_decay_time as i64;
                u.settings.decay_factor = after.sched.fairshare_decay_factor;
                for (name, value) in &usage.entries {
                    u.set(None, name, *value)
                        .map_err(|e| bad(format!("usage of {name}: {e}")))?;
                }
                let store = u.to_store();
                let usage_text = store.render(&path).map_err(|e| bad(e.to_string()))?;
                crate::usage::UsageStore::parse(&usage_text, &path)
                    .map_err(|e| bad(format!("the usage cannot be stored: {e}")))?;
                change.write(files::USAGE, usage_text.into_bytes());
            }
            change.write(files::STATE, crate::home::state_file::render(&after)?.into_bytes());
            change.write(files::SITE, record.render()?.into_bytes());
            change.remove_after(files::SLURM);
            Ok(PbsImported {
                parts: parts.clone(),
                notes,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbs::cycle::rules::PreemptClass;

    fn site() -> PbsSite {
        PbsSite {
            server: Some(
                "create queue workq\nset queue workq queue_type = Execution\n\
                 set queue workq enabled = True\nset queue workq started = True\n\
                 create queue zq\nset queue zq queue_type = Execution\nset queue zq Priority = 100\n\
                 set queue zq enabled = True\nset queue zq started = True\n\
                 set server scheduling = True\nset server job_sort_formula = ncpus\n"
                    .into(),
            ),
            sched: Some(
                "Sched default\n    preempt_queue_prio = 90\n    state = idle\n    \
                 job_sort_formula_threshold = 2\n"
                    .into(),
            ),
            sched_config: Some(
                "by_queue: False prime\nby_queue: True non_prime\nfair_share: true ALL\n\
                 fairshare_entity: egroup\nunknown_shares: 5\nfairshare_decay_time: 12:00:00\n"
                    .into(),
            ),
            holidays: None,
        }
    }

    /// What fairsort models goes into the state; the rest is kept or listed.
    #[test]
    fn the_state_after_an_import() {
        let parts = site().parse(&PbsNames::all("pbs.toml")).unwrap();
        let before = HomeState::initial("alice");
        let (st, notes) = parts.apply(&before).unwrap();
        assert_eq!(st.server.job_sort_formula.as_deref(), Some("ncpus"));
        assert_eq!(st.server.managers, before.server.managers, "managers stay");
        assert_eq!(st.queues["zq"].priority, Some(100));
        assert_eq!(st.queues["workq"].queue_type.as_deref(), Some("Execution"));
        assert_eq!(
            st.server.other.get("scheduling").map(String::as_str),
            Some("True")
        );
        assert_eq!(st.sched.job_sort_formula_threshold, Some(2.0));
        assert!(st.sched.fair_share);
        assert_eq!(st.sched.fairshare_entity.as_str(), "egroup");
        assert_eq!(
            (st.sched.unknown_shares, st.sched.fairshare_decay_time),
            (5, 43_200)
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("left out 1 read-only attribute") && n.contains("state")),
            "{notes:?}"
        );
        assert!(
            !notes.iter().any(|n| n.contains("preempt_queue_prio")),
            "the cycle reads it: {notes:?}"
        );
    }

    /// The rules: the period's options, the queues in the server's order with the home's
    /// values (changed after the import), the home's new queues after them.
    #[test]
    fn rules_follow_the_home() {
        let parts = site().parse(&PbsNames::all("pbs.toml")).unwrap();
        let (mut st, _) = parts.apply(&HomeState::initial("alice")).unwrap();
        st.queues.get_mut("workq").unwrap().priority = Some(300);
        st.queues.insert(
            "aq".into(),
            Queue {
                queue_type: Some("Execution".into()),
                ..Queue::default()
            },
        );
        let prime = parts.rules(&st, true).unwrap();
        let non = parts.rules(&st, false).unwrap();
        assert!(!prime.by_queue && non.by_queue && prime.fair_share);
        let names: Vec<&str> = prime.queues.iter().map(|q| q.name.as_str()).collect();
        assert_eq!(names, ["workq", "zq", "aq"]);
        assert_eq!(prime.queues[0].priority, 300);
        assert_eq!(prime.preempt_queue_prio, 90);
        assert_eq!(prime.threshold, Some(2.0));
        assert_eq!(prime.preempt_prio[0], [PreemptClass::ExpressQueue]);
        assert!(parts.is_prime(0), "no holidays file: always prime");
    }

    #[test]
    fn bad_values_name_the_line_and_the_texts_round_trip() {
        let bad = PbsSite {
            sched_config: Some("fairshare_decay_factor: 1.5\n".into()),
            ..PbsSite::default()
        };
        let parts = bad.parse(&PbsNames::all("x")).unwrap();
        let e = parts
            .apply(&HomeState::initial("a"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(":1: fairshare_decay_factor"), "{e}");
        let s = site();
        let text = s.render().unwrap();
        assert_eq!(PbsSite::read(&text, std::path::Path::new("p")).unwrap(), s);
        let no_default = PbsSite {
            sched: Some("Sched a\n    state = idle\n\nSched b\n    state = idle\n".into()),
            ..PbsSite::default()
        };
        assert!(no_default.parse(&PbsNames::all("ls")).is_err());
    }
}
