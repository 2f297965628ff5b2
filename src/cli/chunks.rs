//! Rows of a large output rendered on two threads: the rows are cut into chunks, two chunks a
//! round are rendered into buffers at once (one on this thread, one on a pool thread), and the
//! buffers are written in row order, so the output is byte for byte what one thread writes
//! (`share` of a million rows spent a fifth of its time formatting them).
//! [`write_ordered`] does the same without rounds: each of two workers renders the next chunk
//! and writes it when its turn comes, so writing one chunk overlaps rendering the next.

use super::table::{StreamTable, TextCells};
use fairsort::parallel::{join, PARALLEL_MIN_JOBS};
use std::io::{self, Write};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Whose turn it is to write, in [`write_ordered`].
struct Turn {
    /// The chunk to be written next.
    next: usize,
    /// A worker failed (an error or a panic): the others stop.
    failed: bool,
}

/// The turn shared by [`write_ordered`]'s workers.
struct Turns {
    turn: Mutex<Turn>,
    changed: Condvar,
}

impl Turns {
    fn lock(&self) -> MutexGuard<'_, Turn> {
        self.turn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until chunk `k` may be written; false when a worker failed.
    fn wait_for(&self, k: usize) -> bool {
        let mut t = self.lock();
        while t.next != k && !t.failed {
            t = self.changed.wait(t).unwrap_or_else(|e| e.into_inner());
        }
        !t.failed
    }

    /// Chunk `k` is written (`ok`) or its worker failed: the next one's turn, or everyone stops.
    fn done(&self, k: usize, ok: bool) {
        let mut t = self.lock();
        if ok {
            t.next = k + 1;
        } else {
            t.failed = true;
        }
        drop(t);
        self.changed.notify_all();
    }
}

/// Marks the turn failed if its worker unwinds (a panic in `render`), so the other worker,
/// waiting for the panicking one's chunk, stops instead of waiting forever.
struct FailOnUnwind<'a>(&'a Turns);

impl Drop for FailOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.done(0, false);
        }
    }
}

