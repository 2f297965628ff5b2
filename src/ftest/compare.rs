//! `[[compare]]` cases: one queue under two formulas (today's and `against`), run as
//! `fairsort order --against` runs them (`Scenario::order_against`: the same fair-share
//! values for both), expected to change the rank of given jobs, move some up or down, or give
//! an order under `against` — parsed and run here.

use crate::formula::ResourceTable;
use crate::ftest::case::{Case, CaseBody, CaseKind, CompareCase, CompareExpect, Context};
use crate::ftest::error::TestFileError;
use crate::ftest::outcome::{first_difference, Problem, Ran};
use crate::ftest::setup::{compiled, ids_of, job_id, join, no_job, queue_scenario, strings};
use crate::ftest::syntax::{ids, queue_setup, Cx};
use crate::order::compare;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use toml::{Spanned, Value};

/// A `[[compare]]` case as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCompare {
    pub name: Option<String>,
    pub formula: Option<Spanned<String>>,
    pub against: Spanned<String>,
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
}

/// The `index`th `[[compare]]` case, with where it starts.
pub(crate) fn parse(
    cx: &Cx,
    index: usize,
    c: &Spanned<RawCompare>,
) -> Result<(usize, Case), TestFileError> {
    let span = c.span();
    let o = c.get_ref();
    let setup = queue_setup!(cx, o)?;
    let expect = cx.expect(&o.expect, parse_expect)?;
    let tolerance = cx.tolerance(None, None, span.clone())?;
    let formula = cx.resolve(&o.formula)?;
    let against = cx.resolve(&Some(o.against.clone()))?;
    let body = CaseBody::Compare(CompareCase {
        formula,
        against,
        setup,
        expect,
    });
    Ok(cx.case(&span, &o.name, CaseKind::Compare, index, tolerance, body))
}

/// A `[[compare]]` case's `expect`: a table of `changed`, `up`, `down`, `order`.
fn parse_expect(v: &Value) -> Result<CompareExpect, String> {
    let Value::Table(t) = v else {
        return Err("`expect` must be a table of changed, up, down, order".into());
    };
    let mut e = CompareExpect::default();
    for (k, x) in t {
        match k.as_str() {
            "changed" => e.changed = Some(ids(x, k)?),
            "up" => e.up = ids(x, k)?,
            "down" => e.down = ids(x, k)?,
            "order" => e.order = Some(ids(x, k)?),
            other => {
                return Err(format!(
                    "unknown key `{other}` in `expect` (expected changed, up, down, order)"
                ))
            }
        }
    }
    Ok(e)
}

/// A `[[compare]]` case.
pub(crate) fn run(
    c: &CompareCase,
    ctx: &Context,
    resources: &ResourceTable,
) -> Result<Ran, String> {
    let a = compiled(c.formula.text(ctx)?, resources)?;
    let b = compiled(c.against.text(ctx)?, resources)?;
    let scenario = queue_scenario(&c.setup, resources)?;
    let (ra, rb) = &scenario.order_against(&a, &b).map_err(|e| e.to_string())?;
    let s = &scenario.setup;
    let cmp = compare(&ra.order, &rb.order);
    let moved = |f: fn(i64) -> bool| -> Vec<String> {
        cmp.moves
            .iter()
            .filter(|m| f(m.delta()))
            .map(|m| job_id(&s.jobs, m.job))
            .collect()
    };
    let changed = moved(|d| d != 0);
    let up = moved(|d| d > 0);
    let down = moved(|d| d < 0);
    let order_a = ids_of(&s.jobs, ra);
    let order_b = ids_of(&s.jobs, rb);
    let mut actual = toml::Table::new();
    actual.insert("changed".into(), strings(&changed));
    let verdict = c.expect.as_ref().map(|e| {
        let mut violated = Vec::new();
        if let Some(x) = &e.changed {
            let want: BTreeSet<&String> = x.iter().collect();
            let got: BTreeSet<&String> = changed.iter().collect();
            if want != got {
                violated.push(format!(
                    "changed rank: expected [{}], actual [{}]",
                    join(&want),
                    join(&got)
                ));
            }
        }
        for (want, got, dir) in [(&e.up, &up, "up"), (&e.down, &down, "down")] {
            for id in want {
                if !order_a.contains(id) {
                    violated.push(no_job(id));
                } else if !got.contains(id) {
                    violated.push(format!("{id} moves {dir}: it does not"));
                }
            }
        }
        if let Some(x) = &e.order {
            if first_difference(x, &order_b).is_some() {
                violated.push(format!(
                    "order under {}: expected [{}]",
                    c.against.label(),
                    x.join(", ")
                ));
            }
        }
        if violated.is_empty() {
            Ok(())
        } else {
            Err(Problem::Compare {
                violated,
                current: order_a.clone(),
                against: order_b.clone(),
                first_difference: first_difference(&order_a, &order_b),
            })
        }
    });
    Ok((Some(Value::Table(actual)), verdict))
}
