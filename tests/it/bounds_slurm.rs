//! The Slurm adapter's bounds and messages end to end: hostlists expanded within a budget,
//! squeue readers that range-check every number and refuse repeated ids with `FILE:LINE: what`,
//! `Include` followed, `scontrol show config` read as the configuration, `order`'s flags on the
//! Slurm and flux paths (CSV rows, `--top` by rank, foreign flags refused), sacct dates in the
//! local zone, and the header's dates.

use crate::common::{data, fairsort, write};
use std::path::Path;

/// A small site: two partitions over four nodes, job size and partition weighted.
const CONF: &str = "PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\n\
                    PriorityWeightPartition=1000\nNodeName=n[1-4] CPUs=8\n\
                    PartitionName=batch Nodes=n[1-4] PriorityJobFactor=5 Default=YES\n\
                    PartitionName=low Nodes=n[1-2] PriorityJobFactor=1\n";

/// `order --slurm-conf CONF --jobs JOBS --at 1764000000`: (status, stdout, stderr).
fn order(
    dir: &Path,
    conf: &str,
    jobs_name: &str,
    jobs: &[u8],
    extra: &[&str],
) -> (i32, String, String) {
    let conf = write(dir, "slurm.conf", conf);
    let jobs_path = dir.join(jobs_name);
    std::fs::write(&jobs_path, jobs).unwrap();
    let out = fairsort()
        .args(["order", "--at", "1764000000", "--slurm-conf"])
        .arg(&conf)
        .arg("--jobs")
        .arg(&jobs_path)
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One squeue --json document of `jobs` (each a JSON object's fields), one job a line.
fn squeue(jobs: &[&str]) -> Vec<u8> {
    let jobs: Vec<String> = jobs.iter().map(|j| format!("{{{j}}}")).collect();
    format!("{{\"jobs\": [\n{}\n]}}\n", jobs.join(",\n")).into_bytes()
}

const PENDING: &str = r#""user_name": "bob", "job_state": "PENDING", "partition": "batch", "cpus": 8, "node_count": 1"#;

/// The one line of an error, as `fairsort: MESSAGE`.
fn one_line(stderr: &str) -> &str {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains("note:")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    lines[0].strip_prefix("fairsort: ").unwrap_or(lines[0])
}

#[test]
fn a_hostlist_of_twenty_gigabytes_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let conf = format!(
        "PriorityType=priority/multifactor\nNodeName={}[1-1048575] CPUs=4\n",
        "x".repeat(20_000)
    );
    let (code, _, err) = order(
        dir.path(),
        &conf,
        "q.json",
        &squeue(&[r#""job_id": 1"#]),
        &[],
    );
    assert_eq!(code, 1, "{err}");
    let e = one_line(&err);
    assert!(e.contains("slurm.conf:2: `xxx"), "{e}");
    assert!(
        e.contains("expands to more than 1048576 host names or 67108864 bytes"),
        "{e}"
    );
    assert!(e.len() < 500, "the expression is shortened: {e}");
}

#[test]
fn eighty_thousand_nodes_are_read_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let conf = "PriorityType=priority/multifactor\nPriorityWeightJobSize=80000\n\
                NodeName=c[1-80000] CPUs=4\nPartitionName=batch Nodes=c[1-80000],c[1-10]\n";
    let jobs = squeue(&[
        r#""job_id": 1, "user_name": "bob", "job_state": "PENDING", "partition": "batch", "cpus": 4, "node_count": 1"#,
    ]);
    let (code, out, err) = order(dir.path(), conf, "q.json", &jobs, &["--explain", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("N 80000, C 320000"), "{out}");
}

#[test]
fn squeue_numbers_are_range_checked_with_the_jobs_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str); 5] = [
        (
            r#""job_id": 7, "nice": -1e30"#,
            "q.json:3: job `7`: `nice`: -1e30 is out of range",
        ),
        (
            r#""job_id": -5"#,
            "q.json:3: job #2: `job_id`: -5 is out of range",
        ),
        (
            r#""job_id": 101.7"#,
            "q.json:3: job #2: `job_id`: 101.7 is not a whole number",
        ),
        (
            r#""job_id": 8, "cpus": 1e300"#,
            "q.json:3: job `8`: `cpus`: 1e300 is out of range",
        ),
        (
            r#""job_id": 9, "submit_time": 1.5"#,
            "q.json:3: job `9`: `submit_time`: 1.5 is not a whole number",
        ),
    ];
    for (job, want) in cases {
        let doc = squeue(&[&format!(r#""job_id": 1, {PENDING}"#), job]);
        let (code, _, err) = order(dir.path(), CONF, "q.json", &doc, &[]);
        assert_eq!(code, 1, "{job}: {err}");
        let e = one_line(&err);
        assert!(
            e.starts_with(&format!("{}", dir.path().join(want).display())),
            "{job}: {e}"
        );
    }
}

#[test]
fn a_repeated_squeue_job_id_is_refused_in_json_and_pipe_output() {
    let dir = tempfile::tempdir().unwrap();
    let copies: Vec<String> = (0..100_000)
        .map(|_| format!(r#""job_id": 42, {PENDING}"#))
        .collect();
    let copies: Vec<&str> = copies.iter().map(String::as_str).collect();
    let (code, _, err) = order(dir.path(), CONF, "q.json", &squeue(&copies), &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        one_line(&err).ends_with("q.json:3: job `42` appears twice"),
        "{err}"
    );
    let pipe = b"JOBID|USER|PARTITION|STATE\n42|bob|batch|PD\n42|bob|batch|PD\n";
    let (code, _, err) = order(dir.path(), CONF, "q.txt", pipe, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        one_line(&err).ends_with("q.txt:3: job `42` appears twice"),
        "{err}"
    );
}

#[test]
fn squeue_errors_name_the_file_once_and_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).display().to_string();
    // A field of the wrong kind: one `FILE:LINE: what`, the file named once.
    let doc = squeue(&[&format!(r#""job_id": 3, {PENDING}, "time_limit": "many""#)]);
    let (_, _, err) = order(dir.path(), CONF, "q.json", &doc, &[]);
    let e = one_line(&err);
    assert_eq!(
        e,
        format!(
            "{}:2: job `3`: `time_limit`: `many` is not a number",
            file("q.json")
        )
    );
    assert_eq!(e.matches("q.json").count(), 1, "{e}");
    // The first job without job_id: the field and the line, not "this is json".
    let (code, _, err) = order(dir.path(), CONF, "q.json", &squeue(&[PENDING]), &[]);
    assert_eq!(code, 1);
    assert_eq!(
        one_line(&err),
        format!(
            "{}:2: job #1: no `job_id` (every squeue --json job has one)",
            file("q.json")
        )
    );
    // An empty file says so.
    let (code, _, err) = order(dir.path(), CONF, "e.json", b"", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        one_line(&err),
        format!("{}: empty file (no squeue output)", file("e.json"))
    );
    // Raw control characters in a key are not JSON.
    let bad = b"{\"jobs\": [{\"job_id\": 1, \"us\x01er\": \"bob\"}]}";
    let (code, _, err) = order(dir.path(), CONF, "c.json", bad, &[]);
    assert_eq!(code, 1);
    assert!(
        one_line(&err).starts_with(&format!("{}:1:", file("c.json"))),
        "{err}"
    );
    assert!(err.contains("control character"), "{err}");
    // A byte-order mark is skipped: the job is read.
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend(squeue(&[&format!(r#""job_id": 5, {PENDING}"#)]));
    let (code, out, err) = order(dir.path(), CONF, "b.json", &bom, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("5 batch")),
        "{out}"
    );
}

#[test]
fn scontrol_show_config_is_read_as_the_configuration() {
    let dir = data("slurm_forecast/plain_backfill/before");
    let out = fairsort()
        .args(["order", "--at", "1795634031", "--slurm-conf"])
        .arg(dir.join("scontrol_show_config.txt"))
        .arg("--jobs")
        .arg(dir.join("squeue.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("lists no nodes or partitions"), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("JOBID PARTITION"), "{stdout}");
    // Its weights are read (PriorityWeightJobSize = 1000 in the capture).
    let conf = std::fs::read_to_string(dir.join("scontrol_show_config.txt")).unwrap();
    let c = fairsort::slurm::parse_slurm_conf(&conf, "scontrol_show_config.txt").unwrap();
    assert_eq!((c.weight_jobsize, c.weight_partition), (1000, 1000));
    assert_eq!(c.priority_type, "priority/multifactor");
    assert!(c.scheduler_parameters.unwrap().1.contains("bf_window=1440"));
}

#[test]
fn include_is_followed_beside_the_including_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("conf.d")).unwrap();
    write(
        d.join("conf.d"),
        "nodes.conf",
        "NodeName=n[1-4] CPUs=8\nInclude parts.conf\n",
    );
    write(
        d.join("conf.d"),
        "parts.conf",
        "PartitionName=batch Nodes=n[1-4] PriorityJobFactor=5\n",
    );
    let conf = "PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\n\
                PriorityWeightPartition=1000\nInclude conf.d/nodes.conf\n";
    let doc = squeue(&[&format!(r#""job_id": 1, {PENDING}"#)]);
    let (code, out, err) = order(d, conf, "q.json", &doc, &[]);
    assert_eq!(code, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("1 batch"))
        .unwrap();
    // JOBSIZE 1000 × (1/4 + 8/32)/2 = 250 and PARTITION 1000: the included partition counts.
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        &cells[3..10],
        ["1250", "0", "0", "0", "0", "250", "1000"],
        "{row}"
    );
    // A missing included file names both.
    let conf = "PriorityType=priority/multifactor\nInclude gone.conf\n";
    let (code, _, err) = order(d, conf, "q.json", &doc, &[]);
    assert_eq!(code, 1);
    let e = one_line(&err);
    assert!(
        e.contains("slurm.conf:2: Include gone.conf: not found ("),
        "{e}"
    );
    assert!(
        e.contains(&d.join("gone.conf").display().to_string()),
        "{e}"
    );
    // A cycle is refused.
    write(d, "loop.conf", "Include slurm.conf\n");
    let (code, _, err) = order(d, "Include loop.conf\n", "q.json", &doc, &[]);
    assert_eq!(code, 1);
    assert!(one_line(&err).contains("a cycle"), "{err}");
}

#[test]
fn slurm_import_stores_the_included_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let home = d.join("home");
    write(
        d,
        "parts.conf",
        "PartitionName=batch Nodes=n[1-4] PriorityJobFactor=5\n",
    );
    let conf = write(
        d,
        "slurm.conf",
        "NodeName=n[1-4] CPUs=8\nInclude parts.conf\n",
    );
    crate::common::fairsort_home(&home)
        .args(["slurm", "import", "--conf"])
        .arg(&conf)
        .assert()
        .success();
    let out = crate::common::fairsort_home(&home)
        .args(["slurm", "show"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("PartitionName=batch Nodes=n[1-4]"),
        "{shown}"
    );
}

#[test]
fn order_flags_on_the_slurm_path_are_honoured_or_refused() {
    // --top N: the N highest priorities, not the first N job ids.
    let out = fairsort()
        .args(["order", "--example", "slurm", "--top", "3"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let ids: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("JOBID"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids, ["103", "105", "104"], "{text}");
    // --csv: the ranked rows as CSV.
    let out = fairsort()
        .args(["order", "--example", "slurm", "--csv", "--top", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let csv = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(
        lines[0].starts_with("rank,job_id,partition,user,account,qos,priority,"),
        "{csv}"
    );
    assert!(
        lines[1].starts_with("1,103,gpu,carol,chem,normal,13442,"),
        "{csv}"
    );
    // PBS-only flags are usage errors naming the path.
    for (flag, value) in [("--pbs-compat", None), ("--threshold", Some("5"))] {
        let out = fairsort()
            .args(["order", "--example", "slurm", flag])
            .args(value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{flag} does not apply to a Slurm queue")),
            "{err}"
        );
    }
}

#[test]
fn order_flags_on_the_flux_path() {
    let out = fairsort()
        .args(["order", "--example", "flux", "--pbs-compat"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--pbs-compat does not apply to flux jobs")
    );
    let out = fairsort()
        .args(["order", "--example", "flux", "--csv", "--top", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(
        lines[0].starts_with("rank,job_id,user,bank,queue,priority"),
        "{csv}"
    );
    // Ranked: the first row is rank 1 with the highest priority.
    let prio = |l: &str| l.split(',').nth(5).unwrap().parse::<u64>().unwrap();
    assert!(
        lines[1].starts_with("1,") && prio(lines[1]) >= prio(lines[2]),
        "{csv}"
    );
}

#[test]
fn the_slurm_header_prints_dates_as_other_commands_do() {
    let out = fairsort()
        .args(["order", "--example", "slurm", "--formula", "slurm_priority"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("at 2025-11-24 16:00:00 UTC"), "{text}");
    assert!(!text.contains("1764000000"), "{text}");
}

#[test]
fn sacct_dates_are_read_in_the_local_zone_or_the_one_named() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    // A job across the change to summer time in Paris: 01:30 to 03:30 local is one hour.
    let sacct = write(
        dir.path(),
        "sacct.txt",
        "JobID|User|Account|Start|End|AllocCPUS|State\n\
         7|ann|phys|2024-03-31T01:30:00|2024-03-31T03:30:00|1|COMPLETED\n",
    );
    let paris = "CET-1CEST,M3.5.0,M10.5.0/3";
    let record = |tz: &str, flag: Option<&str>| {
        let out = crate::common::fairsort_home(&home)
            .env("TZ", tz)
            .args(["usage", "record"])
            .args(flag.map(|z| ["--tz", z]).into_iter().flatten())
            .arg(&sacct)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = record(paris, None);
    assert!(first.contains("charged 1 job(s), total 3600;"), "{first}");
    // The same instants named with --tz: already charged; read as UTC they are another job end.
    assert!(record("UTC", Some(paris)).contains("1 already charged"));
    let utc = record(paris, Some("UTC"));
    assert!(utc.contains("charged 1 job(s), total 7200;"), "{utc}");
    let out = crate::common::fairsort_home(&home)
        .args(["usage", "record", "--tz", "Mars/Olympus"])
        .arg(&sacct)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
