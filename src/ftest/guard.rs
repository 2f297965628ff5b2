//! The qmgr guard: with `set server job_sort_formula_tests = PATH`, a new
//! `job_sort_formula` is stored only if every case of that test file passes with it as the
//! current formula. The server calls `guard` in its `set server job_sort_formula` path.

use crate::formula::ResourceTable;
use crate::ftest::case::Context;
use crate::ftest::file::load;
use crate::ftest::outcome::{CaseResult, Problem, Status, Summary};
use crate::ftest::runner::run_file;
use std::path::Path;

/// Why a candidate formula is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GuardFailure {
    /// The configured test file cannot be read or is not a valid test file.
    #[error("job_sort_formula_tests: {0}")]
    File(String),
    /// The candidate fails some cases.
    #[error("job_sort_formula refused: it fails {failed} of {total} formula tests in {path} (first: {first}); the formula is unchanged")]
    Failed {
        /// The test file.
        path: String,
        /// Cases that failed.
        failed: usize,
        /// All cases.
        total: usize,
        /// The first failing case and why, in one line.
        first: String,
    },
}

/// Runs the test file at `tests_path` with `candidate_formula` as the current formula and the
/// server's `resources`; `Ok` only if every case passes.
pub fn guard(
    tests_path: &Path,
    candidate_formula: &str,
    resources: &ResourceTable,
) -> Result<(), GuardFailure> {
    let file = load(tests_path).map_err(|e| GuardFailure::File(e.to_string()))?;
    let ctx = Context {
        current: Ok(candidate_formula.to_string()),
        resources: resources.clone(),
    };
    let (result, _) = run_file(&file, &ctx, false);
    if let Some(e) = &result.error {
        return Err(GuardFailure::File(
            e.lines().next().unwrap_or_default().to_string(),
        ));
    }
    let summary = Summary::of(std::slice::from_ref(&result));
    match result.cases.iter().find(|c| c.status == Status::Failed) {
        None => Ok(()),
        Some(first) => Err(GuardFailure::Failed {
            path: tests_path.display().to_string(),
            failed: summary.failed,
            total: result.cases.len(),
            first: one_line(first),
        }),
    }
}

/// A failed case in one line: `"name" (line N): why`.
fn one_line(c: &CaseResult) -> String {
    let why = match &c.problem {
        Some(Problem::Value {
            expected, actual, ..
        }) => format!("expected {expected}, got {actual}"),
        Some(Problem::Mismatch { expected, actual }) => {
            format!("expected {expected}, got {actual}")
        }
        Some(Problem::Order {
            expected,
            actual,
            first_difference,
        }) => format!(
            "rank {}: expected {}, got {}",
            first_difference + 1,
            expected.get(*first_difference).map_or("-", String::as_str),
            actual.get(*first_difference).map_or("-", String::as_str)
        ),
        Some(Problem::Values { entries, .. }) => match entries.first() {
            Some(e) => format!(
                "{}: expected {}, got {}",
                e.name,
                e.expected,
                e.actual.map_or("nothing".into(), |a| a.to_string())
            ),
            None => "values differ".into(),
        },
        Some(Problem::Constraints { violated }) => violated.join("; "),
        Some(Problem::Compare { violated, .. }) => violated.join("; "),
        Some(Problem::NoExpectation) => "no `expect`".into(),
        Some(Problem::Error { message }) => message.clone(),
        None => "failed".into(),
    };
    format!("\"{}\" (line {}): {why}", c.name, c.line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_a_formula_that_breaks_a_test() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.toml");
        std::fs::write(
            &p,
            "[[eval]]\nname = \"big jobs first\"\nwith = { ncpus = 8 }\nexpect = 8\n",
        )
        .unwrap();
        let r = ResourceTable::builtin();
        assert_eq!(guard(&p, "ncpus", &r), Ok(()));
        let e = guard(&p, "-ncpus", &r).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("job_sort_formula refused: it fails 1 of 1 formula tests in"),
            "{msg}"
        );
        assert!(
            msg.contains("\"big jobs first\" (line 1): expected 8, got -8"),
            "{msg}"
        );
        let missing = guard(&dir.path().join("nope.toml"), "ncpus", &r).unwrap_err();
        assert!(matches!(missing, GuardFailure::File(_)), "{missing:?}");
    }
}
