//! `snapshot.bin`: a compact binary copy of what reading the home's share tree and usage gives
//! (the *built* tree with usage applied, and the usage that met no association), so a small
//! `order` neither parses megabytes of text nor rebuilds the tree each run (docs/home.md,
//! "The binary snapshot").
//!
//! It is never trusted over the text. Its key is a BLAKE3 hash of the exact bytes it was built
//! from (which tree file and its content, `usage.toml`'s content or its absence, the state's
//! `unknown_shares`) and of fairsort's version and this layout's version; a reader hashes the
//! files as it reads them (inside `Home::with_shared`, in chunks, without keeping the text:
//! [`key_of_files`]) and uses the snapshot only when the keys are equal.
//!
//! Layout 3 is made to be read in place (`snapshot_view`): a fixed header, a table of BLAKE3
//! hashes of the body's 4 KiB blocks, then the body as fixed-width columns (one value per node
//! at a computable offset, names as end offsets into one byte string), so a one-job `order`
//! reads and checks the few blocks it needs instead of decoding 100 000 nodes. Little-endian:
//!
//! * header ([`HEADER`] bytes): `MAGIC`, layout (u32), block size's log2 (u32), file length
//!   (u64), key (32), tree source (u8), whether `unknown_shares` is set (u8), 6 bytes of 0,
//!   `unknown_shares` (u64), counts of nodes, users and accounts (u64 each), then for each of
//!   [`SECTIONS`] sections its offset from the file's start and its length (u64 each), the
//!   text files' identity (32, `snapshot_ident`) and whether it is settled (u8, then 7 bytes
//!   of 0: [`settle`], [`settled_key`]), the BLAKE3 of the block table (32), and the BLAKE3
//!   of everything before it (32);
//! * the block table: the BLAKE3 of each 4 KiB block of the body (the last one shorter);
//! * the body's sections, in [`Section`] order: per node (in id order) its parent's id (u32,
//!   `u32::MAX` for the root), flags (u8: user, usage given, `parent` shares, PBS id set, line
//!   set), shares (u64), raw usage (f64 bits), PBS id (i64), input line (u64), how many
//!   children (u32, a hint for their room), where its name ends in the names (u32); the
//!   names' UTF-8 bytes; the user associations' ids sorted by (name, id) and the accounts' but
//!   the root's sorted by name (u32 each: lookups binary-search them); PBS's usage of each node
//!   (`fairshare::pbs::usages`, f64) and its children's share sum
//!   (`fairshare::pbs::child_share_sums`, u64), so PBS's values of a node follow from its path
//!   alone; the unmatched usage (records u64, total f64, count u64, then per user a u32
//!   length, the name, the usage f64).
//!
//! Floats are stored as their IEEE bits, so a value read back is the value written, bit for bit.

use crate::fairshare::{pbs, NodeKind, Shares, Tree, TreeSource};
use crate::home::snapshot_view::SnapshotView;
use crate::usage::UnmatchedUsage;

