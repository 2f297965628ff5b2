//! A strict JSON scanner over bytes in memory, for the fast path of the `qstat -f -F json`
//! reader: eight bytes at a time through whitespace and strings.
//!
//! Why not serde_json alone: `qstat -f -F json` indents every line (38 % of a real file's bytes
//! are spaces), and serde_json steps through whitespace one byte at a time and pays a visitor
//! call per token — 36 000 instructions per 1.6 KB job, 2 s of CPU for a million jobs. sonic-rs
//! and simd-json were measured on the same jobs and were slower still (docs/order.md). This
//! scanner does the little the qstat reader needs (skip whitespace, read or skip a string,
//! number or literal, skip any value), and is *stricter* than serde_json: whatever it is unsure
//! of — a lone surrogate, a number out of range, nesting deeper than [`MAX_DEPTH`] — it refuses
//! (`None`), and the caller re-reads the text with serde_json for the exact answer and message.
//! So every text is read either by serde_json or as serde_json would read it; the differential
//! tests in `qstat_split` and the `jobs` fuzz target compare the two readers.

use super::raw::Raw;
use std::borrow::Cow;

/// Deepest nesting a skipped value may have; deeper values are left to serde_json.
pub(super) const MAX_DEPTH: usize = 64;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bytes of `w` that are below `n` (n ≤ 128), flagged in their high bit. Only the lowest flag
/// is exact (a borrow may flag bytes above it), which is all a scan for the first one needs.
#[inline]
fn below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(n)) & !w & HIGHS
}

/// Bytes of `w` equal to `b`, flagged in their high bit (lowest flag exact, as [`below`]).
#[inline]
fn equal(w: u64, b: u8) -> u64 {
    below(w ^ (ONES * u64::from(b)), 1)
}

/// Sixteen bytes at a time with SSE2 (part of every x86-64 CPU, so no run-time detection):
/// twice the stride of the eight-byte words above, with exact flags for every byte.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// Bit `i` set when byte `i` of `chunk` is `"`, a backslash or a control byte (below 0x20).
    #[inline]
    pub(super) fn string_stops(chunk: &[u8; 16]) -> u32 {
        // SAFETY: SSE2 is part of the x86-64 baseline (every x86-64 CPU has it, and the
        // target enables it); `chunk` is 16 readable bytes and the load is unaligned.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            // Unsigned `v < 0x20` is `min(v, 0x1f) == v`.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
        }
    }
}

