//! Fair share during a replay: one share tree built from the trace's entities (every account
//! under the root, every user under its account, 1 share each), usage charged in core-seconds
//! as jobs finish and decayed continuously with a half-life (`usage::decay::halflife`), and the
//! formula's fair-share keywords recomputed at most once per pass, only when usage changed.
//!
//! Cost: a charge is O(1) (usage is stored scaled to a reference time, so decay is applied
//! lazily); a refresh of PBS's keywords is one pass over flat arrays of the entities with the
//! arithmetic of `fairshare::pbs` (bit-identical, tested against it), without building a tree.
//! Fair Tree's and classic's keywords are kept on the tree built once (`slurm_shares.rs`); the
//! other algorithms' keywords rebuild the tree and run `fairshare::compute`.

use crate::fairshare::pbs::MIN_USAGE;
use crate::fairshare::{compute, keyword_source, Algorithm, NodeKind, NodeSpec, Options};
use crate::fairshare::{Shares, Tree, TreeSource, TreeSpec};
use crate::pbs::defs::Keyword;
use crate::replay::decay::{Decay, DecayedUsage};
pub use crate::replay::entities::Entities;
use crate::replay::error::ReplayError;
use crate::replay::site_tree::SiteTree;
use crate::replay::slurm_shares::SlurmShares;
use crate::replay::trace::Trace;

/// Where a PBS keyword's value comes from in [`PbsFlat`]'s output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PbsColumn {
    Perc,
    TreeUsage,
    Factor,
}

fn pbs_column(keyword: &str) -> Option<PbsColumn> {
    match keyword.parse::<Keyword>().ok()? {
        Keyword::FairsharePerc | Keyword::FairSharePerc => Some(PbsColumn::Perc),
        Keyword::FairshareTreeUsage => Some(PbsColumn::TreeUsage),
        Keyword::FairshareFactor => Some(PbsColumn::Factor),
        _ => None,
    }
}

/// PBS's fair share over the replay's two-level tree (root → accounts → users, 1 share each),
/// on flat arrays: the same f32 arithmetic as `fairshare::pbs::compute`, in the same order, so
/// the values are bit-identical to it (`flat_pbs_is_bit_identical_to_the_tree` checks).
#[derive(Debug, Clone)]
struct PbsFlat {
    /// Associations of each account, in first-seen order (the tree's child order).
    members: Vec<Vec<usize>>,
    /// Per association: group percentage within its account and tree percentage.
    user_gp: Vec<f32>,
    user_tp: Vec<f32>,
    /// Per association: its account.
    account_of: Vec<usize>,
    /// Per account, as of the last [`PbsFlat::sums`]: the sum of its counted leaf usages, and
    /// its tree usage (PBS's usage factor: its usage / the root's, as f32).
    account_sum: Vec<f64>,
    account_uf: Vec<f32>,
    /// The root's usage as of the last [`PbsFlat::sums`].
    root_usage: f64,
}

impl PbsFlat {
    fn new(e: &Entities) -> PbsFlat {
        let mut members = vec![Vec::new(); e.accounts.len()];
        for (u, (a, _)) in e.assocs.iter().enumerate() {
            if let Some(m) = members.get_mut(*a) {
                m.push(u);
            }
        }
        let na = e.accounts.len() as u64;
        // PBS: gp = shares / Σ siblings' shares (as f32), tp = gp × parent's tp (root: 1).
        let account_gp: Vec<f32> = e
            .accounts
            .iter()
            .map(|_| if na == 0 { 0.0 } else { 1.0f32 / na as f32 })
            .collect();
        let mut user_gp = vec![0.0f32; e.assocs.len()];
        let mut user_tp = vec![0.0f32; e.assocs.len()];
        for (a, m) in members.iter().enumerate() {
            let tp_a = account_gp.get(a).copied().unwrap_or(0.0) * 1.0f32;
            for &u in m {
                let (gp, tp) = if m.len() as f32 * tp_a == 0.0 {
                    (0.0, 0.0)
                } else {
                    let gp = 1.0f32 / m.len() as f32;
                    (gp, gp * tp_a)
                };
                if let (Some(g), Some(t)) = (user_gp.get_mut(u), user_tp.get_mut(u)) {
                    *g = gp;
                    *t = tp;
                }
            }
        }
        PbsFlat {
            account_sum: vec![0.0; members.len()],
            account_uf: vec![0.0; members.len()],
            account_of: e.assocs.iter().map(|(a, _)| *a).collect(),
            root_usage: MIN_USAGE,
            members,
            user_gp,
            user_tp,
        }
    }

