//! `fairsort replay` (docs/replay.md): trace readers, hand-checked schedules with and without
//! EASY backfill, invariants over random traces, and the direction of fair share over a
//! generated month.

use crate::common::{fairsort, json_of, write};
use fairsort::formula::{compile, ResourceTable};
use fairsort::replay::{
    read_trace, replay, replay_slurm, summarize, Backfill, Cluster, Decay, Options, Outcome,
    SlurmPolicy, Trace, TraceError, TraceFormat, TraceJob,
};
use proptest::prelude::*;
use std::path::Path;

pub(crate) fn job(
    id: &str,
    submit: i64,
    run: i64,
    walltime: i64,
    cores: u64,
    user: &str,
) -> TraceJob {
    TraceJob {
        id: id.to_string(),
        submit,
        run,
        walltime: Some(walltime),
        cores,
        mem: 0,
        user: user.to_string(),
        account: format!("g_{user}"),
        queue: "q".to_string(),
        qos: String::new(),
    }
}

pub(crate) fn run(
    jobs: Vec<TraceJob>,
    nodes: u64,
    cpn: u64,
    formula: &str,
    backfill: Backfill,
) -> Outcome {
    let trace = Trace {
        jobs,
        ..Trace::default()
    };
    let program = compile(formula, &ResourceTable::builtin()).unwrap();
    let opts = Options {
        cluster: Cluster {
            nodes,
            cores_per_node: cpn,
            mem_per_node: 0,
        },
        backfill,
        half_life: 604_800.0,
        tree: None,
        decay: Decay::Continuous,
    };
    replay(&trace, &program, &opts).unwrap()
}

/// (start, end) per job; `None` for skipped ones.
pub(crate) fn times(o: &Outcome) -> Vec<Option<(i64, i64)>> {
    o.placements
        .iter()
        .map(|p| p.map(|p| (p.start, p.end)))
        .collect()
}

/// The trace of examples/replay/small.swf: 4 cores (2 nodes × 2).
fn small() -> Vec<TraceJob> {
    vec![
        job("1", 0, 100, 100, 2, "u1"),
        job("2", 0, 50, 60, 2, "u2"),
        job("3", 10, 100, 100, 4, "u1"),
        job("4", 20, 30, 40, 2, "u2"),
        job("5", 20, 200, 200, 1, "u3"),
        job("6", 30, 0, 10, 1, "u3"),
        job("7", 40, 500, 500, 8, "u1"),
    ]
}

#[test]
fn fcfs_without_backfill_is_the_hand_checked_schedule() {
    // FCFS (`eligible_time`: the longest-waiting job first), no backfill, 4 cores:
    // t=0   1 (2c) and 2 (2c) start; free 0.
    // t=10  3 (4c) joins and does not fit: the pass stops.
    // t=20  4, 5 join behind 3 (3 waited longer); nothing fits. t=30: 6 joins; t=40: 7 (8c) is
    //       larger than the cluster and skipped.
    // t=50  2 ends (planned 60, ran 50): free 2; 3 still does not fit, so nothing starts.
    // t=100 1 ends: free 4; 3 starts (free 0).
    // t=200 3 ends: 4 (2c) starts, 5 (1c) starts, 6 (1c) starts and ends at once (run 0);
    //       its finish is another event at 200 with nothing left to start.
    let o = run(small(), 2, 2, "eligible_time", Backfill::None);
    assert_eq!(
        times(&o),
        [
            Some((0, 100)),
            Some((0, 50)),
            Some((100, 200)),
            Some((200, 230)),
            Some((200, 400)),
            Some((200, 200)),
            None
        ]
    );
    assert_eq!(o.too_large, [6]);
    assert_eq!(o.backfilled, 0);
}

#[test]
fn easy_backfill_on_the_example() {
    // Same trace, EASY:
    // t=10  3 (4c) does not fit: reservation at the earliest planned end freeing 4 cores —
    //       2 plans to end at 60 (free 2), 1 at 100 (free 4): shadow 100, extra 0.
    // t=50  2 ends, free 2. 3: reservation shadow 100, extra 0. 4 (2c, walltime 40) fits and
    //       50+40 = 90 <= 100: backfilled, runs 50..80. 5 and 6: no free core.
    // t=80  4 ends, free 2. 5 (1c, walltime 200): 80+200 > 100 and extra 0: stays.
    //       6 (1c, walltime 10): 90 <= 100: backfilled, run 0, ends at 80 — another pass at
    //       80 starts nothing.
    // t=100 1 ends, free 4: 3 starts. t=200: 3 ends, 5 starts.
    let o = run(small(), 2, 2, "eligible_time", Backfill::Easy);
    assert_eq!(
        times(&o),
        [
            Some((0, 100)),
            Some((0, 50)),
            Some((100, 200)),
            Some((50, 80)),
            Some((200, 400)),
            Some((80, 80)),
            None
        ]
    );
    assert_eq!(o.backfilled, 2);
}

#[test]
fn easy_backfill_uses_the_extra_cores() {
    // 4 cores. A (2c, wt 100) and B (1c, wt 50) start at 0; free 1.
    // t=1  C (3c) does not fit: planned ends B@50 (avail 2), A@100 (avail 4 >= 3): shadow 100,
    //      extra 4-3 = 1. D (1c, wt 500) fits, ends after 100, but 1 <= extra: starts at 1
    //      (extra 0).
    // t=2  E (1c, wt 10): no free core.
    // t=50 B ends, free 1. C: A@100 gives avail 1+2 = 3: shadow 100, extra 0 (D plans 501).
    //      E: 50+10 = 60 <= 100: starts, runs 10.
    // t=100 A ends: free 3, C starts.
    let jobs = vec![
        job("A", 0, 100, 100, 2, "a"),
        job("B", 0, 50, 50, 1, "b"),
        job("C", 1, 10, 10, 3, "c"),
        job("D", 1, 500, 500, 1, "d"),
        job("E", 2, 10, 10, 1, "e"),
    ];
    let o = run(jobs, 1, 4, "eligible_time", Backfill::Easy);
    assert_eq!(
        times(&o),
        [
            Some((0, 100)),
            Some((0, 50)),
            Some((100, 110)),
            Some((1, 501)),
            Some((50, 60)),
        ]
    );
}

#[test]
fn easy_does_not_backfill_what_would_delay_the_reservation() {
    // 2 cores. A (1c, wt 100) starts at 0. B (2c) at 1: shadow 100, extra 0. C (1c, wt 200) at 1
    // fits now but would end at 201 > 100 with no extra core: it waits for B.
    let jobs = vec![
        job("A", 0, 100, 100, 1, "a"),
        job("B", 1, 10, 10, 2, "b"),
        job("C", 1, 200, 200, 1, "c"),
    ];
    let o = run(jobs, 1, 2, "eligible_time", Backfill::Easy);
    assert_eq!(
        times(&o),
        [Some((0, 100)), Some((100, 110)), Some((110, 310))]
    );
}

#[test]
fn walltime_cuts_and_zero_run_time_ends_at_once() {
    // 1 core. J1 runs 0 s: starts at 0, ends at 0, and that finish is another event at 0 where
    // J2 starts. J2 asked for 100 s but ran 300: it ends at its walltime, 100. Ties in priority
    // (`ncpus` is 1 for all) go to the earlier submit, then trace order: J3 before J4.
    let jobs = vec![
        job("J1", 0, 0, 10, 1, "a"),
        job("J2", 0, 300, 100, 1, "a"),
        job("J3", 5, 10, 10, 1, "b"),
        job("J4", 5, 10, 10, 1, "c"),
    ];
    let o = run(jobs, 1, 1, "ncpus", Backfill::Easy);
    assert_eq!(
        times(&o),
        [
            Some((0, 0)),
            Some((0, 100)),
            Some((100, 110)),
            Some((110, 120))
        ]
    );
}

#[test]
fn formula_order_beats_submit_order() {
    // 2 cores busy until 10; then the larger job first under `ncpus`.
    let jobs = vec![
        job("busy", 0, 10, 10, 2, "a"),
        job("small", 1, 10, 10, 1, "b"),
        job("big", 2, 10, 10, 2, "c"),
    ];
    let o = run(jobs, 1, 2, "ncpus", Backfill::None);
    assert_eq!(times(&o), [Some((0, 10)), Some((20, 30)), Some((10, 20))]);
}

/// Checks the replay's invariants on one trace.
fn check_invariants(jobs: &[TraceJob], o: &Outcome, total: u64) -> Result<(), TestCaseError> {
    let mut events: Vec<(i64, i64)> = Vec::new();
    for (j, p) in jobs.iter().zip(&o.placements) {
        match p {
            None => prop_assert!(j.cores > total, "job {} not run", j.id),
            Some(p) => {
                prop_assert!(j.cores <= total);
                prop_assert!(p.start >= j.submit, "job {} starts before submit", j.id);
                prop_assert_eq!(p.end - p.start, j.run.min(j.walltime.unwrap_or(j.run)));
                if p.end > p.start {
                    events.push((p.start, j.cores as i64));
                    events.push((p.end, -(j.cores as i64)));
                }
            }
        }
    }
    // Ends before starts at the same time.
    events.sort();
    let mut used = 0i64;
    for (t, d) in events {
        used += d;
        prop_assert!(used <= total as i64, "over-committed at {}", t);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn no_early_start_no_overcommit_every_job_finishes(
        raw in prop::collection::vec((0i64..200, 0i64..120, 1i64..150, 1u64..10, 0usize..4), 1..40),
        formula in prop::sample::select(vec![
            "eligible_time", "ncpus", "-ncpus", "walltime", "fairshare_factor",
            "fairshare_perc - ncpus / 10",
        ]),
        easy in any::<bool>(),
    ) {
        let jobs: Vec<TraceJob> = raw
            .iter()
            .enumerate()
            .map(|(i, &(s, r, w, c, u))| job(&i.to_string(), s, r, w, c, &format!("u{u}")))
            .collect();
        let backfill = if easy { Backfill::Easy } else { Backfill::None };
        let o = run(jobs.clone(), 2, 4, formula, backfill);
        check_invariants(&jobs, &o, 8)?;
    }
}

/// A month on 128 cores: two heavy users submit most of the work, six light users a little;
/// every user is alone in an account (equal shares). Deterministic (an LCG).
fn month() -> Vec<TraceJob> {
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let mut jobs = Vec::new();
    let month = 30 * 86_400;
    let mut t = 0i64;
    let mut i = 0;
    while t < month {
        // A job every 900 s on average, 16.5 cores for 7800 s on average: offered load about
        // 1.1 of the 128 cores, so a queue forms and the order matters.
        t += 1 + next(1800) as i64;
        let user = if next(10) < 7 {
            format!("heavy{}", next(2))
        } else {
            format!("light{}", next(6))
        };
        let run = 600 + next(4 * 3600) as i64;
        let cores = 1 + next(32);
        jobs.push(job(&i.to_string(), t, run, run + 600, cores, &user));
        i += 1;
    }
    jobs
}

/// The generated month, as a trace, on the 16 × 8-core cluster it is sized for.
fn month_on_16x8() -> (Vec<TraceJob>, Trace, Cluster) {
    let jobs = month();
    let trace = Trace {
        jobs: jobs.clone(),
        ..Trace::default()
    };
    let cluster = Cluster {
        nodes: 16,
        cores_per_node: 8,
        mem_per_node: 0,
    };
    (jobs, trace, cluster)
}

#[test]
fn heavy_users_wait_longer_under_fair_share_than_under_size_only() {
    let (jobs, trace, cluster) = month_on_16x8();
    let mean_wait = |formula: &str, heavy: bool| {
        let o = run(jobs.clone(), 16, 8, formula, Backfill::Easy);
        let r = summarize(&trace, &o, cluster);
        let (sum, n) = r
            .users
            .iter()
            .filter(|u| u.name.starts_with("heavy") == heavy)
            .fold((0.0, 0u64), |(s, n), u| {
                (s + u.wait_mean * u.jobs as f64, n + u.jobs)
            });
        sum / n as f64
    };
    let heavy_fs = mean_wait("fairshare_factor", true);
    let heavy_size = mean_wait("ncpus", true);
    let light_fs = mean_wait("fairshare_factor", false);
    let light_size = mean_wait("ncpus", false);
    assert!(
        heavy_fs > heavy_size,
        "heavy users: fair share {heavy_fs} s vs size-only {heavy_size} s"
    );
    assert!(
        light_fs < light_size,
        "light users: fair share {light_fs} s vs size-only {light_size} s"
    );
    assert!(heavy_fs > light_fs);
}

fn read(text: &str, name: &str, format: Option<TraceFormat>) -> Result<Trace, TraceError> {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), name, text);
    read_trace(&p, format)
}

