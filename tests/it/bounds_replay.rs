//! The replay's bounds: the work of its passes on adversarial queues (counted in
//! `Outcome::visits`, never timed), the SWF reader's refusal of numbers no log holds, and the
//! report's warnings (formula errors, requested times of 0, cores the headers' node model
//! loses).

use crate::common::{fairsort, write};
use crate::replay::{job, reference, run, times};
use fairsort::replay::{Backfill, Outcome, TraceJob};
use proptest::prelude::*;

/// `n` one-core jobs all submitted at second 0, runs of 1 to 60 s.
fn one_second(n: usize, cores: u64) -> Vec<TraceJob> {
    (0..n)
        .map(|i| {
            let r = 1 + (i as i64 * 7919) % 60;
            job(&i.to_string(), 0, r, r, cores, &format!("u{}", i % 7))
        })
        .collect()
}

/// The work bound: 4 · n · log2 n queue entries touched.
fn n_log_n(n: usize) -> u64 {
    4 * n as u64 * (n as f64).log2().ceil() as u64
}

fn assert_bounded(o: &Outcome, n: usize, what: &str) {
    assert!(
        o.visits <= n_log_n(n),
        "{what}: {} visits for {n} jobs (bound {})",
        o.visits,
        n_log_n(n)
    );
    assert!(o.placements.iter().all(Option::is_some), "{what}");
}

/// 20,000 jobs submitted in one second on one core: each pass starts one job; the passes must
/// not walk the jobs already started (nor, under EASY, the queue behind the reservation).
#[test]
fn jobs_submitted_in_one_second_on_one_core_cost_n_log_n_visits() {
    let n = 20_000;
    for (formula, backfill) in [
        ("ncpus", Backfill::Easy),
        ("ncpus", Backfill::None),
        ("0", Backfill::Easy),
        ("walltime", Backfill::Easy),
    ] {
        let o = run(one_second(n, 1), 1, 1, formula, backfill);
        assert_bounded(&o, n, &format!("{formula} {backfill:?}"));
    }
}

/// A queue where nothing behind the reservation can ever start: two-core jobs on three cores,
/// so every pass starts one and reserves for the next while one core stays free. EASY's
/// backfill scan must not walk the queue at every pass.
#[test]
fn a_queue_where_nothing_can_backfill_costs_n_log_n_visits() {
    let n = 20_000;
    let o = run(one_second(n, 2), 1, 3, "0", Backfill::Easy);
    assert_bounded(&o, n, "nothing fits");
    assert_eq!(o.backfilled, 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Long queues built in one second (or a few), with tied values: the passes (dead entries
    /// skipped, EASY's tree scan from 64 entries on) give the straightforward reference's
    /// schedule, under formulas with eligible_time, fair share and ties.
    #[test]
    fn long_queues_of_tied_jobs_give_the_reference_schedule(
        raw in prop::collection::vec((0i64..3, 0i64..90, 1i64..120, 1u64..6, 0usize..3, 0usize..2), 70..200),
        formula in prop::sample::select(vec![
            "0", "ncpus", "eligible_time", "fairshare_factor", "fairshare_factor + eligible_time / 1000",
            "walltime / 60",
        ]),
        easy in any::<bool>(),
    ) {
        let jobs: Vec<TraceJob> = raw
            .iter()
            .enumerate()
            .map(|(i, &(s, r, w, c, u, a))| {
                let mut j = job(&i.to_string(), s, r, w, c, &format!("u{u}"));
                j.account = format!("g{a}");
                j
            })
            .collect();
        let backfill = if easy { Backfill::Easy } else { Backfill::None };
        let o = run(jobs.clone(), 2, 4, formula, backfill);
        prop_assert_eq!(times(&o), reference(&jobs, 8, 4, formula, easy));
    }
}

/// One SWF job line with field `k` (1-based) replaced by `v`.
fn swf_line(k: usize, v: &str) -> String {
    let mut f = vec![
        "1", "0", "-1", "100", "2", "-1", "-1", "2", "100", "-1", "1", "7", "3", "-1", "1", "-1",
        "-1", "-1",
    ];
    f[k - 1] = v;
    f.join(" ")
}

/// Run times of `nan`, `inf`, `1e300` or near 2^63 are refused at their line and column, under
/// the SWF field's name, with exit 1.
#[test]
fn swf_numbers_no_log_holds_are_refused_at_their_column() {
    let dir = tempfile::tempdir().unwrap();
    for (k, v, name) in [
        (4, "nan", "Run Time"),
        (4, "inf", "Run Time"),
        (4, "1e300", "Run Time"),
        (4, "9223372036854775000", "Run Time"),
        (2, "-9e18", "Submit Time"),
        (9, "1e19", "Requested Time"),
        (8, "1.5", "Requested Number of Processors"),
    ] {
        let text = format!("; MaxNodes: 2\n; MaxProcs: 4\n{}\n", swf_line(k, v));
        let p = write(dir.path(), "t.swf", &text);
        let out = fairsort()
            .args(["replay", "--formula", "ncpus", "--trace"])
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{v}");
        let err = String::from_utf8_lossy(&out.stderr);
        let col = swf_line(k, v)
            .split(' ')
            .take(k - 1)
            .map(|s| s.len() + 1)
            .sum::<usize>()
            + 1;
        let want = format!("{}:3:{col}: field {name}: `{v}`", p.display());
        assert!(err.contains(&want), "{v}: {err} (wanted {want})");
    }
}

/// A requested time of 0 is unknown (as −1), not a 0-second limit that ends the job at once;
/// the report says so in one line with the count.
#[test]
fn swf_requested_time_0_is_unknown_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..3)
        .map(|i| {
            let mut l = swf_line(9, "0");
            l.replace_range(0..1, &(i + 1).to_string());
            l
        })
        .collect();
    let text = format!("; MaxNodes: 2\n; MaxProcs: 4\n{}\n", lines.join("\n"));
    let p = write(dir.path(), "z.swf", &text);
    let out = fairsort()
        .args(["replay", "--formula", "ncpus", "--json", "--trace"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    for j in jobs {
        // runs its 100 s (not cut at a 0-second limit)
        assert_eq!(
            j["end"].as_i64().unwrap() - j["start"].as_i64().unwrap(),
            100,
            "{j}"
        );
    }
    let text = fairsort()
        .args(["replay", "--formula", "ncpus", "--trace"])
        .arg(&p)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    let hits: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("requested time 0"))
        .collect();
    assert_eq!(hits.len(), 1, "{stdout}");
    assert!(hits[0].contains("3 jobs"), "{stdout}");
}

/// MaxProcs 2004 on MaxNodes 151 is modelled as 151 nodes of 13 cores, said in one warning
/// line; a cluster given by flags has none.
#[test]
fn swf_headers_that_lose_cores_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "; MaxNodes: 151\n; MaxProcs: 2004\n{}\n",
        swf_line(4, "100")
    );
    let p = write(dir.path(), "trace.swf", &text);
    let out = fairsort()
        .args(["replay", "--formula", "ncpus", "--trace"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "{}: MaxProcs 2004 is not a multiple of MaxNodes 151: modelled as 151 nodes of 13 cores (1,963 cores)",
        p.display()
    );
    assert_eq!(
        stdout.lines().filter(|l| l.contains(&want)).count(),
        1,
        "{stdout}"
    );
    let out = fairsort()
        .args([
            "replay",
            "--formula",
            "ncpus",
            "--nodes",
            "4",
            "--cores-per-node",
            "8",
            "--trace",
        ])
        .arg(&p)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("MaxProcs"));
}

