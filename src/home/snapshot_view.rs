//! `snapshot.bin` (layout 3, see `snapshot_cache`) read in place: the header and block table are
//! checked when it is opened, every other block of the body only when something in it is first
//! read (its BLAKE3 against the table), so a one-job `order` from a 100 000-user home touches a
//! few dozen 4 KiB blocks instead of decoding the whole tree. [`SnapshotView::full_tree`]
//! checks every block and builds the whole `Tree`; [`SnapshotView::part`] builds only the part
//! of it that a few entities' paths need, with PBS's usage and share sums of the whole.
//!
//! Nothing in the file is trusted beyond its checksums: every offset and count is bounded,
//! every id checked against the node count, every parent an account with a smaller id, every
//! usage a number >= 0; anything else makes the read return `None` (a miss: the caller reads
//! the text), never a panic.

use crate::fairshare::tree::{Assembler, PBS_UNKNOWN};
use crate::fairshare::{Node, NodeId, NodeKind, Shares, Tree, TreeSource};
use crate::home::snapshot_layout::{
    Key, Section, BLOCK_LOG, F_ID, F_LINE, F_PARENT_SHARES, F_USAGE_GIVEN, F_USER, HEADER, LAYOUT,
    MAGIC, SECTIONS, TABLE_AT,
};
use crate::mem::hash::SeededSet;
use crate::usage::UnmatchedUsage;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The bytes a view reads: the mapped file, or a copy.
pub type Bytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// An opened, header-checked `snapshot.bin`, read in place.
#[derive(Clone)]
pub struct SnapshotView {
    bytes: Bytes,
    /// Where the body starts (after the block table, which starts at `HEADER`).
    body: usize,
    sections: [(usize, usize); SECTIONS],
    nodes: usize,
    users: usize,
    accounts: usize,
    source: TreeSource,
    unknown_shares: Option<u64>,
    unmatched: UnmatchedUsage,
    checked: Checked,
}

impl std::fmt::Debug for SnapshotView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotView")
            .field("bytes", &self.all().len())
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

/// The part of a snapshot's tree that some entities' paths need ([`SnapshotView::part`]).
#[derive(Debug, Clone)]
pub struct Part {
    /// The part as a tree of its own (ids in the whole tree's order, the root first).
    pub tree: Tree,
    /// Each part node's id in the whole tree.
    pub ids: Vec<NodeId>,
    /// PBS's usage of each part node in the whole tree (`fairshare::pbs::usages`).
    pub usage: Vec<f64>,
    /// The share sum of each part node's children in the whole tree
    /// (`fairshare::pbs::child_share_sums`).
    pub child_shares: Vec<u64>,
    /// How many nodes the whole tree has.
    pub whole_len: usize,
}

/// Which blocks of the body have been checked (one bit each).
struct Checked(Vec<AtomicU64>);

impl Clone for Checked {
    fn clone(&self) -> Self {
        Checked(
            (self.0.iter())
                .map(|b| AtomicU64::new(b.load(Ordering::Relaxed)))
                .collect(),
        )
    }
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The `i`th u32 of a column.
fn le32(col: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        col.get(i * 4..i * 4 + 4)?.try_into().ok()?,
    ))
}

/// The `i`th u64 of a column.
fn le64(col: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        col.get(i * 8..i * 8 + 8)?.try_into().ok()?,
    ))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