    /// PBS's usage / the root's, clamped to 1, as the f32 PBS keeps.
    fn ratio(&self, u: f64) -> f32 {
        let r = u / self.root_usage;
        (if r.is_nan() { 1.0 } else { r.min(1.0) }) as f32
    }

    /// The groups' and the root's usage for leaf usages `usage` (`fairshare::pbs::usages`: a
    /// leaf counts unless its usage is exactly MIN_USAGE (1); a group has 1 + the sum of its
    /// leaves' counted usage; the root 1 + the groups' sums), and each group's usage factor.
    fn sums(&mut self, usage: &[f64]) {
        let counted = |u: f64| if u == MIN_USAGE { 0.0 } else { u };
        for (s, m) in self.account_sum.iter_mut().zip(&self.members) {
            *s = m
                .iter()
                .map(|&u| counted(usage.get(u).copied().unwrap_or(0.0)))
                .sum();
        }
        self.root_usage = MIN_USAGE + self.account_sum.iter().sum::<f64>();
        for a in 0..self.account_uf.len() {
            let uf = self.ratio(MIN_USAGE + self.account_sum.get(a).copied().unwrap_or(0.0));
            if let Some(x) = self.account_uf.get_mut(a) {
                *x = uf;
            }
        }
    }

    /// Association `u`'s (perc, tree usage, factor) for its usage `usage_u`, after
    /// [`PbsFlat::sums`].
    fn user(&self, u: usize, usage_u: f64) -> [f64; 3] {
        let a = self.account_of.get(u).copied().unwrap_or(0);
        let uf_a = self.account_uf.get(a).copied().unwrap_or(0.0);
        let gp = self.user_gp.get(u).copied().unwrap_or(0.0);
        let tp = self.user_tp.get(u).copied().unwrap_or(0.0);
        let x = self.ratio(usage_u);
        let uf = x + (uf_a - x) * gp;
        let factor = if tp == 0.0 {
            0.0
        } else {
            2f64.powf(-f64::from(uf / tp))
        };
        [f64::from(tp), f64::from(uf), factor]
    }

    /// PBS's (perc, tree usage, factor) per association for leaf usages `usage`, into `out`.
    #[cfg(test)]
    fn compute(&mut self, usage: &[f64], out: &mut [[f64; 3]]) {
        self.sums(usage);
        for (u, o) in out.iter_mut().enumerate() {
            *o = self.user(u, usage.get(u).copied().unwrap_or(0.0));
        }
    }
}

/// Usage and fair-share values over the replay.
pub(crate) struct ShareModel {
    entities: Entities,
    keywords: Vec<String>,
    /// Usage per association under the decay model.
    usage_store: DecayedUsage,
    dirty: bool,
    /// The time of a refresh whose values are not computed yet ([`Self::ensure`]).
    due: Option<i64>,
    /// Per keyword, per association.
    values: Vec<Vec<f64>>,
    /// Per association: whether a value changed at the last refresh.
    changed: Vec<bool>,
    /// The flat PBS path, when every keyword is one of PBS's (and its column per keyword).
    pbs: Option<(PbsFlat, Vec<PbsColumn>)>,
    /// The usage of the last refresh.
    usage: Vec<f64>,
    /// Refreshes so far, and per association the refresh its values are from (the flat path
    /// computes an association's values only when a pending job needs them).
    generation: u64,
    fresh: Vec<u64>,
    pub(crate) updates: u64,
    /// The site's share tree, when the replay uses one (else accounts → users, 1 share each).
    site: Option<SiteTree>,
    /// Fair Tree's and classic's keywords kept up to date on the tree built once, when every
    /// keyword is one of theirs.
    slurm: Option<SlurmShares>,
}

