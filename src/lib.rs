//! fairsort: fair-share values over an account/user share tree with the algorithms of PBS, Slurm
//! and flux-accounting; PBS `job_sort_formula` parsing and evaluation; dry-run job queue ordering.
//!
//! Layers from the ground up, each importing only the ones below it (docs/architecture.md):
//! the ground (`mem`, `parallel`, `digits`, `snippet`, PBS's definitions `pbs::defs`) → the core
//! (`files`, `formula`, `fairshare`; `jobs`, `usage`; `order`) → one adapter per scheduler
//! (`pbs`, `slurm`, `flux`, `swf`, `native`) → `inputs` (one detector per kind of input) →
//! `home` (the persistent store of one site) → `scenario` (a site at one moment) → `ftest`,
//! `replay` → `qmgr`, `plot`, `forecast` → `metrics` (Prometheus text of all of them), `report`
//! (the HTML page over them), `tune` (policies searched over replays). The command line is the
//! binary's (`src/main.rs`); the library
//! parses no command line and prints nothing.

// No `unwrap`/`expect` outside tests: every failure a user can cause is an error value
// (docs/hardening.md has the audit of the remaining indexing).
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]
// `unsafe` lives in two modules only: `mem` (mappings, madvise, prefetch, buffers reused in
// place) and the libm bindings `formula::float_math`; `tests/it/architecture.rs` checks it too.
#![deny(unsafe_code)]

pub mod digits;
pub mod fairshare;
pub mod files;
pub mod flux;
pub mod forecast;
pub mod formula;
pub mod ftest;
pub mod home;
pub mod inputs;
pub mod jobs;
#[allow(unsafe_code)]
pub mod mem;
pub mod metrics;
pub mod native;
pub mod order;
pub mod parallel;
pub mod pbs;
pub mod plot;
pub mod qmgr;
pub mod replay;
pub mod report;
pub mod scenario;
pub mod slurm;
pub mod snippet;
pub mod swf;
pub mod tune;
pub mod usage;

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
