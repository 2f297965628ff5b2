//! `fairsort usage record` throughput on a generated PBS accounting log (default 1 GiB; set
//! FAIRSORT_BENCH_LOG_BYTES to change it). Each iteration records the whole log into a fresh
//! home — read, parse, charge (`cput`, and a compiled `ncpus*walltime`), ledger, atomic commit —
//! exactly what the command does, minus printing.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fairsort::formula::ResourceTable;
use fairsort::home::UsageHome;
use fairsort::inputs::{already_charged, record, InputFormat, RecordOptions};
use fairsort::pbs::defs::FairshareEntity;
use fairsort::slurm::BillingWeights;
use fairsort::usage::{usage_res_charge, Usage};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Writes a realistic log (Q, S and E records per job, 50 000 users) of about `target` bytes.
fn generate(path: &Path, target: u64) -> u64 {
    let f = std::fs::File::create(path).expect("create bench log");
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let mut written = 0u64;
    let mut job = 0u64;
    while written < target {
        job += 1;
        let user = job.wrapping_mul(2_654_435_761) % 50_000;
        let t = 1_713_000_000 + job;
        let (h, m, s) = ((job / 3600) % 24, (job / 60) % 60, job % 60);
        let date = format!("04/13/2024 {h:02}:{m:02}:{s:02}");
        let cput = job % 86_400;
        let lines = format!(
            "{date};Q;{job}.pbs-server;queue=workq\n\
             {date};S;{job}.pbs-server;user=user{user} group=grp{g} project=_pbs_project_default jobname=job{job} queue=workq ctime={t} qtime={t} etime={t} start={t} exec_host=node{n}/0*4 exec_vnode=(node{n}:ncpus=4:mem=8388608kb) Resource_List.mem=8gb Resource_List.ncpus=4 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=4:mem=8gb Resource_List.walltime=04:00:00 resource_assigned.mem=8388608kb resource_assigned.ncpus=4\n\
             {date};E;{job}.pbs-server;user=user{user} group=grp{g} project=_pbs_project_default jobname=job{job} queue=workq ctime={t} qtime={t} etime={t} start={t} exec_host=node{n}/0*4 exec_vnode=(node{n}:ncpus=4:mem=8388608kb) Resource_List.mem=8gb Resource_List.ncpus=4 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=4:mem=8gb Resource_List.walltime=04:00:00 session={job} end={e} Exit_status=0 resources_used.cpupercent=398 resources_used.cput={ch:02}:{cm:02}:{cs:02} resources_used.mem=7340032kb resources_used.ncpus=4 resources_used.vmem=7340032kb resources_used.walltime=01:00:00 run_count=1\n",
            g = user % 100,
            n = job % 4096,
            e = t + 3600,
            ch = cput / 3600,
            cm = (cput / 60) % 60,
            cs = cput % 60,
        );
        w.write_all(lines.as_bytes()).expect("write bench log");
        written += lines.len() as u64;
    }
    w.flush().expect("flush bench log");
    written
}

fn record_once(log: &Path, formula: &str) -> Duration {
    let home = tempfile::tempdir().expect("home");
    let charge = usage_res_charge(formula, &ResourceTable::builtin()).expect("formula");
    let start = Instant::now();
    let h = UsageHome::lock_dir(home.path()).expect("lock");
    let mut u = h.load().expect("load");
    let mut ledger = h.ledger(&u).expect("ledger");
    let opts = RecordOptions {
        format: Some(InputFormat::Pbs),
        entity: FairshareEntity::Euser,
        charge: charge.as_ref(),
        weights: BillingWeights::default(),
        tree: None,
        progress: None,
    };
    let report = record(&[PathBuf::from(log)], &opts, &mut u, &mut ledger).expect("record");
    assert!(report.malformed.is_empty() && report.charged > 0);
    u.last_decay = Some(0);
    h.commit(&mut u, Some(&mut ledger)).expect("commit");
    start.elapsed()
}

/// A re-record of the log into a home that charged it already, as `fairsort usage record` does
/// it: load the store, find the log charged to its end by its charged mark, write nothing (the
/// first call, on a fresh home, records it).
fn rerecord_once(home: &Path, log: &Path) -> Duration {
    let charge = usage_res_charge("cput", &ResourceTable::builtin()).expect("formula");
    let start = Instant::now();
    let h = UsageHome::lock_dir(home).expect("lock");
    let store = h.load_store().expect("load");
    let opts = RecordOptions {
        format: Some(InputFormat::Pbs),
        entity: FairshareEntity::Euser,
        charge: charge.as_ref(),
        weights: BillingWeights::default(),
        tree: None,
        progress: None,
    };
    let inputs = [PathBuf::from(log)];
    let report = match already_charged(&inputs, &opts, &store).expect("marks") {
        Some(report) => report,
        None => {
            let mut u = Usage::from(store);
            let mut ledger = h.ledger(&u).expect("ledger");
            let report = record(&inputs, &opts, &mut u, &mut ledger).expect("record");
            h.commit(&mut u, Some(&mut ledger)).expect("commit");
            report
        }
    };
    std::hint::black_box(report.charged);
    start.elapsed()
}

fn bench(c: &mut Criterion) {
    let target = std::env::var("FAIRSORT_BENCH_LOG_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1u64 << 30);
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("20240413");
    let size = generate(&log, target);
    let mut g = c.benchmark_group("usage_record");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(1));
    g.measurement_time(Duration::from_secs(1));
    g.throughput(Throughput::Bytes(size));
    for formula in ["cput", "ncpus*walltime"] {
        g.bench_function(format!("pbs_log_{}MiB_{formula}", size >> 20), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| record_once(&log, formula)).sum())
        });
    }
    // the same log again, into a home that has charged it
    let home = tempfile::tempdir().expect("home");
    rerecord_once(home.path(), &log);
    g.bench_function(format!("pbs_log_{}MiB_again", size >> 20), |b| {
        b.iter_custom(|iters| (0..iters).map(|_| rerecord_once(home.path(), &log)).sum())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
