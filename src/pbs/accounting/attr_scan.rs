//! The `key=value` attributes of a PBS `E` record's message, split from bit masks of its spaces,
//! `=` and `"` made in one vectorised pass (`mem::byte_masks`; finding each key's `=` byte by
//! byte was most of the record parser's time). The splitting rules are those of the byte-by-byte
//! reader (the tests compare both).

use crate::mem::byte_masks::{Class, Classes, Kernel};

/// Bit masks of a message: bit `i` of word `w` is byte `64·w + i`; bytes past the message's
/// end are none of the three. Reused from message to message.
#[derive(Debug, Default)]
pub(crate) struct Masks {
    /// Per 64 bytes: spaces, `=`, `"`.
    words: Vec<[u64; 3]>,
    /// The CPU's widest kernel (`mem::byte_masks`).
    kernel: Kernel,
}

const SPACE: usize = 0;
const EQUALS: usize = 1;
const QUOTE: usize = 2;

/// The classes of [`SPACE`], [`EQUALS`] and [`QUOTE`], in that order.
struct Attrs;

impl Classes for Attrs {
    const CLASSES: [Class; 3] = [Class::of(b" "), Class::of(b"="), Class::of(b"\"")];
}

impl Masks {
    /// The masks of `msg`.
    fn fill(&mut self, msg: &[u8]) {
        // Every word is written by `fill`; the block holding the end is padded with zero bytes,
        // which are none of the three.
        self.words.resize(msg.len().div_ceil(64), [0; 3]);
        self.kernel.fill::<Attrs>(msg, 0, &mut self.words);
    }

    /// The first byte at or after `from` whose bit of `kind` is `set` (padding included when
    /// looking for clear bits), or `None`.
    fn next(&self, kind: usize, set: bool, from: usize) -> Option<usize> {
        let flip = if set { 0 } else { u64::MAX };
        let mut w = from / 64;
        let mut bits = (self.words.get(w)?[kind] ^ flip) & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
            w += 1;
            bits = self.words.get(w)?[kind] ^ flip;
        }
    }
}

