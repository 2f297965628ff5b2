//! `slurm.conf` (first byte even) and `scontrol show config` output (odd: its header line
//! first), and the hostlists in them: nothing may panic, and what a hostlist gives stays within
//! its bounds.
#![no_main]

use fairsort::slurm::conf::parse_slurm_conf;
use fairsort::slurm::hostlist::{expand_hostlist, MAX_BYTES, MAX_NAMES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    // A name no file has: `Include` lines find nothing beside it.
    let name = "/nonexistent/fairsort-fuzz/slurm.conf";
    let _ = if mode % 2 == 0 {
        parse_slurm_conf(text, name)
    } else {
        parse_slurm_conf(
            &format!("Configuration data as of 2024-04-13T12:00:00\n{text}"),
            name,
        )
    };
    if let Ok(names) = expand_hostlist(text) {
        assert!(names.len() <= MAX_NAMES);
        assert!(names.iter().map(String::len).sum::<usize>() <= MAX_BYTES);
    }
});
