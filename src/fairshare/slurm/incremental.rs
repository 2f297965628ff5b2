//! Slurm's Fair Tree and classic fair share over a tree whose shape and shares stay fixed while
//! its users' usage changes (a replay charging jobs as they finish): the links, the shares and
//! the sibling order are kept between computations, so a computation is a pass over flat
//! arrays with no tree to build, and Fair Tree recomputes only what a change of usage reaches.
//!
//! Fair Tree: a user's new usage changes the usage of its ancestors only; a Level FS reads a
//! node's usage and its fs parent's, so only the changed nodes and the fs children of changed
//! nodes get a new Level FS, and only their sibling lists are sorted again (from the previous
//! order, by insertion: a list whose order held costs one scan). The ranks are walked again
//! only when a list's order or its ties changed. Classic: every normalised usage is over the
//! root's, which every charge changes, so every node is recomputed (flat, O(nodes)).
//!
//! The values are bit for bit those of `fairshare::compute` on the tree built with the same
//! usage (the same arithmetic in the same order; the sort's order is unique: value, users
//! first, then tree order), tested against it on random trees and charge sequences.

use crate::fairshare::key_sort::ascending_key;
use crate::fairshare::result::BLANK;
use crate::fairshare::slurm::classic;
use crate::fairshare::slurm::fair_tree::NO_VAL;
use crate::fairshare::slurm::links::Links;
use crate::fairshare::{Algorithm, NodeId, Tree};

/// Fair Tree's or classic's values over a fixed tree, recomputed as its users' usage changes.
#[derive(Debug, Clone)]
pub struct Incremental {
    algorithm: Algorithm,
    links: Links,
    /// Per node: its parent in the tree (the root: itself), and its children in tree order
    /// (`kid_start`/`kids`, for the usage sums).
    parent: Vec<NodeId>,
    kid_start: Vec<usize>,
    kids: Vec<NodeId>,
    /// Fair Tree's fs children lists (`Links::children`), kept sorted by Level FS
    /// (`list_start`/`list`), and each node's position in its list in tree order.
    list_start: Vec<usize>,
    list: Vec<NodeId>,
    tree_pos: Vec<usize>,
    /// Raw usage per node (users as set, accounts summed) and the values of the last
    /// computation: Level FS and the fair-share factor per node (`BLANK` where sshare shows
    /// none).
    usage: Vec<f64>,
    lf: Vec<f64>,
    factor: Vec<f64>,
    /// Classic's normalised shares (fixed) and dampening.
    shares: Vec<f64>,
    dampening: f64,
    /// Scratch: users whose usage changed, nodes marked changed, lists to sort again.
    changed_users: Vec<NodeId>,
    marked: Vec<bool>,
    touched: Vec<NodeId>,
    touched_mark: Vec<bool>,
    /// Per node, as of its list's last sort: whether its Level FS equals its previous
    /// sibling's (the first: equals NO_VAL, the walk's first "previous").
    tie: Vec<bool>,
    /// Whether a computation ran (the first one is whole).
    computed: bool,
    /// Nodes whose values were recomputed so far (the work, for tests).
    visits: u64,
}

impl Incremental {
    /// The state for `algorithm` (Fair Tree or classic with `dampening`) over `tree`, whose
    /// users' usage is then given to [`Incremental::compute`]. `None` for another algorithm,
    /// a dampening that is not a positive finite number, or an account whose usage the tree
    /// states (an account's usage here is always its children's sum).
    pub fn new(tree: &Tree, algorithm: Algorithm, dampening: f64) -> Option<Incremental> {
        let usable = matches!(algorithm, Algorithm::FairTree | Algorithm::Classic)
            && dampening.is_finite()
            && dampening > 0.0;
        if !usable
            || tree
                .nodes()
                .iter()
                .skip(1)
                .any(|n| !n.is_user() && n.usage_given)
        {
            return None;
        }
        let links = Links::new(tree);
        let n = links.len();
        let mut parent = vec![0; n];
        let mut kid_start = Vec::with_capacity(n + 1);
        let mut kids = Vec::with_capacity(n);
        let mut list_start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(n);
        let mut tree_pos = vec![0; n];
        for id in 0..n {
            kid_start.push(kids.len());
            for &c in tree.children(id) {
                kids.push(c);
                if let Some(p) = parent.get_mut(c) {
                    *p = id;
                }
            }
            list_start.push(list.len());
            for (pos, &c) in links.children(id).iter().enumerate() {
                list.push(c);
                if let Some(p) = tree_pos.get_mut(c) {
                    *p = pos;
                }
            }
        }
        kid_start.push(kids.len());
        list_start.push(list.len());
        let shares = links.classic_norm_shares();
        let usage = tree.columns().raw_usage.clone();
        Some(Incremental {
            algorithm,
            links,
            parent,
            kid_start,
            kids,
            list_start,
            list,
            tree_pos,
            usage,
            lf: vec![NO_VAL; n],
            factor: vec![BLANK; n],
            shares,
            dampening,
            changed_users: Vec::new(),
            marked: vec![false; n],
            touched: Vec::new(),
            touched_mark: vec![false; n],
            tie: vec![false; n],
            computed: false,
            visits: 0,
        })
    }

