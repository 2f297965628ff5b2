//! fairsort: fair-share values over an account/user share tree with the algorithms of PBS, Slurm
//! and flux-accounting; PBS `job_sort_formula` parsing and evaluation; dry-run job queue ordering.
//!
//! Layers from the ground up, each importing only the ones below it (docs/architecture.md):
//! `pbs` (each PBS concept once) → `formula` (parse → compile → eval), `fairshare` (tree +
//! algorithms) → `formats` (the schedulers' files → in-memory models) → `usage` (records,
//! charges, decay, usage applied to a tree), `queue` (bind, evaluate, order, explain) → `home`
//! (the persistent store) → `scenario` (a cluster at one moment) → `ftest` (formula unit tests)
//! → `qmgr` (the command language). The command line is the binary's (`src/main.rs`); the
//! library parses no command line and prints nothing.

// No `unwrap`/`expect` outside tests: every failure a user can cause is an error value
// (docs/hardening.md has the audit of the remaining indexing).
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

pub mod digits;
pub mod fairshare;
pub mod formats;
pub mod formula;
pub mod ftest;
pub mod home;
pub mod parallel;
pub mod pbs;
pub mod plot;
pub mod qmgr;
pub mod queue;
pub mod replay;
pub mod scenario;
pub mod snippet;
pub mod usage;

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
