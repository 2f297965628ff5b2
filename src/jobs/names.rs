//! `Sym` and `Names` (the interned name pool) on their own, below the job, columns and job set.

use hashbrown::HashTable;

/// An interned name (user, group, account, queue or resource): an index into a `Names` pool.
pub type Sym = u32;

/// The hash of a name in a [`Names`] pool: seeded per process (`mem::hash`), as users choose
/// the names (owners, accounts, Variable_List values) and an unseeded hash let them pick names
/// that all probe one slot; foldhash, as interning runs several times per job while a
/// million-job file is read.
pub(crate) fn name_hash(name: &str) -> u64 {
    crate::mem::hash::hash_one(name)
}

/// A pool of distinct names; each name is stored once and referred to by its `Sym`.
///
/// Laid out for a million-job read, where each job interns several names against a pool of a
/// few hundred thousand: the names live end to end in one `arena`, and each index slot holds the
/// symbol, the hash and — for a name of up to [`INLINE`] bytes, which is nearly every user, group
/// and queue name — the name itself, so a lookup touches the slot and nothing else (a
/// `HashMap<String, Sym>` missed the cache three or four times a lookup). The index is an open
/// table whose slot for a hash is known before the look-up, so a batch of look-ups
/// ([`intern_each`](Names::intern_each)) prefetches the slots of the names ahead.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// Every name, end to end.
    arena: String,
    /// `arena` range of each `Sym`: (start, end).
    spans: Vec<(usize, usize)>,
    /// `Sym`s by the hash of their name.
    index: Index,
}

/// Most names a [`NameCache`] holds (256 KB of slots: it stays in the CPU's L2 cache).
const CACHED: usize = 8192;

/// A reader's own table of the names it interned in a [`Names`] pool, for
/// [`Names::intern_cached`]: a small table that stays in the CPU's cache, in front of a pool
/// whose index (100 000 users) does not. It keeps every name it is given up to [`CACHED`]
/// names, then stops growing (later names go to the pool). It replaced a direct-mapped cache
/// of 1024 slots, where two of a 1000-group file's groups sharing a slot evicted each other
/// (about a third of the look-ups, by the birthday count) and each miss waited on the pool's
/// cold index: 4.2 % of the 1M order's samples, gone from the profile since.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameCache {
    slots: HashTable<Slot>,
}
/// From this many slots (4 MiB) on, an [`Index`] asks for transparent huge pages.
const HUGE_INDEX: usize = 1 << 17;

/// How many names ahead [`Names::intern_each`] prefetches an index slot.
const AHEAD: usize = 32;

/// Names up to this many bytes are compared within their index slot.
const INLINE: usize = 16;

/// One index entry of [`Names`] (32 bytes: two to a cache line).
#[derive(Debug, Clone, Copy)]
struct Slot {
    hash: u64,
    sym: Sym,
    /// The name's length in bytes (saturated: a longer name is compared in the arena).
    len: u32,
    /// The name's first word (see [`words`]).
    head: u64,
    /// The name's last word (see [`words`]).
    tail: u64,
}

/// A name's first 8 bytes and its last 8 as little-endian words (overlapping when it is
/// shorter than 16 bytes; for a name under 8 bytes, its bytes zero-padded, twice): with the
/// length, equal words mean equal names of up to [`INLINE`] bytes. Read with word loads, not
/// copied into a padded buffer (a `memcpy` call whose bytes a 16-byte load then waited for:
/// most of `intern_each`'s own samples in the 3M order's profile).
#[inline]
pub(crate) fn words(name: &[u8]) -> (u64, u64) {
    if let (Some(h), Some(t)) = (name.first_chunk::<8>(), name.last_chunk::<8>()) {
        return (u64::from_le_bytes(*h), u64::from_le_bytes(*t));
    }
    let w = match (name.first_chunk::<4>(), name.last_chunk::<4>()) {
        // 4 to 7 bytes: two overlapping halves, whose shared bytes are the same.
        (Some(h), Some(t)) => {
            u64::from(u32::from_le_bytes(*h))
                | u64::from(u32::from_le_bytes(*t)) << (8 * (name.len() - 4))
        }
        _ => name
            .iter()
            .enumerate()
            .fold(0, |w, (i, &b)| w | u64::from(b) << (8 * i)),
    };
    (w, w)
}

