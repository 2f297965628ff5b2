//! Job readers: `qstat -f -F json` (first byte % 3 == 0), JSON job lists (1) and CSV job
//! lists (2). For qstat text, the fast path (fairsort's strict scanner) must answer exactly as
//! the serde_json reader whenever it answers, and the streaming reader must agree on success.
#![no_main]

use fairsort::native::{read_job_list_csv, read_job_list_json};
use fairsort::pbs::{read_qstat_json, read_qstat_json_fast, read_qstat_json_slice, read_qstat_json_slice_serde};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            let serde = read_qstat_json_slice_serde(rest);
            if let Some(fast) = read_qstat_json_fast(rest) {
                match (&fast, &serde) {
                    (Ok(a), Ok(b)) => assert_eq!(a.describe(), b.describe(), "fast path values"),
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                    _ => panic!("fast path {:?} vs serde {:?}", fast.is_ok(), serde.is_ok()),
                }
            }
            let a = read_qstat_json_slice(rest);
            assert_eq!(a.is_ok(), serde.is_ok(), "public reader and serde disagree");
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
