//! Golden table: 385 formulas with bindings and the value (or exception message) Python gives
//! when evaluating them the way PBS does. Regenerate with tests/data/formula/gen_golden.py.
//! The value PBS sorts by must agree to a relative 1e-12 (plus 1e-300 absolute for zeros);
//! errors exactly; Python's own result (`repr`: ints, bools, floats, complex numbers) exactly,
//! character for character.

use approx::relative_eq;
use fairsort::formula::{compile, ResourceTable};
use serde_json::Value as Json;

use crate::common::data;

fn cases() -> Vec<Json> {
    let text = std::fs::read_to_string(data("formula/golden.jsonl"))
        .unwrap_or_else(|e| panic!("golden table: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn same_float(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan())
        || a == b
        || relative_eq!(a, b, epsilon = 1e-300, max_relative = 1e-12)
}

#[test]
fn golden_table_matches_python() {
    let cases = cases();
    assert!(cases.len() >= 150, "only {} cases", cases.len());
    let resources = ResourceTable::builtin();
    let mut failures = Vec::new();
    for c in &cases {
        let f = c["f"].as_str().unwrap_or_default();
        let kind = c["kind"].as_str().unwrap_or_default();
        let program = match compile(f, &resources) {
            Ok(p) => p,
            Err(e) => {
                if kind != "syntax" {
                    failures.push(format!("{f}: refused ({e}) but Python gives {c}"));
                }
                continue;
            }
        };
        let mut slots = vec![0.0; program.keywords().len()];
        if let Some(b) = c["b"].as_object() {
            for (k, v) in b {
                if let Some(i) = program.slot(k) {
                    slots[i] = v.as_f64().unwrap_or(0.0);
                }
            }
        }
        let got = program.eval(&slots);
        let exact = program.eval_exact(&slots);
        if !(same_float(got.value, exact.value) && got.error == exact.error) {
            failures.push(format!("{f}: fast {got:?} != exact {exact:?}"));
        }
        if let Some(want) = c["repr"].as_str() {
            match program.eval_python(&slots) {
                Ok(v) if v.to_string() == want => {}
                other => failures.push(format!("{f}: Python's result {other:?}, Python {want}")),
            }
            if c["type"].as_str() != program.eval_python(&slots).ok().map(|v| v.type_name()) {
                failures.push(format!("{f}: type differs from Python's {}", c["type"]));
            }
        }
        match kind {
            "value" => {
                let want: f64 = c["value"]
                    .as_str()
                    .unwrap_or("")
                    .parse()
                    .unwrap_or(f64::NAN);
                if got.error.is_some() || !same_float(got.value, want) {
                    failures.push(format!("{f}: got {got:?}, Python {want:?}"));
                }
                if want == 0.0 && got.value.is_sign_negative() != want.is_sign_negative() {
                    failures.push(format!("{f}: sign of zero: got {got:?}, Python {want:?}"));
                }
            }
            "error" => {
                let want = c["error"].as_str().unwrap_or("");
                if got.error.as_deref() != Some(want) || got.value != 0.0 {
                    failures.push(format!("{f}: got {got:?}, Python raises `{want}`"));
                }
            }
            other => failures.push(format!("{f}: compiles, but Python says {other}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
