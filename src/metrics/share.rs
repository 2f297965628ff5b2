//! The per-association families: each algorithm's factor, Level FS, effective usage,
//! normalised shares and usage, and the tree's raw shares, one row per node of the tree in
//! preorder (the order of `fairsort share --json`).

use crate::fairshare::{Algorithm, Column, NodeId, ShareResult, Shares, Tree};
use crate::metrics::encode::{write_family, Descriptor, Rows};
use crate::metrics::names;
use crate::metrics::text;
use crate::metrics::SiteLabels;
use prometheus_client::encoding::MetricEncoder;
use std::io;
use std::ops::Range;
use std::sync::Arc;

/// A share tree and the results of every algorithm the site uses over it.
#[derive(Debug)]
pub struct ShareMetrics {
    /// The tree (names, shares, raw usage).
    pub tree: Tree,
    /// One result per algorithm, each over `tree`.
    pub results: Vec<ShareResult>,
}

/// Which value of a row a family shows.
#[derive(Debug, Clone, Copy)]
enum Value {
    Factor,
    LevelFs,
    EffectiveUsage,
    NormShares,
    RawUsage,
    RawShares,
}

/// The account and user labels of node `id`: a user's parent account and its name; an
/// account's name and no user.
pub(crate) fn names(tree: &Tree, id: NodeId) -> (&str, &str) {
    let n = tree.node(id);
    match (n.is_user(), n.parent) {
        (true, Some(p)) => (tree.node(p).name.as_str(), n.name.as_str()),
        _ => (n.name.as_str(), ""),
    }
}

/// Node `id`'s value of `which` in `result`: the columns `fairsort share --json` prints,
/// PBS's `fairshare_perc` and `fairshare_tree_usage` standing for the normalised shares and the
/// effective usage it has no other column for.
fn value(tree: &Tree, result: &ShareResult, id: NodeId, which: Value) -> Option<f64> {
    let pbs = result.algorithm == Algorithm::Pbs;
    match which {
        Value::Factor => result.factor(id),
        Value::LevelFs => result.get(Column::LevelFs, id),
        Value::EffectiveUsage => result.get(Column::EffectiveUsage, id).or_else(|| {
            pbs.then(|| result.get(Column::FairshareTreeUsage, id))
                .flatten()
        }),
        Value::NormShares => result
            .get(Column::NormShares, id)
            .or_else(|| pbs.then(|| result.get(Column::FairsharePerc, id)).flatten()),
        Value::RawUsage => Some(
            result
                .get(Column::Usage, id)
                .unwrap_or(tree.node(id).raw_usage),
        ),
        Value::RawShares => {
            let n = tree.node(id);
            match (n.parent, n.shares) {
                (Some(_), Shares::Count(c)) => Some(c as f64),
                _ => None,
            }
        }
    }
}

/// One family's rows: every node of the tree, in `order`, under one algorithm (or none).
struct ShareRows {
    data: Arc<ShareMetrics>,
    site: Arc<SiteLabels>,
    order: Arc<Vec<NodeId>>,
    which: Value,
    /// The result's index; `None` for a value of the tree alone (raw shares).
    result: Option<usize>,
}

impl ShareRows {
    /// The `algorithm` label of the family's rows (`None` for raw shares).
    fn algorithm(&self) -> Option<&'static str> {
        self.result
            .and_then(|k| self.data.results.get(k))
            .map(|r| r.algorithm.name())
    }

    fn value(&self, id: NodeId) -> Option<f64> {
        let tree = &self.data.tree;
        match self.result {
            Some(k) => value(tree, self.data.results.get(k)?, id, self.which),
            None => value(tree, self.data.results.first()?, id, self.which),
        }
    }
}

impl Rows for ShareRows {
    fn len(&self) -> usize {
        self.order.len()
    }

    fn has_sample(&self, i: usize) -> bool {
        self.order
            .get(i)
            .is_some_and(|&id| self.value(id).is_some())
    }