/// A cursor over JSON text. Every method either consumes exactly one JSON token (or value) and
/// returns `Some`, or returns `None` for anything it will not vouch for.
pub(super) struct Scan<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Scan<'a> {
    /// A scanner at `pos` of `bytes`.
    pub(super) fn new(bytes: &'a [u8], pos: usize) -> Scan<'a> {
        Scan { bytes, pos }
    }

    /// The position of the next byte.
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// The next byte, not consumed.
    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The eight bytes at `at` as a little-endian word, if there are eight.
    #[inline]
    fn word(&self, at: usize) -> Option<u64> {
        let chunk = self.bytes.get(at..at + 8)?;
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        Some(u64::from_le_bytes(w))
    }

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    #[inline]
    pub(super) fn ws(&mut self) {
        loop {
            match self.peek() {
                Some(b' ') => {}
                Some(b'\n' | b'\r' | b'\t') => {
                    self.pos += 1;
                    continue;
                }
                _ => return,
            }
            // A run of spaces (indentation): eight at a time. The first non-space byte is the
            // lowest non-zero byte of the word xor eight spaces.
            while let Some(w) = self.word(self.pos) {
                let other = w ^ (ONES * u64::from(b' '));
                if other == 0 {
                    self.pos += 8;
                    continue;
                }
                self.pos += (other.trailing_zeros() / 8) as usize;
                break;
            }
            while self.peek() == Some(b' ') {
                self.pos += 1;
            }
        }
    }

    /// Consumes `c` if it is the next byte.
    #[inline]
    pub(super) fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(c)).then(|| self.pos += 1)
    }

    /// Skips whitespace, then consumes `c`.
    #[inline]
    pub(super) fn ws_eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        self.eat(c)
    }

    /// After a member or element: skips whitespace and consumes `,` (`Some(true)`: another
    /// follows) or `close` (`Some(false)`).
    #[inline]
    pub(super) fn next_or_close(&mut self, close: u8) -> Option<bool> {
        self.ws();
        match self.peek()? {
            b',' => {
                self.pos += 1;
                self.ws();
                Some(true)
            }
            c if c == close => {
                self.pos += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// The position of the first `"`, `\` or control byte at or after `from`.
    #[inline]
    fn string_stop(&self, mut from: usize) -> usize {
        #[cfg(target_arch = "x86_64")]
        while let Some(chunk) = self.bytes.get(from..).and_then(<[u8]>::first_chunk) {
            let flags = sse2::string_stops(chunk);
            if flags != 0 {
                return from + flags.trailing_zeros() as usize;
            }
            from += 16;
        }
        while let Some(w) = self.word(from) {
            let flags = equal(w, b'"') | equal(w, b'\\') | below(w, 0x20);
            if flags != 0 {
                return from + (flags.trailing_zeros() / 8) as usize;
            }
            from += 8;
        }
        while let Some(&c) = self.bytes.get(from) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                break;
            }
            from += 1;
        }
        from
    }

    /// A string's raw bytes between the quotes (the cursor is on the opening quote), and
    /// whether it holds escapes. Checks the escapes' syntax and refuses control bytes, as
    /// serde_json does; UTF-8 is not checked here.
    #[inline]
    pub(super) fn string_raw(&mut self) -> Option<(&'a [u8], bool)> {
        self.eat(b'"')?;
        let start = self.pos;
        let mut escaped = false;
        loop {
            let stop = self.string_stop(self.pos);
            match self.bytes.get(stop)? {
                b'"' => {
                    self.pos = stop + 1;
                    return Some((self.bytes.get(start..stop)?, escaped));
                }
                b'\\' => {
                    escaped = true;
                    self.pos = stop + 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 1,
                        b'u' => {
                            let hex = self.bytes.get(self.pos + 1..self.pos + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.pos += 5;
                        }
                        _ => return None,
                    }
                }
                _ => return None, // a control byte
            }
        }
    }

    /// A string, decoded and checked to be UTF-8 (borrowed when it has no escapes).
    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        let (raw, escaped) = self.string_raw()?;
        if escaped {
            return unescape(raw).map(Cow::Owned);
        }
        std::str::from_utf8(raw).ok().map(Cow::Borrowed)
    }

    /// A string's bytes with escapes decoded but UTF-8 unchecked (how serde_json reads a key
    /// it matches as bytes).
    pub(super) fn key_bytes(&mut self) -> Option<Cow<'a, [u8]>> {
        let (raw, escaped) = self.string_raw()?;
        if escaped {
            return unescape(raw).map(|s| Cow::Owned(s.into_bytes()));
        }
        Some(Cow::Borrowed(raw))
    }

    /// The text of a number (the cursor on its first byte), checked against JSON's grammar:
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number_text(&mut self) -> Option<&'a [u8]> {
        let start = self.pos;
        let digits = |s: &mut Self| {
            let from = s.pos;
            while let Some(b'0'..=b'9') = s.peek() {
                s.pos += 1;
            }
            s.pos > from
        };
        let _ = self.eat(b'-');
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        if self.eat(b'.').is_some() && !digits(self) {
            return None;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !digits(self) {
                return None;
            }
        }
        // `01` is not JSON: after a leading 0 no digit may follow (checked by the grammar above
        // stopping there; the caller then finds a digit where `,` or `}` must be).
        self.bytes.get(start..self.pos)
    }

    /// A number's value as serde_json gives it: the decimal correctly rounded to `f64`
    /// (`u64`/`i64` integers convert to the same double, and `-0` is `-0.0` in both); a value
    /// out of `f64`'s range is refused (serde_json: "number out of range").
    pub(super) fn number(&mut self) -> Option<f64> {
        let text = self.number_text()?;
        // The common case, a small integer (`"ncpus":4`), is exact without the float parser.
        let (negative, digits) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, text),
        };
        if digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) {
            let v = digits
                .iter()
                .fold(0u64, |v, &c| v * 10 + u64::from(c - b'0')) as f64;
            return Some(if negative { -v } else { v });
        }
        let v: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
        v.is_finite().then_some(v)
    }

    /// Consumes `literal` (`true`, `false`, `null`).
    fn literal(&mut self, literal: &[u8]) -> Option<()> {
        let end = self.pos + literal.len();
        (self.bytes.get(self.pos..end)? == literal).then(|| self.pos = end)
    }

    /// A scalar as [`Raw`] reads it; an object or array is skipped and read as `Raw::Other`.
    /// `null` is `Raw::Other` too (callers that read `Option<Raw>` treat it as absent).
    pub(super) fn raw(&mut self) -> Option<Raw<'a>> {
        Some(match self.peek()? {
            b'"' => Raw::Str(self.string()?),
            b't' => {
                self.literal(b"true")?;
                Raw::Bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                Raw::Bool(false)
            }
            b'-' | b'0'..=b'9' => Raw::Num(self.number()?),
            b'{' => {
                self.object_of_anything()?;
                Raw::Other
            }
            _ => {
                self.skip()?;
                Raw::Other
            }
        })
    }

    /// Skips an object read as `Raw` reads one (serde's `next_entry::<IgnoredAny, IgnoredAny>`):
    /// its own keys are read as strings — serde_json checks their UTF-8 and surrogates, unlike
    /// the keys of a value it only skips — and its values are skipped.
    fn object_of_anything(&mut self) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            self.string()?;
            self.ws_eat(b':')?;
            self.ws();
            self.skip()?;
            if !self.next_or_close(b'}')? {
                return Some(());
            }
        }
    }

    /// Skips one value of any kind (the cursor on its first byte).
    pub(super) fn skip(&mut self) -> Option<()> {
        // The open containers, innermost last: `true` for an object.
        let mut open = [false; MAX_DEPTH];
        let mut depth = 0usize;
        loop {
            // One value.
            match self.peek()? {
                b'"' => {
                    self.string_raw()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => {
                    self.number_text()?;
                }
                c @ (b'{' | b'[') => {
                    self.pos += 1;
                    *open.get_mut(depth)? = c == b'{';
                    depth += 1;
                    self.ws();
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.eat(close).is_none() {
                        if c == b'{' {
                            self.string_raw()?;
                            self.ws_eat(b':')?;
                            self.ws();
                        }
                        continue;
                    }
                    depth -= 1;
                }
                _ => return None,
            }
            // After a value: close containers until one has a next member.
            loop {
                if depth == 0 {
                    return Some(());
                }
                let object = *open.get(depth - 1)?;
                if self.next_or_close(if object { b'}' } else { b']' })? {
                    if object {
                        self.string_raw()?;
                        self.ws_eat(b':')?;
                        self.ws();
                    }
                    break;
                }
                depth -= 1;
            }
        }
    }
}