impl SnapshotView {
    /// The view of `bytes` if its header is whole and valid for `key` (magic, layout, length,
    /// key, the header's and the block table's checksums, sections that tile the body with the
    /// sizes their counts give) and its unmatched usage reads; `None` otherwise.
    pub fn open(bytes: Bytes, key: &Key) -> Option<SnapshotView> {
        let b: &[u8] = (*bytes).as_ref();
        if b.len() < HEADER || &b[..8] != MAGIC {
            return None;
        }
        if u32_at(b, 8)? != LAYOUT || u32_at(b, 12)? != BLOCK_LOG {
            return None;
        }
        if usize::try_from(u64_at(b, 16)?).ok()? != b.len() || &b[24..56] != key.as_slice() {
            return None;
        }
        if blake3::hash(&b[..HEADER - 32]).as_bytes() != &b[HEADER - 32..HEADER] {
            return None;
        }
        let source = match b[56] {
            0 => TreeSource::Pbs,
            1 => TreeSource::Slurm,
            2 => TreeSource::Flux,
            3 => TreeSource::Native,
            _ => return None,
        };
        let unknown_shares = match b[57] {
            0 => None,
            1 => Some(u64_at(b, 64)?),
            _ => return None,
        };
        let count = |at| usize::try_from(u64_at(b, at)?).ok();
        let (nodes, users, accounts) = (count(72)?, count(80)?, count(88)?);
        if nodes == 0 || nodes > u32::MAX as usize {
            return None;
        }
        let mut sections = [(0usize, 0usize); SECTIONS];
        for (i, s) in sections.iter_mut().enumerate() {
            *s = (count(TABLE_AT + i * 16)?, count(TABLE_AT + i * 16 + 8)?);
        }
        let body = sections[0].0;
        let mut end = body;
        for &(at, len) in &sections {
            if at != end {
                return None;
            }
            end = at.checked_add(len)?;
        }
        let block = 1usize << BLOCK_LOG;
        let table = body.checked_sub(HEADER)?;
        if end != b.len() || table % 32 != 0 || table / 32 != (end - body).div_ceil(block) {
            return None;
        }
        if blake3::hash(&b[HEADER..body]).as_bytes() != &b[HEADER - 64..HEADER - 32] {
            return None;
        }
        let width = |s: Section| match s {
            Section::Flags => Some(nodes),
            Section::Parent | Section::Kids | Section::NameEnd => nodes.checked_mul(4),
            Section::Users => users.checked_mul(4),
            Section::Accounts => accounts.checked_mul(4),
            Section::Names | Section::Unmatched => None,
            _ => nodes.checked_mul(8),
        };
        for s in ALL_SECTIONS {
            if width(s).is_some_and(|w| w != sections[s as usize].1) {
                return None;
            }
        }
        let blocks = table / 32;
        let mut view = SnapshotView {
            bytes,
            body,
            sections,
            nodes,
            users,
            accounts,
            source,
            unknown_shares,
            unmatched: UnmatchedUsage::default(),
            checked: Checked(
                (0..blocks.div_ceil(64))
                    .map(|_| AtomicU64::new(0))
                    .collect(),
            ),
        };
        view.unmatched = view.read_unmatched()?;
        Some(view)
    }

    fn all(&self) -> &[u8] {
        (*self.bytes).as_ref()
    }

    /// Checks the blocks of the body that `start..end` (absolute offsets in the body) overlaps.
    fn check(&self, start: usize, end: usize) -> bool {
        if end <= start {
            return true;
        }
        let b = self.all();
        let (first, last) = (
            (start - self.body) >> BLOCK_LOG,
            (end - 1 - self.body) >> BLOCK_LOG,
        );
        for k in first..=last {
            let (word, bit) = (k / 64, 1u64 << (k % 64));
            let Some(w) = self.checked.0.get(word) else {
                return false;
            };
            if w.load(Ordering::Relaxed) & bit != 0 {
                continue;
            }
            let from = self.body + (k << BLOCK_LOG);
            let to = (from + (1 << BLOCK_LOG)).min(b.len());
            let (Some(data), Some(sum)) = (
                b.get(from..to),
                b.get(HEADER + k * 32..HEADER + k * 32 + 32),
            ) else {
                return false;
            };
            if blake3::hash(data).as_bytes() != sum {
                return false;
            }
            w.fetch_or(bit, Ordering::Relaxed);
        }
        true
    }

