//! What running a case produced: its status (`ok`, `FAILED`, `recorded`), the actual result,
//! and, for a failure, the `Problem` the report shows as a readable diff.

use crate::ftest::case::{CaseKind, Tolerance};
use serde::Serialize;

/// The verdict on one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The actual result matches the expectation.
    Ok,
    /// It does not, or the case could not run, or it has no expectation.
    Failed,
    /// `--record` wrote the actual result into the file as the expectation.
    Recorded,
}

/// Why a case failed, in a form the report can show as a diff.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Problem {
    /// A value outside tolerance.
    Value {
        /// Expected value.
        expected: f64,
        /// Actual value.
        actual: f64,
        /// The tolerance used.
        tolerance: Tolerance,
    },
    /// Results of different shape or text (e.g. an error where a value was expected).
    Mismatch {
        /// The expectation, as the report shows it.
        expected: String,
        /// The actual result, as the report shows it.
        actual: String,
    },
    /// Two orders of job ids differ.
    Order {
        /// Expected order (or the expected top N).
        expected: Vec<String>,
        /// Actual order.
        actual: Vec<String>,
        /// 0-based index of the first position where they differ.
        first_difference: usize,
    },
    /// Named values outside tolerance (per job or per user): (name, expected, actual).
    Values {
        /// Each mismatching entry; `actual` is `None` when the name has no value.
        entries: Vec<ValueDiff>,
        /// The tolerance used.
        tolerance: Tolerance,
    },
    /// Constraints that do not hold, each described in one line.
    Constraints {
        /// The violated constraints.
        violated: Vec<String>,
    },
    /// A `[[compare]]` expectation that does not hold, with both orders.
    Compare {
        /// The violated expectations, one line each.
        violated: Vec<String>,
        /// The order under the current formula.
        current: Vec<String>,
        /// The order under the other formula.
        against: Vec<String>,
        /// 0-based first rank where the two orders differ, if they do.
        first_difference: Option<usize>,
    },
    /// The case has no `expect` yet.
    NoExpectation,
    /// The case could not run (e.g. no current formula, an unreadable tree file).
    Error {
        /// Why.
        message: String,
    },
}

/// One named value that differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueDiff {
    /// Job id or user.
    pub name: String,
    /// Expected value.
    pub expected: f64,
    /// Actual value, if there is one.
    pub actual: Option<f64>,
}

/// What running a case gives the runner: its actual result (in the shape an `expect` has;
/// `None` if that is not expressible) and, if it has an expectation, the verdict.
pub(crate) type Ran = (Option<toml::Value>, Option<Result<(), Problem>>);

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// Its kind.
    pub kind: CaseKind,
    /// 1-based line of the case in its file.
    pub line: usize,
    /// The formula it ran (label: the text or `@name`), when it ran one.
    pub formula: Option<String>,
    /// The verdict.
    pub status: Status,
    /// The actual result in the shape an `expect` would have (None if the case could not run);
    /// this is what `--record` writes. JSON shows non-finite numbers as "nan", "inf", "-inf".
    #[serde(serialize_with = "serialize_actual")]
    pub actual: Option<toml::Value>,
    /// Why it failed.
    pub problem: Option<Problem>,
    /// Where the real pbs_sched would crash or misbehave on the case's formula (over its
    /// queue, for an order case): one line each, naming the job and the PBS version.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

fn serialize_actual<S: serde::Serializer>(
    v: &Option<toml::Value>,
    s: S,
) -> Result<S::Ok, S::Error> {
    v.as_ref().map(to_json).serialize(s)
}

/// A TOML value as JSON; non-finite floats (which JSON lacks) become "nan", "inf", "-inf".
pub fn to_json(v: &toml::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        toml::Value::String(s) => J::String(s.clone()),
        toml::Value::Integer(i) => J::from(*i),
        toml::Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(J::Number)
            .unwrap_or_else(|| J::String(num(*f))),
        toml::Value::Boolean(b) => J::Bool(*b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => J::Array(a.iter().map(to_json).collect()),
        toml::Value::Table(t) => {
            J::Object(t.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
        }
    }
}

/// All results of one test file, or why it could not be loaded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileResult {
    /// The file, as given.
    pub path: String,
    /// The load error (rendered `file:line:col: message`), if the file could not be used.
    pub error: Option<String>,
    /// The case results, in file order.
    pub cases: Vec<CaseResult>,
}

/// Counts over many files: a file that cannot be loaded counts as one failure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Cases that passed (recorded ones included).
    pub passed: usize,
    /// Cases that failed, plus files that could not be loaded.
    pub failed: usize,
}

impl Summary {
    /// Adds up the results of `files`.
    pub fn of(files: &[FileResult]) -> Self {
        let mut s = Summary::default();
        for f in files {
            if f.error.is_some() {
                s.failed += 1;
            }
            for c in &f.cases {
                match c.status {
                    Status::Ok | Status::Recorded => s.passed += 1,
                    Status::Failed => s.failed += 1,
                }
            }
        }
        s
    }

    /// True when nothing failed.
    pub fn all_passed(&self) -> bool {
        self.failed == 0
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)
    }
}

/// The index of the first position where two sequences differ (the shorter length if one is a
/// prefix of the other), or `None` if they are equal.
pub fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    let i = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if i == a.len() && i == b.len() {
        None
    } else {
        Some(i)
    }
}

/// A number as reports show it: shortest round-trip form, `nan`, `inf`, `-inf`.
pub fn num(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_finds_the_spot() {
        assert_eq!(first_difference(&[1, 2, 3], &[1, 2, 3]), None);
        assert_eq!(first_difference(&[1, 2, 3], &[1, 3, 2]), Some(1));
        assert_eq!(first_difference(&[1, 2], &[1, 2, 3]), Some(2));
        assert_eq!(first_difference::<i32>(&[], &[]), None);
    }

    #[test]
    fn summary_counts_unloadable_files_as_failures() {
        let case = |status| CaseResult {
            name: "c".into(),
            kind: CaseKind::Eval,
            line: 1,
            formula: None,
            status,
            actual: None,
            problem: None,
            warnings: Vec::new(),
        };
        let files = vec![
            FileResult {
                path: "a".into(),
                error: None,
                cases: vec![
                    case(Status::Ok),
                    case(Status::Failed),
                    case(Status::Recorded),
                ],
            },
            FileResult {
                path: "b".into(),
                error: Some("b:1:1: bad".into()),
                cases: vec![],
            },
        ];
        let s = Summary::of(&files);
        assert_eq!(s.to_string(), "2 passed, 2 failed");
        assert!(!s.all_passed());
    }
}
