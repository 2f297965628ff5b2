//! The Pareto front of two goals over the evaluations: the points no other point beats on both
//! (each goal as minimised: utilisation and Jain's index negated), and its SVG picture.

use crate::tune::eval::Evaluation;
use crate::tune::goals::Goal;
use plotters::prelude::*;

/// The two goals' values of an evaluation, as minimised (`None` if one is missing).
fn scores(e: &Evaluation, x: &Goal, y: &Goal) -> Option<(f64, f64)> {
    let a = e.objectives.get(&x.name())?;
    let b = e.objectives.get(&y.name())?;
    (a.is_finite() && b.is_finite()).then(|| (x.score(*a), y.score(*b)))
}

/// The indices of the front among `evals` (only those `keep` admits, e.g. the feasible ones),
/// by the first goal ascending; of points with equal scores the first is kept. O(n log n).
pub fn front(
    evals: &[Evaluation],
    x: &Goal,
    y: &Goal,
    keep: &dyn Fn(&Evaluation) -> bool,
) -> Vec<usize> {
    let mut pts: Vec<(f64, f64, usize)> = evals
        .iter()
        .enumerate()
        .filter(|(_, e)| keep(e))
        .filter_map(|(i, e)| scores(e, x, y).map(|(a, b)| (a, b, i)))
        .collect();
    pts.sort_by(|p, q| {
        p.0.total_cmp(&q.0)
            .then(p.1.total_cmp(&q.1))
            .then(p.2.cmp(&q.2))
    });
    let mut out = Vec::new();
    let mut best_y = f64::INFINITY;
    for (_, b, i) in pts {
        if b < best_y {
            out.push(i);
            best_y = b;
        }
    }
    out
}

/// A plot that could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("plot: {0}")]
pub struct PlotError(String);

fn err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError(format!("{e:?}"))
}

/// Every evaluation (grey), the front (a line) and the best point and the baseline (marked),
/// x and y in the goals' own units; the same bytes for the same evaluations.
pub fn front_svg(
    evals: &[Evaluation],
    front: &[usize],
    x: &Goal,
    y: &Goal,
    best: usize,
    baseline: Option<&Evaluation>,
) -> Result<String, PlotError> {
    let xy = |e: &Evaluation| Some((*e.objectives.get(&x.name())?, *e.objectives.get(&y.name())?));
    let all: Vec<(f64, f64)> = evals
        .iter()
        .chain(baseline)
        .filter_map(xy)
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .collect();
    let range = |f: fn(&(f64, f64)) -> f64| {
        let lo = all.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = all.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() && hi.is_finite() {
            let pad = ((hi - lo) * 0.05).max(1e-9);
            (lo - pad)..(hi + pad)
        } else {
            0.0..1.0
        }
    };
    let (xr, yr) = (range(|p| p.0), range(|p| p.1));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{} against {}: every evaluation and the Pareto front",
                    y.name(),
                    x.name()
                ),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(xr, yr)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(x.name())
            .y_desc(y.name())
            .draw()
            .map_err(err)?;
        let grey = RGBColor(170, 170, 170);
        chart
            .draw_series(
                evals
                    .iter()
                    .filter_map(xy)
                    .map(|p| Circle::new(p, 3, grey.filled())),
            )
            .map_err(err)?
            .label("evaluations")
            .legend(move |(a, b)| Circle::new((a + 8, b), 3, grey.filled()));
        let line: Vec<(f64, f64)> = front
            .iter()
            .filter_map(|&i| evals.get(i).and_then(xy))
            .collect();
        let blue = Palette99::pick(0).to_rgba();
        chart
            .draw_series(LineSeries::new(line.clone(), blue.stroke_width(2)))
            .map_err(err)?
            .label("Pareto front")
            .legend(move |(a, b)| Rectangle::new([(a, b - 2), (a + 16, b + 2)], blue.filled()));
        chart
            .draw_series(line.into_iter().map(|p| Circle::new(p, 4, blue.filled())))
            .map_err(err)?;
        if let Some(p) = evals.get(best).and_then(xy) {
            chart
                .draw_series([Cross::new(p, 8, RED.stroke_width(3))])
                .map_err(err)?
                .label("best")
                .legend(|(a, b)| Cross::new((a + 8, b), 5, RED.stroke_width(2)));
        }
        if let Some(p) = baseline.and_then(xy) {
            chart
                .draw_series([TriangleMarker::new(p, 8, BLACK.filled())])
                .map_err(err)?
                .label("baseline")
                .legend(|(a, b)| TriangleMarker::new((a + 8, b), 5, BLACK.filled()));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn ev(a: f64, b: f64) -> Evaluation {
        let mut objectives = BTreeMap::new();
        objectives.insert("share-error".to_string(), a);
        objectives.insert("jain".to_string(), b);
        Evaluation {
            values: vec![a],
            objectives,
        }
    }

    #[test]
    fn the_front_keeps_the_points_nothing_beats() {
        let x = Goal::parse("share-error").unwrap();
        let y = Goal::parse("jain").unwrap(); // maximised
        let evals = vec![
            ev(0.1, 0.5),
            ev(0.2, 0.9),
            ev(0.3, 0.8),
            ev(0.05, 0.2),
            ev(0.1, 0.5),
        ];
        assert_eq!(front(&evals, &x, &y, &|_| true), vec![3, 0, 1]);
        assert_eq!(front(&evals, &x, &y, &|e| e.values[0] > 0.06), vec![0, 1]);
        let svg = front_svg(&evals, &[3, 0, 1], &x, &y, 1, Some(&ev(0.3, 0.3))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("Pareto front"));
    }
}
