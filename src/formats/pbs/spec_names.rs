//! `SpecNames`: the node indices of a `TreeSpec` by name, as the `resource_group` reader builds
//! them while it reads, so that applying a usage file to the tree just read does not hash a
//! million names a second time (issue #16: `share` over a million-entity PBS tree).

use crate::fairshare::spec::{NodeSpec, TreeSpec};
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// The hash of a node name (FxHash: a million names per large tree).
fn name_hash(name: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(name)
}

/// Node indices of a `TreeSpec` by their (unique) names, the names read from the nodes
/// themselves (8 bytes a name, no copy). Valid for the spec it was built with, as long as
/// nodes are only appended (see [`SpecNames::describes`]).
#[derive(Debug, Default)]
pub struct SpecNames {
    table: HashTable<usize>,
    /// How many nodes were indexed (`nodes[..len]`).
    len: usize,
}

impl SpecNames {
    /// An empty index for about `n` names.
    pub(crate) fn with_capacity(n: usize) -> SpecNames {
        SpecNames {
            table: HashTable::with_capacity(n),
            len: 0,
        }
    }

    /// The node named `name`.
    pub fn find(&self, nodes: &[NodeSpec], name: &str) -> Option<usize> {
        self.table
            .find(name_hash(name), |&j| {
                nodes.get(j).is_some_and(|n| n.name == name)
            })
            .copied()
    }

    /// Indexes `name` as node `nodes.len()` (the node about to be pushed), unless a node of
    /// that name is indexed: then its index is returned and nothing changes.
    pub(crate) fn insert_next(&mut self, nodes: &[NodeSpec], name: &str) -> Result<(), usize> {
        let next = nodes.len();
        let entry = self.table.entry(
            name_hash(name),
            |&j| nodes.get(j).is_some_and(|n| n.name == name),
            |&j| nodes.get(j).map_or(0, |n| name_hash(&n.name)),
        );
        match entry {
            Entry::Occupied(o) => Err(*o.get()),
            Entry::Vacant(v) => {
                v.insert(next);
                self.len = next + 1;
                Ok(())
            }
        }
    }

    /// Indexes the last node of `nodes` (just pushed), whose name is not indexed yet.
    pub(crate) fn add_last(&mut self, nodes: &[NodeSpec]) {
        if let Some(last) = nodes.len().checked_sub(1) {
            let hash_of = |j: usize| nodes.get(j).map_or(0, |n| name_hash(&n.name));
            self.table
                .insert_unique(hash_of(last), last, |&j| hash_of(j));
            self.len = nodes.len();
        }
    }

    /// True when this index describes every node of `spec` (nothing was added since).
    pub fn describes(&self, spec: &TreeSpec) -> bool {
        self.len == spec.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::spec::{NodeKind, Shares};

    #[test]
    fn finds_refuses_twice_and_learns_appended_nodes() {
        let mut spec = TreeSpec::default();
        let mut names = SpecNames::with_capacity(2);
        for n in ["a", "b"] {
            assert_eq!(names.insert_next(&spec.nodes, n), Ok(()));
            spec.nodes
                .push(NodeSpec::new(n, None, NodeKind::User, Shares::Count(1)));
        }
        assert_eq!(names.insert_next(&spec.nodes, "a"), Err(0));
        assert!(names.describes(&spec));
        assert_eq!(names.find(&spec.nodes, "b"), Some(1));
        assert_eq!(names.find(&spec.nodes, "c"), None);
        spec.nodes
            .push(NodeSpec::new("c", None, NodeKind::User, Shares::Count(1)));
        assert!(!names.describes(&spec));
        names.add_last(&spec.nodes);
        assert!(names.describes(&spec));
        assert_eq!(names.find(&spec.nodes, "c"), Some(2));
    }
}
