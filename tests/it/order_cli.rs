//! `fairsort order` end to end: the PBS test vectors of openpbs.md §4.2–4.3 through real
//! `qstat -f -F json` input, `--explain`, `--against`, the built-in example, output formats and
//! errors. Values are compared with `approx` at 5e-5: the references print 4 decimals.

use approx::assert_abs_diff_eq;
use predicates::prelude::*;
use serde_json::Value;

// `fairsort()` has no home unless a test gives one: the default home must not leak in.
use crate::common::{data_str, fairsort};

const TOL: f64 = 5e-5;

/// Runs `order --json` with the §4.1 tree and usage and returns (ids in order, values, eligible).
fn order_json(jobs: &str, formula: &str, extra: &[&str]) -> Value {
    let out = fairsort()
        .args([
            "order",
            "--json",
            "--jobs",
            &data_str(&format!("order/{jobs}")),
            "--formula",
            formula,
        ])
        .args([
            "--tree",
            &data_str("order/resource_group"),
            "--usage",
            &data_str("order/usage.txt"),
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn ids(doc: &Value) -> Vec<String> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            j["id"]
                .as_str()
                .unwrap()
                .split('.')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn values(doc: &Value) -> Vec<f64> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["value"].as_f64().unwrap())
        .collect()
}

#[test]
fn fairshare_factor_plus_walltime_per_ncpus_4_2() {
    // test_fairshare_formula6: J1..J4 = 11..14; values 60.3816, 30.0902, 40.6477, 30.6477.
    let doc = order_json(
        "formula6_qstat.json",
        "fairshare_factor + (walltime/ncpus)",
        &[],
    );
    assert_eq!(ids(&doc), ["11", "13", "14", "12"], "order J1, J3, J4, J2");
    for (v, want) in values(&doc)
        .iter()
        .zip([60.3816, 40.6477, 30.6477, 30.0902])
    {
        assert_abs_diff_eq!(*v, want, epsilon = TOL);
    }
    assert_eq!(doc["jobs"][0]["rank"], 1);
    assert_eq!(doc["jobs"][0]["eligible"], true);
    assert_eq!(doc["jobs"][0]["error"], Value::Null);
    assert_eq!(doc["formula"], "fairshare_factor + (walltime/ncpus)");
}

#[test]
fn fairshare_formulas_keep_submission_order_on_ties_4_2() {
    // test_fairshare_formula3/4/5: J1 pbsuser2, J2 pbsuser3, J3 pbsuser, J4 pbsuser1;
    // 0.3816, 0.0902, 0.6477, 0.6477 → J3, J4, J1, J2 (equal values keep submission order).
    for (formula, extra) in [
        ("pow(2,-(fairshare_tree_usage/fairshare_perc))", &[][..]),
        ("fairshare_factor", &[][..]),
        ("fairshare_factor", &["--fair-share"][..]),
        ("fairshare_factor", &["--pbs-compat"][..]),
    ] {
        let doc = order_json("formula3_qstat.json", formula, extra);
        assert_eq!(ids(&doc), ["43", "44", "41", "42"], "{formula} {extra:?}");
        for (v, want) in values(&doc).iter().zip([0.6477, 0.6477, 0.3816, 0.0902]) {
            assert_abs_diff_eq!(*v, want, epsilon = TOL);
        }
    }
    // fairshare_tree_usage and fairshare_perc alone (test_fairshare_formula, formula2).
    let doc = order_json("formula3_qstat.json", "fairshare_tree_usage", &[]);
    assert_eq!(ids(&doc), ["42", "41", "43", "44"]);
    for (v, want) in values(&doc).iter().zip([0.8330, 0.5004, 0.1253, 0.1253]) {
        assert_abs_diff_eq!(*v, want, epsilon = TOL);
    }
    let doc = order_json("formula3_qstat.json", "fairshare_perc", &[]);
    for (v, want) in values(&doc).iter().zip([0.36, 0.24, 0.2, 0.2]) {
        assert_abs_diff_eq!(*v, want, epsilon = TOL);
    }
}

#[test]
fn threshold_4_3() {
    let doc = order_json(
        "threshold_qstat.json",
        "ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))",
        &["--threshold", "7"],
    );
    assert_eq!(ids(&doc), ["24", "23", "22", "21"]);
    assert_eq!(values(&doc), [9.0, 8.0, 7.0, 6.0]);
    let eligible: Vec<bool> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["eligible"].as_bool().unwrap())
        .collect();
    assert_eq!(
        eligible,
        [true, true, false, false],
        "jobs valued 7 and 6 are not eligible"
    );
    assert_eq!(
        doc["jobs"][2]["comment"],
        "Not Running: Job is under job_sort_formula threshold value"
    );
    assert_eq!(doc["threshold"], 7.0);
}

