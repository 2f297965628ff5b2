//! The pending queue grouped in classes, for a formula whose only changing inputs are
//! fair-share values: the jobs of one association with the same fixed inputs (`ncpus`,
//! `walltime`, ...) always have the same value, so they keep their submit order within the
//! class, and a fair-share change re-evaluates a class once instead of each of its jobs. A pass
//! walks the classes merged by (value, submit, trace position), the order of docs/replay.md.
//!
//! Each class keeps its jobs in join order (submit, then trace position: the order they join
//! the queue) with a min-tree over their cores and planned walltimes, so that EASY's backfill
//! scan finds a class's next job that may start in O(log n) instead of visiting every pending
//! job: the condition (fits now, and ends by the shadow time or fits in the extra cores) only
//! gets harder as the pass starts jobs, so a job it skips could not have started later in the
//! same pass.

/// A started (or absent) entry's cores in the min-tree: matches no condition.
pub(crate) const GONE: u64 = u64::MAX;

/// One pending job in its class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Member {
    /// Submit time.
    pub(crate) submit: i64,
    /// Trace index.
    pub(crate) job: usize,
}

/// Minimum cores and planned walltime over ranges of a class's members (a segment tree over
/// positions, leaves at `cap..2 cap`; a started member holds [`GONE`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct MinTree {
    cap: usize,
    cores: Vec<u64>,
    planned: Vec<i64>,
}

impl MinTree {
    /// Builds the tree over `leaves` (cores or [`GONE`], planned walltime), by position.
    pub(crate) fn rebuild(&mut self, leaves: &[(u64, i64)]) {
        let cap = leaves.len().next_power_of_two().max(16);
        self.cap = cap;
        self.cores.clear();
        self.cores.resize(2 * cap, GONE);
        self.planned.clear();
        self.planned.resize(2 * cap, i64::MAX);
        for (i, &(c, p)) in leaves.iter().enumerate() {
            if let (Some(x), Some(y)) = (self.cores.get_mut(cap + i), self.planned.get_mut(cap + i))
            {
                *x = c;
                *y = p;
            }
        }
        for n in (1..cap).rev() {
            self.pull(n);
        }
    }

    fn pull(&mut self, n: usize) {
        let c = self.at_c(2 * n).min(self.at_c(2 * n + 1));
        let p = self.at_p(2 * n).min(self.at_p(2 * n + 1));
        if let (Some(x), Some(y)) = (self.cores.get_mut(n), self.planned.get_mut(n)) {
            *x = c;
            *y = p;
        }
    }

    fn at_c(&self, n: usize) -> u64 {
        self.cores.get(n).copied().unwrap_or(GONE)
    }

    fn at_p(&self, n: usize) -> i64 {
        self.planned.get(n).copied().unwrap_or(i64::MAX)
    }

    /// Sets leaf `i` (within capacity) and its ancestors.
    pub(crate) fn set(&mut self, i: usize, c: u64, p: i64) {
        let mut n = self.cap + i;
        if let (Some(x), Some(y)) = (self.cores.get_mut(n), self.planned.get_mut(n)) {
            *x = c;
            *y = p;
        }
        while n > 1 {
            n /= 2;
            self.pull(n);
        }
    }

    /// The first leaf at or after `from` whose (cores, planned) satisfy `ok`; `ok` must be
    /// monotone (true for a pair stays true for smaller values), so a subtree whose minima fail
    /// holds no such leaf.
    pub(crate) fn find(&self, from: usize, ok: &dyn Fn(u64, i64) -> bool) -> Option<usize> {
        if self.cap == 0 {
            return None;
        }
        self.descend(1, 0, self.cap, from, ok)
    }

