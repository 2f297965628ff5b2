//! `fairsort replay`: a trace of the jobs a site really ran, replayed on a cluster model under a
//! `job_sort_formula`, with fair share evolving as usage accrues and decays (docs/replay.md).
//! It runs the formula forward in time: `trace` reads the jobs, `sim` schedules them event by
//! event, `shares` keeps usage and fair-share values, `report` sums up waits and shares,
//! `attainment` samples each account's share of the usage over time, `plot` draws SVGs.

pub mod attainment;
pub mod calendar;
mod classes;
pub mod cluster;
pub mod decay;
pub mod entities;
pub mod error;
pub mod flux;
pub mod flux_trace;
mod pbs_trace;
mod planned;
pub mod plot;
pub mod report;
mod sacct_trace;
pub mod shares;
pub mod sim;
mod site_tree;
pub mod slurm;
mod slurm_shares;
mod swf_trace;
pub mod trace;
pub mod trace_job;
pub use attainment::{attainment, Attainment, Series};
pub use decay::Decay;
pub use flux::FluxPolicy;
pub use plot::{attainment_svg, waits_svg, PlotError};
pub use report::{summarize, EntityStats, FormulaErrorAt, Report};
pub use shares::Entities;
pub use sim::ReplayError;
pub use sim::{
    forecast_from, replay, replay_flux, replay_slurm, replay_tiered, replay_with, Backfill,
    Cluster, Decision, Options, Outcome, Placement, Progress, StartState, Why,
};
pub use slurm::SlurmPolicy;
pub use trace::{read_trace, read_trace_in, Trace, TraceError, TraceFormat, TraceJob};
