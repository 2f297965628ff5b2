//! `fairsort eval` / `fairsort check` end to end: values, PBS error codes with the caret under
//! the culprit, and hostile inputs (deep nesting, 1 MiB, random bytes) giving exit 1, never a
//! crash.

use predicates::str::contains;
use std::io::Write;

// `fairsort()` is isolated from any home of the user running the tests (a home's custom
// resources would change what `eval` and `check` accept).
use crate::common::{fairsort, json_of};

#[test]
fn seed_004_bob() {
    let out = fairsort()
        .args([
            "eval",
            "--json",
            "pow(2, -(fairshare_tree_usage/fairshare_perc))",
        ])
        .args([
            "-D",
            "fairshare_tree_usage=0.125312",
            "-D",
            "fairshare_perc=0.2",
        ])
        .assert()
        .success();
    let j = json_of(&out.get_output().stdout);
    let v = j["value"].as_f64().unwrap_or(f64::NAN);
    // PBS logs 0.6477 (openpbs.md §4.2); Python gives 0.6477190137338473.
    approx::assert_relative_eq!(v, 0.6477190137338473, max_relative = 1e-15);
    assert!(j["error"].is_null());
}

#[test]
fn test_fairshare_formula6_values() {
    // openpbs.md §4.2: fairshare_factor + (walltime/ncpus) → 60.3816, 30.0902, 40.6477, 30.6477
    for (ff, wt, n, want) in [
        (0.381553, 60, 1, 60.3816),
        (0.090201, 60, 2, 30.0902),
        (0.647718, 120, 3, 40.6477),
        (0.647718, 120, 4, 30.6477),
    ] {
        let out = fairsort()
            .args(["eval", "fairshare_factor + (walltime/ncpus)"])
            .arg(format!("-Dfairshare_factor={ff}"))
            .arg(format!("-Dwalltime={wt}"))
            .arg(format!("-Dncpus={n}"))
            .assert()
            .success();
        let v: f64 = String::from_utf8_lossy(&out.get_output().stdout)
            .trim()
            .parse()
            .unwrap_or(f64::NAN);
        approx::assert_abs_diff_eq!(v, want, epsilon = 5e-5);
    }
}

#[test]
fn division_by_zero_is_value_zero_not_failure() {
    let out = fairsort()
        .args(["eval", "--json", "1/0"])
        .assert()
        .success();
    let j = json_of(&out.get_output().stdout);
    assert_eq!(j["sort_value"], 0.0);
    assert!(j.get("value").is_none(), "no Python result: {j}");
    assert_eq!(j["error"], "division by zero");
    assert_eq!(j["formula"], "1/0");
    fairsort()
        .args(["eval", "1.0/0"])
        .assert()
        .success()
        .stdout("0.0\n")
        .stderr(contains("Zero value will be used: float division by zero"));
}

/// (formula, PBS code, caret line as printed under the formula)
const ERRORS: &[(&str, u32, &str)] = &[
    ("ncpus + * 2", 15123, "          ^"),
    ("ncpus ^ 2", 15123, "        ^"),
    ("1 + not ncpus", 15123, "      ^~~~~~~~~"),
    (
        "fairshare_factor + fair_share_factor",
        15124,
        "                     ^~~~~~~~~~~~~~~~~",
    ),
    ("walltime / arch", 15125, "             ^~~~"),
    (
        "sqrt(ncpus) + accelerator",
        15125,
        "                ^~~~~~~~~~~",
    ),
];

#[test]
fn pbs_error_codes_with_carets() {
    for &(f, code, caret) in ERRORS {
        let out = fairsort().args(["eval", "--json", f]).assert().code(1);
        let o = out.get_output();
        let j = json_of(&o.stdout);
        assert_eq!(j["code"], code, "{f}: {j}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        assert!(lines.contains(&format!("  {f}").as_str()), "{f}: {stderr}");
        assert!(
            lines.contains(&caret),
            "{f}: caret `{caret}` not in\n{stderr}"
        );
        fairsort().args(["check", f]).assert().code(1);
    }
    let out = fairsort()
        .args(["eval", "fair_share_factor"])
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("Formula contains invalid keyword"),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `fairshare_factor`?"),
        "{stderr}"
    );
    let out = fairsort()
        .args(["check", "--json", "walltime/arch"])
        .assert()
        .code(1);
    let j = json_of(&out.get_output().stdout);
    assert_eq!(
        j["pbs_message"],
        "Formula contains a resource of an invalid type"
    );
    assert_eq!(j["column"], 10);
}

#[test]
fn check_lists_keywords() {
    let out = fairsort()
        .args([
            "check",
            "--json",
            "fairshare_factor + (walltime/ncpus) + foo",
        ])
        .args(["-R", "foo=float"])
        .assert()
        .success();
    let j = json_of(&out.get_output().stdout);
    let names: Vec<&str> = j["keywords"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|k| k["name"].as_str())
        .collect();
    assert_eq!(names, ["fairshare_factor", "walltime", "ncpus", "foo"]);
    assert_eq!(j["keywords"][0]["python_type"], "float");
    fairsort()
        .args(["check", "ncpus*2"])
        .assert()
        .success()
        .stdout(contains("ncpus"))
        .stdout(contains("long resource"));
}

#[test]
fn unknown_define_is_refused() {
    fairsort()
        .args(["eval", "ncpus", "-D", "ncpu=3"])
        .assert()
        .code(1)
        .stderr(contains("did you mean `ncpus`?"));
    fairsort()
        .args(["eval", "ncpus", "-D", "ncpus"])
        .assert()
        .code(2);
    fairsort()
        .args(["eval", "ncpus*2", "-D", "ncpus=3", "-D", "mem=5"])
        .assert()
        .success()
        .stdout("6\n");
}

fn via_file(bytes: &[u8]) -> std::process::Output {
    let mut f = tempfile::NamedTempFile::new().unwrap_or_else(|e| panic!("{e}"));
    f.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
    fairsort()
        .args(["eval", "--file"])
        .arg(f.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn hostile_inputs_exit_1_with_a_message() {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut random = Vec::with_capacity(4096);
    for _ in 0..4096 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        random.push((rng >> 24) as u8);
    }
    let printable: Vec<u8> = random
        .iter()
        .map(|b| b"()+-*/%<>=! 1a_.,ifelsnot"[(*b as usize) % 25])
        .collect();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("100 000 (", "(".repeat(100_000).into_bytes()),
        ("50 000 (", "(".repeat(50_000).into_bytes()),
        (
            "100 000 -",
            format!("{}1", "-".repeat(100_000)).into_bytes(),
        ),
        ("60 000 -", format!("{}1", "-".repeat(60_000)).into_bytes()),
        (
            "60 000 not",
            format!("{}1", "not ".repeat(15_000)).into_bytes(),
        ),
        ("1 MiB", "1+".repeat(512 * 1024).into_bytes()),
        ("random bytes", random),
        ("random operators", printable),
    ];
    for (what, bytes) in cases {
        let out = via_file(&bytes);
        assert_eq!(out.status.code(), Some(1), "{what}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("fairsort: "), "{what}: {stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    }
    fairsort()
        .args(["eval", &"(".repeat(60_000)])
        .assert()
        .code(1)
        .stderr(contains("nested too deeply"));
}

#[test]
fn pbs_sched_formula_file_is_read() {
    let out = via_file(b"### PBS INTERNAL FILE DO NOT MODIFY ###\nncpus + 1\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n");
}
