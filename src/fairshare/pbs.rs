//! PBS fair share (openpbs.md §3, seed 004): `fairshare_perc`, `fairshare_tree_usage`,
//! `fairshare_factor`, the `unknown` group, `compare_path` and `pbsfs`-style output.
//!
//! Precision: PBS stores `tree_percentage`, `group_percentage` and `usage_factor` as C `float`
//! and does the arithmetic between them in `float`; fairsort does the same (through `f32`), so
//! the values agree with PBS to the last printed digit, not only to 6 decimals. The formula
//! then sees them printed with `%f` (see [`as_printed`]).
//!
//! Usage: every node starts at 1 (`FAIRSHARE_MIN_USAGE`); a leaf has the usage its input gives
//! (missing = 1); a group has 1 + the sum of its leaves' usages that differ from 1 (what PBS gets
//! when it rereads its usage file, which never lists a leaf at 1). Accounts whose usage the input
//! states (Slurm) use 1 + that usage.

use crate::fairshare::algorithm::{Algorithm, Options};
use crate::fairshare::node::NodeId;
use crate::fairshare::result::{Column, ShareError, ShareResult, BLANK};
use crate::fairshare::spec::Shares;
use crate::fairshare::tree::{Tree, PBS_UNKNOWN};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::Write as _;

/// PBS's `FAIRSHARE_MIN_USAGE`: the usage every node starts with.
pub const MIN_USAGE: f64 = 1.0;

/// PBS's `UNSPECIFIED` id of entities created on the fly under `unknown`.
const UNSPECIFIED: i64 = -1;

/// The usage PBS holds for every node, indexed by id: a leaf has its input usage (missing = 1);
/// a group 1 + the usages of its leaves that differ from 1 (PBS writes only those to its usage
/// file, and a reread adds each to its ancestors); an account whose input states its usage
/// (Slurm) 1 + that usage.
pub fn usages(tree: &Tree) -> Vec<f64> {
    usages_with(tree, &[])
}

/// [`usages`] with leaf usages `leaf` (by node id) in place of the tree's where given.
fn usages_with(tree: &Tree, leaf: &[Option<f64>]) -> Vec<f64> {
    // Σ of counted leaf usage per subtree, bottom-up (children have larger ids than parents).
    let mut sum = vec![0.0f64; tree.len()];
    let mut out = vec![MIN_USAGE; tree.len()];
    for id in (0..tree.len()).rev() {
        let n = tree.node(id);
        if n.children.is_empty() && id != tree.root() {
            let u = match leaf.get(id).copied().flatten() {
                Some(u) => u,
                None if n.usage_given => n.raw_usage,
                None => MIN_USAGE,
            };
            out[id] = u;
            sum[id] = if u == MIN_USAGE { 0.0 } else { u };
        } else {
            let s = if n.usage_given {
                n.raw_usage
            } else {
                n.children.iter().map(|&c| sum[c]).sum()
            };
            sum[id] = s;
            out[id] = MIN_USAGE + s;
        }
    }
    out
}

/// Shares as PBS counts them (`parent` is a Slurm notion: 0 shares here).
fn shares(s: Shares) -> u64 {
    match s {
        Shares::Count(c) => c,
        Shares::Parent => 0,
    }
}

/// PBS's per-node values, in the C types PBS keeps them in.
#[derive(Debug, Clone, Copy, Default)]
struct PbsValues {
    group_percentage: f32,
    tree_percentage: f32,
    usage_factor: f32,
}

/// Runs PBS's `calc_fair_share_perc` and `calc_usage_factor` over the whole tree.
fn values(tree: &Tree, usage: &[f64]) -> Vec<PbsValues> {
    values_with(tree, usage, |id| {
        (tree.children(id).iter()).fold(0u64, |s, &c| s.wrapping_add(shares(tree.node(c).shares)))
    })
}

/// The shares of each node's children summed, as PBS's `calc_fair_share_perc` sums them per
/// group (by node id; 0 for a leaf): with [`usages`], what [`compute_with`] needs of the tree
/// beyond a node's own fields.
pub fn child_share_sums(tree: &Tree) -> Vec<u64> {
    (0..tree.len())
        .map(|id| {
            (tree.children(id).iter())
                .fold(0u64, |s, &c| s.wrapping_add(shares(tree.node(c).shares)))
        })
        .collect()
}

