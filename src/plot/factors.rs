//! `factors`: how one user's fair-share factor falls as its usage grows, under each algorithm,
//! on the same tree — the curve every algorithm's documentation describes (Slurm's 2^(-U/S),
//! Fair Tree's and flux's rank steps, PBS's fairshare_factor). The x axis is the user's share of
//! the tree's usage (its usage over everyone's, everyone else's kept), with its normalised
//! shares (the target) marked; each algorithm's value at the user's current usage is a dot.

use crate::fairshare::{compute, Algorithm, Column, NodeId, NodeSpec, Options, Tree, TreeSpec};
use crate::plot::canvas::{draw_err, fixed, named, FONT, PALETTE, SIZE};
use crate::plot::PlotError;
use crate::usage::{apply_usage, UsageRecord};
use plotters::prelude::*;

/// Points on each curve.
const SAMPLES: usize = 41;

/// One algorithm's curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// (share of usage, factor), by increasing share of usage.
    pub points: Vec<(f64, f64)>,
    /// The factor at the user's current usage.
    pub current: Option<f64>,
}

/// Every algorithm's factor for one user as its usage varies.
#[derive(Debug, Clone, PartialEq)]
pub struct FactorCurves {
    /// The user association, `ACCOUNT/USER`.
    pub user: String,
    /// Its normalised shares (Slurm's NormShares), the share of usage it is entitled to.
    pub norm_shares: Option<f64>,
    /// Its current share of the tree's usage.
    pub current: f64,
    /// The right end of the x axis.
    pub x_max: f64,
    /// One curve per algorithm, in `Algorithm::ALL` order (an algorithm that fails on the tree
    /// is left out: see `skipped`).
    pub series: Vec<Series>,
    /// Algorithms that could not run on this tree, with why.
    pub skipped: Vec<(Algorithm, String)>,
}

/// `who` (USER or ACCOUNT/USER; `None`: the first user in tree order) in `tree`.
fn pick_user(tree: &Tree, who: Option<&str>) -> Result<NodeId, PlotError> {
    let Some(who) = who else {
        return tree.users().first().copied().ok_or(PlotError::NoUser);
    };
    if let Some((account, user)) = who.split_once('/') {
        return tree
            .find_user(Some(account), user)
            .ok_or_else(|| PlotError::UnknownUser(who.to_string()));
    }
    match tree.users_named(who) {
        [id] => Ok(*id),
        [] => Err(PlotError::UnknownUser(who.to_string())),
        many => Err(PlotError::AmbiguousUser {
            name: who.to_string(),
            labels: many.iter().map(|&id| tree.label(id)).collect(),
        }),
    }
}

/// The spec `tree` was built from (usage as stated, accounts' sums left to the builder).
fn spec_of(tree: &Tree) -> TreeSpec {
    let root = tree.node(tree.root());
    let nodes = tree.nodes().iter().skip(1).map(|n| {
        let parent = n
            .parent
            .filter(|&p| p != tree.root())
            .map(|p| tree.node(p).name.clone());
        let mut spec = NodeSpec::new(n.name.clone(), parent, n.kind, n.shares);
        spec.usage = n.usage_given.then_some(n.raw_usage);
        spec.id = n.id;
        spec.line = n.line;
        spec
    });
    TreeSpec {
        source: tree.source(),
        root_name: root.name.clone(),
        root_usage: root.usage_given.then_some(root.raw_usage),
        unknown_shares: tree.unknown_shares(),
        nodes: nodes.collect(),
    }
}

/// Each algorithm's factor for `user` of `spec` with its usage set to `usage` (the other
/// usage kept, accounts' stated usage shifted as a usage record does).
fn factors_at(
    spec: &TreeSpec,
    account: &str,
    user: &str,
    usage: f64,
    algorithms: &[Algorithm],
    opts: &Options,
) -> Result<Vec<Option<f64>>, PlotError> {
    let mut spec = spec.clone();
    let record = UsageRecord {
        account: Some(account),
        name: user,
        usage,
    };
    apply_usage(&mut spec, [record]).map_err(|e| PlotError::Compute(e.to_string()))?;
    let tree = Tree::build(spec).map_err(|e| PlotError::Compute(e.to_string()))?;
    let id = tree
        .find_user(Some(account), user)
        .ok_or_else(|| PlotError::UnknownUser(format!("{account}/{user}")))?;
    algorithms
        .iter()
        .map(|&a| {
            compute(&tree, a, opts)
                .map(|r| r.factor(id))
                .map_err(|e| PlotError::Compute(e.to_string()))
        })
        .collect()
}

