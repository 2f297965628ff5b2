//! The job readers' bounds and messages at the command line: detection by the JSON structure,
//! errors at `FILE:LINE:COL` naming the field as the file names it (`<stdin>` for `-`), a job's
//! resources checked for repeats in one pass, values range-checked, dates in the site's zone.

use crate::common::fairsort;
use std::path::Path;

/// `fairsort order --example pbs --jobs FILE EXTRA…` in `dir`: (status, stdout, stderr).
fn order(dir: &Path, file: &str, extra: &[&str]) -> (i32, String, String) {
    let out = fairsort()
        .current_dir(dir)
        .args(["order", "--example", "pbs", "--jobs", file])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &[u8]) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// The `jobs:` count of the report's header.
fn jobs_line(stdout: &str) -> String {
    (stdout.lines())
        .find(|l| l.starts_with("jobs:"))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_list_with_an_account_called_jobs_is_a_list() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "jobs.json",
        br#"{"jobs": [
  {"id": "1", "user": "bob", "account": "Jobs", "queue": "workq"},
  {"id": "2", "user": "amy", "queue": "Jobs", "qtime": 5}
]}"#,
    );
    let (status, out, err) = order(dir.path(), "jobs.json", &[]);
    assert_eq!(status, 0, "{err}");
    assert!(jobs_line(&out).starts_with("jobs:       2 "), "{out}");
}

#[test]
fn a_qstat_file_with_an_escaped_key_is_qstat() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "q.json",
        br#"{"J\u006fbs":{"1.s":{"Job_Owner":"a@h","queue":"workq"}}}"#,
    );
    let (status, out, err) = order(dir.path(), "q.json", &[]);
    assert_eq!(status, 0, "{err}");
    assert!(jobs_line(&out).starts_with("jobs:       1 "), "{out}");
}

#[test]
fn empty_files_and_byte_order_marks() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "empty.json", b"  \n");
    let (status, _, err) = order(dir.path(), "empty.json", &[]);
    assert_eq!(status, 1);
    assert_eq!(
        err.trim(),
        "fairsort: empty.json: the file is empty: no jobs and no header"
    );
    write(
        dir.path(),
        "bom.json",
        b"\xef\xbb\xbf{\"jobs\":[{\"id\":\"1\",\"user\":\"bob\"}]}",
    );
    let (status, out, err) = order(dir.path(), "bom.json", &[]);
    assert_eq!(status, 0, "{err}");
    assert!(jobs_line(&out).starts_with("jobs:       1 "), "{out}");
}

#[test]
fn an_squeue_file_whose_first_job_lacks_its_id_is_squeue() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "sq.json",
        br#"{"jobs":[{"user_name":"bob","partition":"b"}]}"#,
    );
    let (status, _, err) = order(dir.path(), "sq.json", &[]);
    assert_eq!(status, 1);
    assert!(err.contains("job_id"), "{err}");
    assert!(!err.contains("header"), "{err}");
}

#[test]
fn a_misspelled_key_is_named_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "jobs.json",
        b"{\"jobs\": [\n  {\"id\": \"1\", \"user\": \"bob\",\n    \"walltim\": 5}\n]}\n",
    );
    let (status, _, err) = order(dir.path(), "jobs.json", &[]);
    assert_eq!(status, 1);
    assert!(
        err.starts_with("fairsort: jobs.json:3:13: unknown field `walltim`, expected one of `id`"),
        "{err}"
    );
    assert!(
        !err.contains("ListFile") && !err.contains("untagged"),
        "{err}"
    );
}

#[test]
fn a_control_byte_in_a_key_is_invalid_json() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "q.json",
        b"{\"pbs_version\":\"x\",\"Jobs\":{\"1\x01.s\":{\"Job_Owner\":\"a@h\"}}}",
    );
    let (status, _, err) = order(dir.path(), "q.json", &[]);
    assert_eq!(status, 1);
    assert!(
        err.contains("q.json:1:") && err.contains("control character"),
        "{err}"
    );
}

