//! `[[order]]` cases: a small queue ordered under one formula, as `fairsort order` orders it
//! (the case's Scenario, `Scenario::order`), expected to give an order, its top, pairs
//! ranked one before the other, the eligible jobs or job values — parsed and run here.

use crate::formula::ResourceTable;
use crate::ftest::case::{Case, CaseBody, CaseKind, Context, OrderCase, OrderExpect, Tolerance};
use crate::ftest::error::TestFileError;
use crate::ftest::outcome::{first_difference, Problem, Ran, ValueDiff};
use crate::ftest::setup::{compiled, ids_of, job_id, join, no_job, queue_scenario, strings};
use crate::ftest::syntax::{ids, queue_setup, value_map, Cx};
use crate::jobs::JobSet;
use crate::order::dry_run::DryRun;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use toml::{Spanned, Value};

/// An `[[order]]` case as written (`compare::RawCompare` has the same queue fields).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawOrder {
    pub name: Option<String>,
    pub formula: Option<Spanned<String>>,
    pub jobs: Spanned<Value>,
    pub tree: Option<Spanned<Value>>,
    pub entity: Option<Spanned<String>>,
    #[serde(default)]
    pub fair_share: bool,
    pub threshold: Option<f64>,
    #[serde(default)]
    pub queue_priority: BTreeMap<String, i64>,
    #[serde(default)]
    pub pbs_compat: bool,
    pub expect: Option<Spanned<Value>>,
    pub abs: Option<f64>,
    pub rel: Option<f64>,
}

/// The `index`th `[[order]]` case, with where it starts.
pub(crate) fn parse(
    cx: &Cx,
    index: usize,
    c: &Spanned<RawOrder>,
) -> Result<(usize, Case), TestFileError> {
    let span = c.span();
    let o = c.get_ref();
    let setup = queue_setup!(cx, o)?;
    let expect = cx.expect(&o.expect, parse_expect)?;
    let tolerance = cx.tolerance(o.abs, o.rel, span.clone())?;
    let formula = cx.resolve(&o.formula)?;
    let body = CaseBody::Order(OrderCase {
        formula,
        setup,
        expect,
    });
    Ok(cx.case(&span, &o.name, CaseKind::Order, index, tolerance, body))
}

/// An `[[order]]` case's `expect`: an array (the whole order) or a table of
/// `order`, `top`, `before`, `eligible`, `values`.
fn parse_expect(v: &Value) -> Result<OrderExpect, String> {
    if let Value::Array(_) = v {
        return Ok(OrderExpect {
            order: Some(ids(v, "expect")?),
            ..OrderExpect::default()
        });
    }
    let Value::Table(t) = v else {
        return Err("`expect` must be an array of job ids (the order) or a table of order, top, before, eligible, values".into());
    };
    let mut e = OrderExpect::default();
    for (k, x) in t {
        match k.as_str() {
            "order" => e.order = Some(ids(x, k)?),
            "top" => e.top = Some(ids(x, k)?),
            "eligible" => e.eligible = Some(ids(x, k)?),
            "values" => e.values = value_map(x).map_err(|m| m.replace("`expect`", "`values`"))?,
            "before" => {
                let Value::Array(pairs) = x else {
                    return Err("`before` must be an array of [\"a\", \"b\"] pairs".into());
                };
                for p in pairs {
                    let pair = ids(p, "before")?;
                    let [a, b] = <[String; 2]>::try_from(pair).map_err(|_| {
                        "each `before` entry is a pair [\"a\", \"b\"]: job a ranks before job b"
                            .to_string()
                    })?;
                    e.before.push((a, b));
                }
            }
            other => {
                return Err(format!(
                "unknown key `{other}` in `expect` (expected order, top, before, eligible, values)"
            ))
            }
        }
    }
    Ok(e)
}

/// An `[[order]]` case.
pub(crate) fn run(
    case: &Case,
    o: &OrderCase,
    ctx: &Context,
    resources: &ResourceTable,
) -> Result<Ran, String> {
    let program = compiled(o.formula.text(ctx)?, resources)?;
    let scenario = queue_scenario(&o.setup, resources)?;
    let run = &scenario.order(&program, &[]).map_err(|e| e.to_string())?;
    let s = &scenario.setup;
    let order = ids_of(&s.jobs, run);
    let eligible: Vec<String> = run
        .order
        .ranked
        .iter()
        .filter(|r| r.eligible)
        .map(|r| job_id(&s.jobs, r.job))
        .collect();
    let mut actual = toml::Table::new();
    actual.insert("order".into(), strings(&order));
    if s.threshold.is_some() {
        actual.insert("eligible".into(), strings(&eligible));
    }
    let verdict = o
        .expect
        .as_ref()
        .map(|e| check_order(case.tolerance, e, &order, &eligible, run, &s.jobs));
    Ok((Some(Value::Table(actual)), verdict))
}

