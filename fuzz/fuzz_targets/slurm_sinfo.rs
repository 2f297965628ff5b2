//! `sinfo --json` / `scontrol show nodes --json` as the forecast reads them: nothing may panic,
//! and an accepted list has distinct node names.
#![no_main]

use fairsort::slurm::snapshot::read_nodes_json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(nodes) = read_nodes_json(data, "sinfo.json") {
        let mut names = std::collections::HashSet::new();
        for n in &nodes {
            assert!(
                names.insert(n.name.clone()),
                "node {} accepted twice",
                n.name
            );
        }
    }
});
