//! Human-readable report of a `fairsort test` run (`fairsort::ftest`): one `ok`/`FAILED`/
//! `recorded` line per case, a readable diff under each failure (expected vs actual, or two
//! orders side by side with the first difference marked), and the summary line
//! `N passed, M failed`.

use super::table::{Align, Table};
use fairsort::ftest::outcome::num;
use fairsort::ftest::outcome::{CaseResult, FileResult, Problem, Status, Summary, ValueDiff};

const INDENT: &str = "        ";

/// The whole text report of `files`, ending with the summary line.
pub fn render(files: &[FileResult]) -> String {
    let mut out = String::new();
    for f in files {
        if let Some(e) = &f.error {
            out.push_str("error   ");
            out.push_str(&e.replace('\n', &format!("\n{INDENT}")));
            out.push('\n');
        }
        for c in &f.cases {
            render_case(&mut out, &f.path, c);
        }
    }
    out.push_str(&Summary::of(files).to_string());
    out.push('\n');
    out
}

fn render_case(out: &mut String, path: &str, c: &CaseResult) {
    let status = match c.status {
        Status::Ok => "ok      ",
        Status::Failed => "FAILED  ",
        Status::Recorded => "recorded",
    };
    out.push_str(&format!(
        "{status}[{}] {}  ({}:{})\n",
        c.kind.key(),
        shown(&c.name),
        shown(path),
        c.line
    ));
    for w in &c.warnings {
        out.push_str(&format!("{INDENT}warning: {w}\n"));
    }
    let Some(problem) = &c.problem else {
        return;
    };
    let mut lines: Vec<String> = Vec::new();
    if let Some(f) = &c.formula {
        lines.push(format!("formula   {}", shown(f)));
    }
    match problem {
        Problem::Value {
            expected,
            actual,
            tolerance,
        } => {
            lines.push(format!(
                "expected  {} (abs {}, rel {})",
                num(*expected),
                small(tolerance.abs),
                small(tolerance.rel)
            ));
            let off = actual - expected;
            lines.push(format!("actual    {} (off by {})", num(*actual), num(off)));
        }
        Problem::Mismatch { expected, actual } => {
            lines.push(format!("expected  {expected}"));
            lines.push(format!("actual    {actual}"));
        }
        Problem::Order {
            expected,
            actual,
            first_difference,
        } => lines.extend(side_by_side(expected, actual, *first_difference)),
        Problem::Values { entries, tolerance } => {
            lines.extend(values_table(entries));
            lines.push(format!(
                "(tolerance abs {}, rel {})",
                small(tolerance.abs),
                small(tolerance.rel)
            ));
        }
        Problem::Constraints { violated } => {
            for v in violated {
                lines.push(format!("violated  {v}"));
            }
            if let Some(a) = &c.actual {
                lines.push(format!("actual    {a}"));
            }
        }
        Problem::Compare {
            violated,
            current,
            against,
            first_difference,
        } => {
            for v in violated {
                lines.push(format!("violated  {v}"));
            }
            lines.extend(two_orders(
                ("current", "against"),
                current,
                against,
                *first_difference,
            ));
        }
        Problem::NoExpectation => {
            lines.push("no `expect` yet: run `fairsort test --record` to fill it in".into());
        }
        Problem::Error { message } => lines.push(format!("error     {message}")),
    }
    for l in lines {
        for part in l.lines() {
            out.push_str(INDENT);
            out.push_str(part);
            out.push('\n');
        }
    }
}

