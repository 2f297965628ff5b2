//! Reading the queue-side parts of a test file: `[trees]`, `[jobsets]`, `[[order]]`,
//! `[[compare]]` and `[[share]]`, each complaint located at `file:line:col`. Job lists go
//! through `queue::read_job_list_json` and inline trees through `formats::native::read_toml`,
//! the readers `fairsort order` and `fairsort share` use.

use super::queue_case::{CompareExpect, OrderExpect, QueueSetup, ShareCase, TreeDef, TreeOrigin};
use crate::fairshare::Algorithm;
use crate::pbs::FairshareEntity;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::{Spanned, Value};

/// A complaint and the byte span it is about.
pub(crate) type Located = (std::ops::Range<usize>, String);

/// The queue fields shared by `[[order]]` and `[[compare]]`.
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

/// Named trees and job lists of a file, and where relative tree files are found.
pub(crate) struct Named<'a> {
    pub trees: BTreeMap<String, TreeDef>,
    pub jobsets: BTreeMap<String, Vec<u8>>,
    pub dir: &'a Path,
}

/// A `[trees.NAME]` entry or an inline `tree = { ... }`: `file` (+ `format`) or a native tree.
pub(crate) fn tree_def(v: &Spanned<Value>, dir: &Path) -> Result<TreeDef, Located> {
    let span = v.span();
    let bad = |m: String| (span.clone(), m);
    let Value::Table(t) = v.get_ref() else {
        return Err(bad(
            "a tree must be a table: `{ file = \"PATH\", format = \"...\" }` or a fairsort TOML tree".into(),
        ));
    };
    let mut t = t.clone();
    let mut usage = BTreeMap::new();
    if let Some(u) = t.remove("usage") {
        let Value::Table(u) = u else {
            return Err(bad("`usage` must be a table of user = number".into()));
        };
        for (k, x) in u {
            let n = super::file::number(&x)
                .filter(|n| n.is_finite() && *n >= 0.0)
                .ok_or_else(|| bad(format!("usage of `{k}` must be a number >= 0")))?;
            usage.insert(k, n);
        }
    }
    let unknown_shares = match t.get("unknown_shares") {
        None => None,
        Some(Value::Integer(n)) if *n >= 0 => Some(*n as u64),
        Some(_) => return Err(bad("`unknown_shares` must be an integer >= 0".into())),
    };
    if let Some(file) = t.remove("file") {
        t.remove("unknown_shares");
        let file = match file {
            Value::String(f) if !f.trim().is_empty() => f,
            _ => return Err(bad("`file` must be a path to a tree file".into())),
        };
        let format = match t.remove("format") {
            None => None,
            Some(Value::String(f)) => Some(
                f.parse::<crate::formats::TreeFormat>()
                    .map_err(|_| bad(format!("unknown tree format `{f}`")))?,
            ),
            Some(_) => return Err(bad("`format` must be a string".into())),
        };
        if let Some(k) = t.keys().next() {
            return Err(bad(format!(
                "unknown key `{k}` in a tree file entry (expected file, format, unknown_shares, usage)"
            )));
        }
        return Ok(TreeDef {
            origin: TreeOrigin::File {
                path: dir.join(file),
                format,
            },
            unknown_shares,
            usage,
        });
    }
    let text = toml::to_string(&t).map_err(|e| bad(format!("tree: {e}")))?;
    crate::formats::native::read_toml(&text).map_err(|e| bad(format!("inline tree: {e}")))?;
    Ok(TreeDef {
        origin: TreeOrigin::Inline(text),
        unknown_shares: None,
        usage,
    })
}

/// A `[jobsets]` entry or an inline `jobs = [...]`: fairsort's JSON job list, as TOML.
pub(crate) fn jobs_json(v: &Spanned<Value>) -> Result<Vec<u8>, Located> {
    let json = super::outcome::to_json(v.get_ref());
    let bytes = serde_json::to_vec(&json).map_err(|e| (v.span(), e.to_string()))?;
    crate::queue::read_job_list_json(&bytes).map_err(|e| (v.span(), format!("jobs: {e}")))?;
    Ok(bytes)
}

