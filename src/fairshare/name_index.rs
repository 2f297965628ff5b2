//! `NameIndex`: a tree's names → node ids, as ids in a hash table whose keys are the nodes' own
//! names (a `HashMap<String, _>` kept a second copy of a million user names, 100 MB at 1M users).

use crate::fairshare::node::{Node, NodeId};
use crate::mem::hash::SeededMap;
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

/// The hash of a node name (seeded, `mem::hash`: users and admins choose the names).
fn name_hash(name: &str) -> u64 {
    crate::mem::hash::hash_one(name)
}

/// Node ids by name, in insertion order per name; the names are read from the tree's nodes.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameIndex {
    /// The first node of each name.
    first: HashTable<NodeId>,
    /// Every node of a name that has several (first node → all, in insertion order): a user
    /// under several accounts.
    more: SeededMap<NodeId, Vec<NodeId>>,
}

impl NameIndex {
    /// An index for about `n` distinct names.
    pub(crate) fn with_capacity(n: usize) -> NameIndex {
        NameIndex {
            first: HashTable::with_capacity(n),
            more: SeededMap::default(),
        }
    }

    /// Empties the index for about `n` names: a fresh table when the old one is much larger
    /// (clearing costs the table's capacity, not its length) or too small (growing it rehashes
    /// every name again).
    pub(crate) fn reset(&mut self, n: usize) {
        let capacity = self.first.capacity();
        if capacity > 2 * n + 64 || capacity < n {
            *self = NameIndex::with_capacity(n);
        } else {
            self.first.clear();
            self.more.clear();
        }
    }

    /// The nodes named `name`, in insertion order (empty when none).
    pub(crate) fn get<'a>(&'a self, nodes: &[Node], name: &str) -> &'a [NodeId] {
        let found = self.first.find(name_hash(name), |&id| {
            nodes.get(id).is_some_and(|n| n.name == name)
        });
        match found {
            Some(first) => match self.more.get(first) {
                Some(all) => all,
                None => std::slice::from_ref(first),
            },
            None => &[],
        }
    }

    /// Adds node `id` (already in `nodes`) under its name, unless `refuse(last)` holds for the
    /// last node of that name already indexed: then that node is returned and nothing changes.
    pub(crate) fn insert_unless(
        &mut self,
        nodes: &[Node],
        id: NodeId,
        refuse: impl Fn(NodeId) -> bool,
    ) -> Result<(), NodeId> {
        let name = nodes[id].name.as_str();
        let entry = self.first.entry(
            name_hash(name),
            |&f| nodes.get(f).is_some_and(|n| n.name == name),
            |&f| nodes.get(f).map_or(0, |n| name_hash(&n.name)),
        );
        match entry {
            Entry::Vacant(v) => {
                v.insert(id);
            }
            Entry::Occupied(o) => {
                let first = *o.get();
                let all = self.more.entry(first).or_insert_with(|| vec![first]);
                if let Some(&last) = all.last() {
                    if refuse(last) {
                        if all.len() == 1 {
                            self.more.remove(&first);
                        }
                        return Err(last);
                    }
                }
                all.push(id);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::spec::{NodeKind, Shares};

    fn node(name: &str, parent: Option<NodeId>) -> Node {
        Node {
            name: name.to_string(),
            kind: NodeKind::User,
            parent,
            children: Vec::new(),
            shares: Shares::Count(1),
            raw_usage: 0.0,
            usage_given: false,
            depth: 1,
            id: None,
            line: None,
        }
    }

    #[test]
    fn keeps_every_node_of_a_name_in_order_and_refuses_on_request() {
        let nodes = vec![
            node("root", None),
            node("u", Some(0)),
            node("v", Some(0)),
            node("u", Some(2)),
            node("u", Some(2)),
        ];
        let mut ix = NameIndex::with_capacity(1);
        for id in 0..4 {
            assert_eq!(ix.insert_unless(&nodes, id, |_| false), Ok(()));
        }
        assert_eq!(ix.get(&nodes, "u"), &[1, 3]);
        assert_eq!(ix.get(&nodes, "v"), &[2]);
        assert_eq!(ix.get(&nodes, "w"), &[] as &[NodeId]);
        let same_parent = |last: NodeId| nodes[last].parent == Some(2);
        assert_eq!(ix.insert_unless(&nodes, 4, same_parent), Err(3));
        assert_eq!(ix.get(&nodes, "u"), &[1, 3]);
        // A refused second node leaves a single-node name as it was.
        let mut one = NameIndex::default();
        one.insert_unless(&nodes, 1, |_| false).unwrap();
        assert_eq!(one.insert_unless(&nodes, 3, |_| true), Err(1));
        assert_eq!(one.get(&nodes, "u"), &[1]);
        assert!(one.more.is_empty());
        one.reset(1);
        assert_eq!(one.get(&nodes, "u"), &[] as &[NodeId]);
    }
}