    /// Which algorithm this is.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Sets user `id`'s raw usage for the next [`Incremental::compute`] (accounts, and ids
    /// out of range, are ignored: an account's usage is its children's sum).
    pub fn set_usage(&mut self, id: NodeId, usage: f64) {
        if !self.links.is_user.get(id).copied().unwrap_or(false) {
            return;
        }
        if let Some(u) = self.usage.get_mut(id) {
            if u.to_bits() != usage.to_bits() {
                *u = usage;
                if let Some(m) = self.marked.get_mut(id) {
                    if !*m {
                        *m = true;
                        self.changed_users.push(id);
                    }
                }
            }
        }
    }

    /// Recomputes the values after the usages set since the last computation.
    pub fn compute(&mut self) {
        if !self.computed {
            self.computed = true;
            self.changed_users.clear();
            self.marked.iter_mut().for_each(|m| *m = false);
            self.whole();
            return;
        }
        if self.changed_users.is_empty() {
            return;
        }
        match self.algorithm {
            Algorithm::FairTree => self.fair_tree_paths(),
            _ => {
                self.clear_marks();
                self.whole();
            }
        }
    }

    /// User `id`'s fair-share factor (Fair Tree's F = rank / users, classic's 2^(−U_E/S/d)),
    /// as `ShareResult::row(id).fairshare` gives it.
    pub fn fairshare(&self, id: NodeId) -> Option<f64> {
        let v = self.factor.get(id).copied()?;
        (v.to_bits() != BLANK.to_bits()).then_some(v)
    }

    /// Node `id`'s Level FS (Fair Tree), as `ShareResult::row(id).level_fs` gives it.
    pub fn level_fs(&self, id: NodeId) -> Option<f64> {
        if self.algorithm != Algorithm::FairTree
            || id == 0
            || self.links.is_parent.get(id).copied().unwrap_or(true)
        {
            return None;
        }
        self.lf.get(id).copied()
    }

    /// Nodes recomputed so far (each usage sum, Level FS, sort place and rank counts one).
    pub fn visits(&self) -> u64 {
        self.visits
    }

    fn clear_marks(&mut self) {
        for &u in &self.changed_users {
            if let Some(m) = self.marked.get_mut(u) {
                *m = false;
            }
        }
        self.changed_users.clear();
    }

    /// An account's usage: its children's, summed in tree order from +0 (`Tree::sum_usage`).
    fn sum_kids(&self, id: NodeId) -> f64 {
        let (a, b) = (self.kid_start[id], self.kid_start[id + 1]);
        self.kids[a..b]
            .iter()
            .fold(0.0, |sum, &c| sum + self.usage[c])
    }

    /// Every account's usage, bottom-up (children have larger ids than their parent).
    fn sum_all(&mut self) {
        for id in (0..self.usage.len()).rev() {
            if !self.links.is_user[id] {
                self.usage[id] = self.sum_kids(id);
            }
        }
        self.visits += self.usage.len() as u64;
    }

    /// The whole computation (the first one, and classic's every one).
    fn whole(&mut self) {
        self.sum_all();
        match self.algorithm {
            Algorithm::FairTree => {
                for id in 0..self.usage.len() {
                    self.lf[id] = level_fs_one(&self.links, &self.usage, id);
                }
                for p in 0..self.usage.len() {
                    self.sort_list(p);
                }
                self.rank();
            }
            _ => self.classic(),
        }
    }