    fn write_text(&self, name: &str, range: Range<usize>, out: &mut Vec<u8>) -> bool {
        let tree = &self.data.tree;
        let algorithm = self.algorithm();
        for &id in self.order.get(range).unwrap_or_default() {
            let Some(v) = self.value(id) else { continue };
            let (account, user) = names(tree, id);
            let labels = [
                ("site", self.site.site.as_str()),
                ("scheduler", self.site.scheduler.as_str()),
                ("account", account),
                ("user", user),
                ("algorithm", algorithm.unwrap_or("")),
            ];
            // The algorithm label only on a family of one algorithm's values.
            let n = if algorithm.is_some() { 5 } else { 4 };
            text::gauge(out, name, labels.get(..n).unwrap_or_default(), v);
        }
        true
    }

    fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result {
        let tree = &self.data.tree;
        let algorithm = self.algorithm();
        for &id in self.order.get(range).unwrap_or_default() {
            let Some(v) = self.value(id) else { continue };
            let (account, user) = names(tree, id);
            let site = [
                ("site", self.site.site.as_str()),
                ("scheduler", self.site.scheduler.as_str()),
                ("account", account),
                ("user", user),
            ];
            match algorithm {
                Some(a) => enc
                    .encode_family(&(site, [("algorithm", a)]))?
                    .encode_gauge(&v)?,
                None => enc.encode_family(&site)?.encode_gauge(&v)?,
            }
        }
        Ok(())
    }
}

/// Writes every per-association family of `data`.
pub(crate) fn write(
    out: &mut (impl io::Write + Send),
    data: &Arc<ShareMetrics>,
    site: &Arc<SiteLabels>,
) -> io::Result<()> {
    let order = Arc::new(data.tree.preorder());
    let per_algorithm: [(Descriptor, Value); 5] = [
        (names::SHARE_FACTOR, Value::Factor),
        (names::SHARE_LEVEL_FS, Value::LevelFs),
        (names::SHARE_EFFECTIVE_USAGE, Value::EffectiveUsage),
        (names::SHARE_NORM_SHARES, Value::NormShares),
        (names::SHARE_RAW_USAGE, Value::RawUsage),
    ];
    let rows = |which, result| -> Arc<dyn Rows> {
        Arc::new(ShareRows {
            data: Arc::clone(data),
            site: Arc::clone(site),
            order: Arc::clone(&order),
            which,
            result,
        })
    };
    for (desc, which) in per_algorithm {
        // One family: every algorithm's rows after one descriptor.
        let parts: Vec<Arc<dyn Rows>> = (0..data.results.len())
            .map(|k| rows(which, Some(k)))
            .collect();
        write_family(out, desc, Arc::new(Concat::new(parts)))?;
    }
    if !data.results.is_empty() {
        write_family(out, names::SHARE_RAW_SHARES, rows(Value::RawShares, None))?;
    }
    Ok(())
}

/// Several row sets as one family (one algorithm's rows after another's).
pub(crate) struct Concat {
    parts: Vec<Arc<dyn Rows>>,
    /// `starts[k]`: the first row of part k; the last entry is the total.
    starts: Vec<usize>,
}

impl Concat {
    /// The parts in order.
    pub(crate) fn new(parts: Vec<Arc<dyn Rows>>) -> Concat {
        let mut starts = vec![0];
        let mut total = 0;
        for p in &parts {
            total += p.len();
            starts.push(total);
        }
        Concat { parts, starts }
    }
}

