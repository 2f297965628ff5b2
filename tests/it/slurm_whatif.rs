//! What-if on a Slurm site: the multifactor factors as formula keywords (`--formula`,
//! `--against FORMULA`) and changed weights (`--against-weights`), over the fixture site of
//! tests/data/slurm_priority (weights Age 1000, Fairshare 10000, ..., SlurmDBD on, Fair Tree).
//! Every value is checked against the factors the plain `--json` run prints (relative 1e-12),
//! integers exactly.

use crate::common::{data_str, fairsort, json_of};
use approx::assert_relative_eq;
use serde_json::Value;

const AT: &str = "1764000000";

fn site_args() -> Vec<String> {
    let mut v = vec!["order".to_string(), "--slurm-conf".into()];
    v.push(data_str("slurm_priority/slurm.conf"));
    for (flag, file) in [
        ("--jobs", "squeue.json"),
        ("--tree", "sshare.psv"),
        ("--qos", "qos.psv"),
        ("--assoc", "assoc.psv"),
    ] {
        v.push(flag.into());
        v.push(data_str(&format!("slurm_priority/{file}")));
    }
    v.push("--at".into());
    v.push(AT.into());
    v
}

fn ok(extra: &[&str]) -> Value {
    let out = fairsort().args(site_args()).args(extra).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out.stdout)
}

fn fails(extra: &[&str]) -> String {
    let out = fairsort().args(site_args()).args(extra).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The plain run's row of (id, partition).
fn base_row<'a>(base: &'a Value, id: &str, part: &str) -> &'a Value {
    base["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id && r["partition"] == part)
        .unwrap()
}

fn n(r: &Value, k: &str) -> f64 {
    r["normalized"][k].as_f64().unwrap()
}

#[test]
fn a_formula_over_the_factors_orders_the_rows() {
    let base = ok(&["--json"]);
    let d = ok(&[
        "--formula",
        "age_factor*5000 + fairshare_factor*20000",
        "--json",
    ]);
    let jobs = d["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 7);
    let mut last = f64::INFINITY;
    for (i, r) in jobs.iter().enumerate() {
        assert_eq!(r["rank"], i + 1);
        let b = base_row(
            &base,
            r["id"].as_str().unwrap(),
            r["partition"].as_str().unwrap(),
        );
        let want = n(b, "age") * 5000.0 + n(b, "fairshare") * 20000.0;
        let got = r["value"].as_f64().unwrap();
        assert_relative_eq!(got, want, max_relative = 1e-12);
        assert_eq!(r["priority"], b["priority"]);
        assert!(got <= last);
        last = got;
    }
    // erin (Fair Tree factor 1) first.
    assert_eq!(jobs[0]["id"], "105");
}

#[test]
fn every_factor_keyword_is_the_unweighted_factor() {
    let base = ok(&["--json"]);
    let keywords = [
        ("age_factor", "age"),
        ("assoc_factor", "assoc"),
        ("jobsize_factor", "jobsize"),
        ("partition_factor", "partition"),
        ("qos_factor", "qos"),
        ("nice_factor", "nice"),
        ("fairshare_factor", "fairshare"),
        // The site runs Fair Tree: its factor is the site's.
        ("fairtree_factor", "fairshare"),
    ];
    for (kw, factor) in keywords {
        let d = ok(&["--formula", kw, "--json"]);
        for r in d["jobs"].as_array().unwrap() {
            let b = base_row(
                &base,
                r["id"].as_str().unwrap(),
                r["partition"].as_str().unwrap(),
            );
            assert_relative_eq!(
                r["value"].as_f64().unwrap(),
                n(b, factor),
                max_relative = 1e-12
            );
        }
    }
    // tres_factor is the weighted TRES term; slurm_priority sprio's PRIORITY.
    let d = ok(&["--formula", "tres_factor + 1e6*slurm_priority", "--json"]);
    for r in d["jobs"].as_array().unwrap() {
        let b = base_row(
            &base,
            r["id"].as_str().unwrap(),
            r["partition"].as_str().unwrap(),
        );
        let tres: f64 = b["factors"]["tres"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .sum();
        let want = tres + 1e6 * b["priority"].as_f64().unwrap();
        assert_relative_eq!(r["value"].as_f64().unwrap(), want, max_relative = 1e-12);
    }
}

#[test]
fn against_weights_is_sprio_under_the_new_weights() {
    let base = ok(&["--json"]);
    let d = ok(&["--against-weights", "PriorityWeightAge=100000", "--json"]);
    assert_eq!(d["total"], 7);
    for r in d["jobs"].as_array().unwrap() {
        let b = base_row(
            &base,
            r["id"].as_str().unwrap(),
            r["partition"].as_str().unwrap(),
        );
        let f = &b["factors"];
        let get = |k: &str| f[k].as_f64().unwrap();
        let tres: f64 = f["tres"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .sum();
        let sum = n(b, "age") * 100000.0
            + get("assoc")
            + get("fairshare")
            + get("jobsize")
            + get("partition")
            + get("qos")
            + get("site")
            - get("nice")
            + tres;
        assert_eq!(r["value_against"].as_f64().unwrap(), sum.max(1.0).trunc());
        assert_eq!(r["value"].as_f64(), b["priority"].as_f64());
    }
    // The 9-day-old 103 first under the new weights.
    let first = d["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rank_against"] == 1)
        .unwrap();
    assert_eq!(first["id"], "103");
}

#[test]
fn against_a_formula_ranks_as_that_formula_orders() {
    let alone = ok(&["--formula", "qos_factor*3 + age_factor", "--json"]);
    let d = ok(&["--against", "qos_factor*3 + age_factor", "--json"]);
    for r in d["jobs"].as_array().unwrap() {
        let mine = alone["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == r["id"] && x["partition"] == r["partition"])
            .unwrap();
        assert_eq!(r["rank_against"], mine["rank"]);
        assert_eq!(r["value_against"], mine["value"]);
    }
    // The same order twice: correlation 1, nobody moves.
    let same = ok(&[
        "--formula",
        "slurm_priority",
        "--against",
        "slurm_priority*2",
        "--json",
    ]);
    assert_eq!(same["spearman"], 1.0);
    assert_eq!(same["kendall"], 1.0);
    assert!(same["movers"].as_array().unwrap().is_empty());
}

#[test]
fn keywords_without_a_meaning_on_a_slurm_site_are_refused() {
    let e = fails(&["--formula", "job_priority"]);
    assert!(
        e.contains("job_priority") && e.contains("slurm_priority"),
        "{e}"
    );
    let e = fails(&["--formula", "fairshare_perc"]);
    assert!(e.contains("PBS"), "{e}");
    let e = fails(&["--formula", "agefactor"]);
    assert!(e.contains("age_factor"), "{e}");
    // A Slurm factor outside a Slurm site is an error, never a silent 0.
    let out = fairsort()
        .args(["order", "--example", "pbs", "--formula", "age_factor"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("age_factor") && e.contains("--slurm-conf"),
        "{e}"
    );
}

#[test]
fn explain_shows_the_formula_keywords() {
    let out = fairsort()
        .args(site_args())
        .args(["--formula", "qos_factor + ncpus", "--explain", "102"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // Job 102: QOS high (100 of 100), 8 CPUs, in two partitions.
    assert!(text.contains("for job 102 in gpu: 9"), "{text}");
    assert!(text.contains("for job 102 in batch: 9"), "{text}");
    assert!(text.contains("ncpus                  = 8"), "{text}");
}