/// Where the real pbs_sched would crash on the case's formula over its queue
/// (`Scenario::pbs_warnings`); none when the case cannot run (its own error says why).
pub(crate) fn warnings(o: &OrderCase, ctx: &Context, resources: &ResourceTable) -> Vec<String> {
    let Ok(text) = o.formula.text(ctx) else {
        return Vec::new();
    };
    let (Ok(program), Ok(scenario)) = (
        compiled(text, resources),
        queue_scenario(&o.setup, resources),
    ) else {
        return crate::formula::pbs_hazards::static_hazards(text)
            .iter()
            .map(|h| h.render())
            .collect();
    };
    match scenario.order(&program, &[]) {
        Ok(run) => scenario.pbs_warnings(&program, &run),
        Err(_) => Vec::new(),
    }
}

fn check_order(
    tolerance: Tolerance,
    e: &OrderExpect,
    order: &[String],
    eligible: &[String],
    run: &DryRun,
    jobs: &JobSet,
) -> Result<(), Problem> {
    if let Some(x) = &e.order {
        if let Some(i) = first_difference(x, order) {
            return Err(Problem::Order {
                expected: x.clone(),
                actual: order.to_vec(),
                first_difference: i,
            });
        }
    }
    if let Some(top) = &e.top {
        let head = &order[..top.len().min(order.len())];
        if let Some(i) = first_difference(top, head) {
            return Err(Problem::Order {
                expected: top.clone(),
                actual: order.to_vec(),
                first_difference: i,
            });
        }
    }
    let rank = |id: &str| order.iter().position(|x| x == id);
    let mut violated = Vec::new();
    for (a, b) in &e.before {
        match (rank(a), rank(b)) {
            (Some(ra), Some(rb)) if ra < rb => {}
            (Some(ra), Some(rb)) => violated.push(format!(
                "{a} before {b}: {a} is rank {}, {b} is rank {}",
                ra + 1,
                rb + 1
            )),
            (None, _) => violated.push(no_job(a)),
            (_, None) => violated.push(no_job(b)),
        }
    }
    if let Some(x) = &e.eligible {
        let want: BTreeSet<&String> = x.iter().collect();
        let got: BTreeSet<&String> = eligible.iter().collect();
        if want != got {
            violated.push(format!(
                "eligible: expected [{}], actual [{}]",
                join(&want),
                join(&got)
            ));
        }
    }
    if !violated.is_empty() {
        return Err(Problem::Constraints { violated });
    }
    let mut entries = Vec::new();
    for (id, want) in &e.values {
        let value = jobs
            .jobs
            .iter()
            .position(|j| &j.id == id)
            .and_then(|i| run.order.ranked.iter().find(|r| r.job as usize == i))
            .map(|r| r.value);
        if !value.is_some_and(|v| tolerance.accepts(*want, v)) {
            entries.push(ValueDiff {
                name: id.clone(),
                expected: *want,
                actual: value,
            });
        }
    }
    if entries.is_empty() {
        Ok(())
    } else {
        Err(Problem::Values { entries, tolerance })
    }
}

#[cfg(test)]
mod tests {
    use super::super::file::parse;
    use super::super::outcome::Status;
    use super::super::runner::run_file;
    use super::*;

    #[test]
    fn order_values_eligibility_and_missing_jobs() {
        let text = "[[order]]\nformula = \"ncpus\"\nthreshold = 1\njobs = [{ id = \"a\", user = \"u\", resources = { ncpus = 1 } }, { id = \"b\", user = \"u\", resources = { ncpus = 2 } }]\nexpect = { order = [\"b\", \"a\"], eligible = [\"b\"], values = { a = 1, b = 2 } }\n[[order]]\nformula = \"ncpus\"\njobs = [{ id = \"a\", user = \"u\" }]\nexpect = { before = [[\"a\", \"zz\"]] }\n[[order]]\nformula = \"ncpus\"\njobs = [{ id = \"a\", user = \"u\" }]\nexpect = { values = { a = 1 } }\n";
        let f = parse("t.toml", text).unwrap();
        let (r, _) = run_file(&f, &Context::with_formula("1"), false);
        let s: Vec<Status> = r.cases.iter().map(|c| c.status).collect();
        assert_eq!(s, vec![Status::Ok, Status::Failed, Status::Failed]);
        assert_eq!(
            r.cases[1].problem,
            Some(Problem::Constraints {
                violated: vec!["no job `zz` in the queue".into()]
            })
        );
        match &r.cases[2].problem {
            Some(Problem::Values { entries, .. }) => {
                assert_eq!(entries[0].name, "a");
                assert_eq!(entries[0].actual, Some(0.0));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fair_share_keywords_without_a_tree_fail_clearly() {
        let text = "[[order]]\nformula = \"fairshare_factor\"\njobs = [{ id = \"a\", user = \"u\" }]\nexpect = [\"a\"]\n";
        let f = parse("t.toml", text).unwrap();
        let (r, _) = run_file(&f, &Context::with_formula("1"), false);
        match &r.cases[0].problem {
            Some(Problem::Error { message }) => assert!(!message.is_empty()),
            other => panic!("{other:?}"),
        }
    }
}
