//! The PBS snapshot readers: `pbsnodes -a -F json` (first byte even) and `pbs_rstat -f` (odd):
//! any bytes give nodes or reservations, or an error, never a panic.
#![no_main]

use fairsort::pbs::snapshot::pbsnodes::read_pbsnodes_json;
use fairsort::pbs::snapshot::rstat::read_pbs_rstat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        let _ = read_pbsnodes_json(rest, "pbsnodes.json");
    } else if let Ok(text) = std::str::from_utf8(rest) {
        let _ = read_pbs_rstat(text, "rstat");
    }
});
