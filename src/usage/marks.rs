//! Charged marks: per PBS accounting log, how far it was fully charged, so `usage record` of the
//! same or an appended log jumps straight past what was charged instead of parsing it again.
//!
//! A mark is kept in the store (`[[charged]]` in `usage.toml`), so it is committed in the same
//! atomic rename as the usage and the ledger length it goes with: it never claims more than the
//! ledger holds. A mark that does not match (another reader setting, a file shorter than the
//! mark, a different prefix) is ignored and the whole file is read; the ledger still charges each
//! job once. What is verified is documented in docs/usage.md ("Charged marks").

use serde::{Deserialize, Serialize};

/// How far one log file was charged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mark {
    /// The file's absolute path (canonical, as read).
    pub file: String,
    /// What the records were read with: `pbs ENTITY RESOURCE,...` (the fairshare entity and the
    /// resources the charge reads, which decide what is malformed); another setting re-reads.
    pub reader: String,
    /// Bytes from the start fully charged: every line before is complete, and each was charged,
    /// already charged, or not a charge (never malformed).
    pub offset: u64,
    /// [`prefix_check`] of the first `offset` bytes, 16 hex digits.
    pub check: String,
    /// Lines before `offset`.
    pub lines: u64,
    /// Finished jobs before `offset` (each in the ledger).
    pub jobs: u64,
    /// Of those, jobs whose charge failed to evaluate (charged 0).
    pub eval_errors: u64,
}

/// At most this many marks are kept (the most recently recorded files); an older file simply
/// has no mark and is read whole, its jobs found in the ledger.
pub const MAX_MARKS: usize = 4096;

/// Size of the blocks [`prefix_check`] hashes at the start and at the end of the prefix.
const EDGE_BLOCK: u64 = 64 << 10;
/// Size and count of the blocks sampled evenly in between.
const SAMPLE_BLOCK: u64 = 4 << 10;
const SAMPLES: u64 = 64;

/// A 64-bit FNV-1a hash of the prefix `bytes[..offset]` as sampled: its length, its first
/// 64 KiB, its last 64 KiB, and 64 blocks of 4 KiB starting at `i·offset/65` (i = 1..=64);
/// the whole prefix when it is at most 384 KiB. `None` when `offset` is past the end.
pub fn prefix_check(bytes: &[u8], offset: u64) -> Option<u64> {
    let prefix = bytes.get(..usize::try_from(offset).ok()?)?;
    let n = prefix.len() as u64;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: &[u8]| {
        for x in b {
            h ^= u64::from(*x);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(&n.to_le_bytes());
    if n <= 2 * EDGE_BLOCK + SAMPLES * SAMPLE_BLOCK {
        eat(prefix);
    } else {
        let block = |from: u64, len: u64| {
            let from = from.min(n) as usize;
            let to = (from as u64 + len).min(n) as usize;
            prefix.get(from..to).unwrap_or_default()
        };
        eat(block(0, EDGE_BLOCK));
        for i in 1..=SAMPLES {
            eat(block(i * (n / (SAMPLES + 1)), SAMPLE_BLOCK));
        }
        eat(block(n - EDGE_BLOCK, EDGE_BLOCK));
    }
    Some(h)
}

/// The mark's check as kept in the store.
pub(crate) fn check_text(h: u64) -> String {
    format!("{h:016x}")
}

impl Mark {
    /// Whether this mark still describes the start of `bytes` (same prefix as sampled).
    pub(crate) fn matches(&self, bytes: &[u8]) -> bool {
        prefix_check(bytes, self.offset).is_some_and(|h| check_text(h) == self.check)
    }

    /// The store's check of a mark: the first problem, with the field.
    pub(crate) fn check(&self) -> Result<(), (&'static str, String)> {
        if self.file.is_empty() || self.file.chars().any(char::is_control) {
            return Err((
                "file",
                "file must be a path without control characters".into(),
            ));
        }
        if self.reader.chars().any(char::is_control) {
            return Err(("reader", "reader holds a control character".into()));
        }
        if self.check.len() != 16 || !self.check.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(("check", "check must be 16 hex digits".into()));
        }
        if self.jobs > self.lines || self.eval_errors > self.jobs || self.lines > self.offset {
            return Err((
                "jobs",
                "counts must satisfy eval_errors <= jobs <= lines <= offset".into(),
            ));
        }
        Ok(())
    }
}

/// Replaces the mark of `mark.file` (read with the same reader or not) with `mark`, newest last,
/// keeping at most [`MAX_MARKS`].
pub(crate) fn set_mark(marks: &mut Vec<Mark>, mark: Mark) {
    marks.retain(|m| m.file != mark.file);
    marks.push(mark);
    if marks.len() > MAX_MARKS {
        let extra = marks.len() - MAX_MARKS;
        marks.drain(..extra);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_sees_length_edges_and_samples() {
        let text: Vec<u8> = (0..2_000_000u32).map(|i| (i % 251) as u8).collect();
        let base = prefix_check(&text, 1_500_000).unwrap();
        assert_eq!(prefix_check(&text, 1_500_000), Some(base));
        assert_ne!(prefix_check(&text, 1_499_999), Some(base));
        assert_eq!(prefix_check(&text, 2_000_001), None);
        for at in [0usize, 1_499_999, 1_500_000 / 65 * 3 + 7] {
            let mut t = text.clone();
            t[at] ^= 1;
            assert_ne!(prefix_check(&t, 1_500_000), Some(base), "{at}");
        }
        // past the prefix: not looked at
        let mut t = text.clone();
        t[1_600_000] ^= 1;
        assert_eq!(prefix_check(&t, 1_500_000), Some(base));
        // a small prefix is hashed whole
        let mut t = text.clone();
        t[100_000] ^= 1;
        assert_ne!(prefix_check(&t, 200_000), prefix_check(&text, 200_000));
    }
}
