//! Formula benchmarks: parse+compile time, and evaluation time per job over a batch of 100 000
//! jobs for the PBS formulas of the references and a 10-term formula, next to a baseline that
//! walks the syntax tree directly with per-job name look-ups (what a straightforward
//! interpreter does) and, for the 10-term formula, the same formula written by hand in Rust.
//! `cargo bench --bench formula`; criterion reports time per batch, divide by 100 000 for
//! ns/job (figures: docs/perf.md).
//!
//! Groups: `eval_100k_jobs` is wall time; `eval_100k_jobs_cpu` is this thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), much less sensitive to other processes sharing the cores.
//! With `FORMULA_BENCH_ONCE=1` (or a formula name) the binary instead evaluates each batch once
//! per way and exits,
//! for instruction counts under `valgrind --tool=callgrind` (docs/perf.md).

use criterion::{black_box, criterion_group, BatchSize, Criterion, Throughput};
use fairsort::formula::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, Number, UnaryOp};
use fairsort::formula::{compile, parse, ResourceTable};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const JOBS: usize = 100_000;

const FORMULAS: &[(&str, &str)] = &[
    (
        "pbs_fairshare",
        "pow(2, -(fairshare_tree_usage/fairshare_perc))",
    ),
    ("pbs_formula6", "fairshare_factor + (walltime/ncpus)"),
    (
        "pbs_threshold",
        "ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))",
    ),
    (
        "pbs_issue2530",
        "queue_priority + (0.005 * ncpus) + (0.000277778 * eligible_time)",
    ),
    (
        "pow_ternary",
        "fairshare_factor + 0.01*pow(ncpus, 0.5) + queue_priority/10 + eligible_time/3600 \
         - walltime/360000 + (0.5 if mem > 33554432 else 0)",
    ),
    (
        "ten_terms",
        "queue_priority + 0.005*ncpus + 0.000277778*eligible_time + 0.5*fairshare_factor \
         + 2*job_priority + 0.001*walltime + mem/1048576 + 10*accrue_type + 0.1*naccelerators \
         + 0.01*nodect",
    ),
];

