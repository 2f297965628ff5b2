//! The attributes of each object as qmgr shows them: canonical names, in PBS's print order,
//! with values rendered as PBS renders them (booleans `True`/`False`, times `HH:MM:SS`).

use crate::home::state::{Queue, ResourceDef, SchedAttrs, ServerAttrs};
use crate::pbs::defs::object_attributes;
use crate::pbs::defs::object_attributes::{print_rank, AttrDef, AttrShape};
use crate::pbs::defs::units::format_time;
use std::collections::BTreeMap;

/// A rendered attribute value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// One value.
    Single(String),
    /// A list attribute (printed `=` then `+=` per entry, listed comma-joined).
    List(Vec<String>),
}

/// PBS's boolean spelling.
pub(crate) fn pbs_bool(b: bool) -> String {
    if b { "True" } else { "False" }.to_string()
}

/// Parses a PBS boolean (`True`/`False`, `t`/`f`, `y`/`n`, `1`/`0`, any case).
pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "t" | "y" | "yes" | "1" => Some(true),
        "false" | "f" | "n" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// Canonical server attribute names fairsort stores.
pub const SERVER_ATTRS: [&str; 6] = [
    "job_sort_formula",
    "job_sort_formula_tests",
    "managers",
    "replay_nodes",
    "replay_cores_per_node",
    "replay_mem_per_node",
];
/// Canonical sched attribute names.
pub const SCHED_ATTRS: [&str; 9] = [
    "job_sort_formula",
    "job_sort_formula_threshold",
    "fair_share",
    "fairshare_entity",
    "fairshare_usage_res",
    "fairshare_decay_time",
    "fairshare_decay_factor",
    "unknown_shares",
    "fairshare_algorithm",
];
/// Canonical queue attribute names.
pub const QUEUE_ATTRS: [&str; 4] = ["queue_type", "Priority", "enabled", "started"];
/// Canonical resource attribute names.
pub const RESOURCE_ATTRS: [&str; 2] = ["type", "flag"];

