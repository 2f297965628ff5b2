//! Bit-exactness of the math functions against python3 (CPython 3.11 on Linux x86-64 with glibc
//! is the reference): each function gets a few thousand arguments (special values,
//! random bit patterns, ranges around poles, zeros and overflow thresholds), fairsort evaluates
//! `f(fairshare_factor, ...)` through the public formula API (the fast path and the exact
//! evaluator, both), one python3 process evaluates `math.f(...)`, and the results must be the
//! same 64 bits (a NaN the same NaN) and the errors the same message. A part of the arguments
//! also goes in as literals (`f(1.5e-7)`, folded at compile time) and as Python ints. Skips,
//! loudly, when python3 is missing.

use fairsort::formula::{compile, ResourceTable};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

/// A Python argument: a float (by its bits) or an int.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Arg {
    F(f64),
    I(i64),
}

impl Arg {
    fn slot(self) -> f64 {
        match self {
            Arg::F(x) => x,
            Arg::I(i) => i as f64,
        }
    }
    fn to_python(self) -> String {
        match self {
            Arg::F(x) => format!("f{:016x}", x.to_bits()),
            Arg::I(i) => format!("i{i}"),
        }
    }
    /// A formula literal with exactly this value (repr-style shortest digits round-trip).
    fn literal(self) -> String {
        match self {
            Arg::I(i) if i < 0 => format!("(-{})", i.unsigned_abs()),
            Arg::I(i) => i.to_string(),
            Arg::F(x) if x.is_nan() && x.is_sign_negative() => "(-nan)".to_string(),
            Arg::F(x) if x.is_nan() => "nan".to_string(),
            Arg::F(x) if x.is_infinite() => if x > 0.0 { "inf" } else { "(-inf)" }.to_string(),
            Arg::F(x) if x.is_sign_negative() => format!("(-{:e})", -x),
            Arg::F(x) => format!("{x:e}"),
        }
    }
}

/// What Python or fairsort gives: a value's bits or an exception's message.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Bits(u64),
    Error(String),
}

fn show(o: &Outcome) -> String {
    match o {
        Outcome::Bits(b) => format!("{:e} ({b:#018x})", f64::from_bits(*b)),
        Outcome::Error(e) => format!("error `{e}`"),
    }
}

/// Distance in units in the last place between two finite floats of the same sign (else None).
fn ulps(a: u64, b: u64) -> Option<u64> {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    if !x.is_finite() || !y.is_finite() || x.is_sign_negative() != y.is_sign_negative() {
        return None;
    }
    Some(a.abs_diff(b))
}

/// splitmix64: a deterministic generator, so failures reproduce.
struct Gen(u64);

impl Gen {
    fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// ± 10^u for u uniform in [lo, hi].
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let m = 10f64.powf(self.uniform(lo, hi));
        if self.u64() & 1 == 0 {
            m
        } else {
            -m
        }
    }
    /// A random finite double (any bit pattern but NaN and infinities).
    fn bits(&mut self) -> f64 {
        loop {
            let x = f64::from_bits(self.u64());
            if x.is_finite() {
                return x;
            }
        }
    }
    fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }
}

/// `x` moved by `k` representable doubles (towards +inf for k > 0).
fn step(x: f64, k: i64) -> f64 {
    let mut y = x;
    for _ in 0..k.unsigned_abs() {
        y = if k > 0 { next_up(y) } else { -next_up(-y) };
    }
    y
}

fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// Special values every function gets.
fn specials() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(1),
        f64::from_bits(0x000F_FFFF_FFFF_FFFF),
        f64::EPSILON,
        1e-20,
        -1e-20,
        1e-300,
        1e300,
        std::f64::consts::PI,
        std::f64::consts::E,
        0.1,
        0.5,
        -0.5,
        1.5,
        2.5,
        1e22,
        1e16,
    ];
    for i in -25..=25 {
        v.push(i as f64);
        v.push(step(i as f64, 1));
        v.push(step(i as f64, -1));
    }
    v
}

/// The random part every function gets: random bit patterns and broad ranges.
fn common(g: &mut Gen, v: &mut Vec<f64>) {
    for _ in 0..800 {
        v.push(g.bits());
    }
    for _ in 0..600 {
        v.push(g.uniform(-10.0, 10.0));
    }
    for _ in 0..600 {
        v.push(g.log_uniform(-30.0, 30.0));
    }
}

