//! `TreeSpec`: the neutral description of a share tree that every reader produces and
//! `fairshare::tree` validates and builds. Readers (PBS `resource_group`, Slurm `sshare`/`sacctmgr`,
//! flux-accounting SQLite, fairsort TOML/JSON) only translate syntax; all structural checks
//! (unknown parent, cycles, duplicates, negative values) live in one place, the tree builder.

use serde::{Deserialize, Serialize};

/// Whether a node is an account/group/bank (may have children) or a user/entity (a leaf).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// An account (Slurm), group (PBS) or bank (flux).
    Account,
    /// A user association (Slurm, flux) or a leaf entity (PBS).
    User,
}

/// Raw shares as the schedulers store them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Shares {
    /// A plain share count (0 allowed).
    Count(u64),
    /// Slurm's `FairShare=parent` (stored as 0x7FFFFFFF, printed `parent`).
    Parent,
}

/// Which scheduler the tree came from; algorithms use it for source-specific defaults
/// (e.g. PBS's `unknown` group, Slurm's root usage) and the CLI for its table style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TreeSource {
    /// PBS `resource_group` (+ `usage`).
    Pbs,
    /// Slurm `sshare` / `sacctmgr`.
    Slurm,
    /// flux-accounting database.
    Flux,
    /// fairsort's own TOML/JSON format.
    #[default]
    Native,
}

/// One node of the tree as read from an input, before validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeSpec {
    /// Account/group/bank name (unique among accounts) or user name (unique within its parent).
    pub name: String,
    /// The parent account's name; `None` means directly under the root.
    pub parent: Option<String>,
    /// Account or user.
    pub kind: NodeKind,
    /// Raw shares.
    pub shares: Shares,
    /// Raw usage. On users: the user's own usage (missing = 0). On accounts: only when the input
    /// states it (Slurm keeps deleted children's usage in the parent); missing = sum of subtree.
    pub usage: Option<f64>,
    /// flux-accounting's `active` column; inactive rows are skipped as flux does. Default true.
    pub active: bool,
    /// PBS's numeric id (cresgroup) where the input has one.
    pub id: Option<i64>,
    /// 1-based line (or row) of the input this node came from, for error messages.
    pub line: Option<usize>,
}

impl NodeSpec {
    /// A node with the common defaults (active, no usage, no id, no line).
    pub fn new(
        name: impl Into<String>,
        parent: Option<String>,
        kind: NodeKind,
        shares: Shares,
    ) -> Self {
        NodeSpec {
            name: name.into(),
            parent,
            kind,
            shares,
            usage: None,
            active: true,
            id: None,
            line: None,
        }
    }
}

/// A whole tree as read from an input.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TreeSpec {
    /// Where it came from.
    pub source: TreeSource,
    /// Name of the root (`root` for Slurm/flux; PBS calls it `TREEROOT`).
    pub root_name: String,
    /// Root raw usage when the input states it (Slurm's root RawUsage); else the sum of all users.
    pub root_usage: Option<f64>,
    /// PBS `unknown_shares`: shares of PBS's pre-created `unknown` group (None = not a PBS tree).
    pub unknown_shares: Option<u64>,
    /// Every node except the root, in input order (parents need not come first).
    pub nodes: Vec<NodeSpec>,
}

impl TreeSpec {
    /// True for a tree that follows PBS's entity rules: a `resource_group` tree, or any tree with
    /// an `unknown_shares` setting (PBS's `unknown` group, where names not in the tree go).
    pub fn follows_pbs(&self) -> bool {
        self.source == TreeSource::Pbs || self.unknown_shares.is_some()
    }
}
