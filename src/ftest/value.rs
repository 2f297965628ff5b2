//! `[[eval]]` cases: a formula evaluated with given keyword values, expected to give a value
//! (within tolerance), an evaluation error (PBS then uses 0), or a validation error with PBS's
//! code (15123, 15124, 15125) — parsed and run here.

use crate::formula::{compile, Program, ResourceTable};
use crate::ftest::case::{Case, CaseBody, CaseKind, Context, EvalCase, EvalExpect};
use crate::ftest::error::TestFileError;
use crate::ftest::outcome::{num, Problem, Ran};
use crate::ftest::syntax::{number, Cx};
use crate::pbs::defs::codes::FORMULA_CODES;
use crate::pbs::defs::keywords;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::{Spanned, Value};

/// An `[[eval]]` case as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEval {
    name: Option<String>,
    formula: Option<Spanned<String>>,
    #[serde(default)]
    with: BTreeMap<String, Spanned<Value>>,
    expect: Option<Spanned<Value>>,
    abs: Option<f64>,
    rel: Option<f64>,
}

/// The `index`th `[[eval]]` case, with where it starts.
pub(crate) fn parse(
    cx: &Cx,
    index: usize,
    c: &Spanned<RawEval>,
) -> Result<(usize, Case), TestFileError> {
    let span = c.span();
    let e = c.get_ref();
    let mut with = BTreeMap::new();
    for (k, v) in &e.with {
        let n = match v.get_ref() {
            Value::String(s) => crate::pbs::defs::units::typed_value(s),
            other => number(other),
        }
        .ok_or_else(|| {
            cx.at(
                v.span(),
                format!(
                    "value of `{k}` must be a number or a PBS size or time (`4gb`, `01:00:00`)"
                ),
            )
        })?;
        with.insert(k.clone(), n);
    }
    let expect = cx.expect(&e.expect, parse_expect)?;
    let tolerance = cx.tolerance(e.abs, e.rel, span.clone())?;
    let formula = cx.resolve(&e.formula)?;
    let body = CaseBody::Eval(EvalCase {
        formula,
        with,
        expect,
    });
    Ok(cx.case(&span, &e.name, CaseKind::Eval, index, tolerance, body))
}

