//! The runner: runs every case of a loaded test file through the library (formula compiler and
//! evaluator; queue binding and ordering; fair-share engine) and compares with its expectation.
//! With `record`, cases without an expectation get one from their actual result.

use super::case::{Case, CaseBody, EvalCase, EvalExpect, FormulaRef, TestFile};
use super::outcome::num;
use super::outcome::{CaseResult, FileResult, Problem, Status};
use super::record::Recording;
use crate::formula::{compile, Program, ResourceTable};
use crate::pbs::keywords;

/// What cases need from outside their file.
#[derive(Debug, Clone)]
pub struct Context {
    /// The current formula (`--formula`, else the server's `job_sort_formula`), or why there is
    /// none; only cases that use `@current` need it.
    pub current: Result<String, String>,
    /// Resources a formula may name: PBS's built-ins plus the server's custom ones. A file's own
    /// `[resources]` are added per file.
    pub resources: ResourceTable,
}

impl Context {
    /// A context with a given current formula and PBS's built-in resources.
    pub fn with_formula(formula: impl Into<String>) -> Self {
        Context {
            current: Ok(formula.into()),
            resources: ResourceTable::builtin(),
        }
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

/// Runs every case of `file`. With `record`, cases that have no `expect` are given their actual
/// result (returned as `Recording`s for `record::record` to write) and reported `recorded`.
pub fn run_file(file: &TestFile, ctx: &Context, record: bool) -> (FileResult, Vec<Recording>) {
    let mut resources = ctx.resources.clone();
    for d in &file.resources {
        let defined =
            d.ty.parse()
                .map_err(|e: crate::pbs::UnknownResourceType| e.to_string())
                .and_then(|ty| resources.define(&d.name, ty).map_err(|e| e.to_string()));
        if let Err(message) = defined {
            let error = format!(
                "{}:{}:{}: resource `{}`: {message}",
                file.path, d.line, d.col, d.name
            );
            return (
                FileResult {
                    path: file.path.clone(),
                    error: Some(error),
                    cases: Vec::new(),
                },
                Vec::new(),
            );
        }
    }
    let mut cases = Vec::with_capacity(file.cases.len());
    let mut recordings = Vec::new();
    for case in &file.cases {
        let (result, recording) = run_case(case, ctx, &resources, record);
        cases.push(result);
        recordings.extend(recording);
    }
    (
        FileResult {
            path: file.path.clone(),
            error: None,
            cases,
        },
        recordings,
    )
}

fn run_case(
    case: &Case,
    ctx: &Context,
    resources: &ResourceTable,
    record: bool,
) -> (CaseResult, Option<Recording>) {
    let mut result = CaseResult {
        name: case.name.clone(),
        kind: case.kind,
        line: case.line,
        formula: None,
        status: Status::Failed,
        actual: None,
        problem: None,
    };
    let outcome = match &case.body {
        CaseBody::Eval(e) => {
            result.formula = Some(e.formula.label().to_string());
            run_eval(case, e, ctx, resources)
        }
        CaseBody::Order(o) => {
            result.formula = Some(o.formula.label().to_string());
            super::run_queue::run_order(case, o, ctx, resources)
        }
        CaseBody::Compare(c) => {
            result.formula = Some(format!("{} vs {}", c.formula.label(), c.against.label()));
            super::run_queue::run_compare(c, ctx, resources)
        }
        CaseBody::Share(s) => super::run_queue::run_share(case, s),
    };
    let (actual, verdict) = match outcome {
        Ok(pair) => pair,
        Err(message) => {
            result.problem = Some(Problem::Error { message });
            return (result, None);
        }
    };
    result.actual = actual.clone();
    match verdict {
        Some(Ok(())) => result.status = Status::Ok,
        Some(Err(problem)) => result.problem = Some(problem),
        None if record => match actual {
            Some(expect) => {
                result.status = Status::Recorded;
                return (
                    result,
                    Some(Recording {
                        kind: case.kind,
                        index: case.index,
                        expect,
                    }),
                );
            }
            None => {
                result.problem = Some(Problem::Error {
                    message: "cannot record this result as an `expect`".into(),
                })
            }
        },
        None => result.problem = Some(Problem::NoExpectation),
    }
    (result, None)
}

/// A case's actual result (as an `expect` value) and, if it has an expectation, the verdict.
pub(crate) type Ran = (Option<toml::Value>, Option<Result<(), Problem>>);

/// The formula text of a case.
pub(crate) fn formula_text<'a>(f: &'a FormulaRef, ctx: &'a Context) -> Result<&'a str, String> {
    match f {
        FormulaRef::Text { text, .. } => Ok(text),
        FormulaRef::Current => ctx.current.as_deref().map_err(Clone::clone),
    }
}

/// Compiles `text`, or the `Rejected` actual.
fn compile_or_reject(text: &str, resources: &ResourceTable) -> Result<Program, EvalActual> {
    compile(text, resources).map_err(|e| EvalActual::Rejected {
        code: e.code(),
        message: e.to_string(),
    })
}

fn run_eval(
    case: &Case,
    e: &EvalCase,
    ctx: &Context,
    resources: &ResourceTable,
) -> Result<Ran, String> {
    let text = formula_text(&e.formula, ctx)?;
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