/// A name or formula as the report shows it: as is, or — when it holds a control character
/// (a newline could fake a report line), a quote or a backslash, or starts or ends with a
/// space — as a TOML basic string (`"a\nb"`), the way the test file would spell it.
fn shown(s: &str) -> String {
    let plain = !s.chars().any(|c| c.is_control() || c == '"' || c == '\\') && s.trim() == s;
    if plain {
        return s.to_string();
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A tolerance as reports show it: scientific notation for tiny values (`1e-12`).
fn small(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-3 {
        format!("{v:e}")
    } else {
        num(v)
    }
}

/// Expected and actual orders side by side, the first differing rank marked.
pub fn side_by_side(expected: &[String], actual: &[String], first: usize) -> Vec<String> {
    two_orders(("expected", "actual"), expected, actual, Some(first))
}

/// Two orders side by side under the given headers, the first differing rank (if any) marked.
pub fn two_orders(
    labels: (&str, &str),
    expected: &[String],
    actual: &[String],
    first: Option<usize>,
) -> Vec<String> {
    let mut t = Table::new(&[
        ("rank", Align::Right),
        (labels.0, Align::Left),
        (labels.1, Align::Left),
        ("", Align::Left),
    ]);
    for i in 0..expected.len().max(actual.len()) {
        let cell = |v: &[String]| v.get(i).cloned().unwrap_or_else(|| "-".into());
        let mark = if Some(i) == first {
            "<- first difference"
        } else {
            ""
        };
        t.row(vec![
            (i + 1).to_string(),
            cell(expected),
            cell(actual),
            mark.into(),
        ]);
    }
    t.render().lines().map(str::to_string).collect()
}

fn values_table(entries: &[ValueDiff]) -> Vec<String> {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("expected", Align::Right),
        ("actual", Align::Right),
    ]);
    for e in entries {
        t.row(vec![
            e.name.clone(),
            num(e.expected),
            e.actual.map_or_else(|| "(none)".into(), num),
        ]);
    }
    t.render().lines().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairsort::ftest::case::{CaseKind, Tolerance};

    fn case(name: &str, status: Status, problem: Option<Problem>) -> CaseResult {
        CaseResult {
            name: name.into(),
            kind: CaseKind::Order,
            line: 7,
            formula: Some("ncpus".into()),
            status,
            actual: None,
            problem,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn failure_shows_orders_side_by_side_and_the_summary() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let files = vec![FileResult {
            path: "t.toml".into(),
            error: None,
            cases: vec![
                case("passes", Status::Ok, None),
                case(
                    "fails",
                    Status::Failed,
                    Some(Problem::Order {
                        expected: s(&["J3", "J4", "J1"]),
                        actual: s(&["J3", "J1", "J4"]),
                        first_difference: 1,
                    }),
                ),
            ],
        }];
        let text = render(&files);
        let expected = "\
ok      [order] passes  (t.toml:7)
FAILED  [order] fails  (t.toml:7)
        formula   ncpus
        rank  expected  actual
        ----  --------  ------  -------------------
           1  J3        J3
           2  J4        J1      <- first difference
           3  J1        J4
1 passed, 1 failed
";
        assert_eq!(text, expected);
    }

    #[test]
    fn names_and_formulas_with_newlines_are_quoted_on_one_line() {
        let mut c = case(
            "x\nok      [order] forged",
            Status::Recorded,
            Some(Problem::NoExpectation),
        );
        c.formula = Some("(ncpus\n+ 1)".into());
        let files = vec![FileResult {
            path: "t.toml".into(),
            error: None,
            cases: vec![c],
        }];
        let text = render(&files);
        assert!(
            text.starts_with(
                "recorded[order] \"x\\nok      [order] forged\"  (t.toml:7)\n        formula   \"(ncpus\\n+ 1)\"\n"
            ),
            "{text}"
        );
        assert_eq!(shown("plain name"), "plain name");
        assert_eq!(shown("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(shown("\u{1b}[2J"), "\"\\u001B[2J\"");
    }

    #[test]
    fn value_failure_shows_expected_actual_and_distance() {
        let files = vec![FileResult {
            path: "t.toml".into(),
            error: None,
            cases: vec![case(
                "v",
                Status::Failed,
                Some(Problem::Value {
                    expected: 0.5,
                    actual: 0.75,
                    tolerance: Tolerance {
                        abs: 0.01,
                        rel: 0.0,
                    },
                }),
            )],
        }];
        let text = render(&files);
        assert!(text.contains("expected  0.5 (abs 0.01, rel 0)\n"), "{text}");
        assert!(text.contains("actual    0.75 (off by 0.25)\n"), "{text}");
        assert!(text.ends_with("0 passed, 1 failed\n"), "{text}");
    }

    #[test]
    fn numbers_render_like_python_names() {
        assert_eq!(num(f64::NAN), "nan");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
        assert_eq!(num(0.1), "0.1");
    }
}
