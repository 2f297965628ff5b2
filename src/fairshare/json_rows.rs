//! The cells of the share rows that `share --json` and `--csv` print, and the JSON rows written
//! straight into an output buffer: the bytes `serde_json::to_writer_pretty` gives for a row,
//! moved two levels in, without serialising each row into a scratch buffer and copying it line
//! by line (that was half of `share --json`'s rows over a million users). The library prints
//! nothing: the caller gives the buffer.

use serde::ser::Serializer;
use serde::Serialize;
use serde_json::{json, Value};

/// One output cell, borrowed from the tree and the result: what `--json` prints as a JSON value
/// and `--csv` as text.
#[derive(Debug, Clone, Copy)]
pub enum Cell<'a> {
    /// JSON `null`, an empty CSV cell.
    Null,
    /// A string (names, "parent", "inf", "-inf").
    Text(&'a str),
    /// An integer (depth, shares).
    Int(u64),
    /// A finite number, printed as serde_json prints an `f64` (ryu).
    Num(f64),
}

impl Serialize for Cell<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Cell::Null => s.serialize_unit(),
            Cell::Text(t) => s.serialize_str(t),
            Cell::Int(i) => s.serialize_u64(i),
            Cell::Num(x) => s.serialize_f64(x),
        }
    }
}

impl Cell<'_> {
    /// Appends the cell as `--csv` prints it: the JSON value's text, strings unquoted, null empty.
    #[inline]
    pub fn write_text(self, out: &mut Vec<u8>) {
        match self {
            Cell::Null => {}
            Cell::Text(t) => out.extend_from_slice(t.as_bytes()),
            Cell::Int(i) => push_u64(out, i),
            Cell::Num(x) => push_f64(out, x),
        }
    }
}

/// zmij's buffer on a cache line of its own: its digits are written with wide stores, and a
/// buffer left to straddle two lines (wherever the caller's frame put it) made every float of
/// `share --json` half again as slow.
#[repr(align(64))]
struct FloatBuffer(zmij::Buffer);

/// Appends `x` as serde_json prints an `f64`: zmij's shortest round-trip digits, `null` when
/// not finite.
#[inline]
pub fn push_f64(out: &mut Vec<u8>, x: f64) {
    if x.is_finite() {
        let mut b = FloatBuffer(zmij::Buffer::new());
        out.extend_from_slice(b.0.format_finite(x).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

impl From<Cell<'_>> for Value {
    fn from(c: Cell<'_>) -> Value {
        match c {
            Cell::Null => Value::Null,
            Cell::Text(t) => t.into(),
            Cell::Int(i) => i.into(),
            Cell::Num(x) => json!(x),
        }
    }
}

/// The fixed text of `--json` rows for one list of field names: the key of each field with its
/// indentation, ready to copy.
pub struct JsonRowLayout {
    /// `"\n      \"name\": "` for each field, `,` first for all but the first.
    keys: Vec<Vec<u8>>,
}

impl JsonRowLayout {
    /// The layout of rows with these keys, in this order.
    pub fn new<'k>(names: impl IntoIterator<Item = &'k str>) -> JsonRowLayout {
        let keys = names
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let mut k = Vec::new();
                if i > 0 {
                    k.push(b',');
                }
                k.extend_from_slice(b"\n      ");
                push_str(&mut k, name);
                k.extend_from_slice(b": ");
                k
            })
            .collect();
        JsonRowLayout { keys }
    }

    /// Appends one row (the cells in key order) as `to_writer_pretty` prints a map of them,
    /// every line after the first indented four more spaces.
    pub fn write_row<'a>(&self, buf: &mut Vec<u8>, cells: impl IntoIterator<Item = Cell<'a>>) {
        buf.push(b'{');
        let mut n = 0;
        for (key, cell) in self.keys.iter().zip(cells) {
            buf.extend_from_slice(key);
            push_cell(buf, cell);
            n += 1;
        }
        if n == 0 {
            buf.push(b'}');
        } else {
            buf.extend_from_slice(b"\n    }");
        }
    }
}