pub use crate::home::snapshot_layout::*;

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
    let n = nodes.len();
    let mut sections: Vec<Vec<u8>> = vec![Vec::new(); SECTIONS];
    let mut put = |s: Section, bytes: &[u8]| sections[s as usize].extend_from_slice(bytes);
    let mut name_end = 0u32;
    for node in nodes {
        put(
            Section::Parent,
            &(node
                .parent
                .map_or(u32::MAX, |p| u32::try_from(p).unwrap_or(u32::MAX)))
            .to_le_bytes(),
        );
        let mut flags = 0u8;
        if node.kind == NodeKind::User {
            flags |= F_USER;
        }
        if node.usage_given {
            flags |= F_USAGE_GIVEN;
        }
        let shares = match node.shares {
            Shares::Count(c) => c,
            Shares::Parent => {
                flags |= F_PARENT_SHARES;
                0
            }
        };
        if node.id.is_some() {
            flags |= F_ID;
        }
        if node.line.is_some() {
            flags |= F_LINE;
        }
        put(Section::Flags, &[flags]);
        put(Section::Shares, &shares.to_le_bytes());
        put(Section::RawUsage, &node.raw_usage.to_bits().to_le_bytes());
        put(Section::PbsId, &node.id.unwrap_or(0).to_le_bytes());
        put(
            Section::Line,
            &(node.line.unwrap_or(0) as u64).to_le_bytes(),
        );
        let kids = u32::try_from(node.children.len()).unwrap_or(0);
        put(Section::Kids, &kids.to_le_bytes());
        // Names are bounded far below 4 GiB by every reader; a longer total does not decode
        // (the ends stop increasing): a miss, never a wrong tree.
        name_end = name_end.saturating_add(u32::try_from(node.name.len()).unwrap_or(u32::MAX));
        put(Section::NameEnd, &name_end.to_le_bytes());
        put(Section::Names, node.name.as_bytes());
    }
    // Ids beyond u32 (no real tree) do not decode: a miss, never a wrong tree.
    let id32 = |id: usize| u32::try_from(id).unwrap_or(u32::MAX).to_le_bytes();
    let users = tree.users_by_name();
    for &id in &users {
        put(Section::Users, &id32(id));
    }
    let mut accounts: Vec<usize> = (1..n)
        .filter(|&id| nodes[id].kind == NodeKind::Account)
        .collect();
    accounts.sort_unstable_by(|&a, &b| nodes[a].name.cmp(&nodes[b].name));
    for &id in &accounts {
        put(Section::Accounts, &id32(id));
    }
    for u in pbs::usages(tree) {
        put(Section::PbsUsage, &u.to_bits().to_le_bytes());
    }
    for s in pbs::child_share_sums(tree) {
        put(Section::ChildShares, &s.to_le_bytes());
    }
    put(
        Section::Unmatched,
        &(unmatched.records as u64).to_le_bytes(),
    );
    put(Section::Unmatched, &unmatched.total.to_bits().to_le_bytes());
    put(
        Section::Unmatched,
        &(unmatched.users.len() as u64).to_le_bytes(),
    );
    for (name, usage) in &unmatched.users {
        let len = u32::try_from(name.len()).unwrap_or(u32::MAX);
        put(Section::Unmatched, &len.to_le_bytes());
        put(Section::Unmatched, &name.as_bytes()[..len as usize]);
        put(Section::Unmatched, &usage.to_bits().to_le_bytes());
    }
    let body_len: usize = sections.iter().map(Vec::len).sum();
    let block = 1usize << BLOCK_LOG;
    let blocks = body_len.div_ceil(block);
    let body_at = HEADER + blocks * 32;
    let mut out = Vec::with_capacity(body_at + body_len);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&LAYOUT.to_le_bytes());
    out.extend_from_slice(&BLOCK_LOG.to_le_bytes());
    out.extend_from_slice(&((body_at + body_len) as u64).to_le_bytes());
    out.extend_from_slice(key);
    out.push(match tree.source() {
        TreeSource::Pbs => 0,
        TreeSource::Slurm => 1,
        TreeSource::Flux => 2,
        TreeSource::Native => 3,
    });
    out.push(u8::from(tree.unknown_shares().is_some()));
    out.extend_from_slice(&[0; 6]);
    out.extend_from_slice(&tree.unknown_shares().unwrap_or(0).to_le_bytes());
    for count in [n, users.len(), accounts.len()] {
        out.extend_from_slice(&(count as u64).to_le_bytes());
    }
    let mut at = body_at;
    for s in &sections {
        out.extend_from_slice(&(at as u64).to_le_bytes());
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        at += s.len();
    }
    // No identity until `settle` records one.
    out.extend_from_slice(&[0; 40]);
    let mut body = Vec::with_capacity(body_len);
    for s in &sections {
        body.extend_from_slice(s);
    }
    let mut table = Vec::with_capacity(blocks * 32);
    for chunk in body.chunks(block) {
        table.extend_from_slice(blake3::hash(chunk).as_bytes());
    }
    out.extend_from_slice(blake3::hash(&table).as_bytes());
    let sum = blake3::hash(&out);
    out.extend_from_slice(sum.as_bytes());
    debug_assert_eq!(out.len(), HEADER);
    out.extend_from_slice(&table);
    out.extend_from_slice(&body);
    out
}

