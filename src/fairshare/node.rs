//! `Node` and `NodeId`, apart so `tree` and `node_columns` both use them without a cycle.

use crate::fairshare::spec::{NodeKind, Shares};

/// Index of a node in `Tree::nodes`. The root is always 0.
pub type NodeId = usize;

/// One validated node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Account or user name.
    pub name: String,
    /// Account or user association.
    pub kind: NodeKind,
    /// Parent node (None only for the root).
    pub parent: Option<NodeId>,
    /// Children in input order.
    pub children: Vec<NodeId>,
    /// Raw shares (the root's are `Count(1)` unless the input says otherwise; algorithms ignore them).
    pub shares: Shares,
    /// Raw usage: a user's own; an account's as given by the input, else the sum of its subtree.
    pub raw_usage: f64,
    /// Whether `raw_usage` of an account was stated by the input rather than summed.
    pub usage_given: bool,
    /// Depth: root 0, its children 1, ...
    pub depth: usize,
    /// PBS numeric id (cresgroup), if the input had one.
    pub id: Option<i64>,
    /// Input line/row, for messages.
    pub line: Option<usize>,
}

impl Node {
    /// True for a user association (a leaf that jobs charge).
    pub fn is_user(&self) -> bool {
        self.kind == NodeKind::User
    }
}
