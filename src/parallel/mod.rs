//! The crate's one way to run work in parallel, on rayon's pool: the large-queue and large-tree
//! passes (evaluation and sorting of a million-job queue, its columns, its duplicate-id check,
//! the tree's rows, Fair Tree's sibling sorts, the chunks of a PBS accounting log that
//! `usage record` parses, the rows of a large output). A pass is cut into parts and spread over
//! every worker of the pool — the calling thread and the pool's threads, as many as the
//! machine's cores (or `RAYON_NUM_THREADS`) — each worker taking the next part not taken as it
//! comes free, so the same binary keeps two cores or sixty-four busy.
//!
//! One policy for failures: a part's result — an error value included — comes back to the
//! caller as that part returned it, in the parts' order, to be returned or handled there, never
//! replaced by a default; a panic in any part (a bug) is resumed on the calling thread with its
//! own payload once the other workers have stopped, as if the work had run there (rayon's
//! scopes do this).

mod gather;
mod lines;
mod ordered;
mod sort;
pub(crate) mod stages;

pub use gather::gather_fronts;
pub use lines::line_parts;
pub use ordered::{write_chunks, write_ordered};
pub use sort::sort_unstable;

use std::ops::Range;
use std::sync::{Mutex, PoisonError};

/// Below this many jobs — or tree nodes, for the tree's passes — a pass stays on the calling
/// thread (splitting costs more than it saves, and the pool is not started): evaluation
/// and sorting, the columns, the duplicate-id check, the append, the sibling sorts, the rows.
pub const PARALLEL_MIN_JOBS: usize = 1 << 16;

/// Below this many bytes a text is read on the calling thread (a `qstat -f -F json` file's
/// `Jobs`, a PBS accounting log).
pub const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Parts per worker of a pass whose parts are cheap to put together: a worker slowed down (by
/// another process on its core) leaves its later parts to the others.
const PARTS_PER_WORKER: usize = 4;

/// How many workers a pass spreads over: the pool's threads (one per core the process may
/// run on, or `RAYON_NUM_THREADS`), the calling thread taking the place of one of them.
pub fn workers() -> usize {
    rayon::current_num_threads().max(1)
}

/// The ranges a pass over `len` items is cut into, in order and covering `0..len` once: one
/// range below `threshold` items; else about [`PARTS_PER_WORKER`] per worker, none shorter
/// than an eighth of `threshold`, each a whole number of `align` items but the last (blocks of
/// a pass stay whole).
pub fn ranges(len: usize, threshold: usize, align: usize) -> Vec<Range<usize>> {
    even_ranges(len, part_count(len, threshold), align)
}

/// How many parts [`ranges`] cuts a pass over `len` items into (1 below `threshold`).
pub fn part_count(len: usize, threshold: usize) -> usize {
    if len < threshold {
        return 1;
    }
    let shortest = (threshold / 8).max(1);
    (workers() * PARTS_PER_WORKER).min(len / shortest).max(1)
}

/// `0..len` cut into `parts` ranges of one length, a whole number of `align` items each (the
/// last takes what is left, and there are fewer ranges when `len` is short); none is empty
/// unless `len` is 0 (then one empty range).
pub fn even_ranges(len: usize, parts: usize, align: usize) -> Vec<Range<usize>> {
    let align = align.max(1);
    let step = len.div_ceil(parts.max(1)).div_ceil(align).max(1) * align;
    let mut out = Vec::with_capacity(parts.max(1));
    let mut start = 0;
    while start < len {
        let end = start.saturating_add(step).min(len);
        out.push(start..end);
        start = end;
    }
    if out.is_empty() {
        out.push(0..0);
    }
    out
}

/// `items` cut at `ranges` (consecutive, from 0, as [`ranges`] makes them) into disjoint
/// mutable parts, one per range.
pub fn split_mut<'a, T>(items: &'a mut [T], ranges: &[Range<usize>]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(ranges.len());
    let mut rest = items;
    let mut at = 0;
    for r in ranges {
        let take = r.end.saturating_sub(at).min(rest.len());
        let (part, tail) = rest.split_at_mut(take);
        out.push(part);
        rest = tail;
        at += take;
    }
    out
}