/// Whether two names are the same bytes: overlapping word compares for names of up to 32
/// bytes, without a `memcmp` call (resource names, and qstat's `select` texts of about 20
/// bytes).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if let (Some(ah), Some(at), Some(bh), Some(bt)) = (
        a.first_chunk::<16>(),
        a.last_chunk::<16>(),
        b.first_chunk::<16>(),
        b.last_chunk::<16>(),
    ) {
        return if a.len() <= 32 {
            ah == bh && at == bt
        } else {
            a == b
        };
    }
    if let (Some(ah), Some(at), Some(bh), Some(bt)) = (
        a.first_chunk::<8>(),
        a.last_chunk::<8>(),
        b.first_chunk::<8>(),
        b.last_chunk::<8>(),
    ) {
        return ah == bh && at == bt;
    }
    if let (Some(ah), Some(at), Some(bh), Some(bt)) = (
        a.first_chunk::<4>(),
        a.last_chunk::<4>(),
        b.first_chunk::<4>(),
        b.last_chunk::<4>(),
    ) {
        return ah == bh && at == bt;
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// What an unused [`Index`] slot holds as its symbol (a pool never holds four billion names).
const EMPTY: Sym = Sym::MAX;

/// The index of a [`Names`] pool: an open-addressing table of [`Slot`]s with linear probing,
/// at most half full, whose capacity is a power of two. Unlike a `hashbrown` table, the first
/// slot a hash probes is known from outside ([`prefetch`](Index::prefetch)).
#[derive(Debug, Clone, Default)]
struct Index {
    /// The slots (`sym == EMPTY` when unused); empty or a power of two long.
    slots: Vec<Slot>,
    /// Slots in use.
    len: usize,
}

impl Index {
    /// An unused slot.
    const UNUSED: Slot = Slot {
        hash: 0,
        sym: EMPTY,
        len: 0,
        head: 0,
        tail: 0,
    };

    /// The first slot that `hash` probes (the table is not empty).
    #[inline]
    fn home(&self, hash: u64) -> usize {
        // foldhash's output is a folded multiply: its low bits are as good as its high ones.
        hash as usize & (self.slots.len() - 1)
    }

    /// The slot of `hash` that `same` accepts.
    #[inline]
    fn find(&self, hash: u64, same: impl Fn(&Slot) -> bool) -> Option<&Slot> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut at = self.home(hash);
        // At most half the slots are used: the probe meets an unused one.
        while let Some(slot) = self.slots.get(at).filter(|s| s.sym != EMPTY) {
            if same(slot) {
                return Some(slot);
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// Adds `slot` (whose name is not in the table), growing the table first when it would be
    /// more than half full.
    fn insert(&mut self, slot: Slot) {
        if (self.len + 1) * 2 > self.slots.len() {
            let size = (self.slots.len() * 2).max(16);
            let mut slots = Vec::with_capacity(size);
            if size >= HUGE_INDEX {
                // Look-ups land on random pages: with 4 KiB pages nearly each one also missed
                // the TLB (a nested page walk on a virtual machine), and a prefetch did not
                // hide it.
                crate::mem::huge_pages::advise(&mut slots);
            }
            slots.resize(size, Index::UNUSED);
            let old = std::mem::replace(&mut self.slots, slots);
            for s in old.into_iter().filter(|s| s.sym != EMPTY) {
                self.place(s);
            }
        }
        self.place(slot);
        self.len += 1;
    }

    /// Puts `slot` in the first unused slot of its probe (there is one: the table is at most
    /// half full).
    fn place(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut at = self.home(slot.hash);
        while self.slots.get(at).is_some_and(|s| s.sym != EMPTY) {
            at = (at + 1) & mask;
        }
        if let Some(free) = self.slots.get_mut(at) {
            *free = slot;
        }
    }

    /// The longest probe of the table and the probes of all its names together: how far past
    /// its first slot each name sits (+1), which is what a look-up of it walks.
    #[cfg(test)]
    fn probe_lengths(&self) -> (usize, usize) {
        let mask = self.slots.len().wrapping_sub(1);
        let (mut longest, mut total) = (0, 0);
        for (at, s) in self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.sym != EMPTY)
        {
            let walk = (at.wrapping_sub(self.home(s.hash)) & mask) + 1;
            longest = longest.max(walk);
            total += walk;
        }
        (longest, total)
    }

    /// Asks the CPU for the first slot `hash` probes (a hint: no effect on results).
    #[inline]
    fn prefetch(&self, hash: u64) {
        if !self.slots.is_empty() {
            crate::mem::prefetch(self.slots.get(self.home(hash)));
        }
    }
}

impl Names {
    /// Whether `slot` holds `name` (whose hash is `hash` and [`words`] `key`): for a short
    /// name, equal lengths and equal words (no `memcmp` call).
    #[inline]
    fn same(&self, slot: &Slot, hash: u64, key: (u64, u64), name: &str) -> bool {
        if slot.hash != hash
            || slot.len as usize != name.len().min(u32::MAX as usize)
            || (slot.head, slot.tail) != key
        {
            return false;
        }
        name.len() <= INLINE || same_bytes(self.name_bytes(slot.sym), name.as_bytes())
    }

    /// The bytes of a symbol's name (empty for a symbol from another pool).
    #[inline]
    fn name_bytes(&self, sym: Sym) -> &[u8] {
        self.spans
            .get(sym as usize)
            .and_then(|&(a, b)| self.arena.as_bytes().get(a..b))
            .unwrap_or_default()
    }

    /// The index entry of `name`, whose symbol is `sym`.
    #[inline]
    fn slot(name: &str, hash: u64, key: (u64, u64), sym: Sym) -> Slot {
        Slot {
            hash,
            sym,
            len: name.len().min(u32::MAX as usize) as u32,
            head: key.0,
            tail: key.1,
        }
    }

    /// The symbol of `name`, adding it on first sight.
    pub(crate) fn intern(&mut self, name: &str) -> Sym {
        self.intern_hashed(name, name_hash(name), words(name.as_bytes()))
    }

    /// [`intern`](Self::intern) through `cache`, the names this reader interned before: a
    /// million-job reader interns each job's group, account and queue against a pool that also
    /// holds 100 000 users, whose index does not stay in the CPU's cache, while the groups,
    /// accounts and queues are a few hundred or thousand names whose table does. `cache` must
    /// only ever be used with this pool.
    #[inline]
    pub(crate) fn intern_cached(&mut self, cache: &mut NameCache, name: &str) -> Sym {
        let hash = name_hash(name);
        let key = words(name.as_bytes());
        if let Some(slot) = cache.slots.find(hash, |s| self.same(s, hash, key, name)) {
            return slot.sym;
        }
        let sym = self.intern_hashed(name, hash, key);
        if cache.slots.len() < CACHED {
            let slot = Names::slot(name, hash, key, sym);
            cache.slots.insert_unique(hash, slot, |s| s.hash);
        }
        sym
    }

    fn intern_hashed(&mut self, name: &str, hash: u64, key: (u64, u64)) -> Sym {
        if let Some(slot) = self.index.find(hash, |s| self.same(s, hash, key, name)) {
            return slot.sym;
        }
        let sym = self.spans.len() as Sym;
        let start = self.arena.len();
        self.arena.push_str(name);
        self.spans.push((start, self.arena.len()));
        self.index.insert(Names::slot(name, hash, key, sym));
        sym
    }

    /// Interns `names` in order, giving each one's position and symbol to `each`: [`intern`]
    /// of each, with the hashes computed first and the index slot of the name [`AHEAD`] places
    /// on prefetched, so the cache misses of a large pool's cold index overlap (a million-job
    /// reader interns each window's users so, and a later part's names into the first's).
    ///
    /// [`intern`]: Self::intern
    pub(crate) fn intern_each<S: AsRef<str>>(
        &mut self,
        names: &[S],
        mut each: impl FnMut(usize, Sym),
    ) {
        let hashes: Vec<u64> = names.iter().map(|n| name_hash(n.as_ref())).collect();
        for (i, (name, &hash)) in names.iter().zip(&hashes).enumerate() {
            if let Some(&ahead) = hashes.get(i + AHEAD) {
                self.index.prefetch(ahead);
            }
            let name = name.as_ref();
            each(i, self.intern_hashed(name, hash, words(name.as_bytes())));
        }
    }

    /// The symbol of `name`, trying `guess` first: readers pass the symbol found at the same
    /// place in the previous record (resource names come in the same order job after job), which
    /// saves hashing the name.
    #[inline]
    pub(crate) fn intern_guess(&mut self, name: &str, guess: Option<Sym>) -> Sym {
        match guess {
            Some(g)
                if (g as usize) < self.spans.len()
                    && same_bytes(self.name_bytes(g), name.as_bytes()) =>
            {
                g
            }
            _ => self.intern(name),
        }
    }

    /// The symbol of `name` if it was ever interned.
    pub fn get(&self, name: &str) -> Option<Sym> {
        let hash = name_hash(name);
        let key = words(name.as_bytes());
        self.index
            .find(hash, |s| self.same(s, hash, key, name))
            .map(|s| s.sym)
    }

    /// The name of a symbol (empty for a symbol from another pool).
    pub fn name(&self, sym: Sym) -> &str {
        self.spans
            .get(sym as usize)
            .and_then(|&(a, b)| self.arena.get(a..b))
            .unwrap_or("")
    }

    /// Every name, in `Sym` order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.spans.len()).map(|s| self.name(s as Sym))
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when no name was interned.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 150,000 account names built to collide under the unseeded hash the pool used before
    /// (each insert then walked the whole cluster: 0.1 s became 30 s) are interned with short
    /// probes: counted, not timed. With FxHash the same names probe 150,000 slots at the end.
    #[test]
    fn names_chosen_to_collide_are_interned_with_short_probes() {
        let names = crate::mem::hash::fx_colliding_names(150_000);
        let mut pool = Names::default();
        for n in &names {
            pool.intern(n);
        }
        assert_eq!(pool.len(), names.len());
        assert!(names
            .iter()
            .enumerate()
            .all(|(i, n)| pool.get(n) == Some(i as Sym)));
        let (longest, total) = pool.index.probe_lengths();
        // A random hash at this load (150k in 2^19 slots): about 1.2 probes a name, a longest
        // probe of a few dozen at most.
        assert!(longest <= 64, "longest probe {longest}");
        assert!(
            total <= 2 * names.len(),
            "{total} probes for {} names",
            names.len()
        );
    }

    #[test]
    fn names_intern_once() {
        let mut n = Names::default();
        let a = n.intern("alice");
        assert_eq!(n.intern("alice"), a);
        assert_ne!(n.intern("bob"), a);
        assert_eq!(n.name(a), "alice");
        assert_eq!(n.get("carol"), None);
        assert_eq!(n.name(99), "");
    }

    #[test]
    fn long_names_and_guesses() {
        let mut n = Names::default();
        let long = "a-rather-long-group-name-over-sixteen-bytes";
        let a = n.intern(long);
        let b = n.intern("a-rather-long-group-name-over-sixteen-bytez");
        assert_ne!(a, b);
        assert_eq!(n.intern(long), a);
        assert_eq!(n.get(long), Some(a));
        assert_eq!(n.name(b), "a-rather-long-group-name-over-sixteen-bytez");
        let e = n.intern("");
        assert_eq!(n.get(""), Some(e));
        assert_eq!(n.intern_guess(long, Some(a)), a);
        assert_eq!(n.intern_guess(long, Some(b)), a);
        assert_eq!(
            n.intern_guess("", Some(99)),
            e,
            "a symbol of no name is not a guess"
        );
        assert_eq!(n.intern_guess("new", None), 3);
    }

    #[test]
    fn a_cache_gives_the_pools_symbols() {
        let mut n = Names::default();
        let mut cache = NameCache::default();
        let long = "a-group-name-longer-than-sixteen-bytes";
        let names: Vec<String> = (0..5000).map(|i| format!("g{i}")).collect();
        for round in 0..2 {
            for (i, name) in names.iter().enumerate() {
                let sym = n.intern_cached(&mut cache, name);
                assert_eq!(n.name(sym), name, "round {round}");
                assert_eq!(n.get(name), Some(sym));
                if i % 100 == 0 {
                    let l = n.intern_cached(&mut cache, long);
                    assert_eq!(n.name(l), long);
                    assert_eq!(n.intern(long), l);
                }
            }
        }
        assert_eq!(n.len(), 5001);
        let e = n.intern_cached(&mut cache, "");
        assert_eq!(n.name(e), "");
        assert_eq!(n.intern_cached(&mut cache, ""), e);
    }

    #[test]
    fn the_index_grows_and_finds_every_name() {
        // Names whose hashes share their low bits probe past each other; the table doubles
        // from 16 slots and stays at most half full.
        let mut n = Names::default();
        let names: Vec<String> = (0..20_000).map(|i| format!("user{i}")).collect();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(n.intern(name), i as Sym);
            assert!(n.index.len * 2 <= n.index.slots.len());
            assert!(n.index.slots.len().is_power_of_two());
        }
        for (i, name) in names.iter().enumerate() {
            assert_eq!(n.get(name), Some(i as Sym));
            assert_eq!(n.intern(name), i as Sym);
        }
        assert_eq!(n.index.len, names.len());
        assert_eq!(n.get("user20000"), None);
        assert_eq!(Names::default().get("x"), None);
    }

    #[test]
    fn interning_in_a_batch_gives_the_same_symbols_as_one_by_one() {
        let list: Vec<String> = (0..3000)
            .map(|i| match i % 4 {
                0 => format!("u{}", i % 700),
                1 => format!("a-name-longer-than-sixteen-bytes-{}", i % 50),
                2 => String::new(),
                _ => format!("g{i}"),
            })
            .collect();
        let mut one = Names::default();
        let want: Vec<Sym> = list.iter().map(|s| one.intern(s)).collect();
        for split in [0, 1, 7, 8, 9, 1500, 3000] {
            let mut batch = Names::default();
            let mut got = Vec::new();
            let (a, b) = list.split_at(split);
            batch.intern_each(a, |i, s| got.push((i, s)));
            batch.intern_each(b, |i, s| got.push((i + split, s)));
            let positions: Vec<usize> = got.iter().map(|g| g.0).collect();
            assert_eq!(positions, (0..list.len()).collect::<Vec<_>>());
            let syms: Vec<Sym> = got.iter().map(|g| g.1).collect();
            assert_eq!(syms, want, "split at {split}");
            assert_eq!(
                batch.iter().collect::<Vec<_>>(),
                one.iter().collect::<Vec<_>>()
            );
        }
    }

    /// The zero-padded first 16 bytes, as the slots held them before [`words`].
    fn padded(name: &[u8]) -> [u8; 16] {
        let mut head = [0u8; 16];
        let n = name.len().min(16);
        head[..n].copy_from_slice(&name[..n]);
        head
    }

    #[test]
    fn words_and_same_bytes_agree_with_byte_compares() {
        // Every length up to 40, names differing in one byte at every place, and prefixes.
        for n in 0..=40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i * 7 % 26) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "{n}");
            if n <= INLINE {
                let (h, t) = words(&a);
                let mut w = [0u8; 16];
                w[..8].copy_from_slice(&h.to_le_bytes());
                if n >= 8 {
                    w[n - 8..n].copy_from_slice(&t.to_le_bytes());
                } else {
                    assert_eq!(h, t);
                }
                assert_eq!(w, padded(&a), "{n}");
            }
            for at in 0..n {
                for byte in [0u8, b'A', 0xff] {
                    let mut b = a.clone();
                    b[at] = byte;
                    let want = a == b;
                    assert_eq!(same_bytes(&a, &b), want, "{n} {at}");
                    assert_eq!(
                        words(&a) == words(&b),
                        want || n > INLINE && at >= 8 && at < n - 8
                    );
                }
            }
            for m in 0..n {
                assert!(!same_bytes(&a, &a[..m]), "{n} {m}");
            }
        }
        // A name of zero bytes is not a shorter one's padding: lengths are compared as well.
        assert_eq!(words(b"a\0"), words(b"a"));
        assert!(!same_bytes(b"a\0", b"a"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Random byte strings of up to 40 bytes: `same_bytes` is `==`, and for short names
        /// equal words are equal bytes.
        #[test]
        fn same_bytes_is_equality(
            a in proptest::collection::vec(0u8..4, 0..40),
            b in proptest::collection::vec(0u8..4, 0..40),
        ) {
            proptest::prop_assert_eq!(same_bytes(&a, &b), a == b);
            if a.len() == b.len() && a.len() <= INLINE {
                proptest::prop_assert_eq!(words(&a) == words(&b), a == b);
            }
        }
    }

    #[test]
    fn a_full_cache_still_gives_the_pools_symbols() {
        // More names than the cache keeps, short and long, names first interned in the pool
        // without the cache, and two caches on one pool: every symbol is the pool's.
        let mut n = Names::default();
        let early = n.intern("early");
        let mut cache = NameCache::default();
        let mut other = NameCache::default();
        let names: Vec<String> = (0..CACHED + 500)
            .map(|i| match i % 3 {
                0 => format!("g{i}"),
                1 => format!("a-long-account-name-number-{i}"),
                _ => format!("q{i}-0123456789abcdef"),
            })
            .collect();
        for round in 0..2 {
            for name in &names {
                let sym = n.intern_cached(&mut cache, name);
                assert_eq!(n.name(sym), name, "round {round}");
                assert_eq!(n.get(name), Some(sym));
                assert_eq!(n.intern_cached(&mut other, name), sym);
            }
        }
        assert_eq!(cache.slots.len(), CACHED, "the cache stops growing");
        assert_eq!(n.intern_cached(&mut cache, "early"), early);
        assert_eq!(n.len(), names.len() + 1);
    }
}
