//! A plain-text table with aligned columns, the default human output of every tabular command.

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
        let mut width: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().take(n).enumerate() {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            let mut s = String::new();
            for (i, (w, align)) in width.iter().zip(&self.align).enumerate() {
                let c = cells.get(i).map(String::as_str).unwrap_or("");
                let pad = w.saturating_sub(c.chars().count());
                if i > 0 {
                    s.push_str("  ");
                }
                match align {
                    Align::Left => {
                        s.push_str(c);
                        s.push_str(&" ".repeat(pad));
                    }
                    Align::Right => {
                        s.push_str(&" ".repeat(pad));
                        s.push_str(c);
                    }
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(&self.header, &mut out);
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        line(&rule, &mut out);
        for r in &self.rows {
            line(r, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