    /// Classic over every node (`classic::compute`'s arithmetic).
    fn classic(&mut self) {
        let links = &mut self.links;
        let n = self.usage.len();
        let root = self.usage.first().copied().unwrap_or(0.0);
        for (norm, &u) in links.usage_norm.iter_mut().zip(&self.usage) {
            *norm = if root > 0.0 { (u / root).min(1.0) } else { 0.0 };
        }
        let links = &self.links;
        let ue = classic::effective_usage(links);
        for id in 0..n {
            let (s, ue) = if id > 0 && links.is_parent[id] {
                let fp = links.fs_parent[id];
                (self.shares[fp], ue[fp])
            } else {
                (self.shares[id], ue[id])
            };
            self.factor[id] = classic::factor(s, ue, self.dampening);
        }
        self.visits += 2 * n as u64;
    }

    /// Fair Tree after some users' usage changed: their ancestors' sums, the Level FS of the
    /// changed nodes and of the fs children of changed nodes, their lists sorted again, and
    /// the ranks walked again if a list's order or ties changed.
    fn fair_tree_paths(&mut self) {
        // Every ancestor of a changed user is marked (marks stop at a marked node).
        let mut changed = std::mem::take(&mut self.changed_users);
        let users = changed.len();
        for k in 0..users {
            let mut id = changed[k];
            while id != 0 {
                id = self.parent[id];
                if self.marked[id] {
                    break;
                }
                self.marked[id] = true;
                changed.push(id);
            }
        }
        // Accounts bottom-up (larger ids first).
        changed.sort_unstable_by(|a, b| b.cmp(a));
        for &id in &changed {
            if !self.links.is_user[id] {
                self.usage[id] = self.sum_kids(id);
            }
            self.visits += 1;
        }
        self.touched.clear();
        for &id in &changed {
            if id != 0 {
                self.relevel(id);
            }
            // Every node whose fs parent is `id` reads its usage.
            let (a, b) = (self.list_start[id], self.list_start[id + 1]);
            for k in a..b {
                let c = self.list[k];
                self.relevel(c);
            }
        }
        for &id in &changed {
            self.marked[id] = false;
        }
        changed.clear();
        self.changed_users = changed;
        let mut reorder = false;
        let touched = std::mem::take(&mut self.touched);
        for &p in &touched {
            self.touched_mark[p] = false;
            reorder |= self.sort_list(p);
        }
        self.touched = touched;
        if reorder {
            self.rank();
        }
    }

    /// Recomputes node `id`'s Level FS and notes its list for sorting.
    fn relevel(&mut self, id: NodeId) {
        self.lf[id] = level_fs_one(&self.links, &self.usage, id);
        self.visits += 1;
        let p = self.links.fs_parent[id];
        if !self.touched_mark[p] {
            self.touched_mark[p] = true;
            self.touched.push(p);
        }
    }

    /// Sorts `p`'s fs children by Level FS descending, users first on equal values, then in
    /// tree order (`SiblingSort`'s order), by insertion from the previous order. Returns
    /// whether the walk must run again: the order, or which neighbours tie (ties share a
    /// rank), changed.
    fn sort_list(&mut self, p: NodeId) -> bool {
        let (a, b) = (self.list_start[p], self.list_start[p + 1]);
        let key = |id: NodeId| {
            (
                !ascending_key(self.lf[id]),
                !self.links.is_user[id],
                self.tree_pos[id],
            )
        };
        let mut moved = false;
        for i in a + 1..b {
            let x = self.list[i];
            let kx = key(x);
            let mut j = i;
            while j > a && key(self.list[j - 1]) > kx {
                self.list[j] = self.list[j - 1];
                j -= 1;
            }
            if j != i {
                self.list[j] = x;
                moved = true;
            }
        }
        self.visits += (b - a) as u64;
        let mut prev = NO_VAL;
        for k in a..b {
            let id = self.list[k];
            let tie = self.lf[id] == prev;
            prev = self.lf[id];
            if std::mem::replace(&mut self.tie[id], tie) != tie {
                moved = true;
            }
        }
        moved
    }

