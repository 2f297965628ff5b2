//! The fast path (`Program::eval`) against the exact Python evaluator (`Program::eval_exact`)
//! on many random formulas and bindings, without python3: the values must be identical bit for
//! bit (NaN equal to NaN) and the errors identical. The generator leans on the shapes the fast
//! path has superinstructions for (`acc ± slot ⊗ const`, ...) and on values where Python's ints
//! and floats part ways (0, -0, 2^53 ± 1, 1e300, NaN, infinity).

use fairsort::formula::{compile, ResourceTable};

// `Rng`: a small deterministic generator (xorshift), so failures reproduce.
use crate::common::Rng;

const NAMES: &[&str] = &[
    "ncpus",
    "walltime",
    "mem",
    "queue_priority",
    "fairshare_factor",
    "fairshare_perc",
];
const LITERALS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "10",
    "0.5",
    "0.005",
    "1e-3",
    "1048576",
    "True",
    "0.0",
    "1e300",
    "pi",
    "9007199254740993",
    "1024",
    "0.25",
    "1e-300",
    "123456789",
];
const OPS: &[&str] = &[
    "+", "-", "*", "/", "//", "%", "**", "<", ">=", "==", "and", "or",
];
const FUNCS: &[&str] = &[
    "sqrt", "log", "ceil", "floor", "trunc", "fabs", "abs", "int", "float", "round", "exp",
    "log10", "log2",
];
const FUNCS2: &[&str] = &[
    "pow", "fmod", "atan2", "copysign", "min", "max", "log", "round",
];

fn leaf(r: &mut Rng) -> String {
    if r.below(3) == 0 {
        r.pick(LITERALS).to_string()
    } else {
        r.pick(NAMES).to_string()
    }
}

fn gen(r: &mut Rng, depth: u32) -> String {
    if depth == 0 || r.below(10) < 2 {
        return leaf(r);
    }
    match r.below(14) {
        // weighted sums: the superinstruction shapes
        0..=3 => {
            let mut s = gen(r, depth - 1);
            for _ in 0..1 + r.below(4) {
                let (a, b) = (leaf(r), leaf(r));
                let sign = r.pick(&["+", "-"]);
                let op = r.pick(&["*", "/"]);
                s = format!("{s} {sign} {a} {op} {b}");
            }
            s
        }
        4 | 5 => format!(
            "({}) {} ({})",
            gen(r, depth - 1),
            r.pick(OPS),
            gen(r, depth - 1)
        ),
        // int products beyond 2^53, exact in Python, rounded in f64
        6 => format!(
            "{} * {} * {} + {}",
            leaf(r),
            leaf(r),
            leaf(r),
            gen(r, depth - 1)
        ),
        7 => format!("{}({})", r.pick(&["-", "not ", "+"]), gen(r, depth - 1)),
        8 => format!(
            "({}) if ({}) else ({})",
            gen(r, depth - 1),
            gen(r, depth - 1),
            gen(r, depth - 1)
        ),
        9 => format!("{} < {} <= {}", leaf(r), gen(r, depth - 1), leaf(r)),
        10 => format!("{}({})", r.pick(FUNCS), gen(r, depth - 1)),
        11 => format!("{}({}, {})", r.pick(FUNCS2), gen(r, depth - 1), leaf(r)),
        // a constant base (`pow(2, -(u/p))`) and a select between constants on a leaf test
        12 => format!("pow({}, {})", r.pick(LITERALS), gen(r, depth - 1)),
        _ => format!(
            "{} {} (({}) if {} {} {} else ({}))",
            gen(r, depth - 1),
            r.pick(&["+", "-"]),
            r.pick(LITERALS),
            leaf(r),
            r.pick(&["<", "<=", ">", ">=", "==", "!="]),
            leaf(r),
            r.pick(LITERALS)
        ),
    }
}

const VALUES: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -3.0,
    2.5,
    7.0,
    4096.0,
    9_007_199_254_740_992.0,
    9_007_199_254_740_994.0,
    -9_007_199_254_740_992.0,
    1e300,
    f64::NAN,
    f64::INFINITY,
    0.125312,
    123_456_789.0,
    987_654_321.0,
    5e-324,
    -1e-310,
];

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn fast_path_agrees_with_exact_evaluator() {
    let resources = ResourceTable::builtin();
    let mut r = Rng(0x5eed_f00d_1234_5678);
    let mut failures = Vec::new();
    let mut compiled = 0;
    for _ in 0..6000 {
        let src = gen(&mut r, 4);
        let Ok(p) = compile(&src, &resources) else {
            continue;
        };
        compiled += 1;
        for _ in 0..6 {
            let slots: Vec<f64> = p
                .keywords()
                .iter()
                .map(|_| {
                    if r.below(3) == 0 {
                        VALUES[r.below(VALUES.len())]
                    } else {
                        r.below(100) as f64
                    }
                })
                .collect();
            let fast = p.eval(&slots);
            let exact = p.eval_exact(&slots);
            if !same(fast.value, exact.value) || fast.error != exact.error {
                failures.push(format!("{src} {slots:?}: {fast:?} != {exact:?}"));
            }
        }
    }
    assert!(compiled > 4000, "only {compiled} formulas compiled");
    assert!(
        failures.is_empty(),
        "{} disagreements, first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}
