//! The result of a search, as a table or JSON: the best point against the baseline (every
//! parameter at its lower bound), the constraints, the ready change, the Pareto front, and the
//! replay's comparison per account.

use super::Setup;
use crate::cli::table::{Align, Table};
use crate::cli::{CliResult, Failure};
use fairsort::replay::EntityStats;
use fairsort::tune::pareto::{front, front_svg};
use fairsort::tune::{ready_change, Evaluation, Goal, Measured, Metric};
use serde_json::{json, Map, Value};
use std::path::Path;

/// A value as admins read it: waits in seconds, shares and utilisation in percent.
fn shown(goal: &Goal, v: f64) -> String {
    match goal.metric {
        Metric::MeanWait | Metric::P95Wait | Metric::MaxWait => format!("{v:.0} s"),
        Metric::Utilisation | Metric::MaxShareError => format!("{:.2}%", v * 100.0),
        Metric::ShareError => format!("{v:.5}"),
        Metric::BoundedSlowdown | Metric::Jain => format!("{v:.3}"),
    }
}

fn params_json(s: &Setup, values: &[f64]) -> Value {
    let mut m = Map::new();
    for (p, v) in s.problem.space.params.iter().zip(values) {
        m.insert(p.name.clone(), json!(v));
    }
    Value::Object(m)
}

fn point_json(s: &Setup, e: &Evaluation) -> Value {
    let mut v = json!({
        "params": params_json(s, &e.values),
        "objectives": e.objectives,
        "feasible": s.aim.violation(e) == 0.0,
    });
    if let (Some(f), Some(o)) = (s.problem.formula(&e.values), v.as_object_mut()) {
        o.insert("formula".into(), json!(f));
    }
    v
}

