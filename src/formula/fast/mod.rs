//! The f64 fast path: the compiled nodes turned into a flat register program (`emit.rs`) run
//! by a loop (`code.rs`). It agrees with the exact evaluator whenever it does not "bail": every
//! operation whose result could differ between Python ints and floats (magnitudes ≥ 2^53),
//! raise (division by zero, domain and range errors, complex results) or depend on the sign of
//! a zero sets one `bad` flag, and the caller then re-evaluates the job exactly. Static types
//! decide where those checks are needed.

mod code;
mod emit;

use crate::formula::ast::BinOp;
use crate::formula::ir::Node;

/// What Python type a node has whatever the job: always float, always int, or either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    Float,
    Dyn,
}

fn join(a: Ty, b: Ty) -> Ty {
    if a == b {
        a
    } else {
        Ty::Dyn
    }
}

fn arith(a: Ty, b: Ty) -> Ty {
    if a == Ty::Float || b == Ty::Float {
        Ty::Float
    } else if a == Ty::Int && b == Ty::Int {
        Ty::Int
    } else {
        Ty::Dyn
    }
}

/// The type of `a op b`.
fn result_ty(op: BinOp, a: Ty, b: Ty) -> Ty {
    match op {
        BinOp::Div => Ty::Float,
        BinOp::Pow if a == Ty::Int && b == Ty::Int => Ty::Dyn,
        _ => arith(a, b),
    }
}

/// Builds the fast evaluator of `root`, or `None` if the formula uses something only the exact
/// evaluator does (then every job is evaluated exactly).
pub(crate) fn build(nodes: &[Node], root: usize, float_slot: &[bool]) -> Option<Fast> {
    let (code, ty) = emit::emit(nodes, root, float_slot)?;
    Some(Fast {
        code,
        int_result: ty == Ty::Int,
    })
}

/// The fast evaluator of a whole formula.
pub(crate) struct Fast {
    code: code::Code,
    /// The result is always a Python int: a zero result is +0 whatever the f64 sign says.
    int_result: bool,
}

impl Fast {
    /// The value, or `None` when the exact evaluator must decide.
    #[inline]
    pub(crate) fn eval(&self, s: &[f64]) -> Option<f64> {
        let (v, bad) = self.code.run(s);
        // A zero result may be -0.0 in Python or +0 (an int): let the exact path decide.
        if !bad && (v != 0.0 || self.int_result) {
            Some(if v == 0.0 { 0.0 } else { v })
        } else {
            None
        }
    }

    /// The number of instructions (for tests of the superinstructions).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.code.ins.len()
    }
}

#[cfg(test)]
mod tests {
    use crate::formula::{compile, ResourceTable};

    fn bails(src: &str, slots: &[f64]) -> bool {
        let p = compile(src, &ResourceTable::builtin()).unwrap_or_else(|e| panic!("{e}"));
        match p.inner_fast() {
            Some(f) => f.eval(slots).is_none(),
            None => true,
        }
    }

    #[test]
    fn typical_formulas_stay_on_the_fast_path() {
        let ten =
            "queue_priority + 0.005*ncpus + 0.000277778*eligible_time + 0.5*fairshare_factor \
                   + 2*job_priority + 0.001*walltime + mem/1048576 + 10*accrue_type + 0.1*naccelerators \
                   + 0.01*nodect";
        assert!(!bails(
            ten,
            &[10.0, 4.0, 3600.0, 0.5, 2.0, 7200.0, 1048576.0, 2.0, 1.0, 1.0]
        ));
        assert!(!bails(
            "pow(2, -(fairshare_tree_usage/fairshare_perc))",
            &[0.125312, 0.2]
        ));
        assert!(!bails(
            "fairshare_factor + (walltime/ncpus)",
            &[0.5, 3600.0, 4.0]
        ));
        assert!(!bails(
            "ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))",
            &[1.0, 300.0, 4.0]
        ));
        // where Python could differ, it bails
        assert!(bails("ncpus / walltime", &[1.0, 0.0]));
        assert!(bails("ncpus * walltime", &[1e10, 1e10]));
        assert!(bails("ncpus - walltime", &[3.0, 3.0]));
        assert!(!bails("ncpus == walltime", &[3.0, 4.0]));
        assert!(bails("sqrt(ncpus)", &[-1.0]));
    }

    fn instructions(src: &str) -> usize {
        let p = compile(src, &ResourceTable::builtin()).unwrap_or_else(|e| panic!("{e}"));
        p.inner_fast().map_or(0, |f| f.len())
    }

