//! The `fairsort test` file format: parse, then run the cases (with a current formula).
#![no_main]

use fairsort::ftest::{parse, run_file, Context};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = parse("t.toml", text) else {
        return;
    };
    let ctx = Context::with_formula("ncpus + fairshare_perc");
    let _ = run_file(&file, &ctx, true);
});
