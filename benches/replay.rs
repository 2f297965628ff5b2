//! The replay's speed per priority model (docs/perf.md, "The replay's speed per model"): a
//! generated 100 000-job month on 1000 × 32 cores under PBS formulas with fair share (with and
//! without `eligible_time`), Slurm's multifactor priority with Fair Tree and with classic fair
//! share, and flux-accounting's priority.
//!
//! `cargo bench --bench replay` runs the month under criterion; `cargo bench --bench replay --
//! --once month|year [MODEL]` replays the month, or a 1 000 000-job year, once per model and
//! prints the CPU time of each (a year is too long for criterion's samples).

use criterion::{criterion_group, Criterion};
use fairsort::flux::priority::Site;
use fairsort::formula::{compile, ResourceTable};
use fairsort::replay::{
    replay, replay_flux, replay_slurm, Backfill, Cluster, Decay, FluxPolicy, Options, Outcome,
    SlurmPolicy, Trace, TraceJob,
};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

// Only `thread_cpu` is used here: one replay is timed at a time.
#[allow(dead_code)]
#[path = "common/cpu.rs"]
mod cpu;

/// The cluster of both traces: 1000 nodes of 32 cores.
const CLUSTER: Cluster = Cluster {
    nodes: 1000,
    cores_per_node: 32,
    mem_per_node: 0,
};

/// `examples/replay/generate.py`'s trace: `jobs` jobs arriving uniformly over `days` from 200
/// users in 20 groups (Pareto-distributed, a few heavy users), exponential sizes and run
/// times (mean 6 h, under 24 h), walltimes up to an hour above the run time, an offered load
/// of about 0.95 of the cluster. Users are `u<n>`, groups `g<n>`, as the SWF reader names them.
fn generate(jobs: usize, days: f64) -> Trace {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let span = days * 86_400.0;
    let cores = CLUSTER.cores() as f64;
    let mean_run = 6.0 * 3600.0;
    let mean_size = 0.95 * cores * span / (jobs as f64 * mean_run);
    let mut t = 0.0;
    let mut out = Vec::with_capacity(jobs);
    for i in 1..=jobs {
        t += -(1.0 - uniform()).ln() * span / jobs as f64;
        let user = ((1.0 - uniform()).powf(-1.0 / 1.2)) as u64 % 200;
        let size = ((-(1.0 - uniform()).ln() * mean_size) as u64 + 1).min(cores as u64);
        let run = (-(1.0 - uniform()).ln() * mean_run) as i64 % 86_400;
        let req = run + (uniform() * 3600.0) as i64 + 60;
        out.push(TraceJob {
            id: i.to_string(),
            submit: t as i64,
            run,
            walltime: Some(req),
            cores: size,
            mem: 0,
            user: format!("u{user}"),
            account: format!("g{}", user % 20),
            queue: "q1".into(),
            qos: String::new(),
        });
    }
    Trace {
        jobs: out,
        ..Trace::default()
    }
}

/// slurm.conf of the Slurm models (docs/replay.md's), with `flags` appended.
fn slurm_policy(flags: &str) -> SlurmPolicy {
    let text = format!(
        "PriorityType=priority/multifactor\nAccountingStorageType=accounting_storage/slurmdbd\n\
         PriorityDecayHalfLife=7-0\nPriorityMaxAge=7-0\nPriorityWeightAge=1000\n\
         PriorityWeightFairshare=10000\nPriorityWeightJobSize=500\n{flags}"
    );
    let conf = fairsort::slurm::parse_slurm_conf(&text, "slurm.conf").expect("valid slurm.conf");
    SlurmPolicy::new(conf, BTreeMap::new(), CLUSTER).expect("valid policy")
}

/// The models, by name: a replay of a trace under each.
const MODELS: [&str; 7] = [
    "pbs-fairshare",
    "pbs-fairshare-age",
    "pbs-fairtree",
    "pbs-fairtree-age",
    "slurm-fairtree",
    "slurm-classic",
    "flux",
];

fn options() -> Options {
    Options {
        cluster: CLUSTER,
        backfill: Backfill::Easy,
        half_life: 604_800.0,
        tree: None,
        decay: Decay::Continuous,
    }
}

/// Replays `trace` under `model`.
fn run(model: &str, trace: &Trace) -> Outcome {
    let opts = options();
    let formula = |f: &str| {
        let p = compile(f, &ResourceTable::builtin()).expect("valid formula");
        replay(trace, &p, &opts).expect("replay")
    };
    match model {
        "pbs-fairshare" => formula("fairshare_factor * 1000 + ncpus / 1000"),
        "pbs-fairshare-age" => formula("fairshare_factor * 1000 + eligible_time / 3600"),
        "pbs-fairtree" => formula("fairtree_factor * 1000 + ncpus / 1000"),
        "pbs-fairtree-age" => formula("fairtree_factor * 1000 + eligible_time / 3600"),
        "slurm-fairtree" => replay_slurm(trace, &slurm_policy(""), &opts, &mut ()).expect("replay"),
        "slurm-classic" => replay_slurm(
            trace,
            &slurm_policy("PriorityFlags=NO_FAIR_TREE\n"),
            &opts,
            &mut (),
        )
        .expect("replay"),
        _ => {
            let mut site = Site::default();
            site.weights.fairshare = 100_000;
            replay_flux(trace, &FluxPolicy::new(&site, trace), &opts, &mut ()).expect("replay")
        }
    }
}

fn bench(c: &mut Criterion) {
    let month = generate(100_000, 30.0);
    let mut g = c.benchmark_group("replay_month_100k");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    for model in MODELS {
        g.bench_function(model, |b| b.iter(|| black_box(run(model, &month))));
    }
    g.finish();
}

criterion_group!(benches, bench);

/// `--once month|year [MODEL]`: one replay per model, its CPU and wall time printed.
fn once(which: &str, only: Option<&str>) {
    let trace = match which {
        "year" => generate(1_000_000, 365.0),
        _ => generate(100_000, 30.0),
    };
    for model in MODELS.iter().filter(|m| only.is_none_or(|o| o == **m)) {
        let cpu0 = cpu::thread_cpu();
        let wall = Instant::now();
        let o = black_box(run(model, &trace));
        let cpu = cpu::thread_cpu().zip(cpu0).map(|(b, a)| b - a);
        println!(
            "{which} {model}: cpu {:.2} s, wall {:.2} s ({} passes, {} share updates, {} visits)",
            cpu.unwrap_or_default().as_secs_f64(),
            wall.elapsed().as_secs_f64(),
            o.passes,
            o.share_updates,
            o.visits
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--once") {
        let which = args.get(i + 1).map_or("month", String::as_str);
        once(which, args.get(i + 2).map(String::as_str));
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