/// Decodes the escapes of a string's raw bytes; `None` if the result is not UTF-8 or holds a
/// lone surrogate (serde_json refuses both for a string).
fn unescape(raw: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&c) = raw.get(i) {
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let e = *raw.get(i)?;
        i += 1;
        let simple = match e {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let hex = |at: usize| -> Option<u32> {
                    let h = std::str::from_utf8(raw.get(at..at + 4)?).ok()?;
                    u32::from_str_radix(h, 16).ok()
                };
                let first = hex(i)?;
                i += 4;
                let code = match first {
                    0xD800..=0xDBFF => {
                        // A high surrogate must be followed by an escaped low one.
                        if raw.get(i..i + 2)? != b"\\u" {
                            return None;
                        }
                        let second = hex(i + 2)?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return None;
                        }
                        i += 6;
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return None,
                    c => c,
                };
                let ch = char::from_u32(code)?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            _ => return None,
        };
        out.push(simple);
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    /// What serde_json makes of `text` as one value: the value and the position after it.
    fn serde_skip(text: &[u8]) -> Option<usize> {
        let mut s = serde_json::Deserializer::from_slice(text).into_iter::<IgnoredAny>();
        s.next()?.ok()?;
        Some(s.byte_offset())
    }

    fn skip(text: &[u8]) -> Option<usize> {
        let mut s = Scan::new(text, 0);
        s.skip()?;
        Some(s.pos())
    }

    #[test]
    fn skips_what_serde_json_skips() {
        let cases: &[&[u8]] = &[
            b"0",
            b"-0",
            b"12.5e-3",
            b"1E+2",
            b"true",
            b"false",
            b"null",
            br#""a\"b\\c\u00e9\/""#,
            b"{}",
            b"[]",
            b"{ \"a\" : [1, {\"b\": null}, \"x\"] , \"c\":{} }",
            b"[[[[]]], {}, [1,2,3]]",
            b"\"\xff\"",
        ];
        for &c in cases {
            assert_eq!(skip(c), serde_skip(c), "{}", String::from_utf8_lossy(c));
            assert_eq!(skip(c), Some(c.len()), "{}", String::from_utf8_lossy(c));
        }
        // serde_json refuses all of these; the scanner must too.
        let bad: &[&[u8]] = &[
            b"01", // the scanner stops after 0; the caller sees `1` where `,` must be
            b"1.",
            b"1e",
            b"-",
            b".5",
            b"+1",
            b"tru",
            b"nul",
            b"\"a\x01\"",
            b"\"a\\x\"",
            b"\"a\\u12g4\"",
            b"\"abc",
            b"[1,]",
            b"{\"a\" 1}",
            b"{\"a\":1,}",
            b"{1:2}",
            b"[1 2]",
            b"}",
        ];
        for &c in bad {
            let whole = |r: Option<usize>| r == Some(c.len());
            assert!(!whole(skip(c)), "{}", String::from_utf8_lossy(c));
            assert!(!whole(serde_skip(c)), "{}", String::from_utf8_lossy(c));
        }
    }

    #[test]
    fn deep_nesting_is_left_to_serde_json() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(skip(deep.as_bytes()), None);
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(skip(ok.as_bytes()), Some(ok.len()));
    }

    #[test]
    fn whitespace_runs_of_every_length() {
        for n in 0..40 {
            for tail in ["x", "\n  x", "\t\r\n x"] {
                let text = format!("{}{tail}", " ".repeat(n));
                let mut s = Scan::new(text.as_bytes(), 0);
                s.ws();
                assert_eq!(s.peek(), Some(b'x'), "{n} {tail:?}");
            }
        }
        let mut s = Scan::new(b"   ", 0);
        s.ws();
        assert_eq!((s.pos(), s.peek()), (3, None));
    }

    #[test]
    fn strings_decode_as_serde_json_decodes_them() {
        for text in [
            r#""plain""#,
            r#""tab\there\n""#,
            r#""\u00e9t\u00E9 \ud83d\ude00 \/ \"q\" \\""#,
            "\"caf\u{e9} long enough to span several words of eight bytes\"",
        ] {
            let want: String = serde_json::from_str(text).unwrap();
            let mut s = Scan::new(text.as_bytes(), 0);
            assert_eq!(s.string().unwrap(), want, "{text}");
            assert_eq!(s.pos(), text.len());
        }
        for bad in [
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            "\"\\ud800x\"",
        ] {
            assert!(serde_json::from_str::<String>(bad).is_err(), "{bad}");
            assert_eq!(Scan::new(bad.as_bytes(), 0).string(), None, "{bad}");
        }
        assert_eq!(Scan::new(b"\"\xff\"", 0).string(), None, "not UTF-8");
        let mut s = Scan::new(br#""eus\u0065r""#, 0);
        assert_eq!(&*s.key_bytes().unwrap(), b"euser");
    }

    #[test]
    fn numbers_have_serde_json_values() {
        for text in [
            "0",
            "-0",
            "4",
            "-17",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "0.1",
            "2.5e-3",
            "1e308",
            "1e-400",
            "4.9e-324",
            "1.7976931348623157e308",
            "9007199254740993",
            "0.30000000000000004",
        ] {
            let want = match serde_json::from_str::<Raw>(text).unwrap() {
                Raw::Num(v) => v,
                other => panic!("{other:?}"),
            };
            let got = Scan::new(text.as_bytes(), 0).number().unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
        for big in ["1e309", "-1e400", "1797693134862315807937e289"] {
            assert!(serde_json::from_str::<Raw>(big).is_err(), "{big}");
            assert_eq!(Scan::new(big.as_bytes(), 0).number(), None, "{big}");
        }
    }

    #[test]
    fn raw_scalars() {
        fn raw(t: &str) -> Option<Raw<'_>> {
            Scan::new(t.as_bytes(), 0).raw()
        }
        assert_eq!(raw("\"x\""), Some(Raw::Str("x".into())));
        assert_eq!(raw("true"), Some(Raw::Bool(true)));
        assert_eq!(raw("false"), Some(Raw::Bool(false)));
        assert_eq!(raw("null"), Some(Raw::Other));
        assert_eq!(raw("[1,{}]"), Some(Raw::Other));
        // The keys of an object read as `Raw` are strings to serde_json; deeper keys are not.
        for text in [&br#"{"\ud800":1}"#[..], b"{\"\xff\":1}"] {
            assert!(serde_json::from_slice::<Raw>(text).is_err());
            assert_eq!(Scan::new(text, 0).raw(), None);
        }
        for text in [r#"{"a":{"\ud800":1}}"#, r#"[{"\ud800":1}]"#] {
            assert_eq!(
                serde_json::from_str::<Raw>(text).unwrap(),
                Raw::Other,
                "{text}"
            );
            assert_eq!(raw(text), Some(Raw::Other), "{text}");
        }
        assert_eq!(raw("2.5"), Some(Raw::Num(2.5)));
        assert_eq!(raw("x"), None);
    }
}