#[test]
fn reads_swf() {
    let t = read_trace(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/small.swf"),
        None,
    )
    .unwrap();
    assert_eq!(t.max_nodes, Some(2));
    assert_eq!(t.max_procs, Some(4));
    assert_eq!(t.jobs.len(), 7);
    assert_eq!(t.jobs[0], {
        let mut j = job("1", 0, 100, 100, 2, "u1");
        j.account = "g1".into();
        j.queue = "q1".into();
        j
    });
    let e = read("; MaxProcs: 4\n1 0 -1 100 2\n", "bad.swf", None).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("bad.swf:2: an SWF job line has 18 fields, this one has 5"),
        "{e}"
    );
    let e = read(
        "1 0 -1 x -1 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n",
        "bad2.swf",
        Some(TraceFormat::Swf),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("bad2.swf:1:8: field Run Time: `x` is not a number"),
        "{e}"
    );
    // Cancelled before running (run time -1) is left out and counted.
    let t = read(
        "1 0 -1 -1 -1 -1 -1 2 100 -1 5 1 1 -1 1 -1 -1 -1\n",
        "c.swf",
        None,
    )
    .unwrap();
    assert!(t.jobs.is_empty());
    assert_eq!(t.left_out, [("no run time (never ran)".to_string(), 1)]);
}

#[test]
fn reads_pbs_accounting_logs() {
    let log = "\
11/20/2026 10:00:00;Q;1.srv;queue=workq
11/20/2026 10:00:00;Q;2.srv;queue=workq
11/20/2026 10:05:00;S;1.srv;user=alice group=phys start=1795169100
11/20/2026 11:00:00;E;1.srv;user=alice group=phys account=proj1 queue=workq qtime=1795168800 start=1795169100 end=1795172400 Resource_List.ncpus=4 Resource_List.walltime=02:00:00 resources_used.walltime=00:55:00
11/20/2026 11:00:00;E;2.srv;user=bob group=chem queue=workq start=1795169100 end=1795172400 Resource_List.ncpus=2
11/20/2026 11:00:00;E;3.srv;user=bob group=chem queue=workq Resource_List.ncpus=2
";
    let t = read(log, "20261120", Some(TraceFormat::Pbs)).unwrap();
    assert_eq!(t.jobs.len(), 2);
    let a = &t.jobs[0];
    assert_eq!(
        (a.submit, a.run, a.walltime, a.cores),
        (1_795_168_800, 3300, Some(7200), 4)
    );
    assert_eq!((a.user.as_str(), a.account.as_str()), ("alice", "proj1"));
    // No qtime: the Q record's date; no account: the group; no walltime: unknown.
    let b = &t.jobs[1];
    assert_eq!(
        (b.submit, b.walltime, b.account.as_str()),
        (1_795_168_800, None, "chem")
    );
    assert_eq!(t.left_out, [("never started".to_string(), 1)]);
    let e = read(
        "11/20/2026 10:00:00;Q;1.srv;\n11/40/2026 10:00:00;E;1.srv;\n",
        "log",
        Some(TraceFormat::Pbs),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .ends_with("log:2: `11/40/2026 10:00:00` is not a PBS log date (MM/DD/YYYY HH:MM:SS)"),
        "{e}"
    );
}

#[test]
fn reads_sacct() {
    let text = "\
JobID|User|Account|Partition|QOS|Submit|Start|End|Timelimit|AllocCPUS|ReqCPUS
100|bob|chem|normal|normal|2026-11-20T10:00:00|2026-11-20T10:10:00|2026-11-20T11:10:00|02:00:00|8|8
100.batch||chem|||2026-11-20T10:10:00|2026-11-20T10:10:00|2026-11-20T11:10:00||8|8
101|eve|chem|normal|normal|2026-11-20T10:00:00|Unknown|Unknown|1-00:00:00|0|4
";
    let t = read(text, "sacct.txt", None).unwrap();
    assert_eq!(t.jobs.len(), 1);
    let j = &t.jobs[0];
    assert_eq!(
        (j.submit, j.run, j.walltime, j.cores),
        (1_795_168_800, 3600, Some(7200), 8)
    );
    assert_eq!((j.queue.as_str(), j.qos.as_str()), ("normal", "normal"));
    assert_eq!(t.left_out, [("never started".to_string(), 1)]);
    let e = read(
        "JobID|User|Submit|Start|End|AllocCPUS\n1|a|2026-11-20T10:00:00|yesterday|x|1\n",
        "s.txt",
        None,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .ends_with("s.txt:2: Start `yesterday` is not a date"),
        "{e}"
    );
}

#[test]
fn reads_sacct_json_of_both_schemas() {
    // data_parser v0.0.38 (22.05): plain numbers; v0.0.41 (24.05): `{set, infinite, number}`
    // and `state.current` a list. Steps are nested (`steps`), never jobs of their own.
    let text = r#"{"meta": {"plugin": {"type": "openapi/dbv0.0.38"}}, "jobs": [
      {"job_id": 100, "user": "bob", "account": "chem", "partition": "normal", "qos": "high",
       "state": {"current": "COMPLETED"}, "required": {"CPUs": 8, "memory": 1000},
       "time": {"submission": 1795168800, "start": 1795169400, "end": 1795173000, "limit": 120},
       "tres": {"allocated": [{"type": "cpu", "name": null, "count": 8}],
                "requested": [{"type": "cpu", "name": null, "count": 8}]},
       "steps": [{"step": {"id": "100.batch"}}]},
      {"job_id": 101, "user": "eve", "account": "", "group": "bio", "partition": "p1,p2",
       "qos": "normal", "state": {"current": ["COMPLETED"]},
       "required": {"CPUs": 0},
       "time": {"submission": {"set": true, "infinite": false, "number": 1795168800},
                "start": {"set": true, "infinite": false, "number": 1795168810},
                "end": {"set": true, "infinite": false, "number": 1795168830},
                "limit": {"set": false, "infinite": true, "number": 0}},
       "tres": {"allocated": [{"type": "cpu", "count": 3}],
                "requested": [{"type": "cpu", "count": 2}]}},
      {"job_id": 102, "array": {"job_id": 90, "task_id": {"set": true, "number": 4}},
       "user": "ann", "account": "phys", "partition": "normal", "qos": "normal",
       "required": {"CPUs": 1},
       "time": {"submission": 1795168800, "start": 0, "end": 0, "limit": 5}}
    ]}"#;
    // Detected from the `{`, and read the same with --trace-format sacct.
    for format in [None, Some(TraceFormat::Sacct)] {
        let t = read(text, "sacct.json", format).unwrap();
        assert_eq!(t.jobs.len(), 2);
        let j = &t.jobs[0];
        assert_eq!(
            (j.id.as_str(), j.submit, j.run, j.walltime, j.cores),
            ("100", 1_795_168_800, 3600, Some(7200), 8)
        );
        assert_eq!(
            (
                j.user.as_str(),
                j.account.as_str(),
                j.queue.as_str(),
                j.qos.as_str()
            ),
            ("bob", "chem", "normal", "high")
        );
        // No account: the group; allocated CPUs before the request; no limit: unknown.
        let k = &t.jobs[1];
        assert_eq!(
            (k.account.as_str(), k.cores, k.run, k.walltime),
            ("bio", 3, 20, None)
        );
        assert_eq!(k.queue, "p1,p2");
        assert_eq!(t.left_out, [("never started".to_string(), 1)]);
    }
    let e = read(
        r#"{"jobs": [{"job_id": 7, "time": {"submission": 5, "start": "soon"}}]}"#,
        "s.json",
        None,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("s.json") && e.to_string().contains("job `7`: time.start"),
        "{e}"
    );
    let e = read("{\"jobs\": 3}", "t.json", None).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("t.json: sacct --json: no `jobs` list"),
        "{e}"
    );
}

#[test]
fn reads_a_real_sacct_json() {
    // Slurm 22.05 (tests/data/slurm_priority/real_2205_dbd/README.md): jobs 1-3 completed on
    // the one real node, 5 and 7 were cancelled after running 23 s, the rest never started.
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/slurm_priority/real_2205_dbd/sacct.json");
    let t = read_trace(&p, None).unwrap();
    let got: Vec<(&str, i64, u64, Option<i64>)> = t
        .jobs
        .iter()
        .map(|j| (j.id.as_str(), j.run, j.cores, j.walltime))
        .collect();
    assert_eq!(
        got,
        [
            ("1", 70, 2, Some(300)),
            ("2", 150, 1, Some(300)),
            ("3", 70, 1, Some(300)),
            ("5", 23, 8, Some(7200)),
            ("7", 23, 12, Some(36000)),
        ]
    );
    assert_eq!(t.jobs[3].qos, "high");
    assert_eq!(t.left_out, [("never started".to_string(), 7)]);
}

#[test]
fn cli_on_the_shipped_example() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/small.swf");
    let out = fairsort()
        .args(["replay", "--trace"])
        .arg(&example)
        .args(["--formula", "eligible_time", "--json"])
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    let starts: Vec<i64> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["start"].as_i64().unwrap())
        .collect();
    assert_eq!(starts, [0, 0, 100, 50, 200, 80]);
    assert_eq!(v["summary"]["too_large"][0], "7");
    let out = fairsort()
        .args(["replay", "--trace"])
        .arg(&example)
        .args([
            "--formula",
            "eligible_time",
            "--against",
            "fairshare_factor",
        ])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("B: fairshare_factor"), "{text}");
    assert!(text.contains("wait B-A"), "{text}");
    fairsort()
        .args(["replay", "--trace"])
        .arg(&example)
        .args(["--formula", "eligible_time", "--csv"])
        .assert()
        .success()
        .stdout(predicates::str::starts_with(
            "policy,kind,name,account,jobs",
        ));
    fairsort()
        .args([
            "replay",
            "--trace",
            "/nonexistent.swf",
            "--formula",
            "ncpus",
        ])
        .assert()
        .code(1);
}

