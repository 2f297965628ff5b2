//! The `|`-separated layout shared by `sshare -P/-p` and `sacctmgr -P/-p`: a header naming the
//! columns, then rows with exactly as many fields.

use crate::formats::text;
use crate::formats::FormatError;

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
    /// Number of data rows.
    pub(crate) fn row_count(&self) -> usize {
        self.lines.len()
    }

    /// `(line, fields)` of each data row, in input order.
    pub fn rows(&self) -> impl Iterator<Item = (usize, &[&'a str])> + '_ {
        let width = self.columns.len().max(1);
        self.lines.iter().copied().zip(self.cells.chunks(width))
    }

    /// Index of the first column whose normalised name is one of `names`.
    pub fn col(&self, names: &[&str]) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| names.iter().any(|n| c == n))
    }
}

/// `Raw Shares` / `RawShares` / `raw_shares` → `rawshares`.
pub(crate) fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Splits `text` into header and rows. `-p` output (every line ends in `|`) is recognised from
/// the header; `CLUSTER: name` banner lines and blank lines are skipped.
pub fn parse<'a>(text: &'a str, file: &'a str) -> Result<PipeTable<'a>, FormatError> {
    let mut header: Option<(usize, Vec<&str>, bool)> = None;
    let hint = text::line_count_hint(text);
    let mut lines = Vec::with_capacity(hint);
    let mut cells: Vec<&str> = Vec::new();
    for item in text::lines(text, file) {
        let (n, line) = item?;
        if line.trim().is_empty() || line.starts_with("CLUSTER: ") {
            continue;
        }
        match &header {
            None => {
                if !line.contains('|') {
                    return Err(FormatError::line(
                        file,
                        n,
                        "no `|` separators: capture the output with -P (or -p), with its header",
                    ));
                }
                let trailing = line.ends_with('|');
                let body = line.strip_suffix('|').unwrap_or(line);
                header = Some((n, body.split('|').collect(), trailing));
                let width = header.as_ref().map_or(0, |h| h.1.len());
                cells.reserve(hint.saturating_mul(width));
            }
            Some((_, cols, trailing)) => {
                let body = if *trailing {
                    line.strip_suffix('|').ok_or_else(|| {
                        FormatError::line(file, n, "expected a trailing `|` as in the header (-p)")
                    })?
                } else {
                    line
                };
                let before = cells.len();
                cells.extend(body.split('|'));
                let found = cells.len() - before;
                if found != cols.len() {
                    return Err(FormatError::line(
                        file,
                        n,
                        format!(
                            "expected {} `|`-separated fields as in the header, found {}",
                            cols.len(),
                            found
                        ),
                    ));
                }
                lines.push(n);
            }
        }
    }
    let Some((_, cols, _)) = header else {
        return Err(FormatError::file(file, "empty input: no header line"));
    };
    Ok(PipeTable {
        columns: cols.iter().map(|c| normalise(c)).collect(),
        lines,
        cells,
    })
}