impl ShareModel {
    pub(crate) fn new(
        trace: &Trace,
        keywords: &[String],
        half_life: f64,
        tree: Option<&TreeSpec>,
        decay: Decay,
    ) -> Result<ShareModel, ReplayError> {
        let entities = Entities::of(trace);
        let n = entities.assocs.len();
        let origin = trace.jobs.iter().map(|j| j.submit).min().unwrap_or(0);
        let usage_store = DecayedUsage::new(decay, half_life, n, origin)?;
        let site = match tree {
            Some(spec) => Some(SiteTree::new(spec.clone(), &entities)?),
            None => None,
        };
        let columns: Option<Vec<PbsColumn>> = keywords.iter().map(|k| pbs_column(k)).collect();
        let pbs = match columns {
            // The flat path is the two-level tree of the trace's entities only.
            Some(c) if !c.is_empty() && site.is_none() => Some((PbsFlat::new(&entities), c)),
            _ => None,
        };
        let mut slurm = None;
        if pbs.is_none() && !keywords.is_empty() {
            // The tree path's errors (a name the tree refuses) at the start, whether or not a
            // pass ever needs the values.
            let tree = build_tree(&entities, &vec![0.0; n])?;
            slurm = match &site {
                Some(site) => SlurmShares::new(keywords, site.tree(), site.ids().to_vec(), true),
                None => {
                    let ids: Option<Vec<usize>> = (entities.assocs.iter())
                        .map(|(a, u)| {
                            tree.find_user(entities.accounts.get(*a).map(String::as_str), u)
                        })
                        .collect();
                    ids.and_then(|ids| SlurmShares::new(keywords, &tree, ids, false))
                }
            };
        }
        Ok(ShareModel {
            entities,
            keywords: keywords.to_vec(),
            usage_store,
            dirty: true,
            due: None,
            values: vec![vec![0.0; n]; keywords.len()],
            changed: vec![true; n],
            pbs,
            usage: Vec::with_capacity(n),
            generation: 0,
            fresh: vec![0; n],
            updates: 0,
            site,
            slurm,
        })
    }

    /// Computes Fair Tree's and classic's keywords on a tree built whole at every
    /// recomputation, not on the kept state (what tests compare the kept state with).
    pub(crate) fn compute_whole(&mut self) {
        self.slurm = None;
    }

    /// Per association: its part of the site tree's shares (empty without a site tree: the
    /// report then uses [`Entities::user_shares`]).
    pub(crate) fn assoc_shares(&self) -> Vec<f64> {
        self.site
            .as_ref()
            .map_or_else(Vec::new, |s| s.shares().to_vec())
    }

    /// The trace's entities.
    pub(crate) fn entities(&self) -> &Entities {
        &self.entities
    }

    /// Charges job `j`'s association `amount` core-seconds at time `t`.
    pub(crate) fn charge(&mut self, j: usize, amount: f64, t: i64) {
        let Some(a) = self.entities.job_assoc.get(j).copied() else {
            return;
        };
        self.usage_store.charge(a, amount, t);
        self.dirty = true;
    }

    /// Whether the formula uses fair-share keywords.
    pub(crate) fn in_use(&self) -> bool {
        !self.keywords.is_empty()
    }

    /// Brings association `a`'s values up to the last refresh (the flat PBS path computes
    /// them on demand; bit-identical to computing every association at the refresh).
    pub(crate) fn prepare(&mut self, a: usize) {
        let Some((flat, cols)) = &self.pbs else {
            return;
        };
        if self.fresh.get(a).copied() == Some(self.generation) {
            return;
        }
        let o = flat.user(a, self.usage.get(a).copied().unwrap_or(0.0));
        let mut changed = false;
        for (col, vals) in cols.iter().zip(self.values.iter_mut()) {
            let new = match col {
                PbsColumn::Perc => o[0],
                PbsColumn::TreeUsage => o[1],
                PbsColumn::Factor => o[2],
            };
            if let Some(v) = vals.get_mut(a) {
                if new.to_bits() != v.to_bits() {
                    changed = true;
                    *v = new;
                }
            }
        }
        if let Some(c) = self.changed.get_mut(a) {
            *c = changed;
        }
        if let Some(f) = self.fresh.get_mut(a) {
            *f = self.generation;
        }
    }

    /// Whether association `a`'s values changed at the last refresh (after [`Self::prepare`]).
    pub(crate) fn changed(&self, a: usize) -> bool {
        self.changed.get(a).copied().unwrap_or(true)
    }

    /// Renews the fair-share values as of `t` if the formula uses any and usage changed;
    /// returns whether it did. The values are computed by [`Self::ensure`], when a pass needs
    /// them (a pass whose order cannot matter never asks): until the next charge the stored
    /// usage stays as it is at `t`, so computing later gives the values of `t`.
    pub(crate) fn refresh(&mut self, t: i64) -> Result<bool, ReplayError> {
        if self.keywords.is_empty() || !(self.dirty || self.usage_store.due(t)) {
            return Ok(false);
        }
        self.dirty = false;
        self.updates += 1;
        self.due = Some(t);
        Ok(true)
    }

