//! One pass of every fair-share algorithm over generated 1 000 000-user trees:
//! 1000 accounts x 1000 users and 10 accounts x 100 000 users (target: < 150 ms per pass).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fairsort::fairshare::{
    compute, Algorithm, NodeKind, NodeSpec, Options, Shares, Tree, TreeSource, TreeSpec,
};
use std::hint::black_box;
use std::time::Duration;

#[path = "common/cpu.rs"]
mod cpu;

/// A deterministic pseudo-random tree: `accounts` accounts under root, `users` users each,
/// shares 1..=100, usage 0..1e6 (about 1 % of users at 0 usage). PBS trees get `unknown`.
fn generate(accounts: usize, users: usize) -> Tree {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut nodes = Vec::with_capacity(accounts * (users + 1));
    for a in 0..accounts {
        let name = format!("acct{a}");
        nodes.push(NodeSpec::new(
            name.clone(),
            None,
            NodeKind::Account,
            Shares::Count(1 + next() % 100),
        ));
        for u in 0..users {
            let mut n = NodeSpec::new(
                format!("user{u}"),
                Some(name.clone()),
                NodeKind::User,
                Shares::Count(1 + next() % 100),
            );
            let r = next();
            n.usage = Some(if r % 100 == 0 {
                0.0
            } else {
                (r % 1_000_000) as f64
            });
            nodes.push(n);
        }
    }
    Tree::build(TreeSpec {
        source: TreeSource::Native,
        root_name: "root".into(),
        root_usage: None,
        unknown_shares: Some(0),
        nodes,
    })
    .expect("generated tree is valid")
}

fn bench(c: &mut Criterion) {
    for (accounts, users) in [(1000, 1000), (10, 100_000)] {
        let tree = generate(accounts, users);
        let opts = Options::default();
        for alg in Algorithm::ALL {
            let label = format!("{}/{accounts}x{users}", alg.name());
            cpu::report(&label, cpu::runs(), || {
                compute(&tree, alg, &opts).expect("runs")
            });
        }
    }
    let mut group = c.benchmark_group("fairshare_1M_users");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    for (accounts, users) in [(1000, 1000), (10, 100_000)] {
        let tree = generate(accounts, users);
        let opts = Options::default();
        for alg in Algorithm::ALL {
            group.bench_with_input(
                BenchmarkId::new(alg.name(), format!("{accounts}x{users}")),
                &tree,
                |b, t| b.iter(|| black_box(compute(t, alg, &opts).expect("runs"))),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
