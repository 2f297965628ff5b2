//! What every case kind reads the same way: complaints located at `file:line:col`, formula
//! references (`@name`, `@current`), tolerances, case names, numbers and job ids, and the
//! cluster inputs (`[trees]`, `[jobsets]`, queue settings) the queue and share cases name.
//! `file` fills a [`Cx`] from the file's sections; each kind's module parses its own cases
//! with it.

use crate::ftest::case::{
    Case, CaseBody, CaseKind, FormulaRef, QueueSetup, Tolerance, TreeDef, TreeOrigin,
};
use crate::ftest::error::TestFileError;
use crate::pbs::defs::FairshareEntity;
use crate::snippet::line_col;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use toml::{Spanned, Value};

/// The `QueueSetup` of a raw `[[order]]` or `[[compare]]` case (`Cx::queue_setup` of its
/// `jobs`, `tree`, `entity`, `fair_share`, `threshold`, `queue_priority` and `pbs_compat`,
/// which both kinds spell alike), as a content error.
macro_rules! queue_setup {
    ($cx:expr, $raw:expr) => {{
        let (cx, o) = ($cx, $raw);
        cx.queue_setup(
            &o.jobs,
            &o.tree,
            &o.entity,
            o.fair_share,
            o.threshold,
            &o.queue_priority,
            o.pbs_compat,
        )
        .map_err(|l| cx.located(l))
    }};
}
pub(crate) use queue_setup;

/// The name that always means the current formula (`--formula`, else the server's).
pub const CURRENT: &str = "current";

/// A complaint about a part of the file: its byte span and the message.
pub(crate) type Located = (Range<usize>, String);

/// What a case is parsed against: the file's text (for locations), its named formulas, trees
/// and job sets, and its default tolerance.
pub(crate) struct Cx<'a> {
    /// The path as given (messages only).
    pub path: &'a str,
    /// The file's text.
    pub text: &'a str,
    /// `[formulas]`.
    pub formulas: BTreeMap<String, String>,
    /// `[tolerance]` over the default.
    pub tolerance: Tolerance,
    /// `[trees]`.
    pub trees: BTreeMap<String, TreeDef>,
    /// `[jobsets]`, as fairsort JSON job lists.
    pub jobsets: BTreeMap<String, Vec<u8>>,
    /// Where relative tree files are found (the file's directory).
    pub dir: &'a Path,
}

