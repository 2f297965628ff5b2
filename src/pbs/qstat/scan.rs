//! A strict JSON scanner over bytes in memory, for the fast path of the `qstat -f -F json`
//! reader: through whitespace and strings by the 64-byte blocks' bitmasks of `blocks`.
//!
//! Why not serde_json alone: `qstat -f -F json` indents every line (38 % of a real file's bytes
//! are spaces), and serde_json steps through whitespace one byte at a time and pays a visitor
//! call per token — 2.2 s of CPU for a million jobs (1.7 GB). sonic-rs's lazy API and
//! simd-json's tape are slower still on these files (`benches/qstat_reader.rs`; docs/perf.md,
//! "The qstat reader", which also gives why this reader is kept). This
//! scanner does the little the qstat reader needs (skip whitespace, read or skip a string,
//! number or literal, skip any value), and is *stricter* than serde_json: whatever it is unsure
//! of — a lone surrogate, a number out of range, nesting deeper than [`MAX_DEPTH`] — it refuses
//! (`None`), and the caller re-reads the text with serde_json for the exact answer and message.
//! So every text is read either by serde_json or as serde_json would read it; the differential
//! tests in `agreement` and the `jobs` fuzz target compare the two readers.

use crate::jobs::raw::Raw;
use crate::mem::ascii::ascii_str;
#[cfg(test)]
use crate::mem::byte_masks::Kernel;
use crate::pbs::qstat::blocks::Blocks;
use std::borrow::Cow;

/// A string as [`Scan::string_parts`] finds it.
struct StringParts<'a> {
    /// The bytes between the quotes, escapes not decoded.
    raw: &'a [u8],
    /// Whether `raw` holds a backslash escape.
    escaped: bool,
}

/// Deepest nesting a skipped value may have; deeper values are left to serde_json. (64: one
/// bit per level in `skip_nested`.)
pub(super) const MAX_DEPTH: usize = 64;

/// A cursor over JSON text. Every method either consumes exactly one JSON token (or value) and
/// returns `Some`, or returns `None` for anything it will not vouch for.
pub(super) struct Scan<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The bitmasks of the text around `pos` (`blocks`).
    blocks: Blocks,
}

