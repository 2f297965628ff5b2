//! `fairsort test --record`: write each unexpecting case's actual result into the file as its
//! `expect`, with `toml_edit` so the admin's layout and comments survive (snapshot testing).

use crate::ftest::case::CaseKind;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Value};

/// One expectation to write: the case (kind and index in its array) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// Kind of the case (which array).
    pub kind: CaseKind,
    /// Index in that array.
    pub index: usize,
    /// The value to store as `expect`.
    pub expect: toml::Value,
}

/// Why recording could not edit the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// The text no longer parses as TOML (it changed since it was loaded).
    #[error("cannot edit the test file: {0}")]
    Parse(String),
    /// The case is not where the loader found it (the file changed since it was loaded).
    #[error("cannot find {kind} case #{index} in the file (did it change while running?)", kind = .0.key(), index = .1 + 1)]
    Missing(CaseKind, usize),
}

/// `text` with every recording stored as its case's `expect`; everything else is kept as written.
pub fn record(text: &str, recordings: &[Recording]) -> Result<String, RecordError> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| RecordError::Parse(e.message().to_string()))?;
    for r in recordings {
        let missing = || RecordError::Missing(r.kind, r.index);
        let value = to_edit(&r.expect);
        match doc.get_mut(r.kind.key()) {
            Some(Item::ArrayOfTables(a)) => {
                let t = a.get_mut(r.index).ok_or_else(missing)?;
                t.insert("expect", Item::Value(value));
            }
            Some(Item::Value(Value::Array(a))) => {
                let t = a
                    .get_mut(r.index)
                    .and_then(Value::as_inline_table_mut)
                    .ok_or_else(missing)?;
                t.insert("expect", value);
            }
            _ => return Err(missing()),
        }
    }
    Ok(doc.to_string())
}

/// A `toml::Value` as an inline `toml_edit::Value`.
fn to_edit(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::from(s.as_str()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => Value::from(*f),
        toml::Value::Boolean(b) => Value::from(*b),
        toml::Value::Datetime(d) => Value::from(d.to_string()),
        toml::Value::Array(a) => {
            let mut arr = Array::new();
            for x in a {
                arr.push(to_edit(x));
            }
            Value::Array(arr)
        }
        toml::Value::Table(t) => {
            let mut it = InlineTable::new();
            for (k, x) in t {
                it.insert(k, to_edit(x));
            }
            Value::InlineTable(it)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_expect_keeping_comments_and_layout() {
        let text = "# my tests\n[[eval]]\nname = \"a\"  # keep me\nformula = \"ncpus\"\n\n[[eval]]\nformula = \"1/0\"\nexpect = 3\n\n[[eval]]\nformula = \"1/0\"\n";
        let mut err = toml::Table::new();
        err.insert(
            "error".into(),
            toml::Value::String("division by zero".into()),
        );
        let out = record(
            text,
            &[
                Recording {
                    kind: CaseKind::Eval,
                    index: 0,
                    expect: toml::Value::Float(4.5),
                },
                Recording {
                    kind: CaseKind::Eval,
                    index: 2,
                    expect: toml::Value::Table(err),
                },
            ],
        )
        .unwrap();
        assert_eq!(
            out,
            "# my tests\n[[eval]]\nname = \"a\"  # keep me\nformula = \"ncpus\"\nexpect = 4.5\n\n[[eval]]\nformula = \"1/0\"\nexpect = 3\n\n[[eval]]\nformula = \"1/0\"\nexpect = { error = \"division by zero\" }\n"
        );
    }

    #[test]
    fn inline_arrays_and_non_finite_values() {
        let text = "eval = [ { formula = \"inf\" } ]\n";
        let out = record(
            text,
            &[Recording {
                kind: CaseKind::Eval,
                index: 0,
                expect: toml::Value::Float(f64::INFINITY),
            }],
        )
        .unwrap();
        assert_eq!(out, "eval = [ { formula = \"inf\" , expect = inf } ]\n");
        let back: toml::Table = toml::from_str(&out).unwrap();
        assert!(back["eval"][0]["expect"].as_float().unwrap().is_infinite());
    }

    #[test]
    fn missing_case_is_an_error() {
        let e = record(
            "[[eval]]\n",
            &[Recording {
                kind: CaseKind::Eval,
                index: 3,
                expect: toml::Value::Integer(1),
            }],
        )
        .unwrap_err();
        assert_eq!(e, RecordError::Missing(CaseKind::Eval, 3));
    }
}
