//! Job readers: `qstat -f -F json` (first byte % 3 == 0, also through the streaming reader),
//! JSON job lists (1) and CSV job lists (2).
#![no_main]

use fairsort::queue::{
    read_job_list_csv, read_job_list_json, read_qstat_json, read_qstat_json_slice,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            let a = read_qstat_json_slice(rest);
            let b = read_qstat_json(rest);
            assert_eq!(a.is_ok(), b.is_ok(), "slice and stream readers disagree");
        }
        1 => {
            let _ = read_job_list_json(rest);
        }
        _ => {
            let _ = read_job_list_csv(rest);
        }
    }
});
