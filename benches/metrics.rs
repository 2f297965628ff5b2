//! `fairsort metrics`' encoder against a hand-written writer of the same series: the
//! association families of a 50,000-user tree under Fair Tree (six families, about 300,000
//! samples, on one thread: each family is under the parallel threshold), written with
//! `prometheus-client`'s Prometheus text encoder (what the product links) and with a minimal
//! writer (label escaping by a byte scan, floats by zmij) that the product does not use. The
//! figures in docs/perf.md ("`fairsort metrics`") come from here and from the 1M-user fixture.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fairsort::fairshare::{
    compute, Algorithm, Column, NodeKind, NodeSpec, Options, ShareResult, Shares, Tree, TreeSource,
    TreeSpec,
};
use fairsort::metrics::{Metrics, ShareMetrics, SiteLabels, UsageState};
use std::hint::black_box;
use std::io::Write;
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

/// A label value as the text format wants it (`\\`, `\"`, `\n` escaped).
fn push_label(out: &mut Vec<u8>, v: &str) {
    if !v.bytes().any(|b| matches!(b, b'\\' | b'"' | b'\n')) {
        out.extend_from_slice(v.as_bytes());
        return;
    }
    for b in v.bytes() {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            b => out.push(b),
        }
    }
}

/// The same families by hand: one line per sample, the same labels and values.
fn hand_written(out: &mut Vec<u8>, tree: &Tree, r: &ShareResult, order: &[usize]) {
    let mut f = zmij::Buffer::new();
    let families: [(&str, Option<Column>); 6] = [
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
    for (k, (name, column)) in families.into_iter().enumerate() {
        let _ = writeln!(out, "# HELP {name} help\n# TYPE {name} gauge");
        for &id in order {
            let n = tree.node(id);
            let v = match (column, k) {
                (Some(c), _) => r.get(c, id),
                (None, 4) => Some(n.raw_usage),
                _ => match (n.parent, n.shares) {
                    (Some(_), Shares::Count(c)) => Some(c as f64),
                    _ => None,
                },
            };
            let Some(v) = v else { continue };
            let (account, user) = match (n.is_user(), n.parent) {
                (true, Some(p)) => (tree.node(p).name.as_str(), n.name.as_str()),
                _ => (n.name.as_str(), ""),
            };
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"{site=\"s\",scheduler=\"slurm\",account=\"");
            push_label(out, account);
            out.extend_from_slice(b"\",user=\"");
            push_label(out, user);
            if k < 5 {
                out.extend_from_slice(b"\",algorithm=\"fair-tree");
            }
            out.extend_from_slice(b"\"} ");
            let text = if v.is_finite() {
                f.format_finite(v)
            } else if v.is_nan() {
                "NaN"
            } else if v > 0.0 {
                "+Inf"
            } else {
                "-Inf"
            };
            out.extend_from_slice(text.as_bytes());
            out.push(b'\n');
        }
    }
}

fn bench(c: &mut Criterion) {
    let tree = generate(100, 500);
    let result = compute(&tree, Algorithm::FairTree, &Options::default()).expect("runs");
    let order = tree.preorder();
    let mut by_hand = Vec::new();
    hand_written(&mut by_hand, &tree, &result, &order);
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
    let mut crate_out = Vec::new();
    fairsort::metrics::write(&mut crate_out, &metrics).expect("writes");
    let samples = crate_out.iter().filter(|&&b| b == b'\n').count();
    let mut group = c.benchmark_group("metrics_50k_users_fair_tree");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(6));
    group.throughput(Throughput::Elements(samples as u64));
    group.bench_function("prometheus-client", |b| {
        let mut out = Vec::with_capacity(crate_out.len());
        b.iter(|| {
            out.clear();
            fairsort::metrics::write(&mut out, &metrics).expect("writes");
            black_box(out.len())
        })
    });
    group.bench_function("hand-written", |b| {
        let mut out = Vec::with_capacity(by_hand.len());
        b.iter(|| {
            out.clear();
            hand_written(&mut out, &data.tree, &data.results[0], &order);
            black_box(out.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