/// `n` points uniform in `[lo, hi]`.
fn range(g: &mut Gen, v: &mut Vec<f64>, n: usize, lo: f64, hi: f64) {
    for _ in 0..n {
        v.push(g.uniform(lo, hi));
    }
}

/// Points within a few ulps (and a little further) of each of `xs`.
fn around(g: &mut Gen, v: &mut Vec<f64>, xs: &[f64]) {
    for &x in xs {
        for k in -3..=3 {
            v.push(step(x, k));
        }
        for _ in 0..6 {
            let d = 10f64.powf(g.uniform(-15.0, -1.0)) * x.abs().max(1e-300);
            v.push(x + if g.below(2) == 0 { d } else { -d });
        }
    }
}

/// The float arguments of a one-argument function.
fn unary_inputs(name: &str, seed: u64) -> Vec<f64> {
    let mut g = Gen(seed);
    let mut v = specials();
    common(&mut g, &mut v);
    let neg_ints: Vec<f64> = (1..=200).map(|n| -(n as f64)).collect();
    match name {
        "acos" | "asin" | "atanh" => {
            range(&mut g, &mut v, 1500, -1.1, 1.1);
            around(&mut g, &mut v, &[1.0, -1.0, 0.5, -0.5]);
        }
        "acosh" => {
            range(&mut g, &mut v, 800, 0.9, 3.0);
            for _ in 0..800 {
                v.push(g.log_uniform(0.0, 308.0).abs());
            }
            around(&mut g, &mut v, &[1.0]);
        }
        "exp" | "expm1" | "cosh" | "sinh" => {
            range(&mut g, &mut v, 1500, -760.0, 760.0);
            range(&mut g, &mut v, 300, -1.0, 1.0);
            around(
                &mut g,
                &mut v,
                &[
                    709.782712893384,
                    -709.782712893384,
                    710.4758600739439,
                    -710.4758600739439,
                    -745.1332191019411,
                    -708.3964185322641,
                ],
            );
        }
        "exp2" => {
            range(&mut g, &mut v, 1500, -1080.0, 1030.0);
            around(&mut g, &mut v, &[1024.0, -1022.0, -1074.0, -1075.0]);
        }
        "gamma" => {
            range(&mut g, &mut v, 800, -200.0, 200.0);
            range(&mut g, &mut v, 300, -10.0, 10.0);
            range(&mut g, &mut v, 200, -260.0, -140.0);
            range(&mut g, &mut v, 200, 130.0, 180.0);
            range(&mut g, &mut v, 200, 0.0, 1.0);
            for _ in 0..200 {
                v.push(g.log_uniform(-30.0, -15.0));
            }
            around(&mut g, &mut v, &neg_ints[..40]);
            around(
                &mut g,
                &mut v,
                &[171.6243769563027, 1e-20, -1e-20, 5.524680040776729, 140.0],
            );
        }
        "lgamma" => {
            range(&mut g, &mut v, 800, -200.0, 200.0);
            range(&mut g, &mut v, 300, -10.0, 10.0);
            range(&mut g, &mut v, 200, 0.5, 3.0);
            for _ in 0..300 {
                v.push(g.log_uniform(2.0, 308.0).abs());
            }
            for _ in 0..200 {
                v.push(g.log_uniform(-30.0, -15.0));
            }
            around(&mut g, &mut v, &neg_ints[..60]);
            around(
                &mut g,
                &mut v,
                &[1.0, 2.0, 2.558_122_669_244_307_7e305, 1e-20, -1e-20],
            );
        }
        "log" | "log2" | "log10" | "log1p" => {
            for _ in 0..1200 {
                v.push(g.log_uniform(-320.0, 308.0).abs());
            }
            range(&mut g, &mut v, 400, -1.0, 3.0);
            around(&mut g, &mut v, &[1.0, -1.0, 2.0, 10.0, 0.5]);
        }
        "erf" | "erfc" => {
            range(&mut g, &mut v, 1500, -30.0, 30.0);
            range(&mut g, &mut v, 300, -1.0, 1.0);
        }
        "sin" | "cos" | "tan" => {
            range(&mut g, &mut v, 800, -10.0, 10.0);
            for _ in 0..800 {
                v.push(g.log_uniform(0.0, 300.0));
            }
            let pi = std::f64::consts::PI;
            around(
                &mut g,
                &mut v,
                &[pi, pi / 2.0, -pi / 2.0, pi / 4.0, 2.0 * pi],
            );
        }
        "ulp" => {
            for _ in 0..1000 {
                v.push(g.log_uniform(-323.0, 308.3));
            }
        }
        _ => {
            range(&mut g, &mut v, 1000, -1000.0, 1000.0);
            for _ in 0..800 {
                v.push(g.log_uniform(-320.0, 308.0));
            }
        }
    }
    v
}

