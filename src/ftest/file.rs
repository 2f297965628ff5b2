//! Reading a test file: TOML → the case model, with every complaint located at
//! `file:line:col` (toml's spans). The format is documented in `docs/ftest.md`.

use super::case::{
    Case, CaseBody, CaseKind, EvalCase, EvalExpect, FormulaRef, ResourceDecl, TestFile, Tolerance,
};
use super::error::TestFileError;
use super::file_queue::{
    compare_expect, jobs_json, order_expect, queue_setup, share_case, tree_def, Named, RawCompare,
    RawOrder, RawShare,
};
use super::location::line_col;
use super::queue_case::{CompareCase, OrderCase};
use crate::pbs::codes::FORMULA_CODES;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::{Spanned, Value};

/// The name that always means the current formula (`--formula`, else the server's).
pub const CURRENT: &str = "current";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    formulas: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    resources: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    tolerance: Option<RawTolerance>,
    #[serde(default)]
    trees: BTreeMap<String, Spanned<Value>>,
    #[serde(default)]
    jobsets: BTreeMap<String, Spanned<Value>>,
    #[serde(default)]
    eval: Vec<Spanned<RawEval>>,
    #[serde(default)]
    order: Vec<Spanned<RawOrder>>,
    #[serde(default)]
    compare: Vec<Spanned<RawCompare>>,
    #[serde(default)]
    share: Vec<Spanned<RawShare>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTolerance {
    abs: Option<f64>,
    rel: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEval {
    name: Option<String>,
    formula: Option<Spanned<String>>,
    #[serde(default)]
    with: BTreeMap<String, Spanned<Value>>,
    expect: Option<Spanned<Value>>,
    abs: Option<f64>,
    rel: Option<f64>,
}

/// Reads and parses the test file at `path`.
pub fn load(path: &Path) -> Result<TestFile, TestFileError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| TestFileError::Io {
        path: shown.clone(),
        message: format!("cannot read test file: {e}"),
    })?;
    parse(&shown, &text)
}