/// Runs `work` on every part of `parts` and returns the results in the parts' order. The
/// parts are taken one at a time, in order, by up to [`workers`] workers — this thread and
/// pool threads — each taking the next part as it comes free. One part, or one worker: all on
/// this thread, without the pool.
pub fn run_parts<P: Send, R: Send>(parts: Vec<P>, work: impl Fn(P) -> R + Sync) -> Vec<R> {
    let count = parts.len();
    let k = if count > 1 { workers().min(count) } else { 1 };
    if k <= 1 {
        return parts.into_iter().map(work).collect();
    }
    let queue = Mutex::new(parts.into_iter().enumerate());
    let done: Vec<Vec<(usize, R)>> = each_worker(k, |_| {
        let mut done = Vec::new();
        loop {
            // The lock is held only to take a part: `work` runs outside it.
            let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
            match next {
                Some((i, part)) => done.push((i, work(part))),
                None => return done,
            }
        }
    });
    let mut slots: Vec<Option<R>> = (0..count).map(|_| None).collect();
    for (i, r) in done.into_iter().flatten() {
        if let Some(slot) = slots.get_mut(i) {
            *slot = Some(r);
        }
    }
    // Every part was taken and its worker returned (a panic would have been resumed above).
    slots.into_iter().flatten().collect()
}

/// `work` over each range of `ranges`, as [`run_parts`].
pub fn map_ranges<R: Send>(
    ranges: Vec<Range<usize>>,
    work: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    run_parts(ranges, work)
}

/// The parts' vectors one after the other in one vector (the only part itself, not copied).
pub fn concat<T>(mut parts: Vec<Vec<T>>) -> Vec<T> {
    if parts.len() == 1 {
        return parts.pop().unwrap_or_default();
    }
    let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for mut part in parts {
        out.append(&mut part);
    }
    out
}

/// Runs `f(0)` on this thread and `f(1)` … `f(k - 1)` on pool threads, at once, and returns
/// their results in that order once every one is done. A panic in any is resumed here.
///
/// The caller works on a part itself, as with scoped threads: with rayon's `join` or a
/// parallel iterator called from outside the pool, every part ran on the pool's threads while
/// the caller slept, and the caller's next (serial) step then shared the cores with pool
/// threads still spinning for work — 4–8 ms more for `order` after the evaluation of a million
/// jobs on a 2-core machine.
pub fn each_worker<R: Send>(k: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let mut slots: Vec<Option<R>> = (0..k.max(1)).map(|_| None).collect();
    let f = &f;
    rayon::in_place_scope(|s| {
        if let Some((first, rest)) = slots.split_first_mut() {
            for (i, slot) in rest.iter_mut().enumerate() {
                s.spawn(move |_| *slot = Some(f(i + 1)));
            }
            *first = Some(f(0));
        }
    });
    slots
        .into_iter()
        .map(|slot| match slot {
            Some(r) => r,
            // The scope returns only once every spawned part has finished, and resumes a panic.
            None => unreachable!("a spawned part finished without a result"),
        })
        .collect()
}

/// Runs `main` on this thread while every other worker of the pool runs `helper` (work that
/// helps `main` along, such as taking items from a queue `main` also takes from), and returns
/// `main`'s result once the helpers are done too. One worker: `main` alone.
pub fn with_helpers<R>(main: impl FnOnce() -> R, helper: impl Fn() + Sync) -> R {
    let k = workers();
    if k <= 1 {
        return main();
    }
    let helper = &helper;
    rayon::in_place_scope(|s| {
        for _ in 1..k {
            s.spawn(move |_| helper());
        }
        main()
    })
}

/// Runs two different tasks at once — `a` on this thread, `b` on a pool thread (or here too,
/// when this is a pool thread and no other took it first) — and returns both results once
/// both are done. A panic in either is resumed here. For a pass split in parts, see
/// [`run_parts`].
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    let mut back = None;
    let front = rayon::in_place_scope(|s| {
        s.spawn(|_| back = Some(b()));
        a()
    });
    match back {
        Some(back) => (front, back),
        // The scope returns only once the spawned part has finished, and resumes its panic.
        None => unreachable!("a spawned part finished without a result"),
    }
}

