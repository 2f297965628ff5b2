//! Benchmarks of `fairsort order` at scale: reading a million-job `qstat -f -F json` file, and
//! binding + evaluating + sorting a million jobs against a 100 000-user share tree.
//! Run: `cargo bench --bench order`. Figures: docs/perf.md.

// Measurement and test output on stderr may panic on a closed stderr: only the binary must not.
#![allow(clippy::disallowed_macros)]

use criterion::{criterion_group, criterion_main, Criterion};
use fairsort::fairshare;
use fairsort::fairshare::{NodeKind, NodeSpec, Shares, Tree, TreeSource, TreeSpec};
use fairsort::formula::{compile, ResourceTable};
use fairsort::jobs::JobSet;
use fairsort::order::dry_run::{bind_and_order, dry_run, order_options, prepare_shares};
use fairsort::order::{Setup, ShareEngine};
use fairsort::pbs::defs::FairshareEntity;
use fairsort::pbs::read_qstat_json;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

const JOBS: usize = 1_000_000;
const USERS: usize = 100_000;

/// Jobs and users, overridable for profiling (`FAIRSORT_BENCH_JOBS`, `FAIRSORT_BENCH_USERS`).
fn sizes() -> (usize, usize) {
    let get = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    (
        get("FAIRSORT_BENCH_JOBS", JOBS),
        get("FAIRSORT_BENCH_USERS", USERS),
    )
}

/// A deterministic pseudo-random stream (xorshift), so every run benches the same data.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A million queued jobs in the real `qstat -f -F json` layout, with the attributes a PBS
/// server prints for a queued job (Variable_List included, as qstat -f shows it).
fn qstat_json(jobs: usize, users: usize) -> String {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut s = String::with_capacity(jobs * 1100);
    s.push_str("{\n    \"timestamp\":1767261600,\n    \"pbs_version\":\"2025.2.0\",\n    \"pbs_server\":\"pbs\",\n    \"Jobs\":{\n");
    for i in 0..jobs {
        let user = rng.below(users as u64);
        let group = user % 1000;
        let ncpus = 1 << rng.below(7);
        let mem_gb = 1 + rng.below(256);
        let hours = 1 + rng.below(48);
        let queue = ["workq", "express", "long"][rng.below(3) as usize];
        let sec = i % 60;
        let min = (i / 60) % 60;
        let hour = (i / 3600) % 24;
        let day = 1 + (i / 86_400) % 28;
        if i > 0 {
            s.push_str(",\n");
        }
        let _ = write!(
            s,
            r#"        "{id}.pbs":{{
            "Job_Name":"job{id}",
            "Job_Owner":"u{user}@login{login}",
            "euser":"u{user}",
            "egroup":"g{group}",
            "job_state":"Q",
            "queue":"{queue}",
            "server":"pbs",
            "Checkpoint":"u",
            "ctime":"Thu Jan {day:>2} {hour:02}:{min:02}:{sec:02} 2026",
            "Error_Path":"login{login}:/home/u{user}/job{id}.e{id}",
            "Hold_Types":"n",
            "Join_Path":"n",
            "Keep_Files":"n",
            "Mail_Points":"a",
            "mtime":"Thu Jan {day:>2} {hour:02}:{min:02}:{sec:02} 2026",
            "Output_Path":"login{login}:/home/u{user}/job{id}.o{id}",
            "Priority":{prio},
            "qtime":"Thu Jan {day:>2} {hour:02}:{min:02}:{sec:02} 2026",
            "Rerunable":"True",
            "Resource_List":{{
                "mem":"{mem_gb}gb",
                "ncpus":{ncpus},
                "nodect":1,
                "place":"free",
                "select":"1:ncpus={ncpus}:mem={mem_gb}gb",
                "walltime":"{hours:02}:00:00"
            }},
            "substate":10,
            "Variable_List":{{
                "PBS_O_HOME":"/home/u{user}",
                "PBS_O_LOGNAME":"u{user}",
                "PBS_O_SHELL":"/bin/bash",
                "PBS_O_WORKDIR":"/home/u{user}/run",
                "PBS_O_SYSTEM":"Linux",
                "PBS_O_QUEUE":"{queue}",
                "PBS_O_HOST":"login{login}"
            }},
            "etime":"Thu Jan {day:>2} {hour:02}:{min:02}:{sec:02} 2026",
            "eligible_time":"00:{min:02}:{sec:02}",
            "Submit_arguments":"job.sh",
            "project":"_pbs_project_default",
            "Submit_Host":"login{login}",
            "accrue_type":2
        }}"#,
            id = 1000 + i,
            login = user % 4,
            prio = rng.below(10),
        );
    }
    s.push_str("\n    }\n}\n");
    s
}