#[test]
fn negative_custom_float_resource_4_2() {
    // test_job_sort_formula_negative_value: foo=-2 (J1), foo=-1 (J2) → J2 first.
    let doc = order_json("negative_qstat.json", "foo", &["--resource", "foo=float"]);
    assert_eq!(ids(&doc), ["32", "31"]);
    assert_eq!(values(&doc), [-1.0, -2.0]);
}

#[test]
fn evaluation_errors_give_zero_and_keep_the_message() {
    let doc = order_json("formula3_qstat.json", "1/(ncpus-1)", &[]);
    for j in doc["jobs"].as_array().unwrap() {
        assert_eq!(j["value"], 0.0);
        assert_eq!(j["error"], "division by zero");
    }
    assert_eq!(
        ids(&doc),
        ["41", "42", "43", "44"],
        "all 0: submission order"
    );
}

#[test]
fn table_csv_and_top() {
    fairsort()
        .args(["order", "--jobs", &data_str("order/formula6_qstat.json")])
        .args([
            "--tree",
            &data_str("order/resource_group"),
            "--usage",
            &data_str("order/usage.txt"),
        ])
        .args([
            "--formula",
            "fairshare_factor + (walltime/ncpus)",
            "--top",
            "2",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "rank  job id  owner     queue    value  status",
        ))
        .stdout(predicate::str::contains(
            "   1  11.pbs  pbsuser2  workq  60.3816  eligible",
        ))
        .stdout(predicate::str::contains("13.pbs"))
        .stdout(predicate::str::contains("14.pbs").not())
        .stdout(predicate::str::contains("... 2 more (showing the top 2)"));
    let out = fairsort()
        .args([
            "order",
            "--csv",
            "--jobs",
            &data_str("order/threshold_qstat.json"),
        ])
        .args([
            "--formula",
            "ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))",
            "--threshold",
            "7",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "rank,job_id,owner,queue,value,status,error");
    assert_eq!(lines[1], "1,24.pbs,pbsuser,workq,9,eligible,");
    assert_eq!(lines[4], "4,21.pbs,pbsuser,workq,6,below threshold,");
}

#[test]
fn explain_shows_keywords_terms_fair_share_and_the_next_job() {
    let out = fairsort()
        .args(["order", "--jobs", &data_str("order/formula6_qstat.json")])
        .args([
            "--tree",
            &data_str("order/resource_group"),
            "--usage",
            &data_str("order/usage.txt"),
        ])
        .args([
            "--formula",
            "fairshare_factor + (walltime/ncpus)",
            "--explain",
            "13",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("job 13.pbs: rank 2 of 4, value 40.6477 (eligible)"),
        "{text}"
    );
    assert!(text.contains("walltime"), "{text}");
    assert!(
        text.contains("120"),
        "walltime 00:02:00 bound as 120 s: {text}"
    );
    assert!(text.contains("+ fairshare_factor"), "{text}");
    assert!(text.contains("+ (walltime/ncpus)"), "{text}");
    assert!(text.contains("fair share of entity `pbsuser`"), "{text}");
    assert!(
        text.contains(
            "above the next job 14.pbs (value 30.6477): its value 40.6477 is higher than 30.6477"
        ),
        "{text}"
    );
    // JSON: bound keywords and term values as numbers.
    let out = fairsort()
        .args([
            "order",
            "--json",
            "--jobs",
            &data_str("order/formula6_qstat.json"),
        ])
        .args([
            "--tree",
            &data_str("order/resource_group"),
            "--usage",
            &data_str("order/usage.txt"),
        ])
        .args([
            "--formula",
            "fairshare_factor + (walltime/ncpus)",
            "--explain",
            "13.pbs",
        ])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rank"], 2);
    let kw = doc["keywords"].as_array().unwrap();
    let get = |name: &str| {
        kw.iter()
            .find(|k| k["keyword"] == name)
            .and_then(|k| k["value"].as_f64())
            .unwrap()
    };
    assert_abs_diff_eq!(get("fairshare_factor"), 0.647718, epsilon = 1e-6);
    assert_eq!(get("walltime"), 120.0);
    assert_eq!(get("ncpus"), 3.0);
    let terms = doc["terms"].as_array().unwrap();
    assert_abs_diff_eq!(
        terms[0]["value"].as_f64().unwrap(),
        0.647718,
        epsilon = 1e-6
    );
    assert_abs_diff_eq!(terms[1]["value"].as_f64().unwrap(), 40.0, epsilon = 1e-12);
    assert_eq!(doc["entity"], "pbsuser");
    assert_eq!(doc["next"]["id"], "14.pbs");
    assert!(doc["fair_share"]["path"].as_array().unwrap().len() >= 3);
    // Ties: J4 and J1 in formula3 are equal; the explanation says submission order decides.
    fairsort()
        .args(["order", "--jobs", &data_str("order/formula3_qstat.json")])
        .args([
            "--tree",
            &data_str("order/resource_group"),
            "--usage",
            &data_str("order/usage.txt"),
        ])
        .args(["--formula", "fairshare_factor", "--explain", "43"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "above the next job 44.pbs (value 0.6477): equal values; submitted earlier (qtime)",
        ));
    fairsort()
        .args([
            "order",
            "--jobs",
            &data_str("order/formula3_qstat.json"),
            "--formula",
            "ncpus",
        ])
        .args(["--explain", "99"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no job `99` in the queue"));
}

#[test]
fn against_compares_two_formulas() {
    // fairshare_factor vs -fairshare_factor: the order reverses except ties keep submission order.
    let out = fairsort()
        .args([
            "order",
            "--json",
            "--jobs",
            &data_str("order/formula6_qstat.json"),
        ])
        .args([
            "--tree",
            &data_str("order/resource_group"),
            "--usage",
            &data_str("order/usage.txt"),
        ])
        .args(["--formula", "fairshare_factor + (walltime/ncpus)"])
        .args(["--against", "fairshare_factor"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // current: 11, 13, 14, 12; against (factor only): 13 (.6477), 14 (.6477), 11 (.3816), 12 (.0902).
    let rows = doc["jobs"].as_array().unwrap();
    let pairs: Vec<(String, u64, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["rank"].as_u64().unwrap(),
                r["rank_against"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("11.pbs".to_string(), 1, 3),
            ("13.pbs".to_string(), 2, 1),
            ("14.pbs".to_string(), 3, 2),
            ("12.pbs".to_string(), 4, 4)
        ]
    );
    // d = (-2, 1, 1, 0): rho = 1 - 6*6/(4*15) = 0.4; discordant pairs 2 of 6: tau = 1/3.
    assert_abs_diff_eq!(doc["spearman"].as_f64().unwrap(), 0.4, epsilon = 1e-12);
    assert_abs_diff_eq!(doc["kendall"].as_f64().unwrap(), 1.0 / 3.0, epsilon = 1e-12);
    assert_eq!(doc["movers"][0]["id"], "11.pbs");
    assert_eq!(doc["movers"][0]["moved"], -2);
    assert_abs_diff_eq!(
        rows[0]["value_against"].as_f64().unwrap(),
        0.3816,
        epsilon = TOL
    );
    fairsort()
        .args(["order", "--jobs", &data_str("order/formula6_qstat.json")])
        .args([
            "--tree",
            &data_str("order/resource_group"),
            "--usage",
            &data_str("order/usage.txt"),
        ])
        .args(["--formula", "fairshare_factor + (walltime/ncpus)"])
        .args(["--against", "fairshare_factor"])
        .assert()
        .success()
        .stdout(predicate::str::contains("against:  fairshare_factor"))
        .stdout(predicate::str::contains("11.pbs          1 -> 3    (-2)"))
        .stdout(predicate::str::contains(
            "rank correlation: Spearman 0.4000, Kendall tau 0.3333",
        ));
}

#[test]
fn example_runs_with_no_setup() {
    fairsort()
        .args(["order", "--example"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "fairsort order: PBS cluster (seed 004 share tree)",
        ))
        .stdout(predicate::str::contains(
            "   2  101.pbs  bob    workq    0.7311  eligible",
        ))
        .stdout(predicate::str::contains(
            "104.pbs  scott  workq    0.0971  below threshold",
        ))
        .stdout(predicate::str::contains("placed under `unknown`"));
    let out = fairsort()
        .args(["order", "--example", "slurm-tree", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        ids(&doc)[0],
        "5005",
        "dan has no usage: highest Fair Tree factor"
    );
}

#[test]
fn example_slurm_is_the_multifactor_site() {
    let slurm = fairsort()
        .args(["order", "--example", "slurm"])
        .output()
        .unwrap();
    assert!(slurm.status.success(), "{slurm:?}");
    let text = String::from_utf8_lossy(&slurm.stdout);
    for column in [
        "JOBID",
        "PARTITION",
        "PRIORITY",
        "AGE",
        "FAIRSHARE",
        "JOBSIZE",
        "QOS",
    ] {
        assert!(text.contains(column), "no {column} column:\n{text}");
    }
    let sprio = fairsort()
        .args(["order", "--example", "sprio"])
        .output()
        .unwrap();
    assert_eq!(slurm.stdout, sprio.stdout, "`sprio` is the older name");
}

#[test]
fn user_and_usage_errors() {
    fairsort()
        .args([
            "order",
            "--jobs",
            &data_str("order/formula3_qstat.json"),
            "--formula",
            "ncpus +",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("^"));
    fairsort()
        .args([
            "order",
            "--jobs",
            &data_str("order/formula3_qstat.json"),
            "--formula",
            "bogus",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("Formula contains invalid keyword"));
    fairsort()
        .args([
            "order",
            "--jobs",
            &data_str("order/formula3_qstat.json"),
            "--formula",
            "fairshare_factor",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("needs a share tree"));
    fairsort()
        .args(["order", "--formula", "ncpus"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no jobs"));
    fairsort()
        .args([
            "order",
            "--jobs",
            "/nonexistent/jobs.json",
            "--formula",
            "ncpus",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "cannot read /nonexistent/jobs.json",
        ));
    fairsort()
        .args(["order", "--example", "--top", "x"])
        .assert()
        .code(2);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"Jobs":{"5.pbs":{"Job_Owner":"a@h","Resource_List":{"mem":"lots"}}}}"#,
    )
    .unwrap();
    fairsort()
        .args(["order", "--jobs", bad.to_str().unwrap(), "--formula", "mem"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "job `5.pbs`: Resource_List.mem = `lots` is not a number",
        ));
    std::fs::write(
        &bad,
        r#"{"Jobs":{"5.pbs":{"Job_Owner":"a@h","Priority":"high"}}}"#,
    )
    .unwrap();
    fairsort()
        .args([
            "order",
            "--jobs",
            bad.to_str().unwrap(),
            "--formula",
            "job_priority",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "job `5.pbs`: Priority: expected an integer",
        ));
}

#[test]
fn jobs_from_stdin_and_csv_lists() {
    fairsort()
        .args(["order", "--jobs", "-", "--formula", "ncpus", "--csv"])
        .write_stdin("id,user,qtime,ncpus\n1,a,1,2\n2,b,2,8\n")
        .assert()
        .success()
        .stdout(predicate::str::contains("1,2,b,,8,eligible,"));
}

#[test]
fn server_home_supplies_formula_threshold_queues_tree_and_usage() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("server.toml"),
        "[server]\njob_sort_formula = \"fairshare_factor + (walltime/ncpus) + queue_priority\"\n\
         managers = [\"root@*\"]\n\n[sched]\njob_sort_formula_threshold = 36.0\n\n\
         [queues.workq]\npriority = 5\n",
    )
    .unwrap();
    std::fs::copy(
        data_str("order/resource_group"),
        home.path().join("resource_group"),
    )
    .unwrap();
    std::fs::write(
        home.path().join("usage.toml"),
        "version = 1\n\n[[entity]]\nname = \"pbsuser\"\nusage = 100.0\n\n[[entity]]\n\
         name = \"pbsuser1\"\nusage = 100.0\n\n[[entity]]\nname = \"pbsuser3\"\nusage = 1000.0\n",
    )
    .unwrap();
    let out = fairsort()
        .args(["--home", home.path().to_str().unwrap()])
        .args([
            "order",
            "--json",
            "--jobs",
            &data_str("order/formula6_qstat.json"),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ids(&doc), ["11", "13", "14", "12"]);
    for (v, want) in values(&doc)
        .iter()
        .zip([65.3816, 45.6477, 35.6477, 35.0902])
    {
        assert_abs_diff_eq!(*v, want, epsilon = TOL);
    }
    let eligible: Vec<bool> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["eligible"].as_bool().unwrap())
        .collect();
    assert_eq!(eligible, [true, true, false, false]);
    // A flag overrides the home's formula.
    let out = fairsort()
        .args(["--home", home.path().to_str().unwrap()])
        .args([
            "order",
            "--json",
            "--jobs",
            &data_str("order/formula6_qstat.json"),
            "--formula",
            "ncpus",
        ])
        .args(["--no-threshold"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ids(&doc), ["14", "13", "12", "11"]);
    // --home naming a directory that is not a home is an error, not a silent default.
    let empty = tempfile::tempdir().unwrap();
    fairsort()
        .args(["--home", empty.path().to_str().unwrap()])
        .args([
            "order",
            "--jobs",
            &data_str("order/formula6_qstat.json"),
            "--formula",
            "ncpus",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no fairsort home at"));
}

#[test]
fn jobs_without_an_association_in_a_slurm_tree_are_named_in_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = crate::common::write(
        dir.path(),
        "jobs.json",
        r#"[{"id":"1","user":"carol","account":"chem","qtime":1},
            {"id":"2","user":"mallory","account":"chem","qtime":2},
            {"id":"3","user":"mallory","account":"chem","qtime":3}]"#,
    );
    let out = fairsort()
        .args(["order", "--formula", "fairtree_factor", "--tree"])
        .arg(crate::common::data("slurm/site_capture.psv"))
        .arg("--jobs")
        .arg(&jobs)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains(
            "note:       2 jobs of 1 association not in the tree get no fair-share values (0): chem/mallory"
        ),
        "{text}"
    );
}

#[test]
fn slurm_at_takes_epoch_seconds_or_iso_8601() {
    let run = |at: &str| {
        let out = fairsort()
            .args(["order", "--example", "slurm", "--json", "--at", at])
            .output()
            .unwrap();
        assert!(out.status.success(), "--at {at}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let epoch = run("1795629424");
    assert!(epoch == run("2026-11-25T17:57:04Z"), "ISO 8601 in UTC");
    assert!(epoch == run("2026-11-25T18:57:04+01:00"), "with an offset");
    assert!(epoch != run("1795639424"), "a later second ages the jobs");
    fairsort()
        .args(["order", "--example", "slurm", "--at", "yesterday"])
        .assert()
        .code(2);
}

#[test]
fn with_jobs_and_tree_files_read_at_once_the_jobs_error_comes_first() {
    // The tree file is read while the jobs are: a bad jobs file is still the error
    // reported when the tree and usage files are bad too, and a bad tree file is reported when
    // the jobs are right.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    std::fs::write(&tree, "grp1 10 root 10\ngrp1 11 root 10\n").unwrap();
    let usage = dir.path().join("usage.txt");
    std::fs::write(&usage, "not a usage file\n").unwrap();
    let good_tree = data_str("order/resource_group");
    let run = |jobs: &str, tree: &str, usage: Option<&str>| {
        let mut cmd = fairsort();
        cmd.args([
            "order",
            "--jobs",
            jobs,
            "--formula",
            "ncpus",
            "--tree",
            tree,
        ]);
        if let Some(u) = usage {
            cmd.args(["--usage", u]);
        }
        cmd.output().unwrap()
    };
    let tree = tree.to_string_lossy().into_owned();
    let usage = usage.to_string_lossy().into_owned();
    let jobs = data_str("order/formula3_qstat.json");
    for u in [None, Some(usage.as_str())] {
        let out = run("/nonexistent/jobs.json", &tree, u);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot read /nonexistent/jobs.json"), "{err}");
        assert!(!err.contains(&tree), "{err}");
        let out = run(&jobs, &tree, u);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&tree), "the tree file is named: {err}");
    }
    let out = run(&jobs, &good_tree, Some(&usage));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&usage), "the usage file is named: {err}");
    assert!(run(&jobs, &good_tree, None).status.success());
}

/// `--formula-file` reads a real PBS `sched_priv/sched_formula` (header line, then the formula):
/// the same order and values as `--formula` with its text, the file named as the formula's
/// source; a file without a formula, or missing, is one line naming it, exit 1.
#[test]
fn formula_file_reads_the_schedulers_sched_formula() {
    let dir = data_str("pbs_cycles/fairshare_factor_formula");
    let run = |formula_args: &[&str]| {
        let out = fairsort()
            .args(["order", "--json", "--jobs", &format!("{dir}/qstat.json")])
            .args(["--tree", &format!("{dir}/resource_group")])
            .args(formula_args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v
    };
    let from_file = run(&["--formula-file", &format!("{dir}/sched_formula")]);
    let from_flag = run(&[
        "--formula",
        "pow(2, -(fairshare_tree_usage/fairshare_perc))",
    ]);
    assert_eq!(from_file["jobs"], from_flag["jobs"]);
    assert!(from_file["jobs"].as_array().is_some_and(|j| j.len() == 10));
    assert_eq!(from_file["sources"]["formula"]["flag"], "--formula-file");
    assert_eq!(
        from_file["sources"]["formula"]["path"],
        format!("{dir}/sched_formula")
    );

    let empty = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(empty.path(), "### PBS INTERNAL FILE DO NOT MODIFY ###\n").unwrap();
    let name = empty.path().display().to_string();
    fairsort()
        .args(["order", "--jobs", &format!("{dir}/qstat.json")])
        .args(["--formula-file", &name])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(format!(
            "fairsort: {name}: no formula"
        )));
    fairsort()
        .args(["order", "--formula", "ncpus", "--formula-file", &name])
        .assert()
        .code(2);
}
