//! `[[share]]` cases: one fair-share algorithm's values over a tree (the case's Scenario: its
//! tree with usage), as `fairsort share` computes them, expected per user or account within
//! tolerance — parsed and run here.

use crate::fairshare;
use crate::fairshare::{Algorithm, NodeId, Options, ShareResult, Tree};
use crate::ftest::case::{Case, CaseBody, CaseKind, ShareCase};
use crate::ftest::error::TestFileError;
use crate::ftest::outcome::{Problem, Ran, ValueDiff};
use crate::ftest::setup::share_scenario;
use crate::ftest::syntax::{value_map, Cx, Located};
use serde::Deserialize;
use toml::{Spanned, Value};

/// A `[[share]]` case as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawShare {
    pub name: Option<String>,
    pub tree: Spanned<Value>,
    pub algorithm: Option<Spanned<String>>,
    pub column: Option<Spanned<String>>,
    pub dampening: Option<f64>,
    #[serde(default)]
    pub flux_compat: bool,
    pub expect: Option<Spanned<Value>>,
    pub abs: Option<f64>,
    pub rel: Option<f64>,
}

/// The columns a `[[share]]` case may check.
pub const COLUMNS: [&str; 11] = [
    "factor",
    "fairshare",
    "fairshare_perc",
    "fairshare_tree_usage",
    "fairshare_factor",
    "norm_shares",
    "norm_usage",
    "effective_usage",
    "level_fs",
    "tickets",
    "weight",
];

/// The `index`th `[[share]]` case, with where it starts.
pub(crate) fn parse(
    cx: &Cx,
    index: usize,
    c: &Spanned<RawShare>,
) -> Result<(usize, Case), TestFileError> {
    let span = c.span();
    let s = c.get_ref();
    let tolerance = cx.tolerance(s.abs, s.rel, span.clone())?;
    let body = CaseBody::Share(share_case(cx, s).map_err(|l| cx.located(l))?);
    Ok(cx.case(&span, &s.name, CaseKind::Share, index, tolerance, body))
}

/// The kind-specific part of a `[[share]]` case.
fn share_case(cx: &Cx, s: &RawShare) -> Result<ShareCase, Located> {
    let algorithm = match &s.algorithm {
        None => Algorithm::Pbs,
        Some(a) => a.get_ref().parse().map_err(|m: String| (a.span(), m))?,
    };
    let column = match &s.column {
        None => "factor".to_string(),
        Some(c) if COLUMNS.contains(&c.get_ref().as_str()) => c.get_ref().clone(),
        Some(c) => {
            return Err((
                c.span(),
                format!(
                    "unknown column `{}` (expected one of: {})",
                    c.get_ref(),
                    COLUMNS.join(", ")
                ),
            ))
        }
    };
    let expect = match &s.expect {
        None => None,
        Some(x) => Some(value_map(x.get_ref()).map_err(|m| (x.span(), m))?),
    };
    Ok(ShareCase {
        tree: cx.tree(&s.tree)?,
        algorithm,
        column,
        dampening: s.dampening,
        flux_compat: s.flux_compat,
        expect,
    })
}

/// A node by `user`, `account/user` or account name.
fn find(tree: &Tree, name: &str) -> Result<Option<NodeId>, String> {
    if let Some((a, u)) = name.split_once('/') {
        return Ok(tree.find_user(Some(a), u));
    }
    match tree.users_named(name) {
        [one] => Ok(Some(*one)),
        [] => Ok(tree.find_account(name)),
        _ => Err(format!(
            "`{name}` has several associations in the tree: write `account/{name}`"
        )),
    }
}

fn column(result: &ShareResult, id: NodeId, column: &str) -> Option<f64> {
    let r = result.row(id);
    match column {
        "factor" => result.factor(id),
        "fairshare" => r.fairshare,
        "fairshare_perc" => r.fairshare_perc,
        "fairshare_tree_usage" => r.fairshare_tree_usage,
        "fairshare_factor" => r.fairshare_factor,
        "norm_shares" => r.norm_shares,
        "norm_usage" => r.norm_usage,
        "effective_usage" => r.effective_usage,
        "level_fs" => r.level_fs,
        "tickets" => r.tickets,
        "weight" => r.weight,
        _ => None,
    }
}

/// A `[[share]]` case.
pub(crate) fn run(case: &Case, s: &ShareCase) -> Result<Ran, String> {
    let scenario = share_scenario(&s.tree, s.algorithm)?;
    let tree = scenario.setup.tree.as_ref().ok_or("no tree")?;
    let mut options = Options {
        flux_compat: s.flux_compat,
        ..scenario.setup.options.clone()
    };
    if let Some(d) = s.dampening {
        options.dampening = d;
    }
    let result =
        fairshare::compute(tree, scenario.algorithm, &options).map_err(|e| e.to_string())?;
    let mut actual = toml::Table::new();
    for id in tree.users() {
        let name = &tree.node(id).name;
        let key = if tree.users_named(name).len() == 1 {
            name.clone()
        } else {
            tree.label(id)
        };
        if let Some(v) = column(&result, id, &s.column) {
            actual.insert(key, Value::Float(v));
        }
    }
    let verdict = match &s.expect {
        None => None,
        Some(expect) => {
            let mut entries = Vec::new();
            for (name, want) in expect {
                let got = find(tree, name)?.and_then(|id| column(&result, id, &s.column));
                if !got.is_some_and(|v| case.tolerance.accepts(*want, v)) {
                    entries.push(ValueDiff {
                        name: name.clone(),
                        expected: *want,
                        actual: got,
                    });
                }
            }
            Some(if entries.is_empty() {
                Ok(())
            } else {
                Err(Problem::Values {
                    entries,
                    tolerance: case.tolerance,
                })
            })
        }
    };
    Ok((Some(Value::Table(actual)), verdict))
}

#[cfg(test)]
mod tests {
    use super::super::case::{TreeDef, TreeOrigin};
    use super::super::setup::load_tree;
    use super::*;

    fn tree(text: &str, usage: &[(&str, f64)]) -> TreeDef {
        TreeDef {
            origin: TreeOrigin::Inline(text.into()),
            unknown_shares: None,
            usage: usage.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    const TWO_BANKS: &str = "accounts = [{ name = \"x\", shares = 1, users = [{ name = \"u\", shares = 1 }] }, { name = \"y\", shares = 1, users = [{ name = \"u\", shares = 1 }] }]\n";

    #[test]
    fn usage_overrides_and_name_lookup() {
        let t = load_tree(&tree(TWO_BANKS, &[("y/u", 5.0)])).unwrap();
        let y = find(&t, "y/u").unwrap().unwrap();
        assert_eq!(t.node(y).raw_usage, 5.0);
        assert!(find(&t, "u").unwrap_err().contains("account/u"));
        assert_eq!(find(&t, "x").unwrap(), t.find_account("x"));
        assert_eq!(find(&t, "nobody").unwrap(), None);
        let e = load_tree(&tree(TWO_BANKS, &[("z/u", 1.0)])).unwrap_err();
        assert_eq!(e, "usage: no user `z/u` in the tree");
    }
}
