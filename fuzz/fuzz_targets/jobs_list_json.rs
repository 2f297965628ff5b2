//! fairsort's JSON job list on its own: any bytes give jobs or an error naming the file,
//! never a panic, and an error never names a Rust type.
#![no_main]

use fairsort::native::joblist::read_job_list_json_named;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = read_job_list_json_named("f.json", data, &jiff::tz::TimeZone::UTC) {
        let text = e.to_string();
        assert!(text.starts_with("f.json"), "{text}");
        assert!(!text.contains("ListJob") && !text.contains("untagged"), "{text}");
    }
});
