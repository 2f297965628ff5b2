//! One output cell of `fairsort share`'s `--json` and `--csv` rows, borrowed from the tree and
//! the result (the share table and its JSON row writer both use it).

use serde::{Serialize, Serializer};

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
