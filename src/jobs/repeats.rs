//! The one check for a name given twice in one user-controlled list (a job's resources, a job
//! list's ids): linear in the list's length whatever it holds, as a user chooses how long it is.

use crate::mem::hash::SeededSet;
use std::hash::Hash;

/// Lists up to this long are checked by comparing every pair (at most 120 comparisons, cheaper
/// than a table for the 5–8 resources qstat prints per job); longer ones through a seeded set.
pub(crate) const PAIRWISE_MAX: usize = 16;

/// The position of the first item of `items` equal to an earlier one (its second sighting),
/// and the count of comparisons or set insertions made: at most `PAIRWISE_MAX²/2` for a short
/// list, one insertion per item for a longer one (a table keyed by the process's secret hash,
/// so nobody outside the process chooses items that collide).
pub(crate) fn first_repeat<T: Eq + Hash + Copy>(items: &[T]) -> (Option<usize>, usize) {
    if items.len() <= PAIRWISE_MAX {
        let mut ops = 0;
        for (i, x) in items.iter().enumerate() {
            for y in &items[..i] {
                ops += 1;
                if x == y {
                    return (Some(i), ops);
                }
            }
        }
        return (None, ops);
    }
    let mut seen: SeededSet<T> =
        SeededSet::with_capacity_and_hasher(items.len(), Default::default());
    for (i, x) in items.iter().enumerate() {
        if !seen.insert(*x) {
            return (Some(i), i + 1);
        }
    }
    (None, items.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_sighting_is_found() {
        assert_eq!(first_repeat::<u32>(&[]).0, None);
        assert_eq!(first_repeat(&[1u32, 2, 3]).0, None);
        assert_eq!(first_repeat(&[1u32, 2, 1, 2]).0, Some(2));
        let long: Vec<u32> = (0..1000).chain([999, 5]).collect();
        assert_eq!(first_repeat(&long), (Some(1000), 1001));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Any list — all distinct, all equal, a repeat at the very end, of any length up to
        /// 20,000 — is checked in at most `PAIRWISE_MAX` operations per item (counted, not
        /// timed), and the answer is the first position whose item came before.
        #[test]
        fn operations_stay_linear(
            len in 0usize..20_000,
            distinct in 1u32..40_000,
            repeat_last in proptest::bool::ANY,
        ) {
            let mut items: Vec<u32> = (0..len as u32).map(|i| i % distinct).collect();
            if repeat_last && len > 0 {
                items.push(items[0]);
            }
            let (found, ops) = first_repeat(&items);
            proptest::prop_assert!(ops <= PAIRWISE_MAX * items.len().max(1), "{ops} for {}", items.len());
            let mut seen = std::collections::HashSet::new();
            let want = items.iter().position(|x| !seen.insert(*x));
            proptest::prop_assert_eq!(found, want);
        }
    }
}
