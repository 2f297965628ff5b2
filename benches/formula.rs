//! Formula benchmarks: parse+compile time, and evaluation time per job over a batch of 100 000
//! jobs for the PBS formulas of the references and a 10-term formula, next to a baseline that
//! walks the syntax tree directly with per-job name look-ups (what a straightforward
//! interpreter does). `cargo bench --bench formula`; criterion reports time per batch, divide
//! by 100 000 for ns/job (docs/formula.md has the figures).

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use fairsort::formula::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, Number, UnaryOp};
use fairsort::formula::{compile, parse, ResourceTable};
use std::collections::HashMap;

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
        "ten_terms",
        "queue_priority + 0.005*ncpus + 0.000277778*eligible_time + 0.5*fairshare_factor \
         + 2*job_priority + 0.001*walltime + mem/1048576 + 10*accrue_type + 0.1*ngpus \
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
        let rows: Vec<f64> = (0..JOBS)
            .flat_map(|j| program.keywords().iter().map(move |k| value(k, j)))
            .collect();
        g.bench_function(format!("{name}/compiled"), |b| {
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
}

criterion_group!(formula, benches);
criterion_main!(formula);
