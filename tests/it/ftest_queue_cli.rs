//! `fairsort test` queue-side cases end to end: `[[order]]` failures as side-by-side orders,
//! `[[share]]` and `[[compare]]` diffs, `--record` round trips for the new kinds, `@current` from
//! the home, and the qmgr guard (`job_sort_formula_tests`).

use predicates::prelude::*;

use crate::common::{fairsort, fairsort_home, qmgr, write};

const QUEUE: &str = r#"
[trees.small]
users = [
  { name = "alice", shares = 1, usage = 10 },
  { name = "bob", shares = 1, usage = 90 },
]

[jobsets]
q = [
  { id = "a1", user = "alice", qtime = 1, resources = { ncpus = 1 } },
  { id = "b1", user = "bob", qtime = 2, resources = { ncpus = 8 } },
  { id = "a2", user = "alice", qtime = 3, resources = { ncpus = 4 } },
]
"#;

#[test]
fn order_failure_shows_both_orders_with_the_first_difference() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{QUEUE}\n[[order]]\nname = \"big jobs first\"\nformula = \"ncpus\"\njobs = \"@q\"\nexpect = [\"b1\", \"a1\", \"a2\"]\n\n[[order]]\nname = \"alice before bob\"\nformula = \"ncpus\"\njobs = \"@q\"\nexpect = {{ before = [[\"a1\", \"b1\"]] }}\n"
    );
    let f = write(dir.path(), "t.toml", &text);
    let out = fairsort_home(dir.path())
        .arg("test")
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("FAILED  [order] big jobs first"), "{out}");
    assert!(out.contains("rank  expected  actual"), "{out}");
    assert!(
        out.contains("   2  a1        a2      <- first difference"),
        "{out}"
    );
    assert!(
        out.contains("violated  a1 before b1: a1 is rank 3, b1 is rank 1"),
        "{out}"
    );
    assert!(out.ends_with("0 passed, 2 failed\n"), "{out}");
}

#[test]
fn share_and_compare_failures_are_readable_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{QUEUE}\n[[share]]\nname = \"pbs factors\"\ntree = \"@small\"\nexpect = {{ alice = 0.9, bob = 0.2 }}\nabs = 1e-3\n\n[[compare]]\nname = \"nothing moves\"\nformula = \"ncpus\"\nagainst = \"-ncpus\"\njobs = \"@q\"\nexpect = {{ changed = [] }}\n"
    );
    let f = write(dir.path(), "t.toml", &text);
    fairsort_home(dir.path())
        .arg("test")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAILED  [share] pbs factors"))
        .stdout(predicate::str::contains("alice       0.9"))
        .stdout(predicate::str::contains(
            "violated  changed rank: expected [], actual [a1, b1]",
        ))
        .stdout(predicate::str::contains("rank  current  against"))
        .stdout(predicate::str::ends_with("0 passed, 2 failed\n"));
    let out = fairsort_home(dir.path())
        .args(["test", "--json"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let cases = &v["files"][0]["cases"];
    assert_eq!(cases[0]["kind"], "share");
    assert_eq!(cases[0]["problem"]["kind"], "values");
    assert_eq!(cases[1]["kind"], "compare");
    assert_eq!(cases[1]["problem"]["kind"], "compare");
    assert_eq!(
        cases[1]["actual"]["changed"],
        serde_json::json!(["b1", "a1"])
    );
}

#[test]
fn record_fills_order_share_and_compare_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{QUEUE}\n[[order]]\nname = \"o\"\njobs = \"@q\"\nthreshold = 1\n\n[[share]]\nname = \"s\"\ntree = \"@small\"\nalgorithm = \"fair-tree\"\n\n[[compare]]\nname = \"c\"\nagainst = \"-ncpus\"\njobs = \"@q\"\n"
    );
    let f = write(dir.path(), "t.toml", &text);
    fairsort_home(dir.path())
        .args(["test", "--record", "--formula", "ncpus"])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::contains("recorded[order] o"))
        .stdout(predicate::str::ends_with("3 passed, 0 failed\n"));
    let recorded = std::fs::read_to_string(&f).unwrap();
    assert!(
        recorded
            .contains("expect = { eligible = [\"b1\", \"a2\"], order = [\"b1\", \"a2\", \"a1\"] }"),
        "{recorded}"
    );
    assert!(
        recorded.contains("expect = { alice = 1.0, bob = 0.5 }"),
        "{recorded}"
    );
    assert!(
        recorded.contains("expect = { changed = [\"b1\", \"a1\"] }"),
        "{recorded}"
    );
    fairsort_home(dir.path())
        .args(["test", "--formula", "ncpus"])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::ends_with("3 passed, 0 failed\n"));
    // Another current formula breaks the recorded order and comparison.
    fairsort_home(dir.path())
        .args(["test", "--formula", "-ncpus"])
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::ends_with("1 passed, 2 failed\n"));
}

