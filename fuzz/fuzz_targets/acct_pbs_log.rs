//! PBS accounting-log reader (`E` records charged with `ncpus*walltime`).
#![no_main]

use fairsort::formula::ResourceTable;
use fairsort::pbs::defs::FairshareEntity;
use fairsort::usage::usage_res_charge;
use fairsort::pbs::accounting::PbsLogReader;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let table = ResourceTable::builtin();
    let formula = if mode % 2 == 0 {
        "cput"
    } else {
        "ncpus*walltime"
    };
    let Ok(charge) = usage_res_charge(formula, &table) else {
        return;
    };
    let entity = match mode / 2 % 5 {
        0 => FairshareEntity::Euser,
        1 => FairshareEntity::Egroup,
        2 => FairshareEntity::AccountName,
        3 => FairshareEntity::Queue,
        _ => FairshareEntity::EgroupEuser,
    };
    let mut reader = PbsLogReader::new(entity, charge.as_ref());
    let mut r = rest;
    let mut malformed = Vec::new();
    let _ = reader.read(
        &mut r,
        Path::new("log"),
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