    /// Bytes `from..to` of section `s`, checked.
    fn range(&self, s: Section, from: usize, to: usize) -> Option<&[u8]> {
        let (at, len) = self.sections[s as usize];
        if from > to || to > len {
            return None;
        }
        let (start, end) = (at + from, at + to);
        self.check(start, end).then(|| &self.all()[start..end])
    }

    fn u32(&self, s: Section, i: usize) -> Option<u32> {
        let r = self.range(s, i.checked_mul(4)?, i.checked_mul(4)? + 4)?;
        Some(u32::from_le_bytes(r.try_into().ok()?))
    }

    fn u64(&self, s: Section, i: usize) -> Option<u64> {
        let r = self.range(s, i.checked_mul(8)?, i.checked_mul(8)? + 8)?;
        Some(u64::from_le_bytes(r.try_into().ok()?))
    }

    fn flags(&self, id: NodeId) -> Option<u8> {
        let f = self.range(Section::Flags, id, id + 1)?[0];
        (f & !(F_USER | F_USAGE_GIVEN | F_PARENT_SHARES | F_ID | F_LINE) == 0).then_some(f)
    }

    /// How many nodes the tree has.
    pub fn len(&self) -> usize {
        self.nodes
    }

    /// A tree always has its root; for clippy's sake.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Where the tree came from.
    pub fn source(&self) -> TreeSource {
        self.source
    }

    /// PBS `unknown_shares`, when the tree is a PBS tree.
    pub fn unknown_shares(&self) -> Option<u64> {
        self.unknown_shares
    }

    /// The home's usage that met no association of the tree.
    pub fn unmatched(&self) -> &UnmatchedUsage {
        &self.unmatched
    }

    /// The name of node `id` as bytes.
    fn name(&self, id: NodeId) -> Option<&[u8]> {
        let start = match id {
            0 => 0,
            _ => self.u32(Section::NameEnd, id - 1)? as usize,
        };
        let end = self.u32(Section::NameEnd, id)? as usize;
        self.range(Section::Names, start, end)
    }

    /// Node `id`'s parent: `Some(None)` for the root, `None` when the file is invalid (a
    /// parent that is not an account with a smaller id).
    fn parent(&self, id: NodeId) -> Option<Option<NodeId>> {
        match self.u32(Section::Parent, id)? {
            u32::MAX if id == 0 => Some(None),
            p if (p as usize) < id && self.flags(p as usize)? & F_USER == 0 => {
                Some(Some(p as usize))
            }
            _ => None,
        }
    }

    /// Node `id` with `parent` (an id of the tree being assembled); children and depth are
    /// left to the `Assembler`.
    fn node(&self, id: NodeId, parent: Option<NodeId>) -> Option<Node> {
        let flags = self.flags(id)?;
        let name = std::str::from_utf8(self.name(id)?).ok()?.to_string();
        let shares = match flags & F_PARENT_SHARES {
            0 => Shares::Count(self.u64(Section::Shares, id)?),
            _ => Shares::Parent,
        };
        Some(Node {
            name,
            kind: if flags & F_USER != 0 {
                NodeKind::User
            } else {
                NodeKind::Account
            },
            parent,
            children: Vec::new(),
            shares,
            raw_usage: f64::from_bits(self.u64(Section::RawUsage, id)?),
            usage_given: flags & F_USAGE_GIVEN != 0,
            depth: 0,
            id: match flags & F_ID {
                0 => None,
                _ => Some(self.u64(Section::PbsId, id)? as i64),
            },
            line: match flags & F_LINE {
                0 => None,
                _ => Some(usize::try_from(self.u64(Section::Line, id)?).ok()?),
            },
        })
    }

