//! The one place usage meets a share tree: records of an entity (PBS) or an association
//! (Slurm/flux account + user) set the usage of the tree's leaves, as each scheduler does.

use crate::fairshare::{NodeKind, NodeSpec, Shares, TreeSpec};
use crate::files::text::check_usage;
use crate::files::FormatError;
use crate::mem::hash::SeededSet;
use crate::pbs::defs::tree::{ROOT_NAME, UNKNOWN_GROUP, USAGE_FILE as FILE};
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
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

/// Usage records that met no node of the tree and were not counted: associations (Slurm, flux)
/// whose account has no such user, and, on a tree that does not follow PBS's entity rules (no
/// `unknown` group), entities of no user's name. Never printed by the library: the caller says
/// it (one warning line on the command line).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct UnmatchedUsage {
    /// Records not counted.
    pub records: usize,
    /// Their total usage.
    pub total: f64,
    /// Per user name: its total usage not counted, largest first (then by name).
    pub users: Vec<(String, f64)>,
}

impl UnmatchedUsage {
    /// True when every record was counted.
    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Adds the records of `other` (e.g. the home's, then a usage file's).
    pub fn merge(&mut self, other: UnmatchedUsage) {
        if other.is_empty() {
            return;
        }
        let mut tally = UnmatchedTally::default();
        for u in [std::mem::take(self), other] {
            tally.records += u.records;
            tally.total += u.total;
            for (name, usage) in u.users {
                *tally.by_user.entry(name).or_insert(0.0) += usage;
            }
        }
        *self = tally.finish();
    }
}

/// Counts unmatched records as they come; [`UnmatchedTally::finish`] orders the users.
#[derive(Debug, Default)]
pub(crate) struct UnmatchedTally {
    records: usize,
    total: f64,
    by_user: HashMap<String, f64>,
}

impl UnmatchedTally {
    /// Counts `records` records of user `name` with `usage` in all.
    pub(crate) fn add(&mut self, name: &str, records: usize, usage: f64) {
        self.records += records;
        self.total += usage;
        *self.by_user.entry(name.to_string()).or_insert(0.0) += usage;
    }

    /// The report: users by usage, largest first, ties by name (a stable order).
    pub(crate) fn finish(self) -> UnmatchedUsage {
        let mut users: Vec<(String, f64)> = self.by_user.into_iter().collect();
        users.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        UnmatchedUsage {
            records: self.records,
            total: self.total,
            users,
        }
    }
}

/// The user associations of `spec`: (account, user) → the first node of that user under that
/// account. A user directly under the root is an association of the root's name (Slurm's
/// `root|root`).
pub(crate) fn associations(spec: &TreeSpec) -> HashMap<(&str, &str), usize> {
    let mut out = HashMap::new();
    for (i, n) in spec.nodes.iter().enumerate() {
        if n.kind == NodeKind::User {
            let account = n.parent.as_deref().unwrap_or(&spec.root_name);
            out.entry((account, n.name.as_str())).or_insert(i);
        }
    }
    out
}

/// Where a PBS tree counts each entity's usage: entity name → its group (the root's children:
/// the root's name), for every leaf of `spec`. A name that is not a key is one PBS creates under
/// the `unknown` group when it meets it (see [`apply_usage`]).
pub fn pbs_groups(spec: &TreeSpec) -> HashMap<&str, &str> {
    let parents: HashSet<&str> = spec
        .nodes
        .iter()
        .filter_map(|n| n.parent.as_deref())
        .collect();
    let mut out = HashMap::new();
    for n in &spec.nodes {
        if !parents.contains(n.name.as_str()) {
            let group = n.parent.as_deref().unwrap_or(&spec.root_name);
            out.entry(n.name.as_str()).or_insert(group);
        }
    }
    out
}