/// [`values`] with each group's children's share sum given by `child_sum` (by node id): the
/// whole tree's sums when `tree` is a part of it (see [`compute_with`]).
fn values_with(tree: &Tree, usage: &[f64], child_sum: impl Fn(NodeId) -> u64) -> Vec<PbsValues> {
    let mut v = vec![PbsValues::default(); tree.len()];
    let root = tree.root();
    v[root].tree_percentage = 1.0;
    v[root].group_percentage = 1.0;
    let root_usage = usage[root];
    // Node ids are in pre-order (parents before children), so one pass over the ids suffices.
    for id in 0..tree.len() {
        let kids = tree.children(id);
        if kids.is_empty() {
            continue;
        }
        let sum = child_sum(id);
        let parent = v[id];
        for &c in kids {
            let (gp, tp) = if sum as f32 * parent.tree_percentage == 0.0 {
                (0.0, 0.0)
            } else {
                let gp = shares(tree.node(c).shares) as f32 / sum as f32;
                (gp, gp * parent.tree_percentage)
            };
            // In PBS a node's usage never exceeds the root's (the root's is the sum). Inputs
            // that state account usage (sshare, sacctmgr) can break that, and sums can overflow
            // to inf (inf/inf): clamp to 1 so f32 arithmetic cannot give inf - inf = NaN.
            let ratio = usage[c] / root_usage;
            let u = if ratio.is_nan() { 1.0 } else { ratio.min(1.0) } as f32;
            let uf = if id == root {
                u
            } else {
                u + (parent.usage_factor - u) * gp
            };
            v[c] = PbsValues {
                group_percentage: gp,
                tree_percentage: tp,
                usage_factor: uf,
            };
        }
    }
    v
}

/// PBS's (`fairshare_perc`, `fairshare_tree_usage`, `fairshare_factor`) of every node for the
/// leaf usages `leaf` (by node id; `None`: the input states none, so 1), the arithmetic of
/// [`compute`] (bit for bit) on a tree built once: a replay recomputes fair share thousands of
/// times over the same tree with new usage (`replay::site_tree`). The root's row is
/// (1, blank, blank) as in [`compute`].
pub(crate) fn keyword_values(tree: &Tree, leaf: &[Option<f64>]) -> Vec<[f64; 3]> {
    let usage = usages_with(tree, leaf);
    let root = tree.root();
    values(tree, &usage)
        .iter()
        .enumerate()
        .map(|(id, p)| {
            if id == root {
                [f64::from(p.tree_percentage), BLANK, BLANK]
            } else {
                [
                    f64::from(p.tree_percentage),
                    f64::from(p.usage_factor),
                    factor(p),
                ]
            }
        })
        .collect()
}

/// `fairshare_factor`: 2^-(usage_factor / tree_percentage), 0 when the percentage is 0.
fn factor(p: &PbsValues) -> f64 {
    if p.tree_percentage == 0.0 {
        0.0
    } else {
        c_pow2(-f64::from(p.usage_factor / p.tree_percentage))
    }
}

/// `pow(2, x)` as PBS's C code computes it. A literal base 2 lets LLVM turn `powf` into
/// `exp2` in optimised builds only, and glibc's `exp2` can differ from its `pow` in the last
/// bit; the opaque base keeps release and debug builds on `pow`, as PBS and Python are.
pub fn c_pow2(x: f64) -> f64 {
    std::hint::black_box(2f64).powf(x)
}

/// The PBS algorithm over `tree`. Rows: `fairshare_perc`, `fairshare_tree_usage`,
/// `fairshare_factor` (and, as sshare would name them, `norm_shares` = perc, `norm_usage` =
/// usage / root usage, `effective_usage` = tree usage, `fairshare` = factor) on every node but
/// the root, whose row has only `fairshare_perc` = 1; `usage` holds PBS's usage ([`usages`]).
///
/// `opts.extra_entities` not in the tree are added under `unknown` with 1 share (as PBS's
/// `find_alloc_ginfo` does); their rows follow the tree's, at ids `tree.len()..` in the order
/// given (see [`with_extra_entities`]).
pub fn compute(tree: &Tree, opts: &Options) -> Result<ShareResult, ShareError> {
    let tree = with_extra_entities(tree, &opts.extra_entities);
    let tree = tree.as_ref();
    let usage = usages(tree);
    let vals = values(tree, &usage);
    Ok(result_of(tree, &vals, usage))
}

/// [`compute`] over `part`, a part of a larger tree that holds every ancestor of each of its
/// nodes (a node's parent in `part` is its parent in the whole), given what the whole tree
/// says of each node of `part` (by `part`'s ids): its PBS usage ([`usages`] of the whole; the
/// root's is the whole tree's) and its children's share sum ([`child_share_sums`] of the
/// whole). Each row is the whole tree's row of that node, bit for bit: PBS's values of a node
/// depend only on its path, its siblings' shares and the root's usage (a one-job `order` from
/// a 100 000-user home computes three rows instead of 101 002).
/// `opts.extra_entities` are not added here: the caller adds them to `part` and counts them
/// in `child_shares`.
pub fn compute_with(part: &Tree, usage: Vec<f64>, child_shares: &[u64]) -> ShareResult {
    let vals = values_with(part, &usage, |id| {
        child_shares.get(id).copied().unwrap_or(0)
    });
    result_of(part, &vals, usage)
}