/// Resolves `"@name"` in `names`, or reads the value itself with `inline`.
fn named_or<T: Clone>(
    v: &Spanned<Value>,
    what: &str,
    names: &BTreeMap<String, T>,
    inline: impl FnOnce(&Spanned<Value>) -> Result<T, Located>,
) -> Result<T, Located> {
    match v.get_ref() {
        Value::String(s) => {
            let name = s.strip_prefix('@').unwrap_or(s);
            names.get(name).cloned().ok_or_else(|| {
                let known: Vec<String> = names.keys().map(|k| format!("@{k}")).collect();
                let known = if known.is_empty() {
                    "none defined".to_string()
                } else {
                    format!("known: {}", known.join(", "))
                };
                (v.span(), format!("no {what} `{name}` ({known})"))
            })
        }
        _ => inline(v),
    }
}

/// The queue setup of an `[[order]]` or `[[compare]]` case.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_setup(
    named: &Named,
    jobs: &Spanned<Value>,
    tree: &Option<Spanned<Value>>,
    entity: &Option<Spanned<String>>,
    fair_share: bool,
    threshold: Option<f64>,
    queues: &BTreeMap<String, i64>,
    pbs_compat: bool,
) -> Result<QueueSetup, Located> {
    let jobs_json = named_or(jobs, "job set in [jobsets]", &named.jobsets, jobs_json)?;
    let tree = match tree {
        None => None,
        Some(t) => Some(named_or(t, "tree in [trees]", &named.trees, |v| {
            tree_def(v, named.dir)
        })?),
    };
    let entity = match entity {
        None => FairshareEntity::default(),
        Some(e) => e.get_ref().parse().map_err(|m: String| (e.span(), m))?,
    };
    if threshold.is_some_and(|t| !t.is_finite()) {
        return Err((jobs.span(), "`threshold` must be a finite number".into()));
    }
    Ok(QueueSetup {
        jobs_json,
        tree,
        entity,
        fair_share,
        threshold,
        queues: queues.clone(),
        pbs_compat,
    })
}

/// The tree of a `[[share]]` case.
pub(crate) fn share_tree(named: &Named, v: &Spanned<Value>) -> Result<TreeDef, Located> {
    named_or(v, "tree in [trees]", &named.trees, |v| {
        tree_def(v, named.dir)
    })
}

/// The rest of a `[[share]]` case.
pub(crate) fn share_case(named: &Named, s: &RawShare) -> Result<ShareCase, Located> {
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
        tree: share_tree(named, &s.tree)?,
        algorithm,
        column,
        dampening: s.dampening,
        flux_compat: s.flux_compat,
        expect,
    })
}

fn value_map(v: &Value) -> Result<BTreeMap<String, f64>, String> {
    const SHAPE: &str = "`expect` must be a table of name = number";
    let Value::Table(t) = v else {
        return Err(SHAPE.into());
    };
    t.iter()
        .map(|(k, x)| {
            super::file::number(x)
                .map(|n| (k.clone(), n))
                .ok_or_else(|| format!("value of `{k}` must be a number"))
        })
        .collect()
}

fn ids(v: &Value, key: &str) -> Result<Vec<String>, String> {
    let msg = || format!("`{key}` must be an array of job ids");
    let Value::Array(a) = v else {
        return Err(msg());
    };
    a.iter()
        .map(|x| match x {
            Value::String(s) => Ok(s.clone()),
            Value::Integer(i) => Ok(i.to_string()),
            _ => Err(msg()),
        })
        .collect()
}

