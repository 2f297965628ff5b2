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

use crate::pbs::qstat::keys::Field;
use crate::pbs::qstat::scan::Scan;

/// Longest separator remembered, in 8-byte words.
const WORDS: usize = 8;

/// The bytes from the end of one value (or a job's `{`) to the start of the next value, and
/// what the key among them names.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// The separator's bytes, zero padded, as little-endian words.
    words: [u64; WORDS],
    /// Which bits of `words` are the separator's.
    mask: [u64; WORDS],
    /// The separator's length in bytes.
    len: usize,
    /// The attribute the key names.
    field: Field,
    /// For a skipped attribute whose value was a plain string: its length between the quotes.
    plain: Option<usize>,
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

/// The last job's attributes in order, as [`Shape`]s (or an object's members).
#[derive(Debug, Default)]
pub(super) struct Shapes {
    shapes: Vec<Shape>,
    /// For a skipped attribute whose value is an object (`Variable_List`): its members' shapes
    /// the last time, by the attribute's place. Only ever a guess, checked as it is used.
    objects: Vec<Shapes>,
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

    /// While `follow`ing: steps `s` over the `k`th separator when the text there is that
    /// separator, and gives what its key names. Otherwise (or not following) gives `None`,
    /// with `follow` off and the layout from `k` on forgotten: the caller reads on the general
    /// way.
    #[inline(always)]
    pub(super) fn step(&mut self, k: usize, s: &mut Scan, follow: &mut bool) -> Option<Field> {
        if *follow {
            let from = s.pos();
            if let Some(shape) = self.shapes.get(k).filter(|x| x.starts(s.text(), from)) {
                s.jump(from + shape.len);
                return Some(shape.field);
            }
            *follow = false;
            self.shapes.truncate(k);
        }
        None
    }

    /// Remembers the next attribute of the current job: `sep` its separator, `field` what its
    /// key names. A separator too long to remember ends the layout there (the attributes after
    /// it are read the general way, job after job).
    pub(super) fn push(&mut self, sep: &[u8], field: Field) {
        self.shapes.extend(Shape::new(sep, field));
    }

    /// The plain-string length expected for the `k`th attribute's value.
    #[inline(always)]
    pub(super) fn plain(&self, k: usize) -> Option<usize> {
        self.shapes.get(k).and_then(|s| s.plain)
    }

    /// The member shapes of the `k`th attribute's object value.
    pub(super) fn object(&mut self, k: usize) -> &mut Shapes {
        if self.objects.len() <= k {
            self.objects.resize_with(k + 1, Shapes::default);
        }
        &mut self.objects[k]
    }

    /// Remembers the `k`th attribute's value length (`None`: not a plain string).
    #[inline(always)]
    pub(super) fn set_plain(&mut self, k: usize, plain: Option<usize>) {
        if let Some(s) = self.shapes.get_mut(k) {
            s.plain = plain;
        }
    }
}

/// The general way from the end of an object's `k`th member (or its `{`) to the next: true at
/// the next member's key, false past the object's `}`, `None` when neither follows.
#[inline]
pub(super) fn open_member(s: &mut Scan, k: usize) -> Option<bool> {
    if k == 0 {
        s.ws();
        return Some(s.eat(b'}').is_none());
    }
    s.next_or_close(b'}')
}

/// After the last member a layout knows: true past the object's `}` when it ends here; false,
/// the cursor not moved, when another member follows (to be read the general way).
#[inline]
pub(super) fn closes_here(s: &mut Scan) -> Option<bool> {
    let at = s.pos();
    let more = s.next_or_close(b'}')?;
    if more {
        s.jump(at);
    }
    Some(!more)
}

