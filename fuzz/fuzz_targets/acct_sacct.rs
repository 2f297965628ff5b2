//! Slurm `sacct -P` reader, with and without TRESBillingWeights.
#![no_main]

use fairsort::slurm::{read_sacct, BillingWeights};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let weights: BillingWeights = if mode % 2 == 0 {
        BillingWeights::default()
    } else {
        match "CPU=1.0,Mem=0.25G,GRES/gpu=2.0".parse() {
            Ok(w) => w,
            Err(_) => return,
        }
    };
    let mut r = rest;
    let mut malformed = Vec::new();
    let _ = read_sacct(
        &mut r,
        Path::new("sacct"),
        &weights,
        &mut |job| {
            assert!(
                job.charge.is_finite() && job.charge >= 0.0,
                "bad charge {}",
                job.charge
            );
            Ok(())
        },
        &mut malformed,
    );
});