/// A direct transcription of docs/replay.md's rules, with none of the replay's shortcuts: at
/// every pass it recomputes fair share on a freshly built tree (when a job finished since the
/// last computation), evaluates every pending job, sorts them all and scans every running job
/// for the reservation. The replay (sorted queue kept between passes, re-evaluation only of
/// what changed, flat PBS arithmetic, early stop) must give exactly its schedule.
pub(crate) fn reference(
    jobs: &[TraceJob],
    total: u64,
    cpn: u64,
    formula: &str,
    easy: bool,
) -> Vec<Option<(i64, i64)>> {
    use fairsort::fairshare::{
        compute, keyword_source, NodeKind, NodeSpec, Options as ShareOptions,
    };
    use fairsort::fairshare::{Shares, Tree, TreeSource, TreeSpec};
    use fairsort::usage::decay::halflife::HalfLife;
    let program = compile(formula, &ResourceTable::builtin()).unwrap();
    let trace = Trace {
        jobs: jobs.to_vec(),
        ..Trace::default()
    };
    let ent = fairsort::replay::Entities::of(&trace);
    let hl = HalfLife::new(604_800.0).unwrap();
    let mut stored = vec![0.0f64; ent.assocs.len()];
    let mut t0: Option<i64> = None;
    let mut dirty = true;
    let kw = program.keywords().to_vec();
    let mut share_vals = vec![vec![0.0f64; ent.assocs.len()]; kw.len()];
    let mut place: Vec<Option<(i64, i64)>> = vec![None; jobs.len()];
    let mut free = total;
    let mut running: Vec<(i64, i64, usize)> = Vec::new(); // (end, planned end, job)
    let mut waiting: Vec<usize> = Vec::new();
    let mut subs: Vec<usize> = (0..jobs.len())
        .filter(|&i| jobs[i].cores <= total)
        .collect();
    subs.sort_by_key(|&i| (jobs[i].submit, i));
    let mut next = 0;
    loop {
        let t_sub = subs.get(next).map(|&i| jobs[i].submit);
        let t_fin = running.iter().map(|r| r.0).min();
        let t = match (t_sub, t_fin) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => break,
        };
        let mut k = 0;
        while k < running.len() {
            if running[k].0 == t {
                let (_, _, j) = running.remove(k);
                free += jobs[j].cores;
                let (s, e) = place[j].unwrap();
                let t0 = *t0.get_or_insert(e);
                let a = ent.job_assoc[j];
                stored[a] += jobs[j].cores as f64 * (e - s) as f64 / hl.factor((e - t0) as f64);
                dirty = true;
            } else {
                k += 1;
            }
        }
        while next < subs.len() && jobs[subs[next]].submit == t {
            waiting.push(subs[next]);
            next += 1;
        }
        if waiting.is_empty() || free == 0 {
            continue;
        }
        let uses_shares = kw.iter().any(|k| keyword_source(k).is_some());
        if uses_shares && dirty {
            dirty = false;
            let f = t0.map_or(1.0, |t0| hl.factor((t - t0) as f64));
            let mut nodes: Vec<NodeSpec> = ent
                .accounts
                .iter()
                .map(|a| NodeSpec::new(a.clone(), None, NodeKind::Account, Shares::Count(1)))
                .collect();
            for (i, (a, u)) in ent.assocs.iter().enumerate() {
                let mut n = NodeSpec::new(
                    u.clone(),
                    Some(ent.accounts[*a].clone()),
                    NodeKind::User,
                    Shares::Count(1),
                );
                n.usage = Some(stored[i] * f);
                nodes.push(n);
            }
            let tree = Tree::build(TreeSpec {
                source: TreeSource::Native,
                root_name: "root".into(),
                root_usage: None,
                unknown_shares: None,
                nodes,
            })
            .unwrap();
            for (k, out) in kw.iter().zip(share_vals.iter_mut()) {
                if let Some((alg, get)) = keyword_source(k) {
                    let r = compute(&tree, alg, &ShareOptions::default()).unwrap();
                    for (i, (a, u)) in ent.assocs.iter().enumerate() {
                        let id = tree.find_user(Some(&ent.accounts[*a]), u).unwrap();
                        out[i] = get(&r.row(id)).unwrap_or(0.0);
                    }
                }
            }
        }
        let prio: Vec<f64> = waiting
            .iter()
            .map(|&j| {
                let job = &jobs[j];
                let row: Vec<f64> = kw
                    .iter()
                    .enumerate()
                    .map(|(s, k)| match k.as_str() {
                        "eligible_time" => (t - job.submit) as f64,
                        "ncpus" => job.cores as f64,
                        "walltime" => job.planned() as f64,
                        "nodect" => job.cores.div_ceil(cpn) as f64,
                        "mem" => job.mem as f64,
                        "accrue_type" => 2.0,
                        _ if keyword_source(k).is_some() => share_vals[s][ent.job_assoc[j]],
                        _ => 0.0,
                    })
                    .collect();
                program.eval(&row).value
            })
            .collect();
        let mut order: Vec<usize> = (0..waiting.len()).collect();
        order.sort_by(|&a, &b| {
            prio[b]
                .total_cmp(&prio[a])
                .then(jobs[waiting[a]].submit.cmp(&jobs[waiting[b]].submit))
                .then(waiting[a].cmp(&waiting[b]))
        });
        let mut started = Vec::new();
        let mut resv: Option<(i64, u64)> = None;
        for k in order {
            let j = waiting[k];
            let (c, wt) = (jobs[j].cores, jobs[j].planned());
            let ok = match &mut resv {
                None if c <= free => true,
                None if !easy => break,
                None => {
                    // Earliest planned end at which enough cores are free; extra = all free
                    // by then minus the need.
                    let mut ends: Vec<(i64, u64)> =
                        running.iter().map(|r| (r.1, jobs[r.2].cores)).collect();
                    ends.sort();
                    let mut avail = free;
                    let mut shadow = i64::MAX;
                    for &(e, cores) in &ends {
                        avail += cores;
                        if avail >= c {
                            shadow = e;
                            break;
                        }
                    }
                    let by_shadow: u64 = ends.iter().filter(|x| x.0 <= shadow).map(|x| x.1).sum();
                    resv = Some((shadow, (free + by_shadow).saturating_sub(c)));
                    false
                }
                Some((shadow, extra)) => {
                    if c > free {
                        false
                    } else if t + wt <= *shadow {
                        true
                    } else if c <= *extra {
                        *extra -= c;
                        true
                    } else {
                        false
                    }
                }
            };
            if ok {
                free -= c;
                let end = t + jobs[j].holds();
                place[j] = Some((t, end));
                running.push((end, t + wt, j));
                started.push(j);
            }
        }
        waiting.retain(|j| !started.contains(j));
    }
    place
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn the_replay_gives_the_reference_schedule(
        raw in prop::collection::vec((0i64..300, 0i64..120, 1i64..150, 1u64..10, 0usize..5, 0usize..3), 1..60),
        formula in prop::sample::select(vec![
            "eligible_time", "ncpus", "-ncpus + walltime / 100", "fairshare_factor",
            "fairshare_factor * 100 + ncpus", "fairshare_tree_usage - fairshare_perc",
            "fairshare_factor + eligible_time / 1000", "level_fs", "classic_factor * nodect",
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Overloaded traces: up to 120 jobs submitted in 40 s on 8 cores, so a long queue builds
    /// and every pass orders and backfills through it (the classes' merge and the backfill
    /// scan that skips what cannot start).
    #[test]
    fn an_overloaded_replay_gives_the_reference_schedule(
        raw in prop::collection::vec((0i64..40, 0i64..120, 1i64..150, 1u64..10, 0usize..5, 0usize..3), 20..120),
        formula in prop::sample::select(vec![
            "eligible_time", "ncpus", "fairshare_factor", "fairshare_factor * 100 + ncpus",
            "fairshare_tree_usage - fairshare_perc", "level_fs", "classic_factor * nodect",
            "fairshare_perc * walltime", "fairshare_factor + mem / 1048576",
        ]),
        easy in any::<bool>(),
    ) {
        let jobs: Vec<TraceJob> = raw
            .iter()
            .enumerate()
            .map(|(i, &(s, r, w, c, u, a))| {
                let mut j = job(&i.to_string(), s, r, w, c, &format!("u{u}"));
                j.account = format!("g{a}");
                // A memory request the formula may read (no memory in the model: it binds only).
                j.mem = (s as u64 * 7 + r as u64) % 3 * 1_048_576;
                j
            })
            .collect();
        let backfill = if easy { Backfill::Easy } else { Backfill::None };
        let o = run(jobs.clone(), 2, 4, formula, backfill);
        prop_assert_eq!(times(&o), reference(&jobs, 8, 4, formula, easy));
    }
}

/// The `<polyline` elements drawn 2 px wide: the plots' data series (axes and ticks are 1 px).
fn series_count(svg: &str) -> usize {
    svg.split("<polyline")
        .skip(1)
        .filter(|el| {
            el.split('>')
                .next()
                .unwrap_or("")
                .contains("stroke-width=\"2\"")
        })
        .count()
}

/// The text of every `<text>` element.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|el| {
            let body = el.split_once('>')?.1;
            Some(body.split("</text>").next()?.trim().to_string())
        })
        .collect()
}

