//! The `|`-separated layout shared by `sshare -P/-p` and `sacctmgr -P/-p`: a header naming the
//! columns, then rows with exactly as many fields.

use crate::files::text;
use crate::files::FormatError;

/// A parsed `|` table: normalised column names and each row's 1-based line and fields. The
/// fields of all rows live in one flat vector (one allocation, not one per row).
pub struct PipeTable<'a> {
    /// Header names, lower-case without spaces or underscores (`Raw Shares` → `rawshares`).
    pub columns: Vec<String>,
    /// 1-based line of each data row.
    lines: Vec<usize>,
    /// Row `i`'s fields are `cells[i * columns.len()..(i + 1) * columns.len()]`.
    cells: Vec<&'a str>,
}

impl<'a> PipeTable<'a> {
    /// `(line, fields)` of each data row, in input order.
    pub fn rows(&self) -> impl Iterator<Item = (usize, &[&'a str])> + '_ {
        let width = self.columns.len().max(1);
        self.lines.iter().copied().zip(self.cells.chunks(width))
    }

    /// Index of the first column whose normalised name is one of `names`.
    pub fn col(&self, names: &[&str]) -> Option<usize> {
        col_of(&self.columns, names)
    }
}

/// `Raw Shares` / `RawShares` / `raw_shares` → `rawshares`.
pub(crate) fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The data rows of a `|` table one at a time, with one reused field buffer, so a
/// million-row capture is never held as a table (`parse` collects them when a table is needed).
pub(crate) struct PipeRows<'a> {
    lines: Box<dyn Iterator<Item = Result<(usize, &'a str), FormatError>> + 'a>,
    file: &'a str,
    /// Normalised column names.
    columns: Vec<String>,
    /// Number of header fields.
    width: usize,
    /// Whether rows end in `|` (`-p`).
    trailing: bool,
    /// The current row's fields.
    fields: Vec<&'a str>,
}

impl<'a> PipeRows<'a> {
    /// Reads `text` up to its header. `-p` output (every line ends in `|`) is recognised from
    /// the header; `CLUSTER: name` banner lines and blank lines are skipped.
    pub(crate) fn new(text: &'a str, file: &'a str) -> Result<PipeRows<'a>, FormatError> {
        let mut lines: Box<dyn Iterator<Item = _> + 'a> = Box::new(text::lines(text, file));
        for item in lines.by_ref() {
            let (n, line) = item?;
            if skipped(line) {
                continue;
            }
            if !line.contains('|') {
                return Err(FormatError::line(
                    file,
                    n,
                    "no `|` separators: capture the output with -P (or -p), with its header",
                ));
            }
            let trailing = line.ends_with('|');
            let body = line.strip_suffix('|').unwrap_or(line);
            let columns: Vec<String> = body.split('|').map(normalise).collect();
            return Ok(PipeRows {
                lines,
                file,
                width: columns.len(),
                columns,
                trailing,
                fields: Vec::new(),
            });
        }
        Err(FormatError::file(file, "empty input: no header line"))
    }

    /// Index of the first column whose normalised name is one of `names`.
    pub(crate) fn col(&self, names: &[&str]) -> Option<usize> {
        col_of(&self.columns, names)
    }

    /// The next data row's 1-based line and fields, or its layout error.
    pub(crate) fn next_row(&mut self) -> Option<Result<(usize, &[&'a str]), FormatError>> {
        loop {
            let (n, line) = match self.lines.next()? {
                Ok(l) => l,
                Err(e) => return Some(Err(e)),
            };
            if skipped(line) {
                continue;
            }
            let body = if self.trailing {
                match line.strip_suffix('|') {
                    Some(b) => b,
                    None => {
                        return Some(Err(FormatError::line(
                            self.file,
                            n,
                            "expected a trailing `|` as in the header (-p)",
                        )))
                    }
                }
            } else {
                line
            };
            // `body.split('|')`, with the bars found by one scan of the line.
            self.fields.clear();
            let mut from = 0;
            for bar in memchr::memchr_iter(b'|', body.as_bytes()) {
                self.fields.push(body.get(from..bar).unwrap_or(""));
                from = bar + 1;
            }
            self.fields.push(body.get(from..).unwrap_or(""));
            if self.fields.len() != self.width {
                return Some(Err(FormatError::line(
                    self.file,
                    n,
                    format!(
                        "expected {} `|`-separated fields as in the header, found {}",
                        self.width,
                        self.fields.len()
                    ),
                )));
            }
            return Some(Ok((n, &self.fields)));
        }
    }

    /// The first layout error of the rows not read yet, if any: a reader that met an error of
    /// its own in a row reports this one instead, as a reader of the whole table would have.
    pub(crate) fn first_layout_error(&mut self) -> Option<FormatError> {
        while let Some(row) = self.next_row() {
            if let Err(e) = row {
                return Some(e);
            }
        }
        None
    }
}

/// Blank lines and `CLUSTER: name` banners are not rows.
fn skipped(line: &str) -> bool {
    // A printable ASCII byte among the first few makes the line not blank without `trim`
    // (rows start with a name or a few spaces of indentation).
    let shown = line.bytes().take(8).any(|b| b > b' ' && b < 0x7f);
    (!shown && line.trim().is_empty()) || (line.starts_with('C') && line.starts_with("CLUSTER: "))
}

fn col_of(columns: &[String], names: &[&str]) -> Option<usize> {
    columns.iter().position(|c| names.iter().any(|n| c == n))
}

/// Splits `text` into header and rows (see [`PipeRows::new`] for the layout).
pub fn parse<'a>(text: &'a str, file: &'a str) -> Result<PipeTable<'a>, FormatError> {
    let hint = text::line_count_hint(text);
    let mut rows = PipeRows::new(text, file)?;
    let mut lines = Vec::with_capacity(hint);
    let mut cells: Vec<&str> = Vec::with_capacity(hint.saturating_mul(rows.width));
    while let Some(row) = rows.next_row() {
        let (n, fields) = row?;
        cells.extend_from_slice(fields);
        lines.push(n);
    }
    Ok(PipeTable {
        columns: rows.columns,
        lines,
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast blank check agrees with `trim`, and rows split as `str::split('|')` splits.
    #[test]
    fn skipped_lines_and_fields_as_before() {
        for line in [
            "",
            " ",
            "\t \u{a0}",
            "        \u{3000}",
            "          x",
            "\u{a0}\u{a0}\u{a0}\u{a0}y",
            "CLUSTER: c1",
            "CLUSTER:c1",
            " CLUSTER: c1",
            "Cx",
            "  a|u|1",
            "\x7f",
        ] {
            let old = line.trim().is_empty() || line.starts_with("CLUSTER: ");
            assert_eq!(skipped(line), old, "{line:?}");
        }
        let text = "A|B|C\n|x||\n a|\u{e9}|c\n||\n";
        let mut rows = PipeRows::new(text, "f").unwrap();
        let mut got = Vec::new();
        while let Some(row) = rows.next_row() {
            got.push(row.map(|(n, f)| (n, f.to_vec())).map_err(|e| e.to_string()));
        }
        let ok = |n: usize, f: &[&'static str]| Ok((n, f.to_vec()));
        assert!(got[0].as_ref().unwrap_err().contains("found 4"), "{got:?}");
        assert_eq!(got[1], ok(3, &[" a", "\u{e9}", "c"]));
        assert_eq!(got[2], ok(4, &["", "", ""]));
        assert_eq!(got.len(), 3);
    }
}
