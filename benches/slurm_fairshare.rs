//! One pass of each Slurm fair-share algorithm over generated 1 000 000-user trees
//! (1000 accounts × 1000 users, and 10 accounts × 100 000 users). Tree building is setup.

use criterion::{criterion_group, criterion_main, Criterion};
use fairsort::fairshare::{slurm, Algorithm, NodeKind, NodeSpec, Options, Shares, Tree, TreeSpec};
use std::collections::HashSet;
use std::hint::black_box;
use std::time::Duration;

/// A deterministic pseudo-random sequence (no dependency needed for a benchmark input).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn tree(accounts: usize, users: usize) -> Tree {
    let mut rng = Lcg(42);
    let mut nodes = Vec::with_capacity(accounts * (users + 1));
    for a in 0..accounts {
        let name = format!("acct{a}");
        nodes.push(NodeSpec::new(
            name.clone(),
            None,
            NodeKind::Account,
            Shares::Count(1 + rng.next() % 100),
        ));
        for u in 0..users {
            let mut n = NodeSpec::new(
                format!("user{u}"),
                Some(name.clone()),
                NodeKind::User,
                Shares::Count(1 + rng.next() % 10),
            );
            // A tenth of the users have no usage (Level FS ties at +inf).
            let usage = rng.next() % 1_000_000;
            n.usage = Some(if usage.is_multiple_of(10) {
                0.0
            } else {
                usage as f64
            });
            nodes.push(n);
        }
    }
    Tree::build(TreeSpec {
        root_name: "root".into(),
        nodes,
        ..TreeSpec::default()
    })
    .expect("generated tree is valid")
}

fn bench(c: &mut Criterion) {
    for (accounts, users) in [(1000, 1000), (10, 100_000)] {
        let t = tree(accounts, users);
        let mut group = c.benchmark_group(format!("slurm_{accounts}x{users}"));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(8));
        let half: HashSet<String> = (0..users).step_by(2).map(|u| format!("user{u}")).collect();
        for alg in [
            Algorithm::Classic,
            Algorithm::DepthOblivious,
            Algorithm::FairTree,
            Algorithm::Ticket,
        ] {
            let opts = Options {
                active_users: (alg == Algorithm::Ticket).then(|| half.clone()),
                ..Options::default()
            };
            group.bench_function(alg.name(), |b| {
                b.iter(|| slurm::compute(black_box(&t), alg, &opts).map(|r| r.len()))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