/// Appends one cell as serde_json prints its value.
#[inline]
fn push_cell(buf: &mut Vec<u8>, cell: Cell<'_>) {
    match cell {
        Cell::Null => buf.extend_from_slice(b"null"),
        Cell::Text(t) => push_str(buf, t),
        Cell::Int(i) => push_u64(buf, i),
        // serde_json's own float formatting (and `null` for a non-finite value), to the byte.
        Cell::Num(x) => push_f64(buf, x),
    }
}

/// Appends `s` as a JSON string: quoted, escaped as serde_json escapes (`"`, `\` and control
/// characters below 0x20; everything else as is).
#[inline]
fn push_str(buf: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        let _ = serde_json::to_writer(&mut *buf, s);
    } else {
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
    }
}

/// Appends `i` in decimal.
#[inline]
fn push_u64(buf: &mut Vec<u8>, i: u64) {
    let mut digits = [0u8; 20];
    buf.extend_from_slice(crate::digits::decimal(i, &mut digits));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::ser::{SerializeMap, Serializer};
    use serde::Serialize;

    /// What `share --json` wrote before: each row pretty-printed alone by serde_json, its lines
    /// moved two levels in.
    fn serde_row(keys: &[&str], cells: &[Cell<'_>]) -> Vec<u8> {
        struct Row<'a, 'b>(&'a [&'a str], &'a [Cell<'b>]);
        impl Serialize for Row<'_, '_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, c) in self.0.iter().zip(self.1) {
                    m.serialize_entry(k, c)?;
                }
                m.end()
            }
        }
        let one = serde_json::to_vec_pretty(&Row(keys, cells)).unwrap();
        let mut out = Vec::new();
        for (i, line) in one.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                out.extend_from_slice(b"\n    ");
            }
            out.extend_from_slice(line);
        }
        out
    }

    /// Floats as serde_json prints them, to the byte: edge values and a spread of bit patterns
    /// (every exponent, both signs, NaNs and infinities as `null`).
    #[test]
    fn floats_are_serde_json_floats() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            0.1,
            1e-7,
            1e16,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(f64::from_bits(x));
        }
        for v in values {
            let mut got = b"kept".to_vec();
            push_f64(&mut got, v);
            let want = serde_json::to_vec(&v).unwrap();
            assert_eq!(&got[..4], b"kept");
            assert_eq!(got[4..], want[..], "{v:?}");
            let mut text = Vec::new();
            Cell::Num(v).write_text(&mut text);
            assert_eq!(text, want, "{v:?}");
        }
    }

    #[test]
    fn rows_are_serde_json_pretty_rows_to_the_byte() {
        let keys = [
            "account",
            "depth",
            "fairshare",
            "raw_shares",
            "user",
            "we\"ird",
        ];
        let texts = [
            "a",
            "",
            "quo\"te",
            "back\\slash",
            "tab\there",
            "nl\nx",
            "\u{1}\u{1f}\u{7f}",
            "j\u{e9}r\u{f4}me \u{4e2d}",
            "parent",
            "inf",
        ];
        let nums = [
            0.0,
            -0.0,
            1.0,
            0.5,
            1e-7,
            5e-324,
            1.7976931348623157e308,
            123456789.125,
            0.1 + 0.2,
            f64::NAN,
            f64::INFINITY,
        ];
        let ints = [0, 1, 9, 10, 99, 1000, u64::MAX];
        let layout = JsonRowLayout::new(keys);
        let mut seen = 0;
        for (i, &t) in texts.iter().enumerate() {
            for (j, &x) in nums.iter().enumerate() {
                let cells = [
                    Cell::Text(t),
                    Cell::Int(ints[(i + j) % ints.len()]),
                    Cell::Num(x),
                    if j % 2 == 0 {
                        Cell::Null
                    } else {
                        Cell::Int(ints[j % ints.len()])
                    },
                    Cell::Text(texts[(i + j) % texts.len()]),
                    Cell::Num(-x),
                ];
                let mut got = Vec::new();
                layout.write_row(&mut got, cells);
                let want = serde_row(&keys, &cells);
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{t:?} {x:?}"
                );
                seen += 1;
            }
        }
        assert_eq!(seen, texts.len() * nums.len());
        // No fields: `{}` as serde_json prints an empty map.
        let mut got = Vec::new();
        JsonRowLayout::new([]).write_row(&mut got, []);
        assert_eq!(got, serde_row(&[], &[]));
    }
}
