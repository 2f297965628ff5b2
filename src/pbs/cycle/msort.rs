//! glibc's `qsort` as pbs_sched runs it on Debian 12 (glibc 2.36, `stdlib/msort.c`): a top-down
//! merge sort that splits `n` into `n / 2` and the rest and, when merging, takes from the left
//! run while `cmp(left, right) <= 0`. With a total order this is any stable sort; it is
//! reproduced step by step because the scheduler's comparator is not a total order when a
//! formula value is NaN (`cmp_job_sort_formula` finds NaN equal to every value), and then the
//! order depends on which pairs the merge compares. O(n log n) comparisons, one buffer of `n`.

use std::cmp::Ordering;

/// Sorts `v` as glibc's `msort_with_tmp` does with comparator `cmp`.
pub(crate) fn glibc_msort<T: Copy>(v: &mut [T], cmp: &dyn Fn(&T, &T) -> Ordering) {
    let Some(&first) = v.first() else {
        return;
    };
    let mut tmp = vec![first; v.len()];
    sort_with(v, &mut tmp, cmp);
}

/// `msort_with_tmp`: sorts `b`, using `tmp` (at least as long) as the merge buffer.
fn sort_with<T: Copy>(b: &mut [T], tmp: &mut [T], cmp: &dyn Fn(&T, &T) -> Ordering) {
    let n = b.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    {
        let (left, right) = b.split_at_mut(n1);
        sort_with(left, tmp, cmp);
        sort_with(right, tmp, cmp);
    }
    let (mut i, mut j, mut k) = (0, n1, 0);
    while i < n1 && j < n {
        let (l, r) = (b[i], b[j]);
        if cmp(&l, &r) != Ordering::Greater {
            tmp[k] = l;
            i += 1;
        } else {
            tmp[k] = r;
            j += 1;
        }
        k += 1;
    }
    // What is left of the left run goes after the merged part; the right run's rest is in place.
    while i < n1 {
        tmp[k] = b[i];
        i += 1;
        k += 1;
    }
    b[..k].copy_from_slice(&tmp[..k]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_and_is_stable_on_a_total_order() {
        let mut v: Vec<(u32, u32)> = (0..100).map(|i| ((i * 37) % 7, i)).collect();
        glibc_msort(&mut v, &|a, b| a.0.cmp(&b.0));
        let mut want = v.clone();
        want.sort_by_key(|x| x.0); // stable
        assert_eq!(v, want);
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0 || w[0].1 < w[1].1));
    }

    /// NaN equal to everything: the order glibc gives (the nan_inf capture of pbs_sched).
    #[test]
    fn nan_equal_to_everything_as_glibc() {
        let vals = [
            1.0,
            f64::NAN,
            4.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            8.0,
            f64::NAN,
            6.0,
        ];
        let vals: Vec<f64> = vals.into_iter().chain([1.0, f64::INFINITY]).collect();
        let mut idx: Vec<usize> = (0..vals.len()).collect();
        glibc_msort(&mut idx, &|&a, &b| {
            let (x, y) = (vals[a], vals[b]);
            if x < y {
                Ordering::Greater
            } else if x > y {
                Ordering::Less
            } else {
                a.cmp(&b)
            }
        });
        assert_eq!(idx, [3, 9, 5, 2, 0, 1, 4, 6, 7, 8]);
    }
}