/// The canonical spelling of `name` among `known` (attribute names are case-insensitive).
pub(crate) fn canonical(name: &str, known: &[&'static str]) -> Option<&'static str> {
    known.iter().copied().find(|k| k.eq_ignore_ascii_case(name))
}

/// Names as `print`/`list` show them, with their values.
pub type Values = Vec<(String, Value)>;

/// fairsort's own attributes, then the kept PBS ones in PBS's order.
fn with_kept(
    own: Vec<(&'static str, Value)>,
    defs: &[AttrDef],
    other: &BTreeMap<String, String>,
) -> Values {
    let mut v: Values = own.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
    v.extend(kept_values(defs, other));
    v
}

/// The entries of a list value: split at commas, trimmed, empty ones dropped.
pub(crate) fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The kept attributes as `print`/`list` show them, in PBS's definition order (resources of
/// one attribute by name); list attributes one entry a line.
pub(crate) fn kept_values(
    defs: &[AttrDef],
    other: &BTreeMap<String, String>,
) -> Vec<(String, Value)> {
    let mut v: Vec<(usize, &String, &String)> = other
        .iter()
        .map(|(k, val)| (print_rank(defs, k), k, val))
        .collect();
    v.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    v.into_iter()
        .map(|(rank, k, val)| {
            let list = defs.get(rank).is_some_and(|d| d.shape == AttrShape::List);
            let value = if list {
                Value::List(split_list(val))
            } else {
                Value::Single(val.clone())
            };
            (k.clone(), value)
        })
        .collect()
}

/// Server attributes that are set, in print order.
pub(crate) fn server_values(s: &ServerAttrs) -> Values {
    with_kept(own_server_values(s), object_attributes::SERVER, &s.other)
}

fn own_server_values(s: &ServerAttrs) -> Vec<(&'static str, Value)> {
    let mut v = Vec::new();
    if let Some(f) = &s.job_sort_formula {
        v.push(("job_sort_formula", Value::Single(f.clone())));
    }
    if let Some(t) = &s.job_sort_formula_tests {
        v.push(("job_sort_formula_tests", Value::Single(t.clone())));
    }
    if !s.managers.is_empty() {
        v.push(("managers", Value::List(s.managers.clone())));
    }
    if let Some(n) = s.replay_nodes {
        v.push(("replay_nodes", Value::Single(n.to_string())));
    }
    if let Some(n) = s.replay_cores_per_node {
        v.push(("replay_cores_per_node", Value::Single(n.to_string())));
    }
    if let Some(m) = &s.replay_mem_per_node {
        v.push(("replay_mem_per_node", Value::Single(m.clone())));
    }
    v
}

/// Sched attributes (all have values; the threshold only when set), then the kept ones.
pub(crate) fn sched_values(s: &SchedAttrs) -> Values {
    with_kept(own_sched_values(s), object_attributes::SCHED, &s.other)
}

fn own_sched_values(s: &SchedAttrs) -> Vec<(&'static str, Value)> {
    let mut v = Vec::new();
    if let Some(f) = &s.job_sort_formula {
        v.push(("job_sort_formula", Value::Single(f.clone())));
    }
    if let Some(t) = s.job_sort_formula_threshold {
        v.push(("job_sort_formula_threshold", Value::Single(t.to_string())));
    }
    v.push(("fair_share", Value::Single(pbs_bool(s.fair_share))));
    v.push((
        "fairshare_entity",
        Value::Single(s.fairshare_entity.to_string()),
    ));
    v.push((
        "fairshare_usage_res",
        Value::Single(s.fairshare_usage_res.clone()),
    ));
    v.push((
        "fairshare_decay_time",
        Value::Single(format_time(s.fairshare_decay_time)),
    ));
    v.push((
        "fairshare_decay_factor",
        Value::Single(s.fairshare_decay_factor.to_string()),
    ));
    v.push((
        "unknown_shares",
        Value::Single(s.unknown_shares.to_string()),
    ));
    v.push((
        "fairshare_algorithm",
        Value::Single(s.fairshare_algorithm.to_string()),
    ));
    v
}

/// Queue attributes that are set, in PBS's print order, then the kept ones.
pub(crate) fn queue_values(q: &Queue) -> Values {
    with_kept(own_queue_values(q), object_attributes::QUEUE, &q.other)
}

fn own_queue_values(q: &Queue) -> Vec<(&'static str, Value)> {
    let mut v = Vec::new();
    if let Some(t) = &q.queue_type {
        v.push(("queue_type", Value::Single(t.clone())));
    }
    if let Some(p) = q.priority {
        v.push(("Priority", Value::Single(p.to_string())));
    }
    if let Some(e) = q.enabled {
        v.push(("enabled", Value::Single(pbs_bool(e))));
    }
    if let Some(s) = q.started {
        v.push(("started", Value::Single(pbs_bool(s))));
    }
    v
}

/// Resource attributes.
pub(crate) fn resource_values(r: &ResourceDef) -> Values {
    let mut v = vec![("type".to_string(), Value::Single(r.kind.clone()))];
    if let Some(f) = &r.flag {
        v.push(("flag".to_string(), Value::Single(f.clone())));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans() {
        for t in ["True", "true", "T", "y", "1"] {
            assert_eq!(parse_bool(t), Some(true));
        }
        for f in ["False", "FALSE", "f", "n", "0"] {
            assert_eq!(parse_bool(f), Some(false));
        }
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn names_are_case_insensitive() {
        assert_eq!(canonical("priority", &QUEUE_ATTRS), Some("Priority"));
        assert_eq!(
            canonical("JOB_SORT_FORMULA", &SERVER_ATTRS),
            Some("job_sort_formula")
        );
        assert_eq!(canonical("nope", &SERVER_ATTRS), None);
    }
}
