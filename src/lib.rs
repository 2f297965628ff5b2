//! fairsort: fair-share values over an account/user share tree with the algorithms of PBS, Slurm
//! and flux-accounting; PBS `job_sort_formula` parsing and evaluation; dry-run job queue ordering.
//!
//! Data flows one way (see `../shared/design.md`):
//! `formula` (parse → compile → eval), `fairshare` (tree + algorithms), `formats` (real scheduler
//! inputs → the in-memory models), `queue` (bind, evaluate, order, explain), `server` (the
//! qmgr-like persistent home), `usage` (accounting records and decay). `cli` is a thin layer over
//! all of them.

// No `unwrap`/`expect` outside tests: every failure a user can cause is an error value
// (docs/hardening.md has the audit of the remaining indexing).
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod fairshare;
pub mod formats;
pub mod formula;
pub mod ftest;
pub mod home;
pub mod qmgr;
pub mod queue;
pub mod scenario;
pub mod usage;