/// The curves of `who` (USER or ACCOUNT/USER; default the first user) on `tree`: its usage
/// swept from 0 to where its share of usage reaches four times its normalised shares (at most
/// 0.95, at least 1.5 times its current share; 0.1 when both are 0), the others' usage
/// unchanged.
pub fn factor_curves(
    tree: &Tree,
    who: Option<&str>,
    opts: &Options,
) -> Result<FactorCurves, PlotError> {
    let id = pick_user(tree, who)?;
    let node = tree.node(id);
    let account = node
        .parent
        .map(|p| tree.node(p).name.clone())
        .unwrap_or_default();
    let label = tree.label(id);
    let own = node.raw_usage;
    let others = tree.node(tree.root()).raw_usage - own;
    if !(others > 0.0 && others.is_finite()) {
        return Err(PlotError::NoOtherUsage(label));
    }
    let current = own / (own + others);
    // Which algorithms run on this tree, and their values now.
    let mut algorithms = Vec::new();
    let mut now = Vec::new();
    let mut skipped = Vec::new();
    let mut norm_shares = None;
    for a in Algorithm::ALL {
        match compute(tree, a, opts) {
            Ok(r) => {
                if a == Algorithm::Classic {
                    norm_shares = r.get(Column::NormShares, id).filter(|s| s.is_finite());
                }
                algorithms.push(a);
                now.push(r.factor(id));
            }
            Err(e) => skipped.push((a, e.to_string())),
        }
    }
    let target = norm_shares.unwrap_or(0.0);
    let x_max = match (4.0 * target).max(1.5 * current) {
        x if x > 0.0 => x.min(0.95),
        _ => 0.1,
    };
    let spec = spec_of(tree);
    let mut points = vec![Vec::with_capacity(SAMPLES); algorithms.len()];
    for i in 0..SAMPLES {
        let x = x_max * i as f64 / (SAMPLES - 1) as f64;
        let usage = x * others / (1.0 - x);
        let values = factors_at(&spec, &account, &node.name, usage, &algorithms, opts)?;
        for (curve, v) in points.iter_mut().zip(values) {
            if let Some(v) = v.filter(|v| v.is_finite()) {
                curve.push((x, v));
            }
        }
    }
    let series = algorithms
        .into_iter()
        .zip(points)
        .zip(now)
        .map(|((algorithm, points), current)| Series {
            algorithm,
            points,
            current: current.filter(|v| v.is_finite()),
        })
        .collect();
    Ok(FactorCurves {
        user: label,
        norm_shares,
        current,
        x_max,
        series,
        skipped,
    })
}

/// Decimals that tell apart tenths of `range` (at least 2).
fn decimals(range: f64) -> usize {
    if range > 0.0 && range.is_finite() {
        ((-range.log10()).ceil() as i64 + 1).clamp(2, 12) as usize
    } else {
        2
    }
}

/// Largest difference between two curves that still draws as one line (under a pixel).
const SAME: f64 = 0.002;

/// The series grouped by curves that coincide (every point within [`SAME`]): each group is
/// drawn once and named by all its algorithms (`pbs = classic`), first appearance first.
fn same_curves(series: &[Series]) -> Vec<Vec<usize>> {
    let same = |a: &Series, b: &Series| {
        a.points.len() == b.points.len()
            && a.points
                .iter()
                .zip(&b.points)
                .all(|(p, q)| p.0 == q.0 && (p.1 - q.1).abs() <= SAME)
    };
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (k, s) in series.iter().enumerate() {
        match groups.iter_mut().find(|g| {
            g.first()
                .and_then(|&f| series.get(f))
                .is_some_and(|f| same(f, s))
        }) {
            Some(g) => g.push(k),
            None => groups.push(vec![k]),
        }
    }
    groups
}