impl Cx<'_> {
    /// A content error at `span`.
    pub fn at(&self, span: Range<usize>, message: impl Into<String>) -> TestFileError {
        TestFileError::at(self.path, self.text, Some(span), message)
    }

    /// A located complaint as a content error.
    pub fn located(&self, (span, message): Located) -> TestFileError {
        self.at(span, message)
    }

    /// The 1-based line of byte `offset`.
    pub fn line(&self, offset: usize) -> usize {
        line_col(self.text, offset).line
    }

    /// A case's `formula`: absent or `@current` is the current formula, `@name` a
    /// `[formulas]` entry, anything else the formula itself.
    pub fn resolve(&self, f: &Option<Spanned<String>>) -> Result<FormulaRef, TestFileError> {
        let Some(f) = f else {
            return Ok(FormulaRef::Current);
        };
        let s = f.get_ref();
        match s.trim().strip_prefix('@') {
            Some(CURRENT) => Ok(FormulaRef::Current),
            Some(name) => match self.formulas.get(name) {
                Some(text) => Ok(FormulaRef::Text {
                    text: text.clone(),
                    label: format!("@{name}"),
                }),
                None => Err(self.at(
                    f.span(),
                    format!(
                        "no formula `{name}` in [formulas] (known: {})",
                        known(self.formulas.keys().map(String::as_str).chain([CURRENT]))
                    ),
                )),
            },
            None => Ok(FormulaRef::Text {
                text: s.clone(),
                label: s.clone(),
            }),
        }
    }

    /// A case's `expect` read with its kind's `parse` (absent: `None`), as a content error at
    /// the `expect` value.
    pub fn expect<E>(
        &self,
        expect: &Option<Spanned<Value>>,
        parse: impl FnOnce(&Value) -> Result<E, String>,
    ) -> Result<Option<E>, TestFileError> {
        match expect {
            None => Ok(None),
            Some(x) => parse(x.get_ref())
                .map(Some)
                .map_err(|m| self.at(x.span(), m)),
        }
    }

    /// A case's tolerance: its `abs`/`rel`, else the file's.
    pub fn tolerance(
        &self,
        abs: Option<f64>,
        rel: Option<f64>,
        span: Range<usize>,
    ) -> Result<Tolerance, TestFileError> {
        let t = Tolerance {
            abs: abs.unwrap_or(self.tolerance.abs),
            rel: rel.unwrap_or(self.tolerance.rel),
        };
        if !(t.abs >= 0.0 && t.rel >= 0.0) {
            return Err(self.at(span, "tolerances `abs` and `rel` must be numbers >= 0"));
        }
        Ok(t)
    }

    /// The case at `span`, named `name` or `<kind> case at line N`, paired with where it starts
    /// (cases are sorted into file order).
    pub fn case(
        &self,
        span: &Range<usize>,
        name: &Option<String>,
        kind: CaseKind,
        index: usize,
        tolerance: Tolerance,
        body: CaseBody,
    ) -> (usize, Case) {
        let line = self.line(span.start);
        let name = match name {
            Some(n) if !n.trim().is_empty() => n.clone(),
            _ => format!("{} case at line {line}", kind.key()),
        };
        (
            span.start,
            Case {
                name,
                kind,
                index,
                line,
                tolerance,
                body,
            },
        )
    }

    /// A case's `tree`: `"@name"` of `[trees]`, or a tree written in place.
    pub fn tree(&self, v: &Spanned<Value>) -> Result<TreeDef, Located> {
        named_or(v, "tree in [trees]", &self.trees, |v| tree_def(v, self.dir))
    }

    /// The queue and settings of an `[[order]]` or `[[compare]]` case.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn queue_setup(
        &self,
        jobs: &Spanned<Value>,
        tree: &Option<Spanned<Value>>,
        entity: &Option<Spanned<String>>,
        fair_share: bool,
        threshold: Option<f64>,
        queues: &BTreeMap<String, i64>,
        pbs_compat: bool,
    ) -> Result<QueueSetup, Located> {
        let jobs_json = named_or(jobs, "job set in [jobsets]", &self.jobsets, jobs_json)?;
        let tree = tree.as_ref().map(|t| self.tree(t)).transpose()?;
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
}

fn known<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("@{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A TOML number (integer or float) as f64.
pub(crate) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// A table of `name = number` (an `expect` of values).
pub(crate) fn value_map(v: &Value) -> Result<BTreeMap<String, f64>, String> {
    const SHAPE: &str = "`expect` must be a table of name = number";
    let Value::Table(t) = v else {
        return Err(SHAPE.into());
    };
    t.iter()
        .map(|(k, x)| {
            number(x)
                .map(|n| (k.clone(), n))
                .ok_or_else(|| format!("value of `{k}` must be a number"))
        })
        .collect()
}

/// An array of job ids (strings or integers) under `key`.
pub(crate) fn ids(v: &Value, key: &str) -> Result<Vec<String>, String> {
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
            let n = number(&x)
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
                f.parse::<crate::inputs::TreeFormat>()
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
    crate::native::tree::read_toml(&text).map_err(|e| bad(format!("inline tree: {e}")))?;
    Ok(TreeDef {
        origin: TreeOrigin::Inline(text),
        unknown_shares: None,
        usage,
    })
}

/// A `[jobsets]` entry or an inline `jobs = [...]`: fairsort's JSON job list, as TOML.
pub(crate) fn jobs_json(v: &Spanned<Value>) -> Result<Vec<u8>, Located> {
    let json = crate::ftest::outcome::to_json(v.get_ref());
    let bytes = serde_json::to_vec(&json).map_err(|e| (v.span(), e.to_string()))?;
    crate::native::read_job_list_json(&bytes)
        .map_err(|e| (v.span(), format!("jobs: {}", e.without_place())))?;
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