#[test]
fn bad_queue_parts_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "t.toml",
        "[[order]]\nformula = \"ncpus\"\njobs = \"@nope\"\nexpect = []\n",
    );
    fairsort_home(dir.path())
        .arg("test")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            ":3:8: no job set in [jobsets] `nope`",
        ));
    let f = write(
        dir.path(),
        "u.toml",
        "[[share]]\ntree = { file = \"missing.rg\" }\nexpect = { a = 1 }\n",
    );
    fairsort_home(dir.path())
        .arg("test")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("missing.rg"))
        .stdout(predicate::str::ends_with("0 passed, 1 failed\n"));
}

#[test]
fn current_formula_and_resources_come_from_the_server_home() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    qmgr(h, "create resource paws type=float").success();
    qmgr(h, "set server job_sort_formula = \"paws * 2\"").success();
    let f = write(
        h,
        "t.toml",
        "[[eval]]\nwith = { paws = 1.5 }\nexpect = 3\n[[order]]\njobs = [{ id = \"x\", user = \"u\", resources = { paws = 1 } }, { id = \"y\", user = \"u\", resources = { paws = 2 } }]\nexpect = [\"y\", \"x\"]\n",
    );
    fairsort_home(h)
        .arg("test")
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::ends_with("2 passed, 0 failed\n"));
    // --formula still wins over the home's formula.
    fairsort_home(h)
        .args(["test", "--formula", "-paws"])
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::ends_with("0 passed, 2 failed\n"));
}

#[test]
fn a_missing_home_is_never_created() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("no-such-home");
    let f = write(dir.path(), "t.toml", "[[eval]]\nexpect = 1\n");
    fairsort()
        .arg("--home")
        .arg(&home)
        .arg("test")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("no current formula"));
    assert!(!home.exists());
}

#[test]
fn qmgr_guard_refuses_a_formula_that_breaks_a_test() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let tests = write(
        h,
        "guard.toml",
        "[[order]]\nname = \"big jobs first\"\njobs = [{ id = \"s\", user = \"u\", qtime = 1, resources = { ncpus = 1 } }, { id = \"b\", user = \"u\", qtime = 2, resources = { ncpus = 8 } }]\nexpect = { top = [\"b\"] }\n",
    );
    qmgr(h, "set server job_sort_formula = ncpus").success();
    qmgr(
        h,
        &format!("set server job_sort_formula_tests = {}", tests.display()),
    )
    .success();
    qmgr(h, "set server job_sort_formula = \"-ncpus\"")
        .code(166)
        .stderr(predicate::str::contains("job_sort_formula refused"))
        .stderr(predicate::str::contains("\"big jobs first\""));
    let listed = fairsort_home(h)
        .args(["qmgr", "-c", "list server"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let listed = String::from_utf8(listed).unwrap();
    assert!(
        listed.contains("    job_sort_formula = ncpus\n"),
        "{listed}"
    );
    qmgr(h, "set server job_sort_formula = \"2*ncpus + 1\"").success();
    let listed = fairsort_home(h)
        .args(["qmgr", "-c", "list server"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let listed = String::from_utf8(listed).unwrap();
    assert!(
        listed.contains("    job_sort_formula = 2*ncpus + 1\n"),
        "{listed}"
    );
}

/// A formula the real pbs_sched would crash on over a case's queue is flagged under the case
/// (the case itself passes): the first job pbs_sched evaluates raises.
#[test]
fn order_cases_warn_where_pbs_sched_would_crash() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{QUEUE}\n[[order]]\nname = \"crashes pbs_sched\"\nformula = \"ncpus + 1/(ncpus-1)\"\njobs = \"@q\"\nexpect = [\"b1\", \"a2\", \"a1\"]\n\n[[order]]\nname = \"fine\"\nformula = \"ncpus\"\njobs = \"@q\"\nexpect = [\"b1\", \"a2\", \"a1\"]\n"
    );
    let f = write(dir.path(), "t.toml", &text);
    let out = fairsort_home(dir.path())
        .arg("test")
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("warning: OpenPBS 23.06 pbs_sched: job a1, the first evaluated after pbs_sched starts, raises (division by zero)"),
        "{text}"
    );
    assert_eq!(text.matches("warning:").count(), 1, "{text}");
    let json = fairsort_home(dir.path())
        .args(["test", "--json"])
        .arg(&f)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let s = doc.to_string();
    assert!(
        s.contains("\"warnings\":[\"OpenPBS 23.06 pbs_sched: job a1"),
        "{s}"
    );
}
