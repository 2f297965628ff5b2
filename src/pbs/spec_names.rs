//! `SpecNames`: the node indices of a `TreeSpec` by name, as the `resource_group` reader builds
//! them while it reads, so that applying a usage file to the tree just read does not hash a
//! million names a second time (`share` over a million-entity PBS tree).
//!
//! An open-addressing table of its own (linear probing, at most half full) rather than
//! hashbrown's: each slot keeps 32 bits of the name's hash beside the node index, so a probe
//! almost never reads a node's name unless it is the one sought (hashbrown's 7-bit tags sent
//! one probe in ~15 to a node and its name: two cache misses), and the slot of a name can be
//! prefetched from its hash ([`SpecNames::prefetch`]) while earlier names are inserted: the
//! million inserts of the reader were a cache miss each, one after the other (14.6 % of
//! `share -a pbs`).

use crate::fairshare::spec::{NodeSpec, TreeSpec};

/// The hash of a node name (seeded: tree names are chosen by users and admins, see
/// `mem::hash`); its low bits place the name in the table, its high 32 bits are kept as the
/// slot's tag.
pub(crate) fn name_hash(name: &str) -> u64 {
    crate::mem::hash::hash_one(name)
}

/// A slot: the tag (high 32 bits of the hash) above the node index + 1 (0: an empty slot).
type Slot = u64;

/// The most nodes a table indexes (index + 1 must fit the slot's 32 bits).
pub(crate) const MAX_NODES: usize = u32::MAX as usize - 1;

/// The smallest table.
const MIN_SLOTS: usize = 16;

/// Node indices of a `TreeSpec` by their (unique) names, the names read from the nodes
/// themselves (no copy). Valid for the spec it was built with, as long as nodes are only
/// appended (see [`SpecNames::describes`]).
#[derive(Debug, Default)]
pub struct SpecNames {
    /// A power of two of slots (or none before the first insert), at most half of them used.
    slots: Vec<Slot>,
    /// Slots in use.
    used: usize,
    /// How many nodes were indexed (`nodes[..len]`).
    len: usize,
}

/// The slot of node `i` whose name has hash `h`.
fn slot_of(h: u64, i: usize) -> Slot {
    (h >> 32 << 32) | (i as u64 + 1)
}

impl SpecNames {
    /// An empty index for about `n` names.
    pub(crate) fn with_capacity(n: usize) -> SpecNames {
        SpecNames {
            slots: vec![0; slots_for(n)],
            used: 0,
            len: 0,
        }
    }

    /// Faults in the table's memory now (`mem::huge_pages::populate_slice`): a large table is
    /// then filled without a fault per page.
    pub(crate) fn populate(&mut self) {
        crate::mem::huge_pages::populate_slice(&mut self.slots);
    }

    /// The node named `name`.
    pub fn find(&self, nodes: &[NodeSpec], name: &str) -> Option<usize> {
        self.find_hashed(nodes, name, name_hash(name))
    }

    /// The node named `name`, whose [`name_hash`] is `h`.
    pub(crate) fn find_hashed(&self, nodes: &[NodeSpec], name: &str, h: u64) -> Option<usize> {
        self.probe(nodes, name, h).ok()
    }

    /// Loads the slot where the search for a name of hash `h` starts into the cache, for a
    /// [`SpecNames::find_hashed`] or [`SpecNames::insert_next_hashed`] a few names later
    /// (a hint only: nothing changes).
    #[inline]
    pub(crate) fn prefetch(&self, h: u64) {
        if let Some(mask) = self.slots.len().checked_sub(1) {
            crate::mem::prefetch(self.slots.get(h as usize & mask));
        }
    }

