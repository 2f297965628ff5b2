//! The flux-accounting adapter: its SQLite database (the bank/association tree, the `jobs`
//! table of finished jobs, the weights), `flux jobs --json`, and `mf_priority`, the jobtap
//! plugin's job priority, reproduced exactly; and a live instance's snapshot for a forecast
//! (`snapshot`: `flux jobs -a --json`; `resource_set`: `flux resource R`). Every SQL statement against the database is in
//! `schema`; the `jobs` table has one reader (`jobs_table`), for `usage record` and `replay`.

pub mod db;
pub mod jobs;
pub mod jobs_table;
pub mod priority;
pub mod resource_set;
pub mod schema;
pub mod site;
pub mod snapshot;
pub use jobs::{read_flux_jobs, FluxJob};
pub use jobs_table::read_jobs_table;