/// The curves as an SVG line chart: one line per algorithm (legend by algorithm name; curves
/// that coincide are drawn once, named `a = b`), a dot per algorithm at the current usage, and a dashed vertical line at the user's normalised
/// shares.
pub fn factors_svg(c: &FactorCurves) -> Result<String, PlotError> {
    let title = format!("Fair-share factor of {} against its usage", c.user);
    // Enough decimals for about ten distinct ticks however small the axis.
    let x_decimals = decimals(c.x_max);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&title, (FONT, 22))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(0f64..c.x_max, 0f64..1.05f64)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc(format!(
                "{}'s share of the tree's usage (others' usage unchanged)",
                c.user
            ))
            .y_desc("fair-share factor (1 = most deserving)")
            .x_label_formatter(&|v| fixed(*v, x_decimals))
            .y_label_formatter(&|v| fixed(*v, 1))
            .max_light_lines(0)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .draw()
            .map_err(draw_err)?;
        if let Some(s) = c.norm_shares.filter(|s| *s <= c.x_max) {
            let grey = RGBColor(120, 120, 120);
            chart
                .draw_series(DashedLineSeries::new(
                    [(s, 0.0), (s, 1.05)],
                    6,
                    4,
                    grey.stroke_width(1),
                ))
                .map_err(draw_err)?
                .label(format!("normalised shares ({})", fixed(s, decimals(s) + 1)))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], grey));
        }
        for (i, group) in same_curves(&c.series).iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let Some(first) = group.first().and_then(|&k| c.series.get(k)) else {
                continue;
            };
            let names: Vec<&str> = group
                .iter()
                .filter_map(|&k| c.series.get(k))
                .map(|s| s.algorithm.name())
                .collect();
            chart
                .draw_series(LineSeries::new(
                    first.points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(draw_err)?
                .label(names.join(" = "))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
            for s in group.iter().filter_map(|&k| c.series.get(k)) {
                if let Some(v) = s.current {
                    chart
                        .draw_series([Circle::new((c.current, v), 4, color.filled())])
                        .map_err(draw_err)?;
                }
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((FONT, 14))
            .draw()
            .map_err(draw_err)?;
        root.present().map_err(draw_err)?;
    }
    let algs: Vec<&str> = c.series.iter().map(|s| s.algorithm.name()).collect();
    let desc = format!(
        "Curves: {}. Dots: the factors at {}'s current share of usage ({}).",
        algs.join(", "),
        c.user,
        fixed(c.current, decimals(c.x_max) + 1)
    );
    Ok(named(svg, &title, &desc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::{NodeKind, Shares, TreeSource};

    /// Two users under the root with one share each; `b` used 100.
    fn tree() -> Tree {
        let user = |name: &str, usage: f64| {
            let mut n = NodeSpec::new(name, None, NodeKind::User, Shares::Count(1));
            n.usage = Some(usage);
            n
        };
        Tree::build(TreeSpec {
            source: TreeSource::Slurm,
            root_name: "root".into(),
            nodes: vec![user("a", 25.0), user("b", 100.0)],
            ..TreeSpec::default()
        })
        .unwrap()
    }

    #[test]
    fn classic_follows_two_to_the_minus_usage_over_shares() {
        let c = factor_curves(&tree(), Some("a"), &Options::default()).unwrap();
        assert_eq!(c.user, "root/a");
        approx::assert_relative_eq!(c.norm_shares.unwrap(), 0.5);
        approx::assert_relative_eq!(c.current, 0.2);
        // Four times the shares, capped at 0.95.
        approx::assert_relative_eq!(c.x_max, 0.95);
        let classic = c
            .series
            .iter()
            .find(|s| s.algorithm == Algorithm::Classic)
            .unwrap();
        assert_eq!(classic.points.len(), SAMPLES);
        for &(x, f) in &classic.points {
            approx::assert_relative_eq!(f, 2f64.powf(-x / 0.5), max_relative = 1e-9);
        }
        approx::assert_relative_eq!(classic.current.unwrap(), 2f64.powf(-0.2 / 0.5));
        assert_eq!(c.series.len() + c.skipped.len(), Algorithm::ALL.len());
    }

    #[test]
    fn users_are_named_and_a_lone_user_is_refused() {
        let t = tree();
        assert_eq!(pick_user(&t, None).unwrap(), t.users()[0]);
        assert_eq!(
            pick_user(&t, Some("zed")),
            Err(PlotError::UnknownUser("zed".into()))
        );
        let mut n = NodeSpec::new("solo", None, NodeKind::User, Shares::Count(1));
        n.usage = Some(5.0);
        let lone = Tree::build(TreeSpec {
            root_name: "root".into(),
            nodes: vec![n],
            ..TreeSpec::default()
        })
        .unwrap();
        assert_eq!(
            factor_curves(&lone, None, &Options::default()),
            Err(PlotError::NoOtherUsage("root/solo".into()))
        );
    }

    #[test]
    fn small_shares_get_a_small_axis_with_enough_decimals() {
        assert_eq!(decimals(0.95), 2);
        assert_eq!(decimals(0.1), 2);
        assert_eq!(decimals(0.04), 3);
        assert_eq!(decimals(0.0004), 5);
        assert_eq!(decimals(0.0), 2);
    }

    #[test]
    fn the_spec_of_a_tree_builds_the_same_tree() {
        let t = tree();
        let again = Tree::build(spec_of(&t)).unwrap();
        assert_eq!(again.nodes(), t.nodes());
    }
}
