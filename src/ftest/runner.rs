//! The runner: runs every case of a loaded test file — each by the module of its kind
//! (`value`, `order`, `compare`, `share`; the queue and share cases on a `Scenario` assembled
//! from the case) — and compares with its expectation. With `record`, cases without an
//! expectation get one from their actual result.

use crate::formula::ResourceTable;
use crate::ftest::case::{Case, CaseBody, Context, TestFile};
use crate::ftest::outcome::{CaseResult, FileResult, Problem, Status};
use crate::ftest::record::Recording;
use crate::ftest::{compare, order, share, value};

/// Runs every case of `file`. With `record`, cases that have no `expect` are given their actual
/// result (returned as `Recording`s for `record::record` to write) and reported `recorded`.
pub fn run_file(file: &TestFile, ctx: &Context, record: bool) -> (FileResult, Vec<Recording>) {
    let mut resources = ctx.resources.clone();
    for d in &file.resources {
        let defined =
            d.ty.parse()
                .map_err(|e: crate::pbs::defs::UnknownResourceType| e.to_string())
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
        warnings: Vec::new(),
    };
    let outcome = match &case.body {
        CaseBody::Eval(e) => {
            result.formula = Some(e.formula.label().to_string());
            if let Ok(text) = e.formula.text(ctx) {
                result.warnings = crate::formula::pbs_hazards::static_hazards(text)
                    .iter()
                    .map(|h| h.render())
                    .collect();
            }
            value::run(case, e, ctx, resources)
        }
        CaseBody::Order(o) => {
            result.formula = Some(o.formula.label().to_string());
            result.warnings = order::warnings(o, ctx, resources);
            order::run(case, o, ctx, resources)
        }
        CaseBody::Compare(c) => {
            result.formula = Some(format!("{} vs {}", c.formula.label(), c.against.label()));
            compare::run(c, ctx, resources)
        }
        CaseBody::Share(s) => share::run(case, s),
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