/// Writes the text of rows `0..rows`, rendered `chunk` rows at a time by `render(range,
/// buf)` (which appends the rows of `range` to `buf`), to `out` in row order: the bytes of
/// rendering and writing chunk after chunk on one thread. With `parallel`, two workers (this
/// thread and a pool thread) each take the next chunk not taken, render it into their own
/// buffer (kept and refilled: the memory is two chunks', whatever the rows) and write it once
/// the chunk before it is written, so one worker's write overlaps the other's rendering and
/// both cores render. An error stops both workers; the rows before the failed chunk are
/// written, as on one thread.
pub fn write_ordered<W: Write + Send>(
    out: &mut W,
    rows: usize,
    chunk: usize,
    parallel: bool,
    render: impl Fn(Range<usize>, &mut Vec<u8>) -> io::Result<()> + Sync,
) -> io::Result<()> {
    let chunk = chunk.max(1);
    let chunks = rows.div_ceil(chunk);
    let range = |k: usize| k * chunk..((k + 1) * chunk).min(rows);
    if !parallel || chunks < 2 {
        let mut buf = Vec::new();
        for k in 0..chunks {
            buf.clear();
            render(range(k), &mut buf)?;
            out.write_all(&buf)?;
        }
        return Ok(());
    }
    let taken = AtomicUsize::new(0);
    let turns = Turns {
        turn: Mutex::new(Turn {
            next: 0,
            failed: false,
        }),
        changed: Condvar::new(),
    };
    let out = Mutex::new(out);
    let worker = || -> io::Result<()> {
        let _unwind = FailOnUnwind(&turns);
        let mut buf = Vec::new();
        loop {
            let k = taken.fetch_add(1, Ordering::Relaxed);
            if k >= chunks {
                return Ok(());
            }
            buf.clear();
            let rendered = render(range(k), &mut buf);
            if !turns.wait_for(k) {
                // Another worker failed and returns its error.
                return Ok(());
            }
            let written = rendered.and_then(|()| {
                let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                out.write_all(&buf)
            });
            turns.done(k, written.is_ok());
            written?;
        }
    };
    let (a, b) = join(worker, worker);
    a.and(b)
}

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

    /// A writer that fails with `BrokenPipe` once `limit` bytes are written (a reader that
    /// closed its end).
    struct Closed {
        written: Vec<u8>,
        limit: usize,
    }

    impl Write for Closed {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.written.len() + buf.len() > self.limit {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Rows of different widths, one very wide, as one thread writes them.
    fn ordered_rows(rows: usize, chunk: usize, parallel: bool, wide: usize) -> Vec<u8> {
        let mut got = Vec::new();
        write_ordered(&mut got, rows, chunk, parallel, |range, buf| {
            for i in range {
                let n = if i == wide { 5000 } else { i % 37 };
                writeln!(buf, "{i} {}", "x".repeat(n))?;
            }
            Ok(())
        })
        .unwrap();
        got
    }

    /// Two workers write the bytes of one thread: 0, 1 and an odd number of rows, chunks of
    /// 1, 2 and 7 rows, the wide row first, last or inside a chunk, on each side of a boundary.
    #[test]
    fn ordered_chunks_are_one_thread_s_bytes() {
        for rows in [0usize, 1, 2, 3, 7, 8, 9, 64, 1001] {
            for chunk in [1, 2, 7, 1000] {
                for wide in [0, 6, 7, 8, rows.saturating_sub(1), usize::MAX] {
                    let want = ordered_rows(rows, chunk, false, wide);
                    let mut one = Vec::new();
                    for i in 0..rows {
                        let n = if i == wide { 5000 } else { i % 37 };
                        writeln!(one, "{i} {}", "x".repeat(n)).unwrap();
                    }
                    assert!(want == one, "{rows} rows, chunks of {chunk}, one thread");
                    for round in 0..3 {
                        let got = ordered_rows(rows, chunk, true, wide);
                        assert!(
                            got == want,
                            "{rows} rows, chunks of {chunk}, wide row {wide}, round {round}"
                        );
                    }
                }
            }
        }
    }

    /// An error in rendering stops both workers: the chunks before it are written, in order,
    /// and the error is returned; a closed output (`BrokenPipe`) likewise.
    #[test]
    fn ordered_errors_stop_both_workers() {
        for parallel in [false, true] {
            let mut got = Vec::new();
            let r = write_ordered(&mut got, 100, 3, parallel, |range, buf| {
                if range.contains(&50) {
                    return Err(io::Error::other("bad row 50"));
                }
                for i in range {
                    writeln!(buf, "{i}")?;
                }
                Ok(())
            });
            assert_eq!(r.unwrap_err().to_string(), "bad row 50");
            let want: String = (0..48).map(|i| format!("{i}\n")).collect();
            assert_eq!(String::from_utf8(got).unwrap(), want, "parallel {parallel}");
            let mut closed = Closed {
                written: Vec::new(),
                limit: 40,
            };
            let r = write_ordered(&mut closed, 1000, 4, parallel, |range, buf| {
                for i in range {
                    writeln!(buf, "{i}")?;
                }
                Ok(())
            });
            assert_eq!(r.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
            assert!(closed.written.len() <= 40);
            assert!(closed.written.ends_with(b"\n"));
        }
    }

    /// A panic in one worker's rendering reaches the caller; the other worker does not wait
    /// forever for the panicking worker's chunk.
    #[test]
    fn an_ordered_panic_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            let mut got = Vec::new();
            let _ = write_ordered(&mut got, 400, 2, true, |range, buf| {
                assert!(!range.contains(&101), "row 101 failed");
                for i in range {
                    writeln!(buf, "{i}")?;
                }
                Ok(())
            });
        });
        assert!(caught.is_err());
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
