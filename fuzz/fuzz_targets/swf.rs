//! SWF reader: any text is read or refused with a located error, never a panic; every job it
//! accepts has the ranges the replay relies on (times and sizes within the reader's bounds).
#![no_main]

use fairsort::swf::{read_swf, SwfLog, MAX_SWF_PROCS, MAX_SWF_SECONDS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut log = SwfLog::default();
    if read_swf(&text, &mut log).is_err() {
        return;
    }
    for j in &log.jobs {
        for t in [j.submit, j.run, j.req_time] {
            assert!((-1..=MAX_SWF_SECONDS).contains(&t), "time {t}");
        }
        for p in [j.alloc_procs, j.req_procs] {
            assert!((-1..=MAX_SWF_PROCS).contains(&p), "procs {p}");
        }
    }
});