/// `items` mapped by `f` (given each item's index) into a new vector; a long slice on every
/// worker of the pool, each value written once in place (rayon's `collect_into_vec`: no
/// per-part vectors to append), so the fresh pages of a large result are touched by every
/// core. A panic in `f` reaches the caller.
pub fn map_slice<T, U, F>(items: &[T], f: F) -> Vec<U>
where
    T: Sync,
    U: Send,
    F: Fn(usize, &T) -> U + Sync + Send,
{
    use rayon::prelude::*;
    if items.len() < PARALLEL_MIN_JOBS {
        return items.iter().enumerate().map(|(i, x)| f(i, x)).collect();
    }
    let mut out = Vec::new();
    (items
        .par_iter()
        .enumerate()
        .with_min_len(PARALLEL_MIN_JOBS / 8))
    .map(|(i, x)| f(i, x))
    .collect_into_vec(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_slice_keeps_the_order_of_any_length() {
        for n in [0, 1, 7, PARALLEL_MIN_JOBS - 1, PARALLEL_MIN_JOBS * 3 + 5] {
            let items: Vec<u64> = (0..n as u64).collect();
            let got = map_slice(&items, |i, x| x * 3 + i as u64);
            let want: Vec<u64> = items.iter().map(|x| x * 4).collect();
            assert_eq!(got, want, "{n}");
        }
    }

    /// Ranges cover `0..len` once, in order, aligned but the last, none empty.
    #[test]
    fn ranges_cover_every_item_once() {
        for len in [
            0,
            1,
            5,
            1023,
            1024,
            1025,
            100_000,
            PARALLEL_MIN_JOBS * 5 + 3,
        ] {
            for parts in [1, 2, 3, 7, 64, 1000] {
                for align in [1, 3, 1024] {
                    let r = even_ranges(len, parts, align);
                    assert!(r.len() <= parts.max(1), "{len} {parts} {align}");
                    assert_eq!(r.first().map(|r| r.start), Some(0));
                    assert_eq!(r.last().map(|r| r.end), Some(len));
                    for w in r.windows(2) {
                        assert_eq!(w[0].end, w[1].start);
                        assert_eq!(w[0].len() % align, 0, "{len} {parts} {align}");
                        assert_eq!(w[0].len(), r[0].len(), "one length but the last");
                    }
                    assert!(len == 0 || r.iter().all(|r| !r.is_empty()));
                }
            }
            let r = ranges(len, PARALLEL_MIN_JOBS, 1024);
            assert_eq!(r.len() == 1, len < PARALLEL_MIN_JOBS || workers() == 1);
            assert_eq!(r.last().map(|r| r.end), Some(len));
        }
    }

    /// Parts of any number, on more workers than cores or fewer, come back in order; the
    /// mutable parts are the slice's, each once.
    #[test]
    fn parts_come_back_in_order() {
        for n in [0usize, 1, 2, 3, 17, 200] {
            let got = run_parts((0..n).collect(), |i| {
                if i % 3 == 0 {
                    std::thread::yield_now();
                }
                i * 10
            });
            assert_eq!(got, (0..n).map(|i| i * 10).collect::<Vec<_>>());
            let mut items: Vec<usize> = vec![0; n * 7];
            let r = even_ranges(items.len(), 5, 2);
            let parts = split_mut(&mut items, &r);
            let starts = run_parts(parts.into_iter().zip(r.clone()).collect(), |(p, r)| {
                for (k, x) in p.iter_mut().enumerate() {
                    *x = r.start + k;
                }
                r.start
            });
            assert_eq!(starts, r.iter().map(|r| r.start).collect::<Vec<_>>());
            assert_eq!(items, (0..n * 7).collect::<Vec<_>>());
        }
        for k in [1, 2, 5, 16] {
            assert_eq!(each_worker(k, |i| i), (0..k).collect::<Vec<_>>());
        }
    }

    /// A worker's error value is its part's result: returned as it is, in order.
    #[test]
    fn errors_are_returned_as_the_parts_returned_them() {
        let got: Vec<Result<usize, String>> = run_parts((0..9).collect(), |i| {
            if i % 4 == 1 {
                Err(format!("part {i}"))
            } else {
                Ok(i)
            }
        });
        let first = got.iter().find_map(|r| r.as_ref().err()).cloned();
        assert_eq!(first.as_deref(), Some("part 1"));
        assert_eq!(got[4], Ok(4));
        assert_eq!(got[5], Err("part 5".to_string()));
    }

    #[test]
    fn helpers_run_beside_main() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let left = AtomicUsize::new(1000);
        let take = || {
            let mut mine = 0;
            while left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |x| x.checked_sub(1))
                .is_ok()
            {
                mine += 1;
            }
            mine
        };
        let by_main = with_helpers(take, || {
            take();
        });
        assert!(by_main <= 1000);
        assert_eq!(left.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn both_results_in_order() {
        let data = [1, 2, 3, 4];
        let (a, b) = join(
            || data[..2].iter().sum::<i32>(),
            || data[2..].iter().sum::<i32>(),
        );
        assert_eq!((a, b), (3, 7));
    }

    fn message(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
        payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
    }

    #[test]
    fn a_panic_in_any_part_reaches_the_caller_with_its_message() {
        for second in [false, true] {
            let caught = std::panic::catch_unwind(|| {
                join(
                    || assert!(second, "first part failed"),
                    || assert!(!second, "second part failed"),
                )
            });
            let payload = caught.expect_err("the panic is not swallowed");
            let want = if second {
                "second part failed"
            } else {
                "first part failed"
            };
            assert_eq!(message(&*payload), Some(want));
        }
        for bad in [0usize, 3, 6] {
            let caught = std::panic::catch_unwind(|| {
                run_parts((0..7).collect(), |i| assert!(i != bad, "part {i} failed"))
            });
            let payload = caught.expect_err("the panic is not swallowed");
            assert_eq!(
                message(&*payload),
                Some(format!("part {bad} failed").as_str())
            );
        }
    }
}
