//! A plain-text table with aligned columns, the default human output of every tabular command.

use std::io::{self, Write};

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Pad on the right (text).
    Left,
    /// Pad on the left (numbers).
    Right,
}

/// A table built row by row and rendered with columns padded to their widest cell.
#[derive(Debug, Clone, Default)]
pub struct Table {
    header: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers and alignments (one per column).
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Table {
            header: columns.iter().map(|(h, _)| h.to_string()).collect(),
            align: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; missing cells render empty, extra cells are ignored.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Renders header, a dashed rule and the rows; trailing spaces are trimmed.
    pub fn render(&self) -> String {
        let n = self.header.len();
        let columns: Vec<(&str, Align)> = (self.header.iter().map(String::as_str))
            .zip(self.align.iter().copied())
            .collect();
        let mut t = StreamTable::new(&columns);
        for r in &self.rows {
            for (i, c) in r.iter().take(n).enumerate() {
                t.widen(i, text_width(c));
            }
        }
        let mut out = Vec::new();
        let mut cells: Vec<&str> = Vec::with_capacity(n);
        let _ = t.write_header(&mut out);
        for r in &self.rows {
            cells.clear();
            cells.extend(r.iter().map(String::as_str));
            let _ = t.write_row(&mut out, &cells);
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

/// A cell's width in characters: the library's, which pads the order's rows the same way.
pub use fairsort::order::rows::text_width;

/// Cells formatted once into one buffer (one allocation for a million cells, not a million),
/// for tables whose widths need the formatted text before the first row is written.
#[derive(Debug, Clone, Default)]
pub struct TextCells {
    text: String,
    ends: Ends,
}

/// Where each cell of a [`TextCells`] ends: 4 bytes a cell while the text is under 4 GiB (a
/// million-row PBS table has five million cells), 8 after.
#[derive(Debug, Clone)]
enum Ends {
    Small(Vec<u32>),
    Large(Vec<usize>),
}

impl Default for Ends {
    fn default() -> Self {
        Ends::Small(Vec::new())
    }
}

impl TextCells {
    /// Room for `cells` cells of `bytes` bytes in all.
    pub fn with_capacity(cells: usize, bytes: usize) -> Self {
        TextCells {
            text: String::with_capacity(bytes),
            ends: Ends::Small(Vec::with_capacity(cells)),
        }
    }

    /// Appends one cell, written by `write`; returns its width in characters.
    pub fn push(&mut self, write: impl FnOnce(&mut String)) -> usize {
        let start = self.text.len();
        write(&mut self.text);
        self.push_end(self.text.len(), u32::MAX as usize);
        text_width(self.text.get(start..).unwrap_or(""))
    }

    /// Records a cell ending at `end`, moving to 8-byte ends past `small_max`.
    fn push_end(&mut self, end: usize, small_max: usize) {
        match &mut self.ends {
            Ends::Small(ends) if end <= small_max => ends.push(end as u32),
            Ends::Small(ends) => {
                let mut large: Vec<usize> = ends.iter().map(|&e| e as usize).collect();
                large.push(end);
                self.ends = Ends::Large(large);
            }
            Ends::Large(ends) => ends.push(end),
        }
    }

    /// Where cell `i` ends (0 past the end).
    fn end(&self, i: usize) -> usize {
        match &self.ends {
            Ends::Small(ends) => ends.get(i).map_or(0, |&e| e as usize),
            Ends::Large(ends) => ends.get(i).copied().unwrap_or(0),
        }
    }

    /// Cell `i` (in push order); empty past the end.
    pub fn get(&self, i: usize) -> &str {
        let start = match i {
            0 => 0,
            _ => self.end(i - 1),
        };
        let end = self.end(i);
        self.text.get(start..end).unwrap_or("")
    }
}

/// A table written row by row as rows are produced: the column widths are found first (by the
/// caller, from the data), then nothing is kept but one line buffer. [`Table`] renders through it.
#[derive(Debug, Clone)]
pub struct StreamTable {
    header: Vec<String>,
    align: Vec<Align>,
    width: Vec<usize>,
    line: String,
}

impl StreamTable {
    /// A table with these column headers and alignments; widths start at the headers'.
    pub fn new(columns: &[(&str, Align)]) -> Self {
        StreamTable {
            header: columns.iter().map(|(h, _)| h.to_string()).collect(),
            align: columns.iter().map(|(_, a)| *a).collect(),
            width: columns.iter().map(|(h, _)| h.chars().count()).collect(),
            line: String::new(),
        }
    }

    /// Makes column `i` at least `chars` characters wide.
    pub fn widen(&mut self, i: usize, chars: usize) {
        if let Some(w) = self.width.get_mut(i) {
            *w = (*w).max(chars);
        }
    }

    /// Widens every column to at least `other`'s width (widths found over parts of the rows).
    pub fn widen_to(&mut self, other: &StreamTable) {
        for (i, &w) in other.width.iter().enumerate() {
            self.widen(i, w);
        }
    }

    /// The width of column `i` (0 past the last).
    pub fn width(&self, i: usize) -> usize {
        self.width.get(i).copied().unwrap_or(0)
    }

    /// Writes the header and a dashed rule.
    pub fn write_header(&mut self, out: &mut impl Write) -> io::Result<()> {
        let header = std::mem::take(&mut self.header);
        let cells: Vec<&str> = header.iter().map(String::as_str).collect();
        let written = self.write_row(out, &cells);
        self.header = header;
        written?;
        let rule: Vec<String> = self.width.iter().map(|w| "-".repeat(*w)).collect();
        let cells: Vec<&str> = rule.iter().map(String::as_str).collect();
        self.write_row(out, &cells)
    }

    /// Writes one row, padded to the widths; missing cells are empty, extra cells ignored;
    /// trailing spaces are trimmed.
    pub fn write_row(&mut self, out: &mut impl Write, cells: &[&str]) -> io::Result<()> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        self.push_row(&mut line, cells);
        let written = out.write_all(line.as_bytes());
        self.line = line;
        written
    }

    /// Appends one row to `out` as [`StreamTable::write_row`] writes it (for rows formatted
    /// apart, e.g. in chunks on several threads, and written in order later).
    pub fn push_row(&self, out: &mut String, cells: &[&str]) {
        let start = out.len();
        for (i, (w, align)) in self.width.iter().zip(&self.align).enumerate() {
            let c = cells.get(i).copied().unwrap_or("");
            let pad = w.saturating_sub(text_width(c));
            if i > 0 {
                out.push_str("  ");
            }
            match align {
                Align::Left => {
                    out.push_str(c);
                    push_spaces(out, pad);
                }
                Align::Right => {
                    push_spaces(out, pad);
                    out.push_str(c);
                }
            }
        }
        let kept = out.get(start..).map_or(0, |line| line.trim_end().len());
        out.truncate(start + kept);
        out.push('\n');
    }
}

/// Appends `n` spaces.
fn push_spaces(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = n;
    while left > 0 {
        let k = left.min(SPACES.len());
        out.push_str(SPACES.get(..k).unwrap_or(""));
        left -= k;
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn text_cells_keep_their_cells_across_the_move_to_large_ends() {
        let mut cells = TextCells::with_capacity(2, 8);
        assert_eq!(cells.push(|s| s.push_str("ab")), 2);
        assert_eq!(cells.push(|s| s.push_str("écu")), 3);
        assert_eq!(
            (cells.get(0), cells.get(1), cells.get(2)),
            ("ab", "écu", "")
        );
        // Past a (here tiny) limit the ends move to usize, keeping what was pushed.
        cells.text.push_str("xyz");
        cells.push_end(cells.text.len(), 4);
        assert!(matches!(cells.ends, Ends::Large(_)));
        assert_eq!(
            (cells.get(0), cells.get(1), cells.get(2)),
            ("ab", "écu", "xyz")
        );
        assert_eq!(cells.push(|s| s.push('q')), 1);
        assert_eq!(cells.get(3), "q");
    }

    use super::*;

    #[test]
    fn long_padding_and_blank_rows_are_written_as_before() {
        let wide = "x".repeat(150);
        let mut t = Table::new(&[("a", Align::Right), ("b", Align::Left)]);
        t.row(vec![wide.clone(), "y".into()]);
        t.row(vec!["1".into(), wide.clone()]);
        t.row(vec![String::new(), String::new()]);
        let want = format!(
            "{}a  b\n{}  {}\n{wide}  y\n{}1  {wide}\n\n",
            " ".repeat(149),
            "-".repeat(150),
            "-".repeat(150),
            " ".repeat(149)
        );
        assert_eq!(t.render(), want);
    }

    #[test]
    fn pads_columns_to_widest_cell() {
        let mut t = Table::new(&[("name", Align::Left), ("value", Align::Right)]);
        t.row(vec!["a".into(), "1.5".into()]);
        t.row(vec!["longer".into(), "10".into()]);
        assert_eq!(
            t.render(),
            "name    value\n------  -----\na         1.5\nlonger     10\n"
        );
    }
}
