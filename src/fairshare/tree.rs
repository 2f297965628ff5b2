//! `Tree`: the validated, indexed share tree every fair-share algorithm reads. Built once from a
//! `TreeSpec` (whatever format it came from); all structural checks live here so every reader
//! gets the same clear errors (unknown parent, cycle, duplicate, negative or non-finite values).

use crate::fairshare::name_index::NameIndex;
use crate::fairshare::node_columns::NodeColumns;
use crate::fairshare::spec::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
use crate::mem::hash::SeededMap;
use crate::parallel::PARALLEL_MIN_JOBS;
use std::sync::OnceLock;
use thiserror::Error;

// Defined in `node.rs` (shared with `node_columns`); `fairshare::tree::Node` still names them.
pub use crate::fairshare::node::{Node, NodeId};

/// A structural problem in a share tree. Messages name the input line where known.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TreeError {
    /// A node names a parent that is not an account of the tree.
    #[error("{}parent `{parent}` of `{name}` does not exist", at(*line))]
    UnknownParent {
        /// The node.
        name: String,
        /// The parent it names.
        parent: String,
        /// The input line, when known.
        line: Option<usize>,
    },
    /// A node's parent is a user, which cannot have children.
    #[error("{}parent `{parent}` of `{name}` is a user, not an account", at(*line))]
    ParentIsUser {
        /// The node.
        name: String,
        /// The parent it names.
        parent: String,
        /// The input line, when known.
        line: Option<usize>,
    },
    /// Two accounts with one name, or one user twice under the same account.
    #[error("{}duplicate {what} `{name}`{}", at(*line), first.map(|l| format!(" (first on line {l})")).unwrap_or_default())]
    Duplicate {
        /// `account` or `user`.
        what: &'static str,
        /// The node.
        name: String,
        /// The input line, when known.
        line: Option<usize>,
        /// The line of the first one, when known.
        first: Option<usize>,
    },
    /// Accounts whose parent chain never reaches the root.
    #[error("{}cycle in the account tree: {}", at(*line), path.join(" -> "))]
    Cycle {
        /// The accounts of the cycle, in order.
        path: Vec<String>,
        /// The input line, when known.
        line: Option<usize>,
    },
    /// Negative, NaN or infinite usage.
    #[error("{}usage of `{name}` must be a finite number >= 0, got {value}", at(*line))]
    BadUsage {
        /// The node.
        name: String,
        /// The value given.
        value: f64,
        /// The input line, when known.
        line: Option<usize>,
    },
    /// An empty or whitespace name.
    #[error("{}empty name", at(*line))]
    EmptyName {
        /// The input line, when known.
        line: Option<usize>,
    },
    /// A name holding a control character (it would forge lines in outputs and logs).
    #[error("{}name {name:?} contains a control character", at(*line))]
    ControlInName {
        /// The name.
        name: String,
        /// The input line, when known.
        line: Option<usize>,
    },
}

fn at(line: Option<usize>) -> String {
    line.map(|l| format!("line {l}: ")).unwrap_or_default()
}

/// The validated share tree.
#[derive(Debug, Clone)]
pub struct Tree {
    nodes: Vec<Node>,
    source: TreeSource,
    unknown_shares: Option<u64>,
    /// Accounts by name (the root is not in it).
    accounts: NameIndex,
    /// Every association of each user name, built on the first lookup (`fairsort share` over a
    /// million users never looks one up; building it was a tenth of the command's time).
    users: OnceLock<NameIndex>,
    /// The user associations sorted by (name, id), when the tree came with them (the home's
    /// `snapshot.bin`): lookups then binary-search them instead of building `users` (a tenth
    /// of a one-job `order` from a 100 000-user home). Dropped when a user is added.
    sorted_users: Option<Vec<NodeId>>,
    /// The hot fields of `nodes` as parallel arrays (the same length as `nodes` once built),
    /// built on the first `columns()`: PBS's pass reads the nodes, and filling 3.3 MB of
    /// columns was an eighth of a one-job `order` from a 100 000-user home.
    cols: OnceLock<NodeColumns>,
}

/// Name of PBS's pre-created group for entities missing from `resource_group`.
pub const PBS_UNKNOWN: &str = "unknown";

impl Tree {
    /// A tree with no nodes yet, room for `capacity` (backed by huge pages when large).
    fn empty(source: TreeSource, unknown_shares: Option<u64>, capacity: usize) -> Tree {
        let mut nodes = Vec::with_capacity(capacity);
        crate::mem::huge_pages::advise(&mut nodes);
        Tree {
            nodes,
            source,
            unknown_shares,
            accounts: NameIndex::default(),
            users: OnceLock::new(),
            sorted_users: None,
            cols: OnceLock::new(),
        }
    }