/// Deterministic job values for a keyword (ints for resources, fractions for fair-share).
fn value(name: &str, j: usize) -> f64 {
    let x = (j as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    match name {
        "fairshare_tree_usage" | "fairshare_factor" => (x % 1000) as f64 / 1000.0,
        "fairshare_perc" => 0.001 + (x % 500) as f64 / 1000.0,
        "mem" => ((x % 64) + 1) as f64 * 1_048_576.0,
        "walltime" => ((x % 48) + 1) as f64 * 3600.0,
        _ => ((x % 128) + 1) as f64,
    }
}

/// The baseline: evaluate the syntax tree directly, names looked up per job in a map, f64
/// arithmetic (no Python typing, no error detection: a lower bound for a naive interpreter).
fn eval_ast(e: &Expr, env: &HashMap<&str, f64>) -> f64 {
    match &e.kind {
        ExprKind::Number(Number::Int(i)) => *i as f64,
        ExprKind::Number(Number::Big(digits)) => digits.parse().unwrap_or(f64::INFINITY),
        ExprKind::Number(Number::Float(x)) => *x,
        ExprKind::Bool(b) => f64::from(u8::from(*b)),
        ExprKind::Name(n) => env.get(n.as_str()).copied().unwrap_or(0.0),
        ExprKind::Unary(op, a) => {
            let a = eval_ast(a, env);
            match op {
                UnaryOp::Neg => -a,
                UnaryOp::Pos => a,
                UnaryOp::Not => f64::from(u8::from(a == 0.0)),
            }
        }
        ExprKind::Chain(first, rest) => rest.iter().fold(eval_ast(first, env), |acc, (op, b)| {
            let b = eval_ast(b, env);
            match op {
                BinOp::Add => acc + b,
                BinOp::Sub => acc - b,
                BinOp::Mul => acc * b,
                BinOp::Div => acc / b,
                BinOp::FloorDiv => (acc / b).floor(),
                BinOp::Mod => acc.rem_euclid(b),
                BinOp::Pow => acc.powf(b),
            }
        }),
        ExprKind::Compare(first, rest) => {
            let mut l = eval_ast(first, env);
            for (op, r) in rest {
                let r = eval_ast(r, env);
                let ok = match op {
                    CmpOp::Lt => l < r,
                    CmpOp::Le => l <= r,
                    CmpOp::Gt => l > r,
                    CmpOp::Ge => l >= r,
                    CmpOp::Eq => l == r,
                    CmpOp::Ne => l != r,
                };
                if !ok {
                    return 0.0;
                }
                l = r;
            }
            1.0
        }
        ExprKind::Logic(op, items) => {
            let mut last = 0.0;
            for i in items {
                last = eval_ast(i, env);
                if (last != 0.0) == (*op == BoolOp::Or) {
                    return last;
                }
            }
            last
        }
        ExprKind::IfElse {
            then,
            cond,
            otherwise,
        } => {
            if eval_ast(cond, env) != 0.0 {
                eval_ast(then, env)
            } else {
                eval_ast(otherwise, env)
            }
        }
        ExprKind::Call { name, args, .. } => {
            let a: Vec<f64> = args.iter().map(|x| eval_ast(x, env)).collect();
            let x = a.first().copied().unwrap_or(0.0);
            match name.as_str() {
                "pow" => x.powf(a.get(1).copied().unwrap_or(0.0)),
                "sqrt" => x.sqrt(),
                "ceil" => x.ceil(),
                "fabs" => x.abs(),
                _ => f64::NAN,
            }
        }
    }
}

/// The 10-term formula written by hand (same operations, same order: the f64 lower bound).
fn ten_terms_by_hand(s: &[f64]) -> f64 {
    let g = |i: usize| s.get(i).copied().unwrap_or(0.0);
    g(0) + 0.005 * g(1)
        + 0.000277778 * g(2)
        + 0.5 * g(3)
        + 2.0 * g(4)
        + 0.001 * g(5)
        + g(6) / 1048576.0
        + 10.0 * g(7)
        + 0.1 * g(8)
        + 0.01 * g(9)
}

/// This thread's CPU time (Linux), else wall time.
fn cpu_now() -> Duration {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    {
        #[repr(C)]
        struct Timespec {
            sec: i64,
            nsec: i64,
        }
        extern "C" {
            fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
        }
        const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
        let mut ts = Timespec { sec: 0, nsec: 0 };
        // SAFETY: a valid out-pointer to a timespec of the platform's layout.
        if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.sec as u64, ts.nsec as u32);
        }
    }
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

/// Runs `f` `iters` times and returns the CPU time it took (for `iter_custom`).
fn cpu_time<R>(iters: u64, mut f: impl FnMut() -> R) -> Duration {
    let start = cpu_now();
    for _ in 0..iters {
        black_box(f());
    }
    cpu_now().saturating_sub(start)
}

/// Every job's slot values, row by row, for a compiled formula.
fn rows_for(keywords: &[String]) -> Vec<f64> {
    (0..JOBS)
        .flat_map(|j| keywords.iter().map(move |k| value(k, j)))
        .collect()
}

/// The per-job API the queue uses (`order` calls `Program::eval` once per job).
fn eval_each(program: &fairsort::formula::Program, rows: &[f64]) -> f64 {
    let width = program.keywords().len().max(1);
    rows.chunks(width)
        .map(|row| program.eval(black_box(row)).value)
        .sum()
}