/// Pairs of float arguments for a two-argument function.
fn binary_inputs(name: &str, seed: u64) -> Vec<(f64, f64)> {
    let mut g = Gen(seed);
    let sp = specials();
    let mut v = Vec::new();
    // every special against a selection of specials
    for &x in &sp {
        for &y in sp.iter().step_by(3) {
            v.push((x, y));
        }
    }
    for _ in 0..800 {
        v.push((g.bits(), g.bits()));
    }
    for _ in 0..600 {
        v.push((g.uniform(-10.0, 10.0), g.uniform(-10.0, 10.0)));
    }
    for _ in 0..600 {
        v.push((g.log_uniform(-30.0, 30.0), g.log_uniform(-30.0, 30.0)));
    }
    match name {
        "pow" => {
            for _ in 0..800 {
                v.push((g.log_uniform(-5.0, 5.0), g.uniform(-400.0, 400.0)));
            }
            for _ in 0..300 {
                // negative bases: integer exponents work, others are domain errors
                let y = g.uniform(-60.0, 60.0);
                v.push((-g.uniform(0.0, 20.0), y.round()));
                v.push((-g.uniform(0.0, 20.0), y));
            }
            for _ in 0..200 {
                v.push((g.uniform(0.9, 1.1), g.log_uniform(0.0, 20.0)));
            }
            for y in [-3.0, -2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0] {
                v.push((0.0, y));
                v.push((-0.0, y));
            }
        }
        "fmod" | "remainder" => {
            for _ in 0..800 {
                v.push((g.log_uniform(-300.0, 300.0), g.log_uniform(-300.0, 300.0)));
            }
            for _ in 0..400 {
                let y = g.uniform(-10.0, 10.0);
                // exact halfway cases for remainder: (n + 1/2) * y
                v.push(((g.below(2000) as f64 - 1000.0 + 0.5) * y, y));
            }
        }
        "hypot" => {
            for _ in 0..600 {
                let a = f64::from_bits(g.below(1 << 52));
                let b = f64::from_bits(g.below(1 << 52));
                v.push((a, b)); // subnormals: the other scaling branch
            }
            for _ in 0..600 {
                v.push((g.log_uniform(250.0, 308.2), g.log_uniform(250.0, 308.2)));
            }
            for _ in 0..400 {
                v.push((g.log_uniform(-320.0, 308.0), g.log_uniform(-320.0, 308.0)));
            }
        }
        "log" => {
            for _ in 0..1000 {
                v.push((
                    g.log_uniform(-300.0, 300.0).abs(),
                    g.log_uniform(-3.0, 3.0).abs(),
                ));
            }
            for x in [1.0, 2.0, 8.0, 1000.0, 0.5] {
                v.push((x, 1.0));
                v.push((x, 2.0));
                v.push((x, 10.0));
            }
        }
        "nextafter" | "copysign" | "atan2" => {
            for _ in 0..600 {
                let x = g.log_uniform(-320.0, 308.0);
                v.push((x, g.log_uniform(-320.0, 308.0)));
            }
        }
        _ => {}
    }
    v
}

/// Runs python3 on `lines` (`name arg...` per line), returning one outcome per line, or None
/// when python3 cannot be run.
fn python(lines: &[String]) -> Option<Vec<Outcome>> {
    const SCRIPT: &str = r#"
import math, struct, sys
def arg(s):
    if s[0] == 'f':
        return struct.unpack('<d', struct.pack('<Q', int(s[1:], 16)))[0]
    return int(s[1:])
out = []
for line in sys.stdin:
    name, *args = line.split()
    try:
        r = float(getattr(math, name)(*map(arg, args)))
        out.append('v %016x' % struct.unpack('<Q', struct.pack('<d', r))[0])
    except Exception as e:
        out.append('e ' + str(e))
sys.stdout.write('\n'.join(out) + '\n')
"#;
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let parsed: Vec<Outcome> = text
        .lines()
        .map(|l| match l.split_once(' ') {
            Some(("v", hex)) => Outcome::Bits(u64::from_str_radix(hex, 16).unwrap_or(0)),
            Some(("e", msg)) => Outcome::Error(msg.to_string()),
            _ => Outcome::Error(format!("unparsable python line `{l}`")),
        })
        .collect();
    assert_eq!(
        parsed.len(),
        lines.len(),
        "python3 answered {} of {}",
        parsed.len(),
        lines.len()
    );
    Some(parsed)
}