    /// Validates `spec` and builds the tree. Inactive nodes (flux `active = 0`) are dropped with
    /// their subtrees, as flux-accounting does. For a PBS tree (`unknown_shares` is set) the
    /// `unknown` group is created under the root unless the input has it.
    pub fn build(spec: TreeSpec) -> Result<Tree, TreeError> {
        let TreeSpec {
            source,
            root_name,
            root_usage,
            unknown_shares,
            nodes: mut specs,
        } = spec;
        // The nodes' memory (136 bytes a node) is faulted in by the pool's other workers while
        // this thread checks and links the specs: the faults were two fifths of building a
        // large tree.
        let mut tree = Tree::empty(source, unknown_shares, specs.len() + 3);
        let link = || links(&mut specs, root_name, root_usage, unknown_shares);
        let links = if tree.nodes.capacity() >= PARALLEL_MIN_JOBS {
            // The memory is cut in 2 MiB parts that the other workers take one at a time from
            // the start, and this thread too once the links are made: none waits for another
            // (a fixed split left a thread idle for a tenth of a second, whichever was faster).
            let parts = FaultParts::new(tree.nodes.spare_capacity_mut());
            let links = || {
                let links = link();
                if links.is_ok() {
                    parts.fault_in_all();
                }
                links
            };
            crate::parallel::with_helpers(links, || parts.fault_in_all())
        } else {
            link()
        };
        let Links {
            root_key,
            child_start,
            child_list,
        } = links?;
        let n_specs = specs.len();
        let kids_of = |p: usize| &child_list[child_start[p]..child_start[p + 1]];

        tree.nodes.push(Node {
            name: root_key,
            kind: NodeKind::Account,
            parent: None,
            children: Vec::with_capacity(kids_of(n_specs).len()),
            shares: Shares::Count(1),
            raw_usage: 0.0,
            usage_given: root_usage.is_some(),
            depth: 0,
            id: Some(0),
            line: None,
        });
        // Depth-first from the root (explicit stack: depth is unbounded input). A node's
        // children get consecutive ids, in input order; names move from the specs.
        let mut reached = vec![false; n_specs];
        let mut stack: Vec<(usize, NodeId)> = vec![(n_specs, 0)];
        let mut pending = Vec::new();
        // The user children of the node being filled, for the duplicate check (a small table
        // per account stays in cache where one of a million names would not).
        let mut siblings = NameIndex::default();
        // Whether a user is named like PBS's `unknown` group (then the group is not made).
        let mut user_named_unknown = false;
        while let Some((spec_idx, id)) = stack.pop() {
            let kids = kids_of(spec_idx);
            siblings.reset(kids.len());
            for &k in kids {
                reached[k] = true;
                if !specs[k].active {
                    mark_subtree(&kids_of, k, &mut reached);
                    continue;
                }
                let s = &mut specs[k];
                let name = std::mem::take(&mut s.name);
                let child = tree.push_named(name, s, id, kids_of(k).len());
                if s.kind == NodeKind::User {
                    user_named_unknown |= tree.nodes[child].name == PBS_UNKNOWN;
                    if let Err(first) = siblings.insert_unless(&tree.nodes, child, |_| true) {
                        return Err(TreeError::Duplicate {
                            what: "user",
                            name: tree.nodes[child].name.clone(),
                            line: s.line,
                            first: tree.nodes[first].line,
                        });
                    }
                }
                pending.push((k, child));
            }
            // Push in reverse so the first child is visited first (keeps input order in ids).
            stack.extend(pending.drain(..).rev());
        }
        drop(siblings);
        if let Some(k) = reached.iter().position(|r| !r) {
            return Err(cycle_error(&specs, k));
        }
        drop(child_list);
        drop(reached);
        if let Some(shares) = unknown_shares {
            if tree.find_account(PBS_UNKNOWN).is_none() && !user_named_unknown {
                let spec =
                    NodeSpec::new(PBS_UNKNOWN, None, NodeKind::Account, Shares::Count(shares));
                tree.push(&spec, 0);
            }
        }
        // The specs' vectors and parent names go before the columns grow (peak memory): freed
        // on a pool thread (a million small frees) while this one sums the usage.
        if n_specs >= PARALLEL_MIN_JOBS {
            crate::parallel::join(|| tree.sum_usage(root_usage), move || drop(specs));
        } else {
            drop(specs);
            tree.sum_usage(root_usage);
        }
        Ok(tree)
    }

    /// A tree from nodes that a previous [`Tree::build`] made, in id order (see
    /// [`Assembler`]).
    #[cfg(test)]
    pub(crate) fn from_nodes(
        nodes: Vec<Node>,
        source: TreeSource,
        unknown_shares: Option<u64>,
    ) -> Option<Tree> {
        let mut asm = Assembler::new(source, unknown_shares, nodes.len());
        for n in nodes {
            if !asm.push(n, 0) {
                return None;
            }
        }
        asm.finish()
    }

    /// Appends a node built from `s` under `parent` after the build (`add_user`, the PBS
    /// `unknown` group), keeping the user index if it was built.
    fn push(&mut self, s: &NodeSpec, parent: NodeId) -> NodeId {
        let id = self.push_named(s.name.clone(), s, parent, 0);
        if s.kind == NodeKind::User {
            // The next lookup builds the hash index (with this user) instead.
            self.sorted_users = None;
            if let Some(users) = self.users.get_mut() {
                // `add_user` looked the name up under `parent` first: never refused.
                let _ = users.insert_unless(&self.nodes, id, |_| false);
            }
        }
        id
    }

