//! Reading a test file: TOML → the case model, with every complaint located at
//! `file:line:col` (toml's spans). The file's sections (`[formulas]`, `[tolerance]`, `[trees]`,
//! `[jobsets]`, `[resources]`) are read here; each kind of case is parsed by its own module
//! (`value`, `order`, `compare`, `share`). The format is documented in `docs/ftest.md`.

use crate::ftest::case::{ResourceDecl, TestFile, Tolerance};
use crate::ftest::compare::RawCompare;
use crate::ftest::error::TestFileError;
use crate::ftest::order::RawOrder;
use crate::ftest::share::RawShare;
pub use crate::ftest::syntax::CURRENT;
use crate::ftest::syntax::{jobs_json, tree_def, Cx};
use crate::ftest::value::RawEval;
use crate::snippet::line_col;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::{Spanned, Value};

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

/// Reads and parses the test file at `path`.
pub fn load(path: &Path) -> Result<TestFile, TestFileError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| TestFileError::Io {
        path: shown.clone(),
        message: format!("cannot read test file: {e}"),
    })?;
    parse(&shown, &text)
}

/// Parses test-file `text`; `path` is only used in messages (and relative tree files are
/// found next to it).
pub fn parse(path: &str, text: &str) -> Result<TestFile, TestFileError> {
    if let Some(line) = crate::files::lines::first_overlong_line(text.as_bytes()) {
        return Err(TestFileError::Io {
            path: format!("{path}:{line}"),
            message: crate::files::lines::too_long_message(),
        });
    }
    let raw: RawFile = toml::from_str(text)
        .map_err(|e| TestFileError::at(path, text, e.span(), e.message().trim_end()))?;
    let mut cx = Cx {
        path,
        text,
        formulas: BTreeMap::new(),
        tolerance: Tolerance::default(),
        trees: BTreeMap::new(),
        jobsets: BTreeMap::new(),
        dir: Path::new(path).parent().unwrap_or(Path::new("")),
    };
    for (name, f) in &raw.formulas {
        if name == CURRENT {
            return Err(cx.at(
                f.span(),
                format!("`{CURRENT}` is reserved for the current formula (--formula or the server's); choose another name"),
            ));
        }
        cx.formulas.insert(name.clone(), f.get_ref().clone());
    }
    if let Some(t) = &raw.tolerance {
        cx.tolerance.abs = t.abs.unwrap_or(cx.tolerance.abs);
        cx.tolerance.rel = t.rel.unwrap_or(cx.tolerance.rel);
    }

    let mut cases = Vec::new();
    for (index, c) in raw.eval.iter().enumerate() {
        cases.push(crate::ftest::value::parse(&cx, index, c)?);
    }
    for (name, t) in &raw.trees {
        let tree = tree_def(t, cx.dir).map_err(|l| cx.located(l))?;
        cx.trees.insert(name.clone(), tree);
    }
    for (name, j) in &raw.jobsets {
        let jobs = jobs_json(j).map_err(|l| cx.located(l))?;
        cx.jobsets.insert(name.clone(), jobs);
    }
    for (index, c) in raw.order.iter().enumerate() {
        cases.push(crate::ftest::order::parse(&cx, index, c)?);
    }
    for (index, c) in raw.compare.iter().enumerate() {
        cases.push(crate::ftest::compare::parse(&cx, index, c)?);
    }
    for (index, c) in raw.share.iter().enumerate() {
        cases.push(crate::ftest::share::parse(&cx, index, c)?);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::Algorithm;
    use crate::ftest::case::{CaseBody, EvalCase, EvalExpect, FormulaRef, TreeOrigin};

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
            "[[eval]]\nformula = \"1\"\nwith = { ncpus = \"four\" }\n",
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
                format: Some(crate::inputs::TreeFormat::Pbs)
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