/// The PBS result of `tree` from its values and usages.
fn result_of(tree: &Tree, vals: &[PbsValues], usage: Vec<f64>) -> ShareResult {
    let root = tree.root();
    let root_usage = usage[root];
    let n = tree.len();
    let (mut perc, mut tree_usage) = (vec![0.0; n], vec![0.0; n]);
    let (mut fairshare, mut norm_usage) = (vec![0.0; n], vec![0.0; n]);
    let cols = RowCols {
        perc: &mut perc,
        tree_usage: &mut tree_usage,
        fairshare: &mut fairshare,
        norm_usage: &mut norm_usage,
    };
    // Each row depends only on its own values (a `pow` each): over a million nodes the rows
    // are filled in parts on every worker, the same arithmetic per row.
    let mut rest = cols;
    let mut parts = Vec::new();
    for r in crate::parallel::ranges(n, crate::parallel::PARALLEL_MIN_JOBS, 1) {
        let (part, tail) = rest.split_at(r.len());
        parts.push((r, part));
        rest = tail;
    }
    crate::parallel::run_parts(parts, |(r, part)| {
        let (vals, usage) = (vals.get(r.clone()), usage.get(r.clone()));
        part.fill(
            r.start,
            root,
            root_usage,
            vals.unwrap_or_default(),
            usage.unwrap_or_default(),
        );
    });
    let mut result = ShareResult::new(Algorithm::Pbs, n);
    result.set_column(Column::FairsharePerc, perc);
    result.set_column(Column::FairshareTreeUsage, tree_usage);
    result.set_column(Column::FairshareFactor, fairshare);
    result.set_column(Column::NormUsage, norm_usage);
    result.set_column(Column::Usage, usage);
    // sshare's names for the same values share their storage.
    result.alias(Column::NormShares, Column::FairsharePerc);
    result.alias(Column::EffectiveUsage, Column::FairshareTreeUsage);
    result.alias(Column::Fairshare, Column::FairshareFactor);
    result
}

/// The four computed columns of [`result_of`] (or a range of their rows).
struct RowCols<'a> {
    perc: &'a mut [f64],
    tree_usage: &'a mut [f64],
    fairshare: &'a mut [f64],
    norm_usage: &'a mut [f64],
}

impl<'a> RowCols<'a> {
    /// The rows before `mid` and those from `mid` on.
    fn split_at(self, mid: usize) -> (RowCols<'a>, RowCols<'a>) {
        let (p0, p1) = self.perc.split_at_mut(mid);
        let (t0, t1) = self.tree_usage.split_at_mut(mid);
        let (f0, f1) = self.fairshare.split_at_mut(mid);
        let (n0, n1) = self.norm_usage.split_at_mut(mid);
        (
            RowCols {
                perc: p0,
                tree_usage: t0,
                fairshare: f0,
                norm_usage: n0,
            },
            RowCols {
                perc: p1,
                tree_usage: t1,
                fairshare: f1,
                norm_usage: n1,
            },
        )
    }

    /// Fills the rows of ids `first..` from their values and usages.
    fn fill(self, first: usize, root: NodeId, root_usage: f64, vals: &[PbsValues], usage: &[f64]) {
        for (i, (p, &u)) in vals.iter().zip(usage).enumerate() {
            self.perc[i] = f64::from(p.tree_percentage);
            if first + i == root {
                self.tree_usage[i] = BLANK;
                self.fairshare[i] = BLANK;
                self.norm_usage[i] = 1.0;
            } else {
                self.tree_usage[i] = f64::from(p.usage_factor);
                self.fairshare[i] = factor(p);
                self.norm_usage[i] = u / root_usage;
            }
        }
    }
}

/// The tree with `names` that it lacks added under `unknown` (1 share each), or the tree itself
/// when nothing is missing or it has no `unknown` group (not a PBS tree).
pub(crate) fn with_extra_entities<'t>(tree: &'t Tree, names: &[String]) -> Cow<'t, Tree> {
    let unknown = tree.find_account(PBS_UNKNOWN);
    let missing = |n: &String| tree.users_named(n).is_empty() && tree.find_account(n).is_none();
    match unknown {
        Some(u) if names.iter().any(missing) => {
            let mut t = tree.clone();
            for n in names {
                if t.users_named(n).is_empty() && t.find_account(n).is_none() {
                    t.add_user(u, n, Shares::Count(1));
                }
            }
            Cow::Owned(t)
        }
        _ => Cow::Borrowed(tree),
    }
}