const SLOTS: [&str; 3] = ["fairshare_factor", "fairshare_perc", "fairshare_tree_usage"];

/// One case: the formula, its slot values (by keyword) and the Python call line.
struct Case {
    formula: String,
    binding: Vec<(&'static str, f64)>,
    python: String,
}

/// The cases of `name` over `args`: through float slots (`f(fairshare_factor, ...)`), an int
/// slot for int arguments (`ncpus`), and as literals for every `literal_every`-th case.
fn cases(name: &str, args: &[Vec<Arg>], literal_every: usize) -> Vec<Case> {
    let mut out = Vec::new();
    for (n, a) in args.iter().enumerate() {
        let mut params = Vec::new();
        let mut binding = Vec::new();
        for (i, x) in a.iter().enumerate() {
            let kw = match x {
                Arg::F(_) => SLOTS[i],
                Arg::I(_) => ["ncpus", "mem", "walltime"][i],
            };
            params.push(kw.to_string());
            binding.push((kw, x.slot()));
        }
        let py = format!(
            "{name} {}",
            a.iter()
                .map(|x| x.to_python())
                .collect::<Vec<_>>()
                .join(" ")
        );
        out.push(Case {
            formula: format!("{name}({})", params.join(", ")),
            binding,
            python: py.clone(),
        });
        if literal_every > 0 && n % literal_every == 0 {
            let lits: Vec<String> = a.iter().map(|x| x.literal()).collect();
            out.push(Case {
                formula: format!("{name}({})", lits.join(", ")),
                binding: Vec::new(),
                python: py,
            });
        }
    }
    out
}

/// Checks `name` on `args` against python3: every case through `Program::eval` and
/// `Program::eval_exact`; panics with a summary (count, worst ulps, examples) on a mismatch.
fn check(name: &str, args: &[Vec<Arg>]) {
    let cases = cases(name, args, 10);
    let lines: Vec<String> = cases.iter().map(|c| c.python.clone()).collect();
    let Some(want) = python(&lines) else {
        crate::common::python_missing(&format!("math_bits::{name}"));
        return;
    };
    let resources = ResourceTable::builtin();
    let mut programs = std::collections::HashMap::new();
    let (mut bad, mut kinds, mut worst) = (0usize, 0usize, 0u64);
    let mut examples = String::new();
    for (c, want) in cases.iter().zip(&want) {
        let program = programs.entry(c.formula.clone()).or_insert_with(|| {
            compile(&c.formula, &resources).unwrap_or_else(|e| panic!("{}: {e}", c.formula))
        });
        let mut slots = vec![0.0; program.keywords().len()];
        for &(k, v) in &c.binding {
            if let Some(i) = program.slot(k) {
                slots[i] = v;
            }
        }
        for (path, e) in [
            ("eval", program.eval(&slots)),
            ("eval_exact", program.eval_exact(&slots)),
        ] {
            let got = match e.error {
                Some(msg) => Outcome::Error(msg),
                None => Outcome::Bits(e.value.to_bits()),
            };
            if &got != want {
                bad += 1;
                match (&got, want) {
                    (Outcome::Bits(a), Outcome::Bits(b)) if ulps(*a, *b).is_some() => {
                        worst = worst.max(ulps(*a, *b).unwrap_or(0));
                    }
                    _ => kinds += 1,
                }
                if examples.lines().count() < 12 {
                    let _ = writeln!(
                        examples,
                        "  {} [{}] with {:?} ({path}): fairsort {}, python {}",
                        c.formula,
                        c.python,
                        c.binding,
                        show(&got),
                        show(want)
                    );
                }
            }
        }
    }
    assert!(
        bad == 0,
        "math.{name}: {bad} of {} evaluations differ from python3: {} values by up to {worst} \
         ulps, {kinds} of another kind (error vs value, other error, sign, NaN, infinity):\n\
         {examples}",
        2 * cases.len(),
        bad - kinds,
    );
}

/// Python ints as arguments of a one-argument function (`f(ncpus)`).
fn int_args() -> Vec<Vec<Arg>> {
    let mut v: Vec<i64> = (-30..=200).collect();
    v.extend([
        1000,
        4096,
        65536,
        1 << 40,
        1 << 53,
        10i64.pow(18),
        -(1 << 40),
    ]);
    v.into_iter().map(|i| vec![Arg::I(i)]).collect()
}

/// How many rounds of random arguments: `MATH_BITS_ROUNDS` (default 1), for long runs such as
/// `MATH_BITS_ROUNDS=50 cargo test --test it math_bits`.
fn rounds() -> u64 {
    std::env::var("MATH_BITS_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1)
}

fn check_unary(name: &str, seed: u64) {
    let mut args: Vec<Vec<Arg>> = (0..rounds())
        .flat_map(|r| unary_inputs(name, seed ^ (r << 32)))
        .map(|x| vec![Arg::F(x)])
        .collect();
    args.extend(int_args());
    check(name, &args);
}

fn check_binary(name: &str, seed: u64) {
    let args: Vec<Vec<Arg>> = (0..rounds())
        .flat_map(|r| binary_inputs(name, seed ^ (r << 32)))
        .map(|(x, y)| vec![Arg::F(x), Arg::F(y)])
        .collect();
    check(name, &args);
}

macro_rules! unary_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_unary(stringify!($name), 0x5EED ^ fxhash(stringify!($name)));
            }
        )*
    };
}

