//! fairsort: fair-share values over an account/user share tree with the algorithms of PBS, Slurm
//! and flux-accounting; PBS `job_sort_formula` parsing and evaluation; dry-run job queue ordering.
//!
//! Data flows one way (see `../shared/design.md`): `pbs` (each PBS concept once: units, resource
//! types and built-in names, keywords, entity kinds, error codes) under everything;
//! `formula` (parse → compile → eval), `fairshare` (tree + algorithms), `formats` (real scheduler
//! inputs → the in-memory models), `queue` (bind, evaluate, order, explain), `usage` (accounting
//! records and decay), `home` (the persistent store), `qmgr` (the qmgr language). The binary's
//! command line is a thin layer over all of them.

// No `unwrap`/`expect` outside tests: every failure a user can cause is an error value
// (docs/hardening.md has the audit of the remaining indexing).
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod fairshare;
pub mod formats;
pub mod formula;
pub mod ftest;
pub mod home;
pub mod pbs;
pub mod qmgr;
pub mod queue;
pub mod usage;