/// An `[[order]]` case's `expect`: an array (the whole order) or a table of
/// `order`, `top`, `before`, `eligible`, `values`.
pub(crate) fn order_expect(v: &Value) -> Result<OrderExpect, String> {
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

/// A `[[compare]]` case's `expect`: a table of `changed`, `up`, `down`, `order`.
pub(crate) fn compare_expect(v: &Value) -> Result<CompareExpect, String> {
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

#[cfg(test)]
mod tests {
    use super::super::case::CaseBody;
    use super::super::file::parse;
    use super::*;

    const HEAD: &str = "[trees.t]\nusers = [{ name = \"a\", shares = 1 }]\n[jobsets]\nq = [{ id = \"1\", user = \"a\" }]\n";

    #[test]
    fn order_compare_and_share_cases_parse() {
        let text = format!("{HEAD}[[order]]\njobs = \"@q\"\ntree = \"@t\"\nthreshold = 2\nexpect = {{ top = [\"1\"], before = [[\"1\", \"2\"]], values = {{ \"1\" = 3 }} }}\n[[compare]]\nagainst = \"-ncpus\"\njobs = [{{ id = 7, user = \"b\" }}]\nexpect = {{ changed = [], up = [\"7\"] }}\n[[share]]\ntree = {{ file = \"x.rg\", format = \"pbs\", usage = {{ a = 3 }} }}\nalgorithm = \"fair-tree\"\ncolumn = \"level_fs\"\nexpect = {{ a = 1 }}\n");
        let f = parse("dir/t.toml", &text).unwrap();
        assert_eq!(f.cases.len(), 3);
        let CaseBody::Order(o) = &f.cases[0].body else {
            panic!("{:?}", f.cases[0]);
        };
        assert_eq!(o.setup.threshold, Some(2.0));
        assert!(o.setup.tree.is_some());
        let e = o.expect.as_ref().unwrap();
        assert_eq!(e.top, Some(vec!["1".to_string()]));
        assert_eq!(e.before, vec![("1".to_string(), "2".to_string())]);
        assert_eq!(e.values["1"], 3.0);
        let CaseBody::Compare(c) = &f.cases[1].body else {
            panic!("{:?}", f.cases[1]);
        };
        assert_eq!(c.against.label(), "-ncpus");
        assert_eq!(c.expect.as_ref().unwrap().up, vec!["7".to_string()]);
        let CaseBody::Share(s) = &f.cases[2].body else {
            panic!("{:?}", f.cases[2]);
        };
        assert_eq!(s.algorithm, Algorithm::FairTree);
        assert_eq!(s.column, "level_fs");
        assert_eq!(s.tree.usage["a"], 3.0);
        assert_eq!(
            s.tree.origin,
            TreeOrigin::File {
                path: Path::new("dir").join("x.rg"),
                format: Some(crate::formats::TreeFormat::Pbs)
            }
        );
    }

    #[test]
    fn queue_errors_are_located() {
        let cases = [
            (
                "[[order]]\njobs = \"@q\"\n",
                "2:8: no job set in [jobsets] `q`",
            ),
            ("[[order]]\njobs = [{ user = \"a\" }]\n", "2:8: jobs:"),
            (
                "[[order]]\njobs = []\nexpect = { before = [[\"a\"]] }\n",
                "3:10: each `before` entry is a pair",
            ),
            (
                "[[order]]\njobs = []\nexpect = { first = [] }\n",
                "3:10: unknown key `first`",
            ),
            (
                "[[share]]\ntree = { users = [{ name = \"a\" }] }\ncolumn = \"fs\"\n",
                "3:10: unknown column `fs`",
            ),
            (
                "[[share]]\ntree = { users = [{ name = \"a\" }] }\nalgorithm = \"fairtree\"\n",
                "3:13: unknown fair-share algorithm",
            ),
            (
                "[[share]]\ntree = { users = [{ nam = \"a\" }] }\n",
                "2:8: inline tree:",
            ),
            (
                "[[share]]\ntree = { file = \"x\", format = \"yaml\" }\n",
                "2:8: unknown tree format `yaml`",
            ),
            ("[[compare]]\njobs = []\n", "missing field `against`"),
        ];
        for (text, want) in cases {
            let e = parse("t.toml", text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}\n-> {e}");
        }
    }
}
