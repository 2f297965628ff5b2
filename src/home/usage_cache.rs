//! `usage.bin`: a binary copy of the home's usage store `usage.toml` as checked, so a command
//! that loads the store (a re-record of an already-charged log, `usage show`) does not parse
//! megabytes of TOML each run (docs/usage.md, "The binary copy of the store").
//!
//! It is never trusted over the text. Its key is a BLAKE3 hash of the exact bytes of `usage.toml`
//! (and of fairsort's version and this layout's version): a reader hashes the text it has just
//! read and uses the copy only when the keys are equal. The file is also checked whole: magic,
//! layout version, length, a BLAKE3 checksum of header and payload, every count bounded by the
//! bytes left, nothing left over; and the decoded store passes the same checks as a parsed one
//! ([`UsageStore::check`]). Anything else is a miss: the text is parsed as before.
//!
//! It is written only under the writers' lock: with each committed store (from the store that
//! was rendered into the text, which reads back as the same values bit for bit), and after a
//! miss. A crash between the two renames leaves a copy whose key no longer matches.
//!
//! Layout (little-endian): `MAGIC` (8 bytes), layout version (u32), payload length (u64), key
//! (32 bytes), payload, BLAKE3 of everything before it (32 bytes). Strings are a u32 length and
//! UTF-8 bytes; options a 0/1 byte then the value; floats their IEEE bits.

use crate::usage::decay::ModelKind;
use crate::usage::marks::Mark;
use crate::usage::{Entry, UsageSettings, UsageStore};

/// The file's name in the home.
pub const FILE: &str = "usage.bin";

const MAGIC: &[u8; 8] = b"FSUSAGE\n";
/// Bump when the payload's layout or the meaning of what is cached changes.
const LAYOUT: u32 = 1;
const HEADER: usize = 8 + 4 + 8 + 32;
const CHECKSUM: usize = 32;

/// What the copy is keyed by.
pub type Key = [u8; 32];

/// The key of the exact text of `usage.toml`.
pub fn key(text: &[u8]) -> Key {
    let mut h = blake3::Hasher::new();
    h.update(b"fairsort usage store copy\0");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&LAYOUT.to_le_bytes());
    h.update(&(text.len() as u64).to_le_bytes());
    h.update(text);
    *h.finalize().as_bytes()
}

/// The file's bytes for `store` under `key`.
pub fn encode(key: &Key, store: &UsageStore) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(256 + store.entries.len() * 32));
    w.0.extend_from_slice(MAGIC);
    w.0.extend_from_slice(&LAYOUT.to_le_bytes());
    w.0.extend_from_slice(&0u64.to_le_bytes());
    w.0.extend_from_slice(key);
    w.u32(store.version);
    w.opt(store.last_decay, |w, t| w.u64(t as u64));
    w.u64(store.ledger_bytes);
    let s = &store.settings;
    w.u8(match s.model {
        ModelKind::Pbs => 0,
        ModelKind::Slurm => 1,
        ModelKind::Flux => 2,
        ModelKind::HalfLife => 3,
    });
    w.u64(s.decay_time as u64);
    w.f64(s.decay_factor);
    w.u64(s.half_life as u64);
    w.u64(s.calc_period as u64);
    w.str(&s.reset);
    w.u64(s.usage_reset_period as u64);
    w.u64(store.entries.len() as u64);
    for e in &store.entries {
        w.str(&e.name);
        w.opt(e.account.as_deref(), |w, a| w.str(a));
        w.f64(e.usage);
        w.u64(e.bins.len() as u64);
        for b in &e.bins {
            w.f64(*b);
        }
    }
    w.u64(store.marks.len() as u64);
    for m in &store.marks {
        w.str(&m.file);
        w.str(&m.reader);
        w.u64(m.offset);
        w.str(&m.check);
        w.u64(m.lines);
        w.u64(m.jobs);
        w.u64(m.eval_errors);
    }
    let payload = (w.0.len() - HEADER) as u64;
    w.0[12..20].copy_from_slice(&payload.to_le_bytes());
    let sum = blake3::hash(&w.0);
    w.0.extend_from_slice(sum.as_bytes());
    w.0
}

