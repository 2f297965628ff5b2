//! Python's numbers as PBS's `eval` has them: unbounded ints, complex results, the
//! value PBS sorts by (`PyFloat_AsDouble`: -1.0 for a complex result or an int beyond the
//! double range), Python's repr in `fairsort eval`, `--json` without `null`, the integer
//! functions, and the size limit that keeps `10**10**10` from hanging. python3 is the oracle
//! where it is installed: Python's repr of the result and of the sort value, character for
//! character (so floats bit for bit).

use crate::common::{data_str, fairsort, json_of};
use fairsort::formula::{compile, sort_value, ResourceTable};
use predicates::str::contains;

/// Formulas whose Python result and sort value must match python3's exactly.
const EXACT: &[&str] = &[
    "10**400",
    "-10**400",
    "10**400 > 10**399",
    "log10(10**400)",
    "log(10**400)",
    "log2(3**1000)",
    "log(7**500, 3**200)",
    "log1p(10**20)",
    "2**64 // 3",
    "2**64 // 3 * 3 + 2**64 % 3 == 2**64",
    "(2**127 - 1) * (2**127 + 1)",
    "-(2**127) - 1",
    "2**200 / 3**100",
    "(10**30 + 1) / 10**30",
    "2**53 + 1 == 2**53 + 1.0",
    "2**53 + 1 > 2**53 + 0.0",
    "2**1024 > 1.7976931348623157e308",
    "-2**1024 < -1.7976931348623157e308",
    "float(2**1024 - 2**970 - 1)",
    "int(1e300) // 7",
    "round(2**200, -20)",
    "round(-(10**40) - 5, -1)",
    "abs(-(10**100))",
    "max(2**300, 1e90)",
    "min(-(2**300), -1e90)",
    "(-1)**0.5",
    "(-8)**(1/3)",
    "(-2)**0.5 * (-3)**0.5",
    "((-1)**0.5)**3",
    "((-1)**0.5)**-3",
    "((-1)**0.5 + 1)**0.5",
    "2**(1 + (-1)**0.5)",
    "(3 + 4*(-1)**0.5) / (1 - 2*(-1)**0.5)",
    "abs((-2)**0.5)",
    "-((-1)**0.5) - 1",
    "(-1)**0.5 == 1",
    "not (-1)**0.5 * 0",
    "factorial(25)",
    "factorial(300) // factorial(298)",
    "gcd(2**100, 6**60)",
    "lcm(2**70, 3**50, 10)",
    "comb(60, 30)",
    "comb(2**70, 3)",
    "perm(40, 20)",
    "perm(12)",
    "isqrt(10**50)",
    "isqrt(2**127 - 1)",
    "bool(0.0) + bool(3)",
    "1606938044258990275541962092341162602522202993782792835301376 - 2**200",
    "0x10000000000000000000000000000000000 // 3",
    "123456789012345678901234567890123456789012 % 97",
    "340282366920938463463374607431768211456 / 3",
    "7 // 2",
    "7 / 2",
    "1e16",
    "1e-5",
    "-0.0",
    "3 < 2",
];