    /// Appends node `name` (the rest from `s`) under `parent` and indexes it if it is an
    /// account. Users are checked for duplicates by the caller and indexed on first lookup.
    fn push_named(&mut self, name: String, s: &NodeSpec, parent: NodeId, kids: usize) -> NodeId {
        let id = self.nodes.len();
        let depth = self.nodes[parent].depth + 1;
        self.nodes.push(Node {
            name,
            kind: s.kind,
            parent: Some(parent),
            children: Vec::with_capacity(kids),
            shares: s.shares,
            raw_usage: s.usage.unwrap_or(0.0),
            usage_given: s.usage.is_some(),
            depth,
            id: s.id,
            line: s.line,
        });
        if s.kind == NodeKind::Account {
            // Account names are unique (checked before the walk).
            let _ = self.accounts.insert_unless(&self.nodes, id, |_| false);
        }
        self.nodes[parent].children.push(id);
        id
    }

    /// The user associations sorted by (name, id): what [`Tree::with_sorted_users`] takes.
    pub(crate) fn users_by_name(&self) -> Vec<NodeId> {
        let mut ids: Vec<NodeId> = (1..self.nodes.len())
            .filter(|&id| self.nodes[id].is_user())
            .collect();
        ids.sort_unstable_by(|&a, &b| self.nodes[a].name.cmp(&self.nodes[b].name).then(a.cmp(&b)));
        ids
    }

    /// The tree with its users sorted by name given ([`Tree::users_by_name`] of the same
    /// tree, kept by `snapshot.bin`), so looking a user up needs no index build; `None` unless
    /// `sorted` is exactly every user association in (name, id) order.
    #[cfg(test)]
    pub(crate) fn with_sorted_users(self, sorted: Vec<NodeId>) -> Option<Tree> {
        let users = self.nodes.iter().filter(|n| n.is_user()).count();
        self.with_sorted_users_of(sorted, users)
    }

    /// [`Tree::with_sorted_users`] for a tree with `users` user associations.
    fn with_sorted_users_of(mut self, sorted: Vec<NodeId>, users: usize) -> Option<Tree> {
        if sorted.len() != users {
            return None;
        }
        let name = |id: NodeId| self.nodes[id].name.as_str();
        for (i, &id) in sorted.iter().enumerate() {
            if !self.nodes.get(id).is_some_and(Node::is_user) {
                return None;
            }
            // Strictly increasing: no id twice, so with the count every user once.
            if i > 0 && (name(sorted[i - 1]), sorted[i - 1]) >= (name(id), id) {
                return None;
            }
        }
        self.sorted_users = Some(sorted);
        Some(self)
    }

    /// The user index, built on first use from the nodes in id order (build order).
    fn user_index(&self) -> &NameIndex {
        self.users.get_or_init(|| {
            let mut index = NameIndex::with_capacity(self.nodes.len());
            for (id, n) in self.nodes.iter().enumerate().skip(1) {
                if n.is_user() {
                    let _ = index.insert_unless(&self.nodes, id, |_| false);
                }
            }
            index
        })
    }

    /// Accounts without stated usage get the sum of their children (bottom-up over the ids:
    /// children always have larger ids than their parent). Sums start at +0: `Iterator::sum`
    /// of no floats is -0.0, which an empty account (PBS's `unknown` group, a bank without
    /// users) would carry into every value divided by it (`-0.000000`).
    fn sum_usage(&mut self, root_usage: Option<f64>) {
        let children_sum = |nodes: &[Node], id: NodeId| {
            (nodes[id].children.iter()).fold(0.0, |sum, &c| sum + nodes[c].raw_usage)
        };
        for id in (1..self.nodes.len()).rev() {
            let node = &self.nodes[id];
            if node.kind == NodeKind::Account && !node.usage_given {
                self.nodes[id].raw_usage = children_sum(&self.nodes, id);
            }
        }
        self.nodes[0].raw_usage = match root_usage {
            Some(u) => u,
            None => children_sum(&self.nodes, 0),
        };
    }

    /// Adds a user association under `parent` after the build (PBS puts entities missing from
    /// `resource_group` under `unknown` with 1 share). Returns the existing one if present.
    pub fn add_user(&mut self, parent: NodeId, name: &str, shares: Shares) -> NodeId {
        if let Some(id) = self.find_user_in(parent, name) {
            return id;
        }
        let spec = NodeSpec::new(name, None, NodeKind::User, shares);
        let id = self.push(&spec, parent);
        if let Some(cols) = self.cols.get_mut() {
            if let Some(node) = self.nodes.get(cols.len()) {
                cols.push(node);
            }
        }
        id
    }

    /// The root (always id 0).
    pub fn root(&self) -> NodeId {
        0
    }

    /// Number of nodes including the root.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// A tree always has its root, so it is never empty; provided for clippy's sake.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The node with this id. Ids come from this tree, so out-of-range is a programming error.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// The fields every algorithm pass reads, as parallel arrays indexed by id.
    pub fn columns(&self) -> &NodeColumns {
        self.cols.get_or_init(|| NodeColumns::of(&self.nodes))
    }

