//! `snapshot.bin`: a compact binary copy of what reading the home's share tree and usage gives
//! (the *built* tree with usage applied, and the usage that met no association), so a small
//! `order` neither parses megabytes of text nor rebuilds the tree each run (docs/server.md,
//! "The binary snapshot").
//!
//! It is never trusted over the text. Its key is a BLAKE3 hash of the exact bytes it was built
//! from (which tree file and its content, `usage.toml`'s content or its absence, the state's
//! `unknown_shares`) and of fairsort's version and this layout's version; a reader hashes the
//! files as it reads them (inside `Home::with_shared`, in chunks, without keeping the text:
//! [`key_of_files`]) and uses the snapshot only when the keys are equal. The file is also
//! checked whole: magic, layout version, length, a BLAKE3 checksum of header and payload, every
//! count bounded by the bytes left, every number finite (usage >= 0), every tag known, nothing
//! left over, and the nodes shaped as a built tree's (`fairshare::tree::Assembler`). Anything else is a
//! miss: the text is read as before, and the snapshot is rewritten when this process may (see
//! `Home::snapshot`).
//!
//! Layout (little-endian): `MAGIC` (8 bytes), layout version (u32), payload length (u64), key
//! (32 bytes), payload, BLAKE3 of everything before it (32 bytes). The payload: the tree's
//! source, `unknown_shares`, then every node in id order (name, parent id or `u64::MAX` for the
//! root, kind, whether its usage was given, shares, raw usage, PBS id, input line, how many
//! children as a u32 hint for their room; the children and depth follow from the parents), the
//! user associations' ids sorted by (name, id) (u32 each: lookups binary-search them), then
//! the unmatched usage. Strings are a u32 length and UTF-8
//! bytes; options a 0/1 byte then the value; floats their IEEE bits, so a value read back is the
//! value written, bit for bit.

use crate::fairshare::tree::Assembler;
use crate::fairshare::{Node, NodeKind, Shares, Tree, TreeSource};
use crate::usage::UnmatchedUsage;

/// The file's name in the home.
pub const FILE: &str = "snapshot.bin";

const MAGIC: &[u8; 8] = b"FSSNAP\r\n";
/// Bump when the payload's layout or the meaning of what is cached changes.
const LAYOUT: u32 = 2;
const HEADER: usize = 8 + 4 + 8 + 32;
const CHECKSUM: usize = 32;

/// What the snapshot is keyed by.
pub type Key = [u8; 32];

