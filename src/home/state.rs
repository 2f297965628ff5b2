//! `ServerState`: the server's persistent attributes (server, scheduler, queues, custom resource
//! definitions), as stored in the home's `server.toml` and changed by `fairsort qmgr`.

use crate::fairshare::Algorithm;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The whole persistent state of a server home except the share tree and usage (own files).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerState {
    /// `set server ...` attributes.
    pub server: ServerAttrs,
    /// `set sched ...` attributes (PBS keeps most of them in `sched_config`).
    pub sched: SchedAttrs,
    /// Queues by name (`create queue NAME`).
    pub queues: BTreeMap<String, Queue>,
    /// Custom resource definitions by name (`create resource NAME type=...`); PBS's built-in
    /// resources are implied and never stored.
    pub resources: BTreeMap<String, ResourceDef>,
}

/// Server attributes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerAttrs {
    /// The job sort formula (validated by the formula engine before it is stored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_sort_formula: Option<String>,
    /// Who may change anything: `user@host` patterns (`*` as user, `*` or `*.domain` as host).
    pub managers: Vec<String>,
    /// Path of the formula unit-test file that guards formula changes (issue #6); stored as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_sort_formula_tests: Option<String>,
}

/// Scheduler attributes: the threshold, fair-share settings and fairsort's algorithm choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SchedAttrs {
    /// Jobs whose formula value is at or below this are not eligible this cycle (unset = none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_sort_formula_threshold: Option<f64>,
    /// PBS `fair_share`: sort by fair-share usage after the formula.
    pub fair_share: bool,
    /// Which job attribute names the fair-share entity.
    pub fairshare_entity: FairshareEntity,
    /// Formula giving a job's usage (PBS default `cput`).
    pub fairshare_usage_res: String,
    /// Decay period in seconds (PBS default 24:00:00).
    pub fairshare_decay_time: u64,
    /// Usage is multiplied by this every period; 0 < f < 1 (default 0.5).
    pub fairshare_decay_factor: f64,
    /// Shares of PBS's `unknown` group (default 0).
    pub unknown_shares: u64,
    /// fairsort: the algorithm behind `fairshare_factor` and ordering (default `pbs`).
    pub fairshare_algorithm: Algorithm,
}

impl Default for SchedAttrs {
    fn default() -> Self {
        SchedAttrs {
            job_sort_formula_threshold: None,
            fair_share: false,
            fairshare_entity: FairshareEntity::default(),
            fairshare_usage_res: "cput".to_string(),
            fairshare_decay_time: 86_400,
            fairshare_decay_factor: 0.5,
            unknown_shares: 0,
            fairshare_algorithm: Algorithm::Pbs,
        }
    }
}

/// PBS `fairshare_entity`: the job attribute that names a job's fair-share entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum FairshareEntity {
    /// The job owner's user name (PBS default).
    #[default]
    #[serde(rename = "euser")]
    Euser,
    /// The job owner's group.
    #[serde(rename = "egroup")]
    Egroup,
    /// The job's account string.
    #[serde(rename = "Account_Name")]
    AccountName,
    /// The job's queue.
    #[serde(rename = "queue")]
    Queue,
    /// `group:user`.
    #[serde(rename = "egroup:euser")]
    EgroupEuser,
}

impl FairshareEntity {
    /// PBS's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FairshareEntity::Euser => "euser",
            FairshareEntity::Egroup => "egroup",
            FairshareEntity::AccountName => "Account_Name",
            FairshareEntity::Queue => "queue",
            FairshareEntity::EgroupEuser => "egroup:euser",
        }
    }
}

impl fmt::Display for FairshareEntity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FairshareEntity {
    type Err = String;
    /// Exact PBS spellings; otherwise PBS's scheduler message.
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "euser" => FairshareEntity::Euser,
            "egroup" => FairshareEntity::Egroup,
            "Account_Name" => FairshareEntity::AccountName,
            "queue" => FairshareEntity::Queue,
            "egroup:euser" => FairshareEntity::EgroupEuser,
            _ => {
                return Err(format!(
                    "fairshare_entity {s} is erroneous (or deprecated)."
                ))
            }
        })
    }
}

