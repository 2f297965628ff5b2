//! The front items of consecutive parts put together before the back ones, in place and on
//! every worker: what follows a pass that split each part on its own (a partition around a
//! pivot, runnable jobs keyed from the front of their part and the others from its back).

use super::{run_parts, workers, PARALLEL_MIN_JOBS};

/// Fewest items a worker swaps: below it, splitting a swap costs more than it saves.
const MIN_PIECE: usize = 1 << 13;

/// Regroups `items`, cut into consecutive parts of `(length, fronts)` — each part holding its
/// `fronts` front items first, then its back items — so that every front item comes before
/// every back item; returns how many front items there are. Only misplaced items move: each
/// back item before that count is swapped with a front item after it, the swaps spread over
/// the workers. The order within the fronts and within the backs is not kept. The parts
/// cover `items` from its start; items past them stay where they are.
pub fn gather_fronts<T: Send>(items: &mut [T], parts: &[(usize, usize)]) -> usize {
    let total: usize = parts.iter().map(|&(len, front)| front.min(len)).sum();
    // Back runs before `total` and front runs after it, in order: as many items each.
    let (mut backs, mut fronts) = (Vec::new(), Vec::new());
    let mut at = 0;
    for &(len, front) in parts {
        let front = front.min(len);
        let (b0, b1) = (at + front, (at + len).min(total));
        if b0 < b1 {
            backs.push((b0, b1 - b0));
        }
        let (f0, f1) = (at.max(total), at + front);
        if f0 < f1 {
            fronts.push((f0, f1 - f0));
        }
        at += len;
    }
    // Pairs of runs of equal length to swap, both ascending; cut into pieces for the workers.
    let moved: usize = backs.iter().map(|b| b.1).sum();
    let piece = if moved < PARALLEL_MIN_JOBS {
        usize::MAX
    } else {
        moved.div_ceil(workers()).max(MIN_PIECE)
    };
    let mut pairs = Vec::new();
    let (mut i, mut j, mut xo, mut yo) = (0, 0, 0, 0);
    while let (Some(&(xs, xl)), Some(&(ys, yl))) = (backs.get(i), fronts.get(j)) {
        let n = (xl - xo).min(yl - yo).min(piece);
        pairs.push((xs + xo, ys + yo, n));
        xo += n;
        yo += n;
        if xo == xl {
            (i, xo) = (i + 1, 0);
        }
        if yo == yl {
            (j, yo) = (j + 1, 0);
        }
    }
    let Some((lo, hi)) = items.split_at_mut_checked(total) else {
        return total;
    };
    let (mut lo, mut lo_at, mut hi, mut hi_at) = (lo, 0, hi, total);
    let mut swaps = Vec::with_capacity(pairs.len());
    for (x, y, n) in pairs {
        let (Some((_, x_rest)), Some((_, y_rest))) = (
            lo.split_at_mut_checked(x - lo_at),
            hi.split_at_mut_checked(y - hi_at),
        ) else {
            break;
        };
        let (Some((xs, x_tail)), Some((ys, y_tail))) = (
            x_rest.split_at_mut_checked(n),
            y_rest.split_at_mut_checked(n),
        ) else {
            break;
        };
        swaps.push((xs, ys));
        (lo, lo_at, hi, hi_at) = (x_tail, x + n, y_tail, y + n);
    }
    run_parts(swaps, |(x, y)| x.swap_with_slice(y));
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items marked front (`true`) or back in parts of any lengths end fronts first, the same
    /// items (a permutation), and only misplaced ones moved.
    #[test]
    fn fronts_come_first_and_nothing_is_lost() {
        let shapes: &[&[(usize, usize)]] = &[
            &[],
            &[(0, 0)],
            &[(5, 5)],
            &[(5, 0)],
            &[(5, 2), (7, 7), (0, 0), (3, 1)],
            &[(4, 0), (4, 4)],
            &[(4, 4), (4, 0)],
            &[(100_000, 10), (100_000, 99_990), (50_000, 25_000)],
            &[(70_000, 0), (70_000, 70_000), (70_000, 0), (70_000, 70_000)],
        ];
        for parts in shapes {
            let mut items = Vec::new();
            for &(len, front) in *parts {
                let base = items.len();
                items.extend((0..len).map(|k| (k < front, base + k)));
            }
            let before = items.clone();
            let total = gather_fronts(&mut items, parts);
            let want: usize = parts.iter().map(|p| p.1).sum();
            assert_eq!(total, want, "{parts:?}");
            assert!(items[..total].iter().all(|x| x.0), "{parts:?}");
            assert!(items[total..].iter().all(|x| !x.0), "{parts:?}");
            for (a, b) in before.iter().zip(&items) {
                // A well-placed item stays where it was.
                let placed = |x: &(bool, usize)| x.0 == (x.1 < total);
                if placed(a) {
                    assert_eq!(a, b, "{parts:?}");
                }
            }
            let mut sorted = items.clone();
            sorted.sort_by_key(|x| x.1);
            assert_eq!(sorted, before, "{parts:?}");
        }
    }
}
