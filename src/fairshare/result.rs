//! `ShareResult`: what every algorithm returns, one `ShareRow` per tree node, with the columns
//! of `sshare`/`pbsfs`/`view-bank` under the same names as `fairsort share --json` prints them.

use super::algorithm::Algorithm;
use super::tree::NodeId;
use serde::Serialize;

/// The values an algorithm computed for one node. `None` means "not computed / blank in sshare".
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ShareRow {
    /// Shares normalised over siblings and up the tree (sshare NormShares).
    pub norm_shares: Option<f64>,
    /// Usage normalised to the root (sshare NormUsage).
    pub norm_usage: Option<f64>,
    /// Effective usage (sshare EffectvUsage); for depth-oblivious the ratio R.
    pub effective_usage: Option<f64>,
    /// The factor in [0, 1] the algorithm gives a user (sshare FairShare; flux `fairshare`).
    pub fairshare: Option<f64>,
    /// Fair Tree's Level FS (sshare LevelFS; +inf prints as "inf").
    pub level_fs: Option<f64>,
    /// PBS fairshare_perc (tree_percentage).
    pub fairshare_perc: Option<f64>,
    /// PBS fairshare_tree_usage (usage_factor).
    pub fairshare_tree_usage: Option<f64>,
    /// PBS fairshare_factor.
    pub fairshare_factor: Option<f64>,
    /// Ticket-based: tickets held.
    pub tickets: Option<f64>,
    /// flux weighted walk: the node's weight among its siblings.
    pub weight: Option<f64>,
    /// The usage the algorithm worked with where it differs from the tree's raw usage
    /// (PBS: every node starts at 1, a group holds 1 + its leaves'); `None` = the raw usage.
    pub usage: Option<f64>,
}

/// One algorithm's values over a whole tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareResult {
    /// Which algorithm produced it.
    pub algorithm: Algorithm,
    /// One row per node, indexed by `NodeId` (the root included).
    pub rows: Vec<ShareRow>,
}

impl ShareResult {
    /// Empty rows for a tree of `len` nodes.
    pub fn new(algorithm: Algorithm, len: usize) -> Self {
        ShareResult {
            algorithm,
            rows: vec![ShareRow::default(); len],
        }
    }

    /// The row of a node (an empty row for an id this result does not cover).
    pub fn row(&self, id: NodeId) -> &ShareRow {
        static EMPTY: ShareRow = ShareRow {
            norm_shares: None,
            norm_usage: None,
            effective_usage: None,
            fairshare: None,
            level_fs: None,
            fairshare_perc: None,
            fairshare_tree_usage: None,
            fairshare_factor: None,
            tickets: None,
            weight: None,
            usage: None,
        };
        self.rows.get(id).unwrap_or(&EMPTY)
    }

    /// The algorithm's headline factor for a user association, in [0, 1]: PBS's
    /// `fairshare_factor`, the others' `fairshare` column.
    pub fn factor(&self, id: NodeId) -> Option<f64> {
        let r = self.row(id);
        match self.algorithm {
            Algorithm::Pbs => r.fairshare_factor,
            _ => r.fairshare,
        }
    }
}

/// Reads one keyword's value out of a row.
pub type RowGetter = fn(&ShareRow) -> Option<f64>;

/// Which algorithm a formula keyword needs, and how to read it from a row. `None` for
/// keywords that are not fair-share values.
pub fn keyword_source(keyword: &str) -> Option<(Algorithm, RowGetter)> {
    Some(match keyword {
        "fairshare_perc" | "fair_share_perc" => (Algorithm::Pbs, |r| r.fairshare_perc),
        "fairshare_tree_usage" => (Algorithm::Pbs, |r| r.fairshare_tree_usage),
        "fairshare_factor" => (Algorithm::Pbs, |r| r.fairshare_factor),
        "fairtree_factor" => (Algorithm::FairTree, |r| r.fairshare),
        "level_fs" => (Algorithm::FairTree, |r| r.level_fs),
        "classic_factor" => (Algorithm::Classic, |r| r.fairshare),
        "depth_oblivious_factor" => (Algorithm::DepthOblivious, |r| r.fairshare),
        "ticket_factor" => (Algorithm::Ticket, |r| r.fairshare),
        "flux_fairshare" => (Algorithm::Flux, |r| r.fairshare),
        _ => return None,
    })
}

/// The share-related error an algorithm can report (the tree itself is already valid).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShareError {
    /// An option value the algorithm cannot use (e.g. dampening <= 0).
    #[error("{0}")]
    BadOption(String),
    /// A user named by `--explain` or a job is not in the tree.
    #[error("no user association `{0}` in the share tree")]
    UnknownUser(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fairshare_keyword_has_a_source() {
        for k in [
            "fairshare_perc",
            "fair_share_perc",
            "fairshare_tree_usage",
            "fairshare_factor",
            "fairtree_factor",
            "level_fs",
            "classic_factor",
            "depth_oblivious_factor",
            "ticket_factor",
            "flux_fairshare",
        ] {
            assert!(keyword_source(k).is_some(), "{k}");
        }
        assert!(keyword_source("ncpus").is_none());
        let row = ShareRow {
            level_fs: Some(2.5),
            ..ShareRow::default()
        };
        let (alg, get) = keyword_source("level_fs").unwrap();
        assert_eq!((alg, get(&row)), (Algorithm::FairTree, Some(2.5)));
    }
}
