//! Differential test against python3 (PBS's evaluator): random formulas over the whole language
//! with random bindings must give the same value (relative 1e-9) and the same "error or not" as
//! Python's `eval` with `from math import *`, through the library (3000 formulas) and through
//! `fairsort eval --json` (150 of them). Skips, loudly, when python3 is missing.

use fairsort::formula::{compile, ResourceTable};
use serde_json::{json, Value as Json};
use std::io::Write;
use std::process::Stdio;

// `Rng`: a small deterministic generator (xorshift), so failures reproduce.
use crate::common::{data, fairsort, Rng};

const INT_KW: &[&str] = &["ncpus", "walltime", "queue_priority", "job_priority", "mem"];
const FLOAT_KW: &[&str] = &[
    "fairshare_perc",
    "fairshare_factor",
    "fairshare_tree_usage",
    "level_fs",
];
const LITERALS: &[&str] = &[
    "0", "1", "2", "3", "7", "10", "0.5", "2.5", "1e-3", "1.5e3", "True", "False", "pi", "e",
    "inf", "nan", "0.0", ".25", "100",
];
const BINOPS: &[&str] = &[
    "+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=", "==", "!=", "and", "or",
];
const FUNCS1: &[&str] = &[
    "sqrt", "exp", "log", "log10", "log2", "ceil", "floor", "trunc", "fabs", "abs", "int", "float",
    "round", "sin", "cos", "tan", "atan", "tanh", "sinh", "cosh", "asin", "acos", "log1p", "expm1",
    "gamma", "lgamma", "erf", "isnan", "isinf", "degrees", "radians", "cbrt", "exp2",
];
const FUNCS2: &[&str] = &[
    "pow",
    "fmod",
    "atan2",
    "copysign",
    "hypot",
    "min",
    "max",
    "log",
    "round",
    "remainder",
];

fn gen(r: &mut Rng, depth: u32) -> String {
    if depth == 0 || r.below(10) < 2 {
        return match r.below(3) {
            0 => r.pick(INT_KW).to_string(),
            1 => r.pick(FLOAT_KW).to_string(),
            _ => r.pick(LITERALS).to_string(),
        };
    }
    let sub = |r: &mut Rng| {
        let s = gen(r, depth - 1);
        if r.below(10) < 7 {
            format!("({s})")
        } else {
            s
        }
    };
    match r.below(12) {
        0..=4 => {
            let (a, b) = (sub(r), sub(r));
            format!("{a} {} {b}", r.pick(BINOPS))
        }
        5 => format!("{}{}", r.pick(&["-", "+", "not "]), sub(r)),
        6 => format!("{} if {} else {}", sub(r), sub(r), sub(r)),
        7 => format!("{} < {} <= {}", sub(r), sub(r), sub(r)),
        8 | 9 => format!("{}({})", r.pick(FUNCS1), gen(r, depth - 1)),
        10 => format!(
            "{}({}, {})",
            r.pick(FUNCS2),
            gen(r, depth - 1),
            gen(r, depth - 1)
        ),
        _ => format!(
            "{}({}, {}, {})",
            r.pick(&["min", "max", "hypot"]),
            sub(r),
            sub(r),
            sub(r)
        ),
    }
}

fn bindings(r: &mut Rng) -> serde_json::Map<String, Json> {
    let mut m = serde_json::Map::new();
    for k in INT_KW {
        let v: f64 = match r.below(6) {
            0 => 0.0,
            1 => -3.0,
            2 => 2.5,
            3 => 4096.0,
            4 => 1e6,
            _ => r.below(100) as f64,
        };
        m.insert(k.to_string(), json!(v));
    }
    for k in FLOAT_KW {
        let v = [0.0, 0.125312, 0.2, 0.5, 1.0][r.below(5)];
        m.insert(k.to_string(), json!(v));
    }
    m
}

