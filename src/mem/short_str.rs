//! A string of at most `N` bytes held in place, without a heap block (a short job id, a user
//! name kept for the next batch of a reader): a million jobs' ids were a million 32-byte
//! allocations, each touched fresh.
//!
//! Its text is handed out without a second UTF-8 check: the bytes are private to this module
//! and only [`ShortStr::new`] writes them, copying a whole `&str`, so they are always valid
//! UTF-8 (the `as_str` unit test below checks it on every kind of character and every cut).
//! The check it saves ran about 125 instructions per call, 3 % of a 100 000-job `order`
//! (callgrind; job ids are printed, compared and hashed, and pending names interned, from it).

/// At most `N` bytes of text held in place (`N` below 256: the length is one byte).
#[derive(Clone, Copy)]
pub struct ShortStr<const N: usize> {
    len: u8,
    bytes: [u8; N],
}

impl<const N: usize> ShortStr<N> {
    /// The length fits its byte.
    const FITS: () = assert!(N < 256);

    /// `s` held in place, or `None` when it is longer than `N` bytes.
    #[inline]
    pub fn new(s: &str) -> Option<ShortStr<N>> {
        let () = Self::FITS;
        let len = s.len();
        let mut bytes = [0u8; N];
        bytes.get_mut(..len)?.copy_from_slice(s.as_bytes());
        Some(ShortStr {
            len: len as u8,
            bytes,
        })
    }

    /// The string's bytes (compared and sorted as they are: byte order is `str`'s order).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// The string.
    #[inline]
    pub fn as_str(&self) -> &str {
        let b = self.as_bytes();
        debug_assert!(std::str::from_utf8(b).is_ok());
        // SAFETY: `len` and `bytes` are private to this module and written only by `new`,
        // which copied exactly the `len` bytes of a `str`: valid UTF-8, cut at its end.
        unsafe { std::str::from_utf8_unchecked(b) }
    }
}

impl<const N: usize> std::fmt::Debug for ShortStr<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every string of up to `N` bytes comes back as it went in, one-, two-, three- and
    /// four-byte characters at every offset included; a longer one is refused, never cut
    /// (a cut could split a character).
    #[test]
    fn as_str_gives_back_exactly_the_text_given() {
        let chars = ['a', 'é', '中', '𝄞', '\0', '\u{7f}', '\u{80}', '\u{ffff}'];
        for len in 0..=12 {
            for start in 0..chars.len() {
                let s: String = (0..len).map(|i| chars[(start + i) % chars.len()]).collect();
                match ShortStr::<22>::new(&s) {
                    Some(short) => {
                        assert!(s.len() <= 22);
                        assert_eq!(short.as_str(), s);
                        assert_eq!(short.as_bytes(), s.as_bytes());
                        assert_eq!(std::str::from_utf8(short.as_bytes()), Ok(s.as_str()));
                    }
                    None => assert!(s.len() > 22, "{s:?}"),
                }
            }
        }
        assert!(ShortStr::<3>::new("中").is_some());
        assert!(ShortStr::<3>::new("中a").is_none());
        assert_eq!(ShortStr::<0>::new("").map(|s| s.len), Some(0));
    }
}