/// Formula errors are said in the text report: one line with the count and the first error's
/// job and message.
#[test]
fn formula_errors_are_said_in_the_text_report() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..5).map(|i| swf_line(1, &(i + 1).to_string())).collect();
    let text = format!("; MaxNodes: 1\n; MaxProcs: 2\n{}\n", lines.join("\n"));
    let p = write(dir.path(), "e.swf", &text);
    let out = fairsort()
        .args(["replay", "--formula", "ncpus / (ncpus - 2)", "--trace"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let hits: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("formula error"))
        .collect();
    assert_eq!(hits.len(), 1, "{stdout}");
    assert!(hits[0].contains("job 1"), "{stdout}");
    assert!(hits[0].contains("division by zero"), "{stdout}");
}

/// Jobs larger than the cluster: one line, the first ten ids "and N more".
#[test]
fn jobs_larger_than_the_cluster_are_said_in_one_capped_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines: Vec<String> = (0..15)
        .map(|i| {
            let mut l = swf_line(8, "64");
            l.replace_range(0..1, &(i + 1).to_string());
            l
        })
        .collect();
    lines.push(swf_line(1, "99"));
    let text = format!("; MaxNodes: 2\n; MaxProcs: 4\n{}\n", lines.join("\n"));
    let p = write(dir.path(), "l.swf", &text);
    let out = fairsort()
        .args(["replay", "--formula", "ncpus", "--trace"])
        .arg(&p)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let hits: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("larger than the cluster"))
        .collect();
    assert_eq!(hits.len(), 1, "{stdout}");
    assert!(
        hits[0].contains("15 jobs") && hits[0].ends_with("and 5 more)"),
        "{stdout}"
    );
}

/// PBS accounting logs, `sacct -P` rows and `sacct --json` jobs holding values no real job has
/// (a walltime of 10^12 hours, 10^18 cores, a submit time past the year 9999) are refused at
/// the record, naming the file, the line where there is one, and the job.
#[test]
fn trace_records_no_real_job_has_are_refused_where_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let pbs = |attrs: &str| {
        format!(
            "04/13/2024 10:00:00;E;101.pbs;user=alice group=users queue=workq ctime=1712998800 \
             start=1713000005 end=1713002400 {attrs}\n"
        )
    };
    let cases = [
        (
            "walltime.log",
            pbs("Resource_List.ncpus=2 Resource_List.walltime=1000000000000:00:00"),
            "walltime.log:1: job 101.pbs: walltime 3600000000000000 s is outside 0 to 3155760000 s",
        ),
        (
            "cores.log",
            pbs("Resource_List.ncpus=1000000000000000000"),
            "cores.log:1: job 101.pbs: 1000000000000000000 cores is more than 67108864",
        ),
        (
            "sacct.txt",
            "JobID|User|Account|Submit|Start|End|AllocCPUS|Timelimit\n\
             1|alice|a|2024-04-13T12:00:00|2024-04-13T12:00:00|2024-04-13T13:00:00|4|99999999-00:00:00\n"
                .to_string(),
            "sacct.txt:2: job 1: walltime",
        ),
    ];
    for (name, text, want) in cases {
        let f = write(dir.path(), name, &text);
        let out = fairsort()
            .args(["replay", "--nodes", "2", "--cores-per-node", "8"])
            .args(["--formula", "walltime", "--tz", "UTC", "--trace"])
            .arg(&f)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(want), "{name}: want {want:?} in {err}");
    }
}
