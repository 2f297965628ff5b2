//! `fairsort order`'s large outputs: a table or CSV of more rows than one thread
//! writes (every worker renders chunks and writes them in turn) read to the end, or read in part by a
//! reader that then closes its end: status 0, nothing on stderr, as for a small output.

use std::io::Read;
use std::process::Stdio;

use crate::common::{bin, fairsort};

/// More jobs than the parallel threshold (65 536), in several chunks and windows.
const JOBS: usize = 70_001;

/// A fairsort JSON job list of [`JOBS`] jobs of different users, queues and states.
fn job_list(dir: &std::path::Path) -> std::path::PathBuf {
    let jobs: Vec<String> = (0..JOBS)
        .map(|i| {
            let state = ["Q", "Q", "R", "H"][i % 4];
            format!(
                r#"{{"id":"{i}.pbs","user":"user{}","queue":"q{}","qtime":{i},"state":"{state}","priority":{}}}"#,
                i % 997,
                i % 3,
                i % 101
            )
        })
        .collect();
    let path = dir.join("jobs.json");
    std::fs::write(&path, format!("[{}]", jobs.join(",\n"))).unwrap();
    path
}

fn order(jobs: &std::path::Path, extra: &[&str]) -> assert_cmd::Command {
    let mut c = fairsort();
    c.args(["order", "--jobs"])
        .arg(jobs)
        .args(["--formula", "job_priority / 7", "--threshold", "3"])
        .args(extra);
    c
}

#[test]
fn a_large_table_is_written_whole_and_in_rank_order() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = job_list(dir.path());
    for (extra, lines) in [(&[][..], JOBS), (&["--csv"][..], JOBS + 1)] {
        let out = order(&jobs, extra).output().unwrap();
        assert!(
            out.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{extra:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let rows: Vec<&str> = if extra.is_empty() {
            // The table's rows follow its dashed rule.
            text.lines()
                .skip_while(|l| !l.starts_with("---"))
                .skip(1)
                .collect()
        } else {
            text.lines().collect()
        };
        assert_eq!(rows.len(), lines, "{extra:?}");
        // Ranks 1..=JOBS in order: no chunk lost, repeated or out of place.
        let ranks: Vec<usize> = rows
            .iter()
            .skip(usize::from(!extra.is_empty()))
            .map(|l| {
                let first = l.split([' ', ',']).find(|w| !w.is_empty()).unwrap();
                first.parse().unwrap()
            })
            .collect();
        assert!(ranks.iter().copied().eq(1..=JOBS), "{extra:?}");
    }
}

#[test]
fn a_large_output_into_a_reader_that_stops_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = job_list(dir.path());
    for extra in [&[][..], &["--csv"]] {
        // Closed before the first byte, and after a part of the rows.
        for read in [0, 100_000] {
            let mut c = std::process::Command::new(bin());
            c.env_remove("FAIRSORT_HOME")
                .env("XDG_DATA_HOME", dir.path())
                .args(["order", "--jobs"])
                .arg(&jobs)
                .args(["--formula", "job_priority / 7", "--threshold", "3"])
                .args(extra)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let mut child = c.spawn().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            let mut got = vec![0; read];
            stdout.read_exact(&mut got).unwrap();
            drop(stdout);
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            let status = child.wait().unwrap();
            assert_eq!(
                status.code(),
                Some(0),
                "{extra:?}, {read} bytes read: {err}"
            );
            assert!(err.is_empty(), "{extra:?}, {read} bytes read: {err}");
        }
    }
}