    /// The whole tree, every block checked first (then read straight from the columns);
    /// `None` when anything is invalid.
    pub fn full_tree(&self) -> Option<Tree> {
        let b = self.all();
        if !self.check(self.body, b.len()) {
            return None;
        }
        let col = |s: Section| {
            let (at, len) = self.sections[s as usize];
            b.get(at..at + len)
        };
        let (parents, flags, shares) = (
            col(Section::Parent)?,
            col(Section::Flags)?,
            col(Section::Shares)?,
        );
        let (usages, ids, lines) = (
            col(Section::RawUsage)?,
            col(Section::PbsId)?,
            col(Section::Line)?,
        );
        let (kids, ends, names) = (
            col(Section::Kids)?,
            col(Section::NameEnd)?,
            col(Section::Names)?,
        );
        let mut tree = Assembler::new(self.source, self.unknown_shares, self.nodes);
        // Room for the children: a hint, bounded so all the hints together never ask for more
        // than one slot per node.
        let mut room = self.nodes;
        let mut start = 0usize;
        for id in 0..self.nodes {
            let f = *flags.get(id)?;
            if f & !(F_USER | F_USAGE_GIVEN | F_PARENT_SHARES | F_ID | F_LINE) != 0 {
                return None;
            }
            let end = le32(ends, id)? as usize;
            let name = std::str::from_utf8(names.get(start..end)?)
                .ok()?
                .to_string();
            start = end;
            let node = Node {
                name,
                kind: if f & F_USER != 0 {
                    NodeKind::User
                } else {
                    NodeKind::Account
                },
                parent: match le32(parents, id)? {
                    u32::MAX => None,
                    p => Some(p as usize),
                },
                children: Vec::new(),
                shares: match f & F_PARENT_SHARES {
                    0 => Shares::Count(le64(shares, id)?),
                    _ => Shares::Parent,
                },
                raw_usage: f64::from_bits(le64(usages, id)?),
                usage_given: f & F_USAGE_GIVEN != 0,
                depth: 0,
                id: (f & F_ID != 0).then_some(le64(ids, id)? as i64),
                line: match f & F_LINE {
                    0 => None,
                    _ => Some(usize::try_from(le64(lines, id)?).ok()?),
                },
            };
            let k = (le32(kids, id)? as usize).min(room);
            room -= k;
            if !tree.push(node, k) {
                return None;
            }
        }
        let users = col(Section::Users)?;
        let sorted = (0..self.users)
            .map(|i| le32(users, i).map(|v| v as usize))
            .collect::<Option<Vec<_>>>()?;
        tree.finish_with_sorted_users(sorted)
    }

