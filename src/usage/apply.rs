//! The one place usage meets a share tree: records of an entity (PBS) or an association
//! (Slurm/flux account + user) set the usage of the tree's leaves, as each scheduler does.

use crate::fairshare::{NodeKind, NodeSpec, Shares, TreeSpec};
use crate::formats::pbs::resource_group::{ROOT_NAME, UNKNOWN_GROUP};
use crate::formats::pbs::usage::FILE;
use crate::formats::pbs::PbsUsage;
use crate::formats::text::check_usage;
use crate::formats::FormatError;
use std::collections::{HashMap, HashSet};

/// One usage record to apply: `account` is `None` for a PBS entity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UsageRecord<'a> {
    /// The Slurm/flux account of an association; `None` for a PBS entity.
    pub account: Option<&'a str>,
    /// The entity (PBS) or user name.
    pub name: &'a str,
    /// Raw (decayed) usage.
    pub usage: f64,
}

/// Applies `records` to `spec`.
///
/// PBS entities (no account) follow PBS's `read_usage`: a listed leaf gets the listed usage (a
/// later entry for the same name wins); a name that is not in the tree becomes an entity with 1
/// share under the `unknown` group (PBS's `find_alloc_ginfo`). Unlisted leaves keep `usage:
/// None`, which in a PBS tree means PBS's starting usage 1 that adds nothing to its groups.
/// Difference: PBS would also overwrite a *group's* usage with a listed value; fairsort refuses
/// that entry instead.
///
/// Associations (an account) set the usage of the user of that name under that account; a
/// record with no such association changes nothing.
pub fn apply_usage<'a>(
    spec: &mut TreeSpec,
    records: impl IntoIterator<Item = UsageRecord<'a>>,
) -> Result<(), FormatError> {
    let parents: HashSet<String> = spec.nodes.iter().filter_map(|n| n.parent.clone()).collect();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, n) in spec.nodes.iter().enumerate() {
        index.entry(n.name.clone()).or_insert(i);
    }
    // (account, user) → the first node of that name under that account.
    let mut associations: HashMap<(String, String), usize> = HashMap::new();
    for (i, n) in spec.nodes.iter().enumerate() {
        if let Some(p) = &n.parent {
            associations.entry((p.clone(), n.name.clone())).or_insert(i);
        }
    }
    let mut entity = 0usize;
    for r in records {
        if let Some(account) = r.account {
            let key = (account.to_string(), r.name.to_string());
            if let Some(node) = associations.get(&key).and_then(|&i| spec.nodes.get_mut(i)) {
                node.usage = Some(r.usage);
            }
            continue;
        }
        entity += 1;
        let name = r.name;
        let value = check_usage(r.usage, &format!("usage of {name}"))
            .map_err(|m| FormatError::file(FILE, m))?;
        if name == ROOT_NAME || name == UNKNOWN_GROUP || parents.contains(name) {
            return Err(FormatError::file(
                FILE,
                format!("entry {entity}: `{name}` is a group; PBS keeps usage for leaves only"),
            ));
        }
        match index.get(name) {
            Some(&i) => {
                if let Some(node) = spec.nodes.get_mut(i) {
                    node.usage = Some(value);
                }
            }
            None => {
                let mut node = NodeSpec::new(
                    name.to_string(),
                    Some(UNKNOWN_GROUP.to_string()),
                    NodeKind::User,
                    Shares::Count(1),
                );
                node.usage = Some(value);
                index.insert(name.to_string(), spec.nodes.len());
                spec.nodes.push(node);
            }
        }
    }
    Ok(())
}

/// The records of a PBS usage file (`sched_priv/usage`), all PBS entities.
pub fn pbs_records(usage: &PbsUsage) -> impl Iterator<Item = UsageRecord<'_>> {
    usage.entries.iter().map(|(name, usage)| UsageRecord {
        account: None,
        name,
        usage: *usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> TreeSpec {
        let mut s = TreeSpec::default();
        s.nodes.push(NodeSpec::new(
            "g",
            None,
            NodeKind::Account,
            Shares::Count(1),
        ));
        s.nodes.push(NodeSpec::new(
            "a",
            Some("g".into()),
            NodeKind::Account,
            Shares::Count(1),
        ));
        s.nodes.push(NodeSpec::new(
            "u",
            Some("g".into()),
            NodeKind::User,
            Shares::Count(1),
        ));
        s.nodes.push(NodeSpec::new(
            "u",
            Some("a".into()),
            NodeKind::User,
            Shares::Count(1),
        ));
        s
    }

    fn rec<'a>(account: Option<&'a str>, name: &'a str, usage: f64) -> UsageRecord<'a> {
        UsageRecord {
            account,
            name,
            usage,
        }
    }

    #[test]
    fn entities_unknown_names_and_associations() {
        let mut s = spec();
        apply_usage(
            &mut s,
            [
                rec(None, "u", 5.0),
                rec(None, "new", 7.0),
                rec(Some("a"), "u", 3.0),
                rec(Some("nowhere"), "u", 9.0),
            ],
        )
        .unwrap();
        // A PBS entity sets the first leaf of that name; an association the one under its account.
        assert_eq!(s.nodes[2].usage, Some(5.0));
        assert_eq!(s.nodes[3].usage, Some(3.0));
        // An entity not in the tree joins `unknown` with 1 share, as PBS does.
        let new = s.nodes.iter().find(|n| n.name == "new").unwrap();
        assert_eq!(new.parent.as_deref(), Some(UNKNOWN_GROUP));
        assert_eq!(new.usage, Some(7.0));
        assert_eq!(s.nodes.len(), 5);
    }

    #[test]
    fn group_usage_and_bad_values_are_refused() {
        let e = apply_usage(&mut spec(), [rec(None, "a", 1.0)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "usage: entry 1: `a` is a group; PBS keeps usage for leaves only"
        );
        assert!(apply_usage(&mut spec(), [rec(None, "u", f64::NAN)]).is_err());
    }
}
