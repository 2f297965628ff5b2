//! The layout of the last job the qstat reader read, to be expected again: `qstat -f -F json`
//! prints every job's attributes in the same order with the same indentation, so the bytes
//! between one value and the next (`,` newline, spaces, `"Job_Owner":`) are, job after job,
//! the same bytes. Comparing them against the last job's — a few word compares whose outcome
//! the CPU predicts — replaces finding the whitespace's end, the key's closing quote and the
//! key's attribute one after the other, each step waiting on the one before.
//!
//! Bytes equal to bytes the scanner has read before read the same way again, so a match
//! decides nothing the scanner would not: a job that differs anywhere (another attribute, other
//! indentation, a longer key) is read on the general way from that attribute, and its layout
//! replaces the last one from there.

use super::qstat_keys::Field;

/// Longest separator remembered, in 8-byte words.
const WORDS: usize = 8;

/// The bytes from the end of one value (or a job's `{`) to the start of the next value, and
/// what the key among them names.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shape {
    /// The separator's bytes, zero padded, as little-endian words.
    words: [u64; WORDS],
    /// Which bits of `words` are the separator's.
    mask: [u64; WORDS],
    /// The separator's length in bytes.
    len: usize,
    /// The attribute the key names.
    pub(super) field: Field,
    /// For a skipped attribute whose value was a plain string: its length between the quotes.
    pub(super) plain: Option<usize>,
}

impl Shape {
    /// The shape of a separator; `None` when it is longer than remembered.
    fn new(sep: &[u8], field: Field) -> Option<Shape> {
        if sep.len() > WORDS * 8 {
            return None;
        }
        let mut bytes = [0u8; WORDS * 8];
        bytes[..sep.len()].copy_from_slice(sep);
        let mut words = [0u64; WORDS];
        let mut mask = [0u64; WORDS];
        for (i, (w, m)) in words.iter_mut().zip(&mut mask).enumerate() {
            let chunk = bytes[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]);
            *w = u64::from_le_bytes(chunk);
            let have = sep.len().saturating_sub(i * 8).min(8);
            *m = if have == 8 {
                !0
            } else {
                (1u64 << (8 * have)) - 1
            };
        }
        Some(Shape {
            words,
            mask,
            len: sep.len(),
            field,
            plain: None,
        })
    }

    /// Whether `text` at `pos` starts with this separator (false within 64 bytes of its end).
    #[inline(always)]
    fn starts(&self, text: &[u8], pos: usize) -> bool {
        let Some(window) = text
            .get(pos..)
            .and_then(<[u8]>::first_chunk::<{ WORDS * 8 }>)
        else {
            return false;
        };
        let mut diff = 0u64;
        for i in 0..WORDS {
            let mut word = [0u8; 8];
            word.copy_from_slice(&window[i * 8..i * 8 + 8]);
            diff |= (u64::from_le_bytes(word) ^ self.words[i]) & self.mask[i];
        }
        diff == 0
    }
}

/// The last job's attributes in order, as [`Shape`]s.
#[derive(Debug, Default)]
pub(super) struct Shapes {
    shapes: Vec<Shape>,
}

impl Shapes {
    /// Whether a layout is remembered.
    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Number of attributes remembered.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.shapes.len()
    }

    /// The `k`th attribute's shape when `text` at `pos` starts with its separator.
    #[inline(always)]
    pub(super) fn at(&self, k: usize, text: &[u8], pos: usize) -> Option<&Shape> {
        self.shapes.get(k).filter(|s| s.starts(text, pos))
    }

    /// The separator's length of the `k`th attribute (0 past the end).
    #[inline(always)]
    pub(super) fn sep_len(&self, k: usize) -> usize {
        self.shapes.get(k).map_or(0, |s| s.len)
    }

    /// Forgets the attributes from the `k`th on (the current job differs there).
    pub(super) fn truncate(&mut self, k: usize) {
        self.shapes.truncate(k);
    }

    /// Remembers the next attribute of the current job: `sep` its separator, `field` what its
    /// key names. A separator too long to remember ends the layout there (the attributes after
    /// it are read the general way, job after job).
    pub(super) fn push(&mut self, sep: &[u8], field: Field) -> bool {
        match Shape::new(sep, field) {
            Some(shape) => {
                self.shapes.push(shape);
                true
            }
            None => false,
        }
    }

    /// The plain-string length expected for the `k`th attribute's value.
    #[inline(always)]
    pub(super) fn plain(&self, k: usize) -> Option<usize> {
        self.shapes.get(k).and_then(|s| s.plain)
    }

    /// Remembers the `k`th attribute's value length (`None`: not a plain string).
    #[inline(always)]
    pub(super) fn set_plain(&mut self, k: usize, plain: Option<usize>) {
        if let Some(s) = self.shapes.get_mut(k) {
            s.plain = plain;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_separator_matches_only_its_own_bytes() {
        let sep = b",\n            \"Job_Owner\":";
        let shape = Shape::new(sep, Field::Owner).unwrap();
        let mut text = sep.to_vec();
        text.extend_from_slice(
            b"\"u1@h\",\n            \"job_state\":\"Q\" and some more bytes after",
        );
        text.extend(std::iter::repeat_n(b' ', 64));
        assert!(shape.starts(&text, 0));
        assert!(!shape.starts(&text, 1));
        for i in 0..sep.len() {
            let mut other = text.clone();
            other[i] ^= 0x20;
            assert!(!shape.starts(&other, 0), "byte {i}");
        }
        // Within 64 bytes of the end nothing matches (the general way reads it).
        assert!(!shape.starts(&text[..sep.len() + 10], 0));
        // Exactly 64 bytes is remembered; 65 is not.
        assert!(Shape::new(&[b' '; 64], Field::Other).is_some());
        assert!(Shape::new(&[b' '; 65], Field::Other).is_none());
        let long = Shape::new(&[b' '; 64], Field::Other).unwrap();
        assert!(long.starts(&[b' '; 64], 0));
        let mut almost = [b' '; 64];
        almost[63] = b'x';
        assert!(!long.starts(&almost, 0));
    }
}