    fn descend(
        &self,
        n: usize,
        lo: usize,
        hi: usize,
        from: usize,
        ok: &dyn Fn(u64, i64) -> bool,
    ) -> Option<usize> {
        if hi <= from || !ok(self.at_c(n), self.at_p(n)) {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = lo + (hi - lo) / 2;
        self.descend(2 * n, lo, mid, from, ok)
            .or_else(|| self.descend(2 * n + 1, mid, hi, from, ok))
    }
}

/// The pending jobs of one class, in join order.
#[derive(Debug, Clone)]
pub(crate) struct Class {
    /// The class's association.
    pub(crate) assoc: usize,
    /// A job of the class (its fair-share values are the class's).
    pub(crate) rep: usize,
    /// The formula's fixed inputs (the fair-share slots are filled at evaluation).
    pub(crate) row: Vec<f64>,
    /// The value's sort key (`desc_key`), valid once `evaluated`.
    pub(crate) key: u64,
    pub(crate) evaluated: bool,
    /// Members joined since the last pass (they are evaluated at the next).
    pub(crate) new: usize,
    members: Vec<Member>,
    /// Per member: cores (or [`GONE`]) and planned walltime, mirrored in `tree`.
    leaves: Vec<(u64, i64)>,
    tree: MinTree,
    /// Members before `head` are all started.
    head: usize,
    live: usize,
}

impl Class {
    /// An empty class.
    pub(crate) fn new(assoc: usize, rep: usize, row: Vec<f64>) -> Class {
        Class {
            assoc,
            rep,
            row,
            key: 0,
            evaluated: false,
            new: 0,
            members: Vec::new(),
            leaves: Vec::new(),
            tree: MinTree::default(),
            head: 0,
            live: 0,
        }
    }

    /// Pending members.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// Adds a job at the end (jobs join in submit, then trace, order).
    pub(crate) fn push(&mut self, m: Member, cores: u64, planned: i64) {
        let i = self.members.len();
        self.members.push(m);
        self.leaves.push((cores, planned));
        if i < self.tree.cap {
            self.tree.set(i, cores, planned);
        } else {
            self.tree.rebuild(&self.leaves);
        }
        self.live += 1;
        self.new += 1;
    }

    /// Drops the started members before the head once they are most of the storage.
    pub(crate) fn compact(&mut self) {
        if self.head >= 64 && self.head * 2 >= self.members.len() {
            self.members.drain(..self.head);
            self.leaves.drain(..self.head);
            self.head = 0;
            self.tree.rebuild(&self.leaves);
        }
    }

    /// Member at position `i`.
    pub(crate) fn member(&self, i: usize) -> Option<Member> {
        self.members.get(i).copied()
    }

    /// Member `i`'s cores and planned walltime.
    pub(crate) fn leaf(&self, i: usize) -> (u64, i64) {
        self.leaves.get(i).copied().unwrap_or((GONE, i64::MAX))
    }

    /// The first pending member's position ([`Self::take`] keeps `head` on it: members before
    /// it are started, and it moves past started ones when its own member starts).
    pub(crate) fn head(&self) -> Option<usize> {
        (self.live > 0).then_some(self.head)
    }

    /// The first member at or after `from` whose (cores, planned) satisfy the monotone `ok`.
    pub(crate) fn find(&self, from: usize, ok: &dyn Fn(u64, i64) -> bool) -> Option<usize> {
        self.tree.find(from, ok)
    }

    /// Marks member `i` started.
    pub(crate) fn take(&mut self, i: usize) {
        if let Some(l) = self.leaves.get_mut(i) {
            if l.0 == GONE {
                return;
            }
            *l = (GONE, i64::MAX);
            self.tree.set(i, GONE, i64::MAX);
            self.live = self.live.saturating_sub(1);
        }
        if i == self.head {
            while self.leaves.get(self.head).is_some_and(|l| l.0 == GONE) {
                self.head += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_matches_a_scan() {
        let mut seed: u64 = 11;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let mut c = Class::new(0, 0, Vec::new());
        for step in 0..3000usize {
            if c.live() == 0 || next(3) > 0 {
                c.push(
                    Member {
                        submit: step as i64,
                        job: step,
                    },
                    1 + next(20),
                    next(100) as i64,
                );
            } else if let Some(h) = c.head() {
                // Take the head or a random later member.
                let i = if next(2) == 0 {
                    h
                } else {
                    h + next((c.leaves.len() - h) as u64) as usize
                };
                c.take(i);
            }
            if step % 97 == 0 {
                c.compact();
            }
            let (free, extra, lim) = (next(25), next(10), next(100) as i64);
            let ok = |k: u64, p: i64| k <= free && (k <= extra || p <= lim);
            let from = next(c.leaves.len() as u64 + 1) as usize;
            let want = (from..c.leaves.len()).find(|&i| {
                let (k, p) = c.leaves[i];
                k != GONE && ok(k, p)
            });
            assert_eq!(c.find(from, &ok), want, "step {step}");
            let live = c.leaves.iter().position(|l| l.0 != GONE);
            assert_eq!(c.head(), live, "step {step}");
            assert_eq!(c.live(), c.leaves.iter().filter(|l| l.0 != GONE).count());
        }
    }
}