#[test]
fn cli_plots_attainment_and_streamed_json() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/small.swf");
    let dir = tempfile::tempdir().unwrap();
    let (att, waits) = (dir.path().join("att.svg"), dir.path().join("waits.svg"));
    let run = || {
        fairsort()
            .args(["replay", "--trace"])
            .arg(&example)
            .args([
                "--formula",
                "eligible_time",
                "--against",
                "fairshare_factor",
            ])
            .arg("--plot-attainment")
            .arg(&att)
            .arg("--plot-waits")
            .arg(&waits)
            .arg("--json")
            .assert()
            .success()
    };
    let out = run();
    let v = json_of(&out.get_output().stdout);
    let starts = |jobs: &serde_json::Value| -> Vec<i64> {
        jobs.as_array()
            .unwrap()
            .iter()
            .map(|j| j["start"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(starts(&v["jobs"]), [0, 0, 100, 50, 200, 80]);
    // docs/replay.md: under fair share job 5 (u3) goes before job 3 (u1) at t=100; at t=50
    // job 6 (u3, no usage yet) is backfilled before job 4 (u2, just charged), ends at once, and
    // the pass its finish makes backfills job 4.
    assert_eq!(starts(&v["against"]["jobs"]), [0, 0, 300, 50, 100, 50]);
    assert_eq!(v["against"]["formula"], "fairshare_factor");
    // Span 0..400 s: the default interval is 400 / 50 = 8 s, 50 intervals.
    let at = &v["attainment"];
    assert_eq!(at["interval"], 8);
    assert_eq!(at["ends"].as_array().unwrap().len(), 50);
    assert_eq!(at["accounts"].as_array().unwrap().len(), 2);
    assert_eq!(at["users"].as_array().unwrap().len(), 3);
    // Over 0..8 s jobs 1 (g1, 2 cores) and 2 (g2, 2 cores) run: half each; at the end
    // g1 has 62.5 % of all core-seconds (the report's usage share).
    let g1 = &at["accounts"][0];
    assert_eq!(g1["name"], "g1");
    approx::assert_relative_eq!(g1["usage_share"][0].as_f64().unwrap(), 0.5, epsilon = 1e-12);
    approx::assert_relative_eq!(
        g1["cumulative_share"][49].as_f64().unwrap(),
        v["summary"]["accounts"][0]["usage_share"].as_f64().unwrap(),
        epsilon = 1e-12
    );
    let svg = std::fs::read_to_string(&att).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(100)]);
    assert_eq!(series_count(&svg), 4, "2 accounts in each of 2 panels");
    let texts = svg_texts(&svg);
    for want in [
        "share attainment per account: A (eligible_time)",
        "share attainment per account: B (fairshare_factor)",
        "days since the first submit",
        "usage share / share",
        "g1",
        "g2",
    ] {
        assert!(texts.iter().any(|t| t == want), "no `{want}` in {texts:?}");
    }
    let w = std::fs::read_to_string(&waits).unwrap();
    assert_eq!(series_count(&w), 2, "one line per policy");
    let texts = svg_texts(&w);
    for want in [
        "wait (hours)",
        "fraction of jobs",
        "A (eligible_time)",
        "B (fairshare_factor)",
    ] {
        assert!(texts.iter().any(|t| t == want), "no `{want}` in {texts:?}");
    }
    // The same replay draws the same bytes.
    run();
    assert_eq!(std::fs::read_to_string(&att).unwrap(), svg);
    assert_eq!(std::fs::read_to_string(&waits).unwrap(), w);
}

#[test]
fn cli_attainment_csv() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/small.swf");
    let out = fairsort()
        .args(["replay", "--trace"])
        .arg(&example)
        .args(["--formula", "ncpus", "--sample", "100", "--attainment-csv"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "policy,kind,name,account,end,share,usage_share,cumulative_share"
    );
    // (2 accounts + 3 users) × 4 intervals of 100 s over 0..400.
    assert_eq!(lines.len(), 1 + 5 * 4, "{text}");
    assert!(
        lines[1].starts_with("A,account,g1,,100,0.5,"),
        "{}",
        lines[1]
    );
}

#[test]
fn cli_takes_the_formula_and_decay_from_the_home() {
    use crate::common::{fairsort_home, qmgr};
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/small.swf");
    let home = tempfile::tempdir().unwrap();
    qmgr(home.path(), "set server job_sort_formula = ncpus").success();
    qmgr(home.path(), "set sched fairshare_decay_factor = 0.25").success();
    let out = fairsort_home(home.path())
        .args(["replay", "--trace"])
        .arg(&example)
        .arg("--json")
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    assert_eq!(v["formula"], "ncpus");
    // Usage × 0.25 per day (86 400 s) is a half-life of half a day.
    approx::assert_relative_eq!(
        v["half_life"].as_f64().unwrap(),
        43_200.0,
        max_relative = 1e-12
    );
    // No home and no --formula: a usage error naming the flag.
    fairsort()
        .args(["replay", "--trace"])
        .arg(&example)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("give --formula"));
}

#[test]
fn cli_plot_errors_name_the_file() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/small.swf");
    fairsort()
        .args(["replay", "--trace"])
        .arg(&example)
        .args([
            "--formula",
            "ncpus",
            "--plot-waits",
            "/nonexistent-dir/w.svg",
        ])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "cannot write /nonexistent-dir/w.svg",
        ));
}

#[test]
fn cli_asks_for_the_cluster_size_the_trace_does_not_state() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(
        dir.path(),
        "20261120",
        "11/20/2026 11:00:00;E;1.srv;user=bob group=chem queue=workq qtime=1795168800 start=1795169100 end=1795172400 Resource_List.ncpus=2\n",
    );
    let replay = |extra: &[&str]| {
        let mut c = fairsort();
        c.args([
            "replay",
            "--trace-format",
            "pbs",
            "--formula",
            "ncpus",
            "--trace",
        ])
        .arg(&log)
        .args(extra);
        c.assert()
    };
    replay(&[]).code(2).stderr(predicates::str::contains(
        "give --nodes and --cores-per-node",
    ));
    replay(&["--nodes", "4"])
        .code(2)
        .stderr(predicates::str::contains("give --cores-per-node"));
    replay(&["--nodes", "4", "--cores-per-node", "2"]).success();
}

#[test]
fn plot_attainment_and_waits_are_the_replays_pictures() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/replay/small.swf");
    let dir = tempfile::tempdir().unwrap();
    let (att, waits) = (dir.path().join("att.svg"), dir.path().join("waits.svg"));
    let policy = [
        "--formula",
        "eligible_time",
        "--against",
        "fairshare_factor",
    ];
    fairsort()
        .args(["replay", "--trace"])
        .arg(&example)
        .args(policy)
        .arg("--plot-attainment")
        .arg(&att)
        .arg("--plot-waits")
        .arg(&waits)
        .assert()
        .success();
    for (kind, file) in [("attainment", &att), ("waits", &waits)] {
        let out = fairsort()
            .args(["plot", kind, "-o", "-", "--trace"])
            .arg(&example)
            .args(policy)
            .assert()
            .success();
        let svg = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_eq!(svg, std::fs::read_to_string(file).unwrap(), "plot {kind}");
        assert!(series_count(&svg) >= 2, "plot {kind}: {svg}");
    }
    // without a trace: a usage error naming the flag
    fairsort()
        .args(["plot", "waits", "-o", "-", "--formula", "eligible_time"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--trace"));
    fairsort()
        .args(["plot", "tree", "--example", "-o", "-", "--trace"])
        .arg(&example)
        .assert()
        .code(2);
}

/// A flux-accounting database with two associations and the jobs table of five jobs.
fn flux_db(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("accounting.db");
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute_batch(
        r#"CREATE TABLE association_table (username tinytext, userid int, bank tinytext,
               default_bank tinytext);
           INSERT INTO association_table VALUES ('alice', 1001, 'physics', 'physics'),
               ('bob', 1002, 'chem', 'chem');
           CREATE TABLE jobs (id int, userid int, t_submit real, t_run real, t_inactive real,
               ranks text, R text, jobspec text, project text, bank text);
           INSERT INTO jobs VALUES
             (11, 1001, 100, 100, 400, '0', '{"execution":{"R_lite":[{"rank":"0","children":{"core":"0-3"}}]}}',
              '{"attributes":{"system":{"duration":600}}}', '*', 'physics'),
             (12, 1002, 150, 400, 500, '0', '{"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-1"}}]}}',
              '{"attributes":{"system":{"duration":0}}}', '*', ''),
             (13, 1002, 160, 0, 170, '', '', '{}', '*', 'chem'),
             (14, 1001, 200, 500, 560, '0', '{"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}]}}',
              '{"attributes":{"system":{"duration":120.5}}}', '*', 'physics');"#,
    )
    .unwrap();
    path
}

#[test]
fn reads_a_flux_accounting_jobs_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = flux_db(dir.path());
    // detected by the SQLite header, no --trace-format needed
    let t = fairsort::replay::trace::read_trace(&db, None).unwrap();
    type Row<'a> = (&'a str, i64, i64, Option<i64>, u64, &'a str, &'a str);
    let got: Vec<Row> = t
        .jobs
        .iter()
        .map(|j| {
            let (id, user, account) = (j.id.as_str(), j.user.as_str(), j.account.as_str());
            (id, j.submit, j.run, j.walltime, j.cores, user, account)
        })
        .collect();
    assert_eq!(
        got,
        [
            ("11", 100, 300, Some(600), 4, "alice", "physics"),
            // no duration requested; an empty bank is the user's default bank; 2 ranks × 2 cores
            ("12", 150, 100, None, 4, "bob", "chem"),
            ("14", 200, 60, Some(121), 1, "alice", "physics"),
        ]
    );
    assert_eq!(t.left_out, [("never ran (t_run 0)".to_string(), 1)]);
    // and through the command line
    fairsort()
        .args(["replay", "--trace"])
        .arg(&db)
        .args([
            "--nodes",
            "1",
            "--cores-per-node",
            "4",
            "--formula",
            "eligible_time",
            "--json",
        ])
        .assert()
        .success();
    // a job of no association names the job
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute(
        "INSERT INTO jobs VALUES (15, 999, 300, 300, 310, '0', '', '{}', '*', '')",
        [],
    )
    .unwrap();
    drop(c);
    let e = fairsort::replay::trace::read_trace(&db, Some(TraceFormat::Flux)).unwrap_err();
    assert!(
        e.to_string()
            .contains("job 15: userid 999 has no association"),
        "{e}"
    );
}

/// Replays `jobs` without backfill, ordered by Slurm's multifactor priority under slurm.conf
/// lines `conf` (multifactor, with SlurmDBD so that age and fair share count).
fn slurm_run(jobs: Vec<TraceJob>, nodes: u64, cpn: u64, conf: &str) -> Outcome {
    let trace = Trace {
        jobs,
        ..Trace::default()
    };
    let text = format!(
        "PriorityType=priority/multifactor\nAccountingStorageType=accounting_storage/slurmdbd\n{conf}"
    );
    let conf = fairsort::slurm::parse_slurm_conf(&text, "slurm.conf").unwrap();
    let cluster = Cluster {
        nodes,
        cores_per_node: cpn,
        mem_per_node: 0,
    };
    let policy = SlurmPolicy::new(conf, Default::default(), cluster).unwrap();
    let opts = Options {
        cluster,
        backfill: Backfill::None,
        half_life: 604_800.0,
        tree: None,
        decay: Decay::Continuous,
    };
    replay_slurm(&trace, &policy, &opts, &mut ()).unwrap()
}

#[test]
fn slurm_age_weight_alone_is_first_come_first_served() {
    // 1 node × 4 cores, no backfill. a (4 cores) runs 0..100; b (1 core), c (4), d (2) wait.
    // Age only (PriorityMaxAge 20 min, weight 12000: one second of age is 10): at t=100 b, c, d
    // are 900, 800, 700: b starts, c does not fit in the 3 free cores and the pass stops. At
    // 150 b ends: c starts (to 160), d does not fit. At 160 d starts (to 170).
    let jobs = vec![
        job("a", 0, 100, 100, 4, "ua"),
        job("b", 10, 50, 50, 1, "ub"),
        job("c", 20, 10, 10, 4, "uc"),
        job("d", 30, 10, 10, 2, "ud"),
    ];
    let age = "PriorityMaxAge=00:20:00\nPriorityWeightAge=12000\n";
    let o = slurm_run(jobs.clone(), 1, 4, age);
    let fcfs = [
        Some((0, 100)),
        Some((100, 150)),
        Some((150, 160)),
        Some((160, 170)),
    ];
    assert_eq!(times(&o), fcfs);
    assert_eq!(
        times(&run(jobs.clone(), 1, 4, "eligible_time", Backfill::None)),
        fcfs
    );
    // The order is the priority's, not the tie rule's: job size alone (larger first) starts
    // c (1000) at 100, then d (750) and b (625) together at 110.
    let o = slurm_run(jobs, 1, 4, "PriorityWeightJobSize=1000\n");
    assert_eq!(
        times(&o),
        [
            Some((0, 100)),
            Some((110, 160)),
            Some((100, 110)),
            Some((110, 120)),
        ]
    );
}

