//! The two stages of a tree reader at once, in rounds: while a pool thread takes the items of
//! one round (linking nodes into a tree), this thread makes the next round's (splitting and
//! checking lines). Rounds keep memory bounded (two rounds of items at most) and need no
//! channel: the stages meet at the end of each round (`parallel::join`), so nothing waits on a
//! thread that may never run (reading a million-node tree was one serial stage of `share`).
//!
//! A pipeline of two different stages, not a pass cut in parts: the second stage links each
//! node to the nodes before it, in file order, so it is serial whatever the number of cores,
//! and it is about half of the reading (a million-line `resource_group`: the linking 4–5 % of
//! `share`'s CPU time, the splitting and checking as much), so more workers on the first stage
//! would leave them waiting on the second.

use crate::parallel::join;

/// Items made per round.
pub(crate) const ROUND: usize = 8192;

/// Runs `make` and `take` as two stages: `make(buf)` appends up to [`ROUND`] items to `buf` and
/// says whether there may be more; `take` gets every item, in order. With `parallel` the
/// stages run at once (`take` on a pool thread), else one after the other here; the result is
/// the same.
/// An error of `make` ends the run and is returned; an error of `take` ends it at the end of
/// its round (the items after it are dropped), and is returned unless `make` failed in that
/// same round.
pub(crate) fn run<T: Send, E: Send>(
    parallel: bool,
    make: impl FnMut(&mut Vec<T>) -> Result<bool, E>,
    mut take: impl FnMut(T) -> Result<(), E> + Send,
) -> Result<(), E> {
    run_rounds(parallel, make, |items: &mut Vec<T>| {
        let mut taken = Ok(());
        take_all(&mut take, items, &mut taken);
        taken
    })
}

/// [`run`] with `take` given a whole round at a time (to look ahead in it: prefetching), in
/// order; it takes the items it wants and stops at its first error, which ends the run as in
/// [`run`]. The round is emptied after it.
pub(crate) fn run_rounds<T: Send, E: Send>(
    parallel: bool,
    mut make: impl FnMut(&mut Vec<T>) -> Result<bool, E>,
    mut take: impl FnMut(&mut Vec<T>) -> Result<(), E> + Send,
) -> Result<(), E> {
    let mut ready = Vec::with_capacity(ROUND);
    let mut more = make(&mut ready)?;
    let mut next = Vec::with_capacity(ROUND);
    let mut take_round = |items: &mut Vec<T>| {
        let taken = take(items);
        items.clear();
        taken
    };
    loop {
        if ready.is_empty() && !more {
            return Ok(());
        }
        let (made, taken) = if more && parallel {
            join(|| make(&mut next), || take_round(&mut ready))
        } else {
            let taken = take_round(&mut ready);
            (if more { make(&mut next) } else { Ok(false) }, taken)
        };
        more = made?;
        taken?;
        std::mem::swap(&mut ready, &mut next);
    }
}

/// Gives `take` the items of `items` in order while `taken` is not an error.
fn take_all<T, E>(
    take: &mut impl FnMut(T) -> Result<(), E>,
    items: &mut Vec<T>,
    taken: &mut Result<(), E>,
) {
    for item in items.drain(..) {
        if taken.is_err() {
            break;
        }
        *taken = take(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items 0..n made `ROUND` at a time (the item `bad_make` fails to be made).
    fn maker(n: usize, bad_make: usize) -> impl FnMut(&mut Vec<usize>) -> Result<bool, String> {
        let mut i = 0;
        move |buf| {
            while i < n && buf.len() < ROUND {
                if i == bad_make {
                    return Err(format!("make {i}"));
                }
                buf.push(i);
                i += 1;
            }
            Ok(i < n)
        }
    }

    #[test]
    fn every_item_in_order_and_the_same_errors_serially_or_at_once() {
        for n in [0, 1, ROUND - 1, ROUND, ROUND + 1, 3 * ROUND + 5] {
            for (bad_make, bad_take) in [
                (usize::MAX, usize::MAX),
                (n.saturating_sub(1), usize::MAX),
                (usize::MAX, n / 2),
                (2 * ROUND + 1, ROUND + 2),
                (ROUND + 2, 2 * ROUND + 1),
            ] {
                let run_on = |parallel: bool| {
                    let mut got = Vec::new();
                    let r = run(parallel, maker(n, bad_make), |x| {
                        if x == bad_take {
                            return Err(format!("take {x}"));
                        }
                        got.push(x);
                        Ok(())
                    });
                    (r, got)
                };
                let (one, two) = (run_on(false), run_on(true));
                assert_eq!(one, two, "n {n}, bad {bad_make} {bad_take}");
                // By rounds, taking each round's items up to its first error.
                let rounds = |parallel: bool| {
                    let mut got = Vec::new();
                    let r = run_rounds(parallel, maker(n, bad_make), |xs: &mut Vec<usize>| {
                        assert!(!xs.is_empty() && xs.len() <= ROUND);
                        for &x in xs.iter() {
                            if x == bad_take {
                                return Err(format!("take {x}"));
                            }
                            got.push(x);
                        }
                        Ok(())
                    });
                    (r, got)
                };
                assert_eq!(one, rounds(false), "n {n}, bad {bad_make} {bad_take}");
                assert_eq!(one, rounds(true), "n {n}, bad {bad_make} {bad_take}");
                let (r, got) = one;
                let ok_len = bad_make.min(bad_take).min(n);
                if bad_make < n {
                    assert_eq!(r, Err(format!("make {bad_make}")));
                } else if bad_take < n {
                    assert_eq!((r, got.len()), (Err(format!("take {bad_take}")), ok_len));
                } else {
                    assert_eq!((r, got), (Ok(()), (0..n).collect::<Vec<_>>()));
                }
            }
        }
    }
}
