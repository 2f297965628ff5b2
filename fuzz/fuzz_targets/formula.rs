//! Formula: parse + compile (PBS's built-in resources) + evaluate with arbitrary bindings.
//! Input: formula text, NUL, then the slot values as little-endian f64s. The fast path, the
//! exact evaluator and the batch evaluator must agree bit for bit (or both be NaN / the same
//! Python error), and the AST must print and re-parse to the same tree.
#![no_main]

use fairsort::formula::{compile, parse, FormulaError, ResourceTable};
use fairsort_fuzz::{f64s, split_nul};
use libfuzzer_sys::fuzz_target;

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fuzz_target!(|data: &[u8]| {
    let (text, rest) = split_nul(data);
    let Ok(src) = std::str::from_utf8(text) else {
        return;
    };
    if let Ok(ast) = parse(src) {
        let printed = ast.to_string();
        // Full parenthesisation adds nesting: the printed form may pass a limit the source
        // did not (found by this target: tests/data/regressions/formula_print_deeper_than_limit.bin).
        match parse(&printed) {
            Ok(again) => assert_eq!(
                printed,
                again.to_string(),
                "print/parse not stable for {src:?}"
            ),
            Err(FormulaError::TooDeep { .. } | FormulaError::TooLong { .. }) => {}
            Err(e) => panic!("{printed:?} does not re-parse: {e}"),
        }
    }
    let table = ResourceTable::builtin();
    let Ok(program) = compile(src, &table) else {
        return;
    };
    let mut slots = f64s(rest);
    slots.resize(program.keywords().len(), 0.0);
    let fast = program.eval(&slots);
    let exact = program.eval_exact(&slots);
    assert!(
        same(fast.value, exact.value) && fast.error == exact.error,
        "{src:?} with {slots:?}: fast {fast:?} != exact {exact:?}"
    );
    let mut out = [0.0f64; 1];
    let errors = program.eval_rows(&slots, &mut out);
    assert!(
        same(out[0], exact.value),
        "{src:?}: eval_rows {} != {}",
        out[0],
        exact.value
    );
    assert_eq!(errors.first().map(|e| &e.1), exact.error.as_ref());
});
