//! `HomeState`: the server's persistent attributes (server, scheduler, queues, custom resource
//! definitions), as stored in the home's `server.toml` and changed by `fairsort qmgr`.

use crate::fairshare::Algorithm;
use crate::pbs::defs::codes::invalid_decay_factor;
use crate::pbs::defs::object_attributes;
use crate::pbs::defs::object_attributes::{AttrDef, AttrShape};
use crate::pbs::defs::resources::RESOURCE_FLAGS;
use crate::pbs::defs::{FairshareEntity, ResourceType};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The whole persistent state of a home except the share tree and usage (own files).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HomeState {
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
    /// Path of the formula unit-test file that guards formula changes; stored as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_sort_formula_tests: Option<String>,
    /// fairsort: nodes of `fairsort replay`'s cluster model (unset: the flags' or the trace's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_nodes: Option<u64>,
    /// fairsort: cores per node of `fairsort replay`'s cluster model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_cores_per_node: Option<u64>,
    /// fairsort: memory per node of `fairsort replay`'s cluster model, a PBS size (`192gb`);
    /// unset: memory is not modelled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_mem_per_node: Option<String>,
    /// PBS attributes fairsort keeps but does not model (`scheduling`, `resources_default.ncpus`,
    /// ...), by PBS's name, as `set` gave them: printed back by `print`/`list`, used by nothing.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub other: BTreeMap<String, String>,
}

/// Scheduler attributes: the threshold, fair-share settings and fairsort's algorithm choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SchedAttrs {
    /// PBS's scheduler `job_sort_formula` (PBS 2021+): when both are set it must equal the
    /// server's (15226).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_sort_formula: Option<String>,
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
    /// PBS attributes fairsort keeps but does not model (`scheduling`, `resources_default.ncpus`,
    /// ...), by PBS's name, as `set` gave them: printed back by `print`/`list`, used by nothing.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub other: BTreeMap<String, String>,
}