#[test]
fn a_bad_csv_cell_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let csv = b"id,user,walltime\n1,bob,00:30:00\n2,amy,00:3x:00\n";
    write(dir.path(), "jobs.csv", csv);
    let (status, _, err) = order(dir.path(), "jobs.csv", &[]);
    assert_eq!(status, 1);
    assert_eq!(
        err.trim(),
        "fairsort: jobs.csv:3:7: job `2`: walltime: `00:3x:00` is not a duration (`01:30:00` or seconds)"
    );
    let out = fairsort()
        .args(["order", "--example", "pbs", "--jobs", "-"])
        .write_stdin(&csv[..])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("fairsort: <stdin>:3:7: job `2`: walltime:"),
        "{err}"
    );
    write(dir.path(), "n.csv", b"id,user,ncpus\n1,bob,two\n");
    let (_, _, err) = order(dir.path(), "n.csv", &[]);
    assert!(
        err.starts_with("fairsort: n.csv:2:7: job `1`: ncpus: `two` is not an integer"),
        "{err}"
    );
}

#[test]
fn a_resource_name_that_is_not_pbs_names_file_and_job() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "res.csv", b"id,user,my res\n1,bob,3\n");
    let (status, _, err) = order(dir.path(), "res.csv", &[]);
    assert_eq!(status, 1);
    assert!(
        err.starts_with("fairsort: res.csv:2:7: job `1`: my res:"),
        "{err}"
    );
    write(
        dir.path(),
        "q.json",
        br#"{"pbs_version":"x","Jobs":{"7.s":{"Job_Owner":"a@h","Resource_List":{"gpu.type":"a"}}}}"#,
    );
    let (status, _, err) = order(dir.path(), "q.json", &[]);
    assert_eq!(status, 1);
    assert!(err.starts_with("fairsort: q.json:1:"), "{err}");
    assert!(err.contains("job `7.s`: Resource_List.gpu.type:"), "{err}");
}

#[test]
fn numbers_are_range_checked_where_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, field) in [
        (
            "a.json",
            r#"[{"id":"1","user":"u","qtime":1e300}]"#,
            "qtime",
        ),
        ("b.json", r#"[{"id":"1","user":"u","qtime":-5}]"#, "qtime"),
        (
            "c.json",
            r#"[{"id":"1","user":"u","eligible_time":-1}]"#,
            "eligible_time",
        ),
        (
            "d.json",
            r#"[{"id":"1","user":"u","resources":{"ncpus":2.5}}]"#,
            "resources.ncpus",
        ),
        (
            "e.json",
            r#"[{"id":"1","user":"u","resources":{"mem":-4}}]"#,
            "resources.mem",
        ),
        (
            "f.json",
            r#"[{"id":"1","user":"u","resources":{"foo":1e300}}]"#,
            "resources.foo",
        ),
        (
            "q.json",
            r#"{"pbs_version":"x","Jobs":{"1.s":{"Job_Owner":"a@h","Resource_List":{"ncpus":1.5}}}}"#,
            "Resource_List.ncpus",
        ),
    ] {
        write(dir.path(), name, text.as_bytes());
        let (status, _, err) = order(dir.path(), name, &[]);
        assert_eq!(status, 1, "{name}: {err}");
        assert!(err.starts_with(&format!("fairsort: {name}:1:")), "{err}");
        assert!(
            err.contains("job `1") && err.contains(&format!(": {field}: ")),
            "{err}"
        );
    }
}

#[test]
fn repeated_job_ids_are_refused_where_they_stand() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "r.csv", b"id,user\n1,a\n2,b\n1,c\n");
    let (status, _, err) = order(dir.path(), "r.csv", &[]);
    assert_eq!(status, 1);
    assert_eq!(err.trim(), "fairsort: r.csv:4: job `1` appears twice");
    write(
        dir.path(),
        "r.json",
        b"[{\"id\":\"1\",\"user\":\"a\"},\n{\"id\":\"1\",\"user\":\"b\"}]",
    );
    let (_, _, err) = order(dir.path(), "r.json", &[]);
    assert!(
        err.starts_with("fairsort: r.json:2:") && err.contains("job `1` appears twice"),
        "{err}"
    );
    write(dir.path(), "c.csv", b"id,user,ncpus,ncpus\n1,a,1,2\n");
    let (_, _, err) = order(dir.path(), "c.csv", &[]);
    assert!(
        err.starts_with("fairsort: c.csv:1:15: the column `ncpus` is named twice"),
        "{err}"
    );
}