#[test]
fn slurm_fair_share_starts_a_light_users_job_before_a_heavy_users() {
    // 1 node × 2 cores, no backfill. heavy's h1 (2 cores) runs 0..1000 and charges 2000
    // core-seconds to account g_heavy; h2 (heavy, submitted at 10) and l1 (light, at 20) wait.
    // At 1000 the fair-tree factor of light (no usage) is above heavy's: with the fair-share
    // weight l1 starts at 1000 and h2 at 1100, though h2 is older.
    let jobs = vec![
        job("h1", 0, 1000, 1000, 2, "heavy"),
        job("h2", 10, 100, 100, 2, "heavy"),
        job("l1", 20, 100, 100, 2, "light"),
    ];
    let conf = "PriorityWeightAge=1000\nPriorityWeightFairshare=10000\n";
    let o = slurm_run(jobs.clone(), 1, 2, conf);
    assert_eq!(
        times(&o),
        [Some((0, 1000)), Some((1100, 1200)), Some((1000, 1100))]
    );
    assert!(o.share_updates >= 1);
    // Age alone: the older h2 first.
    let o = slurm_run(jobs, 1, 2, "PriorityWeightAge=1000\n");
    assert_eq!(
        times(&o),
        [Some((0, 1000)), Some((1000, 1100)), Some((1100, 1200))]
    );
}

#[test]
fn cli_slurm_partition_and_qos_from_an_sacct_trace() {
    // 2 cores. Job 1 holds both for 100 s; 2 (partition lo) and 3 (partition hi, QOS high)
    // wait. Partition and QOS weights put 3 first: 3 at +100, 2 when 3 ends (+200).
    let dir = tempfile::tempdir().unwrap();
    let trace = write(
        dir.path(),
        "sacct.txt",
        "\
JobID|User|Account|Partition|QOS|Submit|Start|End|Timelimit|AllocCPUS
1|ann|chem|lo|normal|2026-11-20T10:00:00|2026-11-20T10:00:00|2026-11-20T10:01:40|00:05:00|2
2|bob|chem|lo|normal|2026-11-20T10:00:10|2026-11-20T10:01:40|2026-11-20T10:03:20|00:05:00|2
3|eve|phys|hi|high|2026-11-20T10:00:20|2026-11-20T10:03:20|2026-11-20T10:05:00|00:05:00|2
",
    );
    let conf = write(
        dir.path(),
        "slurm.conf",
        "PriorityType=priority/multifactor\nPriorityWeightPartition=1000\nPriorityWeightQOS=1000\n\
         PartitionName=lo PriorityJobFactor=1\nPartitionName=hi PriorityJobFactor=2\n",
    );
    let qos = write(dir.path(), "qos.psv", "Name|Priority\nnormal|0\nhigh|10\n");
    let out = fairsort()
        .args(["replay", "--nodes", "1", "--cores-per-node", "2"])
        .args(["--backfill", "none", "--json", "--trace"])
        .arg(&trace)
        .arg("--slurm-conf")
        .arg(&conf)
        .arg("--qos")
        .arg(&qos)
        .assert()
        .success();
    let v = json_of(&out.get_output().stdout);
    let starts: Vec<i64> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["start"].as_i64().unwrap())
        .collect();
    let t0 = starts[0];
    assert_eq!(
        starts.iter().map(|s| s - t0).collect::<Vec<_>>(),
        [0, 200, 100]
    );
    // `plot waits --slurm-conf` draws the replay's picture (and not FCFS's: the waits differ).
    let svg = dir.path().join("w.svg");
    fairsort()
        .args(["replay", "--nodes", "1", "--cores-per-node", "2"])
        .args(["--backfill", "none", "--trace"])
        .arg(&trace)
        .arg("--slurm-conf")
        .arg(&conf)
        .arg("--qos")
        .arg(&qos)
        .arg("--plot-waits")
        .arg(&svg)
        .assert()
        .success();
    let plot = |policy: &[&str]| {
        let out = fairsort()
            .args([
                "plot",
                "waits",
                "-o",
                "-",
                "--nodes",
                "1",
                "--cores-per-node",
                "2",
            ])
            .args(["--backfill", "none", "--trace"])
            .arg(&trace)
            .args(policy)
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let (c, q) = (conf.to_str().unwrap(), qos.to_str().unwrap());
    let slurm_svg = plot(&["--slurm-conf", c, "--qos", q]);
    assert_eq!(slurm_svg, std::fs::read_to_string(&svg).unwrap());
    // The lines drawn (the text, which names the policy, left out).
    let lines = |svg: &str| -> Vec<String> {
        svg.split("<polyline")
            .skip(1)
            .filter_map(|el| el.split_once("/>").map(|(l, _)| l.to_string()))
            .collect()
    };
    let fcfs_svg = plot(&["--formula", "eligible_time"]);
    assert_eq!(series_count(&slurm_svg), 1);
    assert_ne!(lines(&slurm_svg), lines(&fcfs_svg));
    // --formula and --slurm-conf are two orderings: bad usage.
    fairsort()
        .args(["replay", "--formula", "ncpus", "--trace"])
        .arg(&trace)
        .arg("--slurm-conf")
        .arg(&conf)
        .assert()
        .code(2);
}

#[test]
fn slurm_heavy_users_wait_longer_under_fair_share_than_under_job_size() {
    // The generated month of `heavy_users_wait_longer_under_fair_share_than_under_size_only`,
    // ordered by Slurm's priority with only the fair-share weight, then only the job-size one.
    let (_, trace, cluster) = month_on_16x8();
    let mean_wait = |weights: &str, heavy: bool| {
        let text = format!(
            "PriorityType=priority/multifactor\nAccountingStorageType=accounting_storage/slurmdbd\n{weights}"
        );
        let conf = fairsort::slurm::parse_slurm_conf(&text, "slurm.conf").unwrap();
        let policy = SlurmPolicy::new(conf, Default::default(), cluster).unwrap();
        let opts = Options {
            cluster,
            backfill: Backfill::Easy,
            half_life: 604_800.0,
            tree: None,
            decay: Decay::Continuous,
        };
        let o = replay_slurm(&trace, &policy, &opts, &mut ()).unwrap();
        let r = summarize(&trace, &o, cluster);
        let (sum, n) = r
            .users
            .iter()
            .filter(|u| u.name.starts_with("heavy") == heavy)
            .fold((0.0, 0u64), |(s, n), u| {
                (s + u.wait_mean * u.jobs as f64, n + u.jobs)
            });
        sum / n as f64
    };
    let (fs, size) = (
        "PriorityWeightFairshare=100000\n",
        "PriorityWeightJobSize=100000\n",
    );
    let heavy_fs = mean_wait(fs, true);
    let heavy_size = mean_wait(size, true);
    let light_fs = mean_wait(fs, false);
    let light_size = mean_wait(size, false);
    assert!(
        heavy_fs > heavy_size,
        "heavy users: fair share {heavy_fs} s vs job size {heavy_size} s"
    );
    assert!(
        light_fs < light_size,
        "light users: fair share {light_fs} s vs job size {light_size} s"
    );
    assert!(heavy_fs > light_fs);
}

#[test]
fn whole_nodes_rounds_jobs_up_to_nodes() {
    // 2 nodes × 4 cores; three 1-core jobs and a 5-core one, all at t=0 (FCFS, no backfill)
    let jobs = || {
        vec![
            job("1", 0, 100, 100, 1, "a"),
            job("2", 0, 100, 100, 1, "b"),
            job("3", 0, 100, 100, 1, "c"),
            job("4", 0, 100, 100, 5, "d"),
        ]
    };
    let shared = run(jobs(), 2, 4, "-eligible_time", Backfill::None);
    // core by core: 1 + 1 + 1 + 5 = the 8 cores, all start at once
    assert_eq!(times(&shared), [Some((0, 100)); 4]);
    let mut trace = Trace {
        jobs: jobs(),
        ..Trace::default()
    };
    trace.whole_nodes(4, 0);
    assert_eq!(
        trace.jobs.iter().map(|j| j.cores).collect::<Vec<_>>(),
        [4, 4, 4, 8]
    );
    let whole = run(trace.jobs, 2, 4, "-eligible_time", Backfill::None);
    // a node each for jobs 1 and 2; job 3 waits for a node, job 4 for both
    assert_eq!(
        times(&whole),
        [
            Some((0, 100)),
            Some((0, 100)),
            Some((100, 200)),
            Some((200, 300))
        ]
    );
}

/// Two users in two accounts, 40 jobs each of 100 s on one core, all submitted at 0 and
/// alternating in trace order: the order is fair share's alone.
fn two_users() -> Vec<TraceJob> {
    (0..80)
        .map(|i| {
            let u = if i % 2 == 0 { "ua" } else { "ub" };
            job(&i.to_string(), 0, 100, 100, 1, u)
        })
        .collect()
}

fn native_tree(shares_a: u64, shares_b: u64) -> fairsort::fairshare::TreeSpec {
    use fairsort::fairshare::{NodeKind, NodeSpec, Shares, TreeSource, TreeSpec};
    let acct = |n: &str, s: u64| NodeSpec::new(n, None, NodeKind::Account, Shares::Count(s));
    let user =
        |n: &str, p: &str| NodeSpec::new(n, Some(p.to_string()), NodeKind::User, Shares::Count(1));
    TreeSpec {
        source: TreeSource::Native,
        root_name: "root".into(),
        root_usage: None,
        unknown_shares: None,
        nodes: vec![
            acct("g_ua", shares_a),
            acct("g_ub", shares_b),
            user("ua", "g_ua"),
            user("ub", "g_ub"),
        ],
    }
}

/// Mean wait per user ("ua", "ub") of a replay of `jobs` on one core under `formula`.
fn waits_by_user(
    jobs: Vec<TraceJob>,
    formula: &str,
    tree: Option<fairsort::fairshare::TreeSpec>,
) -> (f64, f64, fairsort::replay::Report) {
    let trace = Trace {
        jobs,
        ..Trace::default()
    };
    let cluster = Cluster {
        nodes: 1,
        cores_per_node: 1,
        mem_per_node: 0,
    };
    let opts = Options {
        cluster,
        backfill: Backfill::Easy,
        half_life: 604_800.0,
        tree,
        decay: Decay::Continuous,
    };
    let program = compile(formula, &ResourceTable::builtin()).unwrap();
    let o = replay(&trace, &program, &opts).unwrap();
    let r = summarize(&trace, &o, cluster);
    let w = |n: &str| r.users.iter().find(|u| u.name == n).unwrap().wait_mean;
    (w("ua"), w("ub"), r)
}

