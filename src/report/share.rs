//! The share tree's sections: the tree as an icicle with every user association's factor under
//! each algorithm (the data of `share --compare`), and one user's factor against its usage,
//! one curve per algorithm (`plot factors`).

use super::{Cell, Column, Figure, Limits, ReportError, Section, Table};
use crate::fairshare::{compute, Algorithm, Options, Shares, Tree};
use crate::plot;

/// The tree section and the factor-curves section of `tree` (every algorithm that runs on it;
/// the curves are of the tree's first user, as `plot factors` draws by default).
pub fn share_sections(
    tree: &Tree,
    opts: &Options,
    limits: Limits,
) -> Result<Vec<Section>, ReportError> {
    let plot_error = |what| {
        move |e: plot::PlotError| ReportError::Plot {
            what,
            message: e.to_string(),
        }
    };
    let icicle = plot::tree_svg(tree).map_err(plot_error("the share tree"))?;
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    for a in Algorithm::ALL {
        match compute(tree, a, opts) {
            Ok(r) => results.push(r),
            Err(e) => skipped.push(format!("{a}: {e}")),
        }
    }
    let mut columns = vec![
        Column::text("account"),
        Column::text("user"),
        Column::number("shares"),
        Column::number("usage"),
    ];
    columns.extend(results.iter().map(|r| Column::number(r.algorithm.name())));
    let users = tree.users();
    let rows = (users.iter().take(limits.rows))
        .map(|&id| {
            let n = tree.node(id);
            let account = n.parent.map(|p| tree.node(p).name.as_str()).unwrap_or("");
            let shares = match n.shares {
                Shares::Count(c) => Cell::count(c),
                Shares::Parent => Cell::text("parent"),
            };
            let mut cells = vec![
                Cell::text(account),
                Cell::text(n.name.as_str()),
                shares,
                Cell::value(n.raw_usage),
            ];
            cells.extend(results.iter().map(|r| Cell::maybe(r.factor(id))));
            cells
        })
        .collect();
    let mut notes = vec![format!(
        "{} nodes, {} user associations. Each bar's width is its part of the shares; the strip \
         under it is its part of the usage.",
        tree.nodes().len(),
        users.len()
    )];
    if !skipped.is_empty() {
        notes.push(format!("Left out: {}.", skipped.join("; ")));
    }
    let tree_section = Section {
        id: "tree".into(),
        title: "The share tree".into(),
        notes,
        figures: vec![Figure {
            caption: "The share tree as an icicle: widths are shares, strips are usage".into(),
            svg: icicle,
        }],
        tables: vec![Table {
            id: "tree-factors".into(),
            caption: "Each user association's fair-share factor under every algorithm".into(),
            columns,
            rows,
            total: users.len(),
        }],
    };
    let factors = match plot::factor_curves(tree, None, opts) {
        Ok(curves) => {
            let svg = plot::factors_svg(&curves).map_err(plot_error("the factor curves"))?;
            let rows: Vec<Vec<Cell>> = (curves.series.iter())
                .map(|s| {
                    vec![
                        Cell::text(s.algorithm.name()),
                        Cell::maybe(s.current),
                        Cell::count(s.points.len() as u64),
                    ]
                })
                .collect();
            Section {
                id: "factors".into(),
                title: "Factor against usage".into(),
                notes: vec![format!(
                    "{}'s fair-share factor as its part of the usage grows, the others' usage \
                     unchanged; the dot is where it stands now ({:.1}% of the usage).",
                    curves.user,
                    curves.current * 100.0
                )],
                figures: vec![Figure {
                    caption: format!("Fair-share factor of {} against its usage", curves.user),
                    svg,
                }],
                tables: vec![Table {
                    id: "factors-now".into(),
                    caption: format!("{}'s factor now", curves.user),
                    total: rows.len(),
                    columns: vec![
                        Column::text("algorithm"),
                        Column::number("factor now"),
                        Column::number("points"),
                    ],
                    rows,
                }],
            }
        }
        Err(e) => Section {
            id: "factors".into(),
            title: "Factor against usage".into(),
            notes: vec![format!("No curves: {e}.")],
            ..Section::default()
        },
    };
    Ok(vec![tree_section, factors])
}
