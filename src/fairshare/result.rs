//! `ShareResult`: what every algorithm returns, one `ShareRow` per tree node (stored by column),
//! with the columns of `sshare`/`pbsfs`/`view-bank` under the same names as `fairsort share
//! --json` prints them.

use crate::fairshare::algorithm::Algorithm;
use crate::fairshare::node::NodeId;
use crate::pbs::defs::Keyword;
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

/// One column of a [`ShareResult`]: a [`ShareRow`] field, stored for every node at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    /// `ShareRow::norm_shares`.
    NormShares,
    /// `ShareRow::norm_usage`.
    NormUsage,
    /// `ShareRow::effective_usage`.
    EffectiveUsage,
    /// `ShareRow::fairshare`.
    Fairshare,
    /// `ShareRow::level_fs`.
    LevelFs,
    /// `ShareRow::fairshare_perc`.
    FairsharePerc,
    /// `ShareRow::fairshare_tree_usage`.
    FairshareTreeUsage,
    /// `ShareRow::fairshare_factor`.
    FairshareFactor,
    /// `ShareRow::tickets`.
    Tickets,
    /// `ShareRow::weight`.
    Weight,
    /// `ShareRow::usage`.
    Usage,
}

impl Column {
    /// Every column, in `ShareRow` field order.
    pub const ALL: [Column; 11] = [
        Column::NormShares,
        Column::NormUsage,
        Column::EffectiveUsage,
        Column::Fairshare,
        Column::LevelFs,
        Column::FairsharePerc,
        Column::FairshareTreeUsage,
        Column::FairshareFactor,
        Column::Tickets,
        Column::Weight,
        Column::Usage,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// The value stored for "blank" (`None`) in a column: a NaN with a payload no arithmetic
/// produces, so a computed NaN stays a value and a blank stays blank.
const BLANK_BITS: u64 = 0x7FF4_B1A4_C0DE_0000;

/// A blank cell, for algorithms that fill a column vector before installing it with
/// [`ShareResult::set_column`].
pub const BLANK: f64 = f64::from_bits(BLANK_BITS);

fn encode(v: Option<f64>) -> f64 {
    v.unwrap_or(BLANK)
}

fn decode(v: f64) -> Option<f64> {
    (v.to_bits() != BLANK_BITS).then_some(v)
}

/// One algorithm's values over a whole tree, stored by column: only the columns the algorithm
/// computes exist, each one `f64` per node (a blank cell is a reserved NaN), so a pass over a
/// million nodes writes a few flat vectors instead of a million eleven-field rows. Rows are
/// indexed by `NodeId` (the root included); [`ShareResult::row`] assembles one on demand.
#[derive(Debug, Clone)]
pub struct ShareResult {
    /// Which algorithm produced it.
    pub algorithm: Algorithm,
    len: usize,
    /// For each `Column`, the index of its values in `data` (columns may share one vector).
    map: [Option<usize>; 11],
    data: Vec<Vec<f64>>,
}

impl PartialEq for ShareResult {
    /// Equal when the algorithm, the length and every cell agree (blank with blank; a computed
    /// NaN equals nothing, as in `ShareRow`).
    fn eq(&self, other: &Self) -> bool {
        self.algorithm == other.algorithm
            && self.len == other.len
            && (0..self.len).all(|id| self.row(id) == other.row(id))
    }
}

impl ShareResult {
    /// A result for a tree of `len` nodes with no column computed yet (every cell blank).
    pub fn new(algorithm: Algorithm, len: usize) -> Self {
        ShareResult {
            algorithm,
            len,
            map: [None; 11],
            data: Vec::new(),
        }
    }

    /// Number of rows (nodes) the result covers.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the result covers no node.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Installs a whole column of values (`values[id]` for node `id`), one per row.
    /// Panics if the length differs from the result's: algorithms build their columns for
    /// the tree they were given, so a mismatch is a programming error.
    pub(crate) fn set_column(&mut self, column: Column, values: Vec<f64>) {
        assert_eq!(
            values.len(),
            self.len,
            "column {column:?} has the wrong length"
        );
        self.map[column.index()] = Some(self.data.len());
        self.data.push(values);
    }

    /// Makes `column` read the same values as `source` (an algorithm that prints one value
    /// under two names stores it once). No-op when `source` has no values.
    pub fn alias(&mut self, column: Column, source: Column) {
        if let Some(slot) = self.map[source.index()] {
            self.map[column.index()] = Some(slot);
        }
    }

    /// The values of `column` for writing, created blank if missing, copied first if another
    /// column shares them.
    fn column_mut(&mut self, column: Column) -> &mut Vec<f64> {
        let slot = match self.map[column.index()] {
            Some(slot) if self.map.iter().filter(|m| **m == Some(slot)).count() == 1 => slot,
            shared => {
                let values = match shared.and_then(|s| self.data.get(s)) {
                    Some(v) => v.clone(),
                    None => vec![BLANK; self.len],
                };
                self.map[column.index()] = Some(self.data.len());
                self.data.push(values);
                self.data.len() - 1
            }
        };
        &mut self.data[slot]
    }

    fn column(&self, column: Column) -> Option<&[f64]> {
        self.map[column.index()]
            .and_then(|slot| self.data.get(slot))
            .map(Vec::as_slice)
    }

    /// Installs a column given as optional values (`None` = blank).
    pub fn set_column_opt(
        &mut self,
        column: Column,
        values: impl IntoIterator<Item = Option<f64>>,
    ) {
        let v: Vec<f64> = values.into_iter().map(encode).collect();
        self.set_column(column, v);
    }

    /// Sets one cell (creating the column, blank elsewhere, if it did not exist). Ids outside
    /// the result are ignored.
    pub fn set(&mut self, column: Column, id: NodeId, value: Option<f64>) {
        if id >= self.len {
            return;
        }
        if let Some(cell) = self.column_mut(column).get_mut(id) {
            *cell = encode(value);
        }
    }

    /// Blanks one cell of an existing column (no-op when the column or id does not exist).
    pub fn blank(&mut self, column: Column, id: NodeId) {
        if id < self.len && self.has_column(column) {
            if let Some(cell) = self.column_mut(column).get_mut(id) {
                *cell = BLANK;
            }
        }
    }

    /// One cell: `None` when blank, when the algorithm does not compute that column, or for an
    /// id this result does not cover.
    pub fn get(&self, column: Column, id: NodeId) -> Option<f64> {
        self.column(column)
            .and_then(|c| c.get(id))
            .and_then(|&v| decode(v))
    }

    /// Whether the algorithm computed this column at all.
    pub(crate) fn has_column(&self, column: Column) -> bool {
        self.map[column.index()].is_some()
    }

    /// The row of a node, assembled from the columns (an empty row for an id this result does
    /// not cover).
    pub fn row(&self, id: NodeId) -> ShareRow {
        let g = |c| self.get(c, id);
        ShareRow {
            norm_shares: g(Column::NormShares),
            norm_usage: g(Column::NormUsage),
            effective_usage: g(Column::EffectiveUsage),
            fairshare: g(Column::Fairshare),
            level_fs: g(Column::LevelFs),
            fairshare_perc: g(Column::FairsharePerc),
            fairshare_tree_usage: g(Column::FairshareTreeUsage),
            fairshare_factor: g(Column::FairshareFactor),
            tickets: g(Column::Tickets),
            weight: g(Column::Weight),
            usage: g(Column::Usage),
        }
    }

    /// Every row in id order (each assembled on demand).
    pub fn rows(&self) -> impl ExactSizeIterator<Item = ShareRow> + '_ {
        (0..self.len).map(|id| self.row(id))
    }

    /// The algorithm's headline factor for a user association, in [0, 1]: PBS's
    /// `fairshare_factor`, the others' `fairshare` column.
    pub fn factor(&self, id: NodeId) -> Option<f64> {
        match self.algorithm {
            Algorithm::Pbs => self.get(Column::FairshareFactor, id),
            _ => self.get(Column::Fairshare, id),
        }
    }
}

/// Reads one keyword's value out of a row.
pub type RowGetter = fn(&ShareRow) -> Option<f64>;

/// Which algorithm a formula keyword needs, and how to read it from a row. `None` for
/// keywords that are not fair-share values.
pub fn keyword_source(keyword: &str) -> Option<(Algorithm, RowGetter)> {
    Some(match keyword.parse::<Keyword>().ok()? {
        Keyword::FairsharePerc | Keyword::FairSharePerc => (Algorithm::Pbs, |r| r.fairshare_perc),
        Keyword::FairshareTreeUsage => (Algorithm::Pbs, |r| r.fairshare_tree_usage),
        Keyword::FairshareFactor => (Algorithm::Pbs, |r| r.fairshare_factor),
        Keyword::FairtreeFactor => (Algorithm::FairTree, |r| r.fairshare),
        Keyword::LevelFs => (Algorithm::FairTree, |r| r.level_fs),
        Keyword::ClassicFactor => (Algorithm::Classic, |r| r.fairshare),
        Keyword::DepthObliviousFactor => (Algorithm::DepthOblivious, |r| r.fairshare),
        Keyword::TicketFactor => (Algorithm::Ticket, |r| r.fairshare),
        Keyword::FluxFairshare => (Algorithm::Flux, |r| r.fairshare),
        Keyword::EligibleTime
        | Keyword::QueuePriority
        | Keyword::JobPriority
        | Keyword::AccrueType => return None,
        // Slurm's multifactor factors are the job's, bound by `queue::slurm_bind`.
        Keyword::AgeFactor
        | Keyword::AssocFactor
        | Keyword::JobsizeFactor
        | Keyword::PartitionFactor
        | Keyword::QosFactor
        | Keyword::TresFactor
        | Keyword::NiceFactor
        | Keyword::SlurmPriority => return None,
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
        for k in Keyword::PBS.into_iter().chain(Keyword::FAIRSORT) {
            let fair_share_value = !k.is_job_attribute();
            assert_eq!(
                keyword_source(k.as_str()).is_some(),
                fair_share_value,
                "{k}"
            );
        }
        assert!(keyword_source("ncpus").is_none());
        let row = ShareRow {
            level_fs: Some(2.5),
            ..ShareRow::default()
        };
        let (alg, get) = keyword_source("level_fs").unwrap();
        assert_eq!((alg, get(&row)), (Algorithm::FairTree, Some(2.5)));
    }

    #[test]
    fn columns_hold_values_blanks_and_computed_nans_apart() {
        let mut r = ShareResult::new(Algorithm::Classic, 3);
        assert_eq!(r.row(1), ShareRow::default());
        r.set_column(Column::Fairshare, vec![0.5, BLANK, f64::NAN]);
        assert_eq!(r.get(Column::Fairshare, 0), Some(0.5));
        assert_eq!(r.get(Column::Fairshare, 1), None);
        assert!(r.get(Column::Fairshare, 2).is_some_and(f64::is_nan));
        assert_eq!(r.get(Column::Fairshare, 3), None);
        assert_eq!(r.get(Column::LevelFs, 0), None);
        assert_eq!(r.factor(0), Some(0.5));
        r.set(Column::Tickets, 2, Some(7.0));
        assert_eq!(r.row(2).tickets, Some(7.0));
        assert_eq!(r.row(0).tickets, None);
        r.blank(Column::Fairshare, 0);
        assert_eq!(r.row(0).fairshare, None);
        assert_eq!(r.rows().len(), 3);
    }

    #[test]
    fn aliased_columns_read_alike_and_split_on_write() {
        let mut r = ShareResult::new(Algorithm::Pbs, 2);
        r.set_column(Column::FairshareFactor, vec![0.25, 0.75]);
        r.alias(Column::Fairshare, Column::FairshareFactor);
        assert_eq!(r.row(1).fairshare, Some(0.75));
        assert_eq!(r.factor(1), Some(0.75));
        r.set(Column::Fairshare, 1, Some(0.1));
        assert_eq!(r.get(Column::Fairshare, 1), Some(0.1));
        assert_eq!(r.get(Column::FairshareFactor, 1), Some(0.75));
        let mut other = r.clone();
        assert_eq!(other, r);
        other.blank(Column::FairshareFactor, 0);
        assert_ne!(other, r);
    }
}
