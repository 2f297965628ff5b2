//! The hasher of every index of user-controlled text (job owners, accounts, Variable_List
//! values, tree node names) and of anything else fairsort hashes into a table: foldhash keyed by
//! a secret drawn once per process from the system's randomness.
//!
//! Users choose their job names, `Account_Name`s and comments, and fairsort runs as root over
//! them. With an unseeded hash (FxHash, as before) anyone can compute names that all land on
//! one slot: 150,000 such account names took `order` from 0.1 s to 30 s (every insert walked
//! the whole cluster). With a secret key nobody outside this process knows which names collide.
//!
//! foldhash rather than std's SipHash: hashing a user name costs about 40 instructions with it
//! (FxHash about 25, ahash's fallback about 48, SipHash-1-3 about 218; callgrind over a million
//! typical names), and a million-job read hashes several names per job. Its own default seed
//! comes from addresses and the clock; here both of its seeds come from std's `RandomState`,
//! whose keys are read from the operating system's random source.

use std::hash::{BuildHasher, Hash};
use std::sync::OnceLock;

/// The process's two secret seeds: foldhash's per-hasher seed and its shared seed.
struct Secret {
    per_hasher: u64,
    shared: foldhash::SharedSeed,
}

/// The process's secret.
static SECRET: OnceLock<Secret> = OnceLock::new();

/// The process's secret (one load and a branch once drawn, so the hash inlines).
#[inline(always)]
fn secret() -> &'static Secret {
    match SECRET.get() {
        Some(s) => s,
        None => draw_secret(),
    }
}

/// Draws the secret, on first use.
#[cold]
#[inline(never)]
fn draw_secret() -> &'static Secret {
    SECRET.get_or_init(|| secret_from(&std::hash::RandomState::new()))
}

/// A secret derived from `random`, a `RandomState` with keys from the system's randomness
/// (SipHash is a keyed pseudo-random function: its outputs of fixed inputs are as secret as
/// its keys).
fn secret_from(random: &std::hash::RandomState) -> Secret {
    Secret {
        per_hasher: random.hash_one(0x5eed_u64),
        shared: foldhash::SharedSeed::from_u64(random.hash_one(0x5eed_5eed_u64)),
    }
}

/// The seeded hasher builder: zero-sized and `Default`, so a [`SeededMap`] is made like
/// any map, and every one of them in a process hashes alike (a hash made on one thread can be
/// looked up in a table built on another).
#[derive(Debug, Clone, Copy, Default)]
pub struct Seeded;

impl BuildHasher for Seeded {
    type Hasher = foldhash::fast::FoldHasher<'static>;

    #[inline(always)]
    fn build_hasher(&self) -> Self::Hasher {
        let s = secret();
        foldhash::fast::FoldHasher::with_seed(s.per_hasher, &s.shared)
    }
}

/// A hash map with the process's seeded hasher.
pub type SeededMap<K, V> = std::collections::HashMap<K, V, Seeded>;

/// A hash set with the process's seeded hasher.
pub type SeededSet<K> = std::collections::HashSet<K, Seeded>;

/// The seeded hash of `x`, for the crate's own open tables (the job reader's name pool, the
/// share tree's name indexes): the same value for the same `x` everywhere in this process,
/// another in the next process.
#[inline(always)]
pub fn hash_one<T: Hash + ?Sized>(x: &T) -> u64 {
    Seeded.hash_one(x)
}

/// `n` distinct names of 32 printable ASCII bytes that all have one FxHash (the unseeded hash
/// the tables used before), built the way a flooder would: FxHash mixes a 32-byte string as
/// `mix(SEED2 ^ w2, mix(SEED1 ^ w0, K ^ w1) ^ w3) ^ 32` (words `w0..w3`, `mix` a folded
/// multiply), so a last word equal to the inner mix zeroes the product whatever the third word
/// is: one 16-byte prefix whose inner mix is printable gives 2^64 colliding names.
#[cfg(test)]
pub(crate) fn fx_colliding_names(n: usize) -> Vec<String> {
    const SEED1: u64 = 0x243f_6a88_85a3_08d3;
    const K: u64 = 0xa409_3822_299f_31d0;
    let mix = |x: u64, y: u64| {
        let full = u128::from(x) * u128::from(y);
        (full as u64) ^ ((full >> 64) as u64)
    };
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
    let printable = |w: u64| w.to_le_bytes().iter().all(|b| (0x21..0x7f).contains(b));
    let (prefix, last) = (0u64..)
        .map(|k| format!("acct{k:012}"))
        .map(|p| {
            let t = mix(
                SEED1 ^ word(&p.as_bytes()[..8]),
                K ^ word(&p.as_bytes()[8..]),
            );
            (p, t)
        })
        .find(|(_, t)| printable(*t))
        .unwrap_or_default();
    let last = String::from_utf8(last.to_le_bytes().to_vec()).unwrap_or_default();
    (0..n).map(|i| format!("{prefix}{i:08}{last}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names built to collide under FxHash do (every one of them), and under the seeded hash
    /// they spread like random values: all distinct, and the low bits that place them in a
    /// table of 2^18 slots put at most a handful on any slot.
    #[test]
    fn names_that_all_collide_under_fxhash_spread_under_the_seeded_hash() {
        let names = fx_colliding_names(150_000);
        let fx = |s: &str| rustc_hash::FxBuildHasher.hash_one(s);
        assert!(names
            .iter()
            .all(|n| n.len() == 32 && fx(n) == fx(&names[0])));
        assert_eq!(
            names.iter().collect::<std::collections::HashSet<_>>().len(),
            names.len()
        );
        let mut hashes: Vec<u64> = names.iter().map(|n| hash_one(n.as_str())).collect();
        let mut per_slot = vec![0u32; 1 << 18];
        for h in &hashes {
            per_slot[(*h as usize) & ((1 << 18) - 1)] += 1;
        }
        // 150k values over 262k slots: a random hash puts at most about 8 on one.
        assert!(
            per_slot.iter().max().is_some_and(|&m| m <= 12),
            "{:?}",
            per_slot.iter().max()
        );
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), names.len());
    }

    /// Two processes draw two secrets: std gives each new `RandomState` other keys (a new
    /// process: new random keys), and the secret follows the keys.
    #[test]
    fn the_secret_follows_the_system_randomness() {
        let (a, b) = (
            secret_from(&std::hash::RandomState::new()),
            secret_from(&std::hash::RandomState::new()),
        );
        assert_ne!(a.per_hasher, b.per_hasher);
        let name = "alice";
        let with = |s: &Secret| {
            let mut h = foldhash::fast::FoldHasher::with_seed(s.per_hasher, &s.shared);
            name.hash(&mut h);
            std::hash::Hasher::finish(&h)
        };
        assert_ne!(with(&a), with(&b));
        // Within one process the hash is one function.
        assert_eq!(hash_one(name), hash_one(&name.to_string()[..]));
        assert_eq!(hash_one(name), Seeded.hash_one(name));
    }
}
