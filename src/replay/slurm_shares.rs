//! Slurm's Fair Tree and classic keywords during a replay (`fairtree_factor`, `level_fs`,
//! `classic_factor`, and `--slurm-conf`'s fair-share factor) from the tree built once and kept
//! up to date as usage changes (`fairshare::slurm::Incremental`), instead of a tree built and
//! computed whole at every recomputation. Bit-identical to that (tested in `shares.rs`).

use crate::fairshare::slurm::Incremental;
use crate::fairshare::{keyword_source, Algorithm, NodeId, Tree};
use crate::pbs::defs::Keyword;

/// What a keyword reads from its algorithm's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    Factor,
    LevelFs,
}

/// The kept states of the algorithms the keywords name, and where each keyword reads.
#[derive(Debug, Clone)]
pub(crate) struct SlurmShares {
    states: Vec<Incremental>,
    /// Per keyword: its state and what it reads.
    reads: Vec<(usize, Read)>,
    /// Per association: its tree node.
    ids: Vec<NodeId>,
    /// Whether associations may share a node (a site tree): their usages are summed from +0
    /// in association order, as the site tree's leaves are; else each one's usage is its
    /// node's.
    summed: bool,
    /// Scratch: usage per node.
    node_usage: Vec<f64>,
}

impl SlurmShares {
    /// The kept states for `keywords` over `tree` (built once, no usage), the associations at
    /// nodes `ids`; `None` when a keyword is not one of Fair Tree's or classic's.
    pub(crate) fn new(
        keywords: &[String],
        tree: &Tree,
        ids: Vec<NodeId>,
        summed: bool,
    ) -> Option<SlurmShares> {
        let mut states: Vec<Incremental> = Vec::new();
        let mut reads = Vec::with_capacity(keywords.len());
        for k in keywords {
            let (alg, _) = keyword_source(k)?;
            let read = match (alg, k.parse::<Keyword>().ok()?) {
                (Algorithm::FairTree, Keyword::LevelFs) => Read::LevelFs,
                (Algorithm::FairTree | Algorithm::Classic, _) => Read::Factor,
                _ => return None,
            };
            let s = match states.iter().position(|s| s.algorithm() == alg) {
                Some(s) => s,
                None => {
                    // The replay runs every algorithm with the default options (dampening 1).
                    states.push(Incremental::new(tree, alg, 1.0)?);
                    states.len() - 1
                }
            };
            reads.push((s, read));
        }
        if ids.iter().any(|&id| id >= tree.len()) {
            return None;
        }
        Some(SlurmShares {
            states,
            reads,
            ids,
            summed,
            node_usage: vec![0.0; tree.len()],
        })
    }

    /// Every keyword's value per association for the associations' `usage`, into `values`;
    /// `changed[a]`: whether one of association a's values changed (bit for bit). Returns
    /// false, computing nothing, when a usage is one a tree refuses (not finite, or negative):
    /// the caller's tree build then reports it.
    pub(crate) fn values(
        &mut self,
        usage: &[f64],
        values: &mut [Vec<f64>],
        changed: &mut [bool],
    ) -> bool {
        if usage.iter().any(|u| !u.is_finite() || *u < 0.0) {
            return false;
        }
        if self.summed {
            for &id in &self.ids {
                if let Some(x) = self.node_usage.get_mut(id) {
                    *x = 0.0;
                }
            }
            for (&id, &u) in self.ids.iter().zip(usage) {
                if let Some(x) = self.node_usage.get_mut(id) {
                    *x += u;
                }
            }
            // A sum of finite usages may still overflow: the tree build refuses it too.
            if self.node_usage.iter().any(|u| !u.is_finite()) {
                return false;
            }
        } else {
            for (&id, &u) in self.ids.iter().zip(usage) {
                if let Some(x) = self.node_usage.get_mut(id) {
                    *x = u;
                }
            }
        }
        for s in &mut self.states {
            for &id in &self.ids {
                if let Some(&u) = self.node_usage.get(id) {
                    s.set_usage(id, u);
                }
            }
            s.compute();
        }
        changed.iter_mut().for_each(|c| *c = false);
        for (&(s, read), out) in self.reads.iter().zip(values.iter_mut()) {
            let Some(state) = self.states.get(s) else {
                continue;
            };
            for ((v, &id), c) in out.iter_mut().zip(&self.ids).zip(changed.iter_mut()) {
                let new = match read {
                    Read::Factor => state.fairshare(id),
                    Read::LevelFs => state.level_fs(id),
                }
                .unwrap_or(0.0);
                if new.to_bits() != v.to_bits() {
                    *v = new;
                    *c = true;
                }
            }
        }
        true
    }

    /// Nodes the states recomputed so far (their work).
    #[cfg(test)]
    pub(crate) fn visits(&self) -> u64 {
        self.states.iter().map(Incremental::visits).sum()
    }
}
