//! Home benchmarks: parsing qmgr requests, loading a state with many queues, and one
//! complete change (exclusive lock, re-read, apply, fsync'd atomic write, audit record).

use criterion::{criterion_group, criterion_main, Criterion};
use fairsort::home::{Home, Queue};
use fairsort::qmgr::{parse, print};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    c.bench_function("qmgr_parse_set_formula", |b| {
        b.iter(|| {
            parse(black_box(
                "set server job_sort_formula = \"pow(2, -(fairshare_tree_usage/fairshare_perc))\"",
            ))
        })
    });
    c.bench_function("qmgr_parse_queue_two_attrs", |b| {
        b.iter(|| parse(black_box("s q workq Priority = 100, queue_type = e")))
    });

    let small_dir = tempfile::tempdir().expect("tempdir");
    let small = Home::open(Some(small_dir.path())).expect("home");
    small
        .update("bench", "setup", |s| {
            for i in 0..10 {
                s.queues.insert(
                    format!("q{i}"),
                    Queue {
                        priority: Some(i),
                        ..Queue::default()
                    },
                );
            }
            s.server.job_sort_formula =
                Some("pow(2, -(fairshare_tree_usage/fairshare_perc))".into());
            Ok(())
        })
        .expect("setup");
    c.bench_function("home_load_10_queues", |b| {
        b.iter(|| small.load().expect("load"))
    });
    let mut m = 0i64;
    c.bench_function("home_update_10_queues_fsync", |b| {
        b.iter(|| {
            m += 1;
            small
                .update("bench", "set queue q1 Priority", |s| {
                    if let Some(q) = s.queues.get_mut("q1") {
                        q.priority = Some(m % 1000);
                    }
                    Ok(())
                })
                .expect("update")
        })
    });

    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::open(Some(dir.path())).expect("home");
    home.update("bench", "setup", |s| {
        for i in 0..1000 {
            s.queues.insert(
                format!("q{i:04}"),
                Queue {
                    priority: Some(i % 1000 - 500),
                    ..Queue::default()
                },
            );
        }
        Ok(())
    })
    .expect("setup");
    c.bench_function("home_load_1000_queues", |b| {
        b.iter(|| home.load().expect("load"))
    });
    let state = home.load().expect("load");
    c.bench_function("print_server_1000_queues", |b| {
        b.iter(|| print::print_server(black_box(&state), &[]))
    });
    let mut n = 0i64;
    c.bench_function("home_update_1000_queues_fsync", |b| {
        b.iter(|| {
            n += 1;
            home.update("bench", "set queue q0001 Priority", |s| {
                if let Some(q) = s.queues.get_mut("q0001") {
                    q.priority = Some(n % 1000);
                }
                Ok(())
            })
            .expect("update")
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