/// CPU time of the calling thread (Linux `/proc/thread-self/schedstat`, ns): what a stage costs
/// whatever else the shared machine runs.
fn thread_cpu() -> Duration {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = text.split_whitespace().next().and_then(|v| v.parse().ok());
    Duration::from_nanos(ns.unwrap_or(0))
}

/// CPU time of the whole process, all threads (`/proc/self/stat` utime + stime, 100 Hz ticks).
fn process_cpu() -> Duration {
    let text = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = text.rsplit(')').next().unwrap_or("");
    let f: Vec<u64> = after
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    let ticks = f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn read_qstat(c: &mut Criterion) {
    let (jobs, users) = sizes();
    let text = qstat_json(jobs, users);
    for _ in 0..2 {
        let (t, cpu) = (std::time::Instant::now(), process_cpu());
        let set = read_qstat_json(text.as_bytes()).unwrap_or_default();
        let (parse, parse_cpu) = (t.elapsed(), process_cpu().saturating_sub(cpu));
        let (n, t) = (set.len(), std::time::Instant::now());
        drop(set);
        eprintln!(
            "stages: parse {} MB of qstat JSON ({n} jobs, in memory): wall {parse:?}, CPU {parse_cpu:?} (all threads); dropping the jobs {:?}",
            text.len() >> 20,
            t.elapsed()
        );
    }
    let path =
        std::env::temp_dir().join(format!("fairsort-bench-qstat-{}.json", std::process::id()));
    if std::fs::write(&path, &text).is_err() {
        return;
    }
    drop(text);
    let mut g = c.benchmark_group("order");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(30));
    // The job set is returned, so criterion drops it outside the measurement: reading is what
    // is measured (dropping a million jobs is printed with the stages above).
    g.bench_function("read_qstat_json_1M_jobs (file read + parse)", |b| {
        b.iter_with_large_drop(|| {
            let set: JobSet = fairsort::mem::read_file(&path)
                .ok()
                .and_then(|bytes| read_qstat_json(&bytes).ok())
                .unwrap_or_default();
            black_box(set)
        })
    });
    g.finish();
    let _ = std::fs::remove_file(&path);
}

/// A PBS share tree of `users` users in groups of 100, with usage on every user.
fn pbs_tree(users: usize) -> Tree {
    let mut rng = Rng(42);
    let mut nodes = Vec::with_capacity(users + users / 100 + 1);
    for g in 0..users.div_ceil(100) {
        nodes.push(NodeSpec::new(
            format!("grp{g}"),
            None,
            NodeKind::Account,
            Shares::Count(1 + rng.below(100)),
        ));
    }
    for u in 0..users {
        let mut n = NodeSpec::new(
            format!("u{u}"),
            Some(format!("grp{}", u / 100)),
            NodeKind::User,
            Shares::Count(1 + rng.below(100)),
        );
        n.usage = Some(1.0 + rng.below(1_000_000) as f64);
        nodes.push(n);
    }
    let spec = TreeSpec {
        source: TreeSource::Pbs,
        root_name: "TREEROOT".into(),
        root_usage: None,
        unknown_shares: Some(0),
        nodes,
    };
    match Tree::build(spec) {
        Ok(t) => t,
        Err(e) => panic!("bench tree: {e}"),
    }
}

const FORMULA: &str =
    "pow(2, -(fairshare_tree_usage/fairshare_perc)) + 0.01*ncpus + queue_priority/10 + eligible_time/3600 - walltime/360000";

