//! `ReplayError`: why a replay cannot run, apart so every stage of the replay names it.

/// A replay that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The cluster has no cores.
    #[error("the cluster has no cores (--nodes and --cores-per-node must be at least 1)")]
    EmptyCluster,
    /// The half-life is not a positive number of seconds.
    #[error("{0}")]
    HalfLife(String),
    /// The share tree built from the trace's entities, or an algorithm over it, failed.
    #[error("fair share: {0}")]
    Shares(String),
    /// Slurm's priority cannot be replayed: a cluster model too large for slurm.conf's node
    /// records (or, a defect, the formula standing for it did not compile).
    #[error("slurm priority: {0}")]
    Slurm(String),
}