/// The store in `bytes` if they are a whole, valid copy made for `key`, and the store passes
/// [`UsageStore::check`]; `None` for anything else (then the text is parsed).
pub fn decode(bytes: &[u8], key: &Key) -> Option<UsageStore> {
    if bytes.len() < HEADER + CHECKSUM || bytes.get(..8)? != MAGIC {
        return None;
    }
    let layout = u32::from_le_bytes(bytes.get(8..12)?.try_into().ok()?);
    let payload = u64::from_le_bytes(bytes.get(12..20)?.try_into().ok()?);
    if layout != LAYOUT || bytes.get(20..HEADER)? != key {
        return None;
    }
    let end = HEADER.checked_add(usize::try_from(payload).ok()?)?;
    if end.checked_add(CHECKSUM)? != bytes.len() {
        return None;
    }
    if blake3::hash(bytes.get(..end)?).as_bytes() != bytes.get(end..)? {
        return None;
    }
    let mut r = Reader {
        b: bytes.get(HEADER..end)?,
    };
    let version = r.u32()?;
    let last_decay = r.opt(|r| r.i64())?;
    let ledger_bytes = r.u64()?;
    let model = match r.u8()? {
        0 => ModelKind::Pbs,
        1 => ModelKind::Slurm,
        2 => ModelKind::Flux,
        3 => ModelKind::HalfLife,
        _ => return None,
    };
    let settings = UsageSettings {
        model,
        decay_time: r.i64()?,
        decay_factor: r.f64()?,
        half_life: r.i64()?,
        calc_period: r.i64()?,
        reset: r.str()?,
        usage_reset_period: r.i64()?,
    };
    // Each entry takes at least 4 + 1 + 8 + 8 bytes, each mark more than 7 × 4.
    let n = r.count(21)?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.str()?;
        let account = r.opt(|r| r.str())?;
        let usage = r.f64()?;
        let nb = r.count(8)?;
        let mut bins = Vec::with_capacity(nb);
        for _ in 0..nb {
            bins.push(r.f64()?);
        }
        entries.push(Entry {
            name,
            account,
            usage,
            bins,
        });
    }
    let n = r.count(28)?;
    let mut marks = Vec::with_capacity(n);
    for _ in 0..n {
        marks.push(Mark {
            file: r.str()?,
            reader: r.str()?,
            offset: r.u64()?,
            check: r.str()?,
            lines: r.u64()?,
            jobs: r.u64()?,
            eval_errors: r.u64()?,
        });
    }
    if !r.b.is_empty() {
        return None;
    }
    let store = UsageStore {
        version,
        last_decay,
        ledger_bytes,
        settings,
        entries,
        marks,
    };
    store.check().ok()?;
    Some(store)
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn str(&mut self, s: &str) {
        self.u32(u32::try_from(s.len()).unwrap_or(u32::MAX));
        self.0.extend_from_slice(s.as_bytes());
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

struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.b.len() {
            return None;
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(self.u64()? as i64)
    }
    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_bits(self.u64()?))
    }
    fn str(&mut self) -> Option<String> {
        let n = usize::try_from(self.u32()?).ok()?;
        let b = self.take(n)?;
        std::str::from_utf8(b).ok().map(str::to_string)
    }
    fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(f(self)?)),
            _ => None,
        }
    }
    /// A count of items of at least `min` bytes each, bounded by the bytes left.
    fn count(&mut self, min: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n <= self.b.len() / min).then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::{FinishedJob, Ledger, Usage};
    use std::path::Path;

    fn store() -> UsageStore {
        let mut u = Usage::from_store(UsageStore::default());
        let mut l = Ledger::default();
        for (i, name) in ["alice", "bob", "carol", "d:e", "ünïcode"]
            .iter()
            .enumerate()
        {
            u.charge(
                &mut l,
                &FinishedJob::pbs(format!("{i}.s"), 100 + i as i64, *name, 0.1 * i as f64),
            );
        }
        u.set(None, "zero", -0.0).unwrap();
        u.set(Some("acct"), "u", 1e300).unwrap();
        u.last_decay = Some(1_700_000_000);
        u.ledger_bytes = 12345;
        let mut s = u.to_store();
        s.settings.reset = "WEEKLY".into();
        s.marks.push(Mark {
            file: "/var/spool/pbs/server_priv/accounting/20240413".into(),
            reader: "pbs euser cput".into(),
            offset: 1000,
            check: "0123456789abcdef".into(),
            lines: 10,
            jobs: 3,
            eval_errors: 1,
        });
        s
    }

    fn bits(s: &UsageStore) -> Vec<(Option<String>, String, u64, Vec<u64>)> {
        s.entries
            .iter()
            .map(|e| {
                (
                    e.account.clone(),
                    e.name.clone(),
                    e.usage.to_bits(),
                    e.bins.iter().map(|b| b.to_bits()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn the_copy_is_what_parsing_the_text_gives_bit_for_bit() {
        let s = store();
        let text = s.render(Path::new("usage.toml")).unwrap();
        let parsed = UsageStore::parse(&text, Path::new("usage.toml")).unwrap();
        let k = key(text.as_bytes());
        let back = decode(&encode(&k, &s), &k).unwrap();
        assert_eq!(back, parsed);
        assert_eq!(bits(&back), bits(&parsed));
        assert!(bits(&back).iter().any(|e| e.2 == (-0.0f64).to_bits()));
    }

    #[test]
    fn anything_but_a_whole_copy_for_this_text_is_a_miss() {
        let s = store();
        let k = key(b"text");
        let bytes = encode(&k, &s);
        assert!(decode(&bytes, &k).is_some());
        assert!(decode(&bytes, &key(b"text ")).is_none());
        for cut in [0, 7, HEADER, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], &k).is_none(), "{cut}");
        }
        for at in [0, 9, 13, HEADER + 3, bytes.len() / 2, bytes.len() - 1] {
            let mut b = bytes.clone();
            b[at] ^= 0x40;
            assert!(decode(&b, &k).is_none(), "{at}");
        }
        // a copy whose store fails the store's checks (made by hand, checksum right) is a miss
        let mut bad = s.clone();
        bad.entries[0].usage = -1.0;
        assert!(decode(&encode(&k, &bad), &k).is_none());
    }
}
