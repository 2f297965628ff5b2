//! A table's first pass over its rows, in parts on every worker of the pool: each part widens
//! its own copy of the table and formats the cells the second pass needs, then the copies'
//! widths are merged (the rows themselves are rendered by `fairsort::parallel::write_chunks`).

use super::table::{StreamTable, TextCells};
use fairsort::parallel::{self, PARALLEL_MIN_JOBS};

/// The cells a table's first pass formatted, `per_row` a row, part by part.
pub struct SplitCells {
    parts: Vec<TextCells>,
    /// Every part but the last holds `1 << shift` rows (a shift, not a division, per cell).
    shift: u32,
    per_row: usize,
}

impl SplitCells {
    /// Cell `k` of row `row`.
    pub fn get(&self, row: usize, k: usize) -> &str {
        let part = row >> self.shift;
        match self.parts.get(part) {
            Some(cells) => cells.get((row - (part << self.shift)) * self.per_row + k),
            None => "",
        }
    }
}

/// A table's first pass over `rows` in parts on every worker (below [`PARALLEL_MIN_JOBS`] rows,
/// one part on this thread): `pass(part, table, cells)` widens its copy of `t` and formats
/// `per_row` cells a row of `part`; the copies' widths are merged into `t`. `bytes` is about a
/// cell's length.
pub fn first_pass<T: Sync>(
    t: &mut StreamTable,
    rows: &[T],
    per_row: usize,
    bytes: usize,
    pass: impl Fn(&[T], &mut StreamTable, &mut TextCells) + Sync,
) -> SplitCells {
    // Parts of a power of two of rows each, as many as the pool's parts or fewer.
    let count = parallel::part_count(rows.len(), PARALLEL_MIN_JOBS);
    let part_rows = rows.len().div_ceil(count).max(1).next_power_of_two();
    let ranges = parallel::even_ranges(rows.len(), rows.len().div_ceil(part_rows), part_rows);
    let table = &*t;
    let done = parallel::map_ranges(ranges, |r| {
        let part = rows.get(r).unwrap_or_default();
        let mut copy = table.clone();
        let mut cells =
            TextCells::with_capacity(part.len() * per_row, part.len() * per_row * bytes);
        pass(part, &mut copy, &mut cells);
        (copy, cells)
    });
    let mut parts = Vec::with_capacity(done.len());
    for (copy, cells) in done {
        t.widen_to(&copy);
        parts.push(cells);
    }
    SplitCells {
        parts,
        shift: part_rows.trailing_zeros(),
        per_row,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts give the widths and cells of one pass over every row.
    #[test]
    fn first_pass_in_parts_is_one_pass() {
        use super::super::table::Align;
        for n in [
            0,
            5,
            PARALLEL_MIN_JOBS as u64 + 7,
            3 * PARALLEL_MIN_JOBS as u64 + 1,
        ] {
            let rows: Vec<u64> = (0..n).collect();
            let cols = [("a", Align::Left), ("b", Align::Right)];
            let pass = |part: &[u64], t: &mut StreamTable, cells: &mut TextCells| {
                for &r in part {
                    // The widest cell of each column is in a different part.
                    let a = if r == 3 { "x".repeat(9) } else { r.to_string() };
                    let b = if r + 2 == n {
                        "y".repeat(12)
                    } else {
                        "z".into()
                    };
                    t.widen(0, cells.push(|s| s.push_str(&a)));
                    t.widen(1, cells.push(|s| s.push_str(&b)));
                }
            };
            let (mut one, mut parts) = (StreamTable::new(&cols), StreamTable::new(&cols));
            let mut all = TextCells::default();
            pass(&rows, &mut one, &mut all);
            let split = first_pass(&mut parts, &rows, 2, 4, pass);
            for i in 0..rows.len() {
                for k in 0..2 {
                    assert_eq!(split.get(i, k), all.get(i * 2 + k), "row {i} cell {k}");
                }
            }
            let header = |mut t: StreamTable| {
                let mut v = Vec::new();
                t.write_header(&mut v).unwrap();
                String::from_utf8(v).unwrap()
            };
            let want = header(one);
            assert_eq!(want.contains(&"-".repeat(12)), n >= 2, "{n} rows");
            assert_eq!(header(parts), want, "{n} rows");
        }
    }
}
