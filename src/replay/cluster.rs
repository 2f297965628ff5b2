//! `Cluster`: the cluster model a replay runs on.

/// The cluster: nodes × cores per node (and memory per node); jobs need whole cores (and their
/// memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cluster {
    /// Nodes.
    pub nodes: u64,
    /// Cores per node.
    pub cores_per_node: u64,
    /// Memory per node in KB (PBS's size unit); 0: memory is not modelled.
    pub mem_per_node: u64,
}

impl Cluster {
    /// Cores in all.
    pub fn cores(&self) -> u64 {
        self.nodes.saturating_mul(self.cores_per_node)
    }

    /// Memory in all, in KB (0: not modelled).
    pub fn mem(&self) -> u64 {
        self.nodes.saturating_mul(self.mem_per_node)
    }
}