#[test]
fn the_site_trees_shares_change_the_order() {
    // Equal shares: fair share alternates the two users; their mean waits differ by at most
    // one job's length (the first job goes to ua, in trace order).
    for formula in ["fairshare_factor", "fairtree_factor"] {
        let (a, b, _) = waits_by_user(two_users(), formula, None);
        let (ta, tb, _) = waits_by_user(two_users(), formula, Some(native_tree(1, 1)));
        assert!((a - b).abs() <= 100.0, "{formula}: {a} vs {b}");
        assert!((ta - tb).abs() <= 100.0, "{formula}: {ta} vs {tb}");
        // 9 shares to 1: ua's jobs go first far more often, so ua waits less and ub more.
        let (na, nb, r) = waits_by_user(two_users(), formula, Some(native_tree(9, 1)));
        assert!(na < a && nb > b, "{formula}: ua {a} → {na}, ub {b} → {nb}");
        assert!(nb > na + 1000.0, "{formula}: ua {na}, ub {nb}");
        // The report's shares are the tree's.
        let share = |n: &str| r.accounts.iter().find(|x| x.name == n).unwrap().share;
        approx::assert_relative_eq!(share("g_ua"), 0.9, max_relative = 1e-12);
        approx::assert_relative_eq!(share("g_ub"), 0.1, max_relative = 1e-12);
    }
}

#[test]
fn cli_a_pbs_tree_puts_unknown_users_in_the_unknown_group() {
    // PBS resource_group: ua under grp (10 shares); ub is not in the tree, so PBS puts it in
    // the `unknown` group, whose unknown_shares default to 0: its fair-share factor is 0 and
    // every one of ua's jobs goes first.
    let dir = tempfile::tempdir().unwrap();
    // SWF users are u<uid>: u1 is in the tree, u2 is not.
    let rg = write(
        dir.path(),
        "resource_group",
        "grp 10 root 10\nu1 11 grp 1\n",
    );
    let mut swf = String::from("; MaxNodes: 1\n; MaxProcs: 1\n");
    for i in 0..20 {
        let uid = if i % 2 == 0 { 1 } else { 2 };
        swf.push_str(&format!(
            "{} 0 -1 100 1 -1 -1 1 100 -1 1 {uid} {uid} -1 1 -1 -1 -1\n",
            i + 1
        ));
    }
    let trace = write(dir.path(), "t.swf", &swf);
    let replay = |mut c: assert_cmd::Command, tree: Option<&std::path::Path>| {
        c.args([
            "replay",
            "--formula",
            "fairshare_factor",
            "--json",
            "--trace",
        ])
        .arg(&trace);
        if let Some(tree) = tree {
            c.arg("--tree").arg(tree);
        }
        let out = c.assert().success();
        json_of(&out.get_output().stdout)
    };
    let v = replay(fairsort(), Some(&rg));
    let starts = |user_odd: bool| -> Vec<i64> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| (j["id"].as_str().unwrap().parse::<u64>().unwrap() % 2 == 0) == user_odd)
            .map(|j| j["start"].as_i64().unwrap())
            .collect()
    };
    // Jobs with odd ids are u1's (trace positions 0, 2, …), even ids u2's.
    let (u1, u2) = (starts(false), starts(true));
    assert!(
        u1.iter().max().unwrap() < u2.iter().min().unwrap(),
        "u1 {u1:?} u2 {u2:?}"
    );
    let users = v["summary"]["users"].as_array().unwrap();
    let share = |n: &str| {
        users.iter().find(|u| u["name"] == n).unwrap()["share"]
            .as_f64()
            .unwrap()
    };
    approx::assert_relative_eq!(share("u1"), 1.0, max_relative = 1e-12);
    assert_eq!(share("u2"), 0.0);
    // The same tree imported into a home is the replay's without --tree.
    let home = tempfile::tempdir().unwrap();
    crate::common::fairsort_home(home.path())
        .args(["tree", "import"])
        .arg(&rg)
        .assert()
        .success();
    let v3 = replay(crate::common::fairsort_home(home.path()), None);
    assert_eq!(v3["jobs"], v["jobs"]);
    // Without the tree, the two alternate.
    let v2 = replay(fairsort(), None);
    assert_eq!(v2["jobs"][1]["start"], 100, "{}", v2["jobs"]);
}

const GB: u64 = 1024 * 1024;

/// A replay of `jobs` (id, cores, KB) on one node of 4 cores and 8 GB, FCFS.
fn run_mem(jobs: Vec<TraceJob>, mem_per_node: u64, backfill: Backfill) -> Outcome {
    let trace = Trace {
        jobs,
        ..Trace::default()
    };
    let program = compile("eligible_time", &ResourceTable::builtin()).unwrap();
    let opts = Options {
        cluster: Cluster {
            nodes: 1,
            cores_per_node: 4,
            mem_per_node,
        },
        backfill,
        half_life: 604_800.0,
        tree: None,
        decay: Decay::Continuous,
    };
    replay(&trace, &program, &opts).unwrap()
}

fn with_mem(mut j: TraceJob, gb: u64) -> TraceJob {
    j.mem = gb * GB;
    j
}

#[test]
fn memory_not_cores_limits_the_schedule() {
    // 1 node, 4 cores, 8 GB; all submitted at 0, FCFS (ties in trace order).
    let jobs = || {
        vec![
            with_mem(job("1", 0, 100, 100, 1, "a"), 6),
            with_mem(job("2", 0, 100, 100, 1, "b"), 4),
            with_mem(job("3", 0, 50, 50, 1, "c"), 2),
        ]
    };
    // Without memory the 3 cores fit at once.
    assert_eq!(
        times(&run_mem(jobs(), 0, Backfill::None)),
        [Some((0, 100)), Some((0, 100)), Some((0, 50))]
    );
    // No backfill: t=0 1 starts (2 GB left); 2 needs 4 GB: the pass stops. t=100: 1 ends,
    // 8 GB free: 2 (4 GB) and 3 (2 GB) start.
    assert_eq!(
        times(&run_mem(jobs(), 8 * GB, Backfill::None)),
        [Some((0, 100)), Some((100, 200)), Some((100, 150))]
    );
    // EASY: 2's reservation is at 100 (1's planned end frees its 6 GB); 3 fits now (2 GB of
    // 2 GB free) and ends at 50 ≤ 100: backfilled at 0. 2 starts at 100.
    let o = run_mem(jobs(), 8 * GB, Backfill::Easy);
    assert_eq!(times(&o), [Some((0, 100)), Some((100, 200)), Some((0, 50))]);
    assert_eq!(o.backfilled, 1);
}

#[test]
fn easy_reservations_hold_memory_too() {
    // 1 node, 4 cores, 8 GB; all at 0, FCFS.
    // t=0: 1 (6 GB) starts. 2 needs all 8 GB: reservation at 100 (1's planned end); then the
    //      extra cores are 3 + 1 − 1 = 3 and the extra memory 2 + 6 − 8 = 0 GB.
    //      3 (1 core, 1 GB, walltime 200) fits now but ends after 100 and needs memory the
    //      reservation keeps: it waits. 4 (1 core, no memory, walltime 200) uses only extra
    //      cores: backfilled, 0–200.
    // t=100: 1 ends; 2 starts (8 GB) 100–200. 3 waits for memory until 2 ends: 200–400.
    let jobs = vec![
        with_mem(job("1", 0, 100, 100, 1, "a"), 6),
        with_mem(job("2", 0, 100, 100, 1, "b"), 8),
        with_mem(job("3", 0, 200, 200, 1, "c"), 1),
        job("4", 0, 200, 200, 1, "d"),
    ];
    let o = run_mem(jobs.clone(), 8 * GB, Backfill::Easy);
    assert_eq!(
        times(&o),
        [
            Some((0, 100)),
            Some((100, 200)),
            Some((200, 400)),
            Some((0, 200))
        ]
    );
    // Counting cores only, 3 would have been backfilled at 0 with the 3 extra cores.
    let o = run_mem(jobs, 0, Backfill::Easy);
    assert_eq!(o.placements[2].map(|p| p.start), Some(0));
    // A job needing more memory than the cluster has is skipped and reported.
    let o = run_mem(
        vec![with_mem(job("1", 0, 10, 10, 1, "a"), 9)],
        8 * GB,
        Backfill::Easy,
    );
    assert_eq!(
        (o.too_large.as_slice(), o.placements[0]),
        (&[0usize][..], None)
    );
}

#[test]
fn memory_invariants_hold_on_random_traces() {
    // Random jobs with memory on 2 nodes × 4 cores × 8 GB: at every start, the memory and
    // cores of the jobs running then stay within the cluster.
    let mut seed: u64 = 11;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    for _ in 0..20 {
        let jobs: Vec<TraceJob> = (0..60)
            .map(|i| {
                let mut j = job(
                    &i.to_string(),
                    next(500) as i64,
                    next(100) as i64,
                    1 + next(120) as i64,
                    1 + next(4),
                    "u",
                );
                j.mem = next(10 * GB);
                j
            })
            .collect();
        let trace = Trace {
            jobs: jobs.clone(),
            ..Trace::default()
        };
        let program = compile("eligible_time", &ResourceTable::builtin()).unwrap();
        let opts = Options {
            cluster: Cluster {
                nodes: 2,
                cores_per_node: 4,
                mem_per_node: 8 * GB,
            },
            backfill: Backfill::Easy,
            half_life: 604_800.0,
            tree: None,
            decay: Decay::Continuous,
        };
        let o = replay(&trace, &program, &opts).unwrap();
        for (i, p) in o.placements.iter().enumerate() {
            let Some(p) = p else {
                assert!(jobs[i].mem > 16 * GB, "job {i} skipped");
                continue;
            };
            assert!(p.start >= jobs[i].submit);
            let (mut cores, mut mem) = (0, 0);
            for (k, q) in o.placements.iter().enumerate() {
                if let Some(q) = q {
                    if q.start <= p.start && p.start < q.end {
                        cores += jobs[k].cores;
                        mem += jobs[k].mem;
                    }
                }
            }
            assert!(
                cores <= 8 && mem <= 16 * GB,
                "at {}: {cores} cores, {mem} KB",
                p.start
            );
        }
    }
}

#[test]
fn whole_nodes_with_memory_take_the_nodes_the_memory_needs() {
    let mut trace = Trace {
        jobs: vec![
            with_mem(job("1", 0, 10, 10, 1, "a"), 12),
            with_mem(job("2", 0, 10, 10, 5, "a"), 1),
        ],
        ..Trace::default()
    };
    trace.whole_nodes(4, 8 * GB);
    // 12 GB needs 2 nodes of 8 GB: 8 cores and 16 GB; 5 cores need 2 nodes too.
    assert_eq!((trace.jobs[0].cores, trace.jobs[0].mem), (8, 16 * GB));
    assert_eq!((trace.jobs[1].cores, trace.jobs[1].mem), (8, 16 * GB));
}