/// Records in `bytes` (a snapshot from [`encode`]) that its text files have the settled
/// identity `ident` (`snapshot_ident::of`): readers that find the files with that identity then
/// skip hashing them. Call only when the files' content, read after `ident` was taken, hashes
/// to the snapshot's key.
pub fn settle(bytes: &mut [u8], ident: &crate::home::snapshot_ident::Ident) {
    if bytes.len() < HEADER {
        return;
    }
    bytes[IDENT_AT..IDENT_AT + 32].copy_from_slice(ident);
    bytes[SETTLED_AT] = 1;
    let sum = blake3::hash(&bytes[..HEADER - 32]);
    bytes[HEADER - 32..HEADER].copy_from_slice(sum.as_bytes());
}

/// The key of the snapshot in `bytes` when its header is valid and records `ident` as its
/// text files' settled identity ([`settle`]): the text it stands for is then the text now
/// (see `snapshot_ident`), without hashing it. `None` otherwise.
pub fn settled_key(bytes: &[u8], ident: &crate::home::snapshot_ident::Ident) -> Option<Key> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC || bytes[8..12] != LAYOUT.to_le_bytes() {
        return None;
    }
    if bytes[SETTLED_AT] != 1 || &bytes[IDENT_AT..IDENT_AT + 32] != ident.as_slice() {
        return None;
    }
    if blake3::hash(&bytes[..HEADER - 32]).as_bytes() != &bytes[HEADER - 32..HEADER] {
        return None;
    }
    bytes[24..56].try_into().ok()
}

/// Whether the snapshot in `bytes` records a settled identity.
pub fn is_settled(bytes: &[u8]) -> bool {
    bytes.len() >= HEADER && bytes[SETTLED_AT] == 1
}