    /// Ranks every user (`fair_tree::rank_users` without the merge of tied accounts, on the
    /// kept lists): F = rank / users; accounts and the root `BLANK`.
    fn rank(&mut self) {
        let links = &self.links;
        let total = links.user_count as f64;
        let mut rank = links.user_count;
        let mut rnt = links.user_count;
        // (list, position, previous Level FS, account tied)
        let mut stack: Vec<(NodeId, usize, f64, bool)> = vec![(0, 0, NO_VAL, false)];
        while let Some(frame) = stack.last_mut() {
            let (p, i) = (frame.0, frame.1);
            let (a, b) = (self.list_start[p], self.list_start[p + 1]);
            if a + i >= b {
                stack.pop();
                continue;
            }
            let id = self.list[a + i];
            let tied = if i == 0 && frame.3 {
                true
            } else {
                frame.2 == self.lf[id]
            };
            frame.2 = self.lf[id];
            frame.1 += 1;
            self.visits += 1;
            if links.is_user[id] {
                if !tied {
                    rank = rnt;
                }
                self.factor[id] = rank as f64 / total;
                rnt = rnt.saturating_sub(1);
                continue;
            }
            self.factor[id] = BLANK;
            stack.push((id, 0, NO_VAL, tied));
        }
        if let Some(f) = self.factor.first_mut() {
            *f = BLANK;
        }
    }
}

