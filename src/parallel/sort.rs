//! A slice sorted on every worker, in place: split around a sampled pivot by all the workers
//! at once, then each side sorted on its share of them.

use super::{even_ranges, gather_fronts, join, run_parts, split_mut, workers, PARALLEL_MIN_JOBS};

/// Sorts `keys` as `sort_unstable` does (equal keys in no particular order). Below
/// [`PARALLEL_MIN_JOBS`] keys, or on one worker, it is `sort_unstable` itself.
///
/// A large slice is split in place (no second buffer) around a pivot sampled at the quantile
/// of the workers it leaves below it: each worker partitions a part of the slice on its own,
/// then the parts' low keys are gathered before their high keys ([`gather_fronts`]), so no
/// serial pass over every key leaves the other cores idle; the two sides are then sorted the
/// same way at once, each on its share of the workers, down to one worker a side.
pub fn sort_unstable<T: Ord + Copy + Send + Sync>(keys: &mut [T]) {
    sort_on(keys, workers());
}

/// [`sort_unstable`] on `workers` workers.
fn sort_on<T: Ord + Copy + Send + Sync>(keys: &mut [T], workers: usize) {
    let len = keys.len();
    if workers < 2 || len < PARALLEL_MIN_JOBS {
        keys.sort_unstable();
        return;
    }
    let below = workers / 2;
    let samples = (16 * workers).max(64);
    let mut sample: Vec<T> = (0..samples)
        .filter_map(|i| keys.get(i * len / samples).copied())
        .collect();
    sample.sort_unstable();
    let Some(&pivot) = sample.get(sample.len() * below / workers) else {
        keys.sort_unstable();
        return;
    };
    let ranges = even_ranges(len, workers, 1);
    let lens: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
    let lows = run_parts(split_mut(keys, &ranges), |part| partition(part, pivot));
    let parts: Vec<(usize, usize)> = lens.into_iter().zip(lows).collect();
    let low = gather_fronts(keys, &parts);
    let (low, high) = keys.split_at_mut(low);
    join(|| sort_on(low, below), || sort_on(high, workers - below));
}

/// Hoare-style partition of `keys`: the keys below `pivot` first; returns how many they are.
fn partition<T: Ord + Copy>(keys: &mut [T], pivot: T) -> usize {
    let (mut i, mut j) = (0, keys.len());
    loop {
        while i < j && keys.get(i).is_some_and(|&k| k < pivot) {
            i += 1;
        }
        while i < j && keys.get(j - 1).is_some_and(|&k| k >= pivot) {
            j -= 1;
        }
        if i >= j {
            break;
        }
        keys.swap(i, j - 1);
        i += 1;
        j -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorted as `sort_unstable` sorts, on 1 to 9 workers, for runs, reversed runs, many equal
    /// keys, all equal and random keys.
    #[test]
    fn sorts_as_sort_unstable_on_any_number_of_workers() {
        let n = PARALLEL_MIN_JOBS * 3 + 17;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let random: Vec<u64> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect();
        let inputs: Vec<Vec<u64>> = vec![
            (0..n as u64).collect(),
            (0..n as u64).rev().collect(),
            (0..n as u64).map(|i| i % 5).collect(),
            vec![7; n],
            // One half below every key of the other, the halves swapped.
            (0..n as u64)
                .map(|i| (i + n as u64 / 2) % n as u64)
                .collect(),
            random,
        ];
        for input in inputs {
            let mut want = input.clone();
            want.sort_unstable();
            for w in 1..=9 {
                let mut got = input.clone();
                sort_on(&mut got, w);
                assert!(got == want, "{w} workers");
            }
            let mut got = input.clone();
            sort_unstable(&mut got);
            assert!(got == want);
        }
    }

    #[test]
    fn partition_puts_the_low_keys_first() {
        for keys in [vec![], vec![1], vec![3, 1, 2], vec![5, 5, 1, 9, 0, 5]] {
            let mut k = keys.clone();
            let low = partition(&mut k, 5);
            assert_eq!(low, keys.iter().filter(|&&x| x < 5).count());
            assert!(k[..low].iter().all(|&x| x < 5) && k[low..].iter().all(|&x| x >= 5));
        }
    }
}
