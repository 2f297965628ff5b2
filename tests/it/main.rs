//! fairsort's integration and CLI tests, in one test binary (`cargo test --test it`): one link
//! instead of one per file. Each file is a module named after what it tests; filter with
//! `cargo test --test it order_cli::` or any part of a test's name.
//!
//! Tests run as threads of one process here: a test must not change process-wide state
//! (`std::env::set_var`, the current directory, the umask, signal dispositions). Give a spawned
//! binary its own environment with `Command::env` / `env_remove` instead.
//!
//! proptest keeps the failing cases it found in `tests/proptest-regressions/<module>.txt` (its
//! default place for a test crate with a `main.rs`) and replays them first; commit them.

// Measurement and test output on stderr may panic on a closed stderr: only the binary must not.
#![allow(clippy::disallowed_macros)]

mod architecture;
mod bounds_cli;
mod bounds_readers;
mod bounds_replay;
mod bounds_slurm;
mod common;

mod doc_commands;
mod error_locations;
mod fairshare_flux;
mod flux_forecast;
mod flux_priority;
mod formats_flux;
mod formats_native;
mod formats_pbs;
mod formats_slurm;
mod formula_check_pbs;
mod formula_cli;
mod formula_fast_exact;
mod formula_golden;
mod formula_home;
mod formula_limits;
mod formula_numbers;
mod formula_python_diff;
mod ftest_cli;
mod ftest_queue_cli;
mod hardening_corpus;
mod hardening_home;
mod hardening_limits;
mod hardening_props;
mod hardening_regressions;
mod hardening_validate;
mod home_permissions;
mod home_safety;
mod home_security;
mod home_snapshot;
mod home_tree;
mod mapped_inputs;
mod math_bits;
mod metrics;
mod newcomer;
mod order_cli;
mod order_demo;
mod order_rows_cli;
mod order_threshold;
mod pbs_cycles;
mod pbs_forecast;
mod pbs_hazards_captures;
mod pbs_holidays;
mod pbs_import_cli;
mod pbs_site_files;
mod pbs_site_order;
mod plot;
mod qmgr_captures;
mod qmgr_formula;
mod qmgr_language;
mod qmgr_pbs_verdicts;
mod readers_agree;
mod replay;
mod report;
mod service;
mod share_cli;
mod share_flux_db;
mod site_home;
mod slurm_capture_cli;
mod slurm_captures;
mod slurm_edges;
mod slurm_forecast;
mod slurm_home;
mod slurm_priority;
mod slurm_snapshot;
mod slurm_whatif;
mod tune;
mod usage_cli;
mod usage_store_copy;