/// Prints the result of `evaluations` (best at `best`), with the search's time when measured.
pub(super) fn report(
    s: &Setup,
    evaluations: &[Evaluation],
    best: usize,
    seconds: Option<f64>,
    as_json: bool,
    plot: Option<&Path>,
) -> CliResult {
    let b = evaluations
        .get(best)
        .ok_or_else(|| Failure::user("no evaluation"))?;
    let lower = s.problem.space.lower();
    let tune = |e: fairsort::tune::TuneError| Failure::user(e.to_string());
    let base_reports = s.problem.reports(&lower).map_err(tune)?;
    let baseline = s.problem.measure(&lower, &base_reports).map_err(tune)?;
    let best_reports = s.problem.reports(&b.values).map_err(tune)?;
    let feasible = |e: &Evaluation| s.aim.violation(e) == 0.0;
    let (px, py) = &s.pareto;
    // The front of the feasible points; of all of them when none is feasible.
    let any_feasible = evaluations.iter().any(feasible);
    let pareto = front(evaluations, px, py, &|e: &Evaluation| {
        !any_feasible || feasible(e)
    });
    if let Some(path) = plot {
        let svg = front_svg(evaluations, &pareto, px, py, best, Some(&baseline))
            .map_err(|e| Failure::user(e.to_string()))?;
        crate::cli::svg::write(path, &svg)?;
    }
    let change = ready_change(&s.problem, &b.values);
    let (base_acc, best_acc): (&[EntityStats], &[EntityStats]) = (
        base_reports.first().map_or(&[], |(_, r)| &r.accounts),
        best_reports.first().map_or(&[], |(_, r)| &r.accounts),
    );
    let delivered = |reports: &[(Measured, fairsort::replay::Report)], name: &str| {
        reports
            .first()
            .and_then(|(m, _)| m.delivered.get(name).copied())
            .unwrap_or(0.0)
    };
    if as_json {
        let per_account: Vec<Value> = base_acc
            .iter()
            .map(|a| {
                let after = best_acc.iter().find(|x| x.name == a.name);
                json!({
                    "name": a.name,
                    "share": a.share,
                    "delivered_share": {"baseline": delivered(&base_reports, &a.name), "best": delivered(&best_reports, &a.name)},
                    "wait_mean": {"baseline": a.wait_mean, "best": after.map(|x| x.wait_mean)},
                    "wait_p95": {"baseline": a.wait_p95, "best": after.map(|x| x.wait_p95)},
                })
            })
            .collect();
        let doc = json!({
            "search": s.method.name(),
            "seed": s.seed,
            "budget": s.budget,
            "evaluations": evaluations.len(),
            "traces": s.problem.cases.len(),
            "objective": s.aim.objective.name(),
            "maximize": s.aim.maximise,
            "constraints": s.aim.constraints.iter().map(|c| c.text.clone()).collect::<Vec<_>>(),
            "best": point_json(s, b),
            "baseline": point_json(s, &baseline),
            "change": change,
            "pareto": {
                "x": px.name(),
                "y": py.name(),
                "points": pareto.iter().map(|&i| point_json(s, &evaluations[i])).collect::<Vec<_>>(),
            },
            "accounts": per_account,
        });
        let text = serde_json::to_string_pretty(&doc)?;
        crate::outln!("{text}");
        return Ok(());
    }
    let rate = seconds
        .filter(|&t| t > 0.0)
        .map(|t| {
            format!(
                ", {:.1} s ({:.1} evaluations/s)",
                t,
                evaluations.len() as f64 / t
            )
        })
        .unwrap_or_default();
    crate::outln!(
        "tune: {} evaluations ({}, seed {}) over {} trace{}{rate}",
        evaluations.len(),
        s.method.name(),
        s.seed,
        s.problem.cases.len(),
        if s.problem.cases.len() == 1 { "" } else { "s" }
    );
    let objective = format!(
        "{} {}",
        if s.aim.maximise {
            "maximise"
        } else {
            "minimise"
        },
        s.aim.objective.name()
    );
    crate::outln!("{objective}");
    let names: Vec<String> = (s.problem.space.params.iter())
        .zip(&b.values)
        .map(|(p, v)| format!("{}={}", p.name, fairsort::tune::template::number(*v)))
        .collect();
    crate::outln!("best: {}", names.join(", "));
    if let Some(f) = s.problem.formula(&b.values) {
        crate::outln!("formula: {f}");
    }
    if !feasible(b) {
        crate::outln!("no point met every constraint: this is the one closest to them");
    }
    let mut t = Table::new(&[
        ("", Align::Left),
        ("baseline", Align::Right),
        ("best", Align::Right),
    ]);
    for g in &s.problem.goals {
        let name = g.name();
        let (x, y) = (
            baseline.objectives.get(&name).copied().unwrap_or(f64::NAN),
            b.objectives.get(&name).copied().unwrap_or(f64::NAN),
        );
        t.row(vec![name, shown(g, x), shown(g, y)]);
    }
    crate::outln!("\n{}", t.render());
    for c in &s.aim.constraints {
        let v = b
            .objectives
            .get(&c.goal.name())
            .copied()
            .unwrap_or(f64::NAN);
        let holds = if c.violation(v) == 0.0 {
            "holds"
        } else {
            "violated"
        };
        crate::outln!("{}: {holds} ({})", c.text, shown(&c.goal, v));
    }
    crate::outln!("\nthe change:");
    for line in &change {
        crate::outln!("  {line}");
    }
    let mut cols: Vec<(String, Align)> = (s.problem.space.params.iter())
        .map(|p| (p.name.clone(), Align::Right))
        .collect();
    cols.push((px.name(), Align::Right));
    cols.push((py.name(), Align::Right));
    let cols_ref: Vec<(&str, Align)> = cols.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    let mut t = Table::new(&cols_ref);
    for &i in &pareto {
        let e = &evaluations[i];
        let mut row: Vec<String> = e
            .values
            .iter()
            .map(|v| fairsort::tune::template::number(*v))
            .collect();
        for g in [px, py] {
            row.push(shown(
                g,
                e.objectives.get(&g.name()).copied().unwrap_or(f64::NAN),
            ));
        }
        t.row(row);
    }
    crate::outln!(
        "\nPareto front ({} against {}, {} point{}):\n{}",
        py.name(),
        px.name(),
        pareto.len(),
        if pareto.len() == 1 { "" } else { "s" },
        t.render()
    );
    let mut t = Table::new(&[
        ("account", Align::Left),
        ("share", Align::Right),
        ("delivered before", Align::Right),
        ("delivered after", Align::Right),
        ("wait before", Align::Right),
        ("wait after", Align::Right),
    ]);
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    for a in base_acc {
        let after = best_acc.iter().find(|x| x.name == a.name);
        t.row(vec![
            a.name.clone(),
            pct(a.share),
            pct(delivered(&base_reports, &a.name)),
            pct(delivered(&best_reports, &a.name)),
            format!("{:.0}", a.wait_mean),
            after.map_or(String::new(), |x| format!("{:.0}", x.wait_mean)),
        ]);
    }
    let which = if s.problem.cases.len() > 1 {
        " (the first trace)"
    } else {
        ""
    };
    crate::outln!(
        "\nper account, baseline (before) and best (after){which}:\n{}",
        t.render()
    );
    Ok(())
}
