//! Slurm `sshare -a -l -P` reader, then every algorithm over the tree.
#![no_main]

use fairsort::slurm::{parse_sshare, parse_sshare_rows};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_sshare_rows(text);
    if let Ok(spec) = parse_sshare(text) {
        fairsort_fuzz::check_tree(spec);
    }
});