impl Default for SchedAttrs {
    fn default() -> Self {
        SchedAttrs {
            job_sort_formula: None,
            job_sort_formula_threshold: None,
            fair_share: false,
            fairshare_entity: FairshareEntity::default(),
            fairshare_usage_res: "cput".to_string(),
            fairshare_decay_time: 86_400,
            fairshare_decay_factor: 0.5,
            unknown_shares: 0,
            fairshare_algorithm: Algorithm::Pbs,
            other: BTreeMap::new(),
        }
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
    /// PBS attributes fairsort keeps but does not model (`scheduling`, `resources_default.ncpus`,
    /// ...), by PBS's name, as `set` gave them: printed back by `print`/`list`, used by nothing.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub other: BTreeMap<String, String>,
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

impl HomeState {
    /// The state of a new home: defaults, managers = root and the creating user (any host).
    pub(crate) fn initial(creator: &str) -> Self {
        let mut managers = vec!["root@*".to_string()];
        if creator != "root" && !creator.is_empty() {
            managers.push(format!("{creator}@*"));
        }
        HomeState {
            server: ServerAttrs {
                managers,
                ..ServerAttrs::default()
            },
            ..HomeState::default()
        }
    }

    /// Checks invariants serde cannot express; returns (table, key, message) of the first problem
    /// (`table` dotted, e.g. `queues.workq`). See [`HomeState::check_at`].
    pub fn check(&self) -> Result<(), (String, String, String)> {
        self.check_at().map_err(|(mut path, message)| {
            let key = path.pop().unwrap_or_default();
            (path.join("."), key, message)
        })
    }

    /// Checks every value against its documented range (docs/home.md): the TOML key path of
    /// the first problem (`["queues", "workq", "priority"]`) and the message.
    pub fn check_at(&self) -> Result<(), (Vec<String>, String)> {
        let bad =
            |path: &[&str], msg: String| Err((path.iter().map(|s| s.to_string()).collect(), msg));
        if self.server.managers.is_empty() {
            return bad(
                &["server", "managers"],
                "managers: the list is empty; nobody could change this home (keep at least one user@host)".to_string(),
            );
        }
        for (i, m) in self.server.managers.iter().enumerate() {
            if let Err(msg) = crate::home::permissions::check_pattern(m) {
                return bad(&["server", "managers"], msg);
            }
            if self.server.managers[..i].contains(m) {
                return bad(
                    &["server", "managers"],
                    format!("managers: Duplicate entry in list {m}"),
                );
            }
        }
        for (key, value) in [
            ("job_sort_formula", self.server.job_sort_formula.as_deref()),
            (
                "job_sort_formula_tests",
                self.server.job_sort_formula_tests.as_deref(),
            ),
        ] {
            if let Some(v) = value {
                if let Err(msg) = check_text(key, v) {
                    return bad(&["server", key], msg);
                }
            }
        }
        for (key, value, range) in [
            (
                "replay_nodes",
                self.server.replay_nodes,
                &REPLAY_NODES_RANGE,
            ),
            (
                "replay_cores_per_node",
                self.server.replay_cores_per_node,
                &REPLAY_CORES_RANGE,
            ),
        ] {
            if let Some(v) = value {
                if let Err(msg) = check_replay_count(key, v, range) {
                    return bad(&["server", key], msg);
                }
            }
        }
        if let Some(m) = &self.server.replay_mem_per_node {
            if let Err(msg) = replay_mem_kb(m) {
                return bad(&["server", "replay_mem_per_node"], msg);
            }
        }
        for (object, formula) in [
            ("server", &self.server.job_sort_formula),
            ("sched", &self.sched.job_sort_formula),
        ] {
            let Some(f) = formula else { continue };
            if crate::home::engine::is_empty_string_formula(f) {
                continue;
            }
            if let Err(p) = crate::home::engine::check_formula(f, &self.resource_table()) {
                return bad(
                    &[object, "job_sort_formula"],
                    format!("job_sort_formula: {} ({})", p.message, p.code),
                );
            }
        }
        if let Err(msg) = check_text("fairshare_usage_res", &self.sched.fairshare_usage_res) {
            return bad(&["sched", "fairshare_usage_res"], msg);
        }
        if let Err(p) = crate::home::engine::check_formula(
            &self.sched.fairshare_usage_res,
            &self.resource_table(),
        ) {
            return bad(
                &["sched", "fairshare_usage_res"],
                format!("fairshare_usage_res: {} ({})", p.message, p.code),
            );
        }
        let f = self.sched.fairshare_decay_factor;
        if !(f > 0.0 && f < 1.0) {
            return bad(
                &["sched", "fairshare_decay_factor"],
                invalid_decay_factor(f),
            );
        }
        let t = self.sched.fairshare_decay_time;
        if !DECAY_TIME_RANGE.contains(&t) {
            return bad(
                &["sched", "fairshare_decay_time"],
                format!(
                    "fairshare_decay_time must be from {} to {} seconds, got {t}",
                    DECAY_TIME_RANGE.start(),
                    DECAY_TIME_RANGE.end()
                ),
            );
        }
        if self.sched.unknown_shares > MAX_SHARES {
            return bad(
                &["sched", "unknown_shares"],
                format!(
                    "unknown_shares must be from 0 to {MAX_SHARES}, got {}",
                    self.sched.unknown_shares
                ),
            );
        }
        if let Some(t) = self.sched.job_sort_formula_threshold {
            if !t.is_finite() {
                return bad(
                    &["sched", "job_sort_formula_threshold"],
                    "job_sort_formula_threshold must be a finite number".to_string(),
                );
            }
        }
        for (object, defs, modelled, other) in [
            (
                "server",
                object_attributes::SERVER,
                SERVER_MODELLED,
                &self.server.other,
            ),
            (
                "sched",
                object_attributes::SCHED,
                SCHED_MODELLED,
                &self.sched.other,
            ),
        ] {
            for (key, value) in other {
                if let Err(msg) = check_other(defs, modelled, key, value) {
                    return bad(&[object, "other", key], msg);
                }
            }
        }
        for (name, def) in &self.resources {
            if let Err(msg) = check_object_name(name) {
                return bad(&["resources", name], msg);
            }
            if def.kind.parse::<ResourceType>().is_err() {
                return bad(
                    &["resources", name, "type"],
                    resource_type_message(&def.kind),
                );
            }
            if let Some(flag) = &def.flag {
                if let Some(c) = flag.chars().find(|c| !RESOURCE_FLAGS.contains(*c)) {
                    return bad(
                        &["resources", name, "flag"],
                        format!("resource flag '{c}' is not one of {RESOURCE_FLAGS}"),
                    );
                }
            }
        }
        for (name, q) in &self.queues {
            if let Err(msg) = check_object_name(name) {
                return bad(&["queues", name], msg);
            }
            if let Some(p) = q.priority {
                if !QUEUE_PRIORITY_RANGE.contains(&p) {
                    return bad(
                        &["queues", name, "priority"],
                        format!(
                            "Priority: {p} is not an integer from {} to {}",
                            QUEUE_PRIORITY_RANGE.start(),
                            QUEUE_PRIORITY_RANGE.end()
                        ),
                    );
                }
            }
            for (key, value) in &q.other {
                if let Err(msg) = check_other(object_attributes::QUEUE, QUEUE_MODELLED, key, value)
                {
                    return bad(&["queues", name, "other", key], msg);
                }
            }
            if let Some(t) = &q.queue_type {
                if t != "Execution" && t != "Route" {
                    return bad(
                        &["queues", name, "queue_type"],
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

/// PBS's range of a queue's `Priority` (qmgr refuses anything else).
pub const QUEUE_PRIORITY_RANGE: std::ops::RangeInclusive<i64> = -1024..=1023;
/// `fairshare_decay_time`: one second to 100 years (the usage store's `decay_time` range).
pub const DECAY_TIME_RANGE: std::ops::RangeInclusive<u64> =
    1..=crate::usage::settings::MAX_PERIOD as u64;
/// `replay_nodes`: 1 to 2^20 nodes (the Slurm priority's node records, `replay::slurm`).
pub const REPLAY_NODES_RANGE: std::ops::RangeInclusive<u64> = 1..=1 << 20;
/// `replay_cores_per_node`: 1 to 65 536 cores.
pub const REPLAY_CORES_RANGE: std::ops::RangeInclusive<u64> = 1..=1 << 16;
/// `replay_mem_per_node`: 1 KB to 1 PB (2^40 KB).
pub const REPLAY_MEM_RANGE_KB: std::ops::RangeInclusive<u64> = 1..=1 << 40;

/// A replay count setting within its range.
pub fn check_replay_count(
    key: &str,
    v: u64,
    range: &std::ops::RangeInclusive<u64>,
) -> Result<(), String> {
    if range.contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{key} must be from {} to {}, got {v}",
            range.start(),
            range.end()
        ))
    }
}

/// `replay_mem_per_node` (a PBS size such as `192gb`) in KB, within 1 KB to 1 PB.
pub fn replay_mem_kb(v: &str) -> Result<u64, String> {
    match crate::pbs::defs::units::size_kb(v) {
        Some(kb) if REPLAY_MEM_RANGE_KB.contains(&kb) => Ok(kb),
        _ => Err(format!(
            "replay_mem_per_node must be a PBS size from 1kb to 1024tb (e.g. 192gb), got `{v}`"
        )),
    }
}

/// Largest `unknown_shares`: PBS keeps shares in a C `int`.
pub const MAX_SHARES: u64 = i32::MAX as u64;

/// A text attribute holds no control characters, except the whitespace a formula may span lines
/// with (`\n`, `\r`, `\t`; `print server` and the audit log quote them).
pub(crate) fn check_text(key: &str, v: &str) -> Result<(), String> {
    let formula = key != "job_sort_formula_tests";
    match v
        .chars()
        .find(|c| c.is_control() && !(formula && matches!(c, '\n' | '\r' | '\t')))
    {
        Some(c) => Err(format!(
            "{key}: the value contains the control character {:?}",
            c
        )),
        None => Ok(()),
    }
}

/// PBS server attributes fairsort models in [`ServerAttrs`]' own fields.
pub const SERVER_MODELLED: &[&str] = &["job_sort_formula", "managers"];
/// PBS scheduler attributes fairsort models in [`SchedAttrs`]' own fields.
pub const SCHED_MODELLED: &[&str] = &["job_sort_formula", "job_sort_formula_threshold"];
/// PBS queue attributes fairsort models in [`Queue`]'s own fields.
pub const QUEUE_MODELLED: &[&str] = &["queue_type", "Priority", "enabled", "started"];

/// Longest value of a kept attribute fairsort does not model, in bytes.
pub const MAX_OTHER_VALUE_BYTES: usize = 65_536;

/// A kept attribute: `key` is a name PBS gives a manager to set on that object (`ATTR` or, for
/// resource and entity attributes, `ATTR.RESOURCE`, with the resource a valid name), and
/// `value` is non-empty, at most [`MAX_OTHER_VALUE_BYTES`] long, without control characters,
/// and not one fairsort models in its own field (`modelled`).
pub fn check_other(
    defs: &'static [AttrDef],
    modelled: &[&str],
    key: &str,
    value: &str,
) -> Result<(), String> {
    let (base, resource) = match key.split_once('.') {
        Some((b, r)) => (b, Some(r)),
        None => (key, None),
    };
    let def = object_attributes::find(defs, base)
        .filter(|d| d.name == base)
        .ok_or_else(|| format!("{key}: not an attribute PBS has for this object"))?;
    if modelled.contains(&def.name) {
        return Err(format!("{key}: fairsort keeps {base} in its own field"));
    }
    if !def.writable {
        return Err(format!("{key}: read-only in PBS"));
    }
    match (resource, def.shape) {
        (Some(r), AttrShape::Resources | AttrShape::Entity) => {
            check_object_name(r).map_err(|m| format!("{key}: resource {m}"))?
        }
        (Some(_), _) => return Err(format!("{key}: {base} takes no resource")),
        (None, AttrShape::Resources) => {
            return Err(format!("{key}: name the resource ({base}.RESOURCE)"))
        }
        (None, _) => {}
    }
    if value.is_empty() {
        return Err(format!("{key}: the value is empty"));
    }
    if value.len() > MAX_OTHER_VALUE_BYTES {
        return Err(format!(
            "{key}: the value is longer than {MAX_OTHER_VALUE_BYTES} bytes"
        ));
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(format!(
            "{key}: the value contains the control character {c:?}"
        ));
    }
    match def.shape {
        AttrShape::Bool if value != "True" && value != "False" => {
            Err(format!("{key}: {value} is not True or False"))
        }
        AttrShape::Long
            if object_attributes::normalize(def.shape, value).as_deref() != Some(value) =>
        {
            Err(format!("{key}: {value} is not an integer"))
        }
        _ => Ok(()),
    }
}

/// Object names (queues, resources): a letter first, then letters, digits, `_`, `-`; at most 15
/// characters for queues in PBS, here 64 for both.
pub(crate) fn check_object_name(name: &str) -> Result<(), String> {
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

/// fairsort's message for an unknown resource type (`create resource x type=...`).
pub(crate) fn resource_type_message(kind: &str) -> String {
    let names: Vec<&str> = ResourceType::ALL.iter().map(|t| t.as_str()).collect();
    format!("resource type {kind} is not one of {}", names.join(", "))
}

/// The resource table of a home: PBS's built-ins plus its custom definitions.
pub fn resource_table(state: &HomeState) -> crate::formula::ResourceTable {
    let mut table = crate::formula::ResourceTable::builtin();
    for (name, def) in &state.resources {
        // `HomeState::check` guarantees valid names and types; a definition the engine
        // refuses anyway is left out, so formulas using it fail validation visibly.
        if let Ok(ty) = def.kind.parse::<crate::pbs::defs::ResourceType>() {
            let _ = table.define(name, ty);
        }
    }
    table
}

impl HomeState {
    /// The resources formulas may use: built-ins plus this home's custom definitions.
    pub fn resource_table(&self) -> crate::formula::ResourceTable {
        resource_table(self)
    }
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
            HomeState::initial("alice").server.managers,
            ["root@*", "alice@*"]
        );
        assert_eq!(HomeState::initial("root").server.managers, ["root@*"]);
    }

    #[test]
    fn check_finds_bad_values() {
        let mut s = HomeState::initial("alice");
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