fn bind_eval_sort(c: &mut Criterion) {
    let (n_jobs, n_users) = sizes();
    let text = qstat_json(n_jobs, n_users);
    let t = std::time::Instant::now();
    let jobs = match read_qstat_json(text.as_bytes()) {
        Ok(j) => j,
        Err(e) => panic!("bench jobs: {e}"),
    };
    eprintln!(
        "stages: parse {} MB of qstat JSON ({} jobs) in {:?}",
        text.len() >> 20,
        jobs.len(),
        t.elapsed()
    );
    drop(text);
    let program = match compile(FORMULA, &ResourceTable::builtin()) {
        Ok(p) => p,
        Err(e) => panic!("bench formula: {e}"),
    };
    let setup = Setup {
        jobs,
        tree: Some(pbs_tree(n_users)),
        entity: FairshareEntity::Euser,
        fair_share: true,
        threshold: Some(0.05),
        queues: BTreeMap::from([("express".to_string(), 100), ("long".to_string(), -10)]),
        ..Setup::default()
    };
    let engine = ShareEngine {
        compute: &fairshare::compute,
        path_order: Some(&fairshare::path_order::prepare),
    };
    let shares = match prepare_shares(&setup, &[&program], &engine) {
        Ok(s) => s,
        Err(e) => panic!("bench shares: {e}"),
    };
    let options = order_options(&setup, shares.as_ref(), &engine);
    stages(&setup, &program, shares.as_ref(), &options);
    let mut g = c.benchmark_group("order");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.bench_function("bind+eval+sort_1M_jobs_100k_users", |b| {
        b.iter(|| {
            let r = bind_and_order(&setup, &program, shares.as_ref(), &options);
            black_box(r.map(|(_, o)| o.ranked.len()).unwrap_or(0))
        })
    });
    g.bench_function("full_dry_run_1M_jobs_100k_users (entities + PBS fair share + fair_share ranks + bind + eval + sort)", |b| {
        b.iter(|| black_box(dry_run(&setup, &program, &engine).map(|r| r.order.ranked.len()).unwrap_or(0)))
    });
    g.finish();
}

/// Prints one timing of each stage of bind + eval + sort (a breakdown of the benchmark).
fn stages(
    setup: &Setup,
    program: &fairsort::formula::Program,
    shares: Option<&fairsort::order::ShareContext>,
    options: &fairsort::order::OrderOptions,
) {
    use fairsort::order::{sort as order, Binder};
    use std::time::Instant;
    // Each stage 5 times; the minimum wall and thread-CPU time of each.
    let mut best = [(Duration::MAX, Duration::MAX); 4];
    let mut keep = |i: usize, t: Instant, cpu: Duration| {
        if let Some(b) = best.get_mut(i) {
            b.0 = b.0.min(t.elapsed());
            b.1 = b.1.min(thread_cpu().saturating_sub(cpu));
        }
    };
    let qp = |q: &str| setup.queues.get(q).copied();
    let mut ranked = 0;
    for _ in 0..5 {
        let (t, cpu) = (Instant::now(), thread_cpu());
        let Ok(binder) = Binder::new(program.keywords(), &setup.jobs, &qp, shares, false) else {
            return;
        };
        keep(0, t, cpu);
        let (t, cpu) = (Instant::now(), thread_cpu());
        let Ok(bound) = binder.bind(&setup.jobs) else {
            return;
        };
        keep(1, t, cpu);
        let (t, cpu) = (Instant::now(), thread_cpu());
        let evals = order::evaluate(program, &bound, setup.jobs.len());
        keep(2, t, cpu);
        let (t, cpu) = (Instant::now(), thread_cpu());
        let o = order::order(&setup.jobs, evals, options);
        keep(3, t, cpu);
        ranked = o.ranked.len();
    }
    let total_wall: Duration = best.iter().map(|b| b.0).sum();
    let total_cpu: Duration = best.iter().map(|b| b.1).sum();
    let [new, bind, eval, sort] = best;
    eprintln!(
        "stages (best of 5, wall / thread CPU): Binder::new {:?} / {:?}, bind {:?} / {:?}, eval {:?} / {:?}, sort {:?} / {:?}; total {total_wall:?} / {total_cpu:?} ({ranked} jobs)",
        new.0, new.1, bind.0, bind.1, eval.0, eval.1, sort.0, sort.1
    );
}

criterion_group!(benches, bind_eval_sort, read_qstat);
criterion_main!(benches);
