//! `fairsort forecast`: from a live snapshot of a site (the running jobs, the nodes, the
//! pending queue, advance reservations), which pending jobs start now, when each other one
//! will start, and why it waits, in the scheduler's own words. It runs on the replay's
//! simulator (`replay::forecast_from`) started from the snapshot: the running jobs end at their
//! walltime, the pending jobs are considered in the scheduler's order (PBS: its cycle,
//! `scenario::cycle`; Slurm: partition tier, then priority; flux: priority, then submission)
//! under its reservation rules (strict ordering with `backfill_depth` top jobs, or none; Slurm's
//! backfill plan; fluxion's queue policy), with no later submissions (docs/forecast.md).

pub mod flux;
pub mod pbs;
pub mod result;
mod run;
pub mod slurm;
pub mod words;

pub use flux::{flux_forecast, FluxQueuePolicy, FluxSnapshot};
pub use pbs::{pbs_forecast, PbsPolicy, PbsSnapshot};
pub use result::{Forecast, JobForecast};
pub use slurm::{slurm_forecast, SlurmSnapshot};
