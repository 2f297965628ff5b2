//! `--against`: the same queue ordered under two formulas — each job's rank under both, the
//! jobs that move most, and how similar the orders are (Spearman's rank correlation and
//! Kendall's tau, both over the full permutation, so there are no tied ranks).

use crate::order::sort::QueueOrder;

/// One job's ranks under the current formula (`a`) and the other (`b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// Index into `JobSet::jobs`.
    pub job: u32,
    /// Rank (1-based) under the current formula.
    pub rank_a: u32,
    /// Rank (1-based) under the other formula.
    pub rank_b: u32,
}

impl Move {
    /// Positive when the job moves up (towards rank 1) under the other formula.
    pub(crate) fn delta(&self) -> i64 {
        self.rank_a as i64 - self.rank_b as i64
    }
}

/// The comparison of two orders of one job set.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Every job in the current order, with both ranks.
    pub moves: Vec<Move>,
    /// Spearman's rho (1 = same order, -1 = reversed); `None` under two jobs.
    pub spearman: Option<f64>,
    /// Kendall's tau-a over all pairs; `None` under two jobs.
    pub kendall: Option<f64>,
}

impl Comparison {
    /// The `n` jobs whose rank changes most (ties: better current rank first); unmoved jobs
    /// are left out.
    pub(crate) fn biggest_movers(&self, n: usize) -> Vec<Move> {
        let mut m: Vec<Move> = self
            .moves
            .iter()
            .copied()
            .filter(|m| m.delta() != 0)
            .collect();
        m.sort_by(|x, y| {
            y.delta()
                .abs()
                .cmp(&x.delta().abs())
                .then(x.rank_a.cmp(&y.rank_a))
        });
        m.truncate(n);
        m
    }
}

/// Compares two orders of the same jobs.
pub fn compare(a: &QueueOrder, b: &QueueOrder) -> Comparison {
    let ranks_b = b.ranks();
    let moves: Vec<Move> = a
        .ranked
        .iter()
        .enumerate()
        .map(|(pos, r)| Move {
            job: r.job,
            rank_a: pos as u32 + 1,
            rank_b: ranks_b.get(r.job as usize).copied().unwrap_or(0),
        })
        .collect();
    let n = moves.len();
    if n < 2 {
        return Comparison {
            moves,
            spearman: None,
            kendall: None,
        };
    }
    let nf = n as f64;
    let d2: f64 = moves.iter().map(|m| (m.delta() as f64).powi(2)).sum();
    let spearman = 1.0 - 6.0 * d2 / (nf * (nf * nf - 1.0));
    // Kendall: discordant pairs = inversions of rank_b read in rank_a order (merge sort).
    let mut seq: Vec<u32> = moves.iter().map(|m| m.rank_b).collect();
    let discordant = inversions(&mut seq);
    let pairs = nf * (nf - 1.0) / 2.0;
    let kendall = 1.0 - 2.0 * discordant as f64 / pairs;
    Comparison {
        moves,
        spearman: Some(spearman),
        kendall: Some(kendall),
    }
}

/// Counts inversions while sorting (O(n log n)).
fn inversions(v: &mut [u32]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mut buf = v.to_vec();
    let mut count = 0u64;
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if v[i] <= v[j] {
                    buf[k] = v[i];
                    i += 1;
                } else {
                    buf[k] = v[j];
                    count += (mid - i) as u64;
                    j += 1;
                }
                k += 1;
            }
            buf[k..k + (mid - i)].copy_from_slice(&v[i..mid]);
            k += mid - i;
            buf[k..k + (end - j)].copy_from_slice(&v[j..end]);
            start = end;
        }
        v.copy_from_slice(&buf);
        width *= 2;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::sort::Ranked;
    use approx::assert_abs_diff_eq;

    fn order_of(jobs: &[u32]) -> QueueOrder {
        QueueOrder {
            ranked: jobs
                .iter()
                .map(|&job| Ranked {
                    job,
                    value: 0.0,
                    eligible: true,
                    below_threshold: false,
                })
                .collect(),
            errors: Default::default(),
            held: Default::default(),
            summary: Default::default(),
        }
    }

    #[test]
    fn identical_and_reversed() {
        let a = order_of(&[0, 1, 2, 3, 4]);
        let same = compare(&a, &a);
        assert_eq!(same.spearman, Some(1.0));
        assert_eq!(same.kendall, Some(1.0));
        assert!(same.biggest_movers(3).is_empty());
        let rev = compare(&a, &order_of(&[4, 3, 2, 1, 0]));
        assert_eq!(rev.spearman, Some(-1.0));
        assert_eq!(rev.kendall, Some(-1.0));
        let m = rev.biggest_movers(2);
        assert_eq!((m[0].job, m[0].delta()), (0, -4));
        assert_eq!((m[1].job, m[1].delta()), (4, 4));
    }

    #[test]
    fn one_swap_matches_python_scipy_values() {
        // a = [0,1,2,3], b swaps the first two: rho = 1 - 6*2/(4*15) = 0.8, tau = 1 - 2/6.
        let c = compare(&order_of(&[0, 1, 2, 3]), &order_of(&[1, 0, 2, 3]));
        assert_abs_diff_eq!(c.spearman.unwrap(), 0.8, epsilon = 1e-12);
        assert_abs_diff_eq!(c.kendall.unwrap(), 2.0 / 3.0, epsilon = 1e-12);
        assert_eq!(compare(&order_of(&[0]), &order_of(&[0])).spearman, None);
    }

    #[test]
    fn inversion_count_matches_brute_force() {
        let v: Vec<u32> = vec![5, 1, 4, 2, 9, 3, 3, 0];
        let brute = (0..v.len())
            .flat_map(|i| (i + 1..v.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| v[i] > v[j])
            .count() as u64;
        let mut w = v.clone();
        assert_eq!(inversions(&mut w), brute);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(w, sorted);
    }
}