/// A queue and the attributes fairsort keeps for it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Queue {
    /// `Priority`: the `queue_priority` keyword of jobs in this queue (unset = 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// `queue_type`: `Execution` or `Route` (unset until set, as in PBS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_type: Option<String>,
    /// `enabled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// `started`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<bool>,
}

/// A custom resource definition, as in PBS's `server_priv/resourcedef`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceDef {
    /// PBS type name: long, float, size, time, boolean, string.
    #[serde(rename = "type")]
    pub kind: String,
    /// PBS resource flags (`h`, `n`, `q`, `f`, `m`, `i`), stored and printed only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<String>,
}

/// The resource types `create resource` accepts (PBS names).
pub const RESOURCE_TYPES: [&str; 6] = ["long", "float", "size", "time", "boolean", "string"];

/// The resource flag letters PBS accepts.
pub const RESOURCE_FLAGS: &str = "hnqfmi";

impl ServerState {
    /// The state of a new home: defaults, managers = root and the creating user (any host).
    pub fn initial(creator: &str) -> Self {
        let mut managers = vec!["root@*".to_string()];
        if creator != "root" && !creator.is_empty() {
            managers.push(format!("{creator}@*"));
        }
        ServerState {
            server: ServerAttrs {
                managers,
                ..ServerAttrs::default()
            },
            ..ServerState::default()
        }
    }

    /// Checks invariants serde cannot express; returns (table, key, message) of the first problem.
    pub fn check(&self) -> Result<(), (String, String, String)> {
        let bad =
            |table: &str, key: &str, msg: String| Err((table.to_string(), key.to_string(), msg));
        for m in &self.server.managers {
            if let Err(msg) = super::permissions::check_pattern(m) {
                return bad("server", "managers", msg);
            }
        }
        let f = self.sched.fairshare_decay_factor;
        if !(f > 0.0 && f < 1.0) {
            return bad("sched", "fairshare_decay_factor", decay_factor_message(f));
        }
        if self.sched.fairshare_decay_time == 0 {
            return bad(
                "sched",
                "fairshare_decay_time",
                "fairshare_decay_time must be at least 1 second".to_string(),
            );
        }
        if let Some(t) = self.sched.job_sort_formula_threshold {
            if !t.is_finite() {
                return bad(
                    "sched",
                    "job_sort_formula_threshold",
                    "job_sort_formula_threshold must be a finite number".to_string(),
                );
            }
        }
        for (name, def) in &self.resources {
            let table = format!("resources.{name}");
            if !RESOURCE_TYPES.contains(&def.kind.as_str()) {
                return bad(&table, "type", resource_type_message(&def.kind));
            }
            if let Some(flag) = &def.flag {
                if let Some(c) = flag.chars().find(|c| !RESOURCE_FLAGS.contains(*c)) {
                    return bad(
                        &table,
                        "flag",
                        format!("resource flag '{c}' is not one of {RESOURCE_FLAGS}"),
                    );
                }
            }
            if let Err(msg) = check_object_name(name) {
                return bad(&table, "type", msg);
            }
        }
        for (name, q) in &self.queues {
            let table = format!("queues.{name}");
            if let Err(msg) = check_object_name(name) {
                return bad(&table, "priority", msg);
            }
            if let Some(t) = &q.queue_type {
                if t != "Execution" && t != "Route" {
                    return bad(
                        &table,
                        "queue_type",
                        format!("queue_type {t} is not Execution or Route"),
                    );
                }
            }
        }
        Ok(())
    }

    /// The `Priority` of a queue, 0 when unset or the queue is unknown (PBS's default).
    pub fn queue_priority(&self, queue: &str) -> i64 {
        self.queues.get(queue).and_then(|q| q.priority).unwrap_or(0)
    }
}

/// Object names (queues, resources): a letter first, then letters, digits, `_`, `-`; at most 15
/// characters for queues in PBS, here 64 for both.
pub fn check_object_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !first_ok
        || name.len() > 64
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "invalid name '{name}': a letter, then letters, digits, '_' or '-' (at most 64)"
        ));
    }
    Ok(())
}