impl Rows for Concat {
    fn len(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    fn has_sample(&self, i: usize) -> bool {
        let k = self.starts.partition_point(|&s| s <= i).saturating_sub(1);
        match (self.parts.get(k), self.starts.get(k)) {
            (Some(p), Some(&s)) => p.has_sample(i - s),
            _ => false,
        }
    }

    fn write_text(&self, name: &str, range: Range<usize>, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        for (k, p) in self.parts.iter().enumerate() {
            let (Some(&s), Some(&e)) = (self.starts.get(k), self.starts.get(k + 1)) else {
                continue;
            };
            let (a, b) = (range.start.max(s), range.end.min(e));
            if a < b && !p.write_text(name, a - s..b - s, out) {
                out.truncate(start);
                return false;
            }
        }
        true
    }

    fn encode(&self, range: Range<usize>, enc: &mut MetricEncoder<'_>) -> std::fmt::Result {
        for (k, p) in self.parts.iter().enumerate() {
            let (Some(&s), Some(&e)) = (self.starts.get(k), self.starts.get(k + 1)) else {
                continue;
            };
            let (a, b) = (range.start.max(s), range.end.min(e));
            if a < b {
                p.encode(a - s..b - s, enc)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::{compute, NodeKind, NodeSpec, Options, TreeSource, TreeSpec};
    use crate::metrics::encode::encode_part;

    /// Two accounts of users with names the text format escapes, usage from none to huge.
    fn tree() -> Tree {
        let mut nodes = Vec::new();
        for (a, account) in ["phys", "ch\"em"].into_iter().enumerate() {
            nodes.push(NodeSpec::new(
                account,
                None,
                NodeKind::Account,
                Shares::Count(1 + a as u64),
            ));
            for (u, usage) in [0.0, 1.0, 3.5e9, 1e300].into_iter().enumerate() {
                let mut n = NodeSpec::new(
                    format!("u{u}\\{account}"),
                    Some(account.to_string()),
                    NodeKind::User,
                    Shares::Count(1 + u as u64),
                );
                n.usage = Some(usage);
                nodes.push(n);
            }
        }
        Tree::build(TreeSpec {
            source: TreeSource::Slurm,
            root_name: "root".into(),
            root_usage: None,
            unknown_shares: None,
            nodes,
        })
        .unwrap()
    }

    /// Every family's hand-written rows are the crate's bytes, under every algorithm, over the
    /// whole tree and over every split of it in two chunks.
    #[test]
    fn every_family_s_text_is_the_crate_s() {
        let tree = tree();
        let results: Vec<ShareResult> = Algorithm::ALL
            .iter()
            .filter_map(|&a| compute(&tree, a, &Options::default()).ok())
            .collect();
        assert!(results.len() >= 4, "{}", results.len());
        let data = Arc::new(ShareMetrics { tree, results });
        let site = Arc::new(SiteLabels {
            site: "a\"b".into(),
            scheduler: "slurm".into(),
        });
        let order = Arc::new(data.tree.preorder());
        let values = [
            Value::Factor,
            Value::LevelFs,
            Value::EffectiveUsage,
            Value::NormShares,
            Value::RawUsage,
            Value::RawShares,
        ];
        let mut checked = 0;
        for which in values {
            for result in (0..data.results.len()).map(Some).chain([None]) {
                let rows: Arc<dyn Rows> = Arc::new(ShareRows {
                    data: Arc::clone(&data),
                    site: Arc::clone(&site),
                    order: Arc::clone(&order),
                    which,
                    result,
                });
                let desc = names::SHARE_FACTOR;
                let n = rows.len();
                let mut head = Vec::new();
                encode_part(desc, &rows, 0..0, 0, &mut head).unwrap();
                for cut in 0..=n {
                    let mut by_crate = Vec::new();
                    let mut by_hand = Vec::new();
                    for range in [0..cut, cut..n] {
                        encode_part(desc, &rows, range.clone(), head.len(), &mut by_crate).unwrap();
                        assert!(rows.write_text(desc.name, range, &mut by_hand));
                    }
                    assert_eq!(
                        String::from_utf8_lossy(&by_hand),
                        String::from_utf8_lossy(&by_crate)
                    );
                    checked += by_crate.len();
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
