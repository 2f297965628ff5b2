//! Rows of a large output rendered on two threads: the rows are cut into chunks, two chunks a
//! round are rendered into buffers at once (one on this thread, one on a pool thread), and the
//! buffers are written in row order, so the output is byte for byte what one thread writes
//! (issue #16: `share` of a million rows spent a fifth of its time formatting them).

use super::table::{StreamTable, TextCells};
use fairsort::parallel::{join, PARALLEL_MIN_JOBS};
use std::io::{self, Write};

/// The cells a table's first pass formatted, `per_row` a row, in two halves.
pub struct SplitCells {
    halves: [TextCells; 2],
    /// The first row of the second half.
    mid: usize,
    per_row: usize,
}

impl SplitCells {
    /// Cell `k` of row `row`.
    pub fn get(&self, row: usize, k: usize) -> &str {
        match row.checked_sub(self.mid) {
            None => self.halves[0].get(row * self.per_row + k),
            Some(r) => self.halves[1].get(r * self.per_row + k),
        }
    }
}

/// A table's first pass over `rows` on two threads (below [`PARALLEL_MIN_JOBS`] rows, one):
/// `pass(part, table, cells)` widens its copy of `t` and formats `per_row` cells a row of
/// `part`; the copies' widths are merged into `t`. `bytes` is about a cell's length.
pub fn first_pass<T: Sync>(
    t: &mut StreamTable,
    rows: &[T],
    per_row: usize,
    bytes: usize,
    pass: impl Fn(&[T], &mut StreamTable, &mut TextCells) + Sync,
) -> SplitCells {
    let mid = if rows.len() < PARALLEL_MIN_JOBS {
        rows.len()
    } else {
        rows.len() / 2
    };
    let (a, b) = rows.split_at(mid);
    let half = |part: &[T]| {
        let mut copy = t.clone();
        let mut cells =
            TextCells::with_capacity(part.len() * per_row, part.len() * per_row * bytes);
        pass(part, &mut copy, &mut cells);
        (copy, cells)
    };
    let ((ta, ca), (tb, cb)) = if b.is_empty() {
        (half(a), half(b))
    } else {
        join(|| half(a), || half(b))
    };
    t.widen_to(&ta);
    t.widen_to(&tb);
    SplitCells {
        halves: [ca, cb],
        mid,
        per_row,
    }
}

/// Rows rendered per chunk.
const CHUNK: usize = 1 << 12;

/// Writes `render`'s text of every item of `items` to `out`, in order. `render(first, chunk,
/// buf)` appends the text of `chunk`, whose first item is `items[first]`, to `buf`. Below
/// [`PARALLEL_MIN_JOBS`] items everything runs on this thread.
pub fn write_chunks<T: Sync>(
    out: &mut impl Write,
    items: &[T],
    render: impl Fn(usize, &[T], &mut Vec<u8>) -> io::Result<()> + Sync,
) -> io::Result<()> {
    let mut buf = Vec::new();
    if items.len() < PARALLEL_MIN_JOBS {
        for (k, chunk) in items.chunks(CHUNK).enumerate() {
            buf.clear();
            render(k * CHUNK, chunk, &mut buf)?;
            out.write_all(&buf)?;
        }
        return Ok(());
    }
    // The previous round's two buffers are written while this round's are rendered.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut done_a, mut done_b) = (Vec::<u8>::new(), Vec::<u8>::new());
    for (k, round) in items.chunks(2 * CHUNK).enumerate() {
        let first = k * 2 * CHUNK;
        let (left, right) = round.split_at(round.len().min(CHUNK));
        a.clear();
        b.clear();
        let (wa, wb) = (&mut a, &mut b);
        let (da, db) = (&done_a, &done_b);
        let out_ref = &mut *out;
        let render = &render;
        // Each side renders into a vector it owns for the round: `a` and `b` share a cache
        // line, and a thread writing its buffer's length through `wa`/`wb` a few times a row
        // took the line from the other thread each time (false sharing: rows of small pieces
        // took three times as long on two threads).
        let (ra, rb) = join(
            move || -> io::Result<()> {
                out_ref.write_all(da)?;
                out_ref.write_all(db)?;
                let mut own = std::mem::take(wa);
                let r = render(first, left, &mut own);
                *wa = own;
                r
            },
            move || {
                let mut own = std::mem::take(wb);
                let r = render(first + left.len(), right, &mut own);
                *wb = own;
                r
            },
        );
        ra?;
        rb?;
        std::mem::swap(&mut a, &mut done_a);
        std::mem::swap(&mut b, &mut done_b);
    }
    out.write_all(&done_a)?;
    out.write_all(&done_b)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same bytes as one thread writing item by item, for sizes around the chunk edges.
    #[test]
    fn same_bytes_as_one_thread() {
        for n in [
            0,
            1,
            CHUNK - 1,
            CHUNK,
            PARALLEL_MIN_JOBS,
            PARALLEL_MIN_JOBS + 2 * CHUNK + 3,
            5 * CHUNK + 1,
        ] {
            let items: Vec<u64> = (0..n as u64).map(|i| i * 7919 % 1000).collect();
            let mut want = Vec::new();
            for (i, x) in items.iter().enumerate() {
                writeln!(want, "{i} {x}").unwrap();
            }
            let mut got = Vec::new();
            write_chunks(&mut got, &items, |first, chunk, buf| {
                for (j, x) in chunk.iter().enumerate() {
                    writeln!(buf, "{} {x}", first + j)?;
                }
                Ok(())
            })
            .unwrap();
            assert!(got == want, "{n} items");
        }
    }

    /// Two halves give the widths and cells of one pass over every row.
    #[test]
    fn first_pass_in_halves_is_one_pass() {
        use super::super::table::Align;
        let rows: Vec<u64> = (0..PARALLEL_MIN_JOBS as u64 + 7).collect();
        let cols = [("a", Align::Left), ("b", Align::Right)];
        let pass = |part: &[u64], t: &mut StreamTable, cells: &mut TextCells| {
            for &r in part {
                // The widest cell of each column is in a different half.
                let a = if r == 3 { "x".repeat(9) } else { r.to_string() };
                let b = if r == rows.len() as u64 - 2 {
                    "y".repeat(12)
                } else {
                    "z".into()
                };
                t.widen(0, cells.push(|s| s.push_str(&a)));
                t.widen(1, cells.push(|s| s.push_str(&b)));
            }
        };
        let (mut one, mut halves) = (StreamTable::new(&cols), StreamTable::new(&cols));
        let mut all = TextCells::default();
        pass(&rows, &mut one, &mut all);
        let split = first_pass(&mut halves, &rows, 2, 4, pass);
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
        assert!(want.contains(&"-".repeat(12)));
        assert_eq!(header(halves), want);
    }

    #[test]
    fn a_render_error_is_returned() {
        let items = vec![0u8; PARALLEL_MIN_JOBS + 1];
        let r = write_chunks(&mut Vec::new(), &items, |first, _, _| {
            if first > 0 {
                Err(io::Error::other("bad"))
            } else {
                Ok(())
            }
        });
        assert_eq!(r.unwrap_err().to_string(), "bad");
    }
}