/// Parses test-file `text`; `path` is only used in messages.
pub fn parse(path: &str, text: &str) -> Result<TestFile, TestFileError> {
    if let Some(line) = crate::formats::lines::first_overlong_line(text.as_bytes()) {
        return Err(TestFileError::Io {
            path: path.to_string(),
            message: format!("line {line}: {}", crate::formats::lines::too_long_message()),
        });
    }
    let raw: RawFile = toml::from_str(text)
        .map_err(|e| TestFileError::at(path, text, e.span(), e.message().trim_end()))?;
    let at =
        |span: std::ops::Range<usize>, msg: String| TestFileError::at(path, text, Some(span), msg);

    let mut formulas = BTreeMap::new();
    for (name, f) in &raw.formulas {
        if name == CURRENT {
            return Err(at(
                f.span(),
                format!("`{CURRENT}` is reserved for the current formula (--formula or the server's); choose another name"),
            ));
        }
        formulas.insert(name.clone(), f.get_ref().clone());
    }
    let resolve = |f: &Option<Spanned<String>>| -> Result<FormulaRef, TestFileError> {
        let Some(f) = f else {
            return Ok(FormulaRef::Current);
        };
        let s = f.get_ref();
        match s.trim().strip_prefix('@') {
            Some(CURRENT) => Ok(FormulaRef::Current),
            Some(name) => match formulas.get(name) {
                Some(text) => Ok(FormulaRef::Text {
                    text: text.clone(),
                    label: format!("@{name}"),
                }),
                None => Err(at(
                    f.span(),
                    format!(
                        "no formula `{name}` in [formulas] (known: {})",
                        known(formulas.keys().map(String::as_str).chain([CURRENT]))
                    ),
                )),
            },
            None => Ok(FormulaRef::Text {
                text: s.clone(),
                label: s.clone(),
            }),
        }
    };

    let mut file_tol = Tolerance::default();
    if let Some(t) = &raw.tolerance {
        file_tol.abs = t.abs.unwrap_or(file_tol.abs);
        file_tol.rel = t.rel.unwrap_or(file_tol.rel);
    }
    let tolerance = |abs: Option<f64>, rel: Option<f64>, span: std::ops::Range<usize>| {
        let t = Tolerance {
            abs: abs.unwrap_or(file_tol.abs),
            rel: rel.unwrap_or(file_tol.rel),
        };
        if !(t.abs >= 0.0 && t.rel >= 0.0) {
            return Err(at(
                span,
                "tolerances `abs` and `rel` must be numbers >= 0".into(),
            ));
        }
        Ok(t)
    };

    let mut cases: Vec<(usize, Case)> = Vec::new();
    for (index, c) in raw.eval.iter().enumerate() {
        let span = c.span();
        let e = c.get_ref();
        let line = line_col(text, span.start).line;
        let mut with = BTreeMap::new();
        for (k, v) in &e.with {
            let n = number(v.get_ref()).ok_or_else(|| {
                at(
                    v.span(),
                    format!("value of `{k}` must be a number (PBS units: KB, seconds)"),
                )
            })?;
            with.insert(k.clone(), n);
        }
        let expect = match &e.expect {
            None => None,
            Some(x) => Some(eval_expect(x.get_ref()).map_err(|m| at(x.span(), m))?),
        };
        cases.push((
            span.start,
            Case {
                name: name_or(&e.name, CaseKind::Eval, line),
                kind: CaseKind::Eval,
                index,
                line,
                tolerance: tolerance(e.abs, e.rel, span.clone())?,
                body: CaseBody::Eval(EvalCase {
                    formula: resolve(&e.formula)?,
                    with,
                    expect,
                }),
            },
        ));
    }
    let dir = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut named = Named {
        trees: BTreeMap::new(),
        jobsets: BTreeMap::new(),
        dir,
    };
    let located = |(span, msg): (std::ops::Range<usize>, String)| at(span, msg);
    for (name, t) in &raw.trees {
        named
            .trees
            .insert(name.clone(), tree_def(t, dir).map_err(located)?);
    }
    for (name, j) in &raw.jobsets {
        named
            .jobsets
            .insert(name.clone(), jobs_json(j).map_err(located)?);
    }
    for (index, c) in raw.order.iter().enumerate() {
        let span = c.span();
        let o = c.get_ref();
        let line = line_col(text, span.start).line;
        let setup = queue_setup(
            &named,
            &o.jobs,
            &o.tree,
            &o.entity,
            o.fair_share,
            o.threshold,
            &o.queue_priority,
            o.pbs_compat,
        )
        .map_err(located)?;
        let expect = match &o.expect {
            None => None,
            Some(x) => Some(order_expect(x.get_ref()).map_err(|m| at(x.span(), m))?),
        };
        cases.push((
            span.start,
            Case {
                name: name_or(&o.name, CaseKind::Order, line),
                kind: CaseKind::Order,
                index,
                line,
                tolerance: tolerance(o.abs, o.rel, span.clone())?,
                body: CaseBody::Order(OrderCase {
                    formula: resolve(&o.formula)?,
                    setup,
                    expect,
                }),
            },
        ));
    }
    for (index, c) in raw.compare.iter().enumerate() {
        let span = c.span();
        let o = c.get_ref();
        let line = line_col(text, span.start).line;
        let setup = queue_setup(
            &named,
            &o.jobs,
            &o.tree,
            &o.entity,
            o.fair_share,
            o.threshold,
            &o.queue_priority,
            o.pbs_compat,
        )
        .map_err(located)?;
        let expect = match &o.expect {
            None => None,
            Some(x) => Some(compare_expect(x.get_ref()).map_err(|m| at(x.span(), m))?),
        };
        cases.push((
            span.start,
            Case {
                name: name_or(&o.name, CaseKind::Compare, line),
                kind: CaseKind::Compare,
                index,
                line,
                tolerance: tolerance(None, None, span.clone())?,
                body: CaseBody::Compare(CompareCase {
                    formula: resolve(&o.formula)?,
                    against: resolve(&Some(o.against.clone()))?,
                    setup,
                    expect,
                }),
            },
        ));
    }
    for (index, c) in raw.share.iter().enumerate() {
        let span = c.span();
        let s = c.get_ref();
        let line = line_col(text, span.start).line;
        cases.push((
            span.start,
            Case {
                name: name_or(&s.name, CaseKind::Share, line),
                kind: CaseKind::Share,
                index,
                line,
                tolerance: tolerance(s.abs, s.rel, span.clone())?,
                body: CaseBody::Share(share_case(&named, s).map_err(located)?),
            },
        ));
    }
    cases.sort_by_key(|(start, _)| *start);
    let resources = raw
        .resources
        .iter()
        .map(|(name, ty)| {
            let lc = line_col(text, ty.span().start);
            ResourceDecl {
                name: name.clone(),
                ty: ty.get_ref().clone(),
                line: lc.line,
                col: lc.col,
            }
        })
        .collect();
    Ok(TestFile {
        path: path.to_string(),
        resources,
        cases: cases.into_iter().map(|(_, c)| c).collect(),
    })
}