/// Skips an object whose members are all plain strings with plain keys (the cursor on its
/// `{`), as `Scan::skip_value` would, following the members' shapes of the last such object
/// (`members`, updated from the first difference on), and returns true; false, the cursor not
/// moved, for any other object (the caller then skips it the general way).
pub(super) fn skip_flat_object(s: &mut Scan, members: &mut Shapes) -> bool {
    let start = s.pos();
    let text = s.text();
    if s.eat(b'{').is_none() {
        return false;
    }
    let mut follow = !members.is_empty();
    let mut k = 0;
    loop {
        let from = s.pos();
        if members.step(k, s, &mut follow).is_none() {
            match open_member(s, k) {
                Some(true) => {}
                Some(false) => return true,
                None => break,
            }
            if s.plain_string_len().is_none() || s.ws_eat(b':').is_none() {
                break;
            }
            s.ws();
            if members.len() == k {
                let Some(sep) = text.get(from..s.pos()) else {
                    break;
                };
                members.push(sep, Field::Other);
            }
        }
        match members.plain(k) {
            Some(len) if s.skip_plain_of(len) => {}
            _ => match s.plain_string_len() {
                Some(len) => members.set_plain(k, Some(len)),
                None => break,
            },
        }
        k += 1;
        if follow && k == members.len() {
            match closes_here(s) {
                Some(true) => return true,
                Some(false) => follow = false,
                None => break,
            }
        }
    }
    s.jump(start);
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Objects read one after another with the same member shapes: each is skipped exactly
    /// when it is flat (every member a plain string with a plain key), to where the general
    /// skip ends, and otherwise left where it was — however it differs from the last one.
    #[test]
    fn flat_objects_are_skipped_as_the_general_skip_skips_them() {
        let keys = [
            "PBS_O_HOME",
            "PBS_O_LOGNAME",
            "PBS_O_PATH",
            "A",
            "PBS_O_WORKDIR",
        ];
        let values = [
            "\"/home/u1\"",
            "\"u1\"",
            "\"/usr/bin:/bin\"",
            "\"\"",
            "\"/home/u1/run\"",
        ];
        let mut members = Shapes::default();
        for n in 0..400usize {
            let pad = if n % 37 == 5 {
                "\n  "
            } else {
                "\n                "
            };
            let mut items: Vec<(String, bool)> = (keys.iter().zip(values))
                .map(|(k, v)| (format!("{pad}\"{k}\":{v}"), true))
                .collect();
            let i = n % keys.len();
            let mut valid = true;
            match n % 11 {
                0 => items[i].0 = items[i].0.replace("u1", &"u".repeat(n % 9)),
                1 => items[i] = (format!("{pad}\"{}\":\"a\\\"b\"", keys[i]), false),
                2 => items[i] = (format!("{pad}\"{}\":42", keys[i]), false),
                3 => drop(items.remove(i)),
                4 => items.push((format!("{pad}\"EXTRA\":\"x\""), true)),
                5 => items.truncate(0),
                6 => {
                    items[i] = (format!("{pad}\"{}\" \"x\"", keys[i]), false);
                    valid = false;
                }
                7 => items[i] = (format!("{pad}\"k\\u0041\":\"x\""), false),
                _ => {}
            }
            let flat = valid && items.iter().all(|(_, plain)| *plain);
            let body: Vec<&str> = items.iter().map(|(t, _)| t.as_str()).collect();
            let text = format!(
                "{{{}\n            }},\"next\":1{}",
                body.join(","),
                " ".repeat(64)
            );
            let mut shaped = Scan::new(text.as_bytes(), 0);
            let skipped = skip_flat_object(&mut shaped, &mut members);
            assert_eq!(skipped, flat, "object {n}: {text}");
            let mut general = Scan::new(text.as_bytes(), 0);
            let general_ok = general.skip_value().is_some();
            assert_eq!(general_ok, valid, "object {n}");
            if skipped {
                assert_eq!(shaped.pos(), general.pos(), "object {n}");
            } else {
                assert_eq!(shaped.pos(), 0, "object {n}");
            }
        }
    }

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
