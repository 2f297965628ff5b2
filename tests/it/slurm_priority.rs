//! Slurm's multifactor priority through `fairsort order --slurm-conf`: the three job formats
//! (squeue --json 23.02+, 22.05, squeue pipe) give the same rows; every factor is checked by hand
//! from the C formulas (priority_multifactor.c `set_priority_factors`) over
//! tests/data/slurm_priority (8 nodes × 32 CPUs in `batch`, 2 GPU nodes in `gpu`; weights Age
//! 1000, Assoc 500, Fairshare 10000, JobSize 1000, Partition 2000, QOS 3000,
//! TRES CPU=1000,Mem=500,GRES/gpu=4000). Values compare within 1e-9 relative; integers exactly.

use crate::common::{data_str, fairsort, json_of};
use approx::assert_relative_eq;
use serde_json::Value;

const AT: &str = "1764000000";

fn run(jobs: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "order".to_string(),
        "--slurm-conf".into(),
        data_str("slurm_priority/slurm.conf"),
        "--jobs".into(),
        data_str(&format!("slurm_priority/{jobs}")),
        "--tree".into(),
        data_str("slurm_priority/sshare.psv"),
        "--qos".into(),
        data_str("slurm_priority/qos.psv"),
        "--assoc".into(),
        data_str("slurm_priority/assoc.psv"),
        "--at".into(),
        AT.into(),
        "--json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = fairsort().args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out.stdout)
}

fn row<'a>(doc: &'a Value, id: &str, part: &str) -> &'a Value {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id && r["partition"] == part)
        .unwrap_or_else(|| panic!("no row {id}/{part}"))
}

fn f(r: &Value, k: &str) -> f64 {
    r["factors"][k].as_f64().unwrap()
}

#[test]
fn the_three_job_formats_agree() {
    let a = run("squeue.json", &[]);
    assert_eq!(a, run("squeue_2205.json", &[]));
    assert_eq!(a, run("squeue.txt", &[]));
    // 6 pending jobs, one in two partitions; the running job has no row.
    assert_eq!(a["jobs"].as_array().unwrap().len(), 7);
    assert_eq!(a["not_pending"], 1);
}