/// PBS's `compare_path` (openpbs.md §3.7): walk both root-to-entity paths; at the first pair
/// of different nodes the smaller `usage / tree_percentage` is more deserving (`Less`); a node
/// with percentage 0 loses to a positive one, two zero-percentage nodes tie. `result` must be a
/// PBS result over `tree`.
pub fn compare_path(tree: &Tree, result: &ShareResult, a: NodeId, b: NodeId) -> Ordering {
    let pa = tree.path(a);
    let pb = tree.path(b);
    for (&x, &y) in pa.iter().zip(&pb) {
        if x == y {
            continue;
        }
        let px = result.row(x).fairshare_perc.unwrap_or(0.0);
        let py = result.row(y).fairshare_perc.unwrap_or(0.0);
        match (px > 0.0, py > 0.0) {
            (false, true) => return Ordering::Greater,
            (true, false) => return Ordering::Less,
            (false, false) => return Ordering::Equal,
            (true, true) => {}
        }
        let vx = row_usage(result, x) / px;
        let vy = row_usage(result, y) / py;
        if vx < vy {
            return Ordering::Less;
        }
        if vy < vx {
            return Ordering::Greater;
        }
    }
    Ordering::Equal
}

/// PBS's usage of a node as `compute` recorded it.
fn row_usage(result: &ShareResult, id: NodeId) -> f64 {
    result.row(id).usage.unwrap_or(MIN_USAGE)
}

/// The value a PBS formula sees for a fair-share keyword: PBS pastes it into Python as `%f`
/// text, so it is rounded to 6 decimals.
pub fn as_printed(v: f64) -> f64 {
    format!("{v:.6}").parse().unwrap_or(v)
}

/// PBS's `cresgroup` of a node: its id from `resource_group`, 0 for the root, 1 for the
/// pre-created `unknown` group, -1 for entities PBS created on the fly.
pub fn cresgroup(tree: &Tree, id: NodeId) -> i64 {
    let n = tree.node(id);
    match n.id {
        Some(i) => i,
        None if id == tree.root() => 0,
        None if n.parent == Some(tree.root()) && n.name == PBS_UNKNOWN => 1,
        None => UNSPECIFIED,
    }
}

/// PBS's `resgroup` of a node: its parent's cresgroup (-1 for the root).
pub fn resgroup(tree: &Tree, id: NodeId) -> i64 {
    tree.parent(id).map(|p| cresgroup(tree, p)).unwrap_or(-1)
}

/// Shares as pbsfs prints them (-1 for the root).
fn printed_shares(tree: &Tree, id: NodeId) -> i64 {
    if id == tree.root() {
        -1
    } else {
        shares(tree.node(id).shares).min(i64::MAX as u64) as i64
    }
}

/// The order pbsfs prints nodes in: PBS prepends children, so each node's children come in
/// reverse input order, except that the root's pre-created `unknown` group comes last.
pub fn pbsfs_order(tree: &Tree) -> Vec<NodeId> {
    let mut out = Vec::with_capacity(tree.len());
    let root = tree.root();
    out.push(root);
    // The root's children: reversed, `unknown` moved last; then below each, depth first.
    let mut top: Vec<NodeId> = tree.children(root).iter().rev().copied().collect();
    if let Some(pos) = top.iter().position(|&k| tree.node(k).name == PBS_UNKNOWN) {
        let u = top.remove(pos);
        top.push(u);
    }
    let mut stack: Vec<NodeId> = top.into_iter().rev().collect();
    while let Some(id) = stack.pop() {
        out.push(id);
        // Pushed in input order, popped reversed (no list per node).
        stack.extend_from_slice(tree.children(id));
    }
    out
}

/// The name pbsfs prints for a node (PBS calls the root `TREEROOT`).
fn pbs_name(tree: &Tree, id: NodeId) -> &str {
    if id == tree.root() {
        "TREEROOT"
    } else {
        &tree.node(id).name
    }
}

/// `pbsfs -p` (openpbs.md §3.8): the header line and one line per node in pbsfs order.
pub fn pbsfs_print(tree: &Tree, result: &ShareResult, usage_res: &str) -> String {
    let mut out = format!("Fairshare usage units are in: {usage_res}\n");
    for id in pbsfs_order(tree) {
        let perc = result.row(id).fairshare_perc.unwrap_or(0.0) as f32;
        let _ = writeln!(
            out,
            "{:<10}: Grp: {:<5}  cgrp: {:<5}Shares: {:<6} Usage: {:<6.0} Perc: {:>6.3}%",
            pbs_name(tree, id),
            resgroup(tree, id),
            cresgroup(tree, id),
            printed_shares(tree, id),
            row_usage(result, id),
            f64::from(perc * 100.0),
        );
    }
    out
}