#[test]
fn reads_memory_from_every_trace_format() {
    // SWF field 10: requested KB per processor × processors.
    let t = read(
        "1 0 -1 100 2 -1 -1 2 100 1000 1 1 1 -1 1 -1 -1 -1\n",
        "m.swf",
        None,
    )
    .unwrap();
    assert_eq!(t.jobs[0].mem, 2000);
    // PBS Resource_List.mem, a size in KB.
    let t = read(
        "11/20/2026 11:00:00;E;1.srv;user=a group=g start=1795169100 end=1795172400 Resource_List.ncpus=2 Resource_List.mem=3gb\n",
        "20261120",
        Some(TraceFormat::Pbs),
    )
    .unwrap();
    assert_eq!(t.jobs[0].mem, 3 * GB);
    let e = read(
        "11/20/2026 11:00:00;E;1.srv;user=a start=1795169100 end=1795172400 Resource_List.mem=lots\n",
        "log",
        Some(TraceFormat::Pbs),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .ends_with("log:1: Resource_List.mem=`lots` is not a size"),
        "{e}"
    );
    // sacct -P: ReqTRES's mem (the job's total), else ReqMem, per node (n) or per CPU (c).
    let t = read(
        "\
JobID|User|Account|Submit|Start|End|AllocCPUS|NNodes|ReqMem|ReqTRES
1|a|x|2026-11-20T10:00:00|2026-11-20T10:00:00|2026-11-20T10:01:00|4|2|1000Mn|billing=4,cpu=4,mem=3G,node=2
2|a|x|2026-11-20T10:00:00|2026-11-20T10:00:00|2026-11-20T10:01:00|4|2|1000Mn|
3|a|x|2026-11-20T10:00:00|2026-11-20T10:00:00|2026-11-20T10:01:00|4|2|500Mc|
4|a|x|2026-11-20T10:00:00|2026-11-20T10:00:00|2026-11-20T10:01:00|4|2|2G|
5|a|x|2026-11-20T10:00:00|2026-11-20T10:00:00|2026-11-20T10:01:00|4|2||
",
        "sacct.txt",
        None,
    )
    .unwrap();
    let mems: Vec<u64> = t.jobs.iter().map(|j| j.mem).collect();
    assert_eq!(mems, [3 * GB, 2000 * 1024, 2000 * 1024, 2 * GB, 0]);
    // sacct --json: tres.requested mem (MB, the job's total): job 5 asked 4000 MB per node on
    // 2 nodes.
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/slurm_priority/real_2205_dbd/sacct.json");
    let t = read_trace(&p, None).unwrap();
    assert_eq!(t.jobs[0].mem, 500 * 1024);
    assert_eq!(t.jobs[3].mem, 8000 * 1024);
}

#[test]
fn cli_takes_the_cluster_model_from_the_home() {
    use crate::common::{fairsort_home, qmgr};
    let dir = tempfile::tempdir().unwrap();
    // A PBS log states no cluster size. Job 2 asks for 3 GB of memory.
    let log = write(
        dir.path(),
        "20261120",
        "11/20/2026 11:00:00;E;1.srv;user=bob group=chem queue=workq qtime=1795168800 start=1795169100 end=1795172400 Resource_List.ncpus=2 Resource_List.mem=1gb\n\
         11/20/2026 11:00:00;E;2.srv;user=bob group=chem queue=workq qtime=1795168800 start=1795169100 end=1795172400 Resource_List.ncpus=1 Resource_List.mem=3gb\n",
    );
    let home = tempfile::tempdir().unwrap();
    let replay = |extra: &[&str]| {
        let mut c = fairsort_home(home.path());
        c.args(["replay", "--formula", "ncpus", "--json", "--trace"])
            .arg(&log)
            .args(extra);
        c.assert()
    };
    replay(&[]).code(2).stderr(predicates::str::contains(
        "give --nodes and --cores-per-node (or set server replay_nodes and replay_cores_per_node in the home)",
    ));
    qmgr(home.path(), "set server replay_nodes = 3").success();
    qmgr(home.path(), "set server replay_cores_per_node = 2").success();
    let v = json_of(&replay(&[]).success().get_output().stdout);
    assert_eq!(
        (v["nodes"].as_u64(), v["cores_per_node"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(v["mem_per_node_kb"], 0);
    assert_eq!(v["summary"]["too_large"].as_array().map(Vec::len), Some(0));
    // Flags override the home.
    let v = json_of(&replay(&["--nodes", "5"]).success().get_output().stdout);
    assert_eq!(
        (v["nodes"].as_u64(), v["cores_per_node"].as_u64()),
        (Some(5), Some(2))
    );
    // Memory is pooled as cores are: 3 nodes × 2 GB = 6 GB, so job 2 (3 GB) runs; on 1 node
    // (2 GB) it is larger than the cluster.
    qmgr(home.path(), "set server replay_mem_per_node = 2gb").success();
    let v = json_of(&replay(&[]).success().get_output().stdout);
    assert_eq!(v["mem_per_node_kb"], 2 * GB);
    assert_eq!(v["summary"]["too_large"].as_array().map(Vec::len), Some(0));
    let v = json_of(&replay(&["--nodes", "1"]).success().get_output().stdout);
    assert_eq!(v["summary"]["too_large"].as_array().map(Vec::len), Some(1));
    // --mem-per-node overrides the home's; a bad size is a usage error.
    let v = json_of(
        &replay(&["--nodes", "1", "--mem-per-node", "4gb"])
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(v["summary"]["too_large"].as_array().map(Vec::len), Some(0));
    replay(&["--mem-per-node", "lots"])
        .code(2)
        .stderr(predicates::str::contains(
            "--mem-per-node must be a PBS size",
        ));
    // Every setting has a range, checked by qmgr and on read.
    qmgr(home.path(), "set server replay_nodes = 0")
        .failure()
        .stderr(predicates::str::contains(
            "replay_nodes must be from 1 to 1048576, got 0",
        ));
    qmgr(home.path(), "set server replay_mem_per_node = 2pb")
        .failure()
        .stderr(predicates::str::contains(
            "replay_mem_per_node must be a PBS size",
        ));
    let out = qmgr(home.path(), "print server").success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("set server replay_mem_per_node = 2gb"),
        "{text}"
    );
    let toml = home.path().join("server.toml");
    let edited = std::fs::read_to_string(&toml).unwrap().replace(
        "replay_cores_per_node = 2",
        "replay_cores_per_node = 100000",
    );
    std::fs::write(&toml, edited).unwrap();
    replay(&[]).code(1).stderr(predicates::str::contains(
        "replay_cores_per_node must be from 1 to 65536, got 100000",
    ));
}

#[test]
fn flux_heavy_users_wait_longer_under_fair_share() {
    // The generated month ordered by flux-accounting's priority: with the default weights
    // (fair share 100000) heavy users wait longer and light users less than with the
    // fair-share weight 0 (every priority 0: ties to the earlier submit, first come first served).
    use fairsort::flux::priority::Site;
    use fairsort::replay::{replay_flux, FluxPolicy};
    let (jobs, trace, cluster) = month_on_16x8();
    let opts = Options {
        cluster,
        backfill: Backfill::Easy,
        half_life: 604_800.0,
        tree: None,
        decay: Decay::Continuous,
    };
    let mean_wait = |fairshare_weight: i32, heavy: bool| {
        let mut site = Site::default();
        site.weights.fairshare = fairshare_weight;
        let policy = FluxPolicy::new(&site, &trace);
        let o = replay_flux(&trace, &policy, &opts, &mut ()).unwrap();
        let r = summarize(&trace, &o, cluster);
        let (sum, n) = r
            .users
            .iter()
            .filter(|u| u.name.starts_with("heavy") == heavy)
            .fold((0.0, 0u64), |(s, n), u| {
                (s + u.wait_mean * u.jobs as f64, n + u.jobs)
            });
        sum / n as f64
    };
    let (heavy_fs, heavy_fcfs) = (mean_wait(100_000, true), mean_wait(0, true));
    let (light_fs, light_fcfs) = (mean_wait(100_000, false), mean_wait(0, false));
    assert!(heavy_fs > heavy_fcfs, "heavy: {heavy_fs} vs {heavy_fcfs}");
    assert!(light_fs < light_fcfs, "light: {light_fs} vs {light_fcfs}");
    // Weight 0 is first come, first served: the same schedule as `eligible_time`.
    let mut site = Site::default();
    site.weights.fairshare = 0;
    let o = replay_flux(&trace, &FluxPolicy::new(&site, &trace), &opts, &mut ()).unwrap();
    assert_eq!(
        o.placements,
        run(jobs, 16, 8, "eligible_time", Backfill::Easy).placements
    );
}

#[test]
fn cli_flux_db_bank_priorities_and_bank_tree() {
    // Bank b has priority 5 and the database weighs banks 1000 and fair share 0: all of bob's
    // jobs (bank b) go before ann's (bank a), where first come first served alternates them.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("accounting.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    let mut sql = String::from(
        r#"CREATE TABLE bank_table (bank_id integer, bank text, active int, parent_bank text,
               shares int, job_usage real, priority real);
           INSERT INTO bank_table VALUES (1, 'root', 1, '', 1, 0, 0), (2, 'a', 1, 'root', 1, 0, 0),
               (3, 'b', 1, 'root', 3, 0, 5);
           CREATE TABLE association_table (username text, userid int, bank text,
               default_bank text, shares int, job_usage real, fairshare real, active int,
               queues text);
           INSERT INTO association_table VALUES ('ann', 1, 'a', 'a', 1, 0, 0.5, 1, ''),
               ('bob', 2, 'b', 'b', 1, 0, 0.5, 1, '');
           CREATE TABLE priority_factor_weight_table (factor text, weight int);
           INSERT INTO priority_factor_weight_table VALUES ('fairshare', 0), ('bank', 1000);
           CREATE TABLE jobs (id int, userid int, t_submit real, t_run real, t_inactive real,
               ranks text, R text, jobspec text, project text, bank text);
"#,
    );
    for i in 0..6 {
        let (uid, bank) = if i % 2 == 0 { (1, "a") } else { (2, "b") };
        sql.push_str(&format!(
            "INSERT INTO jobs VALUES ({}, {uid}, 100, 100, 200, '0', \
             '{{\"execution\":{{\"R_lite\":[{{\"rank\":\"0\",\"children\":{{\"core\":\"0\"}}}}]}}}}', \
             '{{\"attributes\":{{\"system\":{{\"duration\":100}}}}}}', '*', '{bank}');\n",
            i + 1
        ));
    }
    c.execute_batch(&sql).unwrap();
    drop(c);
    let replay = |policy: &[&str]| {
        let out = fairsort()
            .args([
                "replay",
                "--nodes",
                "1",
                "--cores-per-node",
                "1",
                "--json",
                "--trace",
            ])
            .arg(&db)
            .args(policy)
            .assert()
            .success();
        json_of(&out.get_output().stdout)
    };
    let users_in_order = |v: &serde_json::Value| -> Vec<i64> {
        let mut jobs: Vec<(i64, i64)> = v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let id: i64 = j["id"].as_str().unwrap().parse().unwrap();
                (j["start"].as_i64().unwrap(), id % 2)
            })
            .collect();
        jobs.sort();
        jobs.into_iter().map(|(_, odd)| odd).collect()
    };
    let v = replay(&["--flux-db", db.to_str().unwrap()]);
    assert!(v["formula"]
        .as_str()
        .unwrap()
        .starts_with("flux-accounting priority"));
    // ann's jobs have odd ids (1, 3, 5), bob's even.
    assert_eq!(users_in_order(&v), [0, 0, 0, 1, 1, 1]);
    // The database's bank tree is the replay's share tree: b has 3 shares of 4.
    let share = |v: &serde_json::Value, bank: &str| {
        v["summary"]["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == bank)
            .unwrap()["share"]
            .as_f64()
            .unwrap()
    };
    approx::assert_relative_eq!(share(&v, "b"), 0.75, max_relative = 1e-12);
    let v = replay(&["--formula", "eligible_time"]);
    assert_eq!(users_in_order(&v), [1, 0, 1, 0, 1, 0]);
    approx::assert_relative_eq!(share(&v, "b"), 0.5, max_relative = 1e-12);
    fairsort()
        .args(["replay", "--formula", "ncpus", "--trace"])
        .arg(&db)
        .arg("--flux-db")
        .arg(&db)
        .assert()
        .code(2);
}

