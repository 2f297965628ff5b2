//! ASCII bytes as text in one inlined pass. The qstat scanner converts every string it keeps
//! (job ids, names, values; nearly all ASCII) to `&str`: `std::str::from_utf8`'s call per
//! string was 8 % of `fairsort order`'s samples on a million jobs and +0.15–0.2 s of its CPU,
//! the inlined ASCII test below nothing measurable (docs/perf.md, "The qstat reader").

/// `bytes` as text when every byte is ASCII (and so the text is UTF-8), else `None` (the caller
/// then checks the bytes with `std::str::from_utf8`). Checked here byte for byte, inlined at
/// the call.
#[inline(always)]
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if !bytes.is_ascii() {
        return None;
    }
    // SAFETY: every byte is below 0x80 (checked on the line above), and a sequence of ASCII
    // bytes is valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
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
        }
        assert_eq!(ascii_str("caf\u{e9}".as_bytes()), None);
        assert_eq!(ascii_str(b"u42445"), Some("u42445"));
    }
}
