//! A formula template: a `job_sort_formula` in which some names are parameters
//! (`a*fairshare_factor + b*eligible_time/3600`), bound to numbers to give the formula one
//! evaluation replays and the one the ready change sets.

use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// A template cut at its parameter names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Template {
    /// The formula as written.
    pub text: String,
    /// Literal text and parameter references, in order.
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Part {
    Text(String),
    /// The index of a parameter in the names given to [`Template::new`].
    Param(usize),
}

impl Template {
    /// Cuts `text` at every name of `names` that stands as a whole identifier (not inside a
    /// longer name, a number such as `1e5`, or after a `.`).
    pub fn new(text: &str, names: &[&str]) -> Template {
        let b = text.as_bytes();
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
                // A number, its exponent included (`1e-3`), copied as it is.
                let start = i;
                while i < b.len() {
                    let d = b[i];
                    let exp_sign =
                        (d == b'+' || d == b'-') && i > start && matches!(b[i - 1], b'e' | b'E');
                    if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || exp_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                lit.push_str(&text[start..i]);
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &text[start..i];
                let attribute = text[..start].trim_end().ends_with('.');
                match names.iter().position(|n| *n == word) {
                    Some(k) if !attribute => {
                        if !lit.is_empty() {
                            parts.push(Part::Text(std::mem::take(&mut lit)));
                        }
                        parts.push(Part::Param(k));
                    }
                    _ => lit.push_str(word),
                }
            } else {
                let ch = text[i..].chars().next().unwrap_or(' ');
                lit.push(ch);
                i += ch.len_utf8();
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Text(lit));
        }
        Template {
            text: text.to_string(),
            parts,
        }
    }

    /// Whether parameter `k` appears in the template.
    pub fn uses(&self, k: usize) -> bool {
        self.parts.contains(&Part::Param(k))
    }

    /// The formula with parameter `k` replaced by `values[k]` (a negative value in
    /// parentheses, so `x*a` stays a product).
    pub fn bind(&self, values: &[f64]) -> String {
        let mut out = String::with_capacity(self.text.len() + 16);
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Param(k) => {
                    let v = values.get(*k).copied().unwrap_or(0.0);
                    if v < 0.0 {
                        let _ = write!(out, "({})", number(v));
                    } else {
                        out.push_str(&number(v));
                    }
                }
            }
        }
        out
    }
}

/// `v` as the formula language reads it back exactly (Rust's shortest round-trip form).
pub fn number(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binds_whole_names_only() {
        let t = Template::new(
            "a*fairshare_factor + b*eligible_time/3600 + ab + 1e5*a + x.a",
            &["a", "b"],
        );
        assert_eq!(
            t.bind(&[2.0, -0.5]),
            "2*fairshare_factor + (-0.5)*eligible_time/3600 + ab + 1e5*2 + x.a"
        );
        assert!(t.uses(0) && t.uses(1));
        let t = Template::new("1e-3*c + ncpus", &["c", "e"]);
        assert_eq!(t.bind(&[1.25, 9.0]), "1e-3*1.25 + ncpus");
        assert!(!t.uses(1));
    }

    #[test]
    fn bound_formulas_compile_and_keep_their_value() {
        use crate::formula::{compile, ResourceTable};
        let t = Template::new("a*fairshare_factor + b", &["a", "b"]);
        let f = t.bind(&[1000.0, -0.0001235]);
        assert!(compile(&f, &ResourceTable::builtin()).is_ok(), "{f}");
        assert_eq!(number(0.1), "0.1");
        assert_eq!(number(3.0), "3");
    }
}