#[test]
fn every_factor_by_hand() {
    let d = run("squeue.json", &[]);
    let tol = 1e-9;
    // Job 101: alice/physics in batch, accrued 3 days ago, 1 node, 4 CPUs, 16G.
    let r = row(&d, "101", "batch");
    assert_relative_eq!(f(r, "age"), 3.0 / 7.0 * 1000.0, max_relative = tol);
    // physics priority 10 (alice inherits it) / max 50 (dave).
    assert_relative_eq!(f(r, "assoc"), 10.0 / 50.0 * 500.0, max_relative = tol);
    // Fair Tree factor of physics/alice in the capture: 0.142857 = 1/7.
    assert_relative_eq!(f(r, "fairshare"), 10000.0 / 7.0, max_relative = 1e-6);
    assert_relative_eq!(
        f(r, "jobsize"),
        (1.0 / 10.0 + 4.0 / 320.0) / 2.0 * 1000.0,
        max_relative = tol
    );
    assert_relative_eq!(f(r, "partition"), 1.0 / 8.0 * 2000.0, max_relative = tol);
    assert_relative_eq!(f(r, "qos"), 10.0 / 100.0 * 3000.0, max_relative = tol);
    assert_relative_eq!(
        r["factors"]["tres"]["cpu"].as_f64().unwrap(),
        4.0 / 256.0 * 1000.0,
        max_relative = tol
    );
    assert_relative_eq!(
        r["factors"]["tres"]["mem"].as_f64().unwrap(),
        16384.0 / (8.0 * 192000.0) * 500.0,
        max_relative = tol
    );
    let sum: f64 = ["age", "assoc", "fairshare", "jobsize", "partition", "qos"]
        .iter()
        .map(|k| f(r, k))
        .sum::<f64>()
        + r["factors"]["tres"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .sum::<f64>();
    assert_eq!(r["priority"], sum.trunc() as i64);
    assert_eq!(r["priority"], 2584);

    // Job 102 in two partitions: TRES over each row's partition, the partition factor per row.
    let g = row(&d, "102", "gpu");
    let b = row(&d, "102", "batch");
    assert_relative_eq!(f(g, "partition"), 0.5 * 2000.0, max_relative = tol);
    assert_relative_eq!(f(b, "partition"), 0.125 * 2000.0, max_relative = tol);
    assert_relative_eq!(
        g["factors"]["tres"]["gres/gpu"].as_f64().unwrap(),
        1.0 / 8.0 * 4000.0,
        max_relative = tol
    );
    assert!(b["factors"]["tres"]["gres/gpu"].as_f64().unwrap() == 0.0);
    assert_eq!(g["priority"], 7802);
    assert_eq!(b["priority"], 6453);

    // Job 103: nice 100 is subtracted; accrued 9 days ago → age 1.
    let c = row(&d, "103", "gpu");
    assert_eq!(f(c, "nice"), 100.0);
    assert_eq!(f(c, "age"), 1000.0);
    // Job 104: nice −50 raises; QOS priority 0 gives 0.
    let dv = row(&d, "104", "debug");
    assert_eq!(f(dv, "nice"), -50.0);
    assert_eq!(f(dv, "qos"), 0.0);
    // Job 105: accrue_time 0 (held / not yet accruing) → no age; idle inherits root's 1.
    let e = row(&d, "105", "batch");
    assert_eq!(f(e, "age"), 0.0);
    assert_relative_eq!(f(e, "assoc"), 1.0 / 50.0 * 500.0, max_relative = tol);
    assert_relative_eq!(
        f(e, "jobsize"),
        (0.4 + 0.4) / 2.0 * 1000.0,
        max_relative = tol
    );
}

#[test]
fn table_explain_and_what_if() {
    let base = [
        "order",
        "--slurm-conf",
        &data_str("slurm_priority/slurm.conf"),
        "--jobs",
        &data_str("slurm_priority/squeue.json"),
        "--tree",
        &data_str("slurm_priority/sshare.psv"),
        "--qos",
        &data_str("slurm_priority/qos.psv"),
        "--assoc",
        &data_str("slurm_priority/assoc.psv"),
        "--at",
        AT,
    ]
    .map(str::to_string);
    let out = fairsort().args(&base).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = crate::common::table_part(&text).lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "JOBID",
            "PARTITION",
            "USER",
            "PRIORITY",
            "SITE",
            "AGE",
            "ASSOC",
            "FAIRSHARE",
            "JOBSIZE",
            "PARTITION",
            "QOS",
            "NICE",
            "TRES"
        ]
    );
    let first: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    // sprio prints the factors with %.0f: 428.57 → 429, 1428.57 → 1429, 56.25 → 56.
    assert_eq!(
        first,
        [
            "101",
            "batch",
            "alice",
            "2584",
            "0",
            "429",
            "100",
            "1429",
            "56",
            "250",
            "300",
            "0",
            "cpu=16,mem=5"
        ]
    );
    let out = fairsort()
        .args(&base)
        .args(["--explain", "102"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("job 102 in partition gpu"), "{text}");
    assert!(text.contains("PriorityJobFactor 4 / max 8"), "{text}");
    let out = fairsort()
        .args(&base)
        .args(["--explain", "90"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("RUNNING"));
    let out = fairsort()
        .args(&base)
        .args(["--against-weights", "PriorityWeightAge=100000"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // With age dominant, the 9-day-old job 103 comes first: its row reads rank 1, against 1.
    let first = text.lines().find(|l| l.contains(" 103 ")).unwrap();
    let cells: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(cells[..4], ["1", "1", "=", "103"], "{text}");
}

#[test]
fn errors_name_the_file_job_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = crate::common::write(
        dir.path(),
        "bad.json",
        r#"{"meta":{"Slurm":{}},"jobs":[{"job_id":5,"user_name":"a","cpus":"lots"}]}"#,
    );
    let out = fairsort()
        .args(["order", "--slurm-conf"])
        .arg(data_str("slurm_priority/slurm.conf"))
        .arg("--jobs")
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("job `5`") && err.contains("cpus"),
        "{err}"
    );
}

#[test]
fn squeue_jobs_also_feed_the_formula_path() {
    let out = fairsort()
        .args(["order", "--jobs"])
        .arg(data_str("slurm_priority/squeue.json"))
        .arg("--tree")
        .arg(data_str("slurm_priority/sshare.psv"))
        .args(["--formula", "fairtree_factor * 1000 + ncpus", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // erin (Fair Tree factor 1, 128 CPUs) first.
    let erin = text.find("\"105\"").unwrap();
    let alice = text.find("\"101\"").unwrap();
    assert!(erin < alice, "{text}");
}

/// A real Slurm 22.05.8 capture (tests/data/slurm_priority/real_2205/README.md): every cell of
/// `sprio -l` for the pending jobs, reproduced exactly, and slurmctld's stored priority (squeue's
/// `priority`) for the single-partition jobs.
#[test]
fn real_sprio_capture_2205_reproduced() {
    let dir = "slurm_priority/real_2205";
    let out = fairsort()
        .args(["order", "--slurm-conf"])
        .arg(data_str(&format!("{dir}/slurm.conf")))
        .arg("--jobs")
        .arg(data_str(&format!("{dir}/squeue.json")))
        // After the last submission (sprio ran after it; a job submitted after `--at` is not
        // yet eligible and has no row). Without SlurmDBD the age weight is dropped, so any later
        // second gives the same cells.
        .args(["--at", "1795629424"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Vec<Vec<String>> = crate::common::table_part(&String::from_utf8(out.stdout).unwrap())
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    let sprio =
        std::fs::read_to_string(crate::common::data(&format!("{dir}/sprio_l.txt"))).unwrap();
    let theirs: Vec<Vec<String>> = sprio
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(ours, theirs);

    let doc = run_in(dir, "1795629424");
    let squeue: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::data(&format!("{dir}/squeue.json"))).unwrap(),
    )
    .unwrap();
    for id in ["1", "3", "4"] {
        let stored = squeue["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["job_id"].as_u64().map(|n| n.to_string()).as_deref() == Some(id))
            .unwrap()["priority"]
            .as_u64()
            .unwrap();
        let r = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap();
        assert_eq!(r["job_priority"].as_u64().unwrap(), stored, "job {id}");
    }
    // slurmctld's log for job 4: JobSize 1178.57, Partition 5714.29, TRES 297 (187.50 + 109.38).
    let r = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "4")
        .unwrap();
    assert_relative_eq!(f(r, "jobsize"), 1178.57, epsilon = 0.005);
    assert_relative_eq!(f(r, "partition"), 5714.29, epsilon = 0.005);
    assert_relative_eq!(
        r["factors"]["tres"]["cpu"].as_f64().unwrap(),
        187.50,
        epsilon = 0.005
    );
    assert_relative_eq!(
        r["factors"]["tres"]["mem"].as_f64().unwrap(),
        109.38,
        epsilon = 0.005
    );
}

fn run_in(dir: &str, at: &str) -> Value {
    let out = fairsort()
        .args(["order", "--slurm-conf"])
        .arg(data_str(&format!("{dir}/slurm.conf")))
        .arg("--jobs")
        .arg(data_str(&format!("{dir}/squeue.json")))
        .args(["--at", at, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out.stdout)
}

/// The second real capture: `PriorityFavorSmall=YES` with `SMALL_RELATIVE_TO_TIME`, negative
/// nice values, a 1-minute job asking for every CPU of its partition.
#[test]
fn real_sprio_capture_2205_small_relative_to_time() {
    let dir = "slurm_priority/real_2205_small";
    let out = fairsort()
        .args(["order", "--slurm-conf"])
        .arg(data_str(&format!("{dir}/slurm.conf")))
        .arg("--jobs")
        .arg(data_str(&format!("{dir}/squeue.json")))
        .args(["--at", "1795629662"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cells = |text: &str| -> Vec<Vec<String>> {
        crate::common::table_part(text)
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect()
    };
    let sprio =
        std::fs::read_to_string(crate::common::data(&format!("{dir}/sprio_l.txt"))).unwrap();
    assert_eq!(
        cells(&String::from_utf8(out.stdout).unwrap()),
        cells(&sprio)
    );
    // The stored priorities of the single-partition jobs (squeue's `priority`).
    let doc = run_in(dir, "1795629662");
    for (id, stored) in [
        ("1", 16264),
        ("3", 30057),
        ("4", 16009),
        ("5", 31662),
        ("6", 17719),
    ] {
        let r = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap();
        assert_eq!(r["job_priority"], stored, "job {id}");
    }
}

#[test]
fn the_built_in_example_is_the_fixture_site() {
    let out = fairsort()
        .args(["order", "--example", "sprio", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        crate::common::without_sources(json_of(&out.stdout)),
        crate::common::without_sources(run("squeue.json", &[]))
    );
    // The Slurm-only flags are refused on the PBS path.
    let out = fairsort()
        .args(["order", "--example", "pbs", "--qos", "qos.psv"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--slurm-conf"));
}

fn dbd_run(jobs: &str, at: &str, json: bool) -> std::process::Output {
    let dir = "slurm_priority/real_2205_dbd";
    let f = |n: &str| data_str(&format!("{dir}/{n}"));
    let mut c = fairsort();
    c.args([
        "order",
        "--slurm-conf",
        &f("slurm.conf"),
        "--jobs",
        &f(jobs),
    ])
    .args(["--tree", &f("sshare.psv"), "--qos", &f("qos.psv")])
    .args(["--assoc", &f("assoc.psv"), "--at", at]);
    if json {
        c.arg("--json");
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The third real capture, with SlurmDBD (tests/data/slurm_priority/real_2205_dbd/README.md):
/// age, association, Fair Tree fair share over real usage, QOS, job size, partition, TRES and
/// nice all live. At the second of slurmctld's last priority pass every cell of `sprio -l` is
/// reproduced, the `sprio -n -l` factors to its 7 printed decimals, and slurmctld's stored
/// priorities; the `--begin` job in the future has no row, as in sprio.
#[test]
fn real_sprio_capture_2205_with_slurmdbd() {
    let dir = "slurm_priority/real_2205_dbd";
    let out = dbd_run("squeue.json", "1795634031", false);
    let cells = |text: &str| -> Vec<Vec<String>> {
        crate::common::table_part(text)
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect()
    };
    let sprio =
        std::fs::read_to_string(crate::common::data(&format!("{dir}/sprio_l.txt"))).unwrap();
    assert_eq!(
        cells(&String::from_utf8(out.stdout).unwrap()),
        cells(&sprio)
    );
    // sprio's age is the pass's: 14 s later (when sprio ran) the AGE column differs.
    let later = dbd_run("squeue.json", "1795634045", false);
    assert_ne!(
        cells(&String::from_utf8(later.stdout).unwrap()),
        cells(&sprio)
    );
    let doc = json_of(&dbd_run("squeue.json", "1795634031", true).stdout);
    let rows = doc["jobs"].as_array().unwrap();
    // sprio -n -l: AGE ASSOC FAIRSHARE JOBSIZE PARTITION QOS, printed %.7f.
    let n = std::fs::read_to_string(crate::common::data(&format!("{dir}/sprio_n.txt"))).unwrap();
    for (line, r) in n.lines().skip(1).zip(rows) {
        let c: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            (c[0], c[1]),
            (r["id"].as_str().unwrap(), r["partition"].as_str().unwrap())
        );
        for (i, k) in ["age", "assoc", "fairshare", "jobsize", "partition", "qos"]
            .iter()
            .enumerate()
        {
            assert_eq!(
                format!("{:.7}", r["normalized"][k].as_f64().unwrap()),
                c[4 + i],
                "job {} {k}",
                c[0]
            );
        }
    }
    // slurmctld's stored priority (squeue's `priority`); for job 11, in two partitions, squeue
    // shows the partition tried last (batch).
    let squeue: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::data(&format!("{dir}/squeue.json"))).unwrap(),
    )
    .unwrap();
    for j in squeue["jobs"].as_array().unwrap() {
        let id = j["job_id"].to_string();
        let mine: Vec<&Value> = rows.iter().filter(|r| r["id"] == id.as_str()).collect();
        if j["job_state"] != "PENDING" || id == "10" {
            assert!(mine.is_empty(), "job {id}");
            continue;
        }
        let last = mine.last().unwrap();
        assert_eq!(last["job_priority"], j["priority"], "job {id}");
    }
    // sacct --json of the same jobs: the same rows, but slurmdbd keeps no nice (0).
    let sacct = json_of(&dbd_run("sacct.json", "1795634031", true).stdout);
    let srows = sacct["jobs"].as_array().unwrap();
    assert_eq!(srows.len(), rows.len());
    for (a, b) in rows.iter().zip(srows) {
        assert_eq!((&a["id"], &a["partition"]), (&b["id"], &b["partition"]));
        for k in [
            "age",
            "assoc",
            "fairshare",
            "jobsize",
            "partition",
            "qos",
            "tres",
        ] {
            assert_eq!(a["factors"][k], b["factors"][k], "job {} {k}", a["id"]);
        }
        assert_eq!(b["factors"]["nice"], 0.0);
    }
}

/// The same capture's `sacctmgr dump` file: its tree has every association of the real
/// `sshare -a -l -P` capture, with the same raw shares and NormShares (to sshare's 6 decimals),
/// found by the one tree-format detector.
#[test]
fn sacctmgr_dump_tree_has_the_captured_associations() {
    let dir = "slurm_priority/real_2205_dbd";
    let share = |tree: &str| -> Vec<(String, String, String, String)> {
        let out = fairsort()
            .args(["share", "--tree", &data_str(&format!("{dir}/{tree}"))])
            .args(["--algorithm", "fair-tree", "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc = json_of(&out.stdout);
        let mut rows: Vec<_> = doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["account"].to_string(),
                    r["user"].to_string(),
                    r["raw_shares"].to_string(),
                    format!("{:.6}", r["norm_shares"].as_f64().unwrap()),
                )
            })
            .collect();
        rows.sort();
        rows
    };
    let dump = share("sacctmgr_dump.cfg");
    assert_eq!(dump.len(), 11);
    assert_eq!(dump, share("sshare.psv"));
}