    /// All nodes, indexed by id.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Children of a node, in input order.
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        &self.nodes[id].children
    }

    /// Parent of a node (None for the root).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].parent
    }

    /// Where the tree came from.
    pub fn source(&self) -> TreeSource {
        self.source
    }

    /// PBS `unknown_shares`, when this is a PBS tree.
    pub fn unknown_shares(&self) -> Option<u64> {
        self.unknown_shares
    }

    /// Node ids in tree order: a node, then its children's subtrees in input order.
    pub fn preorder(&self) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![0];
        while let Some(id) = stack.pop() {
            out.push(id);
            stack.extend(self.nodes[id].children.iter().rev());
        }
        out
    }

    /// User associations in tree order.
    pub fn users(&self) -> Vec<NodeId> {
        self.preorder()
            .into_iter()
            .filter(|&id| self.nodes[id].is_user())
            .collect()
    }

    /// The path from the root to `id`, root first.
    pub fn path(&self, id: NodeId) -> Vec<NodeId> {
        let mut path = vec![id];
        let mut cur = id;
        while let Some(p) = self.nodes[cur].parent {
            path.push(p);
            cur = p;
        }
        path.reverse();
        path
    }

    /// The account with this name (the root's name finds the root).
    pub fn find_account(&self, name: &str) -> Option<NodeId> {
        if name == self.nodes[0].name {
            return Some(0);
        }
        self.accounts.get(&self.nodes, name).first().copied()
    }

    /// Every association of a user name, in build order.
    pub fn users_named(&self, user: &str) -> &[NodeId] {
        if let (None, Some(sorted)) = (self.users.get(), &self.sorted_users) {
            let name = |id: NodeId| self.nodes[id].name.as_str();
            let lo = sorted.partition_point(|&id| name(id) < user);
            let n = sorted[lo..].partition_point(|&id| name(id) == user);
            return &sorted[lo..lo + n];
        }
        self.user_index().get(&self.nodes, user)
    }

    /// The user association of `user` directly under `parent`.
    pub fn find_user_in(&self, parent: NodeId, user: &str) -> Option<NodeId> {
        self.users_named(user)
            .iter()
            .copied()
            .find(|&id| self.nodes[id].parent == Some(parent))
    }

    /// The association for a job: `(account, user)` when the account is known (Slurm, flux),
    /// else the user's first association (PBS entities are unique).
    pub fn find_user(&self, account: Option<&str>, user: &str) -> Option<NodeId> {
        match account {
            Some(a) => self
                .find_account(a)
                .and_then(|p| self.find_user_in(p, user)),
            None => self.users_named(user).first().copied(),
        }
    }

    /// The display name of a node: `account/user` for users, the name for accounts.
    pub fn label(&self, id: NodeId) -> String {
        let n = &self.nodes[id];
        match (n.kind, n.parent) {
            (NodeKind::User, Some(p)) => format!("{}/{}", self.nodes[p].name, n.name),
            _ => n.name.clone(),
        }
    }
}

/// A tree from the nodes a previous [`Tree::build`] made, given one at a time in id order
/// (the home's `snapshot.bin` keeps them so a read skips the spec and the build), in one pass:
/// only `children` and `depth` are recomputed. Refuses (see [`Assembler::push`]) any node that
/// breaks the shape every built tree has: the root first (an account with no parent), every
/// other node's parent an account with a smaller id, account names unique and not the root's,
/// usage finite and >= 0. What the build checked on the text (names, duplicate users under one
/// account) is not checked again.
pub(crate) struct Assembler {
    tree: Tree,
    /// User associations pushed so far.
    users: usize,
}

impl Assembler {
    /// An empty tree for about `capacity` nodes.
    pub(crate) fn new(source: TreeSource, unknown_shares: Option<u64>, capacity: usize) -> Self {
        Assembler {
            tree: Tree::empty(source, unknown_shares, capacity),
            users: 0,
        }
    }

    /// Adds the next node (its `children` and `depth` are ignored; `kids` is room for the
    /// children to come, a hint); false when it breaks the shape of a built tree (the
    /// assembler is then of no further use).
    pub(crate) fn push(&mut self, mut node: Node, kids: usize) -> bool {
        let t = &mut self.tree;
        let id = t.nodes.len();
        if !node.raw_usage.is_finite() || node.raw_usage < 0.0 {
            return false;
        }
        match node.parent {
            None if id == 0 && node.kind == NodeKind::Account => node.depth = 0,
            Some(p) if p < id && t.nodes[p].kind == NodeKind::Account => {
                node.depth = t.nodes[p].depth + 1;
                t.nodes[p].children.push(id);
            }
            _ => return false,
        }
        node.children = Vec::with_capacity(kids);
        self.users += usize::from(node.is_user());
        let account = id > 0 && node.kind == NodeKind::Account;
        t.nodes.push(node);
        !account
            || (t.nodes[id].name != t.nodes[0].name
                && t.accounts.insert_unless(&t.nodes, id, |_| true).is_ok())
    }

    /// The tree; `None` when no node (not even the root) was given.
    pub(crate) fn finish(self) -> Option<Tree> {
        (!self.tree.nodes.is_empty()).then_some(self.tree)
    }

    /// [`Assembler::finish`] with the users sorted by name ([`Tree::users_by_name`] of the
    /// tree given), checked as [`Tree::with_sorted_users`] does.
    pub(crate) fn finish_with_sorted_users(self, sorted: Vec<NodeId>) -> Option<Tree> {
        let users = self.users;
        self.finish()?.with_sorted_users_of(sorted, users)
    }
}

