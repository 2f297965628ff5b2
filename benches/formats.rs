//! Reading 1 000 000-user trees: PBS resource_group, sshare -P capture, native JSON.

use criterion::{criterion_group, criterion_main, Criterion};
use fairsort::fairshare::Tree;
use fairsort::native::tree as native;
use fairsort::{pbs, slurm};

#[path = "common/cpu.rs"]
mod cpu;

const ACCOUNTS: usize = 1000;
const USERS: usize = 1000;

fn resource_group() -> String {
    let mut s = String::new();
    let mut id = 2;
    for a in 0..ACCOUNTS {
        s.push_str(&format!("acct{a} {id} root {}\n", 1 + a % 7));
        id += 1;
    }
    for a in 0..ACCOUNTS {
        for u in 0..USERS {
            s.push_str(&format!("u{a}_{u} {id} acct{a} {}\n", 1 + u % 5));
            id += 1;
        }
    }
    s
}

fn sshare() -> String {
    let mut s = String::from("Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins\n");
    s.push_str("root|||0.000000|123456789||1.000000||||cpu=0\n");
    for a in 0..ACCOUNTS {
        s.push_str(&format!(
            " acct{a}||{}|0.001000|123456|0.001000|0.001000||1.000000||cpu=0\n",
            1 + a % 7
        ));
        for u in 0..USERS {
            s.push_str(&format!(
                "  acct{a}|u{u}|{}|0.001000|{}|0.000001|0.001000|0.500000|1.000000||cpu=0\n",
                1 + u % 5,
                u * 3
            ));
        }
    }
    s
}

fn bench(c: &mut Criterion) {
    let rg = resource_group();
    let ss = sshare();
    let tree = slurm::parse_sshare(&ss).expect("generated sshare capture");
    let json = native::write_json(&tree).expect("generated tree");
    let runs = cpu::runs();
    cpu::report("read pbs_resource_group", runs, || {
        pbs::parse_resource_group(&rg, 0).expect("reads")
    });
    cpu::report("read+build pbs_resource_group", runs, || {
        Tree::build(pbs::parse_resource_group(&rg, 0).expect("reads")).expect("builds")
    });
    cpu::report("read sshare_P", runs, || {
        slurm::parse_sshare(&ss).expect("reads")
    });
    cpu::report("read+build sshare_P", runs, || {
        Tree::build(slurm::parse_sshare(&ss).expect("reads")).expect("builds")
    });
    cpu::report("read native_json", runs, || {
        native::read_json(&json).expect("reads")
    });
    let mut g = c.benchmark_group("read_1M_users");
    g.sample_size(10);
    g.bench_function("pbs_resource_group", |b| {
        b.iter(|| pbs::parse_resource_group(&rg, 0).map(|t| t.nodes.len()))
    });
    g.bench_function("sshare_P", |b| {
        b.iter(|| slurm::parse_sshare(&ss).map(|t| t.nodes.len()))
    });
    g.bench_function("native_json", |b| {
        b.iter(|| native::read_json(&json).map(|t| t.nodes.len()))
    });
    g.bench_function("pbs_resource_group+build", |b| {
        b.iter(|| pbs::parse_resource_group(&rg, 0).map(|t| Tree::build(t).map(|t| t.len())))
    });
    g.bench_function("sshare_P+build", |b| {
        b.iter(|| slurm::parse_sshare(&ss).map(|t| Tree::build(t).map(|t| t.len())))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
