//! `against`: each job's rank under the current formula against its rank under another (the
//! same comparison as `fairsort order --against`): jobs on the diagonal keep their place,
//! jobs above it move up under the other formula, below it move down.

use crate::plot::canvas::{draw_err, fixed, named, FONT, PALETTE, SIZE};
use crate::plot::PlotError;
use crate::scenario::Comparison;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Jobs whose ids are written beside their points: the biggest movers, at most this many.
const NAMED: usize = 8;

/// The comparison as an SVG scatter: x = rank under `current`, y = rank under `against`
/// (rank 1 at the bottom left), one point per job, the diagonal, and the biggest movers named.
pub fn against_svg(cmp: &Comparison, current: &str, against: &str) -> Result<String, PlotError> {
    if cmp.rows.is_empty() {
        return Err(PlotError::NoJobs);
    }
    let n = cmp.rows.len().max(cmp.total) as f64;
    let title = "Job ranks under two formulas";
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 22))
            .margin(16)
            .x_label_area_size(64)
            .y_label_area_size(64)
            .build_cartesian_2d(0.5f64..n + 0.5, 0.5f64..n + 0.5)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc(format!("rank under the current formula: {current}"))
            .y_desc(format!("rank under --against: {against}"))
            .x_label_formatter(&|v| fixed(*v, 0))
            .y_label_formatter(&|v| fixed(*v, 0))
            .max_light_lines(0)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(draw_err)?;
        let grey = RGBColor(150, 150, 150);
        chart
            .draw_series(DashedLineSeries::new(
                [(0.5, 0.5), (n + 0.5, n + 0.5)],
                6,
                4,
                grey.stroke_width(1),
            ))
            .map_err(draw_err)?;
        let groups = [
            (PALETTE[2], "earlier under --against", 1i64),
            (PALETTE[1], "later under --against", -1),
            (PALETTE[0], "same place", 0),
        ];
        for (color, text, sign) in groups {
            let points: Vec<_> = cmp
                .rows
                .iter()
                .filter(|r| r.moved.signum() == sign)
                .map(|r| (f64::from(r.rank), f64::from(r.rank_against)))
                .collect();
            let count = points.len();
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 4, color.filled())),
                )
                .map_err(draw_err)?
                .label(format!("{text} ({count})"))
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((FONT, 14))
            .draw()
            .map_err(draw_err)?;
        // Names right of their point, or left of it in the right fifth of the plot.
        for r in cmp.movers.iter().filter(|r| r.moved != 0).take(NAMED) {
            let (x, y) = (f64::from(r.rank), f64::from(r.rank_against));
            let h = if x > 0.8 * n { HPos::Right } else { HPos::Left };
            let style = (FONT, 12)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(h, VPos::Bottom));
            chart
                .draw_series([Text::new(
                    format!("{} ({:+})", r.id, r.moved),
                    (x, y),
                    style,
                )])
                .map_err(draw_err)?;
        }
        root.present().map_err(draw_err)?;
    }
    let moved = cmp.rows.iter().filter(|r| r.moved != 0).count();
    let corr = |v: Option<f64>| v.map_or("n/a".to_string(), |x| fixed(x, 4));
    let desc = format!(
        "{} jobs, {moved} change rank; Spearman {}, Kendall tau {}.",
        cmp.rows.len(),
        corr(cmp.spearman),
        corr(cmp.kendall)
    );
    Ok(named(svg, title, &desc))
}