/// Applies `records` to `spec` and returns the records that met no node (not counted).
///
/// PBS entities (no account) follow PBS's `read_usage`: a listed leaf gets the listed usage (a
/// later entry for the same name wins); on a PBS tree ([`TreeSpec::follows_pbs`]) a name that is not in
/// the tree becomes an entity with 1 share under the `unknown` group (PBS's
/// `find_alloc_ginfo`), so its usage counts in `unknown` and every ancestor. Unlisted leaves keep
/// `usage: None`, which in a PBS tree means PBS's starting usage 1 that adds nothing to its
/// groups. Difference: PBS would also overwrite a *group's* usage with a listed value; fairsort
/// refuses that entry instead. On another tree (no `unknown` group) a name of no leaf is
/// returned as not counted.
///
/// Associations (an account) set the usage of the user of that name under that account; a
/// record with no such association is returned as not counted (Slurm and flux charge only
/// existing associations).
pub fn apply_usage<'a>(
    spec: &mut TreeSpec,
    records: impl IntoIterator<Item = UsageRecord<'a>>,
) -> Result<UnmatchedUsage, FormatError> {
    let pbs = spec.follows_pbs();
    // The indexes hold node indices keyed by the nodes' own names (a large PBS tree has a
    // million), built on first need: entities need `names`, associations `assocs`. They cover
    // the nodes given (`given`), not the entities this call adds under `unknown`, but for
    // `names`, which learns each added one.
    let given = spec.nodes.len();
    // Whether any usage above the leaves is stated: only then does setting a leaf walk up. (A
    // leaf set here never becomes one: entities that name a parent are refused on PBS trees,
    // and only users are set on the others.)
    let stated_above = spec.root_usage.is_some()
        || (spec.nodes.iter()).any(|n| n.kind == NodeKind::Account && n.usage.is_some());
    let accounts = stated_above.then(|| SpecIndex::build(Key::Account, &spec.nodes, ""));
    let mut names: Option<(SpecIndex, SeededSet<String>)> = None;
    let mut assocs: Option<SpecIndex> = None;
    let mut unmatched = UnmatchedTally::default();
    let mut entity = 0usize;
    for r in records {
        if let Some(account) = r.account {
            let root = spec.root_name.as_str();
            let assocs = assocs
                .get_or_insert_with(|| SpecIndex::build(Key::Assoc, &spec.nodes[..given], root));
            match assocs.find(&spec.nodes, root, (account, r.name)) {
                Some(i) => set_leaf_usage(spec, accounts.as_ref(), i, r.usage),
                None => unmatched.add(r.name, 1, r.usage),
            }
            continue;
        }
        entity += 1;
        let name = r.name;
        let value = entity_usage(name, r.usage)?;
        let (index, parents) = names.get_or_insert_with(|| {
            let mut parents = SeededSet::default();
            for p in spec.nodes[..given]
                .iter()
                .filter_map(|n| n.parent.as_deref())
            {
                if !parents.contains(p) {
                    parents.insert(p.to_string());
                }
            }
            (SpecIndex::build(Key::Name, &spec.nodes, ""), parents)
        });
        if pbs && (name == ROOT_NAME || name == UNKNOWN_GROUP || parents.contains(name)) {
            return Err(FormatError::file(
                FILE,
                format!("entry {entity}: `{name}` is a group; PBS keeps usage for leaves only"),
            ));
        }
        // Outside PBS an entity names a user (an account's name is not counted).
        let leaf = index.find(&spec.nodes, "", (name, "")).filter(|&i| {
            pbs || (!parents.contains(name)
                && spec.nodes.get(i).is_some_and(|n| n.kind == NodeKind::User))
        });
        match leaf {
            Some(i) => set_leaf_usage(spec, accounts.as_ref(), i, value),
            None if pbs => {
                let mut node = NodeSpec::new(
                    name.to_string(),
                    Some(UNKNOWN_GROUP.to_string()),
                    NodeKind::User,
                    Shares::Count(1),
                );
                node.usage = Some(value);
                spec.nodes.push(node);
                index.add_last(&spec.nodes, "");
            }
            None => unmatched.add(name, 1, value),
        }
    }
    Ok(unmatched.finish())
}

/// A PBS entity's usage, checked (finite, >= 0); the message is made only for a bad one.
pub(crate) fn entity_usage(name: &str, usage: f64) -> Result<f64, FormatError> {
    if usage.is_finite() && usage >= 0.0 {
        return Ok(usage);
    }
    check_usage(usage, &format!("usage of {name}")).map_err(|m| FormatError::file(FILE, m))
}

