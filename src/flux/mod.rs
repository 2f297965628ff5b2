//! The flux-accounting adapter: its SQLite database (the bank/association tree, the `jobs`
//! table of finished jobs, the weights), `flux jobs --json`, and `mf_priority`, the jobtap
//! plugin's job priority, reproduced exactly. Every SQL statement against the database is in
//! `schema`; the `jobs` table has one reader (`jobs_table`), for `usage record` and `replay`.

pub mod db;
pub mod jobs;
pub mod jobs_table;
pub mod priority;
pub mod schema;
pub mod site;
pub use jobs::{read_flux_jobs, FluxJob};
pub use jobs_table::read_jobs_table;
