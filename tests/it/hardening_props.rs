//! Property tests (proptest, bounded case counts so the file runs in seconds):
//! formula print → parse round-trips, compiled evaluation = a direct walk of the AST with
//! Python's operators, every fair-share algorithm's invariants over random trees, and queue
//! ordering = a permutation sorted by value with PBS's tie rules.

use fairsort::fairshare::{
    compute, Algorithm, NodeKind, NodeSpec, Options, Shares, Tree, TreeSource, TreeSpec,
};
use fairsort::formula::ast::{BinOp, BoolOp, Expr, ExprKind, Number, UnaryOp};
use fairsort::formula::functions;
use fairsort::formula::functions::{BUILTIN_FUNCS, MATH_CONSTS, MATH_FUNCS};
use fairsort::formula::value;
use fairsort::formula::value::{PyResult, Value};
use fairsort::formula::{compile, parse, ResourceTable};
use fairsort::native::read_job_list_csv;
use fairsort::order::sort::{order, Evaluations, OrderOptions};
use fairsort::pbs::defs::keywords;
use proptest::prelude::*;

// ---------------------------------------------------------------- formulas

/// Names the generated formulas use: int resources, a float keyword, a constant.
const NAMES: [&str; 5] = ["ncpus", "walltime", "mem", "fairshare_perc", "pi"];
const FUNCS: [(&str, usize); 7] = [
    ("pow", 2),
    ("sqrt", 1),
    ("abs", 1),
    ("max", 2),
    ("min", 2),
    ("floor", 1),
    ("log", 1),
];

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..20).prop_map(|i| i.to_string()),
        (0u32..100).prop_map(|i| format!("{}.5", i)),
        Just("1e-3".to_string()),
        Just("True".to_string()),
        proptest::sample::select(&NAMES[..]).prop_map(str::to_string),
    ]
}