impl<'a> Scan<'a> {
    /// A scanner at `pos` of `bytes`.
    pub(super) fn new(bytes: &'a [u8], pos: usize) -> Scan<'a> {
        Scan {
            bytes,
            pos,
            blocks: Blocks::new(),
        }
    }

    /// [`new`](Self::new) with the masks computed by `kernel` (for the tests that run every
    /// kernel).
    #[cfg(test)]
    pub(super) fn with_level(bytes: &'a [u8], pos: usize, kernel: Kernel) -> Scan<'a> {
        Scan {
            bytes,
            pos,
            blocks: Blocks::with_kernel(kernel),
        }
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

    /// Skips JSON whitespace (space, tab, line feed, carriage return): to the next bit of the
    /// blocks' non-whitespace mask.
    #[inline]
    pub(super) fn ws(&mut self) {
        if !matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            return;
        }
        loop {
            let shift = self.pos % 64;
            // Bits shifted in from the top are zeros, read as whitespace: the next block decides.
            let other = !self.blocks.at(self.bytes, self.pos).ws >> shift;
            if other != 0 {
                self.pos += other.trailing_zeros() as usize;
                return;
            }
            self.pos += 64 - shift;
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
    #[inline(always)]
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

    /// The first `"`, backslash or control byte at or after `from` (the text's end if none):
    /// one `tzcnt` on the blocks' stop mask for a run within a block.
    #[inline(always)]
    fn stop_at(&mut self, from: usize) -> usize {
        let mut at = from;
        loop {
            let stops = self.blocks.at(self.bytes, at).stops >> (at % 64);
            if stops != 0 {
                return at + stops.trailing_zeros() as usize;
            }
            at = (at | 63) + 1;
        }
    }

    /// Skips a string with neither escape nor control byte (the cursor on its opening quote)
    /// and returns true; false, the cursor not moved, for any other string (which
    /// [`string_raw`](Self::string_raw) then reads or refuses). UTF-8 is not checked, as for any
    /// skipped string.
    #[inline(always)]
    fn plain_string(&mut self) -> bool {
        let stop = self.stop_at(self.pos + 1);
        let plain = self.bytes.get(stop) == Some(&b'"');
        if plain {
            self.pos = stop + 1;
        }
        plain
    }

    /// A member's key in its usual form — no escape in it and the `:` right after its closing
    /// quote — with the cursor moved past the `:` and the whitespace after it: what
    /// [`key_bytes`](Self::key_bytes), `ws_eat(b':')` and [`ws`](Self::ws) give for it. `None`,
    /// the cursor not moved, for any other form (the caller then takes those three steps).
    #[inline(always)]
    pub(super) fn plain_key(&mut self) -> Option<&'a [u8]> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.pos + 1;
        let stop = self.stop_at(start);
        if self.bytes.get(stop..stop + 2) != Some(&b"\":"[..]) {
            return None;
        }
        self.pos = stop + 2;
        self.ws();
        self.bytes.get(start..stop)
    }

    /// The whole text the scanner reads.
    #[inline(always)]
    pub(super) fn text(&self) -> &'a [u8] {
        self.bytes
    }

    /// Moves the cursor to `pos`: a place the caller knows to be where this scanner's own
    /// steps would have brought it (the same bytes as text it has read before).
    #[inline(always)]
    pub(super) fn jump(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// Skips a plain string (no escape, no control byte) of exactly `len` bytes between its
    /// quotes and returns true, as [`skip`](Self::skip) would; false, the cursor not moved,
    /// for any other value. The cursor's next place is `len` on from here whatever the bytes
    /// hold — the check only decides whether it moves — so the scan of the next token need not
    /// wait for this string's stop to be found.
    #[inline(always)]
    pub(super) fn skip_plain_of(&mut self, len: usize) -> bool {
        let (open, close) = (self.pos, self.pos + 1 + len);
        let next = close + 1;
        let plain = self.peek() == Some(b'"')
            && self.stop_at(open + 1) == close
            && self.bytes.get(close) == Some(&b'"');
        // A branch, not a select: the next step starts from `next` before `plain` is known.
        self.pos = next;
        if !plain {
            self.back_to(open);
            return false;
        }
        true
    }

    /// Undoes a guessed step (kept out of line so the guess is a predicted branch).
    #[cold]
    #[inline(never)]
    fn back_to(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// Skips a plain string (no escape, no control byte; the cursor on its opening quote) and
    /// gives its length between the quotes; `None`, the cursor not moved, for any other value.
    #[inline(always)]
    pub(super) fn plain_string_len(&mut self) -> Option<usize> {
        let open = self.pos;
        (self.peek() == Some(b'"') && self.plain_string()).then(|| self.pos - open - 2)
    }

    /// [`skip_value`](Self::skip_value), giving the length between the quotes when the value
    /// was a plain string (for [`skip_plain_of`](Self::skip_plain_of) to expect next time).
    #[inline(always)]
    pub(super) fn skip_value_len(&mut self) -> Option<Option<usize>> {
        if let Some(len) = self.plain_string_len() {
            return Some(Some(len));
        }
        self.skip_value().map(|()| None)
    }

    /// [`skip`](Self::skip), with a plain string and an object of plain string members (a
    /// qstat job's `Variable_List`) each skipped in one tight step; anything else, or anything
    /// those steps are unsure of, is left to `skip` from the same place.
    #[inline(always)]
    pub(super) fn skip_value(&mut self) -> Option<()> {
        match self.peek() {
            Some(b'"') if self.plain_string() => return Some(()),
            Some(b'{') if self.flat_object() => return Some(()),
            _ => {}
        }
        self.skip()
    }

    /// Skips an object (the cursor on its `{`) whose members are all plain strings with plain
    /// keys, as [`skip`](Self::skip) would, and returns true; false, the cursor not moved, for
    /// any other object, well formed or not.
    #[inline]
    fn flat_object(&mut self) -> bool {
        let start = self.pos;
        self.pos += 1;
        self.ws();
        if self.eat(b'}').is_some() {
            return true;
        }
        loop {
            if self.peek() != Some(b'"') || !self.plain_string() {
                break;
            }
            if self.ws_eat(b':').is_none() {
                break;
            }
            self.ws();
            if self.peek() != Some(b'"') || !self.plain_string() {
                break;
            }
            match self.next_or_close(b'}') {
                Some(true) => {}
                Some(false) => return true,
                None => break,
            }
        }
        self.pos = start;
        false
    }

    /// The position of the first `"`, `\` or control byte at or after `from` (the text's end
    /// if there is none), and whether the bytes before it are all ASCII.
    #[inline]
    fn string_stop(&mut self, from: usize) -> (usize, bool) {
        let mut at = from;
        let mut high = 0u64;
        loop {
            let m = self.blocks.at(self.bytes, at);
            let shift = at % 64;
            let stops = m.stops >> shift;
            if stops != 0 {
                let n = stops.trailing_zeros();
                high |= (m.high >> shift) & ((1u64 << n) - 1);
                return (at + n as usize, high == 0);
            }
            high |= m.high >> shift;
            at += 64 - shift;
        }
    }

    /// A string's raw bytes between the quotes (the cursor is on the opening quote), and
    /// whether it holds escapes. Checks the escapes' syntax and refuses control bytes, as
    /// serde_json does; UTF-8 is not checked here.
    #[inline]
    pub(super) fn string_raw(&mut self) -> Option<(&'a [u8], bool)> {
        self.string_parts().map(|s| (s.raw, s.escaped))
    }

    /// [`string_raw`](Self::string_raw) as its parts.
    #[inline(always)]
    fn string_parts(&mut self) -> Option<StringParts<'a>> {
        self.eat(b'"')?;
        let start = self.pos;
        let mut escaped = false;
        loop {
            let (stop, _) = self.string_stop(self.pos);
            match self.bytes.get(stop)? {
                b'"' => {
                    self.pos = stop + 1;
                    let raw = self.bytes.get(start..stop)?;
                    return Some(StringParts { raw, escaped });
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

    /// A string, decoded and checked to be UTF-8 (borrowed when it has no escapes). Inlined
    /// into the job loop (a call per job id and value was 107 M of 1,765 M instructions of a
    /// 100 000-job `order`).
    #[inline(always)]
    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        // The usual string — ASCII, no escape — without the call (a job's id, names, values).
        if self.peek() == Some(b'"') {
            let start = self.pos + 1;
            let (stop, ascii) = self.string_stop(start);
            if ascii && self.bytes.get(stop) == Some(&b'"') {
                let raw = self.bytes.get(start..stop)?;
                self.pos = stop + 1;
                // Every byte is below 0x80 (the blocks' `high` mask is clear over it); the
                // inlined check of `ascii_str` confirms it.
                return ascii_str(raw).map(Cow::Borrowed);
            }
        }
        self.string_slow()
    }

    /// [`string`](Self::string) for any string: escapes, non-ASCII bytes, refusals.
    #[inline(never)]
    fn string_slow(&mut self) -> Option<Cow<'a, str>> {
        let parts = self.string_parts()?;
        if parts.escaped {
            return unescape(parts.raw).map(Cow::Owned);
        }
        std::str::from_utf8(parts.raw).ok().map(Cow::Borrowed)
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
        if let Some(v) = self.small_integer() {
            return Some(v);
        }
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

    /// [`number`](Self::number) of the common case, read in one pass: an integer of 1 to 15
    /// digits (`"ncpus":4`, `"Priority":-3`), optionally negative, that no `.`, exponent or
    /// further digit follows. Anything else leaves the cursor where it was and returns `None`
    /// for the general reading (which then also reports `01` and the like).
    #[inline]
    fn small_integer(&mut self) -> Option<f64> {
        let negative = self.bytes.get(self.pos) == Some(&b'-');
        let first = self.pos + usize::from(negative);
        let mut at = first;
        let mut v = 0u64;
        while let Some(&c @ b'0'..=b'9') = self.bytes.get(at) {
            v = v * 10 + u64::from(c - b'0');
            at += 1;
            if at - first > 15 {
                return None;
            }
        }
        let leading_zero = at - first > 1 && self.bytes.get(first) == Some(&b'0');
        if at == first || leading_zero || matches!(self.bytes.get(at), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.pos = at;
        let v = v as f64;
        Some(if negative { -v } else { v })
    }

    /// Consumes `literal` (`true`, `false`, `null`).
    fn literal(&mut self, literal: &[u8]) -> Option<()> {
        let end = self.pos + literal.len();
        (self.bytes.get(self.pos..end)? == literal).then(|| self.pos = end)
    }

    /// A scalar as [`Raw`] reads it; an object or array is skipped and read as `Raw::Other`.
    /// `null` is `Raw::Other` too (callers that read `Option<Raw>` treat it as absent).
    #[inline(always)]
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
    #[inline(never)]
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
        // Most skipped values are strings or numbers: no container bookkeeping for them.
        match self.peek()? {
            b'"' => return self.string_raw().map(drop),
            b'-' | b'0'..=b'9' => return self.number_text().map(drop),
            _ => {}
        }
        self.skip_nested()
    }

    /// [`skip`](Self::skip) for any value, containers included.
    fn skip_nested(&mut self) -> Option<()> {
        // The open containers, innermost highest: bit `d` set when the container at depth `d`
        // is an object (MAX_DEPTH is 64, one bit each).
        let mut open = 0u64;
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
                    if depth >= MAX_DEPTH {
                        return None;
                    }
                    let object = c == b'{';
                    open = (open & !(1u64 << depth)) | (u64::from(object) << depth);
                    depth += 1;
                    self.ws();
                    let close = if object { b'}' } else { b']' };
                    if self.eat(close).is_none() {
                        if object {
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
                let object = open & (1u64 << (depth - 1)) != 0;
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
    use proptest::prelude::{any, prop_oneof, Strategy, TestCaseError};
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

    /// Differential: the one-pass integer reading gives what the two-pass reading (the
    /// grammar's text, then its value) gives — value bit for bit and end position — on texts
    /// made of the characters numbers are made of.
    fn two_pass(text: &[u8]) -> Option<(u64, usize)> {
        let mut s = Scan::new(text, 0);
        let t = s.number_text()?;
        let (negative, digits) = match t.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, t),
        };
        let v = if digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) {
            let v = digits
                .iter()
                .fold(0u64, |v, &c| v * 10 + u64::from(c - b'0')) as f64;
            if negative {
                -v
            } else {
                v
            }
        } else {
            let v: f64 = std::str::from_utf8(t).ok()?.parse().ok()?;
            v.is_finite().then_some(v)?
        };
        Some((v.to_bits(), s.pos()))
    }

    #[test]
    fn one_pass_integers_read_as_two_passes_do() {
        for text in [
            "0",
            "-0",
            "00",
            "01",
            "-01",
            "0.5",
            "0e1",
            "7",
            "-7",
            "12,",
            "12}",
            "1.",
            "1e",
            "1E5",
            "-",
            "--1",
            "123456789012345",
            "1234567890123456",
            "-999999999999999",
            "9999999999999999",
            "1a",
            "",
        ] {
            let mut s = Scan::new(text.as_bytes(), 0);
            let one = s.number().map(|v| (v.to_bits(), s.pos()));
            assert_eq!(one, two_pass(text.as_bytes()), "{text}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        #[test]
        fn generated_numbers_read_as_two_passes_do(text in "-?[0-9]{0,18}([.eE+-][0-9]{0,3})?[,} a]?") {
            let mut s = Scan::new(text.as_bytes(), 0);
            let one = s.number().map(|v| (v.to_bits(), s.pos()));
            proptest::prop_assert_eq!(one, two_pass(text.as_bytes()));
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

    /// What the scanner makes of `text` as one whole value, skipped (`skip`) or read (`raw`),
    /// with the masks of kernel `level`: `Some` only when the value is followed by whitespace
    /// alone, like `serde_json::from_slice`.
    fn scan_whole(text: &[u8], level: Kernel, how: How) -> Option<Option<Raw<'_>>> {
        let mut s = Scan::with_level(text, 0, level);
        s.ws();
        let raw = match how {
            How::Raw => Some(s.raw()?),
            How::Skip => s.skip().map(|()| None)?,
            How::SkipValue => s.skip_value().map(|()| None)?,
        };
        s.ws();
        (s.pos() == text.len()).then_some(raw)
    }

    /// How [`scan_whole`] takes the value.
    #[derive(Clone, Copy, Debug)]
    enum How {
        /// `Scan::raw`.
        Raw,
        /// `Scan::skip`.
        Skip,
        /// `Scan::skip_value` (plain strings and flat objects in one step each).
        SkipValue,
    }

    /// Numbers compared by their bits (`-0` is not `0`).
    fn bits(raw: Option<Raw>) -> Option<Result<u64, Raw>> {
        raw.map(|r| match r {
            Raw::Num(n) => Ok(n.to_bits()),
            other => Err(other),
        })
    }

    /// The scanner and serde_json agree on `text` with every kernel: skipped, both accept or
    /// both refuse (`IgnoredAny`); read as `Raw`, both accept with the same value or both
    /// refuse. `value` is placed after `pad` bytes of whitespace, so that its tokens cross the
    /// 64-byte blocks and the 1 KiB batches at every offset.
    fn agree(value: &[u8], pad: usize) -> Result<(), String> {
        let mut text = vec![b' '; pad];
        if pad > 2 {
            text[pad / 2] = b'\n';
        }
        text.extend_from_slice(value);
        text.extend_from_slice(b" \n");
        let show = || format!("pad {pad}: {}", String::from_utf8_lossy(value));
        let serde_skip = serde_json::from_slice::<IgnoredAny>(&text).is_ok();
        let serde_raw = serde_json::from_slice::<Raw>(&text).ok();
        for level in Kernel::all() {
            for how in [How::Skip, How::SkipValue] {
                let skip = scan_whole(&text, level, how).is_some();
                if skip != serde_skip {
                    return Err(format!(
                        "{level:?} {how:?} {skip}, serde {serde_skip}: {}",
                        show()
                    ));
                }
            }
            let raw = scan_whole(&text, level, How::Raw).map(|r| r.expect("read"));
            if bits(raw.clone()) != bits(serde_raw.clone()) {
                return Err(format!(
                    "{level:?} raw {raw:?}, serde {serde_raw:?}: {}",
                    show()
                ));
            }
        }
        Ok(())
    }

    /// Hand-made cases: escapes, surrogates, control bytes, UTF-8, numbers, truncations, a BOM,
    /// nesting, and strings long enough to cross blocks and batches.
    #[test]
    fn hand_made_cases_agree_with_serde_json() {
        let long = |n: usize| format!("\"{}\"", "a".repeat(n)).into_bytes();
        let mut cases: Vec<Vec<u8>> = [
            &br#""\u00e9""#[..],
            br#""caf\u00E9 \ud83d\ude00""#,
            br#""\ud800""#,
            br#""\udc00""#,
            br#""\ud800\u0041""#,
            br#""\ud83d\ude00\ud83d""#,
            br#""\u12""#,
            br#""\x""#,
            b"\"a\x01b\"",
            b"\"a\x1fb\"",
            b"\"a\x7fb\"",
            b"\"tab\there\"",
            "\"caf\u{e9}\"".as_bytes(),
            "\"\u{1F600}\"".as_bytes(),
            b"\"\xff\"",
            b"\"\xc3\"",
            b"\"\xc3\xa9\"",
            b"\"\xc0\x80\"",
            b"\"\xed\xa0\x80\"",
            b"\"\xf4\x90\x80\x80\"",
            b"0",
            b"-0",
            b"-0.0",
            b"1e400",
            b"-1e400",
            b"1e-400",
            b"01",
            b"-01",
            b"1.",
            b"1.e5",
            b"1e",
            b"1e+",
            b"-",
            b".5",
            b"+1",
            b"18446744073709551616",
            b"4.9e-324",
            b"\"abc",
            b"\"abc\\",
            b"\"abc\\u00",
            b"{\"a\":",
            b"{\"a\":1",
            b"[1,2",
            b"[1,2,]",
            b"{\"a\":1,}",
            b"\xef\xbb\xbf1",
            b"\xef\xbb\xbf{}",
            b"{\"a\":[[1,[2]],{\"b\":[]}],\"c\":{\"d\":{\"e\":[true,false,null]}}}",
            b"[[[[[[[[[[]]]]]]]]]]",
            b"[[[[]]]",
            b"[{]",
            b"{\"\xff\":1}",
            br#"{"\ud800":1}"#,
            br#"{"a":{"\ud800":1,"\xff":2}}"#,
            b"{\"a\":{\"b\x01\":1}}",
            b"{\"a\":[\"\xff\",\"\\ud800\",1e400]}",
            b"{\"a\":[\"\x01\"]}",
            b"{\"a\":[01]}",
            b"{\"a\":\"x\",\n  \"b\" : \"y\" }",
            b"{ }",
            b"{\"a\":\"x\",}",
            b"{\"a\":\"x\"",
            b"{\"a\":\"x\" \"b\":\"y\"}",
            b"{\"a\":\"x\",\"b\":1}",
            b"{\"a\":\"x\",\"b\":\"\\u00e9\"}",
            b"{\"a\\n\":\"x\"}",
            b"{\"a\":\"x\x01\"}",
            b"{\"a\":\"\xff\",\"\xc3\":\"\"}",
            b"{\"a\":\"x\",\"b\":{\"c\":\"d\"}}",
            b"{\"a\"}",
            b"{\"a\":}",
            b"tru",
            b"nulll",
            b"true",
            b"null",
            b"",
            b"}",
        ]
        .iter()
        .map(|c| c.to_vec())
        .collect();
        for n in [62, 63, 64, 65, 127, 128, 1023, 1024, 1025, 3000] {
            cases.push(long(n));
            let mut escaped = long(n);
            escaped.splice(n / 2..n / 2, br#"\u00e9\ud83d\ude00\n"#.iter().copied());
            cases.push(escaped);
            let mut wide = long(n);
            wide.splice(n / 2..n / 2, "\u{e9}\u{1F600}".bytes());
            cases.push(wide);
            let mut bad = long(n);
            bad.insert(n / 2, 0xff);
            cases.push(bad);
            let mut control = long(n);
            control.insert(n - 1, b'\n');
            cases.push(control);
            cases.push(format!("{{\"k\":[{}]}}", String::from_utf8_lossy(&long(n))).into_bytes());
        }
        for case in &cases {
            for pad in (0..140).chain(950..1100) {
                agree(case, pad).unwrap();
            }
        }
    }

    /// A JSON-like value as bytes: mostly valid, sometimes with what serde_json refuses.
    fn value_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = proptest::sample::select(vec![
            &b"a"[..],
            b"bob",
            b" ",
            "\u{e9}".as_bytes(),
            "\u{1F600}".as_bytes(),
            b"\\\"",
            b"\\\\",
            b"\\/",
            b"\\n",
            b"\\u00e9",
            b"\\ud83d\\ude00",
            b"\\ud800",
            b"\\udc00",
            b"\\x",
            b"\\u12",
            b"\x01",
            b"\x7f",
            b"\xff",
            b"\xc3",
            b"\xed\xa0\x80",
            b"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ]);
        let string = proptest::collection::vec(piece, 0..6).prop_map(|p| {
            let mut s = vec![b'"'];
            for x in p {
                s.extend_from_slice(x);
            }
            s.push(b'"');
            s
        });
        let number = proptest::sample::select(vec![
            "0",
            "-0",
            "4",
            "-17",
            "1.5",
            "2.5E-3",
            "1e3",
            "1e400",
            "-1e400",
            "1e-400",
            "01",
            "1.",
            "-",
            "1e",
            "18446744073709551616",
            "9007199254740993",
            "4.9e-324",
        ])
        .prop_map(|n| n.as_bytes().to_vec());
        let literal = proptest::sample::select(vec!["true", "false", "null", "nul", "tru"])
            .prop_map(|n| n.as_bytes().to_vec());
        let ws = proptest::sample::select(vec!["", "", " ", "\n            ", "\t", "\r\n"]);
        let scalar = prop_oneof![4 => string.clone(), 2 => number, 1 => literal];
        scalar.prop_recursive(3, 24, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec((ws.clone(), inner.clone()), 0..5).prop_map(|v| {
                    let mut s = vec![b'['];
                    for (k, (w, x)) in v.into_iter().enumerate() {
                        if k > 0 {
                            s.push(b',');
                        }
                        s.extend_from_slice(w.as_bytes());
                        s.extend_from_slice(&x);
                    }
                    s.push(b']');
                    s
                }),
                proptest::collection::vec((string.clone(), ws.clone(), inner), 0..5).prop_map(
                    |v| {
                        let mut s = vec![b'{'];
                        for (k, (key, w, x)) in v.into_iter().enumerate() {
                            if k > 0 {
                                s.push(b',');
                            }
                            s.extend_from_slice(&key);
                            s.push(b':');
                            s.extend_from_slice(w.as_bytes());
                            s.extend_from_slice(&x);
                        }
                        s.push(b'}');
                        s
                    }
                ),
            ]
        })
    }

    /// A member's key read by `plain_key`, else by `key_bytes`, `ws_eat(':')` and `ws` (as
    /// the job loop reads it), against those three steps alone: the same key and cursor, or
    /// both refuse.
    fn keys_agree(text: &[u8], start: usize) -> Result<(), String> {
        for level in Kernel::all() {
            let mut slow = Scan::with_level(text, start, level);
            let want = (|| {
                let key = slow.key_bytes()?.into_owned();
                slow.ws_eat(b':')?;
                slow.ws();
                Some((key, slow.pos()))
            })();
            let mut fast = Scan::with_level(text, start, level);
            let got = match fast.plain_key() {
                Some(key) => Some((key.to_vec(), fast.pos())),
                None => {
                    if fast.pos() != start {
                        return Err(format!("{level:?}: moved on refusing"));
                    }
                    (|| {
                        let key = fast.key_bytes()?.into_owned();
                        fast.ws_eat(b':')?;
                        fast.ws();
                        Some((key, fast.pos()))
                    })()
                }
            };
            if got != want {
                return Err(format!(
                    "{level:?}: {got:?} vs {want:?}: {}",
                    String::from_utf8_lossy(text)
                ));
            }
        }
        Ok(())
    }

    #[test]
    fn plain_keys_read_as_the_three_steps_read_them() {
        let mut cases: Vec<Vec<u8>> = [
            &b"\"euser\":\"x\""[..],
            b"\"euser\" :1",
            b"\"euser\":  \n  1",
            b"\"eus\\u0065r\":1",
            b"\"a\\\"b\":1",
            b"\"a\x01\":1",
            b"\"a\xff\":1",
            b"\"\":1",
            b"\"a\"",
            b"\"a\":",
            b"\"a",
            b"a\":1",
            b"",
        ]
        .iter()
        .map(|c| c.to_vec())
        .collect();
        for n in [0, 1, 62, 63, 64, 65, 130] {
            cases.push(format!("\"{}\":1", "k".repeat(n)).into_bytes());
            cases.push(format!("\"{}\\n\":1", "k".repeat(n)).into_bytes());
        }
        // The key placed after 0–139 bytes of whitespace: it crosses a block at every offset.
        for case in &cases {
            for pad in 0..140 {
                let mut text = b" ".repeat(pad);
                text.extend_from_slice(case);
                keys_agree(&text, pad)
                    .map_err(|e| format!("pad {pad}: {e}"))
                    .unwrap();
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Generated members' keys: `plain_key` and its fallback read them as the three steps.
        #[test]
        fn generated_keys_read_as_the_three_steps_read_them(
            key in value_bytes(),
            sep in proptest::sample::select(vec![":", " :", ": ", ":\n   ", "", " "]),
            tail in proptest::sample::select(vec!["1", "\"v\"", "", "}"]),
        ) {
            let mut text = key;
            text.extend_from_slice(sep.as_bytes());
            text.extend_from_slice(tail.as_bytes());
            keys_agree(&text, 0).map_err(TestCaseError::fail)?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Generated values, and the same with one byte removed, replaced or inserted, at every
        /// offset against the blocks: the scanner and serde_json agree.
        #[test]
        fn generated_values_agree_with_serde_json(
            value in value_bytes(),
            pad in prop_oneof![0usize..130, 960usize..1090],
            at in any::<proptest::sample::Index>(),
            kind in 0u8..4,
            byte in proptest::sample::select(vec![
                b'"', b',', b'}', b'{', b']', b':', b'\\', 0x01, 0xff, 0xc3, b' ', b'0', b'-',
                b'e', b'.', b'[', b'n', b'u',
            ]),
        ) {
            agree(&value, pad).map_err(TestCaseError::fail)?;
            let mut mutated = value.clone();
            if !mutated.is_empty() {
                let i = at.index(mutated.len());
                match kind {
                    0 => {
                        mutated.remove(i);
                    }
                    1 => mutated[i] = byte,
                    2 => mutated.insert(i, byte),
                    _ => mutated.truncate(i),
                }
                agree(&mutated, pad).map_err(TestCaseError::fail)?;
            }
        }
    }
}
