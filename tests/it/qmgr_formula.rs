//! Formula validation through `fairsort qmgr`: PBS's codes 15123,
//! 15124, 15125 with fairsort's caret, nothing stored on failure, custom resources usable in
//! formulas, and resources in use protected.

use predicates::prelude::*;
use std::path::Path;

use crate::common::qmgr;

fn stdout(home: &Path, req: &str) -> String {
    String::from_utf8(qmgr(home, req).success().get_output().stdout.clone()).unwrap()
}

const PBS_FORMULA: &str = "pow(2, -(fairshare_tree_usage/fairshare_perc))";

#[test]
fn set_print_list_unset_and_refused_formula() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(h, &format!("set server job_sort_formula=\"{PBS_FORMULA}\""))
        .success()
        .stdout("");
    assert!(stdout(h, "print server").contains(&format!(
        "set server job_sort_formula = \"{PBS_FORMULA}\"\n"
    )));
    assert!(stdout(h, "list server").contains(&format!("\n    job_sort_formula = {PBS_FORMULA}\n")));
    qmgr(h, "set server job_sort_formula = fair_share_factor")
        .code(20)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "qmgr obj= svr=default: Formula contains invalid keyword\nqmgr: Error (15124) returned from server\n",
        ))
        .stderr(predicate::str::contains("^"));
    assert!(
        stdout(h, "list server").contains(&format!("    job_sort_formula = {PBS_FORMULA}\n")),
        "old formula kept"
    );
    qmgr(h, "unset server job_sort_formula").success();
    assert!(!stdout(h, "print server").contains("job_sort_formula"));
    assert!(!stdout(h, "list server").contains("job_sort_formula"));
}

#[test]
fn syntax_error_is_15123_with_caret() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(h, "set server job_sort_formula = 'ncpus *'")
        .code(19)
        .stderr(predicate::str::starts_with(
            "qmgr obj= svr=default: Invalid Formula Format\nqmgr: Error (15123) returned from server\n",
        ))
        .stderr(predicate::str::contains("^"));
    assert!(!stdout(h, "print server").contains("job_sort_formula"));
}

#[test]
fn custom_resources_in_formulas() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(h, "set server job_sort_formula = foo")
        .code(20)
        .stderr(predicate::str::contains("Error (15124)"));
    qmgr(h, "create resource foo type=float").success();
    qmgr(h, "set server job_sort_formula = \"foo * 2 + ncpus\"").success();
    qmgr(h, "create resource bar type=string").success();
    qmgr(h, "set server job_sort_formula = bar")
        .code(21)
        .stderr(predicate::str::starts_with(
            "qmgr obj= svr=default: Formula contains a resource of an invalid type\nqmgr: Error (15125) returned from server\n",
        ));
    qmgr(h, "create resource bar")
        .code(207)
        .stderr("qmgr obj=bar svr=default: Duplicate entry in list \nqmgr: Error (15055) returned from server\n");
    // In use by the stored formula: refused, nothing changes.
    qmgr(h, "delete resource foo")
        .code(70)
        .stderr(predicate::str::starts_with(
            "qmgr obj=foo svr=default: Resource busy\nqmgr: Error (15174) returned from server\njob_sort_formula = foo * 2 + ncpus would no longer be valid",
        ));
    qmgr(h, "set resource foo type=string")
        .code(70)
        .stderr(predicate::str::contains("Error (15174)"));
    assert!(stdout(h, "list resource foo").contains("type = float"));
    qmgr(h, "delete resource bar").success();
    qmgr(h, "unset server job_sort_formula").success();
    qmgr(h, "delete resource foo").success();
    qmgr(h, "list resource foo")
        .code(1)
        .stderr(predicate::str::contains("Error (15035)"));
}

#[test]
fn builtin_resources_are_listed_and_protected() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    assert!(stdout(h, "list resource").contains("Resource ncpus\n    type = long\n"));
    assert!(stdout(h, "list resource walltime").contains("type = time"));
    qmgr(h, "create resource ncpus type=float")
        .code(207)
        .stderr(predicate::str::contains("Error (15055)"));
    qmgr(h, "delete resource ncpus")
        .code(156)
        .stderr("qmgr obj=ncpus svr=default: Invalid request\nqmgr: Error (15004) returned from server\nncpus is a built-in resource\n");
    assert_eq!(stdout(h, "print resource"), "");
}

#[test]
fn fairshare_usage_res_is_a_validated_formula() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    qmgr(
        h,
        "set sched fairshare_usage_res = \"ceil(fabs(-ncpus*(walltime/100.00)*sqrt(100)))\"",
    )
    .success();
    assert!(stdout(h, "print sched").contains(
        "set sched fairshare_usage_res = ceil(fabs(-ncpus*(walltime/100.00)*sqrt(100)))\n"
    ));
    qmgr(h, "set sched fairshare_usage_res = nosuch")
        .code(20)
        .stderr(predicate::str::starts_with(
            "qmgr obj= svr=default: Formula contains invalid keyword\nqmgr: Error (15124) returned from server\n",
        ));
}

/// As pbs_sched: `order` evaluates the server's formula, else the scheduler's (`set sched
/// job_sort_formula`), and names which one in its sources.
#[test]
fn order_uses_the_schedulers_formula_when_the_server_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let jobs = crate::common::data_str("pbs_cycles/threshold/qstat.json");
    let order = || {
        let out = crate::common::fairsort_home(h)
            .args(["order", "--json", "--jobs", &jobs])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    qmgr(h, "set sched job_sort_formula = \"ncpus*2\"").success();
    let v = order();
    assert_eq!(v["formula"], "ncpus*2");
    assert_eq!(v["sources"]["formula"]["detail"], "sched job_sort_formula");
    qmgr(h, "set server job_sort_formula = \"ncpus*2\"").success();
    let v = order();
    assert_eq!(v["formula"], "ncpus*2");
    assert_eq!(v["sources"]["formula"]["detail"], "job_sort_formula");
}