/// The tree and unmatched usage in `bytes` if they are a whole, valid snapshot for `key`;
/// `None` for anything else (another key, another version, damaged, truncated, foreign).
pub fn decode(bytes: &[u8], key: &Key) -> Option<(Tree, UnmatchedUsage)> {
    let view = SnapshotView::open(std::sync::Arc::new(bytes.to_vec()), key)?;
    let unmatched = view.unmatched().clone();
    Some((view.full_tree()?, unmatched))
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

    /// `bytes` with its block table and header checksums made right again after an edit of
    /// the body (what a forger with the key could write).
    fn reseal(bytes: &mut [u8]) {
        let body = u64::from_le_bytes(bytes[TABLE_AT..TABLE_AT + 8].try_into().unwrap()) as usize;
        let mut table = Vec::new();
        for chunk in bytes[body..].chunks(1 << BLOCK_LOG) {
            table.extend_from_slice(blake3::hash(chunk).as_bytes());
        }
        bytes[HEADER..body].copy_from_slice(&table);
        let t = blake3::hash(&table);
        bytes[HEADER - 64..HEADER - 32].copy_from_slice(t.as_bytes());
        let h = blake3::hash(&bytes[..HEADER - 32]);
        bytes[HEADER - 32..HEADER].copy_from_slice(h.as_bytes());
    }

    /// Where section `s` starts.
    fn section(bytes: &[u8], s: Section) -> usize {
        let at = TABLE_AT + s as usize * 16;
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize
    }

    /// A file whose checksums are right (as a forger with the key could write) is still
    /// checked: bad numbers, tags, flags, parents and name ends are refused without a panic.
    #[test]
    fn a_well_summed_but_invalid_file_is_refused() {
        let (tree, unmatched) = sample();
        let k = key(("t", b""), None, 0);
        let good = encode(&k, &tree, &unmatched);
        let mut resealed = good.clone();
        reseal(&mut resealed);
        assert_eq!(resealed, good);
        let patched = |s: Section, at: usize, bytes: &[u8]| {
            let mut b = good.clone();
            let from = section(&b, s) + at;
            b[from..from + bytes.len()].copy_from_slice(bytes);
            reseal(&mut b);
            b
        };
        let refused = |b: Vec<u8>| {
            let whole = decode(&b, &k).is_none();
            let view = SnapshotView::open(std::sync::Arc::new(b), &k);
            let part = view.and_then(|v| v.part(["alice", "ébé", "zed"]));
            whole && part.is_none()
        };
        assert!(!refused(good.clone()));
        assert!(refused(patched(
            Section::RawUsage,
            0,
            &f64::NAN.to_bits().to_le_bytes()
        )));
        assert!(refused(patched(
            Section::RawUsage,
            0,
            &(-1.0f64).to_bits().to_le_bytes()
        )));
        // PBS's usages are read by a part only.
        let b = patched(Section::PbsUsage, 0, &f64::NAN.to_bits().to_le_bytes());
        let view = SnapshotView::open(std::sync::Arc::new(b), &k).unwrap();
        assert!(view.part(["alice"]).is_none() && view.full_tree().is_some());
        // The root with a parent, or a user; a flag no layout has.
        assert!(refused(patched(Section::Parent, 0, &0u32.to_le_bytes())));
        assert!(refused(patched(Section::Flags, 0, &[F_USER])));
        assert!(refused(patched(Section::Flags, 0, &[0x80])));
        // Node 1's parent itself, or beyond it.
        assert!(refused(patched(Section::Parent, 4, &1u32.to_le_bytes())));
        assert!(refused(patched(Section::Parent, 4, &7u32.to_le_bytes())));
        // The root's name ending beyond the names.
        assert!(refused(patched(
            Section::NameEnd,
            0,
            &u32::MAX.to_le_bytes()
        )));
        // A user id beyond the nodes in the sorted users.
        assert!(refused(patched(Section::Users, 0, &u32::MAX.to_le_bytes())));
        // A tag no tree source has (in the header: its checksum is made right too).
        let mut b = good.clone();
        b[56] = 9;
        reseal(&mut b);
        assert!(decode(&b, &k).is_none());
        // A child count is only a hint for room, bounded by the nodes: a huge one reads the
        // same tree.
        let t = decode(&patched(Section::Kids, 4, &u32::MAX.to_le_bytes()), &k)
            .unwrap()
            .0;
        assert_eq!(t.nodes(), tree.nodes());
    }

    #[test]
    fn a_settled_identity_gives_the_key() {
        let (tree, unmatched) = sample();
        let k = key(("t", b""), None, 0);
        let mut bytes = encode(&k, &tree, &unmatched);
        let ident = [7u8; 32];
        assert_eq!(settled_key(&bytes, &ident), None);
        assert!(!is_settled(&bytes));
        settle(&mut bytes, &ident);
        assert!(is_settled(&bytes));
        assert_eq!(settled_key(&bytes, &ident), Some(k));
        assert_eq!(settled_key(&bytes, &[8u8; 32]), None);
        // Still a whole, valid snapshot for its key.
        assert!(decode(&bytes, &k).is_some());
        let mut forged = bytes.clone();
        forged[IDENT_AT] ^= 1;
        assert_eq!(settled_key(&forged, &ident), None);
        assert!(decode(&forged, &k).is_none());
    }

    /// The part for a few entities holds them and their ancestors, with the whole tree's PBS
    /// usages and share sums, and `unknown` when an entity is not in the tree.
    #[test]
    fn a_part_holds_the_entities_paths() {
        let (tree, unmatched) = sample();
        let k = key(("t", b""), None, 0);
        let view =
            SnapshotView::open(std::sync::Arc::new(encode(&k, &tree, &unmatched)), &k).unwrap();
        assert_eq!(view.unmatched(), &unmatched);
        assert_eq!(view.len(), tree.len());
        let alice = tree.users_named("alice")[0];
        assert_eq!(view.find_entity("alice"), Some(Some(alice)));
        assert_eq!(view.find_entity("g"), Some(tree.find_account("g")));
        assert_eq!(view.find_entity("TREEROOT"), Some(None));
        assert_eq!(view.find_entity("nobody"), Some(None));
        let part = view.part(["alice"]).unwrap();
        assert_eq!(part.ids, tree.path(alice));
        let usages = pbs::usages(&tree);
        let sums = pbs::child_share_sums(&tree);
        for (p, &id) in part.ids.iter().enumerate() {
            assert_eq!(part.tree.node(p).name, tree.node(id).name);
            assert_eq!(part.usage[p].to_bits(), usages[id].to_bits());
            assert_eq!(part.child_shares[p], sums[id]);
        }
        let with_unknown = view.part(["alice", "zed"]).unwrap();
        let unknown = tree.find_account("unknown").unwrap();
        assert!(with_unknown.ids.contains(&unknown));
        assert_eq!(with_unknown.whole_len, tree.len());
    }
}