    /// The first user association named `name` (the lowest id), by binary search of the
    /// sorted users; `Some(None)` when there is none.
    fn first_user(&self, name: &[u8]) -> Option<Option<NodeId>> {
        let (mut lo, mut hi) = (0, self.users);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let id = self.u32(Section::Users, mid)? as usize;
            if id >= self.nodes {
                return None;
            }
            if self.name(id)? < name {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == self.users {
            return Some(None);
        }
        let id = self.u32(Section::Users, lo)? as usize;
        if id >= self.nodes || self.flags(id)? & F_USER == 0 {
            return None;
        }
        Some((self.name(id)? == name).then_some(id))
    }

    /// The account named `name` (the root's name finds the root); `Some(None)` when none.
    pub fn find_account(&self, name: &str) -> Option<Option<NodeId>> {
        let name = name.as_bytes();
        if self.name(0)? == name {
            return Some(Some(0));
        }
        let (mut lo, mut hi) = (0, self.accounts);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let id = self.u32(Section::Accounts, mid)? as usize;
            if id == 0 || id >= self.nodes {
                return None;
            }
            match self.name(id)?.cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return (self.flags(id)? & F_USER == 0).then_some(Some(id));
                }
            }
        }
        Some(None)
    }

    /// The node a PBS entity named `name` is charged to, as the dry run finds it
    /// (`queue::shares::ShareContext::resolve`): the first user association of that name,
    /// else an account of that name other than the root; `Some(None)` when neither exists.
    pub fn find_entity(&self, name: &str) -> Option<Option<NodeId>> {
        if let Some(id) = self.first_user(name.as_bytes())? {
            return Some(Some(id));
        }
        Some(self.find_account(name)?.filter(|&id| id != 0))
    }

    /// The part of the tree that the PBS entities `names` need: each one's node (as
    /// [`SnapshotView::find_entity`] finds it) and, when one is not in the tree, the `unknown`
    /// group (the dry run adds such entities under it), with all their ancestors; each with
    /// PBS's usage and child share sum in the whole tree. `None` when the file is invalid, or
    /// when `unknown` is a childless group with a stated usage (adding an entity under it
    /// would change its usage, which the part cannot know).
    pub fn part<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Option<Part> {
        let mut ids = vec![0];
        let mut missing = false;
        for name in names {
            match self.find_entity(name)? {
                Some(id) => ids.push(id),
                None => missing = true,
            }
        }
        if missing {
            if let Some(u) = self.find_account(PBS_UNKNOWN)? {
                let childless = self.u32(Section::Kids, u)? == 0;
                if u != 0 && childless && self.flags(u)? & F_USAGE_GIVEN != 0 {
                    return None;
                }
                ids.push(u);
            }
        }
        // Each node once: a walk up stops at a node already in the part (parents have smaller
        // ids, so every walk ends, at the root at the latest).
        let mut seen: SeededSet<NodeId> = SeededSet::default();
        let mut walk = std::mem::take(&mut ids);
        for start in walk.drain(..) {
            let mut cur = Some(start);
            while let Some(id) = cur {
                if !seen.insert(id) {
                    break;
                }
                ids.push(id);
                cur = self.parent(id)?;
            }
        }
        ids.sort_unstable();
        let mut asm = Assembler::new(self.source, self.unknown_shares, ids.len());
        let mut usage = Vec::with_capacity(ids.len());
        let mut child_shares = Vec::with_capacity(ids.len());
        for &id in &ids {
            let parent = match self.parent(id)? {
                Some(p) => Some(ids.binary_search(&p).ok()?),
                None => None,
            };
            if !asm.push(self.node(id, parent)?, 0) {
                return None;
            }
            let u = f64::from_bits(self.u64(Section::PbsUsage, id)?);
            if u.is_nan() || u < 0.0 {
                return None;
            }
            usage.push(u);
            child_shares.push(self.u64(Section::ChildShares, id)?);
        }
        Some(Part {
            tree: asm.finish()?,
            ids,
            usage,
            child_shares,
            whole_len: self.nodes,
        })
    }

    /// The unmatched usage section, read whole (it is small).
    fn read_unmatched(&self) -> Option<UnmatchedUsage> {
        let len = self.sections[Section::Unmatched as usize].1;
        let mut r = Cursor(self.range(Section::Unmatched, 0, len)?);
        let records = usize::try_from(r.u64()?).ok()?;
        let total = usage(r.u64()?)?;
        let n = usize::try_from(r.u64()?).ok()?;
        // Each user takes at least 12 bytes: the count cannot ask for more than the bytes hold.
        if n > len / 12 {
            return None;
        }
        let mut users = Vec::with_capacity(n);
        for _ in 0..n {
            let l = u32::from_le_bytes(r.take(4)?.try_into().ok()?) as usize;
            let name = std::str::from_utf8(r.take(l)?).ok()?.to_string();
            users.push((name, usage(r.u64()?)?));
        }
        if !r.0.is_empty() {
            return None;
        }
        Some(UnmatchedUsage {
            records,
            total,
            users,
        })
    }
}

/// Reads a byte string front to back.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// A usage from its bits: finite and >= 0 (what the tree builder accepts).
fn usage(bits: u64) -> Option<f64> {
    let v = f64::from_bits(bits);
    (v.is_finite() && v >= 0.0).then_some(v)
}

const ALL_SECTIONS: [Section; SECTIONS] = [
    Section::Parent,
    Section::Flags,
    Section::Shares,
    Section::RawUsage,
    Section::PbsId,
    Section::Line,
    Section::Kids,
    Section::NameEnd,
    Section::Names,
    Section::Users,
    Section::Accounts,
    Section::PbsUsage,
    Section::ChildShares,
    Section::Unmatched,
];
