//! Slurm `sacctmgr show assoc -P` reader, then every algorithm over the tree.
#![no_main]

use fairsort::slurm::parse_sacctmgr;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(spec) = parse_sacctmgr(text) {
        fairsort_fuzz::check_tree(spec);
    }
});
