//! fairsort's CSV job list on its own: any bytes give jobs or an error naming the file,
//! never a panic.
#![no_main]

use fairsort::native::joblist::read_job_list_csv_named;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = read_job_list_csv_named("f.csv", data, &jiff::tz::TimeZone::UTC) {
        let text = e.to_string();
        assert!(text.starts_with("f.csv"), "{text}");
    }
});
