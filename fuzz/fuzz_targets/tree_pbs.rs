//! PBS `resource_group` reader (and writer round-trip), then every algorithm over the tree.
#![no_main]

use fairsort::pbs::{parse_resource_group, write_resource_group};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(spec) = parse_resource_group(text, 10) else {
        return;
    };
    if let Ok(written) = write_resource_group(&spec) {
        let again = parse_resource_group(&written, 10);
        assert!(
            again.is_ok(),
            "written resource_group does not re-read: {again:?}\n{written}"
        );
    }
    fairsort_fuzz::check_tree(spec);
});
