//! PBS `usage`: the binary reader (first byte even) or the `pbsfs` text reader (odd), then
//! applying the usage to a small tree; binary output must re-read.
#![no_main]

use fairsort::pbs::{parse_resource_group, read_usage_binary, read_usage_text, write_usage_binary};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let usage = if mode % 2 == 0 {
        read_usage_binary(rest)
    } else {
        match std::str::from_utf8(rest) {
            Ok(t) => read_usage_text(t),
            Err(_) => return,
        }
    };
    let Ok(usage) = usage else {
        return;
    };
    let bytes = write_usage_binary(&usage);
    assert!(
        read_usage_binary(&bytes).is_ok(),
        "written usage does not re-read"
    );
    if let Ok(mut spec) = parse_resource_group("grp 10 root 5\nalice 11 grp 1\nbob 12 root 3\n", 0)
    {
        if fairsort::usage::apply_usage(&mut spec, fairsort::pbs::pbs_records(&usage)).is_ok() {
            fairsort_fuzz::check_tree(spec);
        }
    }
});
