//! `fairsort::formula::pbs_hazards` against the cycles where a real OpenPBS 23.06.06 pbs_sched
//! crashed or misbehaved (`tests/data/pbs_cycles/crash_*`, `formula_dquote*`): the formula and
//! the job that brought pbs_sched down there are flagged; the formulas of the cycles that went
//! well are not.

use crate::common::data;
use fairsort::formula::pbs_hazards::{run_hazards, static_hazards, Hazard};
use fairsort::formula::{compile, ResourceTable};
use std::collections::HashMap;

/// The scenario's server `job_sort_formula` (`print_server.txt`), unquoted.
fn formula(scenario: &str) -> Option<String> {
    let text =
        std::fs::read_to_string(data(&format!("pbs_cycles/{scenario}/print_server.txt"))).unwrap();
    let v = text
        .lines()
        .find_map(|l| l.strip_prefix("set server job_sort_formula = "))?;
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|q| v.strip_prefix(*q).and_then(|r| r.strip_suffix(*q)));
    Some(unquoted.unwrap_or(v).to_string())
}

/// The jobs pbs_sched evaluated, in its order (`Formula Evaluation` and formula error lines of
/// `sched_log.txt`), and those it logged with zero fair-share shares.
fn evaluated(scenario: &str) -> (Vec<String>, Vec<String>) {
    let log =
        std::fs::read_to_string(data(&format!("pbs_cycles/{scenario}/sched_log.txt"))).unwrap();
    let (mut order, mut zero) = (Vec::new(), Vec::new());
    for line in log.lines() {
        let f: Vec<&str> = line.splitn(6, ';').collect();
        if f.len() < 6 || f[3] != "Job" {
            continue;
        }
        let job = f[4].to_string();
        if f[5].starts_with("Formula Evaluation") || f[5].starts_with("Formula evaluation") {
            if !order.contains(&job) {
                order.push(job);
            }
        } else if f[5] == "Job has zero shares for fairshare" {
            zero.push(job);
        }
    }
    (order, zero)
}

/// Each job's `Resource_List.ncpus` (`qstat.json`).
fn ncpus(scenario: &str) -> HashMap<String, f64> {
    let text = std::fs::read_to_string(data(&format!("pbs_cycles/{scenario}/qstat.json"))).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["Jobs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(id, j)| {
            (
                id.clone(),
                j["Resource_List"]["ncpus"].as_f64().unwrap_or(0.0),
            )
        })
        .collect()
}

/// The hazards fairsort finds for the scenario's formula over its jobs in pbs_sched's order
/// (ncpus from qstat, `fairshare_perc` 0 for a job with zero shares, else 0.5).
fn hazards(scenario: &str) -> Vec<Hazard> {
    let src = formula(scenario).unwrap();
    let program = compile(&src, &ResourceTable::default()).unwrap();
    let (order, zero) = evaluated(scenario);
    let cpus = ncpus(scenario);
    let rows: Vec<(String, Vec<f64>)> = order
        .iter()
        .map(|job| {
            let slots = program
                .keywords()
                .iter()
                .map(|k| match k.as_str() {
                    "ncpus" => cpus[job],
                    "fairshare_perc" if zero.contains(job) => 0.0,
                    _ => 0.5,
                })
                .collect();
            (job.clone(), slots)
        })
        .collect();
    run_hazards(
        &program,
        rows.iter().map(|(j, s)| (j.as_str(), s.as_slice())),
    )
}

#[test]
fn the_job_that_crashed_pbs_sched_is_flagged() {
    for scenario in [
        "crash_complex",
        "crash_complex_after_5min",
        "crash_bigint",
        "crash_first_error",
        "crash_unknown_last",
        "crash_unknown_shares_formula",
    ] {
        let (order, _) = evaluated(scenario);
        let last = order.last().unwrap();
        let found = hazards(scenario);
        assert_eq!(found.len(), 1, "{scenario}: {found:?}");
        assert_eq!(found[0].job(), Some(last.as_str()), "{scenario}: {found:?}");
        let line = found[0].render();
        assert!(
            line.contains(last) && line.contains("OpenPBS 23.06"),
            "{line}"
        );
    }
    let kinds: Vec<Hazard> = ["crash_complex", "crash_bigint", "crash_first_error"]
        .iter()
        .map(|s| hazards(s).remove(0))
        .collect();
    assert!(matches!(kinds[0], Hazard::NotReal { .. }));
    assert!(matches!(kinds[1], Hazard::IntBeyondDouble { .. }));
    assert!(matches!(kinds[2], Hazard::FirstJobError { .. }));
}

#[test]
fn formulas_pbs_sched_cannot_evaluate_are_flagged_from_their_text() {
    for scenario in ["formula_dquote", "formula_dquote_after"] {
        let src = formula(scenario).unwrap();
        assert!(
            matches!(static_hazards(&src)[..], [Hazard::DoubleQuote { .. }]),
            "{scenario}: {src}"
        );
    }
    let none = formula("crash_none").unwrap();
    assert!(
        matches!(static_hazards(&none)[..], [Hazard::NoneValue { .. }]),
        "{none}"
    );
}

#[test]
fn the_formulas_of_good_cycles_are_not_flagged() {
    let mut checked = 0;
    for scenario in [
        "fairshare_factor_formula",
        "fairshare_with_formula",
        "nan_inf",
        "threshold",
        "float32_ties",
        "by_queue_default",
    ] {
        let Some(src) = formula(scenario) else {
            continue;
        };
        assert!(static_hazards(&src).is_empty(), "{scenario}: {src}");
        if compile(&src, &ResourceTable::default()).is_ok() && !evaluated(scenario).0.is_empty() {
            assert_eq!(hazards(scenario), vec![], "{scenario}: {src}");
            checked += 1;
        }
    }
    assert!(checked >= 3, "{checked} good cycles evaluated");
}
