//! `fairsort test` end to end: the repository's PBS-vector test file, pass/fail reporting and exit
//! status, `--json`, `--record` round trips, and located errors for bad test files.

use predicates::prelude::*;
use std::path::Path;

// `fairsort()` never touches a real home.
use crate::common::{data, fairsort, write};

#[test]
fn pbs_vectors_and_seed_examples_pass() {
    let out = fairsort()
        .arg("test")
        .arg(data("ftest/pbs_vectors.toml"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with("50 passed, 0 failed\n"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("ok ")).count(),
        50,
        "{text}"
    );
    assert!(!text.contains("FAILED"), "{text}");
    assert!(text.contains("seed 004 Suzy"), "{text}");
}

const ONE_PASS_ONE_FAIL: &str = r#"
[[eval]]
name = "doubles ncpus"
formula = "ncpus * 2"
with = { ncpus = 4 }
expect = 8

[[eval]]
name = "wrong on purpose"
formula = "walltime / ncpus"
with = { walltime = 3600, ncpus = 4 }
expect = 1000
"#;

#[test]
fn one_pass_one_fail_prints_both_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(&dir, "t.toml", ONE_PASS_ONE_FAIL);
    fairsort()
        .arg("test")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("ok      [eval] doubles ncpus"))
        .stdout(predicate::str::contains("FAILED  [eval] wrong on purpose"))
        .stdout(predicate::str::contains("expected  1000"))
        .stdout(predicate::str::contains("actual    900 (off by -100)"))
        .stdout(predicate::str::ends_with("1 passed, 1 failed\n"));
}

#[test]
fn one_pass_one_fail_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(&dir, "t.toml", ONE_PASS_ONE_FAIL);
    let out = fairsort()
        .args(["test", "--json"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["passed"], 1);
    assert_eq!(v["failed"], 1);
    let cases = v["files"][0]["cases"].as_array().unwrap();
    assert_eq!(cases[0]["status"], "ok");
    assert_eq!(cases[0]["actual"], 8.0);
    assert_eq!(cases[1]["status"], "failed");
    assert_eq!(cases[1]["problem"]["kind"], "value");
    assert_eq!(cases[1]["problem"]["expected"], 1000.0);
    assert_eq!(cases[1]["problem"]["actual"], 900.0);
    assert_eq!(cases[1]["line"], 8);
}

#[test]
fn record_round_trips_and_then_catches_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"# keep this comment
[formulas]
proposed = "fairshare_factor * 100 + ncpus"

[[eval]]
name = "current formula value"
with = { fairshare_factor = 0.25, ncpus = 3 }

[[eval]]
name = "an error"
formula = "1/fairshare_perc"   # zero shares

[[eval]]
name = "a typo"
formula = "fair_share_factor"

[[eval]]
name = "already expected"
formula = "@proposed"
with = { fairshare_factor = 0.5, ncpus = 2 }
expect = 52
"#;
    let f = write(&dir, "t.toml", text);
    let formula = "fairshare_factor + ncpus";
    // Without expectations the cases fail and ask for --record.
    fairsort()
        .args(["test", "--formula", formula])
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("--record"))
        .stdout(predicate::str::ends_with("1 passed, 3 failed\n"));
    fairsort()
        .args(["test", "--record", "--formula", formula])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "recorded[eval] current formula value",
        ))
        .stdout(predicate::str::ends_with("4 passed, 0 failed\n"));
    let recorded = std::fs::read_to_string(&f).unwrap();
    assert!(recorded.starts_with("# keep this comment\n"), "{recorded}");
    assert!(recorded.contains("expect = 3.25\n"), "{recorded}");
    assert!(
        recorded.contains("expect = { error = \"float division by zero\" }"),
        "{recorded}"
    );
    assert!(recorded.contains("expect = { code = 15124 }"), "{recorded}");
    assert!(
        recorded.contains("formula = \"1/fairshare_perc\"   # zero shares"),
        "{recorded}"
    );
    assert_eq!(recorded.matches("expect = 52").count(), 1, "{recorded}");
    // Round trip: the recorded file passes as is.
    fairsort()
        .args(["test", "--formula", formula])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::ends_with("4 passed, 0 failed\n"));
    // A different current formula now shows up as a failure.
    fairsort()
        .args(["test", "--formula", "fairshare_factor + 2*ncpus"])
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "FAILED  [eval] current formula value",
        ))
        .stdout(predicate::str::ends_with("3 passed, 1 failed\n"));
}

#[test]
fn bad_test_file_is_located_and_other_files_still_run() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(&dir, "bad.toml", "[[eval]]\nformula = \"1\"\nexpct = 1\n");
    let good = write(
        &dir,
        "good.toml",
        "[[eval]]\nformula = \"1+1\"\nexpect = 2\n",
    );
    fairsort()
        .arg("test")
        .arg(&bad)
        .arg(&good)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "{}:3:1: unknown field `expct`",
            bad.display()
        )))
        .stdout(predicate::str::contains("3 | expct = 1"))
        .stdout(predicate::str::contains("ok      [eval]"))
        .stdout(predicate::str::ends_with("1 passed, 1 failed\n"));
}

#[test]
fn missing_file_and_missing_current_formula_are_clear() {
    fairsort()
        .args(["test", "/nonexistent/t.toml"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "/nonexistent/t.toml: cannot read test file",
        ));
    let dir = tempfile::tempdir().unwrap();
    let f = write(&dir, "t.toml", "[[eval]]\nexpect = 1\n");
    let home = tempfile::tempdir().unwrap();
    fairsort()
        .arg("--home")
        .arg(home.path())
        .arg("test")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("no current formula"));
}

#[test]
fn no_file_is_a_usage_error() {
    fairsort().arg("test").assert().code(2);
}

#[test]
fn example_file_passes_with_the_documented_formula() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/formula-tests.toml");
    fairsort()
        .args([
            "test",
            "--formula",
            "fairshare_factor + walltime/ncpus/3600",
        ])
        .arg(example)
        .assert()
        .success()
        .stdout(predicate::str::ends_with("9 passed, 0 failed\n"));
}

/// openpbs.md §3.2/§3.6: in a formula test, usage of a name that is not in the
/// `resource_group` makes it an entity with 1 share under `unknown` (PBS's `find_alloc_ginfo`),
/// its usage counted there and at the root, for `[[share]]` and `[[order]]` cases alike.
#[test]
fn usage_of_an_entity_not_in_resource_group_counts_under_unknown() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(data("share/resource_group"), dir.path().join("rg")).unwrap();
    let f = write(
        &dir,
        "t.toml",
        r#"
[trees.rg]
file = "rg"
format = "pbs"
unknown_shares = 0
usage = { pbsuser = 100, stranger = 300 }

[[share]]
name = "stranger sits under unknown with no share"
tree = "@rg"
column = "fairshare_perc"
expect = { stranger = 0.0, unknown = 0.0, pbsuser = 0.2 }
abs = 1e-7

[[share]]
name = "its usage counts in unknown and the root (1 + 100 + 300)"
tree = "@rg"
column = "fairshare_tree_usage"
expect = { stranger = 0.748129676, unknown = 0.750623441 }
abs = 1e-6

[[order]]
name = "the unknown entity's jobs come last"
formula = "fairshare_factor"
jobs = [{ id = "S", user = "stranger", qtime = 1 }, { id = "P", user = "pbsuser", qtime = 2 }]
tree = "@rg"
expect = { order = ["P", "S"], values = { S = 0.0 } }
"#,
    );
    fairsort()
        .arg("test")
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::ends_with("3 passed, 0 failed\n"));
}
