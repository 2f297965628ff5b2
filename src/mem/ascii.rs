//! ASCII bytes as text in one inlined pass. The qstat scanner converts every string it keeps
//! (job ids, names, values; nearly all ASCII) to `&str`: `std::str::from_utf8`'s call per
//! string was 8 % of `fairsort order`'s samples on a million jobs and +0.15–0.2 s of its CPU,
//! the inlined ASCII test below nothing measurable (docs/perf.md, "The qstat reader").

/// `bytes` as text when every byte is ASCII (and so the text is UTF-8), else `None` (the caller
/// then checks the bytes with `std::str::from_utf8`). Checked here, inlined at the call.
#[inline(always)]
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if !is_ascii(bytes) {
        return None;
    }
    // SAFETY: every byte is below 0x80 (checked on the line above), and a sequence of ASCII
    // bytes is valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// Whether every byte of `b` is below 0x80: the high bits of its bytes gathered by OR, eight
/// bytes at a time (the last word, and a short text's two halves, read overlapping), inlined
/// where `<[u8]>::is_ascii` is a call (`is_ascii::runtime`: 29 M of 1,765 M instructions of a
/// 100 000-job `order`).
#[inline(always)]
fn is_ascii(b: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |w: &[u8; 8]| u64::from_ne_bytes(*w);
    let half = |w: &[u8; 4]| u64::from(u32::from_ne_bytes(*w));
    let all = if let Some(last) = b.last_chunk::<8>() {
        let (words, _) = b.as_chunks::<8>();
        words.iter().fold(word(last), |acc, w| acc | word(w))
    } else if let (Some(first), Some(last)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        half(first) | half(last)
    } else {
        b.iter().fold(0, |acc, &c| acc | u64::from(c))
    };
    all & HIGH == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ascii_str` gives `from_utf8`'s text for every ASCII string, and nothing for any other
    /// (UTF-8 or not), at every length and every place of the first non-ASCII byte.
    #[test]
    fn ascii_str_is_from_utf8_on_ascii_and_none_otherwise() {
        for len in 0..70 {
            let ascii: Vec<u8> = (0..len).map(|i| (i * 37 % 128) as u8).collect();
            assert_eq!(ascii_str(&ascii), std::str::from_utf8(&ascii).ok());
            for at in 0..len {
                for high in [0x80u8, 0xc3, 0xff] {
                    let mut other = ascii.clone();
                    other[at] = high;
                    assert_eq!(ascii_str(&other), None, "len {len} at {at}");
                }
            }
        }
        for b in 0..=255u8 {
            assert_eq!(ascii_str(&[b]).is_some(), b < 0x80);
            // Every byte value at every place of texts of every length up to three words.
            for len in 1..=24 {
                for at in 0..len {
                    let mut text = vec![b'a'; len];
                    text[at] = b;
                    assert_eq!(is_ascii(&text), text.is_ascii(), "{b} at {at} of {len}");
                }
            }
        }
        assert_eq!(ascii_str("caf\u{e9}".as_bytes()), None);
        assert_eq!(ascii_str(b"u42445"), Some("u42445"));
    }
}
