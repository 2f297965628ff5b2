//! Fair share during a replay: one share tree built from the trace's entities (every account
//! under the root, every user under its account, 1 share each), usage charged in core-seconds
//! as jobs finish and decayed continuously with a half-life (`usage::decay::halflife`), and the
//! formula's fair-share keywords recomputed with `fairshare::compute` — at most once per pass,
//! only when usage changed.

use super::sim::ReplayError;
use super::trace::Trace;
use crate::fairshare::{compute, keyword_source, Algorithm, NodeKind, NodeSpec, Options};
use crate::fairshare::{Shares, Tree, TreeSource, TreeSpec};
use crate::usage::decay::halflife::HalfLife;
use std::collections::HashMap;

/// Entities of a trace: accounts and (account, user) associations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entities {
    /// Account names, in first-seen order.
    pub accounts: Vec<String>,
    /// (account index, user name) per association, in first-seen order.
    pub assocs: Vec<(usize, String)>,
    /// Per trace job: its association.
    pub job_assoc: Vec<usize>,
}

impl Entities {
    /// The trace's entities.
    pub fn of(trace: &Trace) -> Entities {
        let mut e = Entities::default();
        let mut acc: HashMap<&str, usize> = HashMap::new();
        let mut assoc: HashMap<(usize, &str), usize> = HashMap::new();
        for j in &trace.jobs {
            let a = *acc.entry(j.account.as_str()).or_insert_with(|| {
                e.accounts.push(name_or_dash(&j.account));
                e.accounts.len() - 1
            });
            let u = *assoc.entry((a, j.user.as_str())).or_insert_with(|| {
                e.assocs.push((a, name_or_dash(&j.user)));
                e.assocs.len() - 1
            });
            e.job_assoc.push(u);
        }
        e
    }

    /// Share of shares per association (accounts equal under the root, users equal within
    /// their account).
    pub fn user_shares(&self) -> Vec<f64> {
        let mut users_in = vec![0usize; self.accounts.len()];
        for (a, _) in &self.assocs {
            if let Some(n) = users_in.get_mut(*a) {
                *n += 1;
            }
        }
        let na = self.accounts.len().max(1) as f64;
        self.assocs
            .iter()
            .map(|(a, _)| 1.0 / na / users_in.get(*a).copied().unwrap_or(1).max(1) as f64)
            .collect()
    }
}

fn name_or_dash(s: &str) -> String {
    if s.trim().is_empty() {
        "-".to_string()
    } else {
        s.to_string()
    }
}

/// Usage and fair-share values over the replay.
pub(crate) struct ShareModel {
    entities: Entities,
    keywords: Vec<String>,
    /// Usage per association, scaled to time `t0`: real usage at t = stored × 2^(−(t−t0)/H).
    stored: Vec<f64>,
    t0: Option<i64>,
    half_life: HalfLife,
    dirty: bool,
    /// Per keyword, per association.
    values: Vec<Vec<f64>>,
    pub(crate) updates: u64,
}

impl ShareModel {
    pub(crate) fn new(
        trace: &Trace,
        keywords: &[String],
        half_life: f64,
    ) -> Result<ShareModel, ReplayError> {
        let half_life =
            HalfLife::new(half_life).map_err(|e| ReplayError::HalfLife(e.to_string()))?;
        let entities = Entities::of(trace);
        let n = entities.assocs.len();
        Ok(ShareModel {
            entities,
            keywords: keywords.to_vec(),
            stored: vec![0.0; n],
            t0: None,
            half_life,
            dirty: true,
            values: vec![vec![0.0; n]; keywords.len()],
            updates: 0,
        })
    }

    /// Charges job `j`'s association `amount` core-seconds at time `t`.
    pub(crate) fn charge(&mut self, j: usize, amount: f64, t: i64) {
        let t0 = *self.t0.get_or_insert(t);
        let mut scale = 1.0 / self.half_life.factor(t.saturating_sub(t0) as f64);
        if !scale.is_finite() || scale > 1e150 {
            // Rebase: bring every stored value to t.
            let f = self.half_life.factor(t.saturating_sub(t0) as f64);
            for u in &mut self.stored {
                *u *= f;
            }
            self.t0 = Some(t);
            scale = 1.0;
        }
        let Some(a) = self.entities.job_assoc.get(j).copied() else {
            return;
        };
        if let Some(u) = self.stored.get_mut(a) {
            *u += amount * scale;
            self.dirty = true;
        }
    }

    /// Usage per association at time `t`.
    pub(crate) fn usage_at(&self, t: i64) -> Vec<f64> {
        let f = match self.t0 {
            Some(t0) => self.half_life.factor(t.saturating_sub(t0) as f64),
            None => 1.0,
        };
        self.stored.iter().map(|u| u * f).collect()
    }

    /// Recomputes the fair-share values at `t` if the formula uses any and usage changed.
    pub(crate) fn refresh(&mut self, t: i64) -> Result<(), ReplayError> {
        if self.keywords.is_empty() || !self.dirty {
            return Ok(());
        }
        self.dirty = false;
        self.updates += 1;
        let usage = self.usage_at(t);
        let e = &self.entities;
        let mut nodes = Vec::with_capacity(e.accounts.len() + e.assocs.len());
        for a in &e.accounts {
            nodes.push(NodeSpec::new(
                a.clone(),
                None,
                NodeKind::Account,
                Shares::Count(1),
            ));
        }
        for ((a, u), usage) in e.assocs.iter().zip(&usage) {
            let parent = e.accounts.get(*a).cloned();
            let mut n = NodeSpec::new(u.clone(), parent, NodeKind::User, Shares::Count(1));
            n.usage = Some(*usage);
            nodes.push(n);
        }
        let tree = Tree::build(TreeSpec {
            source: TreeSource::Native,
            root_name: "root".into(),
            root_usage: None,
            unknown_shares: None,
            nodes,
        })
        .map_err(|x| ReplayError::Shares(x.to_string()))?;
        let ids: Vec<Option<usize>> = e
            .assocs
            .iter()
            .map(|(a, u)| tree.find_user(e.accounts.get(*a).map(String::as_str), u))
            .collect();
        let mut results: Vec<(Algorithm, crate::fairshare::ShareResult)> = Vec::new();
        for (k, out) in self.keywords.iter().zip(self.values.iter_mut()) {
            let Some((alg, get)) = keyword_source(k) else {
                continue;
            };
            if !results.iter().any(|(a, _)| *a == alg) {
                let r = compute(&tree, alg, &Options::default())
                    .map_err(|x| ReplayError::Shares(x.to_string()))?;
                results.push((alg, r));
            }
            let Some((_, r)) = results.iter().find(|(a, _)| *a == alg) else {
                continue;
            };
            for (v, id) in out.iter_mut().zip(&ids) {
                *v = id.and_then(|id| get(&r.row(id))).unwrap_or(0.0);
            }
        }
        Ok(())
    }

    /// Fair-share keyword `s`'s value for trace job `j`.
    pub(crate) fn value(&self, s: usize, j: usize) -> f64 {
        let a = self
            .entities
            .job_assoc
            .get(j)
            .copied()
            .unwrap_or(usize::MAX);
        self.values
            .get(s)
            .and_then(|v| v.get(a))
            .copied()
            .unwrap_or(0.0)
    }
}