/// What a [`SpecIndex`] is keyed by.
#[derive(Debug, Clone, Copy)]
enum Key {
    /// Every node by its name.
    Name,
    /// Accounts by their name.
    Account,
    /// Users by (parent account or the root's name, name).
    Assoc,
}

impl Key {
    /// The key of `n` (`root`: the root's name), `None` for a node not indexed.
    fn of<'n>(self, n: &'n NodeSpec, root: &'n str) -> Option<(&'n str, &'n str)> {
        match self {
            Key::Name => Some((n.name.as_str(), "")),
            Key::Account => (n.kind == NodeKind::Account).then_some((n.name.as_str(), "")),
            Key::Assoc => (n.kind == NodeKind::User)
                .then(|| (n.parent.as_deref().unwrap_or(root), n.name.as_str())),
        }
    }
}

/// The hash of a key (seeded, `mem::hash`: the keys are user and account names).
fn key_hash(key: (&str, &str)) -> u64 {
    crate::mem::hash::hash_one(&key)
}

/// Node indices of a `TreeSpec` by a [`Key`] read from the nodes themselves (no copy of a
/// million names): the first node of each key.
struct SpecIndex {
    key: Key,
    table: HashTable<usize>,
}

impl SpecIndex {
    /// The first node of each key of `nodes`.
    fn build(key: Key, nodes: &[NodeSpec], root: &str) -> SpecIndex {
        let mut table = HashTable::with_capacity(nodes.len());
        let hash_of = |j: usize| {
            nodes
                .get(j)
                .and_then(|n| key.of(n, root))
                .map_or(0, key_hash)
        };
        for (i, n) in nodes.iter().enumerate() {
            let Some(k) = key.of(n, root) else { continue };
            let entry = table.entry(
                key_hash(k),
                |&j: &usize| nodes.get(j).and_then(|n| key.of(n, root)) == Some(k),
                |&j: &usize| hash_of(j),
            );
            if let Entry::Vacant(v) = entry {
                v.insert(i);
            }
        }
        SpecIndex { key, table }
    }

    /// The first node whose key is `k`.
    fn find(&self, nodes: &[NodeSpec], root: &str, k: (&str, &str)) -> Option<usize> {
        self.table
            .find(key_hash(k), |&j| {
                nodes.get(j).and_then(|n| self.key.of(n, root)) == Some(k)
            })
            .copied()
    }

    /// Indexes the last node of `nodes`, whose key is not in the index yet.
    fn add_last(&mut self, nodes: &[NodeSpec], root: &str) {
        let key = self.key;
        let hash_of = |j: usize| {
            nodes
                .get(j)
                .and_then(|n| key.of(n, root))
                .map_or(0, key_hash)
        };
        if let Some(last) = nodes.len().checked_sub(1) {
            self.table
                .insert_unique(hash_of(last), last, |&j| hash_of(j));
        }
    }
}