fn formula() -> impl Strategy<Value = String> {
    leaf().prop_recursive(5, 40, 3, |inner| {
        let ops = proptest::sample::select(vec![
            "+", "-", "*", "/", "//", "%", "**", "<", "<=", "==", "!=", "and", "or",
        ]);
        prop_oneof![
            (inner.clone(), ops, inner.clone()).prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            inner.clone().prop_map(|a| format!("({a})")),
            inner.clone().prop_map(|a| format!("-{a}")),
            inner.clone().prop_map(|a| format!("(not {a})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, c, b)| format!("({a} if {c} else {b})")),
            (
                proptest::sample::select(&FUNCS[..]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|((f, n), a, b)| if n == 1 {
                    format!("{f}({a})")
                } else {
                    format!("{f}({a}, {b})")
                }),
        ]
    })
}

/// A direct, unoptimised walk of the AST with the library's Python operators: the reference
/// the compiler (slots, constant folding, fast path) must agree with.
fn walk(e: &Expr, env: &dyn Fn(&str) -> Option<Value>) -> PyResult {
    match &e.kind {
        ExprKind::Number(Number::Int(i)) => Ok(Value::Int(*i)),
        ExprKind::Number(Number::Big(_)) => Err("no big literals here".into()),
        ExprKind::Number(Number::Float(x)) => Ok(Value::Float(*x)),
        ExprKind::Bool(b) => Ok(Value::bool(*b)),
        ExprKind::Name(n) => env(n).ok_or_else(|| format!("unbound {n}").into()),
        ExprKind::Unary(op, x) => {
            let v = walk(x, env)?;
            Ok(match op {
                UnaryOp::Neg => value::neg(&v),
                UnaryOp::Pos => v,
                UnaryOp::Not => Value::bool(!v.truthy()),
            })
        }
        ExprKind::Chain(first, rest) => {
            let mut acc = walk(first, env)?;
            for (op, x) in rest {
                let rhs = walk(x, env)?;
                acc = value::binary(*op, &acc, &rhs)?;
            }
            Ok(acc)
        }
        ExprKind::Compare(first, rest) => {
            let mut left = walk(first, env)?;
            for (op, x) in rest {
                let right = walk(x, env)?;
                if !value::compare_op(*op, &left, &right)? {
                    return Ok(Value::bool(false));
                }
                left = right;
            }
            Ok(Value::bool(true))
        }
        ExprKind::Logic(op, items) => {
            let mut last = Value::bool(matches!(op, BoolOp::And));
            for x in items {
                last = walk(x, env)?;
                match op {
                    BoolOp::And if !last.truthy() => return Ok(last),
                    BoolOp::Or if last.truthy() => return Ok(last),
                    _ => {}
                }
            }
            Ok(last)
        }
        ExprKind::IfElse {
            then,
            cond,
            otherwise,
        } => {
            if walk(cond, env)?.truthy() {
                walk(then, env)
            } else {
                walk(otherwise, env)
            }
        }
        ExprKind::Call { name, args, .. } => {
            let f = MATH_FUNCS
                .iter()
                .chain(BUILTIN_FUNCS)
                .find(|(n, _)| n == name)
                .map(|(_, f)| *f)
                .ok_or_else(|| format!("no function {name}"))?;
            let vals = args
                .iter()
                .map(|a| walk(a, env))
                .collect::<Result<Vec<_>, _>>()?;
            functions::call(f, &vals)
        }
    }
}

/// A slot value typed as PBS binds it: float keywords are floats, integral values ints.
fn typed(name: &str, v: f64) -> Value {
    if keywords::is_float_keyword(name) || v.fract() != 0.0 {
        Value::Float(v)
    } else {
        Value::Int(v as i128)
    }
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) || (a == 0.0 && b == 0.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// print → parse gives the same tree (span-free: `Display` ignores spans), and printing
    /// is a fixed point.
    #[test]
    fn formula_print_parse_round_trip(src in formula()) {
        let ast = parse(&src).map_err(|e| TestCaseError::fail(format!("{src}: {e}")))?;
        let printed = ast.to_string();
        let again = parse(&printed).map_err(|e| TestCaseError::fail(format!("{printed}: {e}")))?;
        prop_assert_eq!(strip(&ast), strip(&again), "{} -> {}", src, printed);
        prop_assert_eq!(again.to_string(), printed);
    }

    /// The compiled program gives the AST walk's value or the same Python error.
    #[test]
    fn compiled_equals_ast_walk(
        src in formula(),
        vals in proptest::collection::vec(
            prop_oneof![Just(0.0), Just(1.0), Just(-2.0), 0.0..1e6f64, (0i64..5000).prop_map(|i| i as f64)],
            NAMES.len(),
        ),
    ) {
        let table = ResourceTable::builtin();
        let Ok(program) = compile(&src, &table) else {
            return Ok(()); // e.g. a constant sub-expression PBS would refuse; not this property
        };
        let ast = parse(&src).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let value_of = |name: &str| NAMES.iter().position(|n| *n == name).and_then(|i| vals.get(i)).copied();
        let env = |name: &str| -> Option<Value> {
            if let Some((_, c)) = MATH_CONSTS.iter().find(|(n, _)| *n == name) {
                return Some(Value::Float(*c));
            }
            value_of(name).map(|v| typed(name, v))
        };
        let slots: Vec<f64> = program
            .keywords()
            .iter()
            .map(|k| value_of(k).unwrap_or(0.0))
            .collect();
        let got = program.eval(&slots);
        let walked = walk(&ast, &env);
        let sort = fairsort::formula::sort_value(&walked);
        match walked {
            Ok(v) => prop_assert!(
                got.error.is_none() && same(got.value, sort),
                "{}: compiled {:?}, AST walk {} (sorts by {})", src, got, v, sort
            ),
            Err(m) => {
                prop_assert_eq!(got.value, 0.0);
                prop_assert_eq!(got.error.as_deref(), Some(&*m), "{}", src);
            }
        }
    }
}

/// The tree with spans zeroed, for span-free comparison.
fn strip(e: &Expr) -> Expr {
    let kind = match &e.kind {
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(strip(x))),
        ExprKind::Chain(f, rest) => {
            let f = strip(f);
            let mut rest: Vec<(BinOp, Expr)> = rest.iter().map(|(o, x)| (*o, strip(x))).collect();
            let no_pow = |r: &[(BinOp, Expr)]| r.iter().all(|(o, _)| *o != BinOp::Pow);
            // `(a * b) * c` and `a * b * c` are one left-associative chain.
            match f.kind {
                ExprKind::Chain(inner, mut inner_rest) if no_pow(&inner_rest) && no_pow(&rest) => {
                    inner_rest.append(&mut rest);
                    ExprKind::Chain(inner, inner_rest)
                }
                _ => ExprKind::Chain(Box::new(f), rest),
            }
        }
        ExprKind::Compare(f, rest) => ExprKind::Compare(
            Box::new(strip(f)),
            rest.iter().map(|(o, x)| (*o, strip(x))).collect(),
        ),
        ExprKind::Logic(op, items) => {
            // `(a and b) and c` and `a and b and c` are one chain.
            let mut flat = Vec::new();
            for x in items.iter().map(strip) {
                match x.kind {
                    ExprKind::Logic(o, inner) if o == *op && flat.is_empty() => flat.extend(inner),
                    _ => flat.push(x),
                }
            }
            ExprKind::Logic(*op, flat)
        }
        ExprKind::IfElse {
            then,
            cond,
            otherwise,
        } => ExprKind::IfElse {
            then: Box::new(strip(then)),
            cond: Box::new(strip(cond)),
            otherwise: Box::new(strip(otherwise)),
        },
        ExprKind::Call { name, args, .. } => ExprKind::Call {
            name: name.clone(),
            name_span: 0..0,
            args: args.iter().map(strip).collect(),
        },
        other => other.clone(),
    };
    Expr { kind, span: 0..0 }
}

// ---------------------------------------------------------------- fair share

/// A random tree: node i hangs under the root or an earlier account; users are leaves.
fn tree_spec(source: TreeSource, min_shares: u64) -> impl Strategy<Value = TreeSpec> {
    proptest::collection::vec(
        (
            any::<prop::sample::Index>(),
            any::<bool>(),
            min_shares..20u64,
            prop_oneof![Just(0.0), 0.0..1000.0f64],
        ),
        1..25,
    )
    .prop_map(move |raw| {
        let mut nodes: Vec<NodeSpec> = Vec::new();
        let mut accounts: Vec<String> = Vec::new();
        for (i, (parent, is_user, shares, usage)) in raw.into_iter().enumerate() {
            // The first node is always a user so that every tree has one.
            let is_user = is_user || i == 0;
            let parent = if accounts.is_empty() {
                None
            } else {
                let k = parent.index(accounts.len() + 1);
                accounts.get(k).cloned()
            };
            let (name, kind) = if is_user {
                (format!("u{i}"), NodeKind::User)
            } else {
                accounts.push(format!("a{i}"));
                (format!("a{i}"), NodeKind::Account)
            };
            let mut n = NodeSpec::new(name, parent, kind, Shares::Count(shares));
            if is_user {
                n.usage = Some(usage);
            }
            nodes.push(n);
        }
        TreeSpec {
            source,
            root_name: "root".to_string(),
            root_usage: None,
            unknown_shares: (source == TreeSource::Pbs).then_some(0),
            nodes,
        }
    })
}

fn in_unit(x: f64) -> bool {
    (0.0..=1.0).contains(&x)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// PBS: the fairshare_perc of all leaves (users and childless groups) sums to 1.
    #[test]
    fn pbs_percentages_of_leaves_sum_to_one(spec in tree_spec(TreeSource::Pbs, 1)) {
        let tree = Tree::build(spec).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let r = compute(&tree, Algorithm::Pbs, &Options::default())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut sum = 0.0;
        for id in 0..tree.len() {
            if id != tree.root() && tree.children(id).is_empty() {
                let p = r.row(id).fairshare_perc.unwrap_or(f64::NAN);
                prop_assert!(in_unit(p), "perc {} of {}", p, tree.label(id));
                sum += p;
            }
        }
        // Tolerance: PBS keeps percentages in C `float` (fairsort too, through f32): each is
        // off by up to 2^-24 relative, so 25 leaves sum to 1 within ~1e-6.
        prop_assert!((sum - 1.0).abs() < 2e-6, "sum of leaf percentages {}", sum);
        for id in tree.users() {
            prop_assert!(r.factor(id).is_some_and(in_unit));
        }
    }

    /// Classic and depth-oblivious factors lie in [0, 1]; Fair Tree and flux values in
    /// [1/N, 1] and follow the sibling order; ticket factors lie in [0, 1] and the best
    /// active user has 1.
    #[test]
    fn slurm_and_flux_invariants(spec in tree_spec(TreeSource::Native, 0)) {
        let tree = Tree::build(spec).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let users = tree.users();
        let n = users.len() as f64;
        for algorithm in [Algorithm::Classic, Algorithm::DepthOblivious] {
            let r = compute(&tree, algorithm, &Options::default())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            for &u in &users {
                let f = r.factor(u).unwrap_or(f64::NAN);
                prop_assert!(in_unit(f), "{}: factor {} of {}", algorithm, f, tree.label(u));
            }
        }
        for algorithm in [Algorithm::FairTree, Algorithm::Flux] {
            let r = compute(&tree, algorithm, &Options::default())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            for &u in &users {
                let f = r.factor(u).unwrap_or(f64::NAN);
                // Tolerance: rank/N is exact up to one division.
                prop_assert!(f >= 1.0 / n - 1e-12 && f <= 1.0 + 1e-12,
                    "{}: value {} of {} outside [1/{}, 1]", algorithm, f, tree.label(u), n);
            }
            // Sibling order: among users of one account, a better level (Fair Tree: higher
            // Level FS; flux: higher weight) never gets a lower value.
            let level = |id: usize| match algorithm {
                Algorithm::FairTree => r.row(id).level_fs,
                _ => r.row(id).weight,
            };
            for &a in &users {
                for &b in &users {
                    if tree.parent(a) == tree.parent(b) {
                        if let (Some(la), Some(lb)) = (level(a), level(b)) {
                            if la > lb {
                                let (fa, fb) = (r.factor(a).unwrap_or(0.0), r.factor(b).unwrap_or(0.0));
                                prop_assert!(fa >= fb, "{}: {} ({}) below {} ({})",
                                    algorithm, tree.label(a), fa, tree.label(b), fb);
                            }
                        }
                    }
                }
            }
        }
        let r = compute(&tree, Algorithm::Ticket, &Options::default())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let factors: Vec<f64> = users.iter().map(|&u| r.factor(u).unwrap_or(f64::NAN)).collect();
        prop_assert!(factors.iter().all(|&f| in_unit(f)), "ticket factors {:?}", factors);
        let tickets: Vec<f64> = users.iter().map(|&u| r.row(u).tickets.unwrap_or(0.0)).collect();
        let max = tickets.iter().cloned().fold(0.0, f64::max);
        if max > 0.0 {
            let ones = factors.iter().filter(|&&f| f == 1.0).count();
            let at_max = tickets.iter().filter(|&&t| t == max).count();
            prop_assert_eq!(ones, at_max, "one 1.0 per user holding the most tickets");
            prop_assert!(ones >= 1);
        }
    }
}

// ---------------------------------------------------------------- ordering

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// `order` returns a permutation of the jobs: runnable jobs first, each part by value
    /// descending, ties by submission order (the job list's order here: equal qtime, rising ids).
    #[test]
    fn ordering_is_a_sorted_permutation(
        jobs in proptest::collection::vec((0u8..4, any::<bool>(), 0u32..3), 1..40),
        threshold in proptest::option::of(0.0..3.0f64),
    ) {
        let mut csv = String::from("id,user,state,qtime\n");
        for (i, (_, queued, _)) in jobs.iter().enumerate() {
            csv.push_str(&format!("{},u{},{},1700000000\n", i + 1, i % 3, if *queued { "Q" } else { "H" }));
        }
        let set = read_job_list_csv(csv.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let values: Vec<f64> = jobs.iter().map(|(v, _, _)| f64::from(*v) / 2.0).collect();
        let evals = Evaluations { values: values.clone(), errors: Default::default() };
        let opts = OrderOptions { threshold, ..OrderOptions::default() };
        let q = order(&set, evals, &opts);
        let mut seen: Vec<u32> = q.ranked.iter().map(|r| r.job).collect();
        seen.sort_unstable();
        prop_assert_eq!(seen, (0..jobs.len() as u32).collect::<Vec<_>>());
        let runnable = |j: u32| set.jobs[j as usize].state.is_runnable();
        for w in q.ranked.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            let key = |r: &fairsort::order::Ranked| (!runnable(r.job), -r.value, r.job);
            prop_assert!(key(a) < key(b), "{:?} before {:?}", a, b);
            prop_assert_eq!(a.value, values[a.job as usize]);
        }
        for r in &q.ranked {
            let below = runnable(r.job) && fairsort::pbs::defs::threshold::is_below(r.value, threshold);
            prop_assert_eq!(r.below_threshold, below);
            prop_assert_eq!(r.eligible, runnable(r.job) && !below);
        }
    }
}
