//! `tree`: the share tree as an icicle. Each row is one depth of the tree; a node's bar spans
//! its share of its parent's span (siblings split the parent by their shares), and the thin
//! strip under each row splits the same parent span by the siblings' usage instead, so a
//! node that uses more than its shares has a wider strip than bar. The bar's colour says the
//! same at a glance: blue under its shares, white on target, red over.

use crate::fairshare::{NodeId, Shares, Tree};
use crate::plot::canvas::{draw_err, fixed, named, FONT, SIZE};
use crate::plot::PlotError;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One node of the icicle: its spans in [0, 1] of the picture's width.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The node.
    pub id: NodeId,
    /// Depth (root 0).
    pub depth: usize,
    /// Its place among its siblings (0 first).
    pub index: usize,
    /// Its bar: `[start, end)` of the width, by shares.
    pub share_span: (f64, f64),
    /// Its strip: `[start, end)` of the width, by usage (within its parent's bar).
    pub usage_span: (f64, f64),
    /// Its fraction of its siblings' shares (1 for the root).
    pub share_fraction: f64,
    /// Its fraction of its siblings' usage (1 for the root; 0 when none of them used any).
    pub usage_fraction: f64,
}

/// Each child's weight among its siblings: its share count; Slurm's `parent` shares count as
/// the mean of the counted siblings (1 when none is counted).
fn weights(tree: &Tree, kids: &[NodeId]) -> Vec<f64> {
    let counted: Vec<f64> = kids
        .iter()
        .filter_map(|&k| match tree.node(k).shares {
            Shares::Count(c) => Some(c as f64),
            Shares::Parent => None,
        })
        .collect();
    let mean = if counted.is_empty() {
        1.0
    } else {
        counted.iter().sum::<f64>() / counted.len() as f64
    };
    kids.iter()
        .map(|&k| match tree.node(k).shares {
            Shares::Count(c) => c as f64,
            Shares::Parent => mean,
        })
        .collect()
}

/// Splits `span` among `parts` by weight; all-zero weights split it evenly for shares
/// (`even`) or give every part an empty span at the start (usage nobody used).
fn split(span: (f64, f64), parts: &[f64], even: bool) -> Vec<((f64, f64), f64)> {
    let total: f64 = parts.iter().sum();
    let width = span.1 - span.0;
    let mut at = span.0;
    parts
        .iter()
        .map(|&w| {
            let f = if total > 0.0 {
                w / total
            } else if even {
                1.0 / parts.len() as f64
            } else {
                0.0
            };
            let s = (at, at + f * width);
            at = s.1;
            (s, f)
        })
        .collect()
}

/// The icicle of `tree`, in tree order (a node before its children).
pub fn icicle(tree: &Tree) -> Vec<Cell> {
    let mut cells = vec![Cell {
        id: tree.root(),
        depth: 0,
        index: 0,
        share_span: (0.0, 1.0),
        usage_span: (0.0, 1.0),
        share_fraction: 1.0,
        usage_fraction: 1.0,
    }];
    let mut i = 0;
    while let Some(parent) = cells.get(i).cloned() {
        i += 1;
        let kids = tree.children(parent.id);
        if kids.is_empty() {
            continue;
        }
        let shares = split(parent.share_span, &weights(tree, kids), true);
        let usage: Vec<f64> = kids
            .iter()
            .map(|&k| tree.node(k).raw_usage.max(0.0))
            .collect();
        let usage = split(parent.share_span, &usage, false);
        for (index, ((&k, (s, sf)), (u, uf))) in kids.iter().zip(shares).zip(usage).enumerate() {
            cells.push(Cell {
                id: k,
                depth: parent.depth + 1,
                index,
                share_span: s,
                usage_span: u,
                share_fraction: sf,
                usage_fraction: uf,
            });
        }
    }
    // Breadth-first above; tree order (preorder) reads better and keeps siblings together.
    let order = tree.preorder();
    let mut pos = vec![0usize; tree.len()];
    for (p, &id) in order.iter().enumerate() {
        if let Some(slot) = pos.get_mut(id) {
            *slot = p;
        }
    }
    cells.sort_by_key(|c| pos.get(c.id).copied().unwrap_or(usize::MAX));
    cells
}