/// Calls `f` with each `key=value` or `key="quoted value"` of an `E` record's message, in
/// order: attributes are separated by spaces; a quoted value runs to the next `"` (spaces
/// included) and the next attribute may follow it directly. The first complaint (an attribute
/// without `=`, an unterminated quote, or `f`'s) ends it. `masks` is scratch space.
pub(crate) fn for_each_attr<'a>(
    msg: &'a [u8],
    masks: &mut Masks,
    mut f: impl FnMut(&'a [u8], &'a [u8]) -> Result<(), String>,
) -> Result<(), String> {
    masks.fill(msg);
    let len = msg.len();
    let mut from = 0usize;
    loop {
        // skip separators (past the end: done)
        from = match masks.next(SPACE, false, from) {
            Some(p) if p < len => p,
            _ => return Ok(()),
        };
        let end = masks.next(SPACE, true, from).unwrap_or(len);
        let Some(eq) = masks.next(EQUALS, true, from).filter(|e| *e < end) else {
            return Err(format!(
                "attribute `{}` has no value",
                String::from_utf8_lossy(msg.get(from..end).unwrap_or_default())
            ));
        };
        let key = msg.get(from..eq).unwrap_or_default();
        let at = eq + 1;
        let value = if msg.get(at) == Some(&b'"') {
            let close = masks.next(QUOTE, true, at + 1).ok_or_else(|| {
                format!("unterminated quote in `{}`", String::from_utf8_lossy(key))
            })?;
            from = (close + 1).min(len);
            msg.get(at + 1..close).unwrap_or_default()
        } else {
            from = end;
            msg.get(at..end).unwrap_or_default()
        };
        f(key, value)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The attribute splitting as it was first written (byte by byte), to compare with.
    type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

    fn reference(msg: &[u8]) -> Result<Pairs, String> {
        let mut out = Vec::new();
        let mut rest = msg;
        while !rest.is_empty() {
            let start = rest.iter().position(|c| *c != b' ').unwrap_or(rest.len());
            rest = &rest[start..];
            if rest.is_empty() {
                break;
            }
            let eq = rest.iter().position(|c| *c == b'=' || *c == b' ');
            let Some(eq) = eq.filter(|i| rest[*i] == b'=') else {
                let end = rest.iter().position(|c| *c == b' ').unwrap_or(rest.len());
                return Err(format!(
                    "attribute `{}` has no value",
                    String::from_utf8_lossy(&rest[..end])
                ));
            };
            let key = &rest[..eq];
            let after = &rest[eq + 1..];
            let (value, next) = if after.first() == Some(&b'"') {
                let close = after[1..].iter().position(|c| *c == b'"').ok_or_else(|| {
                    format!("unterminated quote in `{}`", String::from_utf8_lossy(key))
                })?;
                (&after[1..1 + close], &after[(close + 2).min(after.len())..])
            } else {
                let end = after.iter().position(|c| *c == b' ').unwrap_or(after.len());
                (&after[..end], &after[end..])
            };
            rest = next;
            out.push((key.to_vec(), value.to_vec()));
        }
        Ok(out)
    }

    fn split(msg: &[u8], masks: &mut Masks) -> Result<Pairs, String> {
        let mut got = Vec::new();
        for_each_attr(msg, masks, |k, v| {
            got.push((k.to_vec(), v.to_vec()));
            Ok(())
        })?;
        Ok(got)
    }

    /// The bytes of [`SPACE`], [`EQUALS`] and [`QUOTE`].
    const WANTED: [u8; 3] = [b' ', b'=', b'"'];

    /// The masks are the byte-by-byte ones, for every byte value at every position (neighbours
    /// of every value too: a carry between bytes would show), and over a partial last block.
    #[test]
    fn the_masks_are_the_bytes_that_equal_each_wanted_byte() {
        let mut msg = Vec::new();
        for shift in 0..64usize {
            msg.extend((0..64).map(|i| ((i * 4 + shift * 37) % 256) as u8));
        }
        for v in 0..=255u8 {
            for pos in 0..64 {
                let mut block = [v.wrapping_add(1); 64];
                block[pos] = v;
                msg.extend_from_slice(&block);
            }
        }
        msg.extend_from_slice(b"a= \"b");
        let mut masks = Masks::default();
        masks.fill(&msg);
        assert_eq!(masks.words.len(), msg.len().div_ceil(64));
        for (w, got) in masks.words.iter().enumerate() {
            let mut want = [0u64; 3];
            for (i, c) in msg.iter().skip(64 * w).take(64).enumerate() {
                for (k, wanted) in WANTED.iter().enumerate() {
                    want[k] |= u64::from(c == wanted) << i;
                }
            }
            assert_eq!(*got, want, "block {w}");
        }
        masks.fill(b"x=1");
        assert_eq!(masks.words, [[0, 2, 0]]);
        masks.fill(b"");
        assert!(masks.words.is_empty());
    }

    #[test]
    fn a_real_message_and_its_complaints() {
        let mut m = Masks::default();
        let msg = br#"user=u1 group=g  jobname="my job"queue=workq Resource_List.select=1:ncpus=16 end=17"#;
        let got = split(msg, &mut m).unwrap();
        let keys: Vec<&[u8]> = got.iter().map(|(k, _)| k.as_slice()).collect();
        assert_eq!(
            keys,
            [
                &b"user"[..],
                b"group",
                b"jobname",
                b"queue",
                b"Resource_List.select",
                b"end"
            ]
        );
        assert_eq!(got[2].1, b"my job");
        assert_eq!(got[4].1, b"1:ncpus=16");
        assert_eq!(split(msg, &mut m), reference(msg));
        let long = format!("{} novalue", "k=v ".repeat(40));
        assert_eq!(
            split(long.as_bytes(), &mut m),
            Err("attribute `novalue` has no value".into())
        );
        let open = format!("{}x=\"{}", "k=v ".repeat(20), "y ".repeat(50));
        assert_eq!(
            split(open.as_bytes(), &mut m),
            Err("unterminated quote in `x`".into())
        );
        assert_eq!(split(b"", &mut m), Ok(vec![]));
        assert_eq!(split(b"   ", &mut m), Ok(vec![]));
    }

    proptest::proptest! {
        /// Short and long messages (masks of several words, runs across word boundaries), the
        /// masks reused from one message to the next.
        #[test]
        fn splits_as_byte_by_byte(
            msgs in proptest::collection::vec("[ab= \"]{0,40}|[ab= \"x]{60,300}", 1..4)
        ) {
            let mut m = Masks::default();
            for msg in &msgs {
                proptest::prop_assert_eq!(split(msg.as_bytes(), &mut m), reference(msg.as_bytes()));
            }
        }
    }
}