/// `pbsfs -t`: the tree with each node's cresgroup, indented 5 columns per level.
pub fn pbsfs_tree(tree: &Tree) -> String {
    let mut out = String::new();
    for id in pbsfs_order(tree) {
        let indent = (tree.node(id).depth * 5).max(1);
        let _ = writeln!(
            out,
            "{:indent$}{}({})",
            "",
            pbs_name(tree, id),
            cresgroup(tree, id)
        );
    }
    out
}

/// `usage / tree_percentage` as pbsfs prints it (-1 when the percentage is 0).
fn usage_per_perc(usage: f64, perc: f32) -> f64 {
    if perc == 0.0 {
        -1.0
    } else {
        usage / f64::from(perc)
    }
}

/// `pbsfs -g <entity>` (openpbs.md §3.8): the entity's values and its path from the root.
pub fn pbsfs_entity(tree: &Tree, result: &ShareResult, id: NodeId, usage_res: &str) -> String {
    let row = result.row(id);
    let perc = row.fairshare_perc.unwrap_or(0.0) as f32;
    let usage = row_usage(result, id);
    let mut out = String::new();
    let _ = writeln!(out, "fairshare entity: {}", pbs_name(tree, id));
    let _ = writeln!(out, "Resgroup\t\t: {}", resgroup(tree, id));
    let _ = writeln!(out, "cresgroup\t\t: {}", cresgroup(tree, id));
    let _ = writeln!(out, "Shares\t\t\t: {}", printed_shares(tree, id));
    let _ = writeln!(out, "Percentage\t\t: {:.6}%", f64::from(perc * 100.0));
    let _ = writeln!(
        out,
        "fairshare_tree_usage\t: {:.6}",
        row.fairshare_tree_usage.unwrap_or(0.0)
    );
    let _ = writeln!(out, "usage\t\t\t: {usage:.0} ({usage_res})");
    let _ = writeln!(out, "usage/perc\t\t: {:.0}", usage_per_perc(usage, perc));
    out.push_str("Path from root: \n");
    for p in tree.path(id) {
        let pp = result.row(p).fairshare_perc.unwrap_or(0.0) as f32;
        let u = row_usage(result, p);
        let _ = writeln!(
            out,
            "{:<10}: {:>5} {:>10.0} / {:>5.3} = {:.0}",
            pbs_name(tree, p),
            cresgroup(tree, p),
            u,
            f64::from(pp),
            usage_per_perc(u, pp)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    /// `c_pow2` is the C library's `pow`, never `exp2` (run `cargo test --release` to see the
    /// optimiser's rewrite of a literal base).
    #[test]
    fn c_pow2_is_pow_not_exp2() {
        for i in 0..200_000 {
            let x = -(i as f64) * 1.37e-4;
            // The C library's `pow` itself, through the libm bindings.
            let want = crate::formula::float_math::pow(std::hint::black_box(2.0), x);
            assert_eq!(c_pow2(x).to_bits(), want.to_bits(), "x = {x}");
        }
    }

    use super::*;
    use crate::fairshare::spec::{NodeKind, NodeSpec, TreeSource, TreeSpec};
    use approx::assert_abs_diff_eq;

    fn node(name: &str, id: i64, parent: &str, shares: u64, usage: Option<f64>) -> NodeSpec {
        let kind = if name.starts_with("group") {
            NodeKind::Account
        } else {
            NodeKind::User
        };
        let mut n = NodeSpec::new(name, Some(parent.to_string()), kind, Shares::Count(shares));
        n.id = Some(id);
        n.usage = usage;
        n
    }

    /// The §4.1 tree (pbs_fairshare.py / pbsfs.8B) with its usages set by `pbsfs -s`.
    pub(crate) fn section_4_1() -> Tree {
        Tree::build(TreeSpec {
            source: TreeSource::Pbs,
            root_name: "root".into(),
            root_usage: None,
            unknown_shares: Some(0),
            nodes: vec![
                node("group1", 10, "root", 40, None),
                node("group2", 20, "root", 60, None),
                node("pbsuser", 11, "group1", 50, Some(100.0)),
                node("pbsuser1", 12, "group1", 50, Some(100.0)),
                node("pbsuser2", 21, "group2", 60, None),
                node("pbsuser3", 22, "group2", 40, Some(1000.0)),
            ],
        })
        .unwrap()
    }

    fn id(t: &Tree, name: &str) -> NodeId {
        t.find_account(name)
            .or_else(|| t.find_user(None, name))
            .unwrap()
    }

    #[test]
    fn usage_is_one_plus_the_leaves() {
        let t = section_4_1();
        let u = usages(&t);
        assert_eq!(u[t.root()], 1201.0);
        assert_eq!(u[id(&t, "group1")], 201.0);
        assert_eq!(u[id(&t, "group2")], 1001.0);
        assert_eq!(u[id(&t, "pbsuser2")], 1.0);
        assert_eq!(u[id(&t, "unknown")], 1.0);
        // A leaf stated at 1 (what formats::pbs::apply_usage writes for unlisted leaves)
        // counts like a missing one.
        let mut s = section_4_1_spec_with_unknown_shares(0);
        s.nodes.push(node("pbsuser1", 12, "group1", 50, Some(1.0)));
        let t = Tree::build(s).unwrap();
        assert_eq!(usages(&t)[id(&t, "group1")], 101.0);
    }

    /// openpbs.md §4.1, to the 6 printed decimals (tolerance 5e-7).
    #[test]
    fn section_4_1_vectors() {
        let t = section_4_1();
        let r = compute(&t, &Options::default()).unwrap();
        let expect = [
            ("group1", 0.4, 0.167361, None),
            ("group2", 0.6, 0.833472, None),
            ("pbsuser", 0.2, 0.125312, Some(0.647718)),
            ("pbsuser1", 0.2, 0.125312, Some(0.647718)),
            ("pbsuser2", 0.36, 0.500416, Some(0.381553)),
            ("pbsuser3", 0.24, 0.832973, Some(0.090201)),
        ];
        for (name, perc, tu, f) in expect {
            let row = r.row(id(&t, name));
            assert_abs_diff_eq!(row.fairshare_perc.unwrap(), perc, epsilon = 5e-7);
            assert_abs_diff_eq!(row.fairshare_tree_usage.unwrap(), tu, epsilon = 5e-7);
            if let Some(f) = f {
                assert_abs_diff_eq!(row.fairshare_factor.unwrap(), f, epsilon = 5e-7);
                assert_eq!(as_printed(row.fairshare_factor.unwrap()), f);
            }
        }
        let unknown = r.row(id(&t, "unknown"));
        assert_eq!(unknown.fairshare_perc, Some(0.0));
        assert_eq!(unknown.fairshare_factor, Some(0.0));
    }

    #[test]
    fn pbsfs_print_matches_the_reference_layout() {
        let t = section_4_1();
        let r = compute(&t, &Options::default()).unwrap();
        let expected = "\
Fairshare usage units are in: cput
TREEROOT  : Grp: -1     cgrp: 0    Shares: -1     Usage: 1201   Perc: 100.000%
group2    : Grp: 0      cgrp: 20   Shares: 60     Usage: 1001   Perc: 60.000%
pbsuser3  : Grp: 20     cgrp: 22   Shares: 40     Usage: 1000   Perc: 24.000%
pbsuser2  : Grp: 20     cgrp: 21   Shares: 60     Usage: 1      Perc: 36.000%
group1    : Grp: 0      cgrp: 10   Shares: 40     Usage: 201    Perc: 40.000%
pbsuser1  : Grp: 10     cgrp: 12   Shares: 50     Usage: 100    Perc: 20.000%
pbsuser   : Grp: 10     cgrp: 11   Shares: 50     Usage: 100    Perc: 20.000%
unknown   : Grp: 0      cgrp: 1    Shares: 0      Usage: 1      Perc:  0.000%
";
        assert_eq!(pbsfs_print(&t, &r, "cput"), expected);
    }

    #[test]
    fn pbsfs_entity_matches_the_man_page() {
        let t = section_4_1();
        let r = compute(&t, &Options::default()).unwrap();
        let expected = "\
fairshare entity: pbsuser3
Resgroup\t\t: 20
cresgroup\t\t: 22
Shares\t\t\t: 40
Percentage\t\t: 24.000000%
fairshare_tree_usage\t: 0.832973
usage\t\t\t: 1000 (cput)
usage/perc\t\t: 4167
Path from root: 
TREEROOT  :     0       1201 / 1.000 = 1201
group2    :    20       1001 / 0.600 = 1668
pbsuser3  :    22       1000 / 0.240 = 4167
";
        assert_eq!(pbsfs_entity(&t, &r, id(&t, "pbsuser3"), "cput"), expected);
    }

    #[test]
    fn pbsfs_tree_indents_five_per_level() {
        let t = section_4_1();
        let out = pbsfs_tree(&t);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], " TREEROOT(0)");
        assert_eq!(lines[1], "     group2(20)");
        assert_eq!(lines[2], "          pbsuser3(22)");
        assert_eq!(lines.last(), Some(&"     unknown(1)"));
    }

    #[test]
    fn compare_path_orders_by_usage_over_perc() {
        let t = section_4_1();
        let r = compute(&t, &Options::default()).unwrap();
        let (u, u1, u2, u3) = (
            id(&t, "pbsuser"),
            id(&t, "pbsuser1"),
            id(&t, "pbsuser2"),
            id(&t, "pbsuser3"),
        );
        // group1: 201/0.4 = 502 < group2: 1001/0.6 = 1668.
        assert_eq!(compare_path(&t, &r, u, u2), Ordering::Less);
        assert_eq!(compare_path(&t, &r, u3, u1), Ordering::Greater);
        // Same group: pbsuser2 1/0.36 beats pbsuser3 1000/0.24.
        assert_eq!(compare_path(&t, &r, u2, u3), Ordering::Less);
        assert_eq!(compare_path(&t, &r, u, u1), Ordering::Equal);
        assert_eq!(compare_path(&t, &r, u, u), Ordering::Equal);
        // unknown has perc 0: it loses to any positive node.
        let unk = id(&t, "unknown");
        assert_eq!(compare_path(&t, &r, unk, u3), Ordering::Greater);
        assert_eq!(compare_path(&t, &r, u3, unk), Ordering::Less);
    }

    #[test]
    fn extra_entities_go_under_unknown_with_one_share() {
        let mut s = section_4_1_spec_with_unknown_shares(10);
        s.nodes.push(node("known", 30, "root", 10, None));
        let t = Tree::build(s).unwrap();
        let opts = Options {
            extra_entities: vec!["stranger".into(), "other".into(), "pbsuser".into()],
            ..Options::default()
        };
        let r = compute(&t, &opts).unwrap();
        // Two new entities, one share each, under unknown (10 of 120 root shares).
        assert_eq!(r.len(), t.len() + 2);
        let stranger = r.row(t.len());
        assert_abs_diff_eq!(
            stranger.fairshare_perc.unwrap(),
            10.0 / 120.0 / 2.0,
            epsilon = 1e-7
        );
        assert!(stranger.fairshare_factor.unwrap() > 0.0);
        // With unknown_shares 0 they get perc 0 and factor 0.
        let t0 = section_4_1();
        let r0 = compute(&t0, &opts).unwrap();
        assert_eq!(r0.row(t0.len()).fairshare_factor, Some(0.0));
    }

    fn section_4_1_spec_with_unknown_shares(unknown: u64) -> TreeSpec {
        TreeSpec {
            source: TreeSource::Pbs,
            root_name: "root".into(),
            root_usage: None,
            unknown_shares: Some(unknown),
            nodes: vec![
                node("group1", 10, "root", 40, None),
                node("group2", 20, "root", 60, None),
                node("pbsuser", 11, "group1", 50, Some(100.0)),
            ],
        }
    }

    /// Every field of two rows, bit for bit (a NaN equals the same NaN).
    fn row_bits(r: &ShareResult, id: NodeId) -> Vec<Option<u64>> {
        Column::ALL
            .iter()
            .map(|&c| r.get(c, id).map(f64::to_bits))
            .collect()
    }

    /// The part of `full` that holds `keep` and their ancestors, built from a spec (its own
    /// ids), with each part node's id in `full`.
    fn part_of(full: &Tree, keep: &[NodeId]) -> (Tree, Vec<NodeId>) {
        let mut wanted = vec![false; full.len()];
        for &k in keep {
            for p in full.path(k) {
                wanted[p] = true;
            }
        }
        let nodes = (1..full.len())
            .filter(|&id| wanted[id])
            .map(|id| {
                let n = full.node(id);
                let parent = n
                    .parent
                    .filter(|&p| p != 0)
                    .map(|p| full.node(p).name.clone());
                NodeSpec::new(n.name.clone(), parent, n.kind, n.shares)
            })
            .collect();
        let part = Tree::build(TreeSpec {
            source: TreeSource::Pbs,
            root_name: full.node(0).name.clone(),
            nodes,
            ..TreeSpec::default()
        })
        .unwrap();
        let ids = (0..part.len())
            .map(|p| {
                let name = &part.node(p).name;
                (0..full.len())
                    .find(|&f| &full.node(f).name == name)
                    .unwrap()
            })
            .collect();
        (part, ids)
    }

    /// A tree from generated nodes: each an account or a user (unique names) under the root
    /// or an earlier account, with 0-4 shares and a usage (or none; 1.0 sometimes, the value
    /// PBS counts as no usage).
    fn generated(nodes: &[(usize, bool, u64, Option<u32>)]) -> Tree {
        let mut accounts: Vec<String> = Vec::new();
        let mut specs = Vec::new();
        for (i, &(pick, account, share, usage)) in nodes.iter().enumerate() {
            let parent = match pick % (accounts.len() + 1) {
                0 => None,
                k => Some(accounts[k - 1].clone()),
            };
            let (name, kind) = if account {
                (format!("a{i}"), NodeKind::Account)
            } else {
                (format!("u{i}"), NodeKind::User)
            };
            let mut n = NodeSpec::new(name.clone(), parent, kind, Shares::Count(share));
            if !account {
                n.usage = usage.map(|u| if u % 5 == 0 { 1.0 } else { f64::from(u) / 7.0 });
            }
            if account {
                accounts.push(name);
            }
            specs.push(n);
        }
        Tree::build(TreeSpec {
            source: TreeSource::Pbs,
            root_name: "root".into(),
            nodes: specs,
            ..TreeSpec::default()
        })
        .unwrap()
    }

    proptest::proptest! {
        /// `compute_with` over any part of a tree gives the whole tree's rows, bit for bit.
        #[test]
        fn a_part_computes_the_rows_of_the_whole(
            nodes in proptest::collection::vec(
                (0usize..50, proptest::bool::weighted(0.3), 0u64..5,
                 proptest::option::of(0u32..3000)),
                1..60,
            ),
            picks in proptest::collection::vec(0usize..1000, 1..6),
        ) {
            let full = generated(&nodes);
            let whole = compute(&full, &Options::default()).unwrap();
            let keep: Vec<NodeId> = picks.iter().map(|p| p % full.len()).collect();
            let (part, ids) = part_of(&full, &keep);
            let usage_all = usages(&full);
            let sums = child_share_sums(&full);
            let usage = ids.iter().map(|&f| usage_all[f]).collect();
            let child: Vec<u64> = ids.iter().map(|&f| sums[f]).collect();
            let got = compute_with(&part, usage, &child);
            proptest::prop_assert_eq!(got.len(), part.len());
            for (p, &f) in ids.iter().enumerate() {
                proptest::prop_assert_eq!(row_bits(&got, p), row_bits(&whole, f), "node {}", f);
            }
        }
    }

    /// Entities added under `unknown` (as the dry run adds them to a part) give the rows
    /// `compute` gives them with `extra_entities`, when the part counts them in `unknown`'s
    /// share sum.
    #[test]
    fn a_part_with_entities_added_under_unknown() {
        let mut s = section_4_1_spec_with_unknown_shares(10);
        s.nodes.push(node("pbsuser9", 12, "unknown", 3, Some(40.0)));
        let full = Tree::build(s).unwrap();
        let opts = Options {
            extra_entities: vec!["stranger".into(), "other".into()],
            ..Options::default()
        };
        let whole = compute(&full, &opts).unwrap();
        let unknown = full.find_account(PBS_UNKNOWN).unwrap();
        let (mut part, ids) = part_of(&full, &[id(&full, "pbsuser"), unknown]);
        let usage_all = usages(&full);
        let sums = child_share_sums(&full);
        let pu = part.find_account(PBS_UNKNOWN).unwrap();
        let mut usage: Vec<f64> = ids.iter().map(|&f| usage_all[f]).collect();
        let mut child: Vec<u64> = ids.iter().map(|&f| sums[f]).collect();
        for name in &opts.extra_entities {
            part.add_user(pu, name, Shares::Count(1));
            usage.push(MIN_USAGE);
            child.push(0);
            child[pu] += 1;
        }
        let got = compute_with(&part, usage, &child);
        for (p, &f) in ids.iter().enumerate() {
            assert_eq!(row_bits(&got, p), row_bits(&whole, f), "node {f}");
        }
        for k in 0..2 {
            assert_eq!(
                row_bits(&got, ids.len() + k),
                row_bits(&whole, full.len() + k)
            );
        }
        assert!(got.get(Column::FairsharePerc, ids.len()).unwrap() > 0.0);
    }

    #[test]
    fn zero_share_siblings_do_not_divide_by_zero() {
        let t = Tree::build(TreeSpec {
            source: TreeSource::Pbs,
            root_name: "root".into(),
            unknown_shares: Some(0),
            nodes: vec![
                node("group1", 10, "root", 0, None),
                node("u", 11, "group1", 0, Some(5.0)),
            ],
            ..TreeSpec::default()
        })
        .unwrap();
        let r = compute(&t, &Options::default()).unwrap();
        for row in r.rows().skip(1) {
            assert_eq!(row.fairshare_perc, Some(0.0));
            assert_eq!(row.fairshare_factor, Some(0.0));
            assert!(row.fairshare_tree_usage.unwrap().is_finite());
        }
    }
}
