//! `squeue` readers: `--json` (first byte even) and pipe output (odd), for the multifactor
//! priority and for the forecast's snapshot. Nothing may panic; an accepted queue has distinct
//! job ids, whole counts and nice within slurmctld's range.
#![no_main]

use fairsort::slurm::snapshot::read_squeue_json as snapshot_jobs;
use fairsort::slurm::squeue::{read_squeue_json, read_squeue_pipe};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let read = if mode % 2 == 0 {
        let _ = snapshot_jobs(rest, "squeue.json");
        read_squeue_json("squeue.json", rest)
    } else {
        read_squeue_pipe("squeue.txt", rest)
    };
    if let Ok(jobs) = read {
        let mut ids = std::collections::HashSet::new();
        for j in &jobs {
            assert!(ids.insert(j.id.clone()), "job {} accepted twice", j.id);
            assert!(j.nice.abs() <= 2_147_483_645, "nice {} accepted", j.nice);
            assert!(
                j.submit_time >= 0 && j.eligible_time >= 0,
                "negative time accepted"
            );
        }
    }
});