fn name_or(name: &Option<String>, kind: CaseKind, line: usize) -> String {
    match name {
        Some(n) if !n.trim().is_empty() => n.clone(),
        _ => format!("{} case at line {line}", kind.key()),
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

fn eval_expect(v: &Value) -> Result<EvalExpect, String> {
    const SHAPES: &str = "`expect` must be a number, `{ error = true }`, `{ error = \"message\" }` or `{ code = 15123|15124|15125 }`";
    if let Some(n) = number(v) {
        return Ok(EvalExpect::Value(n));
    }
    let Value::Table(t) = v else {
        return Err(SHAPES.into());
    };
    let mut keys = t.keys();
    let (Some(key), None) = (keys.next(), keys.next()) else {
        return Err(SHAPES.into());
    };
    match (key.as_str(), &t[key]) {
        ("error", Value::Boolean(true)) => Ok(EvalExpect::Error(None)),
        ("error", Value::String(s)) => Ok(EvalExpect::Error(Some(s.clone()))),
        ("code", Value::Integer(c)) if FORMULA_CODES.iter().any(|k| i64::from(k.number) == *c) => {
            Ok(EvalExpect::Code(*c as u32))
        }
        ("code", _) => Err("`code` must be one of PBS's formula codes 15123, 15124, 15125".into()),
        _ => Err(SHAPES.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only_eval(f: &TestFile, i: usize) -> &EvalCase {
        match &f.cases[i].body {
            CaseBody::Eval(e) => e,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parses_eval_cases_in_file_order() {
        let text = r#"
[formulas]
proposed = "fairshare_factor + walltime/ncpus"

[tolerance]
abs = 1e-4

[[eval]]
name = "first"
formula = "ncpus * 2"
with = { ncpus = 4 }
expect = 8

[[eval]]
formula = "@proposed"
with = { fairshare_factor = 0.5, walltime = 60, ncpus = 2 }
expect = { error = "float division by zero" }
rel = 0.5

[[eval]]
expect = { code = 15124 }
"#;
        let f = parse("t.toml", text).unwrap();
        assert_eq!(f.cases.len(), 3);
        assert_eq!(f.cases[0].name, "first");
        assert_eq!(f.cases[0].line, 8);
        assert_eq!(f.cases[1].name, "eval case at line 14");
        assert_eq!(f.cases[1].index, 1);
        assert_eq!(f.cases[0].tolerance.abs, 1e-4);
        assert_eq!(f.cases[1].tolerance.rel, 0.5);
        assert_eq!(only_eval(&f, 0).expect, Some(EvalExpect::Value(8.0)));
        assert_eq!(only_eval(&f, 0).with["ncpus"], 4.0);
        assert_eq!(
            only_eval(&f, 1).formula,
            FormulaRef::Text {
                text: "fairshare_factor + walltime/ncpus".into(),
                label: "@proposed".into()
            }
        );
        assert_eq!(
            only_eval(&f, 1).expect,
            Some(EvalExpect::Error(Some("float division by zero".into())))
        );
        assert_eq!(only_eval(&f, 2).formula, FormulaRef::Current);
        assert_eq!(only_eval(&f, 2).expect, Some(EvalExpect::Code(15124)));
    }

    #[test]
    fn unknown_key_is_located() {
        let text = "[[eval]]\nformula = \"1\"\nexpct = 1\n";
        let e = parse("t.toml", text).unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("t.toml:"), "{s}");
        assert!(s.contains("expct"), "{s}");
        match e {
            TestFileError::Content { line, .. } => assert!((1..=3).contains(&line), "{line}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn toml_syntax_error_is_located() {
        let e = parse("t.toml", "[[eval]]\nformula = \"1\nexpect = 1\n").unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("t.toml:2:"), "{s}");
    }

    #[test]
    fn bad_expect_and_binding_point_at_the_value() {
        let e = parse("t.toml", "[[eval]]\nformula = \"1\"\nexpect = \"one\"\n").unwrap_err();
        assert!(
            e.to_string().starts_with("t.toml:3:10: `expect` must be"),
            "{e}"
        );
        let e = parse(
            "t.toml",
            "[[eval]]\nformula = \"1\"\nwith = { ncpus = \"4\" }\n",
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("t.toml:3:18: value of `ncpus`"),
            "{e}"
        );
        let e = parse("t.toml", "[[eval]]\nexpect = { code = 15000 }\n").unwrap_err();
        assert!(e.to_string().contains("15123"), "{e}");
    }

    #[test]
    fn unknown_named_formula_and_reserved_name() {
        let e = parse("t.toml", "[[eval]]\nformula = \"@nope\"\n").unwrap_err();
        assert!(
            e.to_string().starts_with("t.toml:2:11: no formula `nope`"),
            "{e}"
        );
        let e = parse("t.toml", "[formulas]\ncurrent = \"1\"\n").unwrap_err();
        assert!(e.to_string().contains("reserved"), "{e}");
    }

    #[test]
    fn garbage_never_panics() {
        for t in [
            "",
            "\u{0}",
            "[[eval]]\n[[eval]]\n",
            "eval = 3",
            "eval = [1]",
            "[[eval]]\nwith = 1",
            "[[order]]\n",
            "[[order]]\njobs = 1\nexpect = 2",
            "[[order]]\njobs = [1, \"x\"]",
            "[[order]]\njobs = []\nthreshold = nan\nexpect = { before = [[1, 2, 3]] }",
            "[[share]]\ntree = 1",
            "[[share]]\ntree = { file = 3 }",
            "[[share]]\ntree = { usage = 3 }",
            "[[share]]\ntree = { usage = { a = -1 } }",
            "[trees.x]\nfile = \"\"\n[[share]]\ntree = \"x\"",
            "[[compare]]\nagainst = \"1\"\njobs = [{ id = \"\", user = \"\" }]",
            "[jobsets]\nq = { id = 1 }",
        ] {
            let _ = parse("t.toml", t);
        }
    }
}