/// One node's Level FS, as `fair_tree::level_fs` computes it (NO_VAL for the root).
fn level_fs_one(links: &Links, usage: &[f64], id: NodeId) -> f64 {
    if id == 0 {
        return NO_VAL;
    }
    if links.is_parent[id] {
        return if links.is_user[id] {
            f64::INFINITY
        } else {
            NO_VAL
        };
    }
    let s = links.local_share(id);
    if s == 0.0 {
        0.0
    } else {
        let pu = usage[links.fs_parent[id]];
        let u = if pu > 0.0 { usage[id] / pu } else { 0.0 };
        s / u
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::slurm::testtrees::{acct, t1, t1h, t2, ties, user};
    use crate::fairshare::{compute, NodeSpec, Options, TreeSource, TreeSpec};
    use proptest::prelude::*;

    /// The tree of `rows` with `usage` on its users (in row order), built whole.
    fn built(rows: &[NodeSpec], usage: &[f64]) -> Option<Tree> {
        let mut nodes = rows.to_vec();
        let mut k = 0;
        for n in &mut nodes {
            if n.kind == crate::fairshare::NodeKind::User {
                n.usage = usage.get(k).copied();
                k += 1;
            }
        }
        Tree::build(TreeSpec {
            source: TreeSource::Slurm,
            root_name: "root".into(),
            root_usage: None,
            unknown_shares: None,
            nodes,
        })
        .ok()
    }

    /// The kept state against `fairshare::compute` on the tree built whole, bit for bit, for
    /// every node's factor and Level FS.
    fn agrees(state: &Incremental, whole: &Tree) -> Result<(), TestCaseError> {
        let r = compute(whole, state.algorithm(), &Options::default()).unwrap();
        for id in 0..whole.len() {
            let row = r.row(id);
            let bits = |v: Option<f64>| v.map(f64::to_bits);
            if whole.node(id).is_user() {
                prop_assert_eq!(
                    bits(state.fairshare(id)),
                    bits(row.fairshare),
                    "F of {}",
                    id
                );
            }
            if state.algorithm() == Algorithm::FairTree {
                prop_assert_eq!(bits(state.level_fs(id)), bits(row.level_fs), "LF of {}", id);
            }
        }
        Ok(())
    }

    /// Random rows: accounts under the root or an earlier account, users under any account,
    /// shares `parent`, 0 or a few (ties of Level FS come from equal shares and usages).
    fn rows() -> impl Strategy<Value = Vec<NodeSpec>> {
        (
            prop::collection::vec((0usize..8, -1i64..4), 1..8),
            prop::collection::vec((0usize..8, -1i64..3), 1..16),
        )
            .prop_map(|(accounts, users)| {
                let mut rows = Vec::new();
                for (i, &(p, s)) in accounts.iter().enumerate() {
                    let parent = if i == 0 || p % (i + 1) == i {
                        "root".to_string()
                    } else {
                        format!("a{}", p % i)
                    };
                    rows.push(acct(&format!("a{i}"), &parent, s));
                }
                for (i, &(p, s)) in users.iter().enumerate() {
                    rows.push(user(
                        &format!("u{i}"),
                        &format!("a{}", p % accounts.len()),
                        s,
                        0.0,
                    ));
                }
                rows
            })
    }

    /// One step of a replay: charge users, or decay every usage by a factor.
    #[derive(Debug, Clone)]
    enum Step {
        Charge(Vec<(usize, u32)>),
        /// User a's usage set to user b's (a tie).
        Copy(usize, usize),
        Decay(f64),
    }

    fn steps() -> impl Strategy<Value = Vec<Step>> {
        prop::collection::vec(
            prop_oneof![
                4 => prop::collection::vec((0usize..16, 0u32..50), 1..4).prop_map(Step::Charge),
                1 => (0usize..16, 0usize..16).prop_map(|(a, b)| Step::Copy(a, b)),
                1 => (0.5f64..1.0).prop_map(Step::Decay),
            ],
            1..24,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn kept_state_is_the_whole_computation(
            rows in rows(),
            steps in steps(),
            classic in any::<bool>(),
        ) {
            let users = rows.iter().filter(|n| n.kind == crate::fairshare::NodeKind::User).count();
            let mut usage = vec![0.0f64; users];
            let Some(tree) = built(&rows, &usage) else {
                return Ok(()); // a shape the tree refuses
            };
            let ids: Vec<NodeId> = (1..tree.len()).filter(|&i| tree.node(i).is_user()).collect();
            let alg = if classic { Algorithm::Classic } else { Algorithm::FairTree };
            let mut state = Incremental::new(&tree, alg, 1.0).unwrap();
            state.compute();
            agrees(&state, &tree)?;
            for step in steps {
                match step {
                    Step::Charge(c) => {
                        for (u, amount) in c {
                            if let Some(x) = usage.get_mut(u % users) {
                                *x += f64::from(amount) * 1.5;
                            }
                        }
                    }
                    Step::Copy(a, b) => usage[a % users] = usage[b % users],
                    Step::Decay(f) => usage.iter_mut().for_each(|u| *u *= f),
                }
                // Users are set in tree order (rows order = build order for users).
                let mut by_id: Vec<(NodeId, usize)> = Vec::new();
                let mut k = 0;
                for (i, n) in rows.iter().enumerate() {
                    if n.kind == crate::fairshare::NodeKind::User {
                        let id = tree.find_user(n.parent.as_deref().or(Some("root")), &n.name);
                        by_id.push((id.unwrap_or(ids[k]), k));
                        k += 1;
                    }
                    let _ = i;
                }
                let mut row_usage = vec![0.0; users];
                for &(id, k) in &by_id {
                    state.set_usage(id, usage[k]);
                    row_usage[k] = usage[k];
                }
                state.compute();
                let whole = built(&rows, &row_usage).unwrap();
                agrees(&state, &whole)?;
            }
        }
    }

    #[test]
    fn the_reference_trees_agree_from_their_usage() {
        for tree in [t1(), t1h(), t2(), ties()] {
            for alg in [Algorithm::FairTree, Algorithm::Classic] {
                let mut state = Incremental::new(&tree, alg, 1.0).unwrap();
                // Starting from the tree's own usage, then one user's usage changed.
                state.compute();
                agrees(&state, &tree).unwrap();
            }
        }
    }

    /// A charge to one user recomputes its path and the lists on it, not the whole tree:
    /// 100 accounts of 100 users each, one user's usage changed.
    #[test]
    fn one_charge_recomputes_one_path() {
        let mut rows = Vec::new();
        for a in 0..100 {
            rows.push(acct(&format!("a{a}"), "root", 1));
            for u in 0..100 {
                rows.push(user(
                    &format!("u{u}"),
                    &format!("a{a}"),
                    1,
                    (1 + u + a) as f64,
                ));
            }
        }
        let tree = built(
            &rows,
            &(0..10_000)
                .map(|i| (1 + i % 100 + i / 100) as f64)
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let mut state = Incremental::new(&tree, Algorithm::FairTree, 1.0).unwrap();
        state.compute();
        let before = state.visits();
        assert!(before >= 10_100);
        let id = tree.find_user(Some("a7"), "u3").unwrap();
        state.set_usage(id, 1e9);
        state.compute();
        // Its account's 100 users and the root's 100 accounts (sums, Level FS, sort), and the
        // walk of the 10 100 nodes since the order changed: not three passes over the tree.
        let work = state.visits() - before;
        assert!(work < 11_000, "{work}");
        state.set_usage(id, 1e9);
        state.compute();
        assert_eq!(state.visits() - before, work, "no change, no work");
    }
}
