//! Where a value sits in a hand-edited TOML file: 1-based line and column of a byte offset, and
//! of a key path (`["queues", "workq", "priority"]`, `["entity", "3", "usage"]`) found with
//! toml_edit's spans. The home's state and usage files report their problems with these.

use std::ops::Range;

/// A 1-based (line, column) in `text`; the column counts characters, not bytes.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[start..].chars().count() + 1;
    (line, col)
}

/// The span of the deepest element of `path` present in `text`: the value of a key, a table of
/// an array of tables (a step that parses as an index), else the table that would hold the
/// missing key. `None` if the text does not parse or not even the first step is present.
pub fn span_of(text: &str, path: &[&str]) -> Option<Range<usize>> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    walk_table(doc.as_table(), path, None)
}

fn walk_table(
    t: &toml_edit::Table,
    path: &[&str],
    best: Option<Range<usize>>,
) -> Option<Range<usize>> {
    let Some((first, rest)) = path.split_first() else {
        return best;
    };
    let Some(child) = t.get(first) else {
        return best;
    };
    let here = child
        .span()
        .or_else(|| t.key(first).and_then(|k| k.span()))
        .or(best);
    match child {
        toml_edit::Item::Table(inner) => walk_table(inner, rest, here),
        toml_edit::Item::ArrayOfTables(a) => {
            let Some((index, rest)) = rest.split_first() else {
                return here;
            };
            match index.parse::<usize>().ok().and_then(|i| a.get(i)) {
                Some(inner) => {
                    let here = inner.span().or(here);
                    walk_table(inner, rest, here)
                }
                None => here,
            }
        }
        _ => here,
    }
}

/// Line and column of `path` in `text` (see [`span_of`]); (1, 1) when nothing of it is found.
pub fn locate(text: &str, path: &[&str]) -> (usize, usize) {
    span_of(text, path).map_or((1, 1), |s| line_col(text, s.start))
}

/// A parser's message on one line (toml's span several: `invalid string\nexpected ...`).
pub fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# c\n[server]\nmanagers = [\"root@*\"]\n\n[queues.workq]\npriority = 99999\n\n[[entity]]\nname = \"a\"\nusage = 1.0\n\n[[entity]]\nname = \"b\"\nusage  =  -5.0\n";

    #[test]
    fn positions() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é=x", 2), (1, 2));
        assert_eq!(locate(TEXT, &["server", "managers"]), (3, 12));
        assert_eq!(locate(TEXT, &["queues", "workq", "priority"]), (6, 12));
        assert_eq!(locate(TEXT, &["entity", "1", "usage"]), (14, 11));
        assert_eq!(locate(TEXT, &["entity", "0", "name"]), (9, 8));
        assert_eq!(locate("x = [", &["x"]), (1, 1));
    }
}
