//! The crate's one way to run work in parallel, on rayon's pool: the large-queue and large-tree
//! passes (evaluation and sorting of a million-job queue, its columns, its duplicate-id check,
//! the append of a parsed half, the two halves of a qstat file, Fair Tree's sibling sorts, the
//! two halves of each round of a PBS accounting log that `usage record` parses).
//!
//! One policy for failures: a part's result — an error value included — comes back to the
//! caller as that part returned it, to be returned or handled there, never replaced by a default;
//! a panic in any part (a bug) is resumed on the calling thread with its own payload, as if the
//! work had run there (rayon's scopes do this).

pub(crate) mod stages;

/// Below this many jobs — or tree nodes, for Fair Tree's sibling sorts — a pass stays on the
/// calling thread (splitting costs more than it saves, and the pool is not started): evaluation
/// and sorting, the columns, the duplicate-id check, the append, the sibling sorts.
pub const PARALLEL_MIN_JOBS: usize = 1 << 16;

/// Below this many bytes one thread parses a `qstat -f -F json` file's `Jobs`.
pub const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Runs `a` on this thread while `b` runs on a pool thread (when this is itself a pool thread,
/// `b` may also run here, if no other thread took it first), and returns both results once both
/// are done. A panic in either is resumed on this thread.
///
/// The caller works on a part itself, as with a scoped thread: with `rayon::join` called from
/// outside the pool, both parts ran on the pool's two threads while the caller slept, and the
/// caller's next (serial) step then shared the two cores with the pool threads still spinning
/// for work — 4–8 ms more for `order` after the evaluation of a million jobs.
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

/// `items` mapped by `f` (given each item's index) into a new vector; a long slice on the pool's threads, each value
/// written once in place (rayon's `collect_into_vec`: no per-part vectors to append), so the
/// fresh pages of a large result are touched by both cores. A panic in `f` reaches the caller.
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
        .with_min_len(PARALLEL_MIN_JOBS / 2))
    .map(|(i, x)| f(i, x))
    .collect_into_vec(&mut out);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn map_slice_keeps_the_order_of_any_length() {
        for n in [
            0,
            1,
            7,
            super::PARALLEL_MIN_JOBS - 1,
            super::PARALLEL_MIN_JOBS * 3 + 5,
        ] {
            let items: Vec<u64> = (0..n as u64).collect();
            let got = super::map_slice(&items, |i, x| x * 3 + i as u64);
            let want: Vec<u64> = items.iter().map(|x| x * 4).collect();
            assert_eq!(got, want, "{n}");
        }
    }

    #[test]
    fn both_results_in_order() {
        let data = [1, 2, 3, 4];
        let (a, b) = super::join(
            || data[..2].iter().sum::<i32>(),
            || data[2..].iter().sum::<i32>(),
        );
        assert_eq!((a, b), (3, 7));
    }

    #[test]
    fn a_panic_in_either_part_reaches_the_caller_with_its_message() {
        for second in [false, true] {
            let caught = std::panic::catch_unwind(|| {
                super::join(
                    || assert!(second, "first part failed"),
                    || assert!(!second, "second part failed"),
                )
            });
            let payload = caught.expect_err("the panic is not swallowed");
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied());
            let want = if second {
                "second part failed"
            } else {
                "first part failed"
            };
            assert_eq!(message, Some(want));
        }
    }
}
