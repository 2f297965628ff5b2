//! fairsort's own TOML (first byte even) or JSON (odd) tree; accepted trees must write and
//! re-read, then every algorithm runs over them.
#![no_main]

use fairsort::native::tree::{read_json, read_toml, write_json, write_toml};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let spec = if mode % 2 == 0 {
        read_toml(text)
    } else {
        read_json(text)
    };
    let Ok(spec) = spec else {
        return;
    };
    if let Ok(t) = write_toml(&spec) {
        assert!(read_toml(&t).is_ok(), "written TOML does not re-read:\n{t}");
    }
    if let Ok(j) = write_json(&spec) {
        assert!(read_json(&j).is_ok(), "written JSON does not re-read:\n{j}");
    }
    fairsort_fuzz::check_tree(spec);
});
