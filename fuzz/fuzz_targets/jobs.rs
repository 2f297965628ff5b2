//! Job readers: `qstat -f -F json` (first byte % 3 == 0), JSON job lists (1) and CSV job
//! lists (2). For qstat text, the fast path (fairsort's strict scanner, the `Jobs` object cut in
//! parts of one byte or more) must answer exactly as the one-pass serde_json reader whenever it
//! answers, and the public reader must give the one-pass reader's jobs or error.
#![no_main]

use fairsort::native::{read_job_list_csv, read_job_list_json};
use fairsort::pbs::qstat::read_both_ways;
use fairsort::pbs::read_qstat_json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            let (fast, serde) = read_both_ways(rest);
            if let Some(fast) = fast {
                let plain = serde.as_ref().expect("the fast path read a text serde_json refuses");
                assert_eq!(fast.describe(), plain.describe(), "fast path values");
            }
            match (read_qstat_json(rest), &serde) {
                (Ok(a), Ok(b)) => assert_eq!(a.describe(), b.describe()),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("public reader {:?} vs one pass {:?}", a.is_ok(), b.is_ok()),
            }
        }
        1 => {
            let _ = read_job_list_json(rest);
        }
        _ => {
            let _ = read_job_list_csv(rest);
        }
    }
});