    #[test]
    fn weighted_sums_are_few_instructions() {
        // one run: load `queue_priority`, then 9 `acc ± slot*const` or `acc ± slot/const`
        assert_eq!(
            instructions(
                "queue_priority + 0.005*ncpus + 0.000277778*eligible_time + 0.5*fairshare_factor \
                 + 2*job_priority + 0.001*walltime + mem/1048576 + 10*accrue_type + 0.1*naccelerators \
                 + 0.01*nodect"
            ),
            1
        );
        assert_eq!(instructions("fairshare_factor + (walltime/ncpus)"), 2);
        assert_eq!(instructions("ncpus*2 - mem/walltime - 3/nodect"), 3);
        // ints all along: checked superinstructions instead of a run
        assert_eq!(instructions("ncpus + 2*mem + 3*walltime"), 3);
        // a run after other work
        assert_eq!(instructions("sqrt(ncpus) + 0.5*mem - walltime/60"), 3);
        // `pow` with a constant exponent or base, a select between constants on `slot > k`
        assert_eq!(
            instructions("pow(2, -(fairshare_tree_usage/fairshare_perc))"),
            3
        );
        assert_eq!(
            instructions(
                "fairshare_factor + 0.01*pow(ncpus, 0.5) + queue_priority/10 + eligible_time/3600 \
                 - walltime/360000 + (0.5 if mem > 67108864 else 0)"
            ),
            5
        );
    }

    #[test]
    fn pow_tables_are_bit_identical_to_pow() {
        let p = compile(
            "pow(ncpus, 0.5) + pow(walltime, -1.25)",
            &ResourceTable::builtin(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let exact = |s: &[f64]| p.eval_exact(s).value;
        let mut xs: Vec<f64> = (0..1100).map(f64::from).collect();
        xs.extend([-0.0, -1.0, 0.5, 1023.5, 1e-300, 4.0 + f64::EPSILON * 4.0]);
        for &x in &xs {
            for &y in &[1.0, 7.0, 1024.0] {
                let fast = p.eval(&[x, y]).value;
                let want = exact(&[x, y]);
                assert!(
                    fast.to_bits() == want.to_bits() || (fast.is_nan() && want.is_nan()),
                    "pow({x}, 0.5) + pow({y}, -1.25): {fast} != {want}"
                );
            }
        }
    }

    #[test]
    fn control_flow_and_calls() {
        let eval = |src: &str, slots: &[f64]| {
            let p = compile(src, &ResourceTable::builtin()).unwrap_or_else(|e| panic!("{e}"));
            p.inner_fast().and_then(|f| f.eval(slots))
        };
        assert_eq!(eval("1 < ncpus < 3 < 4", &[2.0]), Some(1.0));
        assert_eq!(eval("1 < ncpus < 2 < 4", &[2.0]), Some(0.0));
        assert_eq!(eval("ncpus and mem or 7", &[0.0, 5.0]), Some(7.0));
        assert_eq!(eval("ncpus and mem or 7", &[2.0, 5.0]), Some(5.0));
        assert_eq!(eval("mem if ncpus > 1 else -mem", &[5.0, 2.0]), Some(5.0));
        assert_eq!(eval("mem if ncpus > 1 else -mem", &[5.0, 1.0]), Some(-5.0));
        assert_eq!(
            eval("max(ncpus, 3, mem) + min(ncpus, mem)", &[2.0, 5.0]),
            Some(7.0)
        );
        assert_eq!(eval("round(ncpus / 3, 2)", &[2.0]), Some(0.67));
        assert_eq!(
            eval("floor(ncpus / 3) + ceil(ncpus / 3)", &[2.0]),
            Some(1.0)
        );
        assert_eq!(
            eval("ncpus // 3 + ncpus % 3 + ncpus ** 2", &[7.0]),
            Some(52.0)
        );
        assert_eq!(eval("2 ** ncpus", &[60.0]), None);
        assert_eq!(eval("3 if ncpus >= 2 else 0.5", &[2.0]), Some(3.0));
        assert_eq!(eval("3 if 2 > ncpus else 0.5", &[2.0]), Some(0.5));
        // NaN is true in Python
        assert_eq!(eval("3 if ncpus else 0.5", &[f64::NAN]), Some(3.0));
        assert_eq!(eval("pow(ncpus, 2)", &[-0.0]), None);
        assert_eq!(eval("pow(ncpus, 3)", &[-2.0]), Some(-8.0));
        assert_eq!(eval("pow(2, ncpus)", &[10.0]), Some(1024.0));
    }
}
