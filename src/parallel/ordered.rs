//! Rows of a large output rendered on every worker and written in order: the rows are cut into
//! chunks, each worker renders the next chunk not taken into its own buffer (kept and
//! refilled) and writes it once the chunk before it is written, so one worker's write overlaps
//! the others' rendering and the bytes are those of rendering and writing chunk after chunk on
//! one thread (`share` of a million rows spent a fifth of its time formatting them on one).
//! The library prints nothing: the caller gives the writer.

use super::{each_worker, workers, PARALLEL_MIN_JOBS};
use std::io::{self, Write};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

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
        self.turn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until chunk `k` may be written; false when a worker failed.
    fn wait_for(&self, k: usize) -> bool {
        let mut t = self.lock();
        while t.next != k && !t.failed {
            t = self.changed.wait(t).unwrap_or_else(PoisonError::into_inner);
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

/// Marks the turn failed if its worker unwinds (a panic in `render`), so the other workers,
/// waiting for the panicking one's chunk, stop instead of waiting forever.
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
/// rendering and writing chunk after chunk on one thread. With `parallel`, every worker of the
/// pool (this thread among them) takes the next chunk not taken, renders it into its own
/// buffer (the memory is a chunk's per worker, whatever the rows) and writes it once the chunk
/// before it is written. An error stops every worker: the rows before the failed chunk are
/// written, as on one thread, and the error is returned.
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
    let k = if parallel { workers().min(chunks) } else { 1 };
    if k < 2 {
        let mut buf = Vec::new();
        for c in 0..chunks {
            buf.clear();
            render(range(c), &mut buf)?;
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
    let worker = |_: usize| -> io::Result<()> {
        let _unwind = FailOnUnwind(&turns);
        let mut buf = Vec::new();
        loop {
            let c = taken.fetch_add(1, Ordering::Relaxed);
            if c >= chunks {
                return Ok(());
            }
            buf.clear();
            let rendered = render(range(c), &mut buf);
            if !turns.wait_for(c) {
                // Another worker failed and returns its error.
                return Ok(());
            }
            let written = rendered.and_then(|()| {
                let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
                out.write_all(&buf)
            });
            turns.done(c, written.is_ok());
            written?;
        }
    };
    // One worker fails at most (the others stop at its chunk): its error, else none.
    each_worker(k, worker).into_iter().collect()
}

/// Rows per chunk of [`write_chunks`].
const CHUNK: usize = 1 << 12;

/// Writes `render`'s text of every item of `items` to `out`, in order, as [`write_ordered`]
/// does from [`PARALLEL_MIN_JOBS`] items up (on this thread below): `render(first, chunk,
/// buf)` appends the text of `chunk`, whose first item is `items[first]`, to `buf`.
pub fn write_chunks<T: Sync, W: Write + Send>(
    out: &mut W,
    items: &[T],
    render: impl Fn(usize, &[T], &mut Vec<u8>) -> io::Result<()> + Sync,
) -> io::Result<()> {
    let parallel = items.len() >= PARALLEL_MIN_JOBS;
    write_ordered(out, items.len(), CHUNK, parallel, |range, buf| {
        let first = range.start;
        render(first, items.get(range).unwrap_or_default(), buf)
    })
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

    /// Every worker writes the bytes of one thread: 0, 1 and an odd number of rows, chunks of
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

    /// An error in rendering stops every worker: the chunks before it are written, in order,
    /// and the error is returned; a closed output (`BrokenPipe`) likewise.
    #[test]
    fn ordered_errors_stop_every_worker() {
        for parallel in [false, true] {
            let mut got = Vec::new();
            let r = write_ordered(&mut got, 100, 3, parallel, |range, buf| {
                if range.contains(&50) {
                    return Err(io::Error::other("bad row 50"));
                }
                if range.contains(&80) {
                    return Err(io::Error::other("bad row 80"));
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

    /// A panic in one worker's rendering reaches the caller; the other workers do not wait
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