/// The specs checked (names, usage, duplicate accounts, parents) and linked: each spec's
/// parent and the children of each as ranges of one list (PBS's `unknown` group added to the
/// specs when entities are placed under it).
fn links(
    specs: &mut Vec<NodeSpec>,
    root_name: String,
    root_usage: Option<f64>,
    unknown_shares: Option<u64>,
) -> Result<Links, TreeError> {
    // PBS's `unknown` group: whether the input has it, and whether it places entities under it.
    let (mut has_group, mut placed_under) = (false, false);
    for s in specs.iter() {
        if unknown_shares.is_some() {
            has_group |= s.name == PBS_UNKNOWN;
            placed_under |= s.parent.as_deref() == Some(PBS_UNKNOWN);
        }
        if s.name.trim().is_empty() {
            return Err(TreeError::EmptyName { line: s.line });
        }
        if has_control(&s.name) || s.parent.as_deref().is_some_and(has_control) {
            let name = match &s.parent {
                Some(p) if has_control(p) => p.clone(),
                _ => s.name.clone(),
            };
            return Err(TreeError::ControlInName { name, line: s.line });
        }
        if let Some(u) = s.usage {
            if !u.is_finite() || u < 0.0 {
                return Err(TreeError::BadUsage {
                    name: s.name.clone(),
                    value: u,
                    line: s.line,
                });
            }
        }
    }
    if let Some(u) = root_usage {
        if !u.is_finite() || u < 0.0 {
            return Err(TreeError::BadUsage {
                name: root_name.clone(),
                value: u,
                line: None,
            });
        }
    }
    // PBS creates its `unknown` group before reading `resource_group`, so entities may be
    // placed under it (by a `resource_group` line, or by usage of a name not in the file):
    // then the group is made here, as the root's last child; otherwise after the walk.
    if let Some(shares) = unknown_shares {
        if !has_group && placed_under {
            specs.push(NodeSpec::new(
                PBS_UNKNOWN,
                None,
                NodeKind::Account,
                Shares::Count(shares),
            ));
        }
    }
    // Accounts by name (the root's name included).
    let root_key = if root_name.is_empty() {
        "root".to_string()
    } else {
        root_name
    };
    let n_specs = specs.len();
    // Each spec's parent as a spec index; `n_specs` stands for the root.
    let mut parent_of = vec![n_specs; n_specs];
    {
        let mut account_spec: SeededMap<&str, usize> = SeededMap::default();
        for (i, s) in specs.iter().enumerate() {
            if s.kind != NodeKind::Account {
                continue;
            }
            if s.name == root_key {
                return Err(TreeError::Duplicate {
                    what: "account",
                    name: s.name.clone(),
                    line: s.line,
                    first: None,
                });
            }
            if let Some(&j) = account_spec.get(s.name.as_str()) {
                return Err(TreeError::Duplicate {
                    what: "account",
                    name: s.name.clone(),
                    line: s.line,
                    first: specs[j].line,
                });
            }
            account_spec.insert(&s.name, i);
        }
        // Siblings usually come together: the last parent found is tried before hashing.
        let mut last: Option<(&str, usize)> = None;
        for (i, s) in specs.iter().enumerate() {
            match s.parent.as_deref() {
                None => {}
                Some(p) if p == root_key => {}
                Some(p) => {
                    if let Some((lp, j)) = last {
                        if lp == p {
                            parent_of[i] = j;
                            continue;
                        }
                    }
                    match account_spec.get(p) {
                        Some(&j) => {
                            parent_of[i] = j;
                            last = Some((p, j));
                        }
                        None => return Err(parent_error(specs, s, p)),
                    }
                }
            }
        }
    }
    // Children of each spec (and of the root, at `n_specs`) as contiguous ranges of
    // `child_list`, in input order.
    let mut child_start = vec![0usize; n_specs + 2];
    for &p in &parent_of {
        child_start[p + 1] += 1;
    }
    for i in 1..child_start.len() {
        child_start[i] += child_start[i - 1];
    }
    let mut fill = child_start.clone();
    let mut child_list = vec![0usize; n_specs];
    for (i, &p) in parent_of.iter().enumerate() {
        child_list[fill[p]] = i;
        fill[p] += 1;
    }
    Ok(Links {
        root_key,
        child_start,
        child_list,
    })
}

/// What [`links`] gives [`Tree::build`].
struct Links {
    /// The root's name.
    root_key: String,
    /// The children of spec `p` (and of the root, at `specs.len()`) are
    /// `child_list[child_start[p]..child_start[p + 1]]`, in input order.
    child_start: Vec<usize>,
    child_list: Vec<usize>,
}

/// Parts of a vector's spare memory for the workers to fault in ([`fault_in`]), each taking
/// the next part until none is left.
struct FaultParts<'a, T> {
    parts: std::sync::Mutex<std::slice::ChunksMut<'a, std::mem::MaybeUninit<T>>>,
}

impl<'a, T: Send> FaultParts<'a, T> {
    /// `spare` in parts of 2 MiB (one huge page each where the kernel backs it so).
    fn new(spare: &'a mut [std::mem::MaybeUninit<T>]) -> Self {
        let per_part = ((2 << 20) / std::mem::size_of::<T>().max(1)).max(1);
        FaultParts {
            parts: std::sync::Mutex::new(spare.chunks_mut(per_part)),
        }
    }

    /// Faults in parts until every part is taken.
    fn fault_in_all(&self) {
        loop {
            let part = self
                .parts
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .next();
            match part {
                Some(part) => fault_in(part),
                None => return,
            }
        }
    }
}

/// Writes one value into each 4 KiB page of `spare` so that the kernel maps its pages now
/// (each is overwritten later; only the page faults matter).
fn fault_in<T>(spare: &mut [std::mem::MaybeUninit<T>]) {
    let step = (4096 / std::mem::size_of::<T>().max(1)).max(1);
    for slot in spare.iter_mut().step_by(step) {
        *slot = std::mem::MaybeUninit::zeroed();
        std::hint::black_box(slot);
    }
}