/// Which of a2 and b2 starts first after b1 ends, under `decay` (half-life 1000 s).
fn first_after_b1(b1_run: i64, decay: Decay) -> &'static str {
    // 1 core, `fairshare_factor`, users a and b in their own accounts, all submitted at 0.
    // t=0: a1 (1000 s) starts (no usage yet: trace order). t=1000: a1 ends and charges a 1000;
    // b has no usage, so b1 starts. t=1000+r: b1 ends and charges b r; a2 and b2 wait: the one
    // whose user has less decayed usage goes first.
    let jobs = vec![
        job("a1", 0, 1000, 1000, 1, "a"),
        job("b1", 0, b1_run, b1_run, 1, "b"),
        job("a2", 0, 10, 10, 1, "a"),
        job("b2", 0, 10, 10, 1, "b"),
    ];
    let trace = Trace {
        jobs,
        ..Trace::default()
    };
    let opts = Options {
        cluster: Cluster {
            nodes: 1,
            cores_per_node: 1,
            mem_per_node: 0,
        },
        backfill: Backfill::None,
        half_life: 1000.0,
        tree: None,
        decay,
    };
    let program = compile("fairshare_factor", &ResourceTable::builtin()).unwrap();
    let o = replay(&trace, &program, &opts).unwrap();
    let start = |i: usize| o.placements[i].unwrap().start;
    assert_eq!((start(0), start(1)), (0, 1000));
    assert_eq!(start(2).min(start(3)), 1000 + b1_run);
    if start(2) < start(3) {
        "a2"
    } else {
        "b2"
    }
}

#[test]
fn decay_models_step_as_their_schedulers() {
    use fairsort::usage::decay::{FluxDecay, PbsDecay, SlurmDecay};
    let pbs = Decay::Pbs(PbsDecay::new(1000, 0.5).unwrap());
    let slurm = Decay::Slurm(SlurmDecay::new(1000, 300, Default::default()).unwrap());
    let flux = Decay::Flux(FluxDecay::new(1000, 4000, 0.5).unwrap());
    // b1 runs 600 s, so a2/b2 are ordered at t=1600:
    // * continuous: a = 1000·2^(−0.6) = 659.8 > b = 600: b2 first;
    // * PBS (×0.5 when more than 1000 s passed since the last decay, clock from 0): one decay
    //   by 1600, after a's charge at 1000: a = (1 + 1000)·0.5 = 500.5 < b = 1 + 600: a2 first;
    // * Slurm (δ = 1 − 0.693/1000 every 300 s): a decays over 900–1500 only, 1000·δ^600 =
    //   656.8 > 600: b2 first;
    // * flux (bins shifted at 1000, 2000, …): a's 1000 is in the current bin until 2000 and
    //   undecayed; 1000 > 600: b2 first.
    assert_eq!(first_after_b1(600, Decay::Continuous), "b2");
    assert_eq!(first_after_b1(600, pbs), "a2");
    assert_eq!(first_after_b1(600, slurm), "b2");
    assert_eq!(first_after_b1(600, flux), "b2");
    // b1 runs 900 s (t=1900): continuous a = 535.9 < 900, PBS 500.5 < 901, Slurm 1000·δ^900 =
    // 532.3 < 900: a2 first; flux still holds a's 1000 > 900: b2 first.
    assert_eq!(first_after_b1(900, Decay::Continuous), "a2");
    assert_eq!(first_after_b1(900, pbs), "a2");
    assert_eq!(first_after_b1(900, slurm), "a2");
    assert_eq!(first_after_b1(900, flux), "b2");
}

#[test]
fn cli_decay_models_and_their_settings() {
    let dir = tempfile::tempdir().unwrap();
    let swf = "; MaxNodes: 1\n; MaxProcs: 1\n\
        1 0 -1 1000 1 -1 -1 1 1000 -1 1 1 1 -1 1 -1 -1 -1\n\
        2 0 -1 600 1 -1 -1 1 600 -1 1 2 2 -1 1 -1 -1 -1\n\
        3 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
        4 0 -1 10 1 -1 -1 1 10 -1 1 2 2 -1 1 -1 -1 -1\n";
    let trace = write(dir.path(), "t.swf", swf);
    let replay = |extra: &[&str]| {
        let mut c = fairsort();
        c.args([
            "replay",
            "--formula",
            "fairshare_factor",
            "--backfill",
            "none",
        ])
        .args(["--half-life", "1000", "--json", "--trace"])
        .arg(&trace)
        .args(extra);
        c.assert()
    };
    let start3 = |extra: &[&str]| {
        let v = json_of(&replay(extra).success().get_output().stdout);
        (
            v["decay"].as_str().unwrap().to_string(),
            v["jobs"][2]["start"].as_i64().unwrap(),
        )
    };
    // As in `decay_models_step_as_their_schedulers`: job 3 (user 1) starts at 1600 under PBS
    // decay, after job 4 (1610) under the continuous half-life.
    assert_eq!(start3(&[]), ("continuous".to_string(), 1610));
    assert_eq!(
        start3(&[
            "--decay",
            "pbs",
            "--decay-period",
            "1000",
            "--decay-factor",
            "0.5"
        ]),
        ("pbs".to_string(), 1600)
    );
    assert_eq!(
        start3(&["--decay", "slurm", "--decay-period", "300"]).1,
        1610
    );
    assert_eq!(start3(&["--decay", "flux"]).1, 1610);
    replay(&["--decay", "weekly"])
        .code(2)
        .stderr(predicates::str::contains("unknown decay model `weekly`"));
    replay(&["--decay", "slurm", "--decay-factor", "0.5"])
        .code(2)
        .stderr(predicates::str::contains(
            "--decay-factor does not apply to --decay slurm",
        ));
    replay(&["--decay", "pbs", "--decay-factor", "1.5"])
        .code(2)
        .stderr(predicates::str::contains("fairshare_decay_factor"));
}

#[test]
fn slurm_fair_share_uses_the_site_association_tree() {
    // Slurm's Fair Tree factor over a 9 : 1 association tree makes ua wait less and ub more
    // than over 1 : 1 (the order of `two_users` is fair share's alone: all submitted at 0).
    let conf = fairsort::slurm::parse_slurm_conf(
        "PriorityType=priority/multifactor\nAccountingStorageType=accounting_storage/slurmdbd\n\
         PriorityWeightFairshare=10000\n",
        "slurm.conf",
    )
    .unwrap();
    let cluster = Cluster {
        nodes: 1,
        cores_per_node: 1,
        mem_per_node: 0,
    };
    let policy = SlurmPolicy::new(conf, Default::default(), cluster).unwrap();
    let waits = |tree| {
        let trace = Trace {
            jobs: two_users(),
            ..Trace::default()
        };
        let opts = Options {
            cluster,
            backfill: Backfill::Easy,
            half_life: 604_800.0,
            tree,
            decay: Decay::Continuous,
        };
        let o = replay_slurm(&trace, &policy, &opts, &mut ()).unwrap();
        let r = summarize(&trace, &o, cluster);
        let w = |n: &str| r.users.iter().find(|u| u.name == n).unwrap().wait_mean;
        (w("ua"), w("ub"))
    };
    let mut even = native_tree(1, 1);
    even.source = fairsort::fairshare::TreeSource::Slurm;
    let mut skewed = native_tree(9, 1);
    skewed.source = fairsort::fairshare::TreeSource::Slurm;
    let (a, b) = waits(Some(even));
    let (na, nb) = waits(Some(skewed));
    assert!((a - b).abs() <= 100.0, "{a} vs {b}");
    assert!(na < a && nb > b, "ua {a} → {na}, ub {b} → {nb}");
}

/// PBS accounting logs and `sacct -P` rows carry their site's local time without a zone:
/// `--tz` reads them there (and `TZ` is the default), so a trace from Paris in April starts
/// two hours earlier in UTC than the same digits read as UTC. SWF's seconds have no zone.
#[test]
fn trace_dates_are_read_in_the_sites_zone() {
    let paris = "CET-1CEST,M3.5.0,M10.5.0/3";
    let first_submit = |trace: &Path, tz: Option<&str>, env_tz: &str| {
        let mut c = fairsort();
        c.env("TZ", env_tz)
            .args(["replay", "--nodes", "2", "--cores-per-node", "8"])
            .args(["--formula", "walltime", "--json", "--trace"])
            .arg(trace);
        if let Some(z) = tz {
            c.args(["--tz", z]);
        }
        let out = c.assert().success().get_output().stdout.clone();
        json_of(&out)["summary"]["first_submit"].as_i64().unwrap()
    };
    let logs = crate::common::data("usage/pbs_logs");
    let utc = first_submit(&logs, Some("UTC"), "UTC");
    assert_eq!(first_submit(&logs, Some(paris), "UTC"), utc - 7200);
    assert_eq!(first_submit(&logs, None, paris), utc - 7200);
    assert_eq!(first_submit(&logs, None, "UTC"), utc);
    let dir = tempfile::tempdir().unwrap();
    let sacct = write(
        dir.path(),
        "sacct.txt",
        "JobID|User|Account|Submit|Start|End|AllocCPUS|Timelimit\n\
         1|alice|a|2024-04-13T12:00:00|2024-04-13T12:00:00|2024-04-13T13:00:00|4|02:00:00\n",
    );
    assert_eq!(
        first_submit(&sacct, Some(paris), "UTC"),
        first_submit(&sacct, Some("UTC"), "UTC") - 7200
    );
    let swf = crate::common::data("../../examples/replay/small.swf");
    assert_eq!(
        first_submit(&swf, Some(paris), "UTC"),
        first_submit(&swf, Some("UTC"), "UTC")
    );
    let bad = fairsort()
        .args(["replay", "--nodes", "2", "--tz", "Mars/Olympus", "--trace"])
        .arg(&logs)
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&bad.get_output().stderr).contains("Mars/Olympus"));
}