/// PBS's message for a decay factor outside (0, 1).
pub fn decay_factor_message(f: f64) -> String {
    format!("fairshare_decay_factor: Invalid value: {f:.4}.  Valid values are between 0 and 1.")
}

/// fairsort's message for an unknown resource type.
pub fn resource_type_message(kind: &str) -> String {
    format!(
        "resource type {kind} is not one of {}",
        RESOURCE_TYPES.join(", ")
    )
}

/// Parses a PBS time value as `fairshare_decay_time` does: `HH:MM:SS` or `MM:SS` (a bare number
/// is rejected, as PBS's scheduler rejects it). Error text is PBS's `Invalid time <v>`.
pub fn parse_pbs_time(s: &str) -> Result<u64, String> {
    let err = || format!("Invalid time {s}");
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return Err(err());
    }
    let mut nums = Vec::with_capacity(3);
    for p in &parts {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        nums.push(p.parse::<u64>().map_err(|_| err())?);
    }
    let (h, m, sec) = match nums.as_slice() {
        [m, s] => (0, *m, *s),
        [h, m, s] => (*h, *m, *s),
        _ => return Err(err()),
    };
    if m > 59 && parts.len() == 3 || sec > 59 {
        return Err(err());
    }
    h.checked_mul(3600)
        .and_then(|x| x.checked_add(m.checked_mul(60)?))
        .and_then(|x| x.checked_add(sec))
        .ok_or_else(err)
}

/// Formats seconds as PBS prints durations: `HH:MM:SS` (hours may exceed 24).
pub fn format_pbs_time(secs: u64) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_pbs() {
        let s = SchedAttrs::default();
        assert_eq!(s.fairshare_usage_res, "cput");
        assert_eq!(s.fairshare_decay_time, 86_400);
        assert_eq!(s.fairshare_entity, FairshareEntity::Euser);
        assert_eq!(s.unknown_shares, 0);
        assert_eq!(s.fairshare_algorithm, Algorithm::Pbs);
        assert!(!s.fair_share);
    }

    #[test]
    fn initial_managers_are_root_and_creator() {
        assert_eq!(
            ServerState::initial("alice").server.managers,
            ["root@*", "alice@*"]
        );
        assert_eq!(ServerState::initial("root").server.managers, ["root@*"]);
    }

    #[test]
    fn pbs_time_forms() {
        assert_eq!(parse_pbs_time("24:00:00"), Ok(86_400));
        assert_eq!(parse_pbs_time("00:00:02"), Ok(2));
        assert_eq!(parse_pbs_time("10:30"), Ok(630));
        assert_eq!(
            parse_pbs_time("86400"),
            Err("Invalid time 86400".to_string())
        );
        assert!(parse_pbs_time("1:2:3:4").is_err());
        assert!(parse_pbs_time("1:xx").is_err());
        assert!(parse_pbs_time("99999999999999999999:00:00").is_err());
        assert_eq!(format_pbs_time(86_400), "24:00:00");
        assert_eq!(format_pbs_time(3_723), "01:02:03");
    }

    #[test]
    fn entity_names_round_trip_and_reject_others() {
        for n in ["euser", "egroup", "Account_Name", "queue", "egroup:euser"] {
            assert_eq!(
                n.parse::<FairshareEntity>().map(|e| e.to_string()),
                Ok(n.to_string())
            );
        }
        assert_eq!(
            "user".parse::<FairshareEntity>(),
            Err("fairshare_entity user is erroneous (or deprecated).".to_string())
        );
    }

    #[test]
    fn check_finds_bad_values() {
        let mut s = ServerState::initial("alice");
        assert!(s.check().is_ok());
        s.sched.fairshare_decay_factor = 1.0;
        let (t, k, m) = s.check().unwrap_err();
        assert_eq!(
            (t.as_str(), k.as_str()),
            ("sched", "fairshare_decay_factor")
        );
        assert_eq!(
            m,
            "fairshare_decay_factor: Invalid value: 1.0000.  Valid values are between 0 and 1."
        );
    }
}
