//! `fairsort forecast`'s flux path: `flux jobs -a --json` and `flux resource R` of one
//! instance, under fluxion's queue policy (`--queue-policy`, default easy).

use crate::cli::failure::read_file;
use crate::cli::forecast_inputs::Inputs;
use crate::cli::Failure;
use fairsort::forecast::{flux_forecast, FluxQueuePolicy, FluxSnapshot, Forecast};

/// Forecasts the flux snapshot of `args` (`stdin`: the jobs, when `--jobs -`).
pub(super) fn flux(args: &Inputs, stdin: Option<Vec<u8>>) -> Result<Forecast, Failure> {
    for (given, flag) in [
        (args.reservations.is_some(), "--reservations"),
        (args.backfill_depth.is_some(), "--backfill-depth"),
        (args.strict_ordering.is_some(), "--strict-ordering"),
        (args.against.is_some(), "--against"),
        (args.against_weights.is_some(), "--against-weights"),
        (args.tz.is_some(), "--tz"),
    ] {
        if given {
            return Err(Failure::usage(format!(
                "{flag} is not a flux instance's: a flux forecast (`flux jobs --json`) does not take it"
            )));
        }
    }
    let (bytes, name) = match stdin {
        Some(b) => (b, fairsort::jobs::error::STDIN_NAME.to_string()),
        None => (read_file(&args.jobs)?, args.jobs.display().to_string()),
    };
    let jobs = fairsort::flux::snapshot::read_flux_snapshot(&bytes, &name)
        .map_err(|e| Failure::user(e.to_string()))?;
    let nodes = fairsort::flux::resource_set::read_flux_r(
        &read_file(&args.node_state)?,
        &args.node_state.display().to_string(),
    )
    .map_err(|e| Failure::user(e.to_string()))?;
    let snap = FluxSnapshot {
        jobs: &jobs,
        nodes: &nodes,
        policy: args.queue_policy.unwrap_or(FluxQueuePolicy::Easy),
        at: args
            .at
            .unwrap_or_else(|| jiff::Timestamp::now().as_second()),
    };
    flux_forecast(&snap).map_err(|e| Failure::user(e.to_string()))
}
