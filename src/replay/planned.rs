//! The running jobs by planned end (start + requested walltime), with their cores, for EASY's
//! reservation: insert, remove and "the earliest planned end by which enough cores are free" in
//! O(log n) expected. A treap (a binary search tree with heap-ordered random priorities) whose
//! nodes also hold their subtree's cores, kept in one arena.

/// No node.
const NIL: u32 = u32::MAX;

/// A key: (planned end, trace index): unique per running job.
type Key = (i64, usize);

#[derive(Debug, Clone)]
struct Node {
    key: Key,
    cores: u64,
    /// Cores of the subtree rooted here.
    sum: u64,
    prio: u64,
    left: u32,
    right: u32,
}

/// The planned ends of the running jobs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Planned {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: Option<u32>,
}

/// A fixed pseudo-random priority per job (splitmix64): the same replay builds the same tree.
fn priority(job: usize) -> u64 {
    let mut z = (job as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Planned {
    fn node(&self, t: u32) -> Option<&Node> {
        self.nodes.get(t as usize)
    }

    fn sum(&self, t: u32) -> u64 {
        self.node(t).map_or(0, |n| n.sum)
    }

    fn update(&mut self, t: u32) {
        let Some(n) = self.node(t) else { return };
        let s = n.cores + self.sum(n.left) + self.sum(n.right);
        if let Some(n) = self.nodes.get_mut(t as usize) {
            n.sum = s;
        }
    }

    fn root(&self) -> u32 {
        self.root.unwrap_or(NIL)
    }

    /// Splits `t` into (keys < `key`, keys ≥ `key`).
    fn split(&mut self, t: u32, key: Key) -> (u32, u32) {
        let Some(n) = self.node(t) else {
            return (NIL, NIL);
        };
        let (nk, left, right) = (n.key, n.left, n.right);
        if nk < key {
            let (a, b) = self.split(right, key);
            if let Some(n) = self.nodes.get_mut(t as usize) {
                n.right = a;
            }
            self.update(t);
            (t, b)
        } else {
            let (a, b) = self.split(left, key);
            if let Some(n) = self.nodes.get_mut(t as usize) {
                n.left = b;
            }
            self.update(t);
            (a, t)
        }
    }

    /// Joins `a` and `b`, every key of `a` below every key of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        let (Some(na), Some(nb)) = (self.node(a), self.node(b)) else {
            return if a == NIL { b } else { a };
        };
        if na.prio >= nb.prio {
            let ar = na.right;
            let m = self.merge(ar, b);
            if let Some(n) = self.nodes.get_mut(a as usize) {
                n.right = m;
            }
            self.update(a);
            a
        } else {
            let bl = nb.left;
            let m = self.merge(a, bl);
            if let Some(n) = self.nodes.get_mut(b as usize) {
                n.left = m;
            }
            self.update(b);
            b
        }
    }

    fn set_root(&mut self, t: u32) {
        self.root = (t != NIL).then_some(t);
    }

    /// Makes `child` the left (`right` false) or right child of `parent`, or the root.
    fn attach(&mut self, parent: Option<(u32, bool)>, child: u32) {
        match parent {
            None => self.set_root(child),
            Some((p, right)) => {
                if let Some(n) = self.nodes.get_mut(p as usize) {
                    if right {
                        n.right = child;
                    } else {
                        n.left = child;
                    }
                }
            }
        }
    }

    /// Adds `cores` to the sum of `t`.
    fn add_sum(&mut self, t: u32, cores: u64, add: bool) {
        if let Some(n) = self.nodes.get_mut(t as usize) {
            n.sum = if add {
                n.sum + cores
            } else {
                n.sum.saturating_sub(cores)
            };
        }
    }

    /// Adds job `job` planned to end at `end`, holding `cores`: down the path while the
    /// priorities are higher (each of those subtrees gains the cores), then the new node takes
    /// the place of the subtree there, split around its key.
    pub(crate) fn insert(&mut self, end: i64, job: usize, cores: u64) {
        let key = (end, job);
        let prio = priority(job);
        let node = Node {
            key,
            cores,
            sum: cores,
            prio,
            left: NIL,
            right: NIL,
        };
        let id = match self.free.pop() {
            Some(id) => {
                if let Some(n) = self.nodes.get_mut(id as usize) {
                    *n = node;
                }
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        let mut parent = None;
        let mut t = self.root();
        while let Some(n) = self.node(t) {
            if n.prio < prio {
                break;
            }
            let right = n.key < key;
            let next = if right { n.right } else { n.left };
            self.add_sum(t, cores, true);
            parent = Some((t, right));
            t = next;
        }
        let (l, r) = self.split(t, key);
        if let Some(n) = self.nodes.get_mut(id as usize) {
            n.left = l;
            n.right = r;
        }
        self.update(id);
        self.attach(parent, id);
    }

    /// Removes job `job` planned to end at `end` (nothing if absent): its subtrees merged take
    /// its place, and every subtree above loses its cores.
    pub(crate) fn remove(&mut self, end: i64, job: usize) {
        let key = (end, job);
        let mut t = self.root();
        while let Some(n) = self.node(t) {
            if n.key == key {
                break;
            }
            t = if key < n.key { n.left } else { n.right };
        }
        let Some(found) = self.node(t) else { return };
        let (cores, left, right) = (found.cores, found.left, found.right);
        let mut parent = None;
        let mut u = self.root();
        while u != t {
            let Some(n) = self.node(u) else { return };
            let go_right = n.key < key;
            let next = if go_right { n.right } else { n.left };
            self.add_sum(u, cores, false);
            parent = Some((u, go_right));
            u = next;
        }
        let m = self.merge(left, right);
        self.attach(parent, m);
        self.free.push(t);
    }

    /// Cores of the jobs planned to end at or before `end`.
    pub(crate) fn cores_by(&self, end: i64) -> u64 {
        let (mut t, mut acc) = (self.root(), 0);
        while let Some(n) = self.node(t) {
            if n.key.0 <= end {
                acc += self.sum(n.left) + n.cores;
                t = n.right;
            } else {
                t = n.left;
            }
        }
        acc
    }

    /// EASY's reservation for a job of `need` cores with `free` cores free now (`need` >
    /// `free`): the earliest planned end at which the free cores plus those of every job
    /// planned to end by then reach `need` (the shadow time; `i64::MAX` if never), and the
    /// cores left over at the shadow time (every job planned to end by then counted).
    pub(crate) fn reservation(&self, free: u64, need: u64) -> (i64, u64) {
        let target = need.saturating_sub(free);
        let (mut t, mut acc) = (self.root(), 0u64);
        while let Some(n) = self.node(t) {
            let ls = self.sum(n.left);
            if acc + ls >= target && n.left != NIL {
                t = n.left;
            } else if acc + ls + n.cores >= target {
                let shadow = n.key.0;
                return (shadow, (free + self.cores_by(shadow)).saturating_sub(need));
            } else {
                acc += ls + n.cores;
                t = n.right;
            }
        }
        (
            i64::MAX,
            (free + self.sum(self.root())).saturating_sub(need),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The walk the treap replaces: planned ends in order until enough cores are free.
    fn walk(map: &BTreeMap<(i64, usize), u64>, free: u64, need: u64) -> (i64, u64) {
        let mut avail = free;
        let mut shadow = None;
        for (&(e, _), &c) in map {
            if shadow.is_some_and(|s| e > s) {
                break;
            }
            avail += c;
            if shadow.is_none() && avail >= need {
                shadow = Some(e);
            }
        }
        (shadow.unwrap_or(i64::MAX), avail.saturating_sub(need))
    }

    #[test]
    fn matches_the_ordered_walk() {
        let mut seed: u64 = 3;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let mut p = Planned::default();
        let mut map = BTreeMap::new();
        for step in 0..4000usize {
            if map.is_empty() || next(3) > 0 {
                let (e, c) = (next(50) as i64, 1 + next(8));
                p.insert(e, step, c);
                map.insert((e, step), c);
            } else {
                let k = next(map.len() as u64) as usize;
                let (&(e, j), _) = map.iter().nth(k).unwrap();
                map.remove(&(e, j));
                p.remove(e, j);
            }
            let total: u64 = map.values().sum();
            let free = next(4);
            let need = free + 1 + next(total + 3);
            assert_eq!(
                p.reservation(free, need),
                walk(&map, free, need),
                "step {step}"
            );
        }
        // Removing an absent key changes nothing.
        let before = p.reservation(0, 5);
        p.remove(-1, 0);
        assert_eq!(p.reservation(0, 5), before);
    }
}