    /// `Ok(node)` of the name `name` (hash `h`), or `Err(slot)`: the empty slot where the
    /// search ended (`usize::MAX` when the table has no slots).
    fn probe(&self, nodes: &[NodeSpec], name: &str, h: u64) -> Result<usize, usize> {
        let Some(mask) = self.slots.len().checked_sub(1) else {
            return Err(usize::MAX);
        };
        let tag = h >> 32;
        let mut at = h as usize & mask;
        // At most half the slots are used: the search always meets an empty one.
        loop {
            let s = self.slots.get(at).copied().unwrap_or(0);
            if s == 0 {
                return Err(at);
            }
            if s >> 32 == tag {
                let i = (s as u32 - 1) as usize;
                if nodes.get(i).is_some_and(|n| n.name == name) {
                    return Ok(i);
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// Indexes `name` as node `nodes.len()` (the node about to be pushed), unless a node of
    /// that name is indexed: then its index is returned and nothing changes.
    pub(crate) fn insert_next(&mut self, nodes: &[NodeSpec], name: &str) -> Result<(), usize> {
        self.insert_next_hashed(nodes, name, name_hash(name))
    }

    /// [`SpecNames::insert_next`] of a name whose [`name_hash`] is `h`. A node beyond
    /// [`MAX_NODES`] is refused as the node `usize::MAX` (no such file fits in memory).
    pub(crate) fn insert_next_hashed(
        &mut self,
        nodes: &[NodeSpec],
        name: &str,
        h: u64,
    ) -> Result<(), usize> {
        let next = nodes.len();
        if next >= MAX_NODES {
            return Err(usize::MAX);
        }
        let mut empty = match self.probe(nodes, name, h) {
            Ok(i) => return Err(i),
            Err(at) => at,
        };
        if 2 * (self.used + 1) > self.slots.len() {
            self.grow(nodes);
            empty = match self.probe(nodes, name, h) {
                Ok(i) => return Err(i),
                Err(at) => at,
            };
        }
        if let Some(s) = self.slots.get_mut(empty) {
            *s = slot_of(h, next);
            self.used += 1;
        }
        self.len = next + 1;
        Ok(())
    }

    /// Twice the slots (or the smallest table), every node placed again by its name's hash.
    fn grow(&mut self, nodes: &[NodeSpec]) {
        let old = std::mem::replace(&mut self.slots, vec![0; slots_for(self.used + 1)]);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|&s| s != 0) {
            let i = (s as u32 - 1) as usize;
            let h = nodes.get(i).map_or(0, |n| name_hash(&n.name));
            let mut at = h as usize & mask;
            while self.slots.get(at).is_some_and(|&x| x != 0) {
                at = (at + 1) & mask;
            }
            if let Some(x) = self.slots.get_mut(at) {
                *x = s;
            }
        }
    }

    /// Indexes the last node of `nodes` (just pushed), whose name is not indexed yet.
    pub(crate) fn add_last(&mut self, nodes: &[NodeSpec]) {
        if let Some((last, before)) = nodes.split_last() {
            let _ = self.insert_next(before, &last.name);
        }
    }

    /// True when this index describes every node of `spec` (nothing was added since).
    pub fn describes(&self, spec: &TreeSpec) -> bool {
        self.len == spec.nodes.len()
    }
}

/// Slots for `n` names: a power of two, at least twice `n`.
fn slots_for(n: usize) -> usize {
    n.saturating_mul(2)
        .max(MIN_SLOTS)
        .checked_next_power_of_two()
        .unwrap_or(MIN_SLOTS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::spec::{NodeKind, Shares};

    /// Tree names built to collide under the unseeded hash used before go in with short
    /// probes (counted: how far past its first slot each name sits).
    #[test]
    fn names_chosen_to_collide_are_indexed_with_short_probes() {
        let names = crate::mem::hash::fx_colliding_names(150_000);
        let mut nodes = Vec::new();
        let mut index = SpecNames::with_capacity(names.len());
        for n in &names {
            assert_eq!(index.insert_next(&nodes, n), Ok(()));
            nodes.push(NodeSpec::new(n, None, NodeKind::User, Shares::Count(1)));
        }
        let mask = index.slots.len() - 1;
        let (mut longest, mut total) = (0, 0);
        for (at, &s) in index.slots.iter().enumerate().filter(|(_, &s)| s != 0) {
            let i = (s as u32 - 1) as usize;
            let home = name_hash(&nodes[i].name) as usize & mask;
            let walk = (at.wrapping_sub(home) & mask) + 1;
            longest = longest.max(walk);
            total += walk;
        }
        assert!(longest <= 64, "longest probe {longest}");
        assert!(total <= 2 * names.len(), "{total} probes");
        assert!(names
            .iter()
            .enumerate()
            .all(|(i, n)| index.find(&nodes, n) == Some(i)));
    }

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

    /// Names whose hashes share their low bits (the same first slot) or their tag: every name
    /// found, every second insert refused; then a table that grows from none.
    #[test]
    fn collisions_and_growth() {
        let mut nodes: Vec<NodeSpec> = Vec::new();
        let mut names = SpecNames::with_capacity(5000);
        let slots = names.slots.len();
        for k in 0..5000 {
            let name = format!("n{k}");
            // Forced hashes: 8 names per first slot, 4 per tag.
            let h = ((k as u64 / 4) << 32) | (k as u64 / 8);
            assert_eq!(names.insert_next_hashed(&nodes, &name, h), Ok(()), "{k}");
            nodes.push(NodeSpec::new(name, None, NodeKind::User, Shares::Count(1)));
            let again = names.insert_next_hashed(&nodes, &format!("n{k}"), h);
            assert_eq!(again, Err(k));
        }
        // No growth (it places names by their real hash).
        assert_eq!((names.slots.len(), names.used), (slots, 5000));
        for k in 0..5000 {
            let h = ((k as u64 / 4) << 32) | (k as u64 / 8);
            assert_eq!(names.find_hashed(&nodes, &format!("n{k}"), h), Some(k));
            names.prefetch(h);
        }
        // After a growth the names sit where their real hash puts them.
        let mut real = SpecNames::default();
        assert_eq!(real.find(&nodes, "x"), None);
        for (k, n) in nodes.iter().enumerate() {
            assert_eq!(real.insert_next(&nodes[..k], &n.name), Ok(()));
        }
        for (k, n) in nodes.iter().enumerate() {
            assert_eq!(real.find(&nodes, &n.name), Some(k));
        }
        assert_eq!(real.find(&nodes, "n5000"), None);
    }
}