    /// Computes the values renewed by the last [`Self::refresh`], if not done yet.
    pub(crate) fn ensure(&mut self) -> Result<(), ReplayError> {
        let Some(t) = self.due.take() else {
            return Ok(());
        };
        let mut usage = std::mem::take(&mut self.usage);
        self.usage_store.usage_into(t, &mut usage);
        let result = if let Some((flat, _)) = &mut self.pbs {
            // Only the sums now; each association's values when a job asks (`prepare`).
            flat.sums(&usage);
            self.generation += 1;
            Ok(())
        } else if self
            .slurm
            .as_mut()
            .is_some_and(|s| s.values(&usage, &mut self.values, &mut self.changed))
        {
            Ok(())
        } else {
            self.changed.iter_mut().for_each(|c| *c = true);
            match &mut self.site {
                Some(site) => site.values(&self.keywords, &usage, &mut self.values),
                None => tree_values(&self.entities, &self.keywords, &usage, &mut self.values),
            }
        };
        self.usage = usage;
        result
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

/// The share tree of `e` with leaf usages `usage` (accounts under the root, users under their
/// account, 1 share each).
fn build_tree(e: &Entities, usage: &[f64]) -> Result<Tree, ReplayError> {
    let mut nodes = Vec::with_capacity(e.accounts.len() + e.assocs.len());
    for a in &e.accounts {
        nodes.push(NodeSpec::new(
            a.clone(),
            None,
            NodeKind::Account,
            Shares::Count(1),
        ));
    }
    for ((a, u), usage) in e.assocs.iter().zip(usage) {
        let parent = e.accounts.get(*a).cloned();
        let mut n = NodeSpec::new(u.clone(), parent, NodeKind::User, Shares::Count(1));
        n.usage = Some(*usage);
        nodes.push(n);
    }
    Tree::build(TreeSpec {
        source: TreeSource::Native,
        root_name: "root".into(),
        root_usage: None,
        unknown_shares: None,
        nodes,
    })
    .map_err(|x| ReplayError::Shares(x.to_string()))
}

/// Every keyword's value per association through `fairshare::compute` on a tree built from
/// `usage` (the general path, for any algorithm).
fn tree_values(
    e: &Entities,
    keywords: &[String],
    usage: &[f64],
    values: &mut [Vec<f64>],
) -> Result<(), ReplayError> {
    let tree = build_tree(e, usage)?;
    let ids: Vec<Option<usize>> = e
        .assocs
        .iter()
        .map(|(a, u)| tree.find_user(e.accounts.get(*a).map(String::as_str), u))
        .collect();
    let mut results: Vec<(Algorithm, crate::fairshare::ShareResult)> = Vec::new();
    for (k, out) in keywords.iter().zip(values.iter_mut()) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::trace::TraceJob;

    fn trace(assocs: &[(&str, &str)]) -> Trace {
        let jobs = assocs
            .iter()
            .enumerate()
            .map(|(i, (a, u))| TraceJob {
                id: i.to_string(),
                submit: 0,
                run: 1,
                walltime: Some(1),
                cores: 1,
                mem: 0,
                user: u.to_string(),
                account: a.to_string(),
                queue: "q".into(),
                qos: String::new(),
            })
            .collect();
        Trace {
            jobs,
            ..Trace::default()
        }
    }

    /// The flat path against `fairshare::compute` on the built tree, for usages including 0,
    /// exactly 1 (PBS does not count a leaf at MIN_USAGE), huge and tiny values.
    #[test]
    fn flat_pbs_is_bit_identical_to_the_tree() {
        let t = trace(&[
            ("a", "x"),
            ("a", "y"),
            ("b", "x"),
            ("c", "z"),
            ("c", "w"),
            ("c", "v"),
            ("a", "q"),
        ]);
        let kws: Vec<String> = ["fairshare_perc", "fairshare_tree_usage", "fairshare_factor"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let e = Entities::of(&t);
        let mut flat = PbsFlat::new(&e);
        let mut seed: u64 = 7;
        for round in 0..200 {
            let usage: Vec<f64> = (0..e.assocs.len())
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    match (seed >> 60, round % 3) {
                        (0, _) => 0.0,
                        (1, _) => 1.0,
                        (2, _) => 1e12 * (i + 1) as f64,
                        (_, 0) => (seed >> 40) as f64 * 1e-3,
                        _ => (seed >> 20) as f64,
                    }
                })
                .collect();
            let mut out = vec![[0.0; 3]; e.assocs.len()];
            flat.compute(&usage, &mut out);
            let mut want = vec![vec![0.0; e.assocs.len()]; 3];
            tree_values(&e, &kws, &usage, &mut want).unwrap();
            for (u, o) in out.iter().enumerate() {
                for k in 0..3 {
                    assert_eq!(
                        o[k].to_bits(),
                        want[k][u].to_bits(),
                        "round {round} assoc {u} column {k}: {} vs {}",
                        o[k],
                        want[k][u]
                    );
                }
            }
        }
    }

    /// Fair Tree's and classic's keywords from the kept state (`slurm_shares.rs`) against the
    /// tree built and computed whole at every refresh, over random charges and decay, on the
    /// trace's own tree (ties: users charged alike) and on a site tree.
    #[test]
    fn kept_slurm_values_are_the_whole_computation() {
        let t = trace(&[
            ("a", "x"),
            ("a", "y"),
            ("b", "x"),
            ("c", "z"),
            ("c", "w"),
            ("c", "v"),
            ("a", "q"),
        ]);
        let kws: Vec<String> = ["fairtree_factor", "level_fs", "classic_factor"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let e = Entities::of(&t);
        let site = {
            let node = |n: &str, p: Option<&str>, kind, s| {
                NodeSpec::new(n, p.map(String::from), kind, Shares::Count(s))
            };
            TreeSpec {
                source: TreeSource::Slurm,
                root_name: "root".into(),
                root_usage: None,
                unknown_shares: None,
                nodes: vec![
                    node("a", None, NodeKind::Account, 3),
                    node("x", Some("a"), NodeKind::User, 2),
                    node("c", None, NodeKind::Account, 1),
                    node("d", Some("c"), NodeKind::Account, 0),
                ],
            }
        };
        for tree in [None, Some(site)] {
            let mut m =
                ShareModel::new(&t, &kws, 3600.0, tree.as_ref(), Decay::Continuous).unwrap();
            assert!(m.slurm.is_some());
            let mut seed: u64 = 11;
            for step in 0..300i64 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let job = (seed >> 33) as usize % t.jobs.len();
                // Every third step charges a user exactly as much as another got (ties).
                let amount = if step % 3 == 0 {
                    60.0
                } else {
                    (seed >> 50) as f64
                };
                m.charge(job, amount, step * 97);
                assert!(m.refresh(step * 97).unwrap());
                m.ensure().unwrap();
                let mut want = vec![vec![0.0; e.assocs.len()]; kws.len()];
                match &mut m.site {
                    Some(site) => site.values(&kws, &m.usage, &mut want).unwrap(),
                    None => tree_values(&e, &kws, &m.usage, &mut want).unwrap(),
                }
                for (k, (got, want)) in m.values.iter().zip(&want).enumerate() {
                    let bits = |v: &Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(got), bits(want), "step {step} keyword {k}");
                }
            }
            assert!(m.slurm.as_ref().is_some_and(|s| s.visits() > 0));
        }
    }

    #[test]
    fn refresh_reports_what_changed() {
        let t = trace(&[("a", "x"), ("a", "y"), ("b", "z")]);
        let kws = vec!["fairshare_factor".to_string()];
        let mut m = ShareModel::new(&t, &kws, 3600.0, None, Decay::Continuous).unwrap();
        assert!(m.refresh(0).unwrap());
        m.ensure().unwrap();
        (0..3).for_each(|a| m.prepare(a));
        assert!(!m.refresh(10).unwrap(), "no charge since: no refresh");
        m.charge(0, 100.0, 10);
        assert!(m.refresh(10).unwrap());
        m.ensure().unwrap();
        (0..3).for_each(|a| m.prepare(a));
        // x's usage moved; z's group went from all of the (unit) root usage to 1/101 of it;
        // y's tree usage is its group's, which holds all the usage before and after.
        assert!(m.changed(0) && m.changed(2));
        assert!(!m.changed(1));
        assert!(m.value(0, 0) < m.value(0, 1) && m.value(0, 1) < m.value(0, 2));
    }
}