/// A seed per function name, so each function gets its own random inputs.
fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

unary_tests!(
    acos, acosh, asin, asinh, atan, atanh, cbrt, cos, cosh, erf, erfc, exp, exp2, expm1, fabs,
    gamma, lgamma, log1p, sin, sinh, sqrt, tan, tanh, degrees, radians, ulp, log, log2, log10,
    ceil, floor, trunc,
);

#[test]
fn atan2() {
    check_binary("atan2", 1);
}

#[test]
fn copysign() {
    check_binary("copysign", 2);
}

#[test]
fn fmod() {
    check_binary("fmod", 3);
}

#[test]
fn pow() {
    check_binary("pow", 4);
}

#[test]
fn remainder() {
    check_binary("remainder", 5);
}

#[test]
fn nextafter() {
    check_binary("nextafter", 6);
}

#[test]
fn log_with_base() {
    check_binary("log", 7);
}

#[test]
fn hypot() {
    let mut args: Vec<Vec<Arg>> = (0..rounds())
        .flat_map(|r| binary_inputs("hypot", 8 ^ (r << 32)))
        .map(|(x, y)| vec![Arg::F(x), Arg::F(y)])
        .collect();
    // one and three coordinates: the same vector_norm
    let mut g = Gen(9);
    for x in specials() {
        args.push(vec![Arg::F(x)]);
    }
    for _ in 0..1500 * rounds() {
        let mut pick = || match g.below(4) {
            0 => g.bits(),
            1 => g.uniform(-10.0, 10.0),
            2 => f64::from_bits(g.below(1 << 52)),
            _ => g.log_uniform(-300.0, 308.0),
        };
        args.push(vec![Arg::F(pick()), Arg::F(pick()), Arg::F(pick())]);
    }
    check("hypot", &args);
}

#[test]
fn ldexp() {
    let mut g = Gen(10);
    let mut args = Vec::new();
    let sp = specials();
    for &x in &sp {
        for e in [-1100, -1075, -1074, -1022, -1, 0, 1, 1023, 1024, 2000] {
            args.push(vec![Arg::F(x), Arg::I(e)]);
        }
    }
    for _ in 0..2500 * rounds() {
        let x = match g.below(3) {
            0 => g.bits(),
            1 => g.uniform(-10.0, 10.0),
            _ => f64::from_bits(g.below(1 << 52)),
        };
        let e = g.below(2400) as i64 - 1200;
        args.push(vec![Arg::F(x), Arg::I(e)]);
    }
    for e in [
        i64::from(i32::MAX) + 5,
        i64::from(i32::MIN) - 5,
        1 << 40,
        -(1 << 40),
    ] {
        args.push(vec![Arg::F(1.5), Arg::I(e)]);
        args.push(vec![Arg::F(-0.0), Arg::I(e)]);
    }
    check("ldexp", &args);
}
