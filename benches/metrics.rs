//! Why `fairsort metrics` writes the association samples itself: the association families of
//! a 50,000-user tree under Fair Tree (six families, about 300,000 samples, on one thread: each
//! family is under the parallel threshold), written by `prometheus-client`'s Prometheus text
//! encoder alone (every sample through its label-set encoders) and by `fairsort::metrics::write`
//! (the client's descriptors, the samples by `src/metrics/text.rs`), checked to be the same
//! samples first. The figures in docs/perf.md ("`fairsort metrics`") come from here and from
//! the 1M-user fixture.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fairsort::fairshare::{
    compute, Algorithm, Column, NodeKind, NodeSpec, Options, ShareResult, Shares, Tree, TreeSource,
    TreeSpec,
};
use fairsort::metrics::{Metrics, ShareMetrics, SiteLabels, UsageState};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{prometheus_text, DescriptorEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `accounts` accounts of `users` users each, shares 1..=100, usage 0..1e6 (1 % unused).
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
                format!("user{a}_{u}"),
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
        source: TreeSource::Slurm,
        root_name: "root".into(),
        root_usage: None,
        unknown_shares: None,
        nodes,
    })
    .expect("generated tree is valid")
}

/// The six association families: name and the result's column (`None`: raw usage, then raw
/// shares).
const FAMILIES: [(&str, Option<Column>); 6] = [
    ("fairsort_share_factor", Some(Column::Fairshare)),
    ("fairsort_share_level_fs", Some(Column::LevelFs)),
    (
        "fairsort_share_effective_usage",
        Some(Column::EffectiveUsage),
    ),
    ("fairsort_share_norm_shares", Some(Column::NormShares)),
    ("fairsort_share_raw_usage", None),
    ("fairsort_share_raw_shares", None),
];

/// Node `id`'s sample in family `k`, and its account and user labels.
fn sample<'t>(
    tree: &'t Tree,
    r: &ShareResult,
    id: usize,
    k: usize,
) -> Option<(&'t str, &'t str, f64)> {
    let n = tree.node(id);
    let v = match (FAMILIES[k].1, k) {
        (Some(c), _) => r.get(c, id),
        (None, 4) => Some(n.raw_usage),
        _ => match (n.parent, n.shares) {
            (Some(_), Shares::Count(c)) => Some(c as f64),
            _ => None,
        },
    }?;
    let (account, user) = match (n.is_user(), n.parent) {
        (true, Some(p)) => (tree.node(p).name.as_str(), n.name.as_str()),
        _ => (n.name.as_str(), ""),
    };
    Some((account, user, v))
}

/// The same families through `prometheus-client`'s encoder alone: one collector, every
/// sample through `encode_family`/`encode_gauge`.
#[derive(Debug)]
struct ByCrate {
    data: Arc<ShareMetrics>,
    order: Arc<Vec<usize>>,
}

impl Collector for ByCrate {
    fn encode(&self, mut enc: DescriptorEncoder<'_>) -> std::fmt::Result {
        let (tree, r) = (&self.data.tree, &self.data.results[0]);
        for (k, (name, _)) in FAMILIES.iter().enumerate() {
            let mut m = enc.encode_descriptor(name, "help", None, MetricType::Gauge)?;
            for &id in self.order.iter() {
                let Some((account, user, v)) = sample(tree, r, id, k) else {
                    continue;
                };
                let site = [
                    ("site", "s"),
                    ("scheduler", "slurm"),
                    ("account", account),
                    ("user", user),
                ];
                if k < 5 {
                    m.encode_family(&(site, [("algorithm", "fair-tree")]))?
                        .encode_gauge(&v)?;
                } else {
                    m.encode_family(&site)?.encode_gauge(&v)?;
                }
            }
        }
        Ok(())
    }
}

fn bench(c: &mut Criterion) {
    let tree = generate(100, 500);
    let result = compute(&tree, Algorithm::FairTree, &Options::default()).expect("runs");
    let order = tree.preorder();
    let data = Arc::new(ShareMetrics {
        tree,
        results: vec![result],
    });
    let metrics = Metrics {
        site: SiteLabels {
            site: "s".into(),
            scheduler: "slurm".into(),
        },
        shares: Some(Arc::clone(&data)),
        jobs: Vec::new(),
        top: 10,
        waits: None,
        usage: UsageState::default(),
        now: 0,
        started: Instant::now(),
    };
    let mut registry = Registry::default();
    registry.register_collector(Box::new(ByCrate {
        data: Arc::clone(&data),
        order: Arc::new(order),
    }));
    let mut crate_out = String::new();
    prometheus_text::encode(&mut crate_out, &registry).expect("encodes");
    let mut product = Vec::new();
    fairsort::metrics::write(&mut product, &metrics).expect("writes");
    // The same series: the association samples of both (the product also writes its run's).
    let series = |text: &str| -> Vec<String> {
        (text.lines())
            .filter(|l| l.starts_with("fairsort_share_"))
            .map(str::to_string)
            .collect()
    };
    let product_text = String::from_utf8(product).expect("text");
    assert_eq!(
        series(&product_text),
        series(&crate_out),
        "the same samples"
    );
    let samples = series(&crate_out).len();
    let mut group = c.benchmark_group("metrics_50k_users_fair_tree");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(6));
    group.throughput(Throughput::Elements(samples as u64));
    group.bench_function("prometheus-client", |b| {
        let mut out = String::with_capacity(crate_out.len());
        b.iter(|| {
            out.clear();
            prometheus_text::encode(&mut out, &registry).expect("encodes");
            black_box(out.len())
        })
    });
    group.bench_function("fairsort", |b| {
        let mut out = Vec::with_capacity(product_text.len());
        b.iter(|| {
            out.clear();
            fairsort::metrics::write(&mut out, &metrics).expect("writes");
            black_box(out.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