fn python(cases: &[Json]) -> Option<Vec<Json>> {
    let mut child = std::process::Command::new("python3")
        .arg(data("formula/pbs_eval.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let input: String = cases.iter().map(|c| format!("{c}\n")).collect();
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    Some(
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    )
}

fn agrees(value: f64, error: bool, py: &Json) -> Result<(), String> {
    match py["kind"].as_str() {
        Some("value") => {
            let want: f64 = py["value"]
                .as_str()
                .unwrap_or("")
                .parse()
                .unwrap_or(f64::NAN);
            let same = (want.is_nan() && value.is_nan())
                || want == value
                || approx::relative_eq!(value, want, epsilon = 1e-300, max_relative = 1e-9);
            if error || !same {
                return Err(format!("got {value} (error: {error}), Python {want}"));
            }
        }
        Some("error") if !error => {
            return Err(format!("got {value}, Python raises `{}`", py["error"]));
        }
        _ => {}
    }
    Ok(())
}

#[test]
fn random_formulas_agree_with_python() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let cases: Vec<Json> = (0..3000)
        .map(|_| {
            let depth = 1 + r.below(4) as u32;
            json!({"f": gen(&mut r, depth), "b": bindings(&mut r)})
        })
        .collect();
    let Some(results) = python(&cases) else {
        crate::common::python_missing("the differential test");
        return;
    };
    assert_eq!(
        results.len(),
        cases.len(),
        "python3 answered {} of {}",
        results.len(),
        cases.len()
    );
    let resources = ResourceTable::builtin();
    let (mut failures, mut compared, mut syntax) = (Vec::new(), 0, 0);
    for (c, py) in cases.iter().zip(&results) {
        let f = c["f"].as_str().unwrap_or_default();
        let program = match compile(f, &resources) {
            Ok(p) => p,
            Err(e) => {
                if py["kind"] != "syntax" {
                    failures.push(format!("{f}: refused ({e}) but Python: {py}"));
                } else {
                    syntax += 1;
                }
                continue;
            }
        };
        if py["kind"] == "syntax" {
            failures.push(format!("{f}: accepted but Python says syntax error"));
            continue;
        }
        let mut slots = vec![0.0; program.keywords().len()];
        for (k, v) in c["b"].as_object().into_iter().flatten() {
            if let Some(i) = program.slot(k) {
                slots[i] = v.as_f64().unwrap_or(0.0);
            }
        }
        let got = program.eval(&slots);
        if py["kind"] != "skip" {
            compared += 1;
            if let Err(msg) = agrees(got.value, got.error.is_some(), py) {
                failures.push(format!("{f} with {}: {msg}", c["b"]));
            }
        }
    }
    let kinds = |k: &str| results.iter().filter(|p| p["kind"] == k).count();
    eprintln!(
        "compared {compared}: {} values, {} Python errors, {} syntax errors, {} skipped",
        kinds("value"),
        kinds("error"),
        syntax,
        kinds("skip")
    );
    assert!(
        compared > 2500,
        "only {compared} compared ({syntax} syntax errors)"
    );
    assert!(
        kinds("error") > 200 && kinds("value") > 1500,
        "the generator lost its mix"
    );
    assert!(
        failures.is_empty(),
        "{} of {compared} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn cli_eval_json_agrees_with_python() {
    let mut r = Rng(0xD1B5_4A32_D192_ED03);
    let cases: Vec<Json> = (0..150)
        .map(|_| json!({"f": gen(&mut r, 3), "b": bindings(&mut r)}))
        .collect();
    let Some(results) = python(&cases) else {
        crate::common::python_missing("the differential test");
        return;
    };
    let mut failures = Vec::new();
    for (c, py) in cases.iter().zip(&results) {
        let f = c["f"].as_str().unwrap_or_default();
        // never a home of the user running the tests
        let mut cmd = fairsort();
        cmd.arg("eval").arg("--json").arg(f);
        for (k, v) in c["b"].as_object().into_iter().flatten() {
            cmd.arg("-D").arg(format!("{k}={v}"));
        }
        let out = cmd.output().unwrap_or_else(|e| panic!("{e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let Ok(j) = serde_json::from_str::<Json>(stdout.trim()) else {
            failures.push(format!("{f}: not one JSON object: {stdout}"));
            continue;
        };
        if py["kind"] == "syntax" {
            if out.status.code() != Some(1) || j["code"] != 15123 {
                failures.push(format!("{f}: Python syntax error, fairsort {j}"));
            }
            continue;
        }
        if out.status.code() != Some(0) {
            failures.push(format!("{f}: exit {:?}: {j}", out.status.code()));
            continue;
        }
        if stdout.contains("null") {
            failures.push(format!("{f}: a null in {stdout}"));
        }
        // the value PBS sorts by: a number, or "inf", "-inf", "nan"
        let sort = &j["sort_value"];
        let value = sort
            .as_f64()
            .or_else(|| sort.as_str().and_then(|t| t.parse().ok()))
            .unwrap_or(f64::NAN);
        if let Err(msg) = agrees(value, j.get("error").is_some(), py) {
            failures.push(format!("{f}: {msg}"));
        }
        // Python's own result: its type, and its repr exactly unless a float
        if py["kind"] == "value"
            && (j["type"] != py["type"] || (j["type"] != "float" && j["repr"] != py["repr"]))
        {
            failures.push(format!(
                "{f}: Python's result {} {}, Python {} {}",
                j["type"], j["repr"], py["type"], py["repr"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