/// `FORMULA_BENCH_ONCE=NAME`: one pass of each way over the batch of each formula whose name
/// contains NAME (`1`: all), for callgrind.
fn once(filter: &str) {
    let resources = ResourceTable::builtin();
    // `FORMULA_BENCH_SRC=...`: that formula instead of the list's
    let own = std::env::var("FORMULA_BENCH_SRC").ok();
    let own = own.as_deref().map(|src| [("own", src)]);
    let list: &[(&str, &str)] = match &own {
        Some(one) => one,
        None => FORMULAS,
    };
    for (name, src) in list {
        if filter != "1" && !name.contains(filter) {
            continue;
        }
        let Ok(program) = compile(src, &resources) else {
            continue;
        };
        let rows = rows_for(program.keywords());
        black_box(eval_each(&program, &rows));
        let mut out = vec![0.0; JOBS];
        black_box(program.eval_rows(&rows, &mut out));
    }
}

fn benches(c: &mut Criterion) {
    let resources = ResourceTable::builtin();
    let mut g = c.benchmark_group("parse_compile");
    for (name, src) in FORMULAS {
        g.bench_function(*name, |b| {
            b.iter(|| compile(black_box(src), &resources).map(|p| p.keywords().len()))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("eval_100k_jobs");
    g.throughput(Throughput::Elements(JOBS as u64));
    g.sample_size(20);
    for (name, src) in FORMULAS {
        let Ok(program) = compile(src, &resources) else {
            continue;
        };
        let width = program.keywords().len();
        let rows = rows_for(program.keywords());
        g.bench_function(format!("{name}/compiled_eval"), |b| {
            b.iter(|| eval_each(&program, &rows))
        });
        g.bench_function(format!("{name}/compiled_rows"), |b| {
            b.iter_batched_ref(
                || vec![0.0; JOBS],
                |out| program.eval_rows(black_box(&rows), out),
                BatchSize::LargeInput,
            )
        });
        g.bench_function(format!("{name}/exact_only"), |b| {
            b.iter(|| {
                let mut s = 0.0;
                for row in rows.chunks(width.max(1)) {
                    s += program.eval_exact(black_box(row)).value;
                }
                s
            })
        });
        let Ok(ast) = parse(src) else { continue };
        let envs: Vec<HashMap<&str, f64>> = (0..JOBS)
            .map(|j| {
                program
                    .keywords()
                    .iter()
                    .map(|k| (k.as_str(), value(k, j)))
                    .collect()
            })
            .collect();
        g.bench_function(format!("{name}/ast_baseline"), |b| {
            b.iter(|| {
                envs.iter()
                    .map(|env| eval_ast(&ast, black_box(env)))
                    .sum::<f64>()
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("eval_100k_jobs_cpu");
    g.throughput(Throughput::Elements(JOBS as u64));
    g.sample_size(20);
    for (name, src) in FORMULAS {
        let Ok(program) = compile(src, &resources) else {
            continue;
        };
        let rows = rows_for(program.keywords());
        g.bench_function(format!("{name}/compiled_eval"), |b| {
            b.iter_custom(|n| cpu_time(n, || eval_each(&program, &rows)))
        });
        if *name == "ten_terms" {
            let width = program.keywords().len();
            g.bench_function(format!("{name}/by_hand"), |b| {
                b.iter_custom(|n| {
                    cpu_time(n, || {
                        rows.chunks(width)
                            .map(|r| ten_terms_by_hand(black_box(r)))
                            .sum::<f64>()
                    })
                })
            });
        }
        let Ok(ast) = parse(src) else { continue };
        let envs: Vec<HashMap<&str, f64>> = (0..JOBS)
            .map(|j| {
                program
                    .keywords()
                    .iter()
                    .map(|k| (k.as_str(), value(k, j)))
                    .collect()
            })
            .collect();
        g.bench_function(format!("{name}/ast_baseline"), |b| {
            b.iter_custom(|n| {
                cpu_time(n, || {
                    envs.iter()
                        .map(|env| eval_ast(&ast, black_box(env)))
                        .sum::<f64>()
                })
            })
        });
    }
    g.finish();
}

criterion_group!(formula, benches);

fn main() {
    if let Ok(filter) = std::env::var("FORMULA_BENCH_ONCE") {
        once(&filter);
        return;
    }
    formula();
    Criterion::default().configure_from_args().final_summary();
}