/// The key of the text a snapshot stands for: the tree file's name and bytes, `usage.toml`'s
/// bytes (or `None`: no such file), and the `unknown_shares` the tree is read with.
pub fn key(tree: (&str, &[u8]), usage: Option<&[u8]>, unknown_shares: u64) -> Key {
    let mut h = blake3::Hasher::new();
    h.update(b"fairsort home snapshot\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&LAYOUT.to_le_bytes());
    for part in [tree.0.as_bytes(), tree.1] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    match usage {
        Some(u) => {
            h.update(&[1]);
            h.update(&(u.len() as u64).to_le_bytes());
            h.update(u);
        }
        None => {
            h.update(&[0]);
        }
    }
    h.update(&unknown_shares.to_le_bytes());
    *h.finalize().as_bytes()
}

/// [`key`] of the files themselves, read in 64 KiB chunks (the snapshot path keeps no copy of
/// megabytes of text it only hashes); `None` when a file's length is not what `fstat` said
/// (the caller then reads the text and uses [`key`]).
pub fn key_of_files(
    tree: (&str, &mut std::fs::File),
    usage: Option<&mut std::fs::File>,
    unknown_shares: u64,
) -> std::io::Result<Option<Key>> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut h = blake3::Hasher::new();
    h.update(b"fairsort home snapshot\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&LAYOUT.to_le_bytes());
    h.update(&(tree.0.len() as u64).to_le_bytes());
    h.update(tree.0.as_bytes());
    if !hash_file(&mut h, tree.1, &mut buf)? {
        return Ok(None);
    }
    match usage {
        Some(f) => {
            h.update(&[1]);
            if !hash_file(&mut h, f, &mut buf)? {
                return Ok(None);
            }
        }
        None => {
            h.update(&[0]);
        }
    }
    h.update(&unknown_shares.to_le_bytes());
    Ok(Some(*h.finalize().as_bytes()))
}

/// Feeds `f`'s length (from `fstat`) and then its bytes to `h`, as [`key`] feeds a part; false
/// when the bytes read were not that many.
fn hash_file(
    h: &mut blake3::Hasher,
    f: &mut std::fs::File,
    buf: &mut [u8],
) -> std::io::Result<bool> {
    use std::io::Read;
    let len = f.metadata()?.len();
    h.update(&len.to_le_bytes());
    let mut seen = 0u64;
    loop {
        let n = match f.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        seen += n as u64;
        if seen > len {
            return Ok(false);
        }
        h.update(&buf[..n]);
    }
    Ok(seen == len)
}

/// The file's bytes for `tree` and `unmatched` under `key`.
pub fn encode(key: &Key, tree: &Tree, unmatched: &UnmatchedUsage) -> Vec<u8> {
    let nodes = tree.nodes();
    let names: usize = nodes.iter().map(|n| n.name.len()).sum();
    let mut w = Writer(Vec::with_capacity(128 + nodes.len() * 40 + names));
    w.0.extend_from_slice(MAGIC);
    w.0.extend_from_slice(&LAYOUT.to_le_bytes());
    w.0.extend_from_slice(&0u64.to_le_bytes());
    w.0.extend_from_slice(key);
    w.u8(match tree.source() {
        TreeSource::Pbs => 0,
        TreeSource::Slurm => 1,
        TreeSource::Flux => 2,
        TreeSource::Native => 3,
    });
    w.opt(tree.unknown_shares(), |w, v| w.u64(v));
    w.u64(nodes.len() as u64);
    for n in nodes {
        w.str(&n.name);
        w.u64(n.parent.map_or(u64::MAX, |p| p as u64));
        w.u8(match n.kind {
            NodeKind::Account => 0,
            NodeKind::User => 1,
        });
        w.u8(u8::from(n.usage_given));
        match n.shares {
            Shares::Count(c) => {
                w.u8(0);
                w.u64(c);
            }
            Shares::Parent => w.u8(1),
        }
        w.u64(n.raw_usage.to_bits());
        w.opt(n.id, |w, v| w.u64(v as u64));
        w.opt(n.line, |w, v| w.u64(v as u64));
        w.0.extend_from_slice(&u32::try_from(n.children.len()).unwrap_or(0).to_le_bytes());
    }
    let sorted = tree.users_by_name();
    w.u64(sorted.len() as u64);
    for id in sorted {
        // Ids beyond u32 (no real tree) do not decode: a miss, never a wrong tree.
        w.0.extend_from_slice(&u32::try_from(id).unwrap_or(u32::MAX).to_le_bytes());
    }
    w.u64(unmatched.records as u64);
    w.u64(unmatched.total.to_bits());
    w.u64(unmatched.users.len() as u64);
    for (name, usage) in &unmatched.users {
        w.str(name);
        w.u64(usage.to_bits());
    }
    let payload = (w.0.len() - HEADER) as u64;
    w.0[12..20].copy_from_slice(&payload.to_le_bytes());
    let sum = blake3::hash(&w.0);
    w.0.extend_from_slice(sum.as_bytes());
    w.0
}

/// The tree and unmatched usage in `bytes` if they are a whole, valid snapshot for `key`;
/// `None` for anything else (another key, another version, damaged, truncated, foreign).
pub fn decode(bytes: &[u8], key: &Key) -> Option<(Tree, UnmatchedUsage)> {
    if bytes.len() < HEADER + CHECKSUM || &bytes[..8] != MAGIC {
        return None;
    }
    let mut r = Reader(&bytes[8..HEADER]);
    if r.u32()? != LAYOUT {
        return None;
    }
    let payload = usize::try_from(r.u64()?).ok()?;
    if r.take(32)? != key.as_slice() || bytes.len() - HEADER - CHECKSUM != payload {
        return None;
    }
    let (body, sum) = bytes.split_at(HEADER + payload);
    if blake3::hash(body).as_bytes().as_slice() != sum {
        return None;
    }
    let mut r = Reader(&body[HEADER..]);
    let source = match r.u8()? {
        0 => TreeSource::Pbs,
        1 => TreeSource::Slurm,
        2 => TreeSource::Flux,
        3 => TreeSource::Native,
        _ => return None,
    };
    let unknown_shares = r.opt(|r| r.u64())?;
    // A node takes at least 29 bytes: the count cannot ask for more memory than the file holds.
    let count = r.count(29)?;
    let mut tree = Assembler::new(source, unknown_shares, count);
    let mut room = count;
    for _ in 0..count {
        let name = r.string()?;
        let parent = match r.u64()? {
            u64::MAX => None,
            p => Some(usize::try_from(p).ok()?),
        };
        let kind = match r.u8()? {
            0 => NodeKind::Account,
            1 => NodeKind::User,
            _ => return None,
        };
        let usage_given = r.flag()?;
        let shares = match r.u8()? {
            0 => Shares::Count(r.u64()?),
            1 => Shares::Parent,
            _ => return None,
        };
        let raw_usage = r.usage()?;
        let id = r.opt(|r| r.u64().map(|v| v as i64))?;
        let line = r.opt(|r| r.u64().and_then(|v| usize::try_from(v).ok()))?;
        // Room for the children: a hint, bounded so all the hints together never ask for
        // more than one slot per node.
        let kids = (r.u32()? as usize).min(room);
        room -= kids;
        let node = Node {
            name,
            kind,
            parent,
            children: Vec::new(),
            shares,
            raw_usage,
            usage_given,
            depth: 0,
            id,
            line,
        };
        if !tree.push(node, kids) {
            return None;
        }
    }
    let n = r.count(4)?;
    let mut sorted = Vec::with_capacity(n);
    for _ in 0..n {
        sorted.push(r.u32()? as usize);
    }
    let records = usize::try_from(r.u64()?).ok()?;
    let total = r.usage()?;
    let n = r.count(12)?;
    let mut users = Vec::with_capacity(n);
    for _ in 0..n {
        users.push((r.string()?, r.usage()?));
    }
    if !r.0.is_empty() {
        return None;
    }
    let tree = tree.finish_with_sorted_users(sorted)?;
    let unmatched = UnmatchedUsage {
        records,
        total,
        users,
    };
    Some((tree, unmatched))
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        // Names are bounded far below 4 GiB by every reader; a longer one would not round-trip.
        let len = u32::try_from(s.len()).unwrap_or(u32::MAX);
        self.0.extend_from_slice(&len.to_le_bytes());
        self.0.extend_from_slice(&s.as_bytes()[..len as usize]);
    }
    fn opt<T>(&mut self, v: Option<T>, f: impl FnOnce(&mut Self, T)) {
        match v {
            Some(v) => {
                self.u8(1);
                f(self, v);
            }
            None => self.u8(0),
        }
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A count of items of at least `min` bytes each, no more than the bytes left allow.
    fn count(&mut self, min: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n <= self.0.len() / min).then_some(n)
    }
    fn string(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        std::str::from_utf8(self.take(len)?)
            .ok()
            .map(str::to_string)
    }
    fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => f(self).map(Some),
            _ => None,
        }
    }
    /// A usage: finite and >= 0 (what the tree builder accepts).
    fn usage(&mut self) -> Option<f64> {
        let v = f64::from_bits(self.u64()?);
        (v.is_finite() && v >= 0.0).then_some(v)
    }
    /// A boolean: 0 or 1.
    fn flag(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::{NodeSpec, TreeSpec};

    /// A tree with what a snapshot must carry: a user under two accounts, `parent` shares,
    /// stated and summed account usage, PBS ids and lines, the `unknown` group made by the
    /// build, and a name with non-ASCII letters.
    fn sample() -> (Tree, UnmatchedUsage) {
        let node = |name: &str, parent: Option<&str>, kind, shares| {
            NodeSpec::new(name, parent.map(str::to_string), kind, shares)
        };
        let mut u = node("alice", Some("g"), NodeKind::User, Shares::Count(5));
        u.usage = Some(0.1 + 0.2);
        u.id = Some(-3);
        u.line = Some(7);
        let mut h = node("h", None, NodeKind::Account, Shares::Parent);
        h.usage = Some(12.5);
        let mut a2 = node("alice", Some("h"), NodeKind::User, Shares::Count(0));
        a2.usage = Some(1.0);
        let e = node("ébé", Some("g"), NodeKind::User, Shares::Count(2));
        let spec = TreeSpec {
            source: TreeSource::Pbs,
            root_name: "TREEROOT".into(),
            root_usage: None,
            unknown_shares: Some(4),
            nodes: vec![
                node("g", None, NodeKind::Account, Shares::Count(3)),
                u,
                h,
                a2,
                e,
            ],
        };
        let unmatched = UnmatchedUsage {
            records: 2,
            total: 3.25,
            users: vec![("zed".into(), 3.0), ("ébé".into(), 0.25)],
        };
        (Tree::build(spec).unwrap(), unmatched)
    }

    #[test]
    fn key_of_files_is_key_of_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let tree: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let usage = b"[[entity]]\nname = \"a\"\n".to_vec();
        std::fs::write(dir.path().join("t"), &tree).unwrap();
        std::fs::write(dir.path().join("u"), &usage).unwrap();
        let open = |n: &str| std::fs::File::open(dir.path().join(n)).unwrap();
        let (mut t, mut u) = (open("t"), open("u"));
        let got = key_of_files(("resource_group", &mut t), Some(&mut u), 7).unwrap();
        assert_eq!(got, Some(key(("resource_group", &tree), Some(&usage), 7)));
        let mut t = open("t");
        let got = key_of_files(("resource_group", &mut t), None, 7).unwrap();
        assert_eq!(got, Some(key(("resource_group", &tree), None, 7)));
        assert_ne!(got, Some(key(("tree.toml", &tree), None, 7)));
    }

    #[test]
    fn round_trip_is_exact() {
        let (tree, unmatched) = sample();
        let k = key(("tree.toml", b"x"), None, 0);
        let bytes = encode(&k, &tree, &unmatched);
        let (t, u) = decode(&bytes, &k).unwrap();
        // Every field of every node, children and depth included (`Node: PartialEq`).
        assert_eq!(t.nodes(), tree.nodes());
        assert_eq!(t.columns(), tree.columns());
        assert_eq!(t.source(), tree.source());
        assert_eq!(t.unknown_shares(), Some(4));
        assert_eq!(u, unmatched);
        let alice = t.find_user(Some("g"), "alice").unwrap();
        assert_eq!(t.node(alice).raw_usage.to_bits(), (0.1f64 + 0.2).to_bits());
        assert_eq!(t.users_named("alice").len(), 2);
        assert_eq!(t.find_account("unknown"), tree.find_account("unknown"));
        assert_eq!(t.find_account("TREEROOT"), Some(0));
        assert_eq!(t.preorder(), tree.preorder());
    }

    #[test]
    fn keys_differ_for_any_input_difference() {
        let base = key(("resource_group", b"a 1 root 1\n"), Some(b"u"), 0);
        assert_ne!(base, key(("tree.toml", b"a 1 root 1\n"), Some(b"u"), 0));
        assert_ne!(
            base,
            key(("resource_group", b"a 1 root 2\n"), Some(b"u"), 0)
        );
        assert_ne!(base, key(("resource_group", b"a 1 root 1\n"), None, 0));
        assert_ne!(base, key(("resource_group", b"a 1 root 1\n"), Some(b""), 0));
        assert_ne!(
            base,
            key(("resource_group", b"a 1 root 1\n"), Some(b"u"), 1)
        );
        // The boundary between the parts is part of the key.
        assert_ne!(key(("ab", b"c"), None, 0), key(("a", b"bc"), None, 0));
    }

    #[test]
    fn anything_but_a_whole_valid_file_is_a_miss() {
        let (tree, unmatched) = sample();
        let k = key(("tree.toml", b"x"), None, 0);
        let bytes = encode(&k, &tree, &unmatched);
        assert!(decode(&bytes, &key(("tree.toml", b"y"), None, 0)).is_none());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], &k).is_none(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(decode(&b, &k).is_none(), "byte {i} flipped");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, &k).is_none());
        assert!(decode(b"", &k).is_none());
        assert!(decode(&[0xff; 200], &k).is_none());
    }

    /// A payload that passes the checksum (as a forger with the key could write) is still
    /// checked: bad numbers, tags, counts, parents and trailing bytes are refused without a
    /// panic.
    #[test]
    fn a_well_summed_but_invalid_payload_is_refused() {
        let k = key(("t", b""), None, 0);
        let seal = |payload: &[u8]| {
            let mut b = Vec::new();
            b.extend_from_slice(MAGIC);
            b.extend_from_slice(&LAYOUT.to_le_bytes());
            b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            b.extend_from_slice(&k);
            b.extend_from_slice(payload);
            let sum = blake3::hash(&b);
            b.extend_from_slice(sum.as_bytes());
            b
        };
        let (tree, unmatched) = sample();
        let good = encode(&k, &tree, &unmatched);
        let payload = &good[HEADER..good.len() - CHECKSUM];
        assert!(decode(&seal(payload), &k).is_some());
        // source(1) + unknown_shares Some(1 + 8) + count(8), then the root: name(4 +
        // "TREEROOT" 8), parent(8), kind(1), usage given(1), shares(1 + 8), usage(8).
        let root = 18;
        let (parent, kind, usage) = (root + 12, root + 20, root + 31);
        let patched = |at: usize, bytes: &[u8]| {
            let mut p = payload.to_vec();
            p[at..at + bytes.len()].copy_from_slice(bytes);
            seal(&p)
        };
        assert!(decode(&patched(usage, &f64::NAN.to_bits().to_le_bytes()), &k).is_none());
        assert!(decode(&patched(usage, &(-1.0f64).to_bits().to_le_bytes()), &k).is_none());
        assert!(decode(&patched(0, &[9]), &k).is_none());
        // The root with a parent, or a user.
        assert!(decode(&patched(parent, &0u64.to_le_bytes()), &k).is_none());
        assert!(decode(&patched(kind, &[1]), &k).is_none());
        assert!(decode(&patched(kind, &[7]), &k).is_none());
        // A node count far beyond the bytes.
        assert!(decode(&patched(10, &u64::MAX.to_le_bytes()), &k).is_none());
        let mut p = payload.to_vec();
        p.push(0);
        assert!(decode(&seal(&p), &k).is_none());
        assert!(decode(&seal(&[]), &k).is_none());
        // The first node after the root ("g", an account, after the root's usage, id Some(0),
        // line None and child count): its parent itself or beyond.
        let g = usage + 8 + 9 + 1 + 4;
        let g_parent = g + 4 + 1;
        assert_eq!(&payload[g + 4..g + 5], b"g");
        assert!(decode(&patched(g_parent, &5u64.to_le_bytes()), &k).is_none());
        assert!(decode(&patched(g_parent, &1u64.to_le_bytes()), &k).is_none());
        assert!(decode(&patched(g_parent, &0u64.to_le_bytes()), &k).is_some());
        // A child count is only a hint for room, bounded by the nodes: a huge one reads the
        // same tree.
        let (t, _) = decode(&patched(g - 4, &u32::MAX.to_le_bytes()), &k).unwrap();
        assert_eq!(t.nodes(), tree.nodes());
    }
}