/// Whether `s` holds a control character (printable ASCII, nearly every name, is checked
/// byte-wise first).
fn has_control(s: &str) -> bool {
    !s.bytes().all(|b| (0x20..0x7f).contains(&b)) && s.chars().any(char::is_control)
}

/// Marks every descendant of spec `k` as reached (used for dropped inactive subtrees).
fn mark_subtree<'a>(kids_of: &impl Fn(usize) -> &'a [usize], k: usize, reached: &mut [bool]) {
    let mut stack = vec![k];
    while let Some(i) = stack.pop() {
        for &c in kids_of(i) {
            if !reached[c] {
                reached[c] = true;
                stack.push(c);
            }
        }
    }
}

/// The error for spec `s` naming parent `p`, which is not an account: a user, or nothing.
fn parent_error(specs: &[NodeSpec], s: &NodeSpec, p: &str) -> TreeError {
    let is_user = specs
        .iter()
        .any(|o| o.kind == NodeKind::User && o.name == p);
    if is_user {
        TreeError::ParentIsUser {
            name: s.name.clone(),
            parent: p.to_string(),
            line: s.line,
        }
    } else {
        TreeError::UnknownParent {
            name: s.name.clone(),
            parent: p.to_string(),
            line: s.line,
        }
    }
}

/// Names the cycle that keeps spec `k` unreachable from the root (the specs of unreached
/// nodes still have their names).
fn cycle_error(specs: &[NodeSpec], k: usize) -> TreeError {
    let accounts: SeededMap<&str, usize> = specs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == NodeKind::Account && !s.name.is_empty())
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let mut seen: Vec<usize> = Vec::new();
    let mut cur = k;
    loop {
        if let Some(pos) = seen.iter().position(|&s| s == cur) {
            let mut path: Vec<String> =
                seen[pos..].iter().map(|&i| specs[i].name.clone()).collect();
            path.push(specs[cur].name.clone());
            return TreeError::Cycle {
                path,
                line: specs[cur].line,
            };
        }
        seen.push(cur);
        match specs[cur].parent.as_deref().and_then(|p| accounts.get(p)) {
            Some(&p) => cur = p,
            None => {
                return TreeError::Cycle {
                    path: vec![specs[k].name.clone()],
                    line: specs[k].line,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acct(name: &str, parent: Option<&str>, shares: u64) -> NodeSpec {
        NodeSpec::new(
            name,
            parent.map(str::to_string),
            NodeKind::Account,
            Shares::Count(shares),
        )
    }
    fn user(name: &str, parent: Option<&str>, shares: u64, usage: f64) -> NodeSpec {
        let mut n = NodeSpec::new(
            name,
            parent.map(str::to_string),
            NodeKind::User,
            Shares::Count(shares),
        );
        n.usage = Some(usage);
        n
    }
    fn spec(nodes: Vec<NodeSpec>) -> TreeSpec {
        TreeSpec {
            root_name: "root".into(),
            nodes,
            ..TreeSpec::default()
        }
    }

    #[test]
    fn sums_usage_up_the_tree_and_keeps_input_order() {
        let t = Tree::build(spec(vec![
            acct("a", None, 1),
            user("u1", Some("a"), 1, 10.0),
            acct("b", Some("a"), 1),
            user("u2", Some("b"), 1, 5.0),
            user("u3", None, 1, 1.5),
        ]))
        .unwrap();
        let a = t.find_account("a").unwrap();
        assert_eq!(t.node(a).raw_usage, 15.0);
        assert_eq!(t.node(t.root()).raw_usage, 16.5);
        let names: Vec<_> = t
            .preorder()
            .iter()
            .map(|&i| t.node(i).name.clone())
            .collect();
        assert_eq!(names, ["root", "a", "u1", "b", "u2", "u3"]);
        assert_eq!(t.node(t.find_user(Some("b"), "u2").unwrap()).depth, 3);
    }

    #[test]
    fn parents_may_come_after_children() {
        let t = Tree::build(spec(vec![user("u", Some("a"), 1, 1.0), acct("a", None, 1)])).unwrap();
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn stated_account_usage_is_kept() {
        let mut a = acct("a", None, 1);
        a.usage = Some(100.0);
        let t = Tree::build(spec(vec![a, user("u", Some("a"), 1, 1.0)])).unwrap();
        assert_eq!(t.node(t.find_account("a").unwrap()).raw_usage, 100.0);
    }

    #[test]
    fn a_user_may_sit_under_several_accounts() {
        let t = Tree::build(spec(vec![
            acct("a", None, 1),
            acct("b", None, 1),
            user("u", Some("a"), 1, 1.0),
            user("u", Some("b"), 1, 2.0),
        ]))
        .unwrap();
        assert_eq!(t.users_named("u").len(), 2);
        assert_eq!(t.node(t.find_user(Some("b"), "u").unwrap()).raw_usage, 2.0);
    }

    #[test]
    fn names_with_control_characters_are_refused() {
        let mut u = user("u\x1b[2J", None, 1, 1.0);
        u.line = Some(3);
        let e = Tree::build(spec(vec![u])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: name \"u\\u{1b}[2J\" contains a control character"
        );
        let e = Tree::build(spec(vec![
            acct("a", None, 1),
            user("u", Some("a\n"), 1, 1.0),
        ]))
        .unwrap_err();
        assert!(matches!(e, TreeError::ControlInName { .. }), "{e}");
    }

    #[test]
    fn control_check_covers_c0_del_and_c1() {
        for bad in ["a\x00", "\x1fb", "a\x7f", "a\u{85}b", "\u{9f}"] {
            assert!(has_control(bad), "{bad:?}");
        }
        for good in [
            "",
            "alice",
            "a b~",
            "j\u{e9}r\u{f4}me",
            "\u{a0}x",
            "\u{4e2d}",
        ] {
            assert!(!has_control(good), "{good:?}");
        }
    }

    #[test]
    fn structural_errors_name_the_line() {
        let mut u = user("u", Some("nope"), 1, 1.0);
        u.line = Some(4);
        let e = Tree::build(spec(vec![u])).unwrap_err();
        assert_eq!(e.to_string(), "line 4: parent `nope` of `u` does not exist");

        let mut a2 = acct("a", None, 1);
        a2.line = Some(9);
        let mut a1 = acct("a", None, 1);
        a1.line = Some(2);
        let e = Tree::build(spec(vec![a1, a2])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 9: duplicate account `a` (first on line 2)"
        );

        let e =
            Tree::build(spec(vec![user("u", None, 1, 1.0), user("u", None, 1, 1.0)])).unwrap_err();
        assert!(matches!(e, TreeError::Duplicate { what: "user", .. }));

        let e = Tree::build(spec(vec![user("u", None, 1, -1.0)])).unwrap_err();
        assert!(e.to_string().contains("must be a finite number >= 0"));
        let e = Tree::build(spec(vec![user("u", None, 1, f64::NAN)])).unwrap_err();
        assert!(matches!(e, TreeError::BadUsage { .. }));

        let e = Tree::build(spec(vec![
            user("x", Some("u"), 1, 1.0),
            user("u", None, 1, 1.0),
        ]))
        .unwrap_err();
        assert!(matches!(e, TreeError::ParentIsUser { .. }));
    }

    #[test]
    fn cycles_are_reported() {
        let e =
            Tree::build(spec(vec![acct("a", Some("b"), 1), acct("b", Some("a"), 1)])).unwrap_err();
        match e {
            TreeError::Cycle { path, .. } => {
                assert!(path.len() >= 3, "{path:?}");
                assert_eq!(path.first(), path.last());
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn inactive_nodes_drop_with_their_subtree() {
        let mut b = acct("b", None, 1);
        b.active = false;
        let t = Tree::build(spec(vec![
            acct("a", None, 1),
            b,
            user("u", Some("b"), 1, 3.0),
        ]))
        .unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.node(0).raw_usage, 0.0);
    }

    #[test]
    fn entities_placed_under_pbs_unknown_group_are_built() {
        let mut s = spec(vec![
            acct("g", None, 5),
            user("a", Some("g"), 1, 10.0),
            user("bob", Some(PBS_UNKNOWN), 1, 4.0),
        ]);
        s.unknown_shares = Some(3);
        let t = Tree::build(s.clone()).unwrap();
        let unknown = t.find_account(PBS_UNKNOWN).unwrap();
        assert_eq!(t.node(unknown).shares, Shares::Count(3));
        let bob = t.find_user(Some(PBS_UNKNOWN), "bob").unwrap();
        assert_eq!(t.node(bob).parent, Some(unknown));
        // Not a PBS tree: `unknown` is an ordinary name and must exist.
        s.unknown_shares = None;
        assert!(Tree::build(s).is_err());
    }

    #[test]
    fn pbs_tree_gets_unknown_group() {
        let mut s = spec(vec![user("u", None, 1, 1.0)]);
        s.unknown_shares = Some(0);
        let mut t = Tree::build(s).unwrap();
        let unknown = t.find_account(PBS_UNKNOWN).unwrap();
        let x = t.add_user(unknown, "stranger", Shares::Count(1));
        assert_eq!(t.find_user(None, "stranger"), Some(x));
        assert_eq!(t.add_user(unknown, "stranger", Shares::Count(1)), x);
    }

    #[test]
    fn empty_accounts_have_positive_zero_usage() {
        let mut s = spec(vec![acct("a", None, 1), user("u", None, 1, 5.0)]);
        s.unknown_shares = Some(0);
        let t = Tree::build(s).unwrap();
        for name in ["a", PBS_UNKNOWN] {
            let u = t.node(t.find_account(name).unwrap()).raw_usage;
            assert!(u == 0.0 && u.is_sign_positive(), "{name}: {u}");
        }
        let empty = Tree::build(spec(vec![])).unwrap();
        assert!(empty.node(empty.root()).raw_usage.is_sign_positive());
    }

    #[test]
    fn from_nodes_rebuilds_a_built_tree_and_refuses_other_shapes() {
        let mut s = spec(vec![
            acct("a", None, 1),
            user("u", Some("a"), 2, 3.0),
            acct("b", Some("a"), 1),
            user("u", Some("b"), 1, 5.0),
            user("v", None, 1, 1.5),
        ]);
        s.unknown_shares = Some(2);
        let t = Tree::build(s).unwrap();
        let again = |nodes: Vec<Node>| Tree::from_nodes(nodes, t.source(), t.unknown_shares());
        // Children and depth are recomputed from the parents.
        let mut bare = t.nodes().to_vec();
        for n in &mut bare {
            n.children.clear();
            n.depth = 7;
        }
        let back = again(bare).unwrap();
        assert_eq!(back.nodes(), t.nodes());
        assert_eq!(back.columns(), t.columns());
        assert_eq!(back.users_named("u"), t.users_named("u"));
        assert_eq!(back.find_account("b"), t.find_account("b"));
        assert_eq!(back.find_account(PBS_UNKNOWN), t.find_account(PBS_UNKNOWN));
        let b = t.find_account("b").unwrap();
        let v = t.find_user(None, "v").unwrap();
        let u = t.find_user(Some("a"), "u").unwrap();
        type Break<'a> = dyn Fn(&mut Vec<Node>) + 'a;
        let broken: [&Break; 8] = [
            &|n| n.clear(),
            &|n| n[0].parent = Some(0),
            &|n| n[0].kind = NodeKind::User,
            &|n| n[b].parent = Some(b),
            &|n| n[b].parent = Some(n.len()),
            &|n| n[b].parent = Some(v.min(u)),
            &|n| n[b].name = "a".into(),
            &|n| n[b].name = "root".into(),
        ];
        for (i, breaks) in broken.iter().enumerate() {
            let mut nodes = t.nodes().to_vec();
            breaks(&mut nodes);
            assert!(again(nodes).is_none(), "case {i}");
        }
        let mut nodes = t.nodes().to_vec();
        nodes[v].raw_usage = f64::INFINITY;
        assert!(again(nodes).is_none());
    }

    #[test]
    fn sorted_users_find_what_the_index_finds() {
        let t = Tree::build(spec(vec![
            acct("a", None, 1),
            acct("b", None, 1),
            user("zoe", Some("b"), 1, 1.0),
            user("u", Some("a"), 1, 1.0),
            user("u", Some("b"), 1, 2.0),
            user("ann", None, 1, 1.0),
        ]))
        .unwrap();
        let sorted = t.users_by_name();
        let names: Vec<&str> = sorted.iter().map(|&i| t.node(i).name.as_str()).collect();
        assert_eq!(names, ["ann", "u", "u", "zoe"]);
        let fresh = || Tree::from_nodes(t.nodes().to_vec(), t.source(), None).unwrap();
        let mut s = fresh().with_sorted_users(sorted.clone()).unwrap();
        for name in ["ann", "u", "zoe", "a", "", "v", "zz"] {
            assert_eq!(s.users_named(name), t.users_named(name), "{name}");
        }
        assert!(s.users.get().is_none(), "no index was built");
        assert_eq!(s.find_user(Some("b"), "u"), t.find_user(Some("b"), "u"));
        // Adding a user drops them; lookups still see every user.
        let b = s.find_account("b").unwrap();
        let x = s.add_user(b, "u2", Shares::Count(1));
        assert!(s.sorted_users.is_none());
        assert_eq!(s.users_named("u2"), &[x]);
        assert_eq!(s.users_named("u").len(), 2);
        // The columns, built lazily, cover the added user whether built before or after.
        assert!(s.cols.get().is_none());
        assert_eq!(s.columns(), &NodeColumns::of(s.nodes()));
        let y = s.add_user(b, "u3", Shares::Count(2));
        assert_eq!(s.columns().len(), y + 1);
        assert_eq!(s.columns(), &NodeColumns::of(s.nodes()));
        // Anything but every user in (name, id) order is refused.
        let mut swapped = sorted.clone();
        swapped.swap(1, 2);
        let a = t.find_account("a").unwrap();
        for bad in [
            Vec::new(),
            sorted[1..].to_vec(),
            swapped,
            vec![sorted[0], sorted[0], sorted[2], sorted[3]],
            vec![sorted[0], sorted[1], sorted[2], a],
            vec![sorted[0], sorted[1], sorted[2], 99],
        ] {
            assert!(fresh().with_sorted_users(bad.clone()).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn fault_parts_cover_the_spare_memory_once() {
        let mut v: Vec<u64> = Vec::with_capacity((3 << 20) / 8 + 5);
        let n = v.capacity();
        let parts = FaultParts::new(v.spare_capacity_mut());
        crate::parallel::each_worker(3, |_| parts.fault_in_all());
        let taken = parts.parts.into_inner().unwrap().count();
        assert_eq!(taken, 0, "every part taken");
        // 3 MiB and a bit: two parts of 2 MiB's worth of u64 at most.
        let mut v2: Vec<u64> = Vec::with_capacity(n);
        let lens: Vec<usize> = FaultParts::new(v2.spare_capacity_mut())
            .parts
            .into_inner()
            .unwrap()
            .map(|p| p.len())
            .collect();
        assert_eq!(lens, [(2 << 20) / 8, n - (2 << 20) / 8]);
        v.push(1);
        assert_eq!(v, [1]);
    }

    #[test]
    fn deep_chains_do_not_overflow_the_stack() {
        let mut nodes = vec![acct("a0", None, 1)];
        for i in 1..200_000 {
            nodes.push(acct(&format!("a{i}"), Some(&format!("a{}", i - 1)), 1));
        }
        let t = Tree::build(spec(nodes)).unwrap();
        assert_eq!(t.node(t.len() - 1).depth, 200_000);
    }
}