/// 200,000 resources of one job: read in one pass (on main the repeat check compared each
/// resource with every earlier one, 2·10^10 comparisons); a repeat among them is found.
#[test]
fn a_job_with_a_huge_resource_list_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let many: Vec<String> = (0..200_000).map(|i| format!("\"r{i}\":1")).collect();
    let text = format!(
        r#"[{{"id":"1","user":"u","resources":{{{}}}}}]"#,
        many.join(",")
    );
    write(dir.path(), "big.json", text.as_bytes());
    let (status, out, err) = order(dir.path(), "big.json", &[]);
    assert_eq!(status, 0, "{err}");
    assert!(jobs_line(&out).starts_with("jobs:       1 "), "{out}");
    let text = format!(
        r#"[{{"id":"1","user":"u","resources":{{{},"r7":2}}}}]"#,
        many.join(",")
    );
    write(dir.path(), "dup.json", text.as_bytes());
    let (status, _, err) = order(dir.path(), "dup.json", &[]);
    assert_eq!(status, 1);
    assert!(err.contains("job `1`: resources.r7: given twice"), "{err}");
}

/// qstat's ctime dates are the server's wall clock: in New York the string job's 12:00 is
/// 16:00 UTC, after the 13:00 UTC epoch job; in UTC before it. `--tz` names the zone too.
#[test]
fn qstat_dates_are_read_in_the_sites_zone() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "q.json",
        br#"{"timestamp":1713024000,"pbs_version":"22","pbs_server":"s","Jobs":{
 "1.s":{"Job_Owner":"a@h","queue":"workq","qtime":"Sat Apr 13 12:00:00 2024","Resource_List":{"ncpus":1}},
 "2.s":{"Job_Owner":"b@h","queue":"workq","qtime":1713013200,"Resource_List":{"ncpus":1}}}}"#,
    );
    let first = |tz: &str, extra: &[&str]| {
        let out = fairsort()
            .env("TZ", tz)
            .current_dir(dir.path())
            .args(["order", "--example", "pbs", "--jobs", "q.json"])
            .args(["--formula", "1", "--no-threshold", "--csv"])
            .args(extra)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines().nth(1).unwrap_or_default().to_string()
    };
    assert!(first("UTC", &[]).starts_with("1,1.s,"));
    let ny = "EST5EDT,M3.2.0,M11.1.0";
    assert!(first(ny, &[]).starts_with("1,2.s,"));
    assert!(first("UTC", &["--tz", ny]).starts_with("1,2.s,"));
    assert!(first(ny, &["--tz", "UTC"]).starts_with("1,1.s,"));
}

/// An accounting record's resource beyond any real job's (a cput of 10^17 hours, more than
/// 2^53 of a count) is a malformed record, skipped with a warning naming the file and the
/// line, like a negative or non-finite one: it never reaches the usage.
#[test]
fn accounting_amounts_no_real_job_has_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    for (value, res) in [
        ("resources_used.cput=99999999999999999:00:00", "cput"),
        ("resources_used.mem=99999999999999999999kb", "mem"),
        ("resources_used.cput=00:01:00", "cput"),
    ] {
        let log = dir.path().join("20240414");
        std::fs::write(
            &log,
            format!(
                "04/14/2024 08:00:00;E;{res}{}.pbs;user=alice group=users queue=workq \
                 end=1713081600 Resource_List.ncpus=1 {value}\n",
                value.len()
            ),
        )
        .unwrap();
        let out = crate::common::fairsort_home(&home)
            .args(["usage", "record", "--usage-res", res])
            .arg(&log)
            .output()
            .unwrap();
        assert!(out.status.success());
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if value.ends_with("00:01:00") {
            assert!(
                stdout.starts_with("charged 1 job(s), total 60;"),
                "{stdout}"
            );
        } else {
            assert!(
                stderr.contains("20240414:1: bad value"),
                "{value}: {stderr}"
            );
            assert!(stdout.contains("1 malformed record(s) skipped"), "{stdout}");
        }
    }
}
