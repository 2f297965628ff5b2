//! Rows of a large output rendered on two threads: the rows are cut into chunks, two chunks a
//! round are rendered into buffers at once (one on this thread, one on a pool thread), and the
//! buffers are written in row order, so the output is byte for byte what one thread writes
//! (issue #16: `share` of a million rows spent a fifth of its time formatting them).

use fairsort::parallel::{join, PARALLEL_MIN_JOBS};
use std::io::{self, Write};

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
        let (ra, rb) = join(
            move || -> io::Result<()> {
                out_ref.write_all(da)?;
                out_ref.write_all(db)?;
                render(first, left, wa)
            },
            move || render(first + left.len(), right, wb),
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