/// (repr, sort value repr) that python3 gives for each formula, evaluated as PBS does.
fn python(formulas: &[&str]) -> Option<Vec<(String, String)>> {
    let script = r#"
import sys, json
from math import *
out = []
for f in json.loads(sys.stdin.read()):
    r = eval(f)
    try:
        v = -1.0 if isinstance(r, complex) else float(r)
    except OverflowError:
        v = -1.0
    out.append([repr(r), repr(v)])
print(json.dumps(out))
"#;
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let input = serde_json::to_string(formulas).ok()?;
    std::io::Write::write_all(&mut child.stdin.take()?, input.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    serde_json::from_slice(&out.stdout).ok()
}

#[test]
fn results_and_sort_values_are_pythons_exactly() {
    let Some(want) = python(EXACT) else {
        crate::common::python_missing("the oracle comparison");
        return;
    };
    assert_eq!(want.len(), EXACT.len());
    let resources = ResourceTable::builtin();
    let mut failures = Vec::new();
    for (f, (repr, sort)) in EXACT.iter().zip(&want) {
        let program = compile(f, &resources).unwrap_or_else(|e| panic!("{f}: {e}"));
        let result = program.eval_python(&[]);
        let got = result.as_ref().map(|v| v.to_string());
        let got_sort = fairsort::formula::repr::float(sort_value(&result));
        if got.as_deref() != Ok(repr.as_str()) || &got_sort != sort {
            failures.push(format!(
                "{f}: fairsort {got:?} sorts by {got_sort}, Python {repr} sorts by {sort}"
            ));
        }
        let e = program.eval(&[]);
        if fairsort::formula::repr::float(e.value) != *sort || e.error.is_some() {
            failures.push(format!("{f}: Program::eval {e:?}, Python sorts by {sort}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_sort_value_of_what_pyfloat_asdouble_refuses_is_minus_one() {
    let resources = ResourceTable::builtin();
    for (f, want) in [
        ("(-1)**0.5", -1.0),
        ("10**400", -1.0),
        ("-(10**400)", -1.0),
        ("10**309", -1.0),
        ("2**1000", 2f64.powi(1000)),
        ("True", 1.0),
        ("1/0", 0.0),
        ("float(10**400)", 0.0),
    ] {
        let p = compile(f, &resources).unwrap_or_else(|e| panic!("{f}: {e}"));
        let e = p.eval(&[]);
        assert_eq!(e.value, want, "{f}: {e:?}");
        assert_eq!(e.error.is_some(), want == 0.0, "{f}: {e:?}");
    }
}

fn eval_stdout(args: &[&str]) -> String {
    let out = fairsort().arg("eval").args(args).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

#[test]
fn eval_prints_pythons_repr_and_the_sort_value() {
    assert_eq!(eval_stdout(&["7//2"]), "3\n");
    assert_eq!(eval_stdout(&["7/2"]), "3.5\n");
    assert_eq!(eval_stdout(&["ncpus * 2", "-D", "ncpus=3"]), "6\n");
    assert_eq!(eval_stdout(&["1e16"]), "1e+16\n");
    assert_eq!(eval_stdout(&["ncpus > 2", "-D", "ncpus=3"]), "True\n");
    assert_eq!(eval_stdout(&["2**64 // 3"]), "6148914691236517205\n");
    assert_eq!(
        eval_stdout(&["(-1)**0.5"]),
        "(6.123233995736766e-17+1j)\nsort value: -1.0 (PBS reads the result with \
         PyFloat_AsDouble, which fails without a log line: must be real number, not complex)\n"
    );
    let big = eval_stdout(&["10**400"]);
    assert!(
        big.starts_with(&format!("1{}\nsort value: -1.0", "0".repeat(400))),
        "{big}"
    );
    assert!(big.contains("int too large to convert to float"), "{big}");
}

#[test]
fn eval_json_has_value_and_sort_value_and_never_null() {
    let j = |f: &str| {
        let out = fairsort().args(["eval", "--json", f]).assert().success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(!text.contains("null"), "{f}: {text}");
        json_of(text.as_bytes())
    };
    for (f, value, sort) in [
        ("inf", "inf", "inf"),
        ("-inf", "-inf", "-inf"),
        ("nan", "nan", "nan"),
        ("inf - inf", "nan", "nan"),
    ] {
        let o = j(f);
        assert_eq!(o["value"], value, "{f}: {o}");
        assert_eq!(o["sort_value"], sort, "{f}: {o}");
        assert_eq!(o["type"], "float");
    }
    let o = j("(-1)**0.5");
    assert_eq!(o["value"], "(6.123233995736766e-17+1j)");
    assert_eq!(o["type"], "complex");
    assert_eq!(o["sort_value"], -1.0);
    let o = j("7//2");
    assert_eq!(o["value"], 3);
    assert_eq!(o["repr"], "3");
    assert_eq!(o["sort_value"], 3.0);
    let o = j("2**70");
    assert_eq!(o["value"], "1180591620717411303424");
    assert_eq!(o["sort_value"], 1.1805916207174113e21);
    let o = j("3 > 2");
    assert_eq!(o["value"], true);
    assert_eq!(o["sort_value"], 1.0);
    let o = j("1/0");
    assert_eq!(o["error"], "division by zero");
    assert_eq!(o["sort_value"], 0.0);
    // a refused formula: no null fields either
    let out = fairsort()
        .args(["eval", "--json", "foo(1)"])
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!text.contains("null"), "{text}");
}

#[test]
fn huge_ints_hit_the_limit_quickly() {
    let resources = ResourceTable::builtin();
    for f in [
        "10**10**10",
        "2**(2**40)",
        "(-3)**(10**400)",
        "factorial(10**12)",
        "factorial(10**6)",
        "comb(10**6, 5 * 10**5)",
        "comb(2**40, 2**30)",
        "perm(2**62, 2**40)",
        "perm(10**30, 10**5)",
        "lcm(2**100000, 3**30000)",
        "(2**100000) * (2**100000)",
        "round(2**100000 * 2**100000, -5)",
    ] {
        let p = compile(f, &resources).unwrap_or_else(|e| panic!("{f}: {e}"));
        let before = fairsort::formula::big_int_bits_made();
        let e = p.eval(&[]);
        let work = fairsort::formula::big_int_bits_made() - before;
        assert!(
            e.error
                .as_deref()
                .is_some_and(|m| m.contains("fairsort's limit of 131072 bits")),
            "{f}: {e:?}"
        );
        assert_eq!(e.value, 0.0);
        // Refused before the work, not after it: what was computed on the way stays within a
        // few numbers of the limit's size.
        assert!(
            work <= 4 * 131072,
            "{f}: {work} bits of big-int results made"
        );
    }
    // within the limit: computed
    let p = compile("factorial(10000) > 10**35000", &resources).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.eval(&[]).value, 1.0);
}

#[test]
fn order_sorts_by_the_sort_value() {
    // J31 foo=-2: (-2)**0.5 is complex, PBS sorts it by -1.0 (no error); J32 foo=-1: -0.5.
    let out = fairsort()
        .args([
            "order",
            "--json",
            "--jobs",
            &data_str("order/negative_qstat.json"),
            "--formula",
            "foo ** 0.5 if foo < -1.5 else -0.5",
            "--resource",
            "foo=float",
        ])
        .args([
            "--tree",
            &data_str("order/resource_group"),
            "--usage",
            &data_str("order/usage.txt"),
        ])
        .assert()
        .success();
    let doc = json_of(&out.get_output().stdout);
    let jobs = doc["jobs"].as_array().cloned().unwrap_or_default();
    let got: Vec<(String, f64)> = jobs
        .iter()
        .map(|j| {
            (
                j["id"]
                    .as_str()
                    .unwrap_or("")
                    .split('.')
                    .next()
                    .unwrap_or("")
                    .to_string(),
                j["value"].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect();
    assert_eq!(
        got,
        [("32".to_string(), -0.5), ("31".to_string(), -1.0)],
        "{doc}"
    );
    assert!(
        jobs.iter()
            .all(|j| j.get("error").is_none_or(|e| e.is_null())),
        "{doc}"
    );
}

#[test]
fn big_int_literals() {
    let resources = ResourceTable::builtin();
    let src = "1606938044258990275541962092341162602522202993782792835301376";
    let ast = fairsort::formula::parse(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ast.to_string(), src);
    let p = compile(&format!("{src} == 2**200"), &resources).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        p.eval_python(&[]).map(|v| v.to_string()),
        Ok("True".to_string())
    );
    // Python 3.11 refuses decimal literals of more than 4300 digits
    assert!(compile(&"1".repeat(4301), &resources).is_err());
    assert!(compile(&"1".repeat(4300), &resources).is_ok());
}

#[test]
fn integer_functions_are_known_names() {
    // no longer refused as unsupported math functions
    for f in [
        "factorial(5)",
        "gcd(4, 6)",
        "lcm(4, 6)",
        "comb(5, 2)",
        "perm(5, 2)",
        "isqrt(17)",
        "bool(2)",
    ] {
        fairsort().args(["check", f]).assert().success();
    }
    fairsort()
        .args(["eval", "factorial(2.5)"])
        .assert()
        .success()
        .stdout("0.0\n")
        .stderr(contains(
            "'float' object cannot be interpreted as an integer",
        ));
}
