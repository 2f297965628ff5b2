//! The jobs detector and the read it dispatches to: any bytes are given a format (never a
//! panic, whatever the nesting), and reading them in it gives jobs or an error naming the file.
#![no_main]

use fairsort::inputs::{read_jobs_bytes, JobsFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let format = JobsFormat::detect("f", data);
    // The detector decides on the text's start alone: a longer text with that start is the same.
    let mut longer = data.to_vec();
    longer.extend_from_slice(b" ");
    assert_eq!(JobsFormat::detect("f", &longer).scheduler(), format.scheduler());
    if let Err(e) = read_jobs_bytes("f", data, None) {
        let text = e.to_string();
        assert!(text.starts_with("f"), "{text}");
    }
});
