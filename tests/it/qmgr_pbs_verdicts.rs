//! `fairsort qmgr` against real OpenPBS 23.06.06 qmgr (`tests/data/pbs_cycles/qmgr_verdicts.tsv`,
//! captured by `capture.sh verdicts`): the same requests, in the same order, on a fresh home
//! with the capture's base queue `workq`, give real qmgr's exit status and begin their
//! standard error with real qmgr's lines (fairsort's explanation lines come after them).

use crate::common::{data, fairsort_home};

/// Rows fairsort cannot answer as real qmgr does, and why. Each is checked to still differ, so
/// that the list stays true.
const NOT_MATCHED: &[(&str, &str)] = &[
    (
        r#"set server job_sort_formula = "math.log(ncpus)""#,
        "attribute access is outside fairsort's formula language (PBS: NameError, 15124)",
    ),
    (
        r#"set server job_sort_formula = 'ncpus + (1 if "a" else 0)'"#,
        "string literals are outside fairsort's formula language",
    ),
    (
        r#"set server job_sort_formula = 'len("ab")'"#,
        "string literals and len() are outside fairsort's formula language",
    ),
    (
        r#"set server job_sort_formula = "None""#,
        "None is outside fairsort's formula language",
    ),
    (
        r#"set server job_sort_formula = "lambda: 1""#,
        "lambda is outside fairsort's formula language",
    ),
    (
        r#"set server job_sort_formula = "[ncpus][0]""#,
        "lists are outside fairsort's formula language",
    ),
    (
        r#"set server job_sort_formula = "ncpus; 1""#,
        "statements are outside fairsort's formula language",
    ),
    (
        r#"set server job_sort_formula = '__import__("os")'"#,
        "fairsort refuses what could run code",
    ),
    (
        r#"set server job_sort_formula = "ncpus,mem""#,
        "tuples are outside fairsort's formula language",
    ),
    (
        "set sched job_sort_formula_threshold = inf",
        "fairsort keeps the threshold finite",
    ),
    (
        "set sched job_sort_formula_threshold = nan",
        "fairsort keeps the threshold finite",
    ),
    (
        "list sched nosuch",
        "real qmgr prints nothing and succeeds; fairsort names the unknown scheduler",
    ),
];

/// PBS attributes fairsort keeps without modelling them: it checks their names, booleans and
/// the integers PBS's client checks, but not the values only PBS's server checks, so it accepts
/// these rows that real PBS refuses.
const VALUE_NOT_CHECKED: &[&str] = &[
    "set sched preempt_queue_prio = abc",
    r#"set sched preempt_prio = "bogus_class""#,
    r#"set sched preempt_prio = "starving_jobs, normal_jobs""#,
    r#"set sched preempt_order = "XYZ""#,
    "set sched preempt_sort = bogus",
    "set server resources_default.ncpus = abc",
];

/// A TSV field as `capture.sh` escaped it (`\\`, `\t`, `\n`, `\r`).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

#[test]
fn every_captured_verdict_is_real_qmgrs() {
    let text = std::fs::read_to_string(data("pbs_cycles/qmgr_verdicts.tsv")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    let base = fairsort_home(&home)
        .args(["qmgr", "-c", "create queue workq"])
        .output()
        .unwrap();
    assert!(base.status.success(), "{base:?}");
    let (mut matched, mut listed) = (0, 0);
    let mut failures = Vec::new();
    for row in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = row.split('\t').collect();
        assert_eq!(cols.len(), 4, "{row}");
        let (cmd, status, pbs_err) = (unescape(cols[0]), cols[1], unescape(cols[3]));
        let out = fairsort_home(&home)
            .args(["qmgr", "-c", &cmd])
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1).to_string();
        let err = String::from_utf8_lossy(&out.stderr);
        let same = code == status && err.starts_with(pbs_err.as_str());
        let excused =
            NOT_MATCHED.iter().any(|(c, _)| *c == cmd) || VALUE_NOT_CHECKED.contains(&cmd.as_str());
        match (same, excused) {
            (true, false) => matched += 1,
            (false, true) => listed += 1,
            (true, true) => failures.push(format!("{cmd}: now matches; take it off the list")),
            (false, false) => failures.push(format!(
                "{cmd}: real qmgr {status} {pbs_err:?}, fairsort {code} {err:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(matched + listed, text.lines().count() - 1);
    assert!(matched >= 112, "{matched} rows matched");
}

#[test]
fn a_stored_formula_pbs_sched_would_crash_on_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    let out = fairsort_home(&home)
        .args(["qmgr", "-c", "set server job_sort_formula = '\"\"'"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("warning: OpenPBS 23.06 pbs_sched: the `\"` at column 1"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let quiet = fairsort_home(&home)
        .args([
            "qmgr",
            "-c",
            "set server job_sort_formula = \"ans + ncpus\"",
        ])
        .output()
        .unwrap();
    assert!(quiet.status.success(), "{quiet:?}");
    assert!(quiet.stderr.is_empty(), "{quiet:?}");
    // the server's formula is now `ans + ncpus`: a different scheduler formula is 15226 (122)
    let incompatible = fairsort_home(&home)
        .args(["qmgr", "-c", "set sched job_sort_formula = ncpus"])
        .output()
        .unwrap();
    assert_eq!(incompatible.status.code(), Some(122), "{incompatible:?}");
}
