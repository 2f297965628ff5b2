//! flux-accounting `jobs` table fields: the R (resource set JSON) and idset parsers that turn
//! a job row into a charge. (The SQLite file itself is SQLite's to parse.)
#![no_main]

use fairsort::flux::jobs_table::{idset_count, resource_counts};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok((a, b, c)) = resource_counts(text) {
        assert!(
            a >= 0.0 && b >= 0.0 && c >= 0.0,
            "negative count from {text:?}"
        );
    }
    if let Ok(n) = idset_count(text) {
        assert!(
            n >= 0.0 && n.is_finite(),
            "bad idset count {n} from {text:?}"
        );
    }
});