fn parse_expect(v: &Value) -> Result<EvalExpect, String> {
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

/// The actual result of a case: what it produced, in the shape an `expect` has.
#[derive(Debug, Clone, PartialEq)]
enum EvalActual {
    Value(f64),
    Error(String),
    Rejected { code: Option<u32>, message: String },
}

impl EvalActual {
    fn describe(&self) -> String {
        match self {
            EvalActual::Value(v) => num(*v),
            EvalActual::Error(m) => format!("evaluation error (PBS uses 0): {m}"),
            EvalActual::Rejected {
                code: Some(c),
                message,
            } => {
                format!("formula rejected ({c}): {message}")
            }
            EvalActual::Rejected {
                code: None,
                message,
            } => format!("formula rejected: {message}"),
        }
    }

    /// The `expect` that would accept this result (None: not expressible, e.g. a limit error).
    fn to_expect(&self) -> Option<toml::Value> {
        let one = |k: &str, v: toml::Value| {
            let mut t = toml::Table::new();
            t.insert(k.into(), v);
            toml::Value::Table(t)
        };
        match self {
            EvalActual::Value(v) => Some(toml::Value::Float(*v)),
            EvalActual::Error(m) => Some(one("error", toml::Value::String(m.clone()))),
            EvalActual::Rejected { code: Some(c), .. } => {
                Some(one("code", toml::Value::Integer(i64::from(*c))))
            }
            EvalActual::Rejected { code: None, .. } => None,
        }
    }
}

fn describe_expect(e: &EvalExpect) -> String {
    match e {
        EvalExpect::Value(v) => num(*v),
        EvalExpect::Error(None) => "an evaluation error".into(),
        EvalExpect::Error(Some(m)) => format!("evaluation error: {m}"),
        EvalExpect::Code(c) => format!("formula rejected ({c})"),
    }
}

/// Compiles `text`, or the `Rejected` actual.
fn compile_or_reject(text: &str, resources: &ResourceTable) -> Result<Program, EvalActual> {
    compile(text, resources).map_err(|e| EvalActual::Rejected {
        code: e.code(),
        message: e.to_string(),
    })
}

pub(crate) fn run(
    case: &Case,
    e: &EvalCase,
    ctx: &Context,
    resources: &ResourceTable,
) -> Result<Ran, String> {
    let text = e.formula.text(ctx)?;
    for name in e.with.keys() {
        if resources.get(name).is_none() && !keywords::is_keyword(name) {
            return Err(format!(
                "`with` binds `{name}`, which is neither a keyword nor a known resource (declare custom resources in [resources])"
            ));
        }
    }
    let actual = match compile_or_reject(text, resources) {
        Err(rejected) => rejected,
        Ok(program) => {
            let slots: Vec<f64> = program
                .keywords()
                .iter()
                .map(|k| e.with.get(k).copied().unwrap_or(0.0))
                .collect();
            let ev = program.eval(&slots);
            match ev.error {
                Some(m) => EvalActual::Error(m),
                None => EvalActual::Value(ev.value),
            }
        }
    };
    let verdict = e.expect.as_ref().map(|expect| {
        let ok = match (expect, &actual) {
            (EvalExpect::Value(x), EvalActual::Value(a)) => {
                if case.tolerance.accepts(*x, *a) {
                    return Ok(());
                }
                return Err(Problem::Value {
                    expected: *x,
                    actual: *a,
                    tolerance: case.tolerance,
                });
            }
            (EvalExpect::Error(None), EvalActual::Error(_)) => true,
            (EvalExpect::Error(Some(x)), EvalActual::Error(m)) => x == m,
            (EvalExpect::Code(x), EvalActual::Rejected { code: Some(c), .. }) => x == c,
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(Problem::Mismatch {
                expected: describe_expect(expect),
                actual: actual.describe(),
            })
        }
    });
    Ok((actual.to_expect(), verdict))
}

#[cfg(test)]
mod tests {
    use super::super::file::parse;
    use super::super::outcome::{FileResult, Status};
    use super::super::record::Recording;
    use super::super::runner::run_file;
    use super::*;

    fn run(text: &str, ctx: &Context, record: bool) -> (FileResult, Vec<Recording>) {
        let f = parse("t.toml", text).unwrap();
        run_file(&f, ctx, record)
    }

    fn statuses(r: &FileResult) -> Vec<Status> {
        r.cases.iter().map(|c| c.status).collect()
    }

    #[test]
    fn values_errors_and_codes_are_checked() {
        let text = r#"
[[eval]]
formula = "ncpus * 2"
with = { ncpus = 4 }
expect = 8
[[eval]]
formula = "ncpus * 2"
with = { ncpus = 4 }
expect = 8.5
abs = 0.1
[[eval]]
formula = "1/fairshare_perc"
expect = { error = "float division by zero" }
[[eval]]
formula = "1/fairshare_perc"
expect = { error = "division by zero" }
[[eval]]
formula = "fair_share_factor"
expect = { code = 15124 }
[[eval]]
formula = "fair_share_factor"
expect = 0
"#;
        let (r, rec) = run(text, &Context::with_formula("1"), false);
        assert!(rec.is_empty());
        use Status::{Failed, Ok};
        assert_eq!(statuses(&r), vec![Ok, Failed, Ok, Failed, Ok, Failed]);
        assert_eq!(
            r.cases[1].problem,
            Some(Problem::Value {
                expected: 8.5,
                actual: 8.0,
                tolerance: crate::ftest::Tolerance {
                    abs: 0.1,
                    rel: 1e-9
                }
            })
        );
        match &r.cases[3].problem {
            Some(Problem::Mismatch { expected, actual }) => {
                assert_eq!(expected, "evaluation error: division by zero");
                assert!(actual.contains("float division by zero"), "{actual}");
            }
            other => panic!("{other:?}"),
        }
        match &r.cases[5].problem {
            Some(Problem::Mismatch { actual, .. }) => assert!(actual.contains("15124"), "{actual}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn current_formula_and_unknown_bindings() {
        let text = "[[eval]]\nwith = { ncpus = 3 }\nexpect = 6\n[[eval]]\nformula = \"ncpus\"\nwith = { ncpu = 3 }\nexpect = 3\n";
        let (r, _) = run(text, &Context::with_formula("ncpus * 2"), false);
        assert_eq!(statuses(&r), vec![Status::Ok, Status::Failed]);
        assert_eq!(r.cases[0].formula.as_deref(), Some("@current"));
        match &r.cases[1].problem {
            Some(Problem::Error { message }) => assert!(message.contains("`ncpu`"), "{message}"),
            other => panic!("{other:?}"),
        }
        let none = Context {
            current: Err("no current formula".into()),
            resources: ResourceTable::builtin(),
        };
        let (r, _) = run(text, &none, false);
        assert_eq!(
            r.cases[0].problem,
            Some(Problem::Error {
                message: "no current formula".into()
            })
        );
    }

    #[test]
    fn record_returns_the_actual_results_as_expectations() {
        let text = "[[eval]]\nformula = \"ncpus/2\"\nwith = { ncpus = 3 }\n[[eval]]\nformula = \"x +\"\n[[eval]]\nformula = \"1\"\nexpect = 1\n";
        let (r, rec) = run(text, &Context::with_formula("1"), true);
        assert_eq!(
            statuses(&r),
            vec![Status::Recorded, Status::Recorded, Status::Ok]
        );
        assert_eq!(rec.len(), 2);
        assert_eq!(rec[0].expect, toml::Value::Float(1.5));
        assert_eq!(
            rec[1].expect.get("code"),
            Some(&toml::Value::Integer(15123))
        );
        // Without --record the same cases fail for lack of an expectation.
        let (r, rec) = run(text, &Context::with_formula("1"), false);
        assert!(rec.is_empty());
        assert_eq!(r.cases[0].problem, Some(Problem::NoExpectation));
    }

    #[test]
    fn file_resources_are_declared() {
        let text = "[resources]\nfoo = \"float\"\n[[eval]]\nformula = \"foo\"\nwith = { foo = -2.0 }\nexpect = -2\n";
        let (r, _) = run(text, &Context::with_formula("1"), false);
        assert_eq!(statuses(&r), vec![Status::Ok]);
        let bad = "[resources]\nfoo = \"floaty\"\n";
        let (r, _) = run(bad, &Context::with_formula("1"), false);
        let e = r.error.unwrap();
        assert!(e.starts_with("t.toml:2:7: resource `foo`"), "{e}");
    }
}
