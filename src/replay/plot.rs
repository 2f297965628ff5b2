//! The replay's SVG plots, as strings (the library writes no file): share attainment over
//! time per account, and the distribution of waits per policy. Deterministic: the same replay
//! gives the same bytes (plotters' SVG backend with its built-in font metrics).

use crate::replay::attainment::Attainment;
use plotters::prelude::*;

/// Width of a plot (px).
const WIDTH: u32 = 900;
/// Height of one panel (px).
const PANEL: u32 = 420;
/// Accounts beyond this many get no legend entry (the lines are still drawn).
const LEGEND_MAX: usize = 12;
/// Points per wait distribution.
const CDF_POINTS: usize = 500;

/// A plot that could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("plot: {0}")]
pub struct PlotError(String);

fn err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError(format!("{e:?}"))
}

/// Share attainment over time, one panel per policy (`(label, attainment)`): per account, its
/// part of the core-seconds delivered in each interval divided by its part of the shares (1 =
/// exactly its share; the dashed line), against days since the first submit.
pub fn attainment_svg(panels: &[(&str, &Attainment)]) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let h = PANEL * panels.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, h)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let areas = root.split_evenly((panels.len().max(1), 1));
        for (area, (label, at)) in areas.iter().zip(panels) {
            let start = at.ends.first().map_or(0, |e| e.saturating_sub(at.interval));
            let day = |t: i64| t.saturating_sub(start) as f64 / 86_400.0;
            let xmax = at.ends.last().map_or(1.0, |&e| day(e)).max(1e-6);
            let ratio = |u: f64, s: f64| if s > 0.0 { u / s } else { 0.0 };
            let ymax = at
                .accounts
                .iter()
                .flat_map(|s| s.usage_share.iter().map(|&u| ratio(u, s.share)))
                .fold(2.0f64, f64::max)
                .min(20.0)
                * 1.05;
            let mut chart = ChartBuilder::on(area)
                .caption(
                    format!("share attainment per account: {label}"),
                    ("sans-serif", 18),
                )
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d(0f64..xmax, 0f64..ymax)
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc("days since the first submit")
                .y_desc("usage share / share")
                .draw()
                .map_err(err)?;
            for (i, s) in at.accounts.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let points = at
                    .ends
                    .iter()
                    .zip(&s.usage_share)
                    .map(|(&t, &u)| (day(t), ratio(u, s.share).min(ymax)));
                let drawn = chart
                    .draw_series(LineSeries::new(points, color.stroke_width(2)))
                    .map_err(err)?;
                if i < LEGEND_MAX {
                    drawn.label(s.name.clone()).legend(move |(x, y)| {
                        Rectangle::new([(x, y - 4), (x + 16, y + 4)], color.filled())
                    });
                }
            }
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, 1.0), (xmax, 1.0)],
                    6,
                    4,
                    BLACK.stroke_width(1),
                ))
                .map_err(err)?;
            if !at.accounts.is_empty() {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .position(SeriesLabelPosition::UpperRight)
                    .draw()
                    .map_err(err)?;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The distribution of waits (cumulative: the fraction of jobs that waited at most x hours),
/// one line per policy (`(label, waits in seconds)`).
pub fn waits_svg(policies: &[(&str, Vec<f64>)]) -> Result<String, PlotError> {
    let cdfs: Vec<(&str, Vec<(f64, f64)>)> =
        policies.iter().map(|(label, w)| (*label, cdf(w))).collect();
    let xmax = cdfs
        .iter()
        .flat_map(|(_, c)| c.last().map(|p| p.0))
        .fold(0.0f64, f64::max)
        .max(1.0 / 60.0)
        * 1.02;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, PANEL)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption("distribution of waits", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..xmax, 0f64..1.02)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("wait (hours)")
            .y_desc("fraction of jobs")
            .draw()
            .map_err(err)?;
        for (i, (label, points)) in cdfs.into_iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(2)))
                .map_err(err)?
                .label(label.to_string())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 4), (x + 16, y + 4)], color.filled())
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerRight)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The empirical distribution of `waits` (seconds) as at most [`CDF_POINTS`] + 1 steps of
/// (hours, fraction of jobs waiting at most that long).
fn cdf(waits: &[f64]) -> Vec<(f64, f64)> {
    let mut w: Vec<f64> = waits.iter().copied().filter(|x| x.is_finite()).collect();
    w.sort_by(f64::total_cmp);
    let n = w.len();
    if n == 0 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(2 * CDF_POINTS + 2);
    let mut prev: Option<(f64, f64)> = None;
    for q in 0..=CDF_POINTS {
        // The q-th quantile's job: the fraction that waited at most its wait.
        let i = (q * (n - 1)) / CDF_POINTS;
        let x = w.get(i).copied().unwrap_or(0.0) / 3600.0;
        let y = (i + 1) as f64 / n as f64;
        if let Some((px, py)) = prev {
            if x > px {
                out.push((x, py));
            }
        }
        out.push((x, y));
        prev = Some((x, y));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_steps_up_to_one() {
        let c = cdf(&[0.0, 3600.0, 7200.0, 7200.0]);
        assert_eq!(c.first(), Some(&(0.0, 0.25)));
        assert_eq!(c.last(), Some(&(2.0, 1.0)));
        assert!(c.windows(2).all(|p| p[0].0 <= p[1].0 && p[0].1 <= p[1].1));
        assert!(cdf(&[]).is_empty());
    }
}
