//! The nesting limit holds on the default 2 MiB test-thread stack in debug builds: the deepest
//! accepted formula of every nesting kind parses, compiles and evaluates, one level more is a
//! clean error.

use fairsort::formula::limits::MAX_DEPTH;
use fairsort::formula::{compile, FormulaError, ResourceTable};

fn run(src: &str) -> Result<f64, FormulaError> {
    compile(src, &ResourceTable::builtin()).map(|p| p.eval(&[]).value)
}

#[test]
fn deepest_accepted_formulas_of_each_kind() {
    let n = MAX_DEPTH - 2;
    let mixed_level = "(1 if 1 or 1 and not 1 < 2 + 3 * -";
    let kinds = [
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1", "-".repeat(n)),
        format!("{}1", "not ".repeat(n)),
        format!("{}1", "2**".repeat(n)),
        format!("{}1", "1 if 1 else ".repeat(n)),
        format!("{}1{}", "sqrt(".repeat(n), ")".repeat(n)),
        format!("{}1{}", mixed_level.repeat(n / 5), " else 1)".repeat(n / 5)),
    ];
    for src in &kinds {
        assert!(
            run(src).is_ok(),
            "{}...: {:?}",
            &src[..40.min(src.len())],
            run(src).err()
        );
    }
}

#[test]
fn one_level_too_deep_is_an_error() {
    let n = MAX_DEPTH + 1;
    for src in [
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1", "-".repeat(n)),
        format!("{}1", "2**".repeat(n)),
    ] {
        assert!(matches!(run(&src), Err(FormulaError::TooDeep { .. })));
    }
}

#[test]
fn long_flat_formulas_are_fine() {
    let sum = vec!["ncpus * 2"; 4000].join(" + ");
    assert!(run(&sum).is_ok());
    let ands = vec!["ncpus"; 6000].join(" and ");
    assert!(run(&ands).is_ok());
}