/// Blue (under its shares) – white (on target) – red (over) for usage/shares `ratio`, on a
/// log scale clamped at 1/4 and 4.
fn ratio_color(ratio: f64) -> RGBColor {
    let t = if ratio.is_nan() {
        0.0
    } else {
        (ratio.log2() / 2.0).clamp(-1.0, 1.0)
    };
    let mix = |a: u8, b: u8, f: f64| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (white, blue, red) = ((255, 255, 255), (49, 104, 176), (200, 50, 40));
    let (to, f) = if t < 0.0 { (blue, -t) } else { (red, t) };
    RGBColor(
        mix(white.0, to.0, f),
        mix(white.1, to.1, f),
        mix(white.2, to.2, f),
    )
}

/// A cell's usage over its shares (siblings' fractions): 1 on target.
fn ratio(c: &Cell) -> f64 {
    match (c.usage_fraction, c.share_fraction) {
        (u, s) if s > 0.0 => u / s,
        (u, _) if u > 0.0 => f64::INFINITY,
        _ => 1.0,
    }
}

/// Cells narrower than this many pixels are not drawn (nor their subtrees, which are inside).
const MIN_WIDTH: f64 = 0.25;

/// The icicle of `tree` as SVG: one bar and one usage strip per node wide enough to see,
/// names where they fit, and a colour key.
pub fn tree_svg(tree: &Tree) -> Result<String, PlotError> {
    let cells = icicle(tree);
    let depth = cells.iter().map(|c| c.depth).max().unwrap_or(0) + 1;
    let (w, h) = SIZE;
    let (left, right, top, bottom) = (20.0, 20.0, 56.0, 70.0);
    let plot_w = w as f64 - left - right;
    let row_h = ((h as f64 - top - bottom) / depth as f64).min(90.0);
    let bar_h = row_h * 0.66;
    let strip_h = row_h * 0.2;
    let px = |x: f64| (left + x * plot_w).round() as i32;
    let title = format!(
        "Share tree of {}: bars by shares, strips by usage",
        tree.node(tree.root()).name
    );
    let mut svg = String::new();
    let mut drawn = 0usize;
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let centered = Pos::new(HPos::Center, VPos::Center);
        root.draw(&Text::new(
            title.clone(),
            ((w / 2) as i32, 24),
            (FONT, 22).into_font().color(&BLACK).pos(centered),
        ))
        .map_err(draw_err)?;
        for c in &cells {
            if (c.share_span.1 - c.share_span.0) * plot_w < MIN_WIDTH {
                continue;
            }
            drawn += 1;
            let y = top + c.depth as f64 * row_h;
            let (x0, x1) = (px(c.share_span.0), px(c.share_span.1));
            let fill = ratio_color(ratio(c));
            root.draw(&Rectangle::new(
                [(x0, y.round() as i32), (x1, (y + bar_h).round() as i32)],
                fill.filled(),
            ))
            .map_err(draw_err)?;
            root.draw(&Rectangle::new(
                [(x0, y.round() as i32), (x1, (y + bar_h).round() as i32)],
                RGBColor(90, 90, 90).stroke_width(1),
            ))
            .map_err(draw_err)?;
            let (u0, u1) = (px(c.usage_span.0), px(c.usage_span.1));
            // A one-pixel gap at the right end keeps neighbouring strips apart.
            let u1 = if u1 - u0 >= 3 { u1 - 1 } else { u1 };
            let sy = y + bar_h + 2.0;
            // Siblings' strips alternate dark and mid grey so their boundaries show.
            let shade = if c.index % 2 == 0 {
                RGBColor(60, 60, 60)
            } else {
                RGBColor(130, 130, 130)
            };
            root.draw(&Rectangle::new(
                [(u0, sy.round() as i32), (u1, (sy + strip_h).round() as i32)],
                shade.filled(),
            ))
            .map_err(draw_err)?;
            let usage = format!("usage {}%", fixed(100.0 * c.usage_fraction, 0));
            if c.depth > 0 && (u1 - u0) as f64 > 6.0 * usage.chars().count() as f64 + 6.0 {
                root.draw(&Text::new(
                    usage,
                    ((u0 + u1) / 2, (sy + strip_h / 2.0).round() as i32),
                    (FONT, 10).into_font().color(&WHITE).pos(centered),
                ))
                .map_err(draw_err)?;
            }
            let name = &tree.node(c.id).name;
            let label = if c.depth == 0 {
                name.clone()
            } else {
                format!("{name}: shares {}%", fixed(100.0 * c.share_fraction, 0))
            };
            // About 7 pixels per character at 12 px: write the name where it fits.
            if (x1 - x0) as f64 > 7.0 * label.chars().count() as f64 + 6.0 {
                root.draw(&Text::new(
                    label,
                    ((x0 + x1) / 2, (y + bar_h / 2.0).round() as i32),
                    (FONT, 12).into_font().color(&BLACK).pos(centered),
                ))
                .map_err(draw_err)?;
            }
        }
        // The key: five swatches of usage/shares.
        let ky = h as i32 - 44;
        let left_text = Pos::new(HPos::Left, VPos::Center);
        root.draw(&Text::new(
            "bar colour = usage / shares among siblings:",
            (left as i32, ky + 9),
            (FONT, 13).into_font().color(&BLACK).pos(left_text),
        ))
        .map_err(draw_err)?;
        for (i, (r, text)) in [
            (0.25, "1/4 or less"),
            (0.5, "1/2"),
            (1.0, "on target"),
            (2.0, "2x"),
            (4.0, "4x or more"),
        ]
        .iter()
        .enumerate()
        {
            let x = 300 + i as i32 * 110;
            root.draw(&Rectangle::new(
                [(x, ky), (x + 18, ky + 18)],
                ratio_color(*r).filled(),
            ))
            .map_err(draw_err)?;
            root.draw(&Text::new(
                *text,
                (x + 24, ky + 9),
                (FONT, 13).into_font().color(&BLACK).pos(left_text),
            ))
            .map_err(draw_err)?;
        }
        root.draw(&Text::new(
            "grey strip under each row = the parent's span split by the siblings' usage",
            (left as i32, ky + 32),
            (FONT, 13).into_font().color(&BLACK).pos(left_text),
        ))
        .map_err(draw_err)?;
        root.present().map_err(draw_err)?;
    }
    let desc = format!(
        "{drawn} of {} nodes drawn ({} levels); narrower than {MIN_WIDTH} px left out. Root usage {}.",
        tree.len(),
        depth,
        fixed(tree.node(tree.root()).raw_usage, 2)
    );
    Ok(named(svg, &title, &desc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::{NodeKind, NodeSpec, TreeSpec};

    fn tree() -> Tree {
        let node = |name: &str, parent: Option<&str>, kind, shares, usage: Option<f64>| {
            let mut n = NodeSpec::new(name, parent.map(String::from), kind, Shares::Count(shares));
            n.usage = usage;
            n
        };
        Tree::build(TreeSpec {
            root_name: "root".into(),
            nodes: vec![
                node("a", None, NodeKind::Account, 3, None),
                node("b", None, NodeKind::Account, 1, None),
                node("u", Some("a"), NodeKind::User, 1, Some(10.0)),
                node("v", Some("a"), NodeKind::User, 1, Some(30.0)),
                node("w", Some("b"), NodeKind::User, 5, Some(0.0)),
            ],
            ..TreeSpec::default()
        })
        .unwrap()
    }

    #[test]
    fn bars_split_by_shares_and_strips_by_usage() {
        let t = tree();
        let cells = icicle(&t);
        let get = |name: &str| cells.iter().find(|c| t.node(c.id).name == name).unwrap();
        assert_eq!(cells.len(), t.len());
        assert_eq!(get("a").share_span, (0.0, 0.75));
        assert_eq!(get("b").share_span, (0.75, 1.0));
        // All usage is a's: its strip is the whole width.
        assert_eq!(get("a").usage_span, (0.0, 1.0));
        assert_eq!(get("b").usage_span, (1.0, 1.0));
        // u and v split a's bar evenly; by usage 1:3.
        approx::assert_relative_eq!(get("u").share_span.1, 0.375);
        approx::assert_relative_eq!(get("v").usage_span.0, 0.1875);
        approx::assert_relative_eq!(get("v").usage_fraction, 0.75);
        // The only child of b that used nothing has an empty strip.
        assert_eq!(get("w").usage_fraction, 0.0);
        assert_eq!(get("w").share_fraction, 1.0);
        // Tree order: a node before its children.
        let names: Vec<&str> = cells.iter().map(|c| t.node(c.id).name.as_str()).collect();
        assert_eq!(names, ["root", "a", "u", "v", "b", "w"]);
    }

    #[test]
    fn colours_run_blue_white_red() {
        assert_eq!(ratio_color(1.0), RGBColor(255, 255, 255));
        assert_eq!(ratio_color(0.25), RGBColor(49, 104, 176));
        assert_eq!(ratio_color(100.0), RGBColor(200, 50, 40));
        assert_eq!(ratio_color(0.0), RGBColor(49, 104, 176));
    }
}