/// Sets the usage of leaf `i` to `value`. An ancestor whose usage the input stated (Slurm keeps
/// the usage of deleted children in their account: sshare's RawUsage of an account is not the
/// sum of its rows), and the stated root usage, change by as much, so what they hold beyond their
/// children stays; unstated ones are the sums of their subtrees anyway.
///
/// `accounts` is `None` when no usage above the leaves is stated: then there is nothing to walk.
fn set_leaf_usage(spec: &mut TreeSpec, accounts: Option<&SpecIndex>, i: usize, value: f64) {
    let Some(node) = spec.nodes.get_mut(i) else {
        return;
    };
    let delta = value - node.usage.unwrap_or(0.0);
    node.usage = Some(value);
    let Some(accounts) = accounts.filter(|_| delta != 0.0) else {
        return;
    };
    let shift = |u: &mut f64| {
        let v = *u + delta;
        *u = if v > 0.0 { v } else { 0.0 };
    };
    let account_of = |nodes: &[NodeSpec], i: usize| {
        let parent = nodes.get(i)?.parent.as_deref()?;
        accounts.find(nodes, "", (parent, ""))
    };
    let mut parent = account_of(&spec.nodes, i);
    // At most one step per node: a cycle (refused later by the tree builder) ends the walk.
    for _ in 0..spec.nodes.len() {
        let Some(account) = parent else {
            break;
        };
        let Some(a) = spec.nodes.get_mut(account) else {
            break;
        };
        if let Some(u) = a.usage.as_mut() {
            shift(u);
        }
        parent = account_of(&spec.nodes, account);
    }
    if let Some(u) = spec.root_usage.as_mut() {
        shift(u);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::TreeSource;

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
        s.unknown_shares = Some(0);
        let unmatched = apply_usage(
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
        // The association of no node is reported, not dropped silently.
        assert_eq!(
            unmatched,
            UnmatchedUsage {
                records: 1,
                total: 9.0,
                users: vec![("u".into(), 9.0)]
            }
        );
    }

    #[test]
    fn records_of_no_association_are_reported_not_added() {
        let mut s = spec();
        s.source = TreeSource::Slurm;
        s.root_name = "root".into();
        s.nodes.push(NodeSpec::new(
            "root",
            None,
            NodeKind::User,
            Shares::Count(1),
        ));
        let unmatched = apply_usage(
            &mut s,
            [
                rec(Some("root"), "root", 2.0),
                rec(Some("a"), "alice", 4000.0),
                rec(Some("g"), "alice", 0.5),
                rec(Some("g"), "a", 8.0),
                rec(Some("a"), "carol", 21.0),
                rec(None, "bob", 500.0),
                rec(None, "g", 3.0),
            ],
        )
        .unwrap();
        // The root's own user association (Slurm's `root|root`) is an association of `root`.
        assert_eq!(s.nodes[4].usage, Some(2.0));
        // Nothing added: no `unknown` group outside PBS trees; `g/a` and `g` are accounts.
        assert_eq!(s.nodes.len(), 5);
        assert_eq!(unmatched.records, 6);
        approx::assert_abs_diff_eq!(unmatched.total, 4532.5, epsilon = 1e-9);
        assert_eq!(
            unmatched.users,
            [
                ("alice".to_string(), 4000.5),
                ("bob".to_string(), 500.0),
                ("carol".to_string(), 21.0),
                ("a".to_string(), 8.0),
                ("g".to_string(), 3.0)
            ]
        );
        assert_eq!(
            s.nodes[0].usage, None,
            "an account's usage is not set by an entity"
        );
        let mut only = UnmatchedTally::default();
        only.add("zed", 1, 1.0);
        let mut merged = unmatched.clone();
        merged.merge(only.finish());
        assert_eq!(merged.records, 7);
        assert_eq!(merged.users.last(), Some(&("zed".to_string(), 1.0)));
    }

    #[test]
    fn stated_account_and_root_usage_keep_what_deleted_children_left() {
        // sshare: account `g` states 100 (its users 30 + 20, plus 50 of a deleted user), the
        // root 150 (a user of `g/a` had 0).
        let mut s = spec();
        s.source = TreeSource::Slurm;
        s.root_usage = Some(150.0);
        s.nodes[0].usage = Some(100.0);
        s.nodes[2].usage = Some(30.0);
        s.nodes[3].usage = Some(20.0);
        apply_usage(
            &mut s,
            [rec(Some("g"), "u", 40.0), rec(Some("a"), "u", 5.0)],
        )
        .unwrap();
        assert_eq!(s.nodes[2].usage, Some(40.0));
        assert_eq!(s.nodes[3].usage, Some(5.0));
        // `g`: 100 + 10 - 15; `a` states nothing (the sum of its subtree); root: 150 + 10 - 15.
        assert_eq!(s.nodes[0].usage, Some(95.0));
        assert_eq!(s.nodes[1].usage, None);
        assert_eq!(s.root_usage, Some(145.0));
    }

    #[test]
    fn pbs_groups_place_leaves() {
        let s = spec();
        let g = pbs_groups(&s);
        assert_eq!(g.get("u"), Some(&"g"));
        assert_eq!(g.get("a"), None, "a group");
        assert_eq!(g.get("g"), None, "a group");
    }

    #[test]
    fn group_usage_and_bad_values_are_refused() {
        let pbs = || TreeSpec {
            unknown_shares: Some(0),
            ..spec()
        };
        let e = apply_usage(&mut pbs(), [rec(None, "a", 1.0)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "usage: entry 1: `a` is a group; PBS keeps usage for leaves only"
        );
        assert!(apply_usage(&mut spec(), [rec(None, "u", f64::NAN)]).is_err());
    }
}
